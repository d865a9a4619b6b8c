#!/bin/sh
# CLI tests for `mcinit explain`: every code the sources can emit is
# documented, lookups accept short forms, unknown codes are usage errors.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
codes=$(grep -ohE '"MC[0-9]{3}"' "$srcdir"/src/*.c "$srcdir"/lib/*/*.c | tr -d '"' | sort -u)
check emitted-codes-found sh -c "test -n '$codes'"
for c in $codes; do
	check "documented-$c" sh -c "$M explain $c | grep -q '^$c ('"
done
check short-forms sh -c "$M explain 12 mc001 | grep -c '^MC0' | grep -qx 2"
check unknown-code-is-usage sh -c "$M explain MC999 >/dev/null 2>&1; test \$? -eq 64"
check roff-sections sh -c "$M explain --roff | grep -c '^\\.SS' | grep -qx 4"
check list-all-matches-sources sh -c "test \$($M explain | grep -c '^MC[0-9]') -ge $(echo "$codes" | wc -l)"
finish
