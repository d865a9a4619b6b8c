#!/bin/sh
# quickstart.sh — one command from a fresh Debian 12 machine to a working mcinit.
#
#   ./quickstart.sh          install build dependencies (when missing), bootstrap,
#                            configure, build, and validate a bundled example
#   ./quickstart.sh check    the same, then run the whole test suite (make check)
#   ./quickstart.sh bench    the same, then run the benchmarks (make bench)
#
# Environment: BUILD_DIR (default: _build), CONFIGURE_FLAGS (extra flags),
# MAKEFLAGS as usual.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/_build}
what=${1:-run}

sh "$here/build-aux/setup-debian.sh"

cd "$here"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	echo "quickstart: bootstrapping (autoreconf -fi)"
	autoreconf -fi
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$here/configure" -nt Makefile ]; then
	# shellcheck disable=SC2086
	"$here/configure" ${CONFIGURE_FLAGS:-}
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs"

case $what in
run)
	echo "quickstart: mcinit validate examples/llama3-8b.json --world-size 8"
	./src/mcinit validate "$here/examples/llama3-8b.json" --world-size 8
	;;
check)
	status=0
	make -j"$jobs" check || status=$?
	# One closing line that any reader can count, whatever the drivers printed.
	pass=$(cat tests/*/*.trs 2>/dev/null | grep -c '^:test-result: PASS' || true)
	fail=$(cat tests/*/*.trs 2>/dev/null | grep -Ec '^:test-result: (FAIL|ERROR|XPASS)' || true)
	skip=$(cat tests/*/*.trs 2>/dev/null | grep -c '^:test-result: SKIP' || true)
	if [ "$status" -ne 0 ]; then
		for log in tests/*/*.log; do
			grep -Eq '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null || continue
			echo "==== $log"
			tail -n 60 "$log"
		done
	fi
	echo "tests: $pass passed, $fail failed, $skip skipped"
	exit "$status"
	;;
bench)
	make bench
	;;
*)
	echo "usage: $0 [run|check|bench]" >&2
	exit 64
	;;
esac
