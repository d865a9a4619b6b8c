#!/bin/sh
# kernel-fatbin.sh — the CUDA kernels as a fatbin that drivers from R535
# (CUDA 12.2) load, and older ones of CUDA 11 JIT (Makefile.am runs it; the
# module embeds the result, gpu-backend.c loads it with cuModuleLoadData).
#
#   kernel-fatbin.sh OUT.fatbin SRC.cu -- NVCC-FLAGS...
#
# Environment: NVCC (nvcc 13), PTXAS (the ptxas that makes the cubins: a
# CUDA 12.x one when configure was given --with-ptxas12, else nvcc's own),
# FATBINARY (nvcc's).
#
# 1. PTX for compute_80 from nvcc.  nvcc 13 declares its own ISA (.version
#    9.0: a driver of CUDA 13, R580, to JIT it); the PTX is re-declared at
#    the lowest ISA that PTXAS accepts for sm_80, 90 and 100, from 7.0 up.
#    That is a real check: ptxas rejects an instruction above the declared
#    ISA ("Feature ... requires PTX ISA .version X").  A driver JITs PTX of
#    an ISA up to its own CUDA release's (ISA 7.x: CUDA 11.x, 8.x: 12.x;
#    the PTX ISA's release notes), so 7.0 is JIT'd by every driver that
#    knows sm_80 and up.
# 2. Cubins for sm_80 (A100), sm_90 (H100/H200) and sm_100 (B200) from that
#    PTX by PTXAS.  A cubin of a 12.x ptxas loads on drivers >= R525, one of
#    13.x on drivers >= R580 (CUDA minor-version compatibility:
#    https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html);
#    where the cubin cannot load, the driver JITs the PTX instead.
# 3. One fatbin, uncompressed (an old driver cannot decompress what a new
#    fatbinary's compression modes make), recording ptxas's --fmad false
#    so that a driver's JIT keeps the reference's arithmetic too.
set -e
out=$1 src=$2
shift 2
[ "$1" = "--" ] && shift
: "${NVCC:?}" "${PTXAS:?}" "${FATBINARY:?}"
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
"$NVCC" -ptx -arch=compute_80 "$@" -o "$tmp/nvcc.ptx" "$src"
grep -q '^\.version [0-9]*\.[0-9]*$' "$tmp/nvcc.ptx" || {
	echo "$0: no .version line in nvcc's PTX" >&2
	exit 1
}
isa=
for v in 7.0 7.1 7.2 7.3 7.4 7.5 7.6 7.7 7.8 8.0 8.1 8.2 8.3 8.4 8.5 8.6 8.7 8.8 9.0; do
	sed "s/^\.version [0-9]*\.[0-9]*\$/.version $v/" "$tmp/nvcc.ptx" >"$tmp/k.ptx"
	if "$PTXAS" -arch=sm_80 -m64 --fmad false -o /dev/null "$tmp/k.ptx" 2>"$tmp/isa.err"; then
		isa=$v
		break
	fi
done
if [ -z "$isa" ]; then
	echo "$0: $PTXAS accepts the PTX at no ISA from 7.0 to 9.0:" >&2
	cat "$tmp/isa.err" >&2
	exit 1
fi
imgs=
for sm in 80 90 100; do
	"$PTXAS" -arch=sm_$sm -m64 -O3 --fmad false -o "$tmp/sm_$sm.cubin" "$tmp/k.ptx"
	imgs="$imgs --image3=kind=elf,sm=$sm,file=$tmp/sm_$sm.cubin"
done
# shellcheck disable=SC2086
"$FATBINARY" -64 --compress=false --cmdline="--fmad false" $imgs \
	--image3=kind=ptx,sm=80,file="$tmp/k.ptx" --create="$tmp/k.fatbin"
# what made it: for the module's messages (OUT.h, kfatbin.c) and
# tests/kernels/fatbin.sh (OUT.info)
rel=$("$PTXAS" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
{
	echo "ptx_isa $isa"
	echo "ptxas $rel"
} >"$out.info"
{
	echo "/* made by build-aux/kernel-fatbin.sh */"
	echo "#define MCINIT_KFATBIN_PTX_ISA \"$isa\""
	echo "#define MCINIT_KFATBIN_PTXAS \"$rel\""
} >"$out.h"
cp "$tmp/k.ptx" "$out.ptx"
mv "$tmp/k.fatbin" "$out"
rm -rf "$tmp"
