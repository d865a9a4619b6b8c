#!/bin/sh
# tests/gpu/link.sh — a CUDA build links no CUDA library: libmcinit.so (built
# and installed) and the mcinit program need neither libcudart nor libnccl
# nor libcuda (both are found and opened at their first call: lib/core/
# dlfind.c, so a login node without CUDA runs every command but the GPU
# phases); the kernels module needs no CUDA library either: it opens
# libcuda.so.1 at run time (a program that needs it does not even start
# without a driver) and uses no runtime (issue 40).  validate
# and topology never load CUDA; run without a CUDA runtime exits 69 and
# names what is missing.  A build without CUDA skips it.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
if ! $M --version 2>/dev/null | grep -q 'GPU backend: cuda+nccl'; then
	skip_all "this build has no CUDA/NCCL backend ($($M --version | grep 'GPU backend'))"
fi
so=$(dirname "$M")/../lib/.libs/libmcinit.so
inst=${MCINIT_DESTDIR:-}${libdir:-}/libmcinit.so
for f in "$so" "$inst" "$M"; do
	n=$(basename "$(dirname "$f")")/$(basename "$f")
	objdump -p "$f" 2>/dev/null | sed -n 's/^ *NEEDED *//p' >"$tmp/needed"
	comment "$tmp/needed"
	check "$n-needs-no-cuda-library" sh -c "test -s '$tmp/needed' && ! grep -q '^libnccl\\.so\\|^libcudart\\.so\\|^libcuda\\.so' '$tmp/needed'"
	# what the loader resolves, transitively
	check "$n-ldd-no-cuda-library" sh -c "ldd '$f' >'$tmp/ldd' 2>&1; cat '$tmp/ldd';
		! grep -q 'libcuda\\|libnccl' '$tmp/ldd'"
done
mod=$(dirname "$M")/../lib/.libs/mcinit-cuda-kernels.so
if [ -f "$mod" ]; then
	objdump -p "$mod" | sed -n 's/^ *NEEDED *//p' >"$tmp/needed"
	comment "$tmp/needed"
	check module-needs-no-cuda-library sh -c "test -s '$tmp/needed' && ! grep -q '^libnccl\\.so\\|^libcudart\\.so\\|^libcuda\\.so' '$tmp/needed'"
	check module-ldd-no-cuda-library sh -c "ldd '$mod' >'$tmp/ldd' 2>&1; cat '$tmp/ldd';
		! grep -q 'libcuda\\|libnccl' '$tmp/ldd'"
fi
# validate and topology do not even look for CUDA's libraries
for cmd in "validate ../../../examples/gpt3-175b.json --world-size 1024" \
	"topology topology-model.json --world-size 8"; do
	check "${cmd%% *}-loads-no-cuda" sh -c "LD_DEBUG=libs $M $cmd >/dev/null 2>'$tmp/ld';
		rc=\$?; grep 'find library\\|calling init' '$tmp/ld' | grep -i 'cuda\\|nccl'; test \$rc = 0 && ! grep -qi 'libcudart\\|libnccl' '$tmp/ld'"
done
# run, where no CUDA runtime can be found: 69, naming it and where it looked
check run-without-cudart-exits-69 sh -c "MCINIT_CUDA_LIBRARY=/nonexistent/libcudart.so.13 \
	$M run topology-model.json >'$tmp/run' 2>&1; rc=\$?; cat '$tmp/run'; test \$rc = 69 &&
	grep -q 'no CUDA runtime: libcudart\\.so\\.[0-9]* not loadable from MCINIT_CUDA_LIBRARY=/nonexistent' '$tmp/run'"
# It starts without a driver and says why there is no GPU; it finds the
# libraries when asked (--version asks their versions).
check starts-without-driver sh -c "$M --version >/dev/null"
check version-names-runtime sh -c "$M --version | grep -q 'running NCCL [0-9][0-9.]*, CUDA runtime [0-9][0-9.]*'"
finish
