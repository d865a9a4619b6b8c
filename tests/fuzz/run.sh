#!/bin/sh
# make fuzz: runs fuzz-cli.py against the mcinit binary (MCINIT), then builds each tests/fuzz/fuzz-*.c as a libFuzzer target (clang,
# with ASan and UBSan) and runs it for FUZZ_SECONDS (default 60) on a corpus
# directory kept in the build tree.  Needs clang with libFuzzer (Debian:
# clang and libclang-rt-14-dev).
set -eu
: "${srcdir:?}"
cc=${CLANG:-clang}
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_BUILD:-fuzz}
mkdir -p "$out"
status=0
# The whole command line, black-box: needs only python3 and the binary.
if [ -n "${MCINIT:-}" ]; then
	python3 "$srcdir/tests/fuzz/fuzz-cli.py" "$MCINIT" "$srcdir" "$secs" || status=1
fi
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2
	exit $status
fi
flags="-std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$srcdir/src -I$srcdir/include"
for f in "$srcdir"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$f" .c)
	mod=${name#fuzz-}
	# shellcheck disable=SC2086
	"$cc" $flags "$f" "$srcdir/src/$mod.c" "$srcdir/src/util.c" -ljansson -o "$out/$name"
	mkdir -p "$out/$name.corpus"
	echo "== $name: ${secs}s"
	"$out/$name" -max_total_time="$secs" -max_len=16384 "$out/$name.corpus" 2>"$out/$name.log" ||
		{ status=1; tail -n 40 "$out/$name.log"; }
	grep -E '^(Done|#[0-9]+.*DONE)' "$out/$name.log" | tail -n 1 || true
done
exit $status
