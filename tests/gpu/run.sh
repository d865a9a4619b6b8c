#!/bin/sh
# tests/gpu/run.sh — the checks that need a GPU.  Exit 77 (skip) without one:
# no nvidia-smi, or cudaGetDeviceCount fails (the programs say which).  make
# check runs it through tests/gpu/check.sh.
#
#  1. the fused kernels against the CPU reference, their memory bandwidth
#     beside cudaMemcpy's, and the kernels phase (gpu-kernels-check);
#  2. mcinit run's CUDA/NCCL phases on a one-rank world (a one-GPU machine
#     can run no more: NCCL refuses two ranks on one device): the world
#     communicator, every split of the topology, the verification
#     all-reduce on each, the --bandwidth sweep, the lazy path (CLI and
#     library: mcinit_initialize and its finish callback), a forced timeout
#     (a second rank that never creates its communicator: the first must
#     abort and name it), and the teardown (NCCL's own log counts it).
#
# In a build tree (make check runs it there) it builds what it runs (make);
# on a lent GPU machine without build tools, carry the binaries and point
# at them:
#   GPU_CHECK=path/to/gpu-kernels-check MCINIT=path/to/mcinit \
#     INITIALIZE=path/to/initialize sh tests/gpu/run.sh [--quick]
# They need libcudart.so.13 and libnccl.so.2 (a Python environment's
# nvidia/cu13/lib and nvidia/nccl/lib will do: put them on LD_LIBRARY_PATH)
# besides jansson, hwloc and libyaml.  See tests/gpu/README.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "SKIP: no nvidia-smi (no NVIDIA driver here)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcinit-gpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
npass=0
nfail=0
nskip=0
result() { # NAME RC [WHY]
	case $2 in
	0) npass=$((npass + 1)) && echo "PASS: $1" ;;
	77) nskip=$((nskip + 1)) && echo "SKIP: $1${3:+: $3}" ;;
	*) nfail=$((nfail + 1)) && echo "FAIL: $1${3:+: $3}" ;;
	esac
}

# In a build tree: bring the programs up to date.
if [ -f Makefile ]; then
	make -s src/mcinit tests/gpu/gpu-kernels-check >/dev/null 2>&1 || true
fi
find_prog() { # VAR-VALUE CANDIDATES...
	[ -n "$1" ] && { echo "$1"; return; }
	shift
	for p in "$@"; do [ -x "$p" ] && { echo "$p"; return; }; done
}
prog=$(find_prog "${GPU_CHECK:-}" ./tests/gpu/gpu-kernels-check "$here/gpu-kernels-check")
M=$(find_prog "${MCINIT:-}" ./src/mcinit "$top/_build/src/mcinit")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null

# ---- 1. the kernels ----
if [ -n "$prog" ]; then
	"$prog" "$@"
	rc=$?
	[ $rc = 77 ] && exit 77 # the program found no usable GPU: skip it all
	result "kernels (gpu-kernels-check)" $rc
else
	result "kernels" 99 "gpu-kernels-check not found (build with CUDA, or set GPU_CHECK)"
fi

# ---- 2. the NCCL phases ----
if [ -z "$M" ]; then
	result "mcinit run" 99 "mcinit not found (build with CUDA, or set MCINIT)"
	echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
	exit 1
fi
$M --version | sed 's/^/# /'
if ! $M --version | grep -q 'GPU backend: cuda+nccl'; then
	result "mcinit run" 99 "this mcinit has no CUDA/NCCL backend: configure with CUDA and NCCL"
	echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
	exit 1
fi
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT SLURM_PROCID \
	OMPI_COMM_WORLD_RANK TORCHELASTIC_USE_AGENT_STORE NCCL_COMM_BLOCKING 2>/dev/null || true
J=$top/tests/cli/inputs/topology-model.json
py=$(command -v python3 || true)
# json_check FILE PYTHON-EXPR: the report d satisfies EXPR (grep fallback: "ok": true).
json_check() {
	if [ -n "$py" ]; then
		"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
	else
		grep -q '"ok": true' "$1"
	fi
}

# a) one rank: world, every split, verification, bandwidth, teardown
NCCL_DEBUG=INFO timeout 300 $M run --bandwidth --format=json $J >"$tmp/one.json" 2>"$tmp/one.err"
rc=$?
sed -n 's/^mcinit run: \(bandwidth .*\)/# \1/p' "$tmp/one.err"
grep '^mcinit run: [a-z-]* ' "$tmp/one.err" | sed 's/^/# /'
[ $rc = 0 ] && json_check "$tmp/one.json" \
	'd["ok"] and all(c["state"] in ("verified", "none") for c in d["communicators"])
	 and d["communicators"][0]["key"] == "world" and d["communicators"][0]["state"] == "verified"
	 and len(d["communicators"]) > 10'
