#!/bin/sh
# kernel-ptxas.sh — what ptxas makes of the fused kernels, for one GPU
# architecture (default sm_90: H100, H200), with the build's nvcc flags:
# registers, stack and spills per kernel, then the PTX instructions of one
# element's formula (tests/kernels/kprobe.cu, each probe less the baseline
# probe's load and store).  With NVDISASM=path/to/nvdisasm (pip's
# nvidia-cuda-nvdisasm has one) the SASS instructions of each probe too.
# tests/kernels/ptxas-figures.txt keeps the figures before and after a change.
#
#   build-aux/kernel-ptxas.sh [ARCH]        (run from anywhere; needs nvcc)
#
# Environment: NVCC (default nvcc), NVDISASM (optional).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-sm_90}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null 2>&1 || {
	echo "kernel-ptxas.sh: no nvcc (set NVCC)" >&2
	exit 69
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The arithmetic flags of Makefile.am's NVCC_FLAGS: the figures are the build's.
flags="-std=c++17 -O3 -fmad=false -prec-div=true -prec-sqrt=true -ftz=false"

# shellcheck disable=SC2086
"$nvcc" $flags -arch="$arch" -cubin -Xptxas -v -I"$here/lib/kernels" \
	-o "$tmp/k.cubin" "$here/lib/kernels/gpu-kernels.cu" 2>"$tmp/ptxas.txt"

# ptxas -v says, per entry: "Function properties for NAME", then
# "N bytes stack frame, S bytes spill stores, L bytes spill loads", then
# "Used R registers".  Names are mangled; c++filt gives the template
# arguments (km_kernel<OP, DT, FAST, I32>).
awk '
/Function properties for/ { name = $NF; next }
/bytes stack frame/ && name != "" {
	stack[name] = $1; spills[name] = $5; spilll[name] = $9; next
}
/Used [0-9]+ registers/ && name != "" {
	for (i = 1; i <= NF; i++) if ($i == "Used") regs[name] = $(i + 1)
	print name, regs[name], stack[name] + 0, spills[name] + 0, spilll[name] + 0
	name = ""
}' "$tmp/ptxas.txt" >"$tmp/rows"
printf '%-44s %5s %6s %6s %6s\n' "kernel ($arch)" regs stack spillS spillL
while read -r name regs stack ss sl; do
	# km_kernel<OP, DT, FAST, I32> as "km_kernel OP DT FAST I32" with the
	# names of mcinit_kernels.h's enums (enum mcinit_kop, enum mcinit_dtype)
	pretty=$(printf '%s\n' "$name" | c++filt 2>/dev/null | sed 's/^void //; s/(.*$//' |
		sed -E 's/<([0-9]), ([0-9]), ([01]), ([01])>/ op\1 dt\2 \3 \4/; s/<([0-9])>/ dt\1/' |
		sed 's/op0/gelu/; s/op1/gelu_back/; s/op2/swiglu/; s/op3/swiglu_back/; s/op4/dropout_add/;
			s/dt0/fp32/; s/dt1/fp16/; s/dt2/bf16/')
	printf '%-44s %5s %6s %6s %6s\n' "${pretty:-$name}" "$regs" "$stack" "$ss" "$sl"
done <"$tmp/rows"

# One element's arithmetic: the instructions in each probe's body.
# shellcheck disable=SC2086
"$nvcc" $flags -arch="$arch" -ptx -I"$here/lib/kernels" -o "$tmp/probe.ptx" \
	"$here/tests/kernels/kprobe.cu"
awk '
/^\.visible \.entry/ { fn = $3; sub(/\(.*/, "", fn); n[fn] = 0; inbody = 0; order[++k] = fn; next }
fn != "" && /^\{/ { inbody = 1; next }
fn != "" && /^\}/ { inbody = 0; fn = ""; next }
inbody && /;[[:space:]]*$/ && $1 !~ /^\./ && $1 !~ /^\/\// { n[fn]++ }
END {
	printf "\n%-40s %6s\n", "one element'"'"'s arithmetic (PTX)", "instr"
	for (i = 1; i <= k; i++)
		if (order[i] != "baseline")
			printf "%-40s %6d\n", order[i], n[order[i]] - n["baseline"]
}' "$tmp/probe.ptx"

if [ -n "${NVDISASM:-}" ]; then
	# shellcheck disable=SC2086
	"$nvcc" $flags -arch="$arch" -cubin -I"$here/lib/kernels" -o "$tmp/probe.cubin" \
		"$here/tests/kernels/kprobe.cu"
	"$NVDISASM" -c "$tmp/probe.cubin" | awk '
	/^[[:space:]]*\.text\./ { fn = $1; sub(/^\.text\./, "", fn); sub(/:$/, "", fn); order[++k] = fn; next }
	fn != "" && /\/\*[0-9a-f]+\*\// { n[fn]++ }
	END {
		printf "\n%-40s %6s\n", "the same in SASS (static)", "instr"
		for (i = 1; i <= k; i++)
			if (order[i] != "baseline")
				printf "%-40s %6d\n", order[i], n[order[i]] - n["baseline"]
	}'
fi
