#!/bin/sh
# make bench: runs every tests/bench/bench-*.sh in turn.  Each prints its own
# small report.  Needs MCINIT (the binary) and srcdir; BENCH_BUILD is the build
# directory (for bench programs built by make).
set -eu
: "${MCINIT:?}" "${srcdir:?}"
status=0
for b in "$srcdir"/tests/bench/bench-*.sh; do
	echo "== $(basename "$b")"
	sh "$b" || status=1
done
exit $status
