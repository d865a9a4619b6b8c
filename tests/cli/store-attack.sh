#!/bin/sh
# `mcinit store` under attack (store-attack.py; no torch needed): the job
# token holds for every command and every key length, replies stay within
# --max-memory (the store under `ulimit -v` survives a MULTI_GET of an 8 GB
# reply and a client that never reads), connections past the open-file
# limit neither spin the store nor stop it, tokens of 4,096 bytes work end
# to end (a longer one is refused, never cut), and an open store says so.
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT MCINIT_STORE_TOKEN MCINIT_LAUNCHED TORCHELASTIC_USE_AGENT_STORE \
	2>/dev/null || true

M=$MCINIT
T="timeout -k 5 120"
A="$srcdir/tests/cli/store-attack.py"
J="$srcdir/tests/cli/inputs/topology-model.json"
asan=0
if ldd "${MCINIT##* }" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	asan=1
fi

# start_store ERRFILE ARGS...: `mcinit store` in the background ($pid),
# its port in $P once it listens.
start_store() {
	err=$1
	shift
	# the background job truncates $err only once it runs: a file left by
	# an earlier store would show its "listening" line, and its port, first
	rm -f "$err"
	"$@" 2>"$err" &
	pid=$!
	wait_line "$err" listening
	P=$(sed -n 's/^mcinit store: listening on .*:\([0-9]*\)$/\1/p' "$err")
}
stop_store() {
	kill "$pid" 2>/dev/null
	wait "$pid"
}

tok=$(python3 -c 'import random; r = random.Random(36); print("".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4096)))')
printf '%s\n' "$tok" >"$tmp/token"

# The token: every command code, no token and a wrong one, keys of 0, 64,
# 65, 4096 and 1 MiB bytes (from 12 bytes on ending in /mcinit/open).
start_store "$tmp/tok.err" $M store --host 127.0.0.1 --port 0 --token-file "$tmp/token"
check store-token-matrix $T python3 "$A" "$P" token-matrix "$tok"
check store-token-undecided-refused-at-once $T python3 "$A" "$P" token-prefix "$tok"
check store-token-4096-from-file $T python3 "$A" "$P" token-ok "$tok"
stop_store
comment "$tmp/tok.err"
start_store "$tmp/env.err" env MCINIT_STORE_TOKEN="$tok" $M store --host 127.0.0.1 --port 0
check store-token-4096-from-env $T python3 "$A" "$P" token-ok "$tok"
stop_store

# Tokens past the documented maximum are refused at start, never cut.
check store-token-too-long sh -c "$T $M store --host 127.0.0.1 --port 0 --token '${tok}x' 2>'$tmp/long.err'; rc=\$?; cat '$tmp/long.err'
	[ \$rc = 64 ] && grep -q '^mcinit store: the token is 4097 bytes long: at most 4096 are taken\$' '$tmp/long.err'"
check store-token-file-missing sh -c "$T $M store --host 127.0.0.1 --port 0 --token-file '$tmp/nosuch' 2>'$tmp/nf.err'; rc=\$?; cat '$tmp/nf.err'
	[ \$rc = 66 ] && grep -q '^mcinit store: --token-file: ' '$tmp/nf.err'"

# A 4,096-byte token through the launcher and its ranks; one byte more is
# refused by the launcher, and by a rank, before any rendezvous.
check run-token-4096 sh -c "MCINIT_STORE_TOKEN='$tok' $T $M run --allow-no-cuda --nproc-per-node 2 '$J' >'$tmp/run.out' 2>&1; rc=\$?; tail -5 '$tmp/run.out'; [ \$rc = 0 ]"
# A rank joining a store that holds the whole token (it used to cut it to
# 127 bytes, and was refused).
start_store "$tmp/agent.err" $M store --host 127.0.0.1 --port 0 --token-file "$tmp/token"
check rank-token-4096-agent-store sh -c "RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P TORCHELASTIC_USE_AGENT_STORE=True \
	MCINIT_STORE_TOKEN='$tok' $T $M run --allow-no-cuda --timeout 20 '$J' >'$tmp/agent.out' 2>&1; rc=\$?; tail -5 '$tmp/agent.out'; [ \$rc = 0 ]"
stop_store
check run-token-4097-refused sh -c "MCINIT_STORE_TOKEN='${tok}x' $T $M run --allow-no-cuda --nproc-per-node 2 '$J' >'$tmp/run2.out' 2>&1; rc=\$?; cat '$tmp/run2.out'
	[ \$rc = 65 ] && grep -q 'MCINIT_STORE_TOKEN is 4097 bytes long: at most 4096 are taken' '$tmp/run2.out'"
check rank-token-4097-refused sh -c "RANK=0 WORLD_SIZE=1 MCINIT_STORE_TOKEN='${tok}x' $T $M run --allow-no-cuda '$J' >'$tmp/run3.out' 2>&1; rc=\$?; cat '$tmp/run3.out'
	[ \$rc != 0 ] && grep -q 'MCINIT_STORE_TOKEN is 4097 bytes long: at most 4096 are taken' '$tmp/run3.out'"

# Exposure: all addresses and no token is said; an address or a token is not.
$M store --port 0 2>"$tmp/open.err" &
pid=$!
wait_line "$tmp/open.err" listening
stop_store
comment "$tmp/open.err"
check store-open-warns grep -q '^mcinit store: warning: listening on all addresses with no token: anyone who can reach port [0-9]* can read and change every key' "$tmp/open.err"
start_store "$tmp/host.err" $M store --host 127.0.0.1 --port 0
stop_store
check store-host-no-warning sh -c "! grep -q warning '$tmp/host.err'"
MCINIT_STORE_TOKEN=t $M store --port 0 2>"$tmp/t.err" &
pid=$!
wait_line "$tmp/t.err" listening
stop_store
check store-token-no-warning sh -c "! grep -q warning '$tmp/t.err'"

# Replies: the store under ulimit -v (its own footprint, --max-memory 64 and
# a margin) survives both attacks and serves a client that reads after.
if [ $asan = 1 ]; then
	skip store-multi-get-bounded "ulimit -v does not apply under ASan's shadow memory"
	skip store-slow-reader-bounded "ulimit -v does not apply under ASan's shadow memory"
else
	for c in multi-get slow-reader; do
		start_store "$tmp/$c.err" sh -c "ulimit -v 100000 && exec $M store --host 127.0.0.1 --port 0 --max-memory 64"
		check "store-$c-bounded" sh -c "$T python3 '$A' '$P' '$c' '$pid' && kill -0 '$pid'"
		kill "$pid"
		wait "$pid"
		rc=$?
		comment "$tmp/$c.err"
		check "store-$c-survived" test "$rc" = 0
	done
fi

# At the open-file limit: 100 connections against ulimit -n 64, with the
# default --max-connections (from the limit) and with one above it.
for mc in "" "--max-connections 1000"; do
	start_store "$tmp/fd${mc:+-mc}.err" sh -c "ulimit -n 64 && exec $M store --host 127.0.0.1 --port 0 $mc"
	check "store-fd-limit-no-spin${mc:+-max-connections}" $T python3 "$A" "$P" fd-limit "$pid" 100
	stop_store
	comment "$tmp/fd${mc:+-mc}.err"
done
finish
