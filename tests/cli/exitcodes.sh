#!/bin/sh
# The exit statuses: src/exitcodes.h is the one table.  Every status the
# sources return is in it, every status in it (but 0 and 1) is returned
# somewhere, and --help and the README document exactly its statuses.
. "$srcdir/tests/cli/lib.sh"

table="$srcdir/src/exitcodes.h"
sed -n 's/^[[:space:]]*X(\([0-9]*\), \([A-Z_]*\), "\(.*\)")[[:space:]\\]*$/\1 \2 \3/p' "$table" >"$tmp/table"
check table-read test "$(wc -l <"$tmp/table")" -ge 8
cut -d' ' -f2 "$tmp/table" | grep '^EX_' | grep -v '^EX_OK$' | sort >"$tmp/listed"
# Every EX_ constant a source file (not a test) uses.
grep -ohE '\bEX_[A-Z]+\b' "$srcdir"/src/*.c "$srcdir"/lib/*/*.c | sort -u >"$tmp/used"
check every-returned-status-is-listed sh -c "comm -23 '$tmp/used' '$tmp/listed' | tee '$tmp/extra' | grep -q . && exit 1; exit 0"
check every-listed-status-is-returned sh -c "comm -13 '$tmp/used' '$tmp/listed' | grep . && exit 1; exit 0"

$MCINIT --help >"$tmp/help" 2>&1
# The README's paragraph that starts "Exit status".
sed -n '/^Exit status/,/^$/p' "$srcdir/README.md" | tr '\n' ' ' >"$tmp/readme-para"
while read -r value name meaning; do
	check "help-documents-$value" grep -qF "$value $meaning;" "$tmp/help"
done <"$tmp/table"
grep -oE '(^|[ ,:])[0-9]+ [a-z]' "$tmp/readme-para" | grep -oE '[0-9]+' | sort -n >"$tmp/readme"
cut -d' ' -f1 "$tmp/table" | sort -n >"$tmp/values"
check readme-lists-exactly-the-table diff -u "$tmp/values" "$tmp/readme"
for cmd in validate topology schema explain complete; do
	check "$cmd-help-has-exit-codes" sh -c "$MCINIT $cmd --help | grep -q 'Exit status: 0 success'"
done
finish
