#!/bin/sh
# tests/gpu/run.sh — the checks that need a GPU, as one command within 10
# minutes on one GPU, run from a build tree or from the bundle `make
# gpu-bundle` makes (bin/, lib/, this script, the inputs), on a machine where
# nothing can be installed.  Exit 77 (skip) without a GPU.  Every figure,
# report and log goes to one folder, $OUT (default ./mcinit-gpu-out):
# figures.txt, steps.tsv (step, result, seconds, limit), a .json/.err per
# run, NCCL's logs.  A step that no longer fits the time left of
# $MCINIT_GPU_BUDGET (540 s) is skipped as such.
#
#  1. kernels: the fused kernels against the CPU reference and their GB/s
#     beside a device-to-device copy (gpu-kernels-check); a driver too old
#     for them skips this step only;
#  2. one rank with --bandwidth: the world, every split, the verification,
#     the teardown (NCCL_DEBUG_FILE counts it);
#  3. every GPU of the node, one rank each, with --bandwidth: the busbw that
#     means something (one rank's is 0 by definition);
#  4. two ranks on one GPU, twice, and once with --bandwidth (send_recv,
#     all_to_all at 2): each rank in its own UTS namespace (unshare -u, else
#     unshare -Ur -u) with its own host name and NCCL_HOSTID, over sockets on
#     lo (NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo);
#  5. a forced timeout: rank 1 never joins; rank 0 gives up, names it;
#  6. rank 1 stopped (SIGSTOP) after the world's 64 MiB line of --bandwidth,
#     and 7. as verify starts: rank 0 must exit 75 soon after --timeout, not
#     hang in the teardown (issue 40, defects 1 and 2);
#  8. a summary with every figure.
#
# The libraries: the bundle's lib/ (jansson, hwloc, yaml...); CUDA's runtime
# and NCCL mcinit finds itself where the trainer's Python would (mcinit
# --version says which); gpu-kernels-check links libcudart, so the script
# puts the Python environment's nvidia/*/lib and /usr/local/cuda/lib64 on
# LD_LIBRARY_PATH.  A library the loader cannot find is reported as such.
#
# MCINIT_GPU_DRY_RUN=1 with MCINIT_CUDA_LIBRARY and MCINIT_NCCL_LIBRARY
# naming tests/double/ runs it here, on the CPU double (no kernels: step 1
# and the kernels phase are skipped); tests/gpu/bundle.sh does.
# MCINIT_GPU_SLOW=N multiplies every limit, the budget included: a
# sanitizer build on a loaded CI machine is that many times slower, and a
# step its budget skipped, or a limit it ran past, was a failure there
# that a GPU run never has.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dry=${MCINIT_GPU_DRY_RUN:-}
OUT=${OUT:-$PWD/mcinit-gpu-out}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
tmp=$OUT
stopped= # a rank this script stopped: continued and ended on exit
trap '[ -n "$stopped" ] && kill -CONT $stopped 2>/dev/null && kill -KILL $stopped 2>/dev/null' EXIT
npass=0
nfail=0
nskip=0
: >"$tmp/figures"
: >"$tmp/steps.tsv"
now() { date +%s; }
T_START=$(now)
slow=${MCINIT_GPU_SLOW:-1}
BUDGET=${MCINIT_GPU_BUDGET:-$((540 * slow))}
lim() { echo $(($1 * slow)); } # LIMIT: LIMIT seconds, scaled
result() { # NAME RC [WHY]
	case $2 in
	0) npass=$((npass + 1)) && echo "PASS: $1" ;;
	77) nskip=$((nskip + 1)) && echo "SKIP: $1${3:+: $3}" ;;
	*) nfail=$((nfail + 1)) && echo "FAIL: $1${3:+: $3}" ;;
	esac
	printf '%s\t%s\t%s\n' "$1" "$2" "$(($(now) - T_START))" >>"$tmp/steps.tsv"
}
figure() { # TEXT: a line for the summary
	echo "$*" >>"$tmp/figures"
}
# fits LIMIT: the seconds a step may take, or nothing (and 1) when less
# than LIMIT is left of the budget
fits() {
	left=$((BUDGET - ($(now) - T_START)))
	[ $left -ge "$1" ]
}

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
# (the double runs the kernels too: the dry run warms up as a GPU run does)
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
	result "kernels (gpu-kernels-check)" 77 "dry run: the sweep is a GPU's (over the double, mcinit run's kernels phase runs them)"
