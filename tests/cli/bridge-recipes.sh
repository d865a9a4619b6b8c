#!/bin/sh
# bridge-recipes.sh — each Megatron-Bridge release's own recipes, as its
# ConfigContainer.to_yaml() writes them (tests/bridge/RELEASE/), against that
# released Bridge's verdict on each (verdicts.tsv, written by the oracle with
# that release installed): what Bridge accepts validates with no error and no
# unknown key, what it refuses is refused, and the derived values are
# Bridge's.  --bridge-version RELEASE alone: the Megatron-Core release it pins
# comes with it.
. "$srcdir/tests/cli/lib.sh"

# judged NAME VERDICT RC OUT: mcinit's exit RC (output OUT) is the oracle's
# VERDICT, accept (exit 0) or refuse (exit 1 with an error).  VERDICT
# "accept-typeerror": Bridge accepts the file but keeps a str where a number
# is declared, on which the first arithmetic raises TypeError (the oracle
# says which field: oraclelib.py's typeerror_at_use); mcinit refuses it on
# purpose (issue 38: `lr: 3e-4`), saying so.
judged() {
	if [ "$2" = accept-typeerror ]; then
		check "$1-str-refused" sh -c "test $3 -eq 1 && grep -q 'error\\[MC004\\].*a string (.*raises TypeError' '$4' || { cat '$4'; false; }"
	elif [ "$2" = accept ]; then
		check "$1-accepted" sh -c "test $3 -eq 0 || { cat '$4'; false; }"
	else
		check "$1-refused" sh -c "test $3 -eq 1 && grep -q 'error\\[MC' '$4'"
	fi
}

for dir in "$srcdir"/tests/bridge/*/; do
	dir=${dir%/}
	rel=${dir##*/}
	grep -v '^#' "$dir/verdicts.tsv" | tail -n +2 >"$tmp/rows"
	check "$rel-verdicts-listed" test "$(wc -l <"$tmp/rows")" -ge 16
	while IFS="$(printf '\t')" read -r file world verdict dp nmb _; do
		n=$rel-${file%.yaml}
		rc=0
		$MCINIT validate --bridge-version "$rel" --world-size "$world" \
			--format json "$dir/$file" >"$tmp/$n.json" 2>"$tmp/$n.err" || rc=$?
		if [ "$verdict" = accept ]; then
			check "$n-accepted" test "$rc" -eq 0
			check "$n-no-unknown-key" python3 -c "
import json, sys
d = json.load(open('$tmp/$n.json'))
bad = [g['message'] for g in d['diagnostics'] if g['severity'] == 'error' or g['code'] == 'MC003']
sys.exit('\n'.join(bad) if bad else 0)"
			check "$n-derived" python3 -c "
import json, sys
d = json.load(open('$tmp/$n.json'))['derived']
want = {'data_parallel_size': $dp, 'num_micro_batches': $nmb}
got = {k: d.get(k) for k in want}
sys.exit(0 if got == want else 'mcinit %s, Bridge %s' % (got, want))"
		else
			check "$n-refused" test "$rc" -eq 1
		fi
	done <"$tmp/rows"

	# One change at a time to those dumps (mutations.tsv): what Bridge refuses
	# mcinit refuses, what it accepts mcinit accepts, but where a row says why
	# mcinit differs (the environment Bridge runs in, a key Bridge drops without
	# a word).  The oracle makes each change in the dump's YAML; mcinit gets it
	# as the Hydra override that does the same (as-hydra-edit.py: `++key=value`,
	# which also adds a key the config does not have, as a file's key may), or
	# in a copy of the file where the override is not the same change (below).
	# Empty cells are "-": read splits on tabs.
	grep -v '^#' "$dir/mutations.tsv" | tail -n +2 >"$tmp/muts"
	check "$rel-mutations-listed" test "$(wc -l <"$tmp/muts")" -ge 60
	while IFS="$(printf '\t')" read -r name file world overrides verdict _ differs; do
		if [ "$differs" != - ]; then
			skip "$rel-mutation-$name" "$differs"
			continue
		fi
		rc=0
		# A change of a field Bridge computes itself (init=False) is not
		# the override's: from_yaml drops a file's key of it, an override
		# sets it.  Made in a copy of the dump then (as-yaml-edit.py).
		# shellcheck disable=SC2086 # one change a word
		if python3 "$srcdir/tests/bridge/as-yaml-edit.py" "$srcdir/data/bridge-config-fields.tsv" \
			"$dir/$file" "$tmp/m.yaml" $overrides; then
			(cd "$dir" && HOME=/nonexistent $MCINIT validate --bridge-version "$rel" --world-size "$world" "$tmp/m.yaml") \
				>"$tmp/m.out" 2>&1 || rc=$?
			judged "$rel-mutation-$name" "$verdict" "$rc" "$tmp/m.out"
			continue
		fi
		# shellcheck disable=SC2086 # one change a word
		edits=$(python3 "$srcdir/tests/bridge/as-hydra-edit.py" $overrides)
		old_ifs=$IFS
		IFS='
	'
		# shellcheck disable=SC2086 # one override a line
		set -- $edits
		IFS=$old_ifs
		(cd "$dir" && HOME=/nonexistent $MCINIT validate --bridge-version "$rel" --world-size "$world" "$file" "$@") \
			>"$tmp/m.out" 2>&1 || rc=$?
		judged "$rel-mutation-$name" "$verdict" "$rc" "$tmp/m.out"
	done <"$tmp/muts"
	# Override words as Bridge's example scripts take them (override-words.tsv:
	# Hydra's literals, judged through process_config_with_overrides)
	if [ -f "$dir/override-words.tsv" ]; then
		grep -v '^#' "$dir/override-words.tsv" | tail -n +2 >"$tmp/words"
		while IFS="$(printf '\t')" read -r name file world word verdict _ differs; do
			if [ "$differs" != - ]; then
				skip "$rel-word-$name" "$differs"
				continue
			fi
			rc=0
			(cd "$dir" && HOME=/nonexistent $MCINIT validate --bridge-version "$rel" --world-size "$world" "$file" "$word") \
				>"$tmp/w.out" 2>&1 || rc=$?
			judged "$rel-word-$name" "$verdict" "$rc" "$tmp/w.out"
		done <"$tmp/words"
	fi
	# --bridge-recipe NAME: every recipe function the oracle built offline,
	# beside Bridge's verdict on the function's own ConfigContainer
	# (recipe-functions.tsv; the release's own recipe table answers)
	[ -f "$dir/recipe-functions.tsv" ] || continue
	grep -v '^#' "$dir/recipe-functions.tsv" | tail -n +2 >"$tmp/fns"
	check "$rel-recipe-functions-listed" test "$(wc -l <"$tmp/fns")" -ge 300
	while IFS="$(printf '\t')" read -r name world verdict _ differs; do
		if [ "$differs" != - ]; then
			skip "$rel-recipe-$name" "$differs"
			continue
		fi
		rc=0
		HOME=/nonexistent $MCINIT validate --bridge-version "$rel" --world-size "$world" \
			--bridge-recipe "$name" >"$tmp/r.out" 2>&1 || rc=$?
		if [ "$verdict" = accept ]; then
			check "$rel-recipe-$name-accepted" sh -c "test $rc -eq 0 || { cat '$tmp/r.out'; false; }"
		else
			check "$rel-recipe-$name-refused" sh -c "test $rc -eq 1 && grep -q 'error\[MC' '$tmp/r.out'"
		fi
	done <"$tmp/fns"
done
finish
