#!/bin/sh
# versions.sh — one version number: configure.ac's AC_INIT is the program's
# (mcinit --version), the header's MCINIT_VERSION_* (MAJOR.MINOR.PATCH and
# the HEX the header computes from them), the Python wheel's (pyproject.toml
# reads it from configure.ac with its regex, checked here with the same
# regex), NEWS's newest release, the newest entry of debian/changelog, and the newest version in
# the symbols file.  build-aux/bump-version.sh moves them together.
set -u
: "${srcdir:?}" "${MCINIT:?}"
. "$srcdir/tests/cli/lib.sh"

v=$(sed -n 's/^AC_INIT(\[mcinit\], \[\([0-9.]*\)\].*/\1/p' "$srcdir/configure.ac")
check configure-ac-has-version test -n "$v"
check program-version sh -c "'$MCINIT' --version | head -n 1 | grep -qx 'mcinit $v'"
h=$(awk '/^#define MCINIT_VERSION_(MAJOR|MINOR|PATCH) / {printf "%s%s", sep, $3; sep = "."}' \
	"$srcdir/include/mcinit.h")
check header-version sh -c "test '$h' = '$v'"
if command -v python3 >/dev/null 2>&1; then
	w=$(python3 - "$srcdir" <<'PY'
import re, sys
src = sys.argv[1]
text = open(f"{src}/pyproject.toml", encoding="utf-8").read()
# the regex line of [tool.scikit-build.metadata.version], a TOML literal string
rx = re.search(r"^regex = '(.*)'$", text, re.M).group(1)
inp = re.search(r'^input = "(.*)"$', text, re.M).group(1)
print(re.search(rx, open(f"{src}/{inp}", encoding="utf-8").read()).group("value"))
PY
)
	check wheel-version sh -c "test '$w' = '$v'"
else
	skip wheel-version "no python3"
fi
n=$(sed -n 's/^\* Noteworthy changes in release \([0-9.]*\).*/\1/p' "$srcdir/NEWS" | head -n 1)
check news-version sh -c "test '$n' = '$v'"
d=$(sed -n '1s/^mcinit (\([^)]*\)).*/\1/p' "$srcdir/debian/changelog")
check debian-changelog-version sh -c "test '$d' = '$v'"
s=$(awk 'NR > 2 {print $2}' "$srcdir/debian/libmcinit4.symbols" | sort -V | tail -n 1)
check symbols-newest-not-after-release sh -c \
	"test \"\$(printf '%s\n%s\n' '$s' '$v' | sort -V | tail -n 1)\" = '$v'"
finish
