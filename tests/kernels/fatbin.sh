#!/bin/sh
# The CUDA kernels were compiled for sm_80, sm_90 and sm_100 with PTX for
# newer GPUs, and nothing links the driver library (libcuda): checked in the
# object's fatbin with cuobjdump when the toolkit has it, and always with
# fatbin-archs.py (objcopy + a small reader of the container).  TAP output
# (tests/cli/lib.sh).  Runs only in builds with the CUDA kernels.
. "$srcdir/tests/cli/lib.sh"
obj=lib/kernels/gpu-kernels.o

if [ ! -f "$obj" ]; then
	fail "kernel object" "$obj not built"
	finish
	exit
fi
objcopy -O binary --only-section=.nv_fatbin "$obj" "$tmp/fatbin"
python3 "$srcdir/tests/kernels/fatbin-archs.py" "$tmp/fatbin" | sort >"$tmp/archs"
printf '%s\n' 'elf sm_100' 'elf sm_80' 'elf sm_90' 'ptx sm_100' >"$tmp/want"
if cmp -s "$tmp/want" "$tmp/archs"; then
	pass "fatbin holds $(tr '\n' ' ' <"$tmp/archs")"
else
	fail "fatbin architectures" "want sm_80/90/100 code and sm_100 PTX, got:" "$tmp/archs"
fi

cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$cuobjdump" ] || [ ! -x /usr/local/cuda/bin/cuobjdump ] || cuobjdump=/usr/local/cuda/bin/cuobjdump
if [ -z "$cuobjdump" ]; then
	skip "cuobjdump --list-elf shows sm_90" "no cuobjdump in this toolkit (CUOBJDUMP=...)"
elif "$cuobjdump" --list-elf "$obj" >"$tmp/elf" 2>&1 && grep -q 'sm_90\.cubin' "$tmp/elf"; then
	pass "cuobjdump --list-elf shows sm_90"
else
	fail "cuobjdump --list-elf shows sm_90" "it lists:" "$tmp/elf"
fi

# What holds the kernels (the test program, the module mcinit opens) needs
# libcudart and never libcuda.so.1.
for prog in tests/gpu/gpu-kernels-check lib/.libs/mcinit-cuda-kernels.so; do
	[ -f "$prog" ] || continue
	objdump -p "$prog" | awk '/NEEDED/ {print $2}' >"$tmp/needed"
	if grep -q '^libcuda\.so' "$tmp/needed"; then
		fail "$prog does not need libcuda" "it needs:" "$tmp/needed"
	elif grep -q '^libcudart\.so' "$tmp/needed"; then
		pass "$prog needs libcudart, not libcuda"
	else
		fail "$prog needs libcudart (dynamically)" "it needs:" "$tmp/needed"
	fi
done
finish
