#!/bin/sh
# tests/double/loader.sh — mcinit finds CUDA's runtime and NCCL at run
# time: with the double named by MCINIT_CUDA_LIBRARY / MCINIT_NCCL_LIBRARY
# or on LD_LIBRARY_PATH, the report names the files and their versions;
# without libnccl the device phase exits 69 naming it.  The kernels module
# finds the driver (MCINIT_CUDA_DRIVER_LIBRARY) and runs over it.
. "$srcdir/tests/cli/lib.sh"
. "$srcdir/tests/double/lib.sh"

on_double timeout $((30 * S)) $MCINIT run --no-warmup --format=json "$J" >"$tmp/one.json" 2>"$tmp/one.err"
rc=$?
comment "$tmp/one.err"
check one-rank-on-the-double sh -c "test $rc = 0 && grep -q '\"ok\": true' '$tmp/one.json'"
check report-names-libraries sh -c "grep -q '\"cuda_library\": \"$D/libcudart.so.[0-9]*\"' '$tmp/one.json' &&
	grep -q '\"nccl_library\": \"$D/libnccl.so.2\"' '$tmp/one.json' && grep -q '\"nccl\": [0-9]' '$tmp/one.json'"
check report-names-versions sh -c "grep -q '\"nccl_header\": [0-9]' '$tmp/one.json' && grep -q '\"cuda_runtime\": 1[0-9]*' '$tmp/one.json'"

# the loader's own path finds them too (nothing before it: no Python
# environment, no CUDA_HOME)
env -u MCINIT_CUDA_LIBRARY -u VIRTUAL_ENV -u CONDA_PREFIX -u CUDA_HOME LD_LIBRARY_PATH="$D" timeout $((30 * S)) $MCINIT run --no-warmup --format=json "$J" \
	>"$tmp/ld.json" 2>"$tmp/ld.err"
check found-on-LD_LIBRARY_PATH sh -c "test $? = 0 && grep -q '\"cuda_library\": \"$D/libcudart' '$tmp/ld.json'"

# no NCCL: 69, naming it and where it looked
on_double env MCINIT_NCCL_LIBRARY=/nonexistent timeout $((30 * S)) $MCINIT run --no-warmup "$J" >"$tmp/nonccl" 2>&1
rc=$?
comment "$tmp/nonccl"
check run-without-nccl-exits-69 sh -c "test $rc = 69 &&
	grep -q 'device.*failed.*no NCCL library: libnccl.so.2 not loadable from MCINIT_NCCL_LIBRARY=/nonexistent' '$tmp/nonccl'"
# Issue 40: the libraries the trainer's Python would load.  torch's wheel
# layout in a venv (nvidia/nccl/lib, nvidia/cu13/lib) is found before the
# loader's, and CUDA_HOME's NCCL, a different file, is named as a warning.
V=$tmp/venv/lib/python3.12/site-packages/nvidia
mkdir -p "$V/nccl/lib" "$V/cu13/lib" "$tmp/cuda/lib64" "$tmp/nopy"
cp "$D/libnccl.so.2" "$V/nccl/lib/" && cp "$D/libcudart.so.13" "$V/cu13/lib/" &&
	cp "$D/libnccl.so.2" "$tmp/cuda/lib64/"
# (the driver is the system's, never a wheel's: the double's is named; in a
# build without the CUDA kernels there is none, and the phase is skipped)
[ -f "$D/libcuda.so.1" ] && warm= || warm=--no-warmup
env -u MCINIT_CUDA_LIBRARY -u MCINIT_NCCL_LIBRARY -u CONDA_PREFIX VIRTUAL_ENV="$tmp/venv" \
	MCINIT_CUDA_DRIVER_LIBRARY="$D" CUDA_HOME="$tmp/cuda" timeout $((30 * S)) $MCINIT run $warm "$J" \
	>"$tmp/venv.out" 2>&1
rc=$?
comment "$tmp/venv.out"
check venv-wheels-every-phase-ok sh -c "test $rc = 0 && grep -q '^mcinit run: verify *ok' '$tmp/venv.out' &&
	grep -q '^mcinit run: ready *ok' '$tmp/venv.out' &&
	{ test -n '$warm' || grep -q '^mcinit run: kernels *ok' '$tmp/venv.out'; }"
