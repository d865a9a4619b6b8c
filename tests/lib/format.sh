#!/bin/sh
# format.sh — every C source and header is as clang-format (.clang-format)
# writes it.  Only Debian 12's clang-format 14, which setup-debian.sh
# installs, is the reference: another version formats some constructs
# differently, so the check skips there rather than fail on style drift.
. "$srcdir/tests/cli/lib.sh"

command -v clang-format >/dev/null 2>&1 || skip_all "no clang-format (build-aux/setup-debian.sh installs it)"
clang-format --version | grep -q 'version 14\.' ||
	skip_all "clang-format is not version 14: $(clang-format --version)"

cd "$srcdir" || exit 1
find include lib src tests -name '*.[ch]' ! -path 'tests/fixtures/*' | sort >"$tmp/files"
check sources-found test "$(wc -l <"$tmp/files")" -ge 100
: >"$tmp/unformatted"
while read -r f; do
	clang-format --style=file "$f" | cmp -s - "$f" || echo "$f" >>"$tmp/unformatted"
done <"$tmp/files"
check clang-format-clean sh -c "! grep . '$tmp/unformatted'"
finish
