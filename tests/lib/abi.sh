#!/bin/sh
# abi.sh — the ABI of the installed libmcinit.so is the committed list:
# every symbol it exports, with its version node, is a line of
# debian/libmcinit4.symbols (Debian's symbols file, which dpkg-gensymbols
# also checks when the package is built), and every line is exported.  A
# symbol added or removed without the list (and a new interface: HACKING,
# "Releases") fails here.  The soname is the list's.
set -u
: "${MCINIT_DESTDIR:?}" "${libdir:?}" "${srcdir:?}"
. "$srcdir/tests/cli/lib.sh"
lib=$MCINIT_DESTDIR$libdir
list=$srcdir/debian/libmcinit4.symbols

check symbols-list-present test -s "$list"
so=$(sed -n '1s/^\([^ ]*\) .*/\1/p' "$list")
check soname-is-the-lists test -e "$lib/$so"
# exported, as NAME@NODE (a version node's own symbol: NODE@NODE)
nm -D --defined-only "$lib/$so" | awk '{s = $3; if (s !~ /@/) s = s "@@" s; sub(/@@/, "@", s); print s}' |
	sort >"$tmp/exported"
sed -n 's/^ \([^ ]*@[^ ]*\) .*/\1/p' "$list" | sort >"$tmp/listed"
check symbols-listed test -s "$tmp/listed"
check nothing-exported-unlisted sh -c "comm -23 '$tmp/exported' '$tmp/listed' | (! grep .)"
check nothing-listed-missing sh -c "comm -13 '$tmp/exported' '$tmp/listed' | (! grep .)"
check build-depends-package grep -qx '\* Build-Depends-Package: libmcinit-dev' "$list"
finish
