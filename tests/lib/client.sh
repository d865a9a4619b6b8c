#!/bin/sh
# client.sh — the program (src/) as a client of its library (issue 37), as
# curl's tool is of libcurl: it includes include/mcinit.h, the one internal
# tool header include/private/mcinit-tool.h (prefix mcx_), system headers
# and its own; it is compiled without -I lib, so a library-internal header
# does not even compile there; and the library symbols its objects use are
# the public API (MCINIT_API in mcinit.h) or the tool header's mcx_ ones.
# Read from the sources, Makefile.am, and the objects the build made (nm:
# what src/*.o take from lib/libmcinit-core.a).
. "$srcdir/tests/cli/lib.sh"

build=$(pwd)
core=$build/lib/.libs/libmcinit-core.a
tool=$srcdir/include/private/mcinit-tool.h

# Includes: mcinit.h, the tool header, build.h, or a header of src/ itself.
for f in "$srcdir"/src/*.[ch]; do
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		case $inc in
		mcinit.h | private/mcinit-tool.h | build.h) ;;
		*/*) echo "src/${f##*/} includes $inc" ;;
		*) [ -f "$srcdir/src/$inc" ] || echo "src/${f##*/} includes $inc, not a header of src/" ;;
		esac
	done
done >"$tmp/bad-includes"
sed 's/^/# /' "$tmp/bad-includes"
check src-includes-only-the-api-and-the-tool-header sh -c "! grep . '$tmp/bad-includes'"

# The compiler enforces it: the program's flags name include/, never lib/.
sed -n 's/^src_mcinit_CPPFLAGS = //p' "$srcdir/Makefile.am" >"$tmp/cppflags"
comment "$tmp/cppflags"
check program-flags-set grep -q 'top_srcdir)/include' "$tmp/cppflags"
check program-flags-without-lib sh -c "! grep -q '/lib' '$tmp/cppflags'"

# The tool header declares mcx_ names only, besides the types it needs.
sed -n 's/^[a-z][^(]*[ *]\([a-z_][a-z_0-9]*\)(.*/\1/p' "$tool" | LC_ALL=C sort -u >"$tmp/tool-fns"
check tool-header-declares-functions test -s "$tmp/tool-fns"
grep -v '^mcx_' "$tmp/tool-fns" | sed 's/^/# not mcx_: /'
check tool-header-prefix sh -c "! grep -v '^mcx_' '$tmp/tool-fns'"

# Symbols: what the program's objects (src/mcinit-*.o: its own CPPFLAGS
# name them so) take from the library.
if [ -f "$core" ] && ls "$build"/src/mcinit-*.o >/dev/null 2>&1; then
	nm --defined-only "$core" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRBCWV]$/ {print $3}' |
		LC_ALL=C sort -u >"$tmp/lib"
	for o in "$build"/src/mcinit-*.o; do nm -u "$o" | awk '{print $NF}'; done | LC_ALL=C sort -u |
		LC_ALL=C comm -12 - "$tmp/lib" >"$tmp/used"
	sed -n 's/^MCINIT_API [^(]*[ *]\(mcinit_[a-z_0-9]*\)(.*/\1/p' "$srcdir/include/mcinit.h" |
		LC_ALL=C sort -u >"$tmp/public"
	LC_ALL=C sort -u "$tmp/public" "$tmp/tool-fns" >"$tmp/allowed"
	check objects-found test -s "$tmp/used"
	LC_ALL=C comm -23 "$tmp/used" "$tmp/allowed" >"$tmp/internal"
	sed 's/^/# internal: /' "$tmp/internal"
	check src-uses-only-public-and-tool-symbols sh -c "! grep . '$tmp/internal'"
	# every entry of the contract exists in the library
	LC_ALL=C comm -23 "$tmp/tool-fns" "$tmp/lib" >"$tmp/undefined"
	sed 's/^/# declared, not defined: /' "$tmp/undefined"
	check tool-header-defined sh -c "! grep . '$tmp/undefined'"
	echo "# src/*.o use $(wc -l <"$tmp/used") library symbols:" \
		"$(LC_ALL=C comm -12 "$tmp/used" "$tmp/public" | wc -l) public (mcinit.h)," \
		"$(LC_ALL=C comm -12 "$tmp/used" "$tmp/tool-fns" | wc -l) of the tool header (mcx_)"
else
	skip objects "no lib/.libs/libmcinit-core.a or src/mcinit-*.o in $build (not built here)"
fi
finish
