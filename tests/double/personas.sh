#!/bin/sh
# tests/double/personas.sh — issue 40: mcinit run over the double's
# personalities: CUDA 12's runtime (libcudart.so.12) with NCCL 2.21 (torch
# 2.6's wheel) and 2.27 (torch 2.9's), NCCL 2.19 to 2.27 with their own
# symbol sets (no ncclCommInitRankScalable before 2.23), the NCCL floor, a
# driver older than the runtime (named as such, no --allow-no-cuda advice),
# both runtimes visible under a CUDA 12 driver, and the kernels module over
# CUDA 12 runtimes and drivers from R535 (the driver API: libcuda.so.1).
. "$srcdir/tests/cli/lib.sh"
. "$srcdir/tests/double/lib.sh"

# The kernels phase runs where the double has a driver (libcuda.so.1: builds
# with the CUDA kernels); elsewhere it is skipped.
if [ -f "$D/libcuda.so.1" ]; then
	warm= kphases=kernels
else
	warm=--no-warmup kphases=
fi

phases_ok() { # FILE: rank 0 (or the one process) reports every phase ok
	for p in device world groups verify seeds $kphases ready; do
		grep -q "^\(\[rank 0\] \)\{0,1\}mcinit run: $p *ok " "$1" || return 1
	done
}

# on NAME CUDADIR NCCLDIR ARGS...: mcinit run over those, output in $tmp/NAME
# (--no-warmup unless WARM= says otherwise)
on() {
	name=$1 cu=$2 nc=$3
	shift 3
	env -u RANK -u WORLD_SIZE -u LOCAL_RANK -u MASTER_ADDR -u MASTER_PORT \
		MCINIT_CUDA_LIBRARY="$cu" MCINIT_NCCL_LIBRARY="$nc" MCINIT_CUDA_DRIVER_LIBRARY="$D" \
		timeout $((60 * S)) $MCINIT run ${WARM---no-warmup} --timeout $((20 * S)) "$@" "$J" \
		>"$tmp/$name" 2>&1
	echo $? >"$tmp/$name.rc"
	grep -v 'slowest' "$tmp/$name" | comment /dev/stdin
}

# torch 2.6's and 2.9's wheels over CUDA 12.8's driver (R570): every phase
# ok, the kernels too (the driver API needs no CUDA 13 runtime; the module's
# cubins, when nvcc 13's ptxas made them, are too new for 12.8: the driver
# JITs the PTX)
for n in 2.21 2.27; do
	(WARM=$warm on cu12-$n "$D/cu12" "$D/cu12-nccl-$n" --nproc-per-node 4)
	check "CUDA 12 runtime + NCCL $n, 4 ranks: every phase ok" sh -c "test \$(cat '$tmp/cu12-$n.rc') = 0 &&
		! grep -q mcdouble: '$tmp/cu12-$n'"
	check "CUDA 12 runtime + NCCL $n: phases" phases_ok "$tmp/cu12-$n"
	check "CUDA 12 runtime + NCCL $n: the versions said" grep -q "device *ok .*NCCL $n\.[0-9]* (headers [0-9.]*), CUDA runtime 12\.8, driver 12\.8" "$tmp/cu12-$n"
done
for n in 2.19 2.23 2.27; do
	on nccl-$n "$D" "$D/nccl-$n" --nproc-per-node 2
	check "NCCL $n's symbol set, 2 ranks: every phase ok" sh -c "test \$(cat '$tmp/nccl-$n.rc') = 0 && ! grep -q mcdouble: '$tmp/nccl-$n'"
done
if [ -n "$kphases" ]; then
	# R535 (CUDA 12.2) with torch 2.9's wheels: the kernels load there
	(MCDOUBLE_DRIVER_VERSION=12020 WARM= on r535 "$D/cu12" "$D/cu12-nccl-2.27" --nproc-per-node 2)
	check "driver 12.2 (R535), CUDA 12 runtime, NCCL 2.27: every phase ok, kernels too" sh -c "test \$(cat '$tmp/r535.rc') = 0 &&
		! grep -q mcdouble: '$tmp/r535'"
	check "driver 12.2: phases" phases_ok "$tmp/r535"
	# a GPU older than the images (sm_75): the driver's refusal, named
	(MCDOUBLE_SM=75 WARM= on sm75 "$D" "$D")
	check "an sm_75 GPU: CUDA_ERROR_NO_BINARY_FOR_GPU named" sh -c "test \$(cat '$tmp/sm75.rc') != 0 &&
		grep -q 'cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU (209): .*(sm_75 GPU, driver of CUDA 13.0; the kernels need sm_80 or newer' '$tmp/sm75'"
