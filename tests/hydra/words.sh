#!/bin/sh
# words.sh — mcinit's Hydra override parser (lib/input/hydra.c) against
# Hydra's own, on committed words: for each FILE.txt here (one JSON string a
# line), FILE.hydra.json is what hydra-core 1.3's OverridesParser made of
# each word (tests/oracle/bridge/hydra_words.py judge, run with the Bridge
# 0.6.2 venv), and tests/hydra/hydra-dump must print exactly that: the same
# parse tree, or an error where Hydra raises.  No Python is needed here: the
# committed verdicts are the golden files.
#   words.txt   generated from the grammar and mutated (hydra_words.py gen
#               --count 2600 --seed 38)
#   cases.txt   the forms users type and the edges of each token rule
# To regenerate a verdict file:
#   /var/tmp/bridge-venv/bin/python tests/oracle/bridge/hydra_words.py judge \
#       tests/hydra/words.txt > tests/hydra/words.hydra.json
. "$srcdir/tests/cli/lib.sh"
: "${HYDRA_DUMP:?HYDRA_DUMP must point at tests/hydra/hydra-dump}"

for f in "$srcdir"/tests/hydra/*.txt; do
	name=$(basename "$f" .txt)
	# shellcheck disable=SC2086
	${MCINIT_WRAPPER:-} "$HYDRA_DUMP" "$f" >"$tmp/$name.json" 2>"$tmp/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "hydra-$name" "hydra-dump exited $rc" "$tmp/$name.err"
		continue
	fi
	if cmp -s "$tmp/$name.json" "$srcdir/tests/hydra/$name.hydra.json"; then
		pass "hydra-$name ($(wc -l <"$f") words)"
	else
		diff "$srcdir/tests/hydra/$name.hydra.json" "$tmp/$name.json" >"$tmp/$name.diff"
		fail "hydra-$name" "words parsed differently from Hydra (< Hydra, > mcinit)" "$tmp/$name.diff"
	fi
done
finish
