#!/bin/sh
# deb-build-check.sh [SRC] — the Debian packages, as far as a machine
# without root can take them, for ./quickstart.sh check (CI):
#  1. builds them from a clean clone of SRC's HEAD (dpkg-buildpackage -us
#     -uc -b: debian/rules runs the library's export and ABI checks);
#  2. lintian on the result: an error (E:) fails;
#  3. unpacks the three packages into one empty root (dpkg -x, which is
#     what installing does to the files) and runs debian/tests' three
#     autopkgtests against that tree: the program from its bin/, the
#     library from its lib/, the consumer compiled through pkg-config with
#     the root as its sysroot.
# Installing with apt into a fresh Debian root needs root (chroot):
# build-aux/deb-check.sh does that by hand.  Exits 77 (skipped) with the
# reason when a tool or a build dependency is missing.
set -eu
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
say() { echo "deb-build-check: $*"; }
# shellcheck source=build-aux/deb-lib.sh
. "$(dirname "$0")/deb-lib.sh"
deb_need_tools "apt-get install dpkg-dev debhelper lintian git gcc pkgconf" \
	dpkg-buildpackage dpkg-checkbuilddeps dh lintian dpkg-deb git gcc pkg-config
deb_need_build_deps "$src"
work=$(mktemp -d "${TMPDIR:-/tmp}/mcinit-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
say "dpkg-buildpackage -us -uc -b (log: build.log)"
deb_build "$src" "$work"
for p in libmcinit4 libmcinit-dev mcinit; do
	ls "$work"/${p}_*.deb >/dev/null 2>&1 || { say "FAIL: no $p package was built"; exit 1; }
done
(cd "$work" && ls -1 ./*.deb | sed 's|^\./|built: |')
lintian "$work"/mcinit_*.changes >"$work/lintian.log" 2>&1 || true
sed 's/^/lintian: /' "$work/lintian.log"
if grep -q '^E:' "$work/lintian.log"; then
	say "FAIL: lintian reports errors"
	exit 1
fi
say "lintian: no error ($(grep -c '^W:' "$work/lintian.log" || true) warnings)"
root=$work/root
mkdir -p "$root"
for d in "$work"/libmcinit4_*.deb "$work"/libmcinit-dev_*.deb "$work"/mcinit_*.deb; do
	dpkg -x "$d" "$root"
done
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
st=0
for t in version validate pkg-config-consumer; do
	mkdir -p "$work/t-$t"
	if env PATH="$root/usr/bin:$PATH" LD_LIBRARY_PATH="$root/usr/lib/$arch" \
		PKG_CONFIG_PATH="$root/usr/lib/$arch/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" \
		AUTOPKGTEST_TMP="$work/t-$t" \
		sh "$src/debian/tests/$t" >"$work/t-$t.log" 2>&1; then
		say "autopkgtest $t on the unpacked packages: pass"
	else
		sed 's/^/  /' "$work/t-$t.log"
		say "autopkgtest $t on the unpacked packages: FAIL"
		st=1
	fi
done
# what the program ran was the package's, not a build tree's
[ "$(PATH="$root/usr/bin:$PATH" LD_LIBRARY_PATH="$root/usr/lib/$arch" sh -c 'command -v mcinit')" = "$root/usr/bin/mcinit" ] || {
	say "FAIL: the unpacked mcinit is not the one on PATH"
	st=1
}
exit "$st"
