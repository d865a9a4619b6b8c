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
# 1. PTX per architecture from nvcc (compute_80, 90, 100).  nvcc 13
#    declares its own ISA (.version 9.0: a driver of CUDA 13, R580, to JIT
#    it, and a 12.x ptxas refuses it); each is re-declared at the lowest
#    ISA that PTXAS accepts for its architecture, from the lowest its
#    .target allows (sm_80 7.0, sm_90 7.8, sm_100 8.6: the PTX ISA's
#    notes).  That is a real check: ptxas rejects an instruction above the
#    declared ISA ("Feature ... requires PTX ISA .version X").  The fatbin
#    carries compute_80's (7.0 today); a driver JITs PTX of an ISA up to
#    its own CUDA release's (ISA 7.x: CUDA 11.x, 8.x: 12.x), so every
#    driver that knows sm_80 and up JITs it.
# 2. Cubins for sm_80 (A100), sm_90 (H100/H200) and sm_100 (B200), each from
#    its own architecture's PTX, as nvcc's -gencode arch=compute_N,code=sm_N
#    makes them, by PTXAS.  A cubin of a 12.x ptxas loads on drivers from
#    R525, one of 13.x on drivers from R580 (CUDA minor-version
#    compatibility:
#    https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html;
#    sm_100 needs R570, CUDA 12.8, in any case); where the cubin cannot
#    load, the driver JITs the PTX instead.
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
# lowest_isa IN OUT SM FROM: IN re-declared at the lowest ISA from FROM up
# that PTXAS accepts for sm_SM, into OUT; the ISA on stdout
lowest_isa() {
	grep -q '^\.version [0-9]*\.[0-9]*$' "$1" || {
		echo "$0: no .version line in nvcc's PTX ($1)" >&2
		return 1
	}
	for v in 7.0 7.1 7.2 7.3 7.4 7.5 7.6 7.7 7.8 8.0 8.1 8.2 8.3 8.4 8.5 8.6 8.7 8.8 9.0; do
		# shellcheck disable=SC2046
		[ $(echo "$v $4" | awk '{ print ($1 < $2) }') = 1 ] && continue
		sed "s/^\.version [0-9]*\.[0-9]*\$/.version $v/" "$1" >"$2"
		if "$PTXAS" -arch=sm_$3 -m64 --fmad false -o /dev/null "$2" 2>"$2.err"; then
			echo "$v"
			return 0
		fi
	done
	echo "$0: $PTXAS accepts $1 at no ISA from $4 to 9.0:" >&2
	cat "$2.err" >&2
	return 1
}
imgs=
for sm in 80 90 100; do
	case $sm in 80) from=7.0 ;; 90) from=7.8 ;; *) from=8.6 ;; esac
	"$NVCC" -ptx -arch=compute_$sm "$@" -o "$tmp/nvcc$sm.ptx" "$src"
	v=$(lowest_isa "$tmp/nvcc$sm.ptx" "$tmp/k$sm.ptx" $sm $from)
	[ $sm = 80 ] && isa=$v
	echo "sm_$sm cubin from PTX ISA $v" >>"$tmp/isas"
	"$PTXAS" -arch=sm_$sm -m64 -O3 --fmad false -o "$tmp/sm_$sm.cubin" "$tmp/k$sm.ptx"
	imgs="$imgs --image3=kind=elf,sm=$sm,file=$tmp/sm_$sm.cubin"
done
cp "$tmp/k80.ptx" "$tmp/k.ptx"
# shellcheck disable=SC2086
"$FATBINARY" -64 --compress=false --cmdline="--fmad false" $imgs \
	--image3=kind=ptx,sm=80,file="$tmp/k.ptx" --create="$tmp/k.fatbin"
# what made it: for the module's messages (OUT.h, kfatbin.c) and
# tests/kernels/fatbin.sh (OUT.info)
rel=$("$PTXAS" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
{
	echo "ptx_isa $isa"
	echo "ptxas $rel"
	cat "$tmp/isas"
} >"$out.info"
{
	echo "/* made by build-aux/kernel-fatbin.sh */"
	echo "#define MCINIT_KFATBIN_PTX_ISA \"$isa\""
	echo "#define MCINIT_KFATBIN_PTXAS \"$rel\""
} >"$out.h"
cp "$tmp/k.ptx" "$out.ptx"
mv "$tmp/k.fatbin" "$out"
rm -rf "$tmp"
