#!/bin/sh
# run.sh NAME... — make fuzz: runs each libFuzzer target tests/fuzz/fuzz-NAME
# (built by --enable-fuzzing, in the current directory's tests/fuzz/) for
# FUZZ_TIME seconds (default 60), starting from the committed corpus
# tests/fuzz/corpus/NAME plus a working corpus kept in fuzz-corpus/NAME, then
# the black-box command-line fuzzer.  A crash, a leak (LeakSanitizer), an
# input slower than 10 s or more than 2 GB fails the run; the input is left
# as fuzz-artifacts/NAME-crash-* — add it to tests/fuzz/corpus/NAME/ so the
# replay test keeps it.  Each target's execution count is printed.  The
# leaks that are hwloc's own, which make check suppresses too, are named in
# tests/leaks/lsan-hwloc.supp.
set -u
: "${srcdir:?}"
LSAN_OPTIONS=suppressions=$srcdir/tests/leaks/lsan-hwloc.supp
export LSAN_OPTIONS
secs=${FUZZ_TIME:-60}
status=0
mkdir -p fuzz-artifacts
for name in "$@"; do
	prog=tests/fuzz/fuzz-$name
	work=fuzz-corpus/$name
	mkdir -p "$work"
	maxlen=16384
	[ "$name" = hwloc ] && maxlen=65536
	echo "== fuzz-$name: ${secs}s"
	if "$prog" -max_total_time="$secs" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="fuzz-artifacts/$name-" -print_final_stats=1 \
		"$work" "$srcdir/tests/fuzz/corpus/$name" >"fuzz-$name.log" 2>&1; then
		:
	else
		status=1
		echo "fuzz-$name FAILED:"
		tail -n 40 "fuzz-$name.log"
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz-$name.log")
	echo "fuzz-$name: ${runs:-?} executions in ${secs}s"
done
if [ -n "${MCINIT:-}" ]; then
	echo "== fuzz-cli: ${secs}s"
	python3 "$srcdir/tests/fuzz/fuzz-cli.py" "$MCINIT" "$srcdir" "$secs" || status=1
fi
exit $status
