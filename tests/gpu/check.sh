#!/bin/sh
# make check's view of tests/gpu/run.sh: its exit 77 (no GPU) as a TAP skip,
# its output as TAP comments.
. "$srcdir/tests/cli/lib.sh"
rc=0
OUT="$tmp/gpu-out" sh "$srcdir/tests/gpu/run.sh" >"$tmp/out" 2>&1 || rc=$?
comment "$tmp/out"
case $rc in
0) pass "GPU checks: kernels, NCCL phases (tests/gpu/run.sh)" ;;
77) skip "GPU checks" "$(grep -m 1 '^SKIP: ' "$tmp/out" | sed "s/^SKIP: //")" ;;
*) fail "GPU checks" "tests/gpu/run.sh exited $rc" ;;
esac
finish
