#!/bin/sh
# Replays every committed fuzz corpus (seeds and the crashers fuzzing found,
# tests/fuzz/corpus/NAME/) through its target, built with the ordinary
# compiler as tests/fuzz/replay-NAME: one check per target.  Under the
# sanitizer build and make check-valgrind the same inputs meet ASan/valgrind.
. "$srcdir/tests/cli/lib.sh"
: "${FUZZ_REPLAY_DIR:?FUZZ_REPLAY_DIR must name the directory of the replay programs}"

for dir in "$srcdir"/tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	prog="$FUZZ_REPLAY_DIR/replay-$t"
	if [ ! -x "$prog" ]; then
		fail "replay-$t" "no replay program $prog for tests/fuzz/corpus/$t"
		continue
	fi
	# shellcheck disable=SC2086
	check "replay-$t" sh -c "${MCINIT_WRAPPER:-} '$prog' '$dir'* >/dev/null"
	check "replay-$t-has-seeds" sh -c "ls '$dir' | grep -q ."
done
# Every target has a corpus.
for f in "$srcdir"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$f" .c)
	name=${name#fuzz-}
	check "corpus-for-$name" test -d "$srcdir/tests/fuzz/corpus/$name"
done
finish
