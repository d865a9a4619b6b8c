#!/bin/sh
# client.sh — the program (src/) as a client of its library: it includes
# include/mcinit.h and its own headers, and reaches past them only where
# tests/lib/program-internals.txt says so (the debt, which only shrinks).
# Read from the sources (#include lines) and from the objects the build
# made (nm: what src/*.o take from lib/libmcinit-core.a).
. "$srcdir/tests/cli/lib.sh"

build=$(pwd)
list=$srcdir/tests/lib/program-internals.txt
core=$build/lib/.libs/libmcinit-core.a
check list-found test -s "$list"

# Includes: a lib/ header (a "module/file.h" path) only where listed.
: >"$tmp/includes"
for f in "$srcdir"/src/*.[ch]; do
	rel=src/${f##*/}
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\/[^"]*\)".*/\1/p' "$f" | grep -vx 'private/mcinit-tool.h' | while read -r inc; do
		echo "include $rel $inc"
	done
done | LC_ALL=C sort -u >"$tmp/includes"
grep '^include ' "$list" | LC_ALL=C sort -u >"$tmp/listed-includes"
LC_ALL=C comm -23 "$tmp/includes" "$tmp/listed-includes" >"$tmp/new-includes"
sed 's/^/# not listed: /' "$tmp/new-includes"
check src-includes-no-new-lib-header sh -c "! grep . '$tmp/new-includes'"
LC_ALL=C comm -13 "$tmp/includes" "$tmp/listed-includes" >"$tmp/stale-includes"
sed 's/^/# listed, no longer included: /' "$tmp/stale-includes"
check include-list-exact sh -c "! grep . '$tmp/stale-includes'"

# Symbols: what src/*.o take from the library beyond what mcinit.h declares.
if [ -f "$core" ] && ls "$build"/src/*.o >/dev/null 2>&1; then
	nm --defined-only "$core" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRBCWV]$/ {print $3}' |
		LC_ALL=C sort -u >"$tmp/lib"
	for o in "$build"/src/*.o; do nm -u "$o" | awk '{print $NF}'; done | LC_ALL=C sort -u |
		LC_ALL=C comm -12 - "$tmp/lib" >"$tmp/used"
	sed -n 's/^MCINIT_API .*[ *]\(mcinit_[a-z_0-9]*\)(.*/\1/p' "$srcdir/include/mcinit.h" |
		LC_ALL=C sort -u >"$tmp/public"
	# The tool header's contract (mcx_) counts as public for the program.
	sed -n 's/^[a-z].*[ *]\(mcx_[a-z_0-9]*\)(.*/\1/p' "$srcdir/include/private/mcinit-tool.h" >>"$tmp/public"
	LC_ALL=C sort -u -o "$tmp/public" "$tmp/public"
	LC_ALL=C comm -23 "$tmp/used" "$tmp/public" | sed 's/^/symbol /' >"$tmp/internal"
	grep '^symbol ' "$list" | LC_ALL=C sort -u >"$tmp/listed-symbols"
	check objects-found test -s "$tmp/used"
	LC_ALL=C comm -23 "$tmp/internal" "$tmp/listed-symbols" >"$tmp/new-symbols"
	sed 's/^/# not listed: /' "$tmp/new-symbols"
	check src-uses-no-new-internal-symbol sh -c "! grep . '$tmp/new-symbols'"
	LC_ALL=C comm -13 "$tmp/internal" "$tmp/listed-symbols" >"$tmp/stale-symbols"
	sed 's/^/# listed, no longer used: /' "$tmp/stale-symbols"
	check symbol-list-exact sh -c "! grep . '$tmp/stale-symbols'"
	echo "# src/*.o use $(wc -l <"$tmp/used") library symbols, $(wc -l <"$tmp/internal") beyond mcinit.h"
else
	skip objects "no lib/.libs/libmcinit-core.a or src/*.o in $build (not built here)"
fi
finish
