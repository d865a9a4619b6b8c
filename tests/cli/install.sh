#!/bin/sh
# install.sh — `make install DESTDIR=…` (done by make check into
# $MCINIT_DESTDIR, see Makefile.am) puts everything a user gets in place: the
# program, every manual page `mcinit man` lists (as the program writes it),
# the three completion scripts where bash-completion, zsh and fish look, and
# they work with the installed program.
set -u
: "${MCINIT_DESTDIR:?}" "${bindir:?}" "${mandir:?}" "${bashcompdir:?}" "${zshcompdir:?}" \
	"${fishcompdir:?}" "${srcdir:?}"
. "$srcdir/tests/cli/lib.sh"
dest=$MCINIT_DESTDIR
bin=$dest$bindir/mcinit

check installed-program test -x "$bin"
check installed-program-runs sh -c "'$bin' --version | head -n1 | grep -q '^mcinit '"
check installed-program-validates sh -c "'$bin' validate '$srcdir/examples/llama3-8b.json' --world-size 8"

$MCINIT man >"$tmp/pages"
check pages-listed test -s "$tmp/pages"
while read -r p; do
	sec=${p##*.}
	check "installed-man$sec-$p" test -f "$dest$mandir/man$sec/$p"
	$MCINIT man "$p" >"$tmp/$p"
	check "installed-$p-is-current" cmp "$tmp/$p" "$dest$mandir/man$sec/$p"
done <"$tmp/pages"
# Nothing installed under man/ that the program does not write.
(cd "$dest$mandir" && ls man*/* | sed 's|.*/||' | sort) >"$tmp/installed-pages"
sort "$tmp/pages" >"$tmp/pages.sorted"
check no-stale-pages diff -u "$tmp/pages.sorted" "$tmp/installed-pages"

check installed-bash-completion cmp "$srcdir/completions/mcinit.bash" "$dest$bashcompdir/mcinit"
check installed-zsh-completion cmp "$srcdir/completions/_mcinit" "$dest$zshcompdir/_mcinit"
check installed-fish-completion cmp "$srcdir/completions/mcinit.fish" "$dest$fishcompdir/mcinit.fish"
# The installed script with the installed program, as bash calls it.
if command -v bash >/dev/null 2>&1; then
	check installed-bash-completes bash -c "
		complete() { :; }; compopt() { :; }
		. '$dest$bashcompdir/mcinit'
		COMP_WORDS=('$bin' va); COMP_CWORD=1
		_mcinit
		[ \"\${COMPREPLY[*]}\" = validate ]"
else
	skip installed-bash-completes "bash is not installed"
fi
finish
