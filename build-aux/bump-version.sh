#!/bin/sh
# bump-version.sh X.Y.Z — moves the one version number of a release:
# configure.ac's AC_INIT (from which the program, mcinit.pc, the Python
# wheel's metadata and mcinit_version() take it), MCINIT_VERSION_* in
# include/mcinit.h, and a new entry at the top of debian/changelog (a
# native package: the version is upstream's, no Debian revision).
# and a new release heading at the top of NEWS.  tests/lib/versions.sh
# fails when these disagree.  What NEWS says and the library's
# -version-info (Makefile.am, libtool's rules: HACKING "Releases") are
# written by hand: they say what changed.
set -eu
new=${1:?usage: bump-version.sh X.Y.Z}
case $new in
*[!0-9.]* | *..* | .* | *.) echo "bump-version: not X.Y.Z: $new" >&2; exit 64 ;;
esac
IFS=. read -r major minor patch <<E
$new
E
: "${patch:?usage: bump-version.sh X.Y.Z}"
cd "$(dirname "$0")/.."
sed -i "s/^AC_INIT(\[mcinit\], \[[0-9.]*\]/AC_INIT([mcinit], [$new]/" configure.ac
sed -i -e "s/^#define MCINIT_VERSION_MAJOR [0-9]*/#define MCINIT_VERSION_MAJOR $major/" \
	-e "s/^#define MCINIT_VERSION_MINOR [0-9]*/#define MCINIT_VERSION_MINOR $minor/" \
	-e "s/^#define MCINIT_VERSION_PATCH [0-9]*/#define MCINIT_VERSION_PATCH $patch/" include/mcinit.h
if [ -f debian/changelog ] && ! head -n 1 debian/changelog | grep -q "($new)"; then
	{
		echo "mcinit ($new) unstable; urgency=medium"
		echo
		echo "  * New upstream release $new (see NEWS)."
		echo
		echo " -- ${DEBFULLNAME:-mcinit developers} <${DEBEMAIL:-mcinit@example.invalid}>  $(LC_ALL=C date -R)"
		echo
		cat debian/changelog
	} >debian/changelog.new
	mv debian/changelog.new debian/changelog
fi
if ! grep -q "^\* Noteworthy changes in release $new " NEWS; then
	awk -v new="$new" '!done && /^\* Noteworthy changes in release / {
		print "* Noteworthy changes in release " new " (unreleased)\n"; done = 1 } { print }' \
		NEWS >NEWS.new
	mv NEWS.new NEWS
fi
grep -n "^AC_INIT" configure.ac
grep -n "^#define MCINIT_VERSION_[MP]" include/mcinit.h
[ -f debian/changelog ] && head -n 1 debian/changelog
