#!/bin/sh
# tests/double/wheels.sh — issue 40: the real libraries of PyTorch's wheels
# (nvidia-nccl-cu12, nvidia-cuda-runtime-cu12), laid out as pip lays them in
# a venv, are the ones mcinit loads and reports: dlopen, ncclGetVersion and
# cudaRuntimeGetVersion need no GPU.  The wheels are not fetched here (make
# check needs no network): put them in $MCINIT_WHEELS (default
# ~/.cache/mcinit/wheels), e.g.
#     pip download --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
#         --python-version 3.12 -d ~/.cache/mcinit/wheels \
#         nvidia-nccl-cu12==2.21.5 nvidia-nccl-cu12==2.27.5 nvidia-cuda-runtime-cu12==12.8.90
# Without them every check is skipped, naming why.
. "$srcdir/tests/cli/lib.sh"
. "$srcdir/tests/double/lib.sh"

W=${MCINIT_WHEELS:-$HOME/.cache/mcinit/wheels}
command -v unzip >/dev/null 2>&1 || command -v python3 >/dev/null 2>&1 ||
	skip_all "neither unzip nor python3 to unpack a wheel"

# unpack WHEEL VENV: the wheel's files into VENV's site-packages, as pip does
unpack() {
	sp=$2/lib/python3.12/site-packages
	mkdir -p "$sp"
	if command -v unzip >/dev/null 2>&1; then
		unzip -q -o "$1" 'nvidia/*' -d "$sp"
	else
		python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("nvidia/")])' "$1" "$sp"
	fi
}

# version VENV NAME: mcinit --version with VENV active and nothing else named
version() {
	env -u MCINIT_CUDA_LIBRARY -u MCINIT_NCCL_LIBRARY -u CONDA_PREFIX -u LD_LIBRARY_PATH \
		VIRTUAL_ENV="$1" $MCINIT --version >"$tmp/$2" 2>&1
	comment "$tmp/$2"
}

rt=$(ls "$W"/nvidia_cuda_runtime_cu12-12.*.whl 2>/dev/null | tail -n 1)
seen=0
for whl in "$W"/nvidia_nccl_cu12-2.*.whl; do
	[ -f "$whl" ] || continue
	seen=1
	v=$(basename "$whl" | sed 's/^nvidia_nccl_cu12-\([0-9.]*\)-.*/\1/')
	venv=$tmp/venv-$v
	unpack "$whl" "$venv"
	[ -n "$rt" ] && unpack "$rt" "$venv"
	version "$venv" "v$v"
	check "NCCL $v's wheel: loaded from the venv, its version read" sh -c "
		grep -q 'running NCCL $v,' '$tmp/v$v' &&
		grep -q '^    libnccl   $venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2 (VIRTUAL_ENV=$venv: ' '$tmp/v$v'"
	if [ -n "$rt" ]; then
		check "NCCL $v's venv: CUDA 12's runtime from nvidia/cuda_runtime/lib" sh -c "
			grep -q 'CUDA runtime 12\.[0-9]*,' '$tmp/v$v' &&
			grep -q '^    libcudart $venv/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12 ' '$tmp/v$v'"
	else
		skip "NCCL $v's venv: CUDA 12's runtime" "no nvidia_cuda_runtime_cu12 wheel in $W"
	fi
done
[ $seen = 1 ] || skip "the real NCCL of torch's wheels" "no nvidia_nccl_cu12 wheel in $W (see the top of this file)"
finish