result "one-rank world, every split, verification" $?
[ $rc = 0 ] && json_check "$tmp/one.json" \
	'all(c["algbw"] is not None for c in d["communicators"] if c["state"] == "verified")'
result "bandwidth sweep (algbw/busbw per communicator)" $?
[ $rc = 0 ] && json_check "$tmp/one.json" \
	'd["versions"]["nccl"] >= d["versions"]["nccl_header"] and d["versions"]["cuda_driver"]'
result "versions in the report" $?
[ $rc = 0 ] && json_check "$tmp/one.json" \
	'[p["status"] for p in d["phases"] if p["name"] in ("seeds", "kernels")] == ["ok", "ok"]'
result "seeds on the device generator, the kernels phase on the GPU" $?
if [ -n "$py" ] && [ $rc = 0 ]; then
	ncomm=$("$py" -c 'import json,sys; print(sum(c["state"] == "verified" for c in json.load(open(sys.argv[1]))["communicators"]))' "$tmp/one.json")
	ndestroy=$(grep -c 'Destroy COMPLETE' "$tmp/one.err")
	echo "# teardown: $ncomm communicators verified, NCCL logged $ndestroy 'Destroy COMPLETE'"
	[ "$ndestroy" -ge "$ncomm" ]
	result "teardown (every communicator destroyed)" $?
fi

# b) the lazy path through the CLI: deferred, then finished at once
timeout 300 $M run --lazy-mpu-init --finish-lazy --format=json $J >"$tmp/lazy.json" 2>"$tmp/lazy.err"
rc=$?
[ $rc = 0 ] && json_check "$tmp/lazy.json" \
	'd["ok"] and d["communicators"][0]["state"] == "verified"
	 and [p["status"] for p in d["phases"] if p["name"] == "world"] == ["ok"]'
result "lazy path (--lazy-mpu-init --finish-lazy)" $?

# c) the lazy path through the library: mcinit_initialize, then the finish callback
ini=$(find_prog "${INITIALIZE:-}" "$tmp/initialize")
if [ -z "$ini" ] && [ -n "${MCINIT_DESTDIR:-}" ] && [ -n "${libdir:-}" ] &&
	PKG_CONFIG_PATH="$MCINIT_DESTDIR$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$MCINIT_DESTDIR" \
		${CC:-cc} "$top/examples/libmcinit/initialize.c" \
		$(PKG_CONFIG_PATH="$MCINIT_DESTDIR$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$MCINIT_DESTDIR" \
			pkg-config --cflags --libs mcinit) -o "$tmp/initialize" 2>"$tmp/cc.err"; then
	ini=$tmp/initialize
	export LD_LIBRARY_PATH="$MCINIT_DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ -n "$ini" ]; then
	timeout 300 "$ini" "$J" >"$tmp/ini.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/ini.out"
	[ $rc = 0 ] && grep -q '^  world      deferred' "$tmp/ini.out" &&
		grep -q '^finish callback' "$tmp/ini.out" && grep -q '^  world      ok' "$tmp/ini.out" &&
		grep -q '^world communicator: yes' "$tmp/ini.out"
	result "library lazy path (mcinit_initialize + finish callback)" $?
else
	result "library lazy path" 77 "no initialize example (set INITIALIZE, or run from make check)"
fi

# d) a forced timeout: rank 1 sees no GPU (CUDA_VISIBLE_DEVICES empty) and
# takes the CPU path, so it never joins the NCCL world; rank 0 must give up
# after --timeout, abort, and name rank 1.
port=$((20000 + $$ % 20000))
start=$(date +%s)
env WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
	CUDA_VISIBLE_DEVICES= timeout 120 $M run --allow-no-cuda --timeout 10 $J \
	>"$tmp/t1.out" 2>&1 &
p1=$!
env WORLD_SIZE=2 RANK=0 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
	timeout 120 $M run --timeout 10 $J >"$tmp/t0.out" 2>&1
rc=$?
wait $p1
took=$(($(date +%s) - start))
sed 's/^/# rank 0: /' "$tmp/t0.out" | grep -v ' ok ' | tail -n 4
echo "# exit $rc after ${took} s"
[ $rc = 75 ] && [ $took -lt 60 ] &&
	grep -q 'NCCL world communicator not created within 10 s (ncclCommAbort): .*did not finish; never started: 1' "$tmp/t0.out"
result "forced timeout: abort, the missing rank named" $?

echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
[ $nfail = 0 ]
