#!/bin/sh
# tests/gpu/run.sh — the checks that need a GPU, run from a build tree or from
# the bundle `make gpu-bundle` makes (bin/, lib/, this script, the inputs),
# on a machine where nothing can be installed.  Exit 77 (skip) without a GPU.
#
#  1. kernels: the fused kernels against the CPU reference and their memory
#     bandwidth beside cudaMemcpy's (gpu-kernels-check);
#  2. one rank with --bandwidth: the world, every split, the verification
#     all-reduce, the sweep (nccl-tests' method), the teardown (NCCL's own
#     log, in NCCL_DEBUG_FILE, counts it);
#  3. two ranks on one GPU: each in its own UTS namespace (unshare -u) with
#     its own host name (mcinit's one-rank-per-GPU check) and NCCL_HOSTID
#     (NCCL's host hash: its duplicate-GPU check passes and it takes its
#     socket transport) — real multi-rank creation, splits with
#     NCCL_SPLIT_NOCOLOR (pp 2: rank 1 has no position-embedding group), and
#     the verification at 2 ranks, 3 times: the proof of issue 25's defect 1
#     fix (a read before NCCL finished gave a wrong sum now and then);
#  4. a forced timeout: rank 1 sees no GPU and never joins; rank 0 must give
#     up after --timeout, abort, and name it;
#  5. a summary with every figure.
#
# The libraries: the bundle's lib/ (jansson, hwloc, yaml...), then CUDA's
# runtime and NCCL from the Python environment (site-packages/nvidia/*/lib
# of $VIRTUAL_ENV or the python3 on PATH) or /usr/local/cuda/lib64 — mcinit
# finds them itself; gpu-kernels-check links libcudart, so the script puts
# them on LD_LIBRARY_PATH.  A library the loader cannot find is reported as
# such, not as "no GPU".
#
# MCINIT_GPU_DRY_RUN=1 with MCINIT_CUDA_LIBRARY and MCINIT_NCCL_LIBRARY
# naming tests/double/ runs it here, on the CPU double (no kernels: step 1
# and the kernels phase are skipped); tests/gpu/bundle.sh does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dry=${MCINIT_GPU_DRY_RUN:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcinit-gpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
npass=0
nfail=0
nskip=0
: >"$tmp/figures"
result() { # NAME RC [WHY]
	case $2 in
	0) npass=$((npass + 1)) && echo "PASS: $1" ;;
	77) nskip=$((nskip + 1)) && echo "SKIP: $1${3:+: $3}" ;;
	*) nfail=$((nfail + 1)) && echo "FAIL: $1${3:+: $3}" ;;
	esac
}
figure() { # TEXT: a line for the summary
	echo "$*" >>"$tmp/figures"
}
now() { date +%s; }

# ---- where things are: the bundle, or a build tree ----
if [ -x "$here/bin/mcinit" ]; then
	root=$here
	M=${MCINIT:-$root/bin/mcinit}
	prog=${GPU_CHECK:-$root/bin/gpu-kernels-check}
	J=$root/inputs/topology-model.json
else
	top=$(cd "$here/../.." && pwd)
	root=$(pwd)
	[ -f Makefile ] && make -s src/mcinit tests/gpu/gpu-kernels-check >/dev/null 2>&1
	M=${MCINIT:-$root/src/mcinit}
	prog=${GPU_CHECK:-$root/tests/gpu/gpu-kernels-check}
	J=$top/tests/cli/inputs/topology-model.json
fi
[ -x "$prog" ] || prog=

# ---- the library path: the bundle's, CUDA's and NCCL's ----
libs=
[ -d "$root/lib" ] && libs=$root/lib
for py in ${VIRTUAL_ENV:+"$VIRTUAL_ENV/bin/python3"} "$(command -v python3 2>/dev/null)"; do
	[ -n "$py" ] && [ -x "$py" ] || continue
	pre=$(cd "$(dirname "$py")/.." && pwd)
	for d in "$pre"/lib/python3*/site-packages/nvidia/cu13/lib \
		"$pre"/lib/python3*/site-packages/nvidia/cuda_runtime/lib \
		"$pre"/lib/python3*/site-packages/nvidia/nccl/lib; do
		[ -d "$d" ] && libs=${libs:+$libs:}$d
	done
done
[ -d /usr/local/cuda/lib64 ] && libs=${libs:+$libs:}/usr/local/cuda/lib64
[ -z "$dry" ] || libs=${MCINIT_CUDA_LIBRARY:-}${libs:+:$libs}
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "# LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# a program the loader cannot start: name what is missing
loads() { # NAME PROGRAM
	if ! ldd "$2" >"$tmp/ldd" 2>&1 || grep -q 'not found' "$tmp/ldd"; then
		grep 'not found' "$tmp/ldd" | sed 's/^/#   /'
		result "loader: $1 starts" 1 "the loader cannot resolve $(grep -c 'not found' "$tmp/ldd") librar(y/ies) (above)"
		return 1
	fi
	return 0
}
if [ ! -x "$M" ]; then
	result "mcinit found" 1 "no mcinit at $M (build it, or run from the bundle)"
	echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
	exit 1
