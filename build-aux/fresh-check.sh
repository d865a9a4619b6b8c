#!/bin/sh
# fresh-check.sh [ROOT] — the README's two commands on a fresh clone, in a
# Debian 12 root that has only the base system (debootstrap --variant=minbase)
# plus git: what CI and a new user see, with nothing installed by hand.
#
# Needs root and debootstrap (Debian's package).  ROOT (default
# /var/tmp/mcinit-fresh) keeps a pristine copy of the base system in
# ROOT/base; each run copies it to ROOT/run, so every run starts clean.
# The clone is of this checkout's HEAD (commit first).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/mcinit-fresh}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ ! -x "$root/base/bin/sh" ]; then
	mkdir -p "$root"
	debootstrap --variant=minbase bookworm "$root/base" "$mirror"
fi
rm -rf "$root/run"
cp -a "$root/base" "$root/run"
r=$root/run
cp /etc/resolv.conf "$r/etc/resolv.conf"
# A machine has /etc/hosts (the installer or the container runtime writes
# it; debootstrap does not): localhost must resolve, as Slurm's node list
# in tests/cli/run.sh needs.
cp /etc/hosts "$r/etc/hosts"
git clone -q "$here" "$r/src/mcinit"

mount --bind /proc "$r/proc"
mount --bind /sys "$r/sys"
mount --bind /dev "$r/dev"
# The shell-completion tests type into bash and zsh on a pseudo-terminal.
mount --bind /dev/pts "$r/dev/pts"
trap 'umount "$r/dev/pts" "$r/dev" "$r/sys" "$r/proc"' EXIT

chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI=true sh -c '
	set -e
	cd /src/mcinit
	./quickstart.sh
	./quickstart.sh check'
