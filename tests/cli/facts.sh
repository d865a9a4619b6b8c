#!/bin/sh
# The extracted tables come back from the inputs data/facts.lock pins: `make
# facts` (build-aux/facts.sh) on a copy of data/ must leave it equal to the
# source tree's, table by table.  The releases need their wheels: in
# FACTS_CACHE already, or downloaded by pip when FACTS_NETWORK=1 (`make
# check-facts`); without them those checks are skipped, so the default suite
# stays offline.  The main snapshot needs FACTS_MLM and FACTS_BRIDGE (clones or
# bare mirrors of Megatron-LM and Megatron-Bridge).  The lock's own
# consistency is checked everywhere.
. "$srcdir/tests/cli/lib.sh"

PYTHON3=${PYTHON3:-python3}
lock="$srcdir/data/facts.lock"
rows() { grep -v '^#' "$lock" | tail -n +2; }

# ---- offline: the lock names what the tables say they were read from
for dir in $(rows | cut -f1 | grep '^data/releases/' | sort -u); do
	rows | awk -F'\t' -v d="$dir" '$1 == d { print $2 "\t" $4 "\t" $5 }' | sort >"$tmp/l"
	tail -n +2 "$srcdir/$dir/SOURCES.tsv" | awk -F'\t' '{ print $1 "\t" $2 "\t" $5 }' | sort >"$tmp/s"
	check "lock-is-sources-${dir#data/releases/}" cmp "$tmp/l" "$tmp/s"
done
tail -n +2 "$srcdir/data/megatron-versions.tsv" | cut -f1,3 | sort >"$tmp/v"
rows | awk -F'\t' '$2 == "training" { print $3 "\t" substr($5, 8, 10) }' | sort >"$tmp/lv"
check lock-is-megatron-versions cmp "$tmp/v" "$tmp/lv"
check lock-digests-well-formed sh -c "grep -v '^#' '$lock' | tail -n +2 | cut -f5 |
	grep -vE '^(sha256:[0-9a-f]{64}|commit:[0-9a-f]{40})\$' | { ! grep -q .; }"

# data/MANIFEST.tsv names every file of data/ once, and nothing else
manifest="$srcdir/data/MANIFEST.tsv"
mrows() { grep -v '^#' "$manifest" | tail -n +2; }
(cd "$srcdir/data" && find . -type f | sed 's|^\./||' | sort) >"$tmp/files"
: >"$tmp/unlisted"
while read -r f; do
	n=0
	for pat in $(mrows | cut -f1); do
		# shellcheck disable=SC2254
		case $f in $pat) n=$((n + 1)) ;; esac
	done
	[ $n = 1 ] || echo "$f: $n rows" >>"$tmp/unlisted"
done <"$tmp/files"
check manifest-lists-every-file-once sh -c "! grep . '$tmp/unlisted'"
check manifest-paths-exist sh -c "cd '$srcdir/data' && for p in \$(grep -v '^#' MANIFEST.tsv | tail -n +2 | cut -f1); do
	ls \$p >/dev/null || exit 1; done"
check manifest-kinds sh -c "grep -v '^#' '$manifest' | tail -n +2 | awk -F'\t' '
	!((\$2 == \"extracted\" && \$3 ~ /^(git|wheels)\$/) || (\$2 == \"curated\" && \$3 == \"-\")) { bad = 1; print }
	END { exit bad }'"

if ! command -v "$PYTHON3" >/dev/null 2>&1; then
	skip regenerate "no $PYTHON3"
	finish
	exit
fi

# ---- data/bridge-recipes.tsv: from Megatron-Bridge main alone, so it needs
# neither the wheels nor the network, only FACTS_BRIDGE holding the lock's commit
bcommit=$(rows | awk -F'\t' '$2 == "bridge" && $3 == "main" { print substr($5, 8) }')
if [ -z "${FACTS_BRIDGE:-}" ]; then
	skip recipes-regenerate "no FACTS_BRIDGE (a Megatron-Bridge clone or bare mirror)"
elif ! bridge=$(cd "$FACTS_BRIDGE" 2>/dev/null && pwd) ||
	! git -C "$bridge" cat-file -e "$bcommit^{commit}" 2>/dev/null; then
	skip recipes-regenerate "FACTS_BRIDGE=$FACTS_BRIDGE does not hold Megatron-Bridge $bcommit"
else
	check recipes-regenerate sh -c "'$PYTHON3' '$srcdir/build-aux/extract-facts.py' bridge-recipes \
		--bridge '$bridge@$bcommit' -o '$tmp/recipes.tsv' &&
		diff -u '$srcdir/data/bridge-recipes.tsv' '$tmp/recipes.tsv'"
fi

# ---- regenerate on a copy (the source tree may be read-only)
mkdir -p "$tmp/src"
cp -R "$srcdir/data" "$srcdir/build-aux" "$tmp/src/"
chmod -R u+w "$tmp/src"
offline=1
[ "${FACTS_NETWORK:-}" != 1 ] || offline=
rc=0
FACTS_OFFLINE=$offline PYTHON3=$PYTHON3 MLM=${FACTS_MLM:-} BRIDGE=${FACTS_BRIDGE:-} \
	FACTS_WRITTEN="$tmp/src/written" \
	$SHELL "$tmp/src/build-aux/facts.sh" "$tmp/src" >"$tmp/log" 2>&1 || rc=$?
comment "$tmp/log"
if [ $rc = 77 ]; then
	skip regenerate-releases "the locked wheels are not in ${FACTS_CACHE:-~/.cache/mcinit/facts} (make check-facts downloads them)"
elif [ $rc != 0 ]; then
	fail regenerate "build-aux/facts.sh exited $rc" "$tmp/log"
else
	for dir in $(rows | cut -f1 | grep '^data/releases/' | sort -u); do
		for t in "$srcdir/$dir"/*.tsv; do
			t=${t#"$srcdir/"}
			check "unchanged-$t" diff -u "$srcdir/$t" "$tmp/src/$t"
			check "written-$t" grep -q "^$t\$" "$tmp/src/written"
		done
	done
	# a wheel whose digest is not the lock's is never read
	sed 's/^\(data\/releases\/[^	]*	core	[^	]*	[^	]*	sha256:\)[0-9a-f]/\1x/' \
		"$lock" >"$tmp/src/data/facts.lock"
	rc2=0
	FACTS_OFFLINE=1 PYTHON3=$PYTHON3 $SHELL "$tmp/src/build-aux/facts.sh" "$tmp/src" \
		>"$tmp/log2" 2>&1 || rc2=$?
	check wrong-digest-refused sh -c "test $rc2 = 77 && grep -q 'not in' '$tmp/log2'"
	cp "$lock" "$tmp/src/data/facts.lock"
fi
if [ -z "${FACTS_MLM:-}" ] || [ -z "${FACTS_BRIDGE:-}" ]; then
	skip regenerate-main "no FACTS_MLM and FACTS_BRIDGE (Megatron-LM and Megatron-Bridge clones)"
elif [ $rc != 0 ]; then
	skip regenerate-main "the releases did not regenerate"
else
	# every table the manifest says git sources make, each written by facts.sh
	for t in $(mrows | awk -F'\t' '$2 == "extracted" && $3 == "git" { print $1 }'); do
		check "unchanged-data/$t" diff -u "$srcdir/data/$t" "$tmp/src/data/$t"
		check "written-data/$t" grep -q "^data/$t\$" "$tmp/src/written"
	done
fi
finish
