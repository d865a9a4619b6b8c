#!/bin/sh
# deb-check.sh [BASE] — the Debian packages as a user gets them: builds
# them from a clean clone of HEAD (dpkg-buildpackage -us -uc -b), runs
# lintian (errors fail), installs them with apt into a copy of a fresh
# Debian 12 root (BASE, default /var/tmp/mcinit-fresh/base, which
# build-aux/fresh-check.sh makes with debootstrap), and runs the
# autopkgtests of debian/tests there.  Needs root (chroot), debhelper,
# lintian and a Debian mirror for the root's apt; not part of
# ./quickstart.sh check.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-/var/tmp/mcinit-fresh/base}
say() { echo "deb-check: $*"; }
[ "$(id -u)" -eq 0 ] || { say "SKIP: needs root (chroot)"; exit 77; }
[ -d "$base/usr" ] || { say "SKIP: no fresh root at $base (sudo build-aux/fresh-check.sh makes one)"; exit 77; }
# shellcheck source=build-aux/deb-lib.sh
. "$src/build-aux/deb-lib.sh"
# the host's tools (not in build-aux/setup-debian.sh: only this script
# needs them); debian/control's Build-Depends as dpkg-checkbuilddeps reads
# them (nothing else: no dh-exec, the .install files use debhelper 13's own
# ${DEB_HOST_MULTIARCH})
deb_need_tools "apt-get install dpkg-dev debhelper lintian git" \
	dpkg-buildpackage dpkg-checkbuilddeps dh lintian git
deb_need_build_deps "$src"
work=$(mktemp -d /var/tmp/mcinit-deb.XXXXXX)
cleanup() {
	for m in dev proc sys; do umount "$work/root/$m" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
deb_build "$src" "$work"
ls "$work"/*.deb
say "lintian"
lintian "$work"/mcinit_*.changes | tee "$work/lintian.log" || true
if grep -q '^E:' "$work/lintian.log"; then say "FAIL: lintian reports errors"; exit 1; fi
say "install into a copy of $base"
cp -a "$base" "$work/root"
for m in dev proc sys; do mount --bind "/$m" "$work/root/$m"; done
cp /etc/resolv.conf "$work/root/etc/resolv.conf"
mkdir -p "$work/root/tmp/debs" "$work/root/tmp/tests"
cp "$work"/libmcinit4_*.deb "$work"/libmcinit-dev_*.deb "$work"/mcinit_*.deb "$work/root/tmp/debs/"
cp "$src"/debian/tests/* "$work/root/tmp/tests/"
in_root() { chroot "$work/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get -q update >/dev/null
in_root sh -c 'apt-get install -y -q --no-install-recommends /tmp/debs/*.deb gcc libc6-dev pkgconf' >"$work/apt.log" 2>&1 || {
	tail -n 30 "$work/apt.log"
	say "FAIL: apt-get install"
	exit 1
}
in_root dpkg -l libmcinit4 libmcinit-dev mcinit | tail -n 3
st=0
for t in version validate pkg-config-consumer; do
	if in_root sh -c "mkdir -p /tmp/t-$t && AUTOPKGTEST_TMP=/tmp/t-$t sh /tmp/tests/$t"; then
		say "autopkgtest $t: pass"
	else
		say "autopkgtest $t: FAIL"
		st=1
	fi
done
exit "$st"
