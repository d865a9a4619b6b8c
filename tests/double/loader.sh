#!/bin/sh
# tests/double/loader.sh — mcinit finds CUDA's runtime and NCCL at run
# time: with the double named by MCINIT_CUDA_LIBRARY / MCINIT_NCCL_LIBRARY
# or on LD_LIBRARY_PATH, the report names the files and their versions;
# without libnccl the device phase exits 69 naming it.
. "$srcdir/tests/cli/lib.sh"
. "$srcdir/tests/double/lib.sh"

on_double timeout $((30 * S)) $MCINIT run --no-warmup --format=json "$J" >"$tmp/one.json" 2>"$tmp/one.err"
rc=$?
comment "$tmp/one.err"
check one-rank-on-the-double sh -c "test $rc = 0 && grep -q '\"ok\": true' '$tmp/one.json'"
check report-names-libraries sh -c "grep -q '\"cuda_library\": \"$D/libcudart.so.[0-9]*\"' '$tmp/one.json' &&
	grep -q '\"nccl_library\": \"$D/libnccl.so.2\"' '$tmp/one.json' && grep -q '\"nccl\": [0-9]' '$tmp/one.json'"
check report-names-versions sh -c "grep -q '\"nccl_header\": [0-9]' '$tmp/one.json' && grep -q '\"cuda_runtime\": 1[0-9]*' '$tmp/one.json'"

# the loader's own path finds them too
env -u MCINIT_CUDA_LIBRARY LD_LIBRARY_PATH="$D" timeout $((30 * S)) $MCINIT run --no-warmup --format=json "$J" \
	>"$tmp/ld.json" 2>"$tmp/ld.err"
check found-on-LD_LIBRARY_PATH sh -c "test $? = 0 && grep -q '\"cuda_library\": \"$D/libcudart' '$tmp/ld.json'"

# no NCCL: 69, naming it and where it looked
on_double env MCINIT_NCCL_LIBRARY=/nonexistent timeout $((30 * S)) $MCINIT run --no-warmup "$J" >"$tmp/nonccl" 2>&1
rc=$?
comment "$tmp/nonccl"
check run-without-nccl-exits-69 sh -c "test $rc = 69 &&
	grep -q 'device.*failed.*no NCCL library: libnccl.so.2 not loadable from MCINIT_NCCL_LIBRARY=/nonexistent' '$tmp/nonccl'"
# Issue 40, defect 5: the kernels module does not load over the double
# (it lacks cudaOccupancy...): the reason names the build tree's module and
# its missing symbol, not only the last place looked (pkglibdir)
on_double timeout $((30 * S)) $MCINIT run "$J" >"$tmp/kern" 2>&1
comment "$tmp/kern"
check kernels-module-every-reason sh -c "grep -q 'kernels .*failed.*lib/\.libs/mcinit-cuda-kernels\.so: undefined symbol: cuda' '$tmp/kern'"
finish
