#!/bin/sh
# Fused-kernel benchmark: the CPU reference's throughput (bench-kernels, one
# thread), then, in a CUDA build on a machine with a GPU, the kernels'
# bandwidth beside a device-to-device copy of as many bytes in the same run
# (gpu-kernels-check --bench; it exits 77 without a GPU).  Needs BENCH_BUILD
# (the build directory).
set -eu
prog="${BENCH_BUILD:-.}/tests/bench/bench-kernels"
if [ -x "$prog" ]; then
	"$prog"
else
	echo "($prog not built: kernels benchmark skipped)"
fi
gpu="${BENCH_BUILD:-.}/tests/gpu/gpu-kernels-check"
if [ ! -x "$gpu" ]; then
	echo "(no CUDA kernels in this build: GPU bandwidth skipped)"
	exit 0
fi
rc=0
"$gpu" --bench || rc=$?
case $rc in
0) ;;
77) echo "(GPU bandwidth skipped: no usable GPU)" ;;
*) exit "$rc" ;;
esac