fi
# The driver double's choice of image in the module's fatbin, by driver:
# drivers of CUDA 11.0 and later JIT its PTX (ISA 7.0), 10.2's cannot
# (CUDA_ERROR_UNSUPPORTED_PTX_VERSION); mcinit run never gets there, as no
# CUDA 12 or 13 runtime runs on such a driver
fb=$(dirname "${MCINIT##* }")/../lib/kernels/kernels.fatbin
if [ -n "$kphases" ] && [ -f "$fb" ] && command -v python3 >/dev/null; then
	for v in 10020:222 11000:0 12020:0 13000:0; do
		check "driver ${v%%:*}: cuModuleLoadData of the fatbin gives ${v#*:}" sh -c \
			"test \"\$(MCDOUBLE_DRIVER_VERSION=${v%%:*} python3 '$srcdir/tests/double/kload.py' '$D/libcuda.so.1' '$fb')\" = ${v#*:}"
	done
fi
check "the 2.21 personality has no ncclCommInitRankScalable" sh -c "! nm -D --defined-only '$D/nccl-2.21/libnccl.so.2' | grep -q ncclCommInitRankScalable"

# the floor: 2.19 (ncclMemAlloc, ncclCommRegister); 2.18 is refused
MCDOUBLE_NCCL_VERSION=21805 on nccl-2.18 "$D" "$D/nccl-2.19"
check "NCCL 2.18.5: refused (69), the floor named" sh -c "test \$(cat '$tmp/nccl-2.18.rc') = 69 &&
	grep -q 'NCCL library loaded is 2.18.5; mcinit run needs 2.19.0 or newer (ncclMemAlloc, ncclCommRegister)' '$tmp/nccl-2.18'"

# a driver older than the runtime (R535's CUDA 12.2 under a 13 runtime): not
# "no NVIDIA driver", and no --allow-no-cuda advice on a GPU node
MCDOUBLE_DRIVER_VERSION=12020 on olddrv "$D" "$D"
check "driver 12.2 under runtime 13: 69, named as an old driver" sh -c "test \$(cat '$tmp/olddrv.rc') = 69 &&
	grep -q 'the NVIDIA driver supports CUDA 12.2, older than the CUDA 13.0 runtime loaded' '$tmp/olddrv'"
check "driver 12.2: no 'no NVIDIA driver', no --allow-no-cuda advice" sh -c "! grep -q 'no NVIDIA driver\\|allow-no-cuda' '$tmp/olddrv'"

# both runtimes in one venv (nvidia/cu13/lib and nvidia/cuda_runtime/lib)
# under a CUDA 12 driver: the 12 runtime is bound, every phase ok
V=$tmp/venv/lib/python3.12/site-packages/nvidia
mkdir -p "$V/cu13/lib" "$V/cuda_runtime/lib" "$V/nccl/lib"
cp "$D/libcudart.so.13" "$V/cu13/lib/" && cp "$D/cu12/libcudart.so.12" "$V/cuda_runtime/lib/" &&
	cp "$D/cu12-nccl-2.27/libnccl.so.2" "$V/nccl/lib/"
env -u RANK -u WORLD_SIZE -u LOCAL_RANK -u MASTER_ADDR -u MASTER_PORT -u MCINIT_CUDA_LIBRARY \
	-u MCINIT_NCCL_LIBRARY -u CONDA_PREFIX VIRTUAL_ENV="$tmp/venv" MCDOUBLE_DRIVER_VERSION=12040 \
	timeout $((60 * S)) $MCINIT run --no-warmup --timeout $((20 * S)) --format=json "$J" >"$tmp/both.json" 2>"$tmp/both.err"
rc=$?
comment "$tmp/both.err"
check "both runtimes, driver 12.4: the 12 runtime bound, ok" sh -c "test $rc = 0 && grep -q '\"ok\": true' '$tmp/both.json' &&
	grep -q '\"cuda_library\": \"$V/cuda_runtime/lib/libcudart.so.12\"' '$tmp/both.json' && grep -q '\"cuda_runtime\": 12080' '$tmp/both.json'"
finish
