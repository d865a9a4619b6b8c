#!/bin/sh
# tests/cli/doctor.sh — issue 40: `mcinit doctor` without a GPU (no CUDA
# runtime to load): it says so and reports the rest, as text and as JSON;
# a world too large for the open-file limit is a problem with its fix.  A
# build without CUDA (configure found no toolkit: --version's GPU backend is
# "none") has no runtime to look for, and says that instead.
. "$srcdir/tests/cli/lib.sh"

backend=$($MCINIT --version | sed -n 's/^  GPU backend: \([^ ]*\).*/\1/p')
if [ "$backend" = none ]; then
	why='this mcinit was built without CUDA'
else
	why='no CUDA runtime: libcudart.so.1[0-9] not loadable from MCINIT_CUDA_LIBRARY=/nonexistent'
fi
check "GPU backend known" test -n "$backend"

env MCINIT_CUDA_LIBRARY=/nonexistent MCINIT_NCCL_LIBRARY=/nonexistent $MCINIT doctor >"$tmp/text" 2>&1
rc=$?
comment "$tmp/text"
check "no GPU: said, with why" grep -q "^  GPUs: *none ($why" "$tmp/text"
check "no GPU: the rest is reported" sh -c "grep -q '^  limits: *open files [0-9]*, locked memory' '$tmp/text' &&
	grep -q '^  /dev/shm: ' '$tmp/text'"
if [ "$backend" = none ]; then
	skip "no NCCL: a problem with its fix" "built without CUDA: no NCCL is looked for"
else
	check "no NCCL: a problem with its fix" sh -c "grep -q '^  - no NCCL library: ' '$tmp/text' &&
		grep -q '^    fix: pip install nvidia-nccl-cu12' '$tmp/text'"
fi
check "problems: exit 69" test $rc = 69

env MCINIT_CUDA_LIBRARY=/nonexistent MCINIT_NCCL_LIBRARY=/nonexistent $MCINIT doctor --format=json \
	--world 1000000000 >"$tmp/json" 2>"$tmp/json.err"
rc=$?
check "JSON: parses, no GPU, the limits against the world" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
want = "this mcinit was built without CUDA" if sys.argv[2] == "none" else "no CUDA runtime"
assert r["gpu"] is False and r["no_gpu_why"].startswith(want), r
assert r["devices"] == [] and r["limits"]["world"] == 1000000000, r
assert r["limits"]["nofile_needed"] == 1000000064, r
assert any("a store for 1000000000 ranks needs" in p["what"] for p in r["problems"]), r["problems"]
assert all(p["fix"] for p in r["problems"])
a = r["affinity"]
assert (a["source"] and "matrix" in a and isinstance(a["gpus"], list)) or a["why"], a
' "$tmp/json" "$backend"
# (LeakSanitizer may list its hwloc suppressions there in ASan builds)
check "JSON: exit 69, no message of mcinit's on stderr" sh -c "test $rc = 69 && ! grep -q mcinit '$tmp/json.err'"
check "bad --format: usage (64)" sh -c "$MCINIT doctor --format=xml >/dev/null 2>&1; test \$? = 64"
finish
