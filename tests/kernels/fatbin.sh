#!/bin/sh
# The CUDA kernels' fatbin (build-aux/kernel-fatbin.sh) holds cubins for
# sm_80, sm_90 and sm_100 and compute_80 PTX that drivers from R535 (CUDA
# 12.2) can JIT (ISA 8.0 or lower: ISA 8.x is CUDA 12.x's); with a CUDA 12.x
# ptxas configured (PTXAS12) its cubins came from it (sm_80/90 in ELF ABI 7,
# loadable by drivers from R525), else from nvcc 13's (ABI 8, R580).  The module embeds
# that fatbin and needs no CUDA library at all: libcuda.so.1 is opened at
# run time.  Checked with fatbin-archs.py (a small reader of the container)
# and cuobjdump when the toolkit has it.  TAP output (tests/cli/lib.sh).
# Runs only in builds with the CUDA kernels.
. "$srcdir/tests/cli/lib.sh"
fb=$PWD/lib/kernels/kernels.fatbin
mod=$PWD/lib/.libs/mcinit-cuda-kernels.so

if [ ! -f "$fb" ]; then
	fail "kernels fatbin" "$fb not built"
	finish
	exit
fi
python3 "$srcdir/tests/kernels/fatbin-archs.py" --detail "$fb" | sort >"$tmp/images"
comment "$tmp/images"
cut -d' ' -f1,2 "$tmp/images" >"$tmp/archs"
printf '%s\n' 'elf sm_100' 'elf sm_80' 'elf sm_90' 'ptx sm_80' >"$tmp/want"
if cmp -s "$tmp/want" "$tmp/archs"; then
	pass "fatbin holds $(tr '\n' ' ' <"$tmp/archs")"
else
	fail "fatbin architectures" "want sm_80/90/100 cubins and sm_80 PTX, got:" "$tmp/archs"
fi

# the PTX's ISA: what a driver JITs is at most its own CUDA release's
isa=$(sed -n 's/^ptx sm_80 isa //p' "$tmp/images")
check "PTX ISA $isa <= 8.0 (JIT'd by drivers from R525, R535 included)" \
	sh -c "echo '$isa' | awk -F. '{ exit !(\$1 < 8 || (\$1 == 8 && \$2 == 0)) }'"
# the same PTX is what the build validated: ptxas rejects an instruction
# above the declared ISA
check "the build's PTX declares it" grep -q "^\.version $isa\$" "$fb.ptx"

# which ptxas made the cubins: a CUDA 12.x ptxas writes sm_80's and sm_90's
# in the old ELF format (ABI version 7), loadable from R525; 13.x's writes
# the new one (8, R580) for every GPU, and 12.8's for sm_100 too
abis=$(sed -n 's/^elf sm_[89]0 abi //p' "$tmp/images" | sort -u | tr '\n' ' ')
if [ -n "$PTXAS12" ]; then
	check "sm_80/90 cubins from the CUDA 12.x ptxas configured ($PTXAS12): ELF ABI 7" test "$abis" = "7 "
	check "the build says a 12.x ptxas made them" grep -q '^ptxas 12\.' "$fb.info"
else
	skip "cubins from a CUDA 12.x ptxas" "none configured (--with-ptxas12 or PTXAS12=); nvcc's made them (sm_80/90: ELF ABI ${abis% }): drivers older than R580 JIT the PTX"
fi

cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$cuobjdump" ] || [ ! -x /usr/local/cuda/bin/cuobjdump ] || cuobjdump=/usr/local/cuda/bin/cuobjdump
if [ -z "$cuobjdump" ]; then
	skip "cuobjdump --list-elf shows sm_90" "no cuobjdump in this toolkit (CUOBJDUMP=...)"
elif "$cuobjdump" --list-elf "$fb" >"$tmp/elf" 2>&1 && grep -q 'sm_90\.cubin' "$tmp/elf"; then
	pass "cuobjdump --list-elf shows sm_90"
else
	fail "cuobjdump --list-elf shows sm_90" "it lists:" "$tmp/elf"
fi

# the module carries that fatbin, byte for byte
check "the module embeds the fatbin" python3 -c "import sys; sys.exit(open('$fb', 'rb').read() not in open('$mod', 'rb').read())"

# What holds the kernels: the module mcinit opens needs no CUDA library
# (the driver is opened at run time); the test program's own buffers come
# from libcudart, never from a linked libcuda.so.1.
objdump -p "$mod" | awk '/NEEDED/ {print $2}' >"$tmp/needed"
if grep -q '^libcuda\|^libnccl' "$tmp/needed"; then
	fail "$mod needs no CUDA library" "it needs:" "$tmp/needed"
else
	pass "$mod needs no CUDA library ($(tr '\n' ' ' <"$tmp/needed"))"
fi
prog=tests/gpu/gpu-kernels-check
if [ -f "$prog" ]; then
	objdump -p "$prog" | awk '/NEEDED/ {print $2}' >"$tmp/needed"
	if grep -q '^libcuda\.so' "$tmp/needed"; then
		fail "$prog does not need libcuda" "it needs:" "$tmp/needed"
	else
		pass "$prog does not need libcuda"
	fi
fi
finish
