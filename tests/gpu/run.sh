#!/bin/sh
# tests/gpu/run.sh — the checks that need a GPU: the fused kernels against the
# CPU reference, their memory bandwidth beside cudaMemcpy's, and the kernels
# phase.  Exit 77 (skip) without a GPU: no nvidia-smi, or cudaGetDeviceCount
# fails (the program says which).  make check runs it through tests/gpu/check.sh.
#
# In a build tree it builds what it runs (make); on a lent GPU machine that
# has no build tools, carry the binary and point at it:
#   GPU_CHECK=path/to/gpu-kernels-check sh tests/gpu/run.sh [--quick]
# The binary needs only libcudart.so.13 (the CUDA 13 runtime: /usr/local/cuda/lib64,
# or a Python environment's nvidia/cu13/lib — add it to LD_LIBRARY_PATH) and libc/libm.
# See tests/gpu/README.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "SKIP: no nvidia-smi (no NVIDIA driver here)"
	exit 77
fi
prog=${GPU_CHECK:-}
if [ -z "$prog" ]; then
	# In a build tree (make check runs it there): bring the binary up to date.
	[ ! -f Makefile ] || make -s tests/gpu/gpu-kernels-check >/dev/null 2>&1 || true
	for p in ./tests/gpu/gpu-kernels-check "$here/gpu-kernels-check"; do
		[ -x "$p" ] && { prog=$p; break; }
	done
fi
if [ -z "$prog" ] || [ ! -x "$prog" ]; then
	echo "FAIL: gpu-kernels-check not found (build with CUDA, or set GPU_CHECK)"
	exit 99
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
"$prog" "$@"
