#!/bin/sh
# mcinit store --world-size and mcinit run's launcher check, before they
# listen, that the open-file limit has a descriptor for every rank and that
# net.core.somaxconn lets the ranks connect at once: the soft limit is
# raised as far as the hard one allows, and what still falls short is a
# warning with the numbers and what to set (issue 28).  Limits are lowered
# in a subshell; every store is killed once it listens.
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT MCINIT_STORE_TOKEN MCINIT_LAUNCHED 2>/dev/null || true

M=$MCINIT
T="timeout -k 5 60"
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=1048576
somax=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo -1)

# store_err LIMITS WORLD OUT: runs a store for WORLD ranks under LIMITS (a
# ulimit command) until it listens; its stderr in OUT, its soft open-file
# limit in OUT.soft.
store_err() {
	(
		eval "$1"
		$M store --host 127.0.0.1 --port 0 --world-size "$2" 2>"$3" &
		p=$!
		wait_line "$3" listening
		awk '/^Max open files/ { print $4 }' /proc/$p/limits >"$3.soft"
		kill $p
		wait $p 2>/dev/null
		true
	)
}

store_err "ulimit -n 256" 1000 "$tmp/low"
check store-nofile-low-warns grep -q '^mcinit store: warning: the open-file limit is 256 (hard limit 256), but a store for 1000 ranks needs 1064 descriptors: raise it before the job (ulimit -n 1064' "$tmp/low"
check store-nofile-low-still-listens grep -q '^mcinit store: listening on 127.0.0.1:' "$tmp/low"

if [ "$hard" -ge 1064 ]; then
	store_err "ulimit -Sn 256" 1000 "$tmp/soft"
	check store-nofile-soft-raised sh -c "test \"\$(cat '$tmp/soft.soft')\" = 1064"
	check store-nofile-soft-raised-quietly sh -c "! grep -q warning '$tmp/soft'"
else
	skip store-nofile-soft-raised "the hard open-file limit is $hard"
	skip store-nofile-soft-raised-quietly "the hard open-file limit is $hard"
fi

store_err "ulimit -Sn 256" 100 "$tmp/fits"
check store-fits-quietly sh -c "! grep -q warning '$tmp/fits' && grep -q listening '$tmp/fits'"

if [ "$somax" -ge 1 ] && [ "$somax" -lt 65535 ] && [ "$hard" -gt $((somax + 65)) ]; then
	w=$((somax + 1))
	store_err : "$w" "$tmp/backlog"
	check store-somaxconn-warns grep -q "^mcinit store: warning: net.core.somaxconn is $somax, but $w ranks may connect at once: .*(sysctl -w net.core.somaxconn=$w)" "$tmp/backlog"
else
	skip store-somaxconn-warns "net.core.somaxconn is $somax (hard open-file limit $hard)"
fi

# The launcher of `mcinit run` serves the store: the same check, and the
# job still runs (2 ranks need 66 descriptors; 40 are left).
check run-launcher-nofile-low-warns sh -c "(ulimit -n 40; $T $M run --allow-no-cuda --nproc-per-node 2 topology-model.json) >'$tmp/run' 2>&1 && grep -q '^mcinit run: warning: the open-file limit is 40 (hard limit 40), but a store for 2 ranks needs 66 descriptors' '$tmp/run'"
finish