elif [ -z "$prog" ]; then
	result "kernels (gpu-kernels-check)" 1 "gpu-kernels-check not found (build with nvcc)"
elif loads gpu-kernels-check "$prog"; then
	timeout 180 "$prog" "$@" >"$tmp/kernels" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/kernels"
	grep -i 'GB/s\|ulp' "$tmp/kernels" | sed 's/^ */kernels: /' >>"$tmp/figures"
	# 77: no usable device for the kernels (a driver too old for this
	# build's cubins and PTX): that step only, the rest still runs
	result "kernels against the reference and against cudaMemcpy" $rc "$(tail -n 1 "$tmp/kernels")"
fi
figure "step 1 (kernels): $(($(now) - t0)) s"

# ---- 2. one rank, --bandwidth ----
t0=$(now)
NCCL_DEBUG=INFO NCCL_DEBUG_FILE=$tmp/nccl-one.%p.log timeout $(lim 120) $M run $warm --bandwidth --format=json "$J" \
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
bw_figures() { # FILE LABEL: every communicator's every size
	json_get "$1" '"\n".join("'"$2"' bandwidth %-12s %-14s %5d MiB: algbw %8.2f GB/s  busbw %8.2f GB/s" % (c["key"], c["collective"], b["bytes"] >> 20, b["algbw"], b["busbw"]) for c in d["communicators"] for b in c.get("bandwidth", []))' >>"$tmp/figures"
}
bw_figures "$tmp/one.json" "one rank:"
figure "versions: $(json_get "$tmp/one.json" 'd["versions"]')"
[ $rc = 0 ] && json_check "$tmp/one.json" 'd["versions"]["nccl"] >= 21900 and d["versions"]["cuda_driver"] and d["versions"]["nccl_library_why"]'
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

# ---- 3. every GPU of the node, --bandwidth ----
t0=$(now)
if [ -n "$dry" ]; then
	ngpu=${MCDOUBLE_DEVICES:-2}
else
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ "${ngpu:-0}" -lt 2 ]; then
	result "every GPU with --bandwidth" 77 "one GPU here: the two ranks of step 4 measure instead"
elif ! fits $(lim 120); then
	result "every GPU with --bandwidth" 77 "no time left in the budget"
else
	timeout $(lim 120) $M run $warm --nproc-per-node "$ngpu" --bandwidth --timeout $(lim 60) --format=json "$J" \
		>"$tmp/all.json" 2>"$tmp/all.err"
	rc=$?
	grep '^\[rank 0\] mcinit run: ' "$tmp/all.err" | grep -v ' bandwidth ' | sed 's/^/# /'
	[ $rc = 0 ] && json_check "$tmp/all.json" \
		'd["ok"] and all(len(c.get("bandwidth", [])) == 5 for c in d["communicators"] if c["state"] == "verified")'
	result "every GPU ($ngpu ranks): --bandwidth, 1 MiB to 1 GiB per communicator" $? "exit $rc"
	bw_figures "$tmp/all.json" "$ngpu ranks:"
fi
figure "step 3 (every GPU): $(($(now) - t0)) s"

# ---- 4. two ranks on one GPU ----
# Each rank in a UTS namespace of its own, with its own host name (mcinit's
# one-rank-per-GPU check) and NCCL_HOSTID (NCCL's duplicate-GPU check; it
# then takes its socket transport, kept on lo).
ns=
if unshare -u true 2>/dev/null; then
	ns="unshare -u"
elif unshare -Ur -u true 2>/dev/null; then
	ns="unshare -Ur -u"