fi
loads mcinit "$M" || { echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"; exit 1; }

if [ -z "$dry" ]; then
	if ! command -v nvidia-smi >/dev/null 2>&1; then
		echo "SKIP: no nvidia-smi (no NVIDIA driver here)"
		exit 77
	fi
	gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)
	figure "GPU: $gpu"
fi
$M --version | sed 's/^/# /'
figure "$($M --version | grep 'GPU backend')"
if ! $M --version | grep -q 'GPU backend: cuda+nccl'; then
	result "mcinit run" 1 "this mcinit was built without CUDA and NCCL (configure found no toolkit)"
	echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
	exit 1
fi
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID \
	OMPI_COMM_WORLD_RANK TORCHELASTIC_USE_AGENT_STORE NCCL_COMM_BLOCKING 2>/dev/null || true
warm=
[ -z "$dry" ] || warm=--no-warmup
py=$(command -v python3 || true)
# json_check FILE PYTHON-EXPR: the report d satisfies EXPR (grep fallback: "ok": true).
json_check() {
	if [ -n "$py" ]; then
		"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
	else
		grep -q '"ok": true' "$1"
	fi
}
json_get() { # FILE PYTHON-EXPR: print it
	[ -n "$py" ] && "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}

# ---- 1. the kernels ----
t0=$(now)
if [ -n "$dry" ]; then
	result "kernels (gpu-kernels-check)" 77 "dry run: the double runs no kernels"
elif [ -z "$prog" ]; then
	result "kernels (gpu-kernels-check)" 1 "gpu-kernels-check not found (build with nvcc)"
elif loads gpu-kernels-check "$prog"; then
	timeout 300 "$prog" "$@" >"$tmp/kernels" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/kernels"
	[ $rc = 77 ] && { echo "SKIP: $(tail -n 1 "$tmp/kernels")"; exit 77; }
	grep -i 'GB/s' "$tmp/kernels" | sed 's/^ */kernels: /' >>"$tmp/figures"
	result "kernels against the reference and against cudaMemcpy" $rc
fi
figure "step 1 (kernels): $(($(now) - t0)) s"

# ---- 2. one rank, --bandwidth ----
t0=$(now)
NCCL_DEBUG=INFO NCCL_DEBUG_FILE=$tmp/nccl-one.%p.log timeout 300 $M run $warm --bandwidth --format=json "$J" \
	>"$tmp/one.json" 2>"$tmp/one.err"
rc=$?
grep '^mcinit run: ' "$tmp/one.err" | sed 's/^/# /'
[ $rc = 0 ] && json_check "$tmp/one.json" \
	'd["ok"] and all(c["state"] in ("verified", "none") for c in d["communicators"])
	 and d["communicators"][0]["key"] == "world" and d["communicators"][0]["state"] == "verified"
	 and len(d["communicators"]) > 10'
result "one rank: world, every split, verification" $? "exit $rc"
[ $rc = 0 ] && json_check "$tmp/one.json" \
	'all(c["algbw"] is not None for c in d["communicators"] if c["state"] == "verified")'
result "one rank: --bandwidth (algbw, busbw per communicator)" $?
json_get "$tmp/one.json" '"\n".join("bandwidth %-12s %-14s 64 MiB: algbw %8.2f GB/s  busbw %8.2f GB/s" % (c["key"], c["collective"], c["algbw"], c["busbw"]) for c in d["communicators"] if c["algbw"])' >>"$tmp/figures"
figure "versions: $(json_get "$tmp/one.json" 'd["versions"]')"
[ $rc = 0 ] && json_check "$tmp/one.json" 'd["versions"]["nccl"] >= 22300 and d["versions"]["cuda_driver"]'
result "one rank: versions and library files in the report" $?
if [ -z "$dry" ]; then
	[ $rc = 0 ] && json_check "$tmp/one.json" \
		'[p["status"] for p in d["phases"] if p["name"] in ("seeds", "kernels")] == ["ok", "ok"]'
	result "one rank: the device generator, the kernels phase" $?
fi
ncomm=$(json_get "$tmp/one.json" 'sum(c["state"] == "verified" for c in d["communicators"])')
ndestroy=$(cat "$tmp"/nccl-one.*.log 2>/dev/null | grep -c 'Destroy COMPLETE')
figure "teardown: ${ncomm:-?} communicators verified, NCCL logged $ndestroy 'Destroy COMPLETE'"
if [ -z "$dry" ] && [ -n "$ncomm" ]; then
	[ "$ndestroy" -ge "$ncomm" ]
	result "one rank: teardown (NCCL_DEBUG_FILE counts every communicator destroyed)" $?
fi
figure "step 2 (one rank): $(($(now) - t0)) s"

# free_port N: a TCP port nothing listens on, as the kernel hands out for a
# bind to port 0 (a port made from the pid collided with a connection of a
# test running beside this one: "Address already in use"); without python,
# one made from the pid N below the ephemeral ports.
free_port() {
	[ -n "$py" ] && "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + ($$ + $1 * 7) % 12000))
}

# ---- 3. two ranks on one GPU ----
t0=$(now)
two_ranks() { # RUN: both ranks, each in its own UTS namespace; rank 0's report in $tmp/two-RUN-0.json
	port=$(free_port "$1")
	for r in 0 1; do
		env WORLD_SIZE=2 RANK=$r LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 GROUP_RANK=$r MASTER_ADDR=127.0.0.1 \
			MASTER_PORT=$port NCCL_HOSTID=mcinit-gpu-check-$r NCCL_DEBUG=INFO \
			NCCL_DEBUG_FILE=$tmp/nccl-two-$1-$r.%p.log \
			timeout 300 unshare -u sh -c 'hostname "$0" && exec "$@"' mcinit-rank-$r \
			$M run $warm --format=json --timeout 60 "$J" model.pipeline_model_parallel_size=2 \
			>"$tmp/two-$1-$r.json" 2>"$tmp/two-$1-$r.err" &
		eval p$r=\$!
	done
	wait $p0
	rc0=$?
	wait $p1
	rc1=$?
	return $((rc0 | rc1))
}
if ! unshare -u true 2>/dev/null; then
	result "two ranks on one GPU" 77 "unshare -u is not allowed here (needs CAP_SYS_ADMIN or user namespaces)"
else
	ok=0
	for run in 1 2 3; do
		two_ranks $run
		rc=$?
		sed 's/^/# rank 0: /' "$tmp/two-$run-0.err" | grep -v ' ok ' | tail -n 3
		[ $rc = 0 ] && json_check "$tmp/two-$run-0.json" \
			'd["ok"] and all(c["state"] in ("verified", "none") for c in d["communicators"])' || ok=1
	done
	result "two ranks on one GPU: creation, splits, verification (3 runs)" $ok "rank 0: $(tail -n 1 "$tmp/two-1-0.err")"
	# rank 1 (the last stage) is in no position-embedding group: one split
	# fewer than it issued (rank 0's report holds every rank's phases)
	json_check "$tmp/two-1-0.json" 'any(c["key"] == "pos_embd" and c["state"] == "verified" for c in d["communicators"]) and
		__import__("re").search(r"(\d+) ncclCommSplit.*this rank is in (\d+)", [p["detail"] for p in d["ranks"][1]["phases"] if p["name"] == "groups"][0]).group(1, 2) == ("20", "19")'
	result "two ranks: rank 1 splits with NCCL_SPLIT_NOCOLOR (no position-embedding group)" $?
	figure "two ranks on one GPU: world $(json_get "$tmp/two-1-0.json" '[p["seconds"] for p in d["phases"] if p["name"] == "world"][0]') s, groups $(json_get "$tmp/two-1-0.json" '[p["seconds"] for p in d["phases"] if p["name"] == "groups"][0]') s, verify $(json_get "$tmp/two-1-0.json" '[p["seconds"] for p in d["phases"] if p["name"] == "verify"][0]') s"
	figure "two ranks: transport $(cat "$tmp"/nccl-two-1-0.*.log 2>/dev/null | grep -o 'via NET/[A-Za-z]*\|via P2P[^ ]*\|via SHM[^ ]*' | sort | uniq -c | tr '\n' ' ')"
fi
figure "step 3 (two ranks): $(($(now) - t0)) s"

# ---- 4. a forced timeout ----
T=${MCINIT_GPU_TIMEOUT:-10}
port=$(free_port 99)
start=$(now)
env WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
	CUDA_VISIBLE_DEVICES= timeout 120 $M run --allow-no-cuda --timeout "$T" "$J" \
	>"$tmp/t1.out" 2>&1 &
p1=$!
env WORLD_SIZE=2 RANK=0 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
	timeout 120 $M run $warm --timeout "$T" "$J" >"$tmp/t0.out" 2>&1
rc=$?
wait $p1
took=$(($(now) - start))
sed 's/^/# rank 0: /' "$tmp/t0.out" | grep -v ' ok ' | tail -n 4
figure "forced timeout: exit $rc after $took s (--timeout $T)"
[ $rc = 75 ] && [ $took -lt $((6 * T)) ] &&
	grep -q "NCCL world communicator not created within $T s (ncclCommAbort): .*did not finish; never started: 1" "$tmp/t0.out"
result "forced timeout: abort, the missing rank named" $?

# ---- 5. the summary ----
echo "---- figures ----"
cat "$tmp/figures"
echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
[ $nfail = 0 ]
