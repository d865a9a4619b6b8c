#!/bin/sh
# CLI tests for the manual pages (`mcinit man`): every page renders with
# groff -ww and man -l silent, each command page's options are exactly its
# --help's, mcinit(1) lists every command and every environment variable the
# sources read, mcinit-config(5) every field and every diagnostic code, and
# the build wrote every page.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
$M man >"$tmp/pages"
check pages-listed test -s "$tmp/pages"
check unknown-page-is-usage sh -c "$M man nosuch >/dev/null 2>&1; test \$? -eq 64"
check two-pages-is-usage sh -c "$M man mcinit config >/dev/null 2>&1; test \$? -eq 64"
check page-spellings sh -c "$M man man/mcinit-validate.1 >'$tmp/a' && $M man validate >'$tmp/b' && cmp '$tmp/a' '$tmp/b'"
check wrong-section-rejected sh -c "! $M man mcinit-config.1 >/dev/null 2>&1"

# The build wrote exactly these pages (man/ beside src/), as they are now.
built=$(dirname "$(dirname "${MCINIT##* }")")/man
sort "$tmp/pages" >"$tmp/pages.sorted"
(cd "$built" && ls -- *.[0-9]) | sort >"$tmp/built"
check build-wrote-every-page diff -u "$tmp/pages.sorted" "$tmp/built"
while read -r p; do
	check "built-$p-current" sh -c "$M man '$p' | cmp -s - '$built/$p'"
done <"$tmp/pages"

# Every page: roff that groff renders with every warning enabled and none given.
while read -r p; do
	$M man "$p" >"$tmp/$p"
	check "page-$p-written" test -s "$tmp/$p"
	if command -v groff >/dev/null 2>&1; then
		check "groff-ww-$p" sh -c "groff -ww -z -man '$tmp/$p' 2>&1 | sed 's/^/groff: /' | grep . && exit 1; exit 0"
	else
		skip "groff-ww-$p" "groff is not installed"
	fi
done <"$tmp/pages"

# The long and short option names of a --help listing / of a page's .TP tags.
help_opts() {
	sed -n 's/^ \{1,\}\(-[^ ].*\)/\1/p' | sed 's/   .*//; s/, /\n/g' |
		sed 's/=.*//; s/\[.*//; s/ .*//' | grep '^-' | sort -u
}
page_opts() {
	sed -n '/^\.SH "OPTIONS"/,/^\.SH/{/^\.TP/{n;p;}}' | sed 's/\\-/-/g; s/\\fR, /\n/g' |
		sed -n 's/^\\fB\(-[^\\]*\).*/\1/p' | sort -u
}
for c in $(sed -n 's/^mcinit-\(.*\)\.1$/\1/p' "$tmp/pages"); do
	$M "$c" --help | help_opts >"$tmp/help-$c"
	page_opts <"$tmp/mcinit-$c.1" >"$tmp/man-$c"
	check "options-$c-nonempty" test -s "$tmp/man-$c"
	check "options-$c-equal-help" diff -u "$tmp/help-$c" "$tmp/man-$c"
done

# mcinit(1): every command of `mcinit --help`, every variable the sources read.
$M --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' >"$tmp/cmds"
check commands-found test -s "$tmp/cmds"
while read -r c; do
	check "mcinit.1-lists-$c" grep -qx ".B $c" "$tmp/mcinit.1"
	check "page-of-$c" grep -qx "mcinit-$c.1" "$tmp/pages"
done <"$tmp/cmds"
grep -ohE '(getenv\(|env_get\([^,"]*, |job_env\([^,"]*, )"[A-Z_]+"' "$srcdir"/src/*.c "$srcdir"/lib/*/*.c |
	grep -oE '"[A-Z_]+"' | tr -d '"' | sort -u >"$tmp/envs"
sed -n 's/.*envs\[\] = {\(.*\)};/\1/p' "$srcdir"/src/*.c "$srcdir"/lib/*/*.c | grep -oE '[A-Z_]+' >>"$tmp/envs"
check environment-found grep -q WORLD_SIZE "$tmp/envs"
for e in $(sort -u "$tmp/envs"); do
	check "environment-$e" grep -qx ".B $e" "$tmp/mcinit.1"
done
check exit-status-table sh -c "test \$(sed -n '/^\.SH \"EXIT STATUS\"/,/^\.SH/p' '$tmp/mcinit.1' | grep -c '^\.B [0-9]') -eq \$(grep -c '^	X([0-9]*,' '$srcdir/src/exitcodes.h')"

# mcinit-config(5): every field of the schema, every documented code.
$M schema | python3 -c '
import json, sys
s = json.load(sys.stdin)["properties"]
for sec, v in s.items():
    v = v.get("anyOf", [v])[0]
    for f, fv in v.get("properties", {}).items():
        if not fv.get("description", "").startswith("alias of"):
            print(sec, f)' >"$tmp/fields"
check fields-found test -s "$tmp/fields"
sed -n '/^\.SH "FIELDS"/,/^\.SH/p' "$tmp/mcinit-config.5" | sed 's/\\-/-/g' |
	awk '/^\.SS/ { gsub(/"/, "", $2); sec = $2 } /^\\fB/ { f = $1; sub(/^\\fB/, "", f); sub(/\\fR.*/, "", f); print sec, f }' >"$tmp/man-fields"
sort "$tmp/fields" >"$tmp/fields.sorted"
sort "$tmp/man-fields" >"$tmp/man-fields.sorted"
check config-5-every-field diff -u "$tmp/fields.sorted" "$tmp/man-fields.sorted"
$M explain | sed -n 's/^\(MC[0-9]*\) (.*/\1/p' >"$tmp/codes"
check codes-found test -s "$tmp/codes"
for c in $(cat "$tmp/codes"); do
	check "config-5-code-$c" grep -q "^\.BR $c " "$tmp/mcinit-config.5"
done

# What a reader sees: man -l renders MC001 with its fix.
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$tmp/mcinit-config.5" >"$tmp/config.txt" 2>"$tmp/man.err"
	check man-l-silent sh -c "! grep . '$tmp/man.err'"
	check man-l-mc001-fix sh -c "grep -A8 '^ *MC001 (error)' '$tmp/config.txt' | grep -q 'Fix: omit the flag'"
else
	skip man-l-silent "man is not installed"
	skip man-l-mc001-fix "man is not installed"
fi
# mcinit-validate(1) documents every derived value validate reports (both
# are made from derived.def): here on a job that reports all but the gtp pair.
$M man validate | sed -n '/^\.SH "*DERIVED VALUES/,/^\.SH/p' | sed -n 's/^\.B //p' >"$tmp/derived-doc"
$M validate --format=json --world-size 64 "$srcdir/examples/mixtral-8x7b.json" 2>/dev/null |
	python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["derived"]))' >"$tmp/derived-json"
check derived-values-reported test "$(wc -l <"$tmp/derived-json")" -ge 15
check derived-values-in-man test "$(wc -l <"$tmp/derived-doc")" -ge 15
check derived-values-documented sh -c "grep -vxFf '$tmp/derived-doc' '$tmp/derived-json' | (! grep .)"
finish
