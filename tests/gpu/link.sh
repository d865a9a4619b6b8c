#!/bin/sh
# tests/gpu/link.sh — a CUDA build links the CUDA runtime, never the driver,
# and opens NCCL at run time: libmcinit.so (built and installed) and the
# mcinit program record libcudart.so.N as needed, and neither libnccl.so.2
# (gpu-nccl.c opens it at its first call: linked, the loader's relocations
# of it and of the libstdc++ it needs cost every command ~2.7 M
# instructions) nor libcuda.so.1 (a program that needs it does not even
# start on a machine without a driver, as CI's and these development
# machines are).  A build without CUDA (the GPU backend is gpu-none.c)
# skips it.
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
	check "$n-not-libnccl" sh -c "! grep -q '^libnccl\\.so' '$tmp/needed'"
	check "$n-needs-libcudart" grep -qx 'libcudart\.so\.[0-9]*' "$tmp/needed"
	check "$n-not-libcuda" sh -c "! grep -q '^libcuda\\.so' '$tmp/needed'"
	# what the loader resolves, transitively: libcudart opens the driver
	# itself, at run time, so nothing may pull libcuda.so.1 in
	check "$n-ldd-not-libcuda" sh -c "ldd '$f' >'$tmp/ldd' 2>&1; cat '$tmp/ldd';
		grep -q 'libcudart' '$tmp/ldd' && ! grep -q 'libcuda\\.so\|libnccl' '$tmp/ldd'"
done
# It starts without a driver and says why there is no GPU; it finds libnccl
# when asked (--version asks its version).
check starts-without-driver sh -c "$M --version >/dev/null"
check version-names-runtime sh -c "$M --version | grep -q 'running NCCL [0-9][0-9.]*, CUDA runtime [0-9][0-9.]*'"
finish