check venv-two-ncclS-warned sh -c "grep -q 'warning: two different NCCL libraries are visible: $V/nccl/lib/libnccl.so.2 (VIRTUAL_ENV=$tmp/venv: .*) is the one checked, $tmp/cuda/lib64/libnccl.so.2 (CUDA_HOME=$tmp/cuda: lib64) is there too' '$tmp/venv.out'"
env -u MCINIT_CUDA_LIBRARY -u MCINIT_NCCL_LIBRARY -u CONDA_PREFIX VIRTUAL_ENV="$tmp/venv" \
	CUDA_HOME="$tmp/cuda" timeout $((30 * S)) $MCINIT run --no-warmup --format=json "$J" >"$tmp/venv.json" 2>/dev/null
check venv-report-says-why sh -c "grep -q '\"nccl_library\": \"$V/nccl/lib/libnccl.so.2\"' '$tmp/venv.json' &&
	grep -q '\"nccl_library_why\": \"VIRTUAL_ENV=$tmp/venv: ' '$tmp/venv.json' &&
	grep -q '\"cuda_library\": \"$V/cu13/lib/libcudart.so.13\"' '$tmp/venv.json' &&
	grep -q '\"nccl_other_library\": \"$tmp/cuda/lib64/libnccl.so.2\"' '$tmp/venv.json'"
env -u MCINIT_CUDA_LIBRARY -u MCINIT_NCCL_LIBRARY -u CONDA_PREFIX VIRTUAL_ENV="$tmp/venv" \
	CUDA_HOME="$tmp/cuda" $MCINIT --version >"$tmp/version" 2>&1
comment "$tmp/version"
check version-names-files-and-why sh -c "grep -q '^    libnccl   $V/nccl/lib/libnccl.so.2 (VIRTUAL_ENV=' '$tmp/version' &&
	grep -q '^    warning: another libnccl is visible: $tmp/cuda/lib64/libnccl.so.2 (CUDA_HOME=' '$tmp/version'"

# Issue 40: the kernels module needs no CUDA runtime: it loads the kernels
# through the driver (libcuda.so.1, the double's here), and over the double
# the kernels phase runs them (on the host) and passes.
if [ -f "$D/libcuda.so.1" ]; then
	on_double timeout $((30 * S)) $MCINIT run "$J" >"$tmp/kern" 2>&1
	rc=$?
	comment "$tmp/kern"
	check kernels-over-the-double-ok sh -c "test $rc = 0 && grep -q '^mcinit run: kernels *ok .*mcdouble GPU 0' '$tmp/kern' &&
		grep -q '^mcinit run: seeds *ok .*device generator seeded with' '$tmp/kern'"
	# Defect 5's rule for the driver: where it was looked for and why it
	# did not load, every reason; a library without the driver's calls is
	# named with the call it lacks
	on_double env MCINIT_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 timeout $((30 * S)) \
		$MCINIT run "$J" >"$tmp/nodrv" 2>&1
	comment "$tmp/nodrv"
	check kernels-no-driver-named sh -c "grep -q 'kernels .*failed.*no CUDA driver: MCINIT_CUDA_DRIVER_LIBRARY: /nonexistent/libcuda.so.1: cannot open' '$tmp/nodrv' &&
		grep -q 'seeds *ok .*no device kernels' '$tmp/nodrv'"
	on_double env MCINIT_CUDA_DRIVER_LIBRARY="$D/libnvidia-ml.so.1" timeout $((30 * S)) \
		$MCINIT run "$J" >"$tmp/notdrv" 2>&1
	comment "$tmp/notdrv"
	check kernels-not-a-driver-named grep -q "kernels .*failed.*no CUDA driver: $D/libnvidia-ml.so.1 has no cuInit" "$tmp/notdrv"
	# the module: no CUDA library at all among what it needs
	objdump -p "$(dirname "${MCINIT##* }")/../lib/.libs/mcinit-cuda-kernels.so" | awk '/NEEDED/ {print $2}' >"$tmp/needed"
	comment "$tmp/needed"
	check kernels-module-needs-no-cuda-library sh -c "! grep -q 'libcuda\|libcudart\|libnccl' '$tmp/needed'"
else
	skip kernels-over-the-double "a build without the CUDA kernels"
fi
finish
