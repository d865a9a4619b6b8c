#!/bin/sh
# The CPU run path under valgrind (issue 13): a launcher with two workers,
# all three under memcheck (--trace-children), must finish with no memory
# error and no definite or possible leak; so must a rank that times out
# (the error path) and a rank 0 that serves the store in its own thread.
# Skips when valgrind is absent (build-aux/setup-debian.sh installs it).
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT LOCAL_WORLD_SIZE GROUP_RANK TORCHELASTIC_USE_AGENT_STORE \
	TORCHELASTIC_ERROR_FILE MCINIT_STORE_TOKEN MCINIT_LAUNCHED MCINIT_FAULT 2>/dev/null || true
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed"
[ "$(slowdown)" = 1 ] || skip_all "a sanitized build does not run under valgrind"
M=${MCINIT##* }
J=topology-model.json
VG="valgrind -q --trace-children=yes --leak-check=full --error-exitcode=1"
VG="$VG --suppressions=$srcdir/tests/leaks/valgrind-hwloc.supp"
T="timeout -k 5 300"
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

check run-valgrind-launcher-2-ranks sh -c "$T $VG $M run --allow-no-cuda --nproc-per-node 2 --timeout 120 $J >$tmp/l.out 2>&1;
	rc=\$?; cat $tmp/l.out; [ \$rc = 0 ] && ! grep -q '==[0-9]*==' $tmp/l.out"
P=$(free_port)
check run-valgrind-timeout-path sh -c "WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P \
	$T $VG $M run --allow-no-cuda --timeout 3 $J >$tmp/t.out 2>&1;
	rc=\$?; cat $tmp/t.out; [ \$rc = 75 ] && ! grep -q '==[0-9]*==' $tmp/t.out"
P=$(free_port)
check run-valgrind-rank0-serves sh -c "
	for r in 0 1; do
		WORLD_SIZE=2 RANK=\$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$P \
			$T $VG $M run --allow-no-cuda --timeout 120 $J >$tmp/r\$r.out 2>&1 &
	done
	wait %1; r0=\$?; wait %2; r1=\$?
	cat $tmp/r0.out $tmp/r1.out
	[ \$r0 = 0 ] && [ \$r1 = 0 ] && ! grep -q '==[0-9]*==' $tmp/r0.out $tmp/r1.out"
finish
