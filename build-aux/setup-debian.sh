#!/bin/sh
# setup-debian.sh [--fuzz] — installs mcinit's Debian build and test
# dependencies (with --fuzz, clang and libFuzzer too), but only those that
# are missing, so it is quick and needs no root when everything is there.
#
# Every package a test needs is named here: a test whose tool is absent
# skips with a reason, and the tests must pass on a machine where only the
# base image and this list are installed (HACKING, "A fresh machine").
set -eu

# build: compiler, autotools, libraries
pkgs="gcc make autoconf automake libtool pkgconf libjansson-dev libhwloc-dev libyaml-dev"
# tests: Criterion, libxml2 (the SVG unit test), python3 (golden-file helpers),
# jsonschema (the generated JSON Schema against the examples), and hwloc's
# libxml2 plugin so both of hwloc's XML parsers are exercised.
pkgs="$pkgs libcriterion-dev libxml2-dev python3 python3-jsonschema libhwloc-plugins"
# the YAML loader's oracle: OmegaConf, the loader Megatron-Bridge uses
pkgs="$pkgs python3-omegaconf"
# --fuzz: also clang with libFuzzer, for make fuzz
[ "${1:-}" = --fuzz ] && pkgs="$pkgs clang libclang-rt-14-dev"
# docs and completions: groff and man-db render the generated man pages
# (groff -ww, man -l); zsh and fish run the completion scripts for real.
pkgs="$pkgs groff-base man-db zsh fish"
# mcinit run's tests: pgrep (procps) finds what a launcher left behind,
# ip netns (iproute2) plays two hosts.
pkgs="$pkgs procps iproute2"
# build-aux/python-check.sh: a venv with pip for the wheel; git clones the tree.
pkgs="$pkgs python3-venv git"
# tests/lib/format.sh: the sources as clang-format 14 writes them.
pkgs="$pkgs clang-format"
# make check-valgrind and tests/cli/run-valgrind.sh (the CPU run path).
pkgs="$pkgs valgrind"
# tests/cli/hostile.sh: strace shows the hwloc XML is opened once.
pkgs="$pkgs strace"
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
# Another apt may be running (unattended upgrades, a second checkout): wait for its lock.
lock="-o DPkg::Lock::Timeout=600"
$sudo apt-get $lock update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get $lock install -y -q --no-install-recommends $missing