fi
# two_ranks NAME LIMIT ARGS...: both ranks in the background, pids in p0 p1,
# rank R's report in $tmp/NAME-R.json and its log in $tmp/NAME-R.err
two_start() {
	name=$1 lim=$2
	shift 2
	port=$(free_port $$)
	for r in 0 1; do
		env ${two_env:-} WORLD_SIZE=2 RANK=$r LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 GROUP_RANK=$r MASTER_ADDR=127.0.0.1 \
			MASTER_PORT=$port NCCL_HOSTID=mcinit-gpu-check-$r NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo \
			NCCL_DEBUG=INFO NCCL_DEBUG_FILE=$tmp/nccl-$name-$r.%p.log \
			timeout "$lim" $ns sh -c 'hostname "$0" && exec "$@"' mcinit-rank-$r \
			$M run $warm ${two_fmt---format=json} "$@" "$J" >"$tmp/$name-$r.json" 2>"$tmp/$name-$r.err" &
		eval p$r=\$!
	done
}
two_wait() {
	wait $p0
	rc0=$?
	wait $p1
	rc1=$?
	return $((rc0 | rc1))
}
t0=$(now)
if [ -z "$ns" ]; then
	result "two ranks on one GPU" 77 "neither unshare -u nor unshare -Ur -u is allowed here"
elif ! fits $(lim 150); then
	result "two ranks on one GPU" 77 "no time left in the budget"
else
	ok=0
	for run in 1 2; do
		two_start two-$run $(lim 60) --timeout $(lim 40) model.pipeline_model_parallel_size=2
		two_wait
		rc=$?
		sed 's/^/# rank 0: /' "$tmp/two-$run-0.err" | grep -v ' ok ' | tail -n 3
		[ $rc = 0 ] && json_check "$tmp/two-$run-0.json" \
			'd["ok"] and all(c["state"] in ("verified", "none") for c in d["communicators"])' || ok=1
	done
	result "two ranks on one GPU: creation, splits, verification (2 runs, $ns)" $ok "rank 0: $(tail -n 1 "$tmp/two-1-0.err")"
	# rank 1 (the last stage) is in no position-embedding group: one split
	# fewer than it issued (rank 0's report holds every rank's phases)
	json_check "$tmp/two-1-0.json" 'any(c["key"] == "pos_embd" and c["state"] == "verified" for c in d["communicators"]) and
		__import__("re").search(r"(\d+) ncclCommSplit.*this rank is in (\d+)", [p["detail"] for p in d["ranks"][1]["phases"] if p["name"] == "groups"][0]).group(1, 2) == ("20", "19")'
	result "two ranks: rank 1 splits with NCCL_SPLIT_NOCOLOR (no position-embedding group)" $?
	figure "two ranks on one GPU: world $(json_get "$tmp/two-1-0.json" '[p["seconds"] for p in d["phases"] if p["name"] == "world"][0]') s, groups $(json_get "$tmp/two-1-0.json" '[p["seconds"] for p in d["phases"] if p["name"] == "groups"][0]') s, verify $(json_get "$tmp/two-1-0.json" '[p["seconds"] for p in d["phases"] if p["name"] == "verify"][0]') s"
	figure "two ranks: transport $(cat "$tmp"/nccl-two-1-0.*.log 2>/dev/null | grep -o 'via NET/[A-Za-z]*\|via P2P[^ ]*\|via SHM[^ ]*' | sort | uniq -c | tr '\n' ' ')"
	two_start two-bw $(lim 120) --timeout $(lim 60) --bandwidth model.pipeline_model_parallel_size=2
	two_wait
	rc=$?
	[ $rc = 0 ] && json_check "$tmp/two-bw-0.json" \
		'd["ok"] and all(len(c.get("bandwidth", [])) == 5 for c in d["communicators"] if c["state"] == "verified")'
	result "two ranks on one GPU, --bandwidth (send_recv, all_to_all at 2)" $? "exit $rc"
	bw_figures "$tmp/two-bw-0.json" "2 ranks, 1 GPU:"
fi
figure "step 4 (two ranks): $(($(now) - t0)) s"

