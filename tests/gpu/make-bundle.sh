#!/bin/sh
# tests/gpu/make-bundle.sh SRCDIR BUILDDIR OUT — the GPU bundle (make
# gpu-bundle): OUT.tar.gz, to carry to a GPU machine where nothing can be
# installed, unpack, and run `sh OUT/run.sh` there (tests/gpu/README.md).
#   bin/   mcinit, gpu-kernels-check, mcinit-cuda-kernels.so (mcinit
#          finds the module beside itself)
#   lib/   the shared libraries they need that are neither glibc's nor
#          CUDA's (jansson, hwloc, libyaml, udev...): CUDA's runtime and
#          NCCL come from the GPU machine (its Python environment's
#          nvidia/*/lib, or /usr/local/cuda), never from here, and never
#          the test double
#   run.sh, inputs/  the checks and their job
# Fails when the tarball would reach 64 MiB.
set -eu
src=$1 build=$2 out=$3
stage=$(mktemp -d "${TMPDIR:-/tmp}/mcinit-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
name=$(basename "$out")
b=$stage/$name
mkdir -p "$b/bin" "$b/lib" "$b/inputs"
cp "$build/src/mcinit" "$b/bin/"
for f in "$build/tests/gpu/gpu-kernels-check" "$build/lib/.libs/mcinit-cuda-kernels.so"; do
	[ -f "$f" ] && cp "$f" "$b/bin/"
done
# debug info stays here: the bundle is for running
for f in "$b"/bin/*; do
	strip --strip-debug "$f" 2>/dev/null || true
done
# what the loader resolves for them, but glibc and CUDA
for f in "$b"/bin/*; do
	ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r so path; do
	case $so in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux* | libresolv.so.* | \
		libcudart.so.* | libnccl.so.* | libcuda.so.* | libnvidia*) ;;
	*) cp -L "$path" "$b/lib/$so" ;;
	esac
done
cp "$src/tests/gpu/run.sh" "$b/run.sh"
cp "$src/tests/cli/inputs/topology-model.json" "$b/inputs/"
cp "$src/tests/gpu/README.md" "$b/README.md"
tar -C "$stage" -czf "$out.tar.gz" "$name"
size=$(wc -c <"$out.tar.gz")
echo "$out.tar.gz: $size bytes ($(ls "$b/bin" | tr '\n' ' ')+ $(ls "$b/lib" | wc -l) libraries)"
if [ "$size" -ge $((64 * 1024 * 1024)) ]; then
	echo "make-bundle.sh: $out.tar.gz is over 64 MiB" >&2
	exit 1
fi
