#!/bin/sh
# Installs mcinit's Debian build dependencies, but only those that are missing,
# so it is quick and needs no root when everything is already there.
set -eu

pkgs="gcc make autoconf automake libtool pkgconf libjansson-dev libhwloc-dev libcriterion-dev
	libxml2-dev python3"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup: missing packages:$missing (and no apt-get: install them by hand)" >&2
	exit 69
fi
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "setup: installing$missing"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