# ---- 5. a forced timeout ----
T=${MCINIT_GPU_TIMEOUT:-10}
if fits $((6 * T)); then
	port=$(free_port 99)
	start=$(now)
	env WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
		CUDA_VISIBLE_DEVICES= timeout $((6 * T)) $M run --allow-no-cuda --timeout "$T" "$J" \
		>"$tmp/t1.out" 2>&1 &
	p1=$!
	env WORLD_SIZE=2 RANK=0 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
		timeout $((6 * T)) $M run $warm --timeout "$T" "$J" >"$tmp/t0.out" 2>&1
	rc=$?
	wait $p1
	took=$(($(now) - start))
	sed 's/^/# rank 0: /' "$tmp/t0.out" | grep -v ' ok ' | tail -n 4
	figure "forced timeout: exit $rc after $took s (--timeout $T)"
	[ $rc = 75 ] && [ $took -lt $((6 * T)) ] &&
		grep -q "NCCL world communicator not created within $T s (ncclCommAbort): .*did not finish; never started: 1" "$tmp/t0.out"
	result "forced timeout: abort, the missing rank named" $?
else
	result "forced timeout" 77 "no time left in the budget"
fi

# ---- 6, 7. a rank stopped mid-sweep, and as verify starts ----
# stop_run NAME PATTERN ARGS...: two ranks on one GPU; once rank 0's log
# matches PATTERN, rank 1 is stopped (SIGSTOP; PATTERN "-": it stops itself,
# MCINIT_FAULT in two_env); rank 0 must exit 75 within 4 x --timeout.  A
# hang here is the teardown freeing before it aborts.
stop_run() {
	name=$1 pat=$2
	shift 2
	two_start "$name" $((8 * T)) --timeout "$T" "$@"
	start=$(now)
	victim=
	[ "$pat" = - ] && sleep 0.5 && victim=$(pgrep -P $p1 | head -n 1) && stopped=$victim
	while [ $(($(now) - start)) -lt $((6 * T)) ] && kill -0 $p0 2>/dev/null; do
		if [ -z "$victim" ] && cat "$tmp/$name-0.err" "$tmp/$name-0.json" 2>/dev/null | grep -q "$pat"; then
			# timeout's child is rank 1's mcinit (unshare and sh exec)
			victim=$(pgrep -P $p1 | head -n 1)
			[ -n "$victim" ] && kill -STOP "$victim" && stopped=$victim
			figure "$name: rank 1 (pid $victim) stopped after $(($(now) - start)) s"
		fi
		sleep 0.1
	done
	wait $p0
	rc=$?
	took=$(($(now) - start))
	[ -n "$victim" ] && kill -CONT "$victim" 2>/dev/null && kill -KILL "$victim" 2>/dev/null
	stopped=
	wait $p1 2>/dev/null
	cat "$tmp/$name-0.err" "$tmp/$name-0.json" | sed 's/^/# rank 0: /' | grep -v ' ok \| bandwidth ' | tail -n 3
	figure "$name: rank 0 exit $rc after $took s (--timeout $T)"
	[ -n "$victim" ] && [ $rc = 75 ] && [ $took -le $((4 * T + 10)) ]
}
if [ -z "$ns" ]; then
	result "a rank stopped mid-sweep" 77 "no UTS namespace for two ranks on one GPU"
	result "a rank stopped as verify starts" 77 "no UTS namespace for two ranks on one GPU"
else
	if fits $((8 * T)); then
		# on the double, each group's launch slowed to 5 ms: a sweep of seconds, as a GPU's
		# (text: the progress lines say when the world's 64 MiB is done)
		two_env=${dry:+MCDOUBLE_LAUNCH_US=5000} two_fmt=
		stop_run sweep-stop 'bandwidth world .* 65536 KiB' --bandwidth
		rc=$?
		two_env= && unset two_fmt
		result "a rank stopped mid-sweep (after the world's 64 MiB): rank 0 exits 75, no hang" $rc
	else
		result "a rank stopped mid-sweep" 77 "no time left in the budget"
	fi
	if fits $((8 * T)); then
		# rank 1 blocks as its verify phase begins (mcinit's own fault point)
		two_env=MCINIT_FAULT=1:verify:hang
		stop_run verify-stop -
		rc=$?
		two_env=
		result "a rank stopped as verify starts: rank 0 exits 75, no hang" $rc
	else
		result "a rank stopped as verify starts" 77 "no time left in the budget"
	fi
fi

# ---- 8. the summary ----
figure "total: $(($(now) - T_START)) s of a $BUDGET s budget; everything is in $OUT"
echo "---- figures ----"
cat "$tmp/figures"
echo "SUMMARY: $npass passed, $nfail failed, $nskip skipped"
[ $nfail = 0 ]
