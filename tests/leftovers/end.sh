#!/bin/sh
# The last test of `make check' (it depends on every other test's log):
# fails when a test left a process, a file in the suite's TMPDIR, a mount,
# a network namespace or a /dev/shm entry behind.  Processes that are
# being torn down get a few seconds to go.
. "$srcdir/tests/leftovers/scan.sh"
base=${MCINIT_LEFTOVERS:?set by AM_TESTS_ENVIRONMENT}
n=0 bad=0
report() {
	n=$((n + 1))
	if [ -s "$2" ]; then
		bad=1
		echo "not ok $n - $1"
		sed 's/^/# left: /' "$2"
	else
		echo "ok $n - $1"
	fi
}
state=$(mktemp -d "${TMPDIR:-/tmp}/../leftovers.XXXXXX") || exit 1
trap 'rm -rf "$state"' EXIT
tries=0
while :; do
	marked_pids "$MCINIT_TESTSUITE" >"$state/procs"
	ls -A "$TMPDIR" >"$state/files" 2>/dev/null
	machine_state | sort -u | comm -13 "$base" - >"$state/new"
	if [ -s "$state/procs" ] || [ -s "$state/files" ] || [ -s "$state/new" ]; then
		tries=$((tries + 1))
		[ "$tries" -lt 10 ] && sleep 0.5 && continue
	fi
	break
done
report "no test process left running" "$state/procs"
report "nothing left in the suite's TMPDIR ($TMPDIR)" "$state/files"
report "no mount, network namespace or /dev/shm entry left" "$state/new"
[ -s "$state/new" ] && echo "# (machine-wide: another test suite running on this machine at the same time can leave these too)"
echo "1..$n"
exit $bad
