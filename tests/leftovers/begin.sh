#!/bin/sh
# The first test of `make check': records what the machine has before the
# suite (end.sh, the last, fails on anything new), and proves that the
# process scan finds a marked process left running.
. "$srcdir/tests/leftovers/scan.sh"
out=${MCINIT_LEFTOVERS:?set by AM_TESTS_ENVIRONMENT}
mkdir -p "$(dirname "$out")"
machine_state | sort -u >"$out"
echo "ok 1 - baseline recorded ($(wc -l <"$out") entries)"

# A deliberate leftover under another mark must be found, and only it.
probe="selftest-$$"
MCINIT_TESTSUITE=$probe sleep 60 &
pid=$!
sleep 0.2
found=$(marked_pids "$probe")
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
case $found in
"$pid sleep 60 ") echo "ok 2 - the scan finds a process left running" ;;
*)
	echo "not ok 2 - the scan finds a process left running"
	echo "# expected '$pid sleep 60 ', got '$found'"
	;;
esac
echo "1..2"
