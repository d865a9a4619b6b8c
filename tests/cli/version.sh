#!/bin/sh
# CLI tests for `mcinit --version`: the version and the build configuration
# (CUDA, NCCL, hwloc, jansson, libyaml), the same from every command.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
$M --version >"$tmp/v" 2>&1
comment "$tmp/v"
check first-line-package sh -c "head -n1 '$tmp/v' | grep -qx 'mcinit [0-9][0-9.]*'"
for lib in CUDA NCCL hwloc jansson libyaml; do
	check "lists-$lib" grep -qE "^  $lib +[^ ]" "$tmp/v"
done
check jansson-running sh -c "grep -qE '^  jansson +[0-9.]+ \\(running [0-9.]+\\)$' '$tmp/v'"
check hwloc-running-api sh -c "grep -qE '^  hwloc +[0-9.]+ \\(API [0-9.]+; running API [0-9.]+\\)$' '$tmp/v'"
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists jansson hwloc; then
	check jansson-as-built grep -q "^  jansson  $(pkg-config --modversion jansson) " "$tmp/v"
	check hwloc-as-built grep -q "^  hwloc    $(pkg-config --modversion hwloc) " "$tmp/v"
else
	skip jansson-as-built "pkg-config cannot find jansson and hwloc"
	skip hwloc-as-built "pkg-config cannot find jansson and hwloc"
fi
check short-option sh -c "$M -V | cmp -s - '$tmp/v'"
for c in $($M man | sed -n 's/^mcinit-\(.*\)\.1$/\1/p'); do
	[ "$c" = complete ] && continue # its words are other commands' (no argp)
	check "same-from-$c" sh -c "$M $c --version | cmp -s - '$tmp/v'"
done
check write-error-is-74 sh -c "$M --version >/dev/full 2>/dev/null; test \$? -eq 74"
finish
