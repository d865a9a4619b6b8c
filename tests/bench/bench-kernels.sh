#!/bin/sh
# Fused-kernel benchmark: the CPU reference's throughput (bench-kernels, one
# thread).  The GPU kernels' bandwidth is measured by tests/gpu/run.sh on a
# machine with a GPU.  Needs BENCH_BUILD (the build directory).
set -eu
prog="${BENCH_BUILD:-.}/tests/bench/bench-kernels"
if [ -x "$prog" ]; then
	"$prog"
else
	echo "($prog not built: kernels benchmark skipped)"
fi
