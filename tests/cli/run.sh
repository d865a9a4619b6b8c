#!/bin/sh
# CLI tests for `mcinit run` on the CPU path (no GPU here): the launcher with
# 1, 2, 8 and 64 local ranks, the JSON report, the environment contracts,
# timeouts that name the missing rank, a rank started with another config,
# the job token, two launchers meeting over loopback, a worker killed at
# random and a launcher killed with SIGKILL (nothing may be left running).
# Every wait here is bounded: `timeout` around each command.
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT LOCAL_WORLD_SIZE GROUP_RANK TORCHELASTIC_USE_AGENT_STORE \
	TORCHELASTIC_ERROR_FILE MCINIT_STORE_TOKEN MCINIT_LAUNCHED SLURM_NODELIST OMPI_COMM_WORLD_RANK \
	2>/dev/null || true

M=$MCINIT
J=topology-model.json
# Under ASan/UBSan (quickstart's second pass) a rank takes many seconds to
# load its config: every limit here scales with $slow there.
slow=1
if ldd "$MCINIT" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	slow=10
fi
T="timeout -k 5 $((60 * slow))"
W=$((100 * slow)) # tenths of a second to wait for workers to start
TO=$((20 * slow)) # --timeout for runs that should not time out
# A free TCP port on loopback (bound and released: good enough for a test).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# ok_json FILE N: the report says ok, N ranks, every phase ok or skipped.
ok_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["ok"] is True, d.get("error")
assert d["world_size"] == n and len(d["ranks"]) == n, (d["world_size"], len(d["ranks"]))
assert sorted(r["rank"] for r in d["ranks"]) == list(range(n))
for r in d["ranks"]:
    for p in r["phases"]:
        assert p["status"] in ("ok", "skipped"), (r["rank"], p)
names = [p["name"] for p in d["phases"]]
assert names == ["config", "env", "rendezvous", "device", "world", "groups", "verify",
                 "seeds", "kernels", "tp-comm", "ready"], names
for p in d["phases"]:
    assert 0 <= p["slowest_rank"] < n
PY
}

for n in 1 2 8 64; do
	if [ "$n" = 64 ] && [ "$slow" != 1 ]; then
		skip "run-launcher-$n-ranks" "64 sanitized ranks on this machine take minutes"
		skip "run-launcher-$n-json" "64 sanitized ranks on this machine take minutes"
		continue
	fi
	check "run-launcher-$n-ranks" sh -c "$T $M run --allow-no-cuda --nproc-per-node $n --timeout $((30 * slow)) $J --format=json >$tmp/r$n.json"
	check "run-launcher-$n-json" ok_json "$tmp/r$n.json" "$n"
done

# Text mode: rank 0's progress lines with the [rank 0] prefix, one per phase.
check run-text-progress sh -c "$T $M run --allow-no-cuda --nproc-per-node 2 $J >$tmp/t.out 2>&1 &&
	grep -c '^\[rank 0\] mcinit run: [a-z-]* *\(ok\|skipped\)' $tmp/t.out | grep -qx 11"
check run-report-file sh -c "$T $M run --allow-no-cuda --nproc-per-node 2 $J --report $tmp/rep.json >/dev/null 2>&1 &&
	python3 -c 'import json; d=json.load(open(\"$tmp/rep.json\")); assert d[\"ok\"] and len(d[\"ranks\"]) == 2'"

# No GPU and no --allow-no-cuda: 69, at once, with the way out in the message.
# Its reason depends on the build (gpu-none.c: built without CUDA; gpu-cuda.c
# here: cudaErrorInsufficientDriver, no driver), so the golden files hold
# gpu-none's text and a CUDA build checks its own.
if $M --version 2>/dev/null | grep -q 'GPU backend: *none'; then
	golden run-no-cuda-launcher 69 $M run --nproc-per-node 2 $J
	# (stdout has the progress lines with their timings: only stderr is golden)
	golden run-no-cuda-single 69 sh -c "$M run $J >/dev/null"
else
	for w in "--nproc-per-node 2" ""; do
		check "run-no-cuda-cuda-build${w:+-launcher}" sh -c "$M run $w $J >/dev/null 2>$tmp/nc.err
			rc=\$?; cat $tmp/nc.err; [ \$rc = 69 ] &&
			grep -q 'no CUDA device (no \\(NVIDIA driver\\|device\\): cudaGetDeviceCount gave cudaError\\(InsufficientDriver\\|NoDevice\\)): pass --allow-no-cuda' $tmp/nc.err"
	done
fi
# A single process with a job for 8: a clear usage error.
golden run-single-world-mismatch 64 sh -c "$M run --allow-no-cuda $J --world-size 8 >/dev/null"
# dist.nccl_communicator_config_path is read in the config phase, on the CPU
# path too: a bad value fails before anything starts, located; a key Megatron
# ignores is a located warning.
check run-nccl-config-warns sh -c "$M run --allow-no-cuda $J \
	dist.nccl_communicator_config_path=nccl-comm.yaml 'dist.high_priority_stream_groups=[\"ep\"]' \
	>$tmp/nc.out 2>&1 && cat $tmp/nc.out &&
	grep -q 'warning: nccl-comm.yaml:5:3: tp.is_high_priorty_stream: not an option Megatron reads' $tmp/nc.out"
check run-nccl-config-bad sh -c "$M run --allow-no-cuda $J dist.nccl_communicator_config_path=nccl-comm-bad.yaml \
	>$tmp/nb.out 2>&1; rc=\$?; cat $tmp/nb.out; [ \$rc != 0 ] &&
	grep -q 'config .*nccl-comm-bad.yaml:3:3: tp: min_ctas 8 is above max_ctas 4' $tmp/nb.out &&
	! grep -q 'rendezvous' $tmp/nb.out"
check run-nccl-config-missing sh -c "$M run --allow-no-cuda $J dist.nccl_communicator_config_path=no-such.yaml \
	>$tmp/nm.out 2>&1; rc=\$?; cat $tmp/nm.out; [ \$rc != 0 ] && grep -q 'nccl_communicator_config_path: ' $tmp/nm.out"
golden run-invalid-job 1 $M run --allow-no-cuda --nproc-per-node 2 $J model.num_layers=7 model.pipeline_model_parallel_size=2
golden run-nproc-under-torchrun 64 env RANK=0 WORLD_SIZE=1 $M run --allow-no-cuda --nproc-per-node 2 $J

# A missing rank: rank 0 alone exits 75 within the timeout and names rank 1.
P=$(free_port)
check run-timeout-names-missing sh -c "
	start=\$(date +%s)
	WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P $T $M run --allow-no-cuda --timeout 3 $J >$tmp/to.out 2>&1
	rc=\$?; end=\$(date +%s)
	cat $tmp/to.out
	[ \$rc = 75 ] && [ \$((end - start)) -le $((5 * slow)) ] && grep -q 'rendezvous failed *[23]\.[0-9]* s  rank 1 never arrived' $tmp/to.out"
P=$(free_port)
check run-timeout-rank0-missing sh -c "
	WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P $T $M run --allow-no-cuda --timeout 2 $J >$tmp/to1.out 2>&1
	rc=\$?; cat $tmp/to1.out; [ \$rc = 75 ] && grep -q 'rank 0 never arrived' $tmp/to1.out"
# Three of four arrive: every one of them names rank 2.
P=$(free_port)
check run-timeout-all-name-it sh -c "
	for r in 0 1 3; do
		WORLD_SIZE=4 RANK=\$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$P $T $M run --allow-no-cuda --timeout 3 $J >$tmp/m\$r.out 2>&1 &
	done
	fails=0
	for j in 1 2 3; do wait %\$j || [ \$? = 75 ] || fails=1; done
	cat $tmp/m0.out $tmp/m1.out $tmp/m3.out
	[ \$fails = 0 ] && grep -q 'rank 2 never arrived' $tmp/m0.out && grep -q 'rank 2 never arrived' $tmp/m1.out && grep -q 'rank 2 never arrived' $tmp/m3.out"

# A rank started with a different config is named by every rank (exit 1).
P=$(free_port)
check run-config-mismatch-named sh -c "
	WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P $T $M run --allow-no-cuda --timeout $TO $J >$tmp/c0.out 2>&1 &
	WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P $T $M run --allow-no-cuda --timeout $TO $J train.train_iters=99 >$tmp/c1.out 2>&1
	r1=\$?; wait %1; r0=\$?
	cat $tmp/c0.out $tmp/c1.out
	[ \$r0 = 1 ] && [ \$r1 = 1 ] && grep -q 'rank 1 was started with a different config' $tmp/c0.out &&
		grep -q 'rank 1 was started with a different config' $tmp/c1.out"

# Slurm's contract: two tasks on one node, ranks from SLURM_PROCID, the
# master from the node list, the port from MASTER_PORT.
P=$(free_port)
check run-slurm-contract sh -c "
	for r in 0 1; do
		SLURM_PROCID=\$r SLURM_NTASKS=2 SLURM_LOCALID=\$r SLURM_NODEID=0 SLURM_NNODES=1 \
		SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE='2' SLURM_JOB_ID=77 MASTER_PORT=$P \
		$T $M run --allow-no-cuda --timeout $TO $J >$tmp/s\$r.out 2>&1 &
	done
	wait %1 && wait %2 && grep -q 'slurm: rank 0 of 2, local 0 of 2, node 0 of 1, store localhost:$P' $tmp/s0.out"
# Open MPI's: no master address is an error; with MASTER_ADDR it runs.
golden run-mpi-no-master 64 sh -c "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 $M run --allow-no-cuda $J >/dev/null"
P=$(free_port)
check run-mpi-contract sh -c "
	for r in 0 1; do
		OMPI_COMM_WORLD_RANK=\$r OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=\$r \
		OMPI_COMM_WORLD_LOCAL_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P \
		$T $M run --allow-no-cuda --timeout $TO $J >$tmp/o\$r.out 2>&1 &
	done
	wait %1 && wait %2 && grep -q 'openmpi: rank 0 of 2' $tmp/o0.out"

# The job token: a store that wants one refuses a rank with the wrong one.
P=$(free_port)
check run-wrong-token-refused sh -c "
	MCINIT_STORE_TOKEN=right $T $M store --host 127.0.0.1 --port $P --quiet & s=\$!
	RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P TORCHELASTIC_USE_AGENT_STORE=True \
		MCINIT_STORE_TOKEN=wrong $T $M run --allow-no-cuda --timeout $((5 * slow)) $J >$tmp/tok.out 2>&1
	rc=\$?
	RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P TORCHELASTIC_USE_AGENT_STORE=True \
		MCINIT_STORE_TOKEN=right $T $M run --allow-no-cuda --timeout $((5 * slow)) $J >$tmp/tok2.out 2>&1
	rc2=\$?
	kill \$s; wait \$s
	cat $tmp/tok.out; [ \$rc = 69 ] && grep -q 'token was refused' $tmp/tok.out && [ \$rc2 = 0 ]"

# Two launchers, --nnodes 2, meeting over loopback.
P=$(free_port)
check run-two-launchers sh -c "
	MCINIT_STORE_TOKEN=shared $T $M run --allow-no-cuda --nnodes 2 --node-rank 1 --nproc-per-node 2 \
		--master-addr 127.0.0.1 --master-port $P --timeout $TO $J >$tmp/n1.out 2>&1 &
	MCINIT_STORE_TOKEN=shared $T $M run --allow-no-cuda --nnodes 2 --node-rank 0 --nproc-per-node 2 \
		--master-addr 127.0.0.1 --master-port $P --timeout $TO $J --format=json >$tmp/n0.json 2>$tmp/n0.err
	r0=\$?; wait %1; r1=\$?
	cat $tmp/n0.err $tmp/n1.out
	[ \$r0 = 0 ] && [ \$r1 = 0 ] && python3 -c 'import json; d=json.load(open(\"$tmp/n0.json\")); assert d[\"ok\"] and len(d[\"ranks\"]) == 4 and {r[\"node_rank\"] for r in d[\"ranks\"]} == {0, 1}'"

# A worker killed at random: the job stops, the rank is named, nothing left.
mark="97.$$"
check run-worker-killed sh -c "
	$T $M run --allow-no-cuda --nproc-per-node 4 --grace 2 $J -- sleep $mark >$tmp/k.out 2>&1 & l=\$!
	i=0; while [ \$(pgrep -fc '^sleep $mark') -lt 4 ] && [ \$i -lt $W ]; do sleep 0.1; i=\$((i+1)); done
	victim=\$(pgrep -f '^sleep $mark' | shuf -n 1)
	kill -9 \$victim
	wait \$l; rc=\$?
	sleep 0.2
	cat $tmp/k.out
	[ \$rc = 137 ] && grep -q 'root cause: rank [0-3] (pid '\$victim') was killed by signal 9' $tmp/k.out &&
		! pgrep -f '^sleep $mark'"
# The launcher killed with SIGKILL: no worker survives, not even what a
# hand-over command forked, and its directory of error files goes too.
mkdir "$tmp/kd"
mark="98.$$"
check run-launcher-sigkilled sh -c "
	TMPDIR=$tmp/kd $T $M run --allow-no-cuda --nproc-per-node 3 $J -- sh -c 'sleep $mark & wait' >$tmp/l.out 2>&1 & l=\$!
	i=0; while [ \$(pgrep -fc '^sleep $mark') -lt 3 ] && [ \$i -lt $W ]; do sleep 0.1; i=\$((i+1)); done
	[ \$(pgrep -fc '^sleep $mark') = 3 ] || { echo not started; cat $tmp/l.out; exit 1; }
	kill -9 \$(pgrep -P \$l -f 'mcinit|timeout' | head -1) 2>/dev/null; kill -9 \$l
	i=0; while pgrep -f '^sleep $mark' >/dev/null && [ \$i -lt $((W / 2)) ]; do sleep 0.1; i=\$((i+1)); done
	! pgrep -f '^sleep $mark' && sleep 0.2 && [ -z \"\$(ls -A $tmp/kd)\" ]"
# SIGTERM to the launcher is forwarded; it exits 128 + 15 and leaves nothing.
mark="96.$$"
check run-sigterm-forwarded sh -c "
	$M run --allow-no-cuda --nproc-per-node 2 $J -- sleep $mark >$tmp/st.out 2>&1 & l=\$!
	i=0; while [ \$(pgrep -fc '^sleep $mark') -lt 2 ] && [ \$i -lt $W ]; do sleep 0.1; i=\$((i+1)); done
	kill -TERM \$l; wait \$l; rc=\$?
	[ \$rc = 143 ] && ! pgrep -f '^sleep $mark' && grep -q 'stopped by signal 15' $tmp/st.out"

# A worker that leaves a daemon (setsid: out of the worker's process group)
# holding its stdout: the launcher waits for its workers, not their pipes.
# It exits within the grace period with the worker's status and what the
# daemon wrote before it, and the daemon is left to whoever started it.
mark="91.$$"
check run-daemon-holds-pipe sh -c "
	$T $M run --allow-no-cuda --nproc-per-node 1 --timeout $TO $J -- sh -c 'setsid sh -c \"echo daemon-says-hi; echo \\\$\\\$ >$tmp/dpid; exec sleep $mark\" & sleep 0.3; echo worker-done' >$tmp/dh.out 2>&1 & l=\$!
	i=0; while kill -0 \$l 2>/dev/null && [ \$i -lt $((W / 2 + 50)) ]; do sleep 0.1; i=\$((i+1)); done
	if kill -0 \$l 2>/dev/null; then kill -9 \$l; st=hung; else wait \$l; st=\$?; fi
	[ -s $tmp/dpid ] && kill -9 \$(cat $tmp/dpid) 2>/dev/null
	echo \"status \$st\"; cat $tmp/dh.out
	[ \"\$st\" = 0 ] && grep -q 'worker-done' $tmp/dh.out && grep -q 'daemon-says-hi' $tmp/dh.out"
# ... and so does SIGTERM: forwarded, then out within the grace period.
mark="92.$$"
check run-daemon-holds-pipe-sigterm sh -c "
	$M run --allow-no-cuda --nproc-per-node 1 --timeout $TO $J -- sh -c 'setsid sh -c \"echo \\\$\\\$ >$tmp/dpid2; exec sleep $mark\" & exec sleep 1$mark' >$tmp/dt.out 2>&1 & l=\$!
	i=0; while ! pgrep -f '^sleep 1$mark' >/dev/null && [ \$i -lt $W ]; do sleep 0.1; i=\$((i+1)); done
	kill -TERM \$l
	i=0; while kill -0 \$l 2>/dev/null && [ \$i -lt $((W / 2 + 50)) ]; do sleep 0.1; i=\$((i+1)); done
	if kill -0 \$l 2>/dev/null; then kill -9 \$l; st=hung; else wait \$l; st=\$?; fi
	[ -s $tmp/dpid2 ] && kill -9 \$(cat $tmp/dpid2) 2>/dev/null
	echo \"status \$st\"; [ \"\$st\" = 143 ]"

# The hand-over: each worker execs the command with the contract in place.
check run-handover-contract sh -c "$T $M run --allow-no-cuda --nproc-per-node 2 $J -- sh -c 'echo \"R=\$RANK W=\$WORLD_SIZE L=\$LOCAL_RANK A=\$TORCHELASTIC_USE_AGENT_STORE\"' >$tmp/h.out 2>&1 &&
	grep -q '^\[rank 1\] R=1 W=2 L=1 A=True' $tmp/h.out && grep -q '^\[rank 0\] R=0 W=2 L=0 A=True' $tmp/h.out"
# --append-megatron-args: the job's flags as Megatron-LM's argparse reads
# them (store_false spelled --no-..., type=bool false left out).
check run-append-megatron-args sh -c "$T $M run --allow-no-cuda --append-megatron-args $J model.tensor_model_parallel_size=1 \
	model.overlap_p2p_comm=false dist.lazy_mpu_init=false -- sh -c 'echo \"ARGS \$*\"' sh >$tmp/ma.out 2>&1;
	grep -q '^ARGS .*--tensor-model-parallel-size 1 .*--no-overlap-p2p-communication' $tmp/ma.out &&
	grep -q -- '--num-layers 8' $tmp/ma.out && ! grep -q lazy-mpu-init $tmp/ma.out"
# A failing command: its status, its rank named.
check run-handover-fails sh -c "$T $M run --allow-no-cuda --nproc-per-node 2 $J -- sh -c '[ \$RANK = 1 ] && exit 3; sleep 5' >$tmp/hf.out 2>&1;
	[ \$? = 3 ] && grep -q 'root cause: rank 1 (pid [0-9]*) exited with status 3' $tmp/hf.out"

# --lazy-mpu-init is dist.lazy_mpu_init, one switch: the same resolved
# config (use_cpu_initialization turned on by its rule) and so the same
# digest, whichever way it is asked for.
check run-lazy-flag-is-the-config-field sh -c "
	a=\$($T $M run --allow-no-cuda --lazy-mpu-init $J 2>&1 | sed -n 's/.*config digest \\([0-9a-f]*\\).*/\\1/p')
	b=\$($T $M run --allow-no-cuda $J dist.lazy_mpu_init=true 2>&1 | sed -n 's/.*config digest \\([0-9a-f]*\\).*/\\1/p')
	echo \"flag \$a, field \$b\"; [ -n \"\$a\" ] && [ \"\$a\" = \"\$b\" ]"
# Lazy MPU init: the distributed phases are deferred, or run with --finish-lazy.
check run-lazy-deferred sh -c "$T $M run --allow-no-cuda --lazy-mpu-init $J --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {p[\"name\"]: p[\"status\"] for p in d[\"phases\"]}
assert st[\"config\"] == \"ok\" and st[\"env\"] == \"ok\", st
assert all(st[p] == \"deferred\" for p in (\"rendezvous\", \"device\", \"world\", \"groups\", \"verify\", \"seeds\", \"ready\")), st'"
check run-lazy-finish sh -c "$T $M run --allow-no-cuda --nproc-per-node 2 --lazy-mpu-init --finish-lazy $J --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {p[\"name\"]: p[\"status\"] for p in d[\"phases\"]}
assert d[\"ok\"] and st[\"rendezvous\"] == \"ok\" and st[\"groups\"] == \"ok\" and st[\"ready\"] == \"ok\", st'"

# Under torchrun, a failing worker writes torchelastic's error file.
P=$(free_port)
check run-error-file sh -c "
	WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P TORCHELASTIC_ERROR_FILE=$tmp/err.json \
		$T $M run --allow-no-cuda --timeout 1 $J >/dev/null 2>&1
	python3 -c 'import json; d=json.load(open(\"$tmp/err.json\")); m=d[\"message\"]; assert \"rank 1 never arrived\" in m[\"message\"], m; int(m[\"extraInfo\"][\"timestamp\"]); assert \"py_callstack\" in m[\"extraInfo\"]'"
# ... and so does a config that does not validate, the commonest failure:
# torchrun's root-cause summary shows the first error, not a blank.
check run-error-file-invalid-config sh -c "
	WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P TORCHELASTIC_ERROR_FILE=$tmp/err2.json \
		$T $M run --allow-no-cuda $J model.tensor_model_parallel_size=3 >/dev/null 2>&1
	test \$? -eq 1 &&
	python3 -c 'import json; m=json.load(open(\"$tmp/err2.json\"))[\"message\"][\"message\"]; assert m.startswith(\"rank 0: config: invalid job: MC010 \") and m.endswith(\"(+1 more)\"), m'"

# Under srun there is no error file: the first line a failing rank writes
# to stderr says its rank, the phase and the reason, whatever failed.
# first_line NAME RC WANT ENV... -- ARGS...: rank 3 of a Slurm-like step of 4.
first_line() {
	name=$1 rc=$2 want=$3
	shift 3
	check "$name" sh -c "env SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_LOCALID=3 SLURM_NODEID=0 \
		SLURM_JOB_NODELIST=127.0.0.1 SLURM_JOB_ID=4242 $* >/dev/null 2>$tmp/fl.err; rc=\$?
		head -n 1 $tmp/fl.err; [ \$rc = $rc ] && head -n 1 $tmp/fl.err | grep -q '$want'"
}
first_line run-srun-first-line-invalid-config 1 \
	'^mcinit run: rank 3: config: invalid job: MC010 world size 4 (from the slurm environment) is not divisible by TP x PP x CP = 3 x 1 x 1 = 3 (+1 more)$' \
	$T $M run --allow-no-cuda $J model.tensor_model_parallel_size=3
# the launcher's own check names where its world came from, too
check run-launcher-world-source sh -c "$T $M run --allow-no-cuda --nproc-per-node 2 $J model.tensor_model_parallel_size=3 2>&1 >/dev/null |
	head -n 1 | grep '^mcinit run: config: invalid job: MC010 world size 2 (from --nnodes x --nproc-per-node) is not divisible'"
first_line run-srun-first-line-bad-env 65 \
	'^mcinit run: rank 3: env: SLURM_NTASKS=.x. is not an integer in \[1, 1000000000\]$' \
	SLURM_NTASKS=x $T $M run --allow-no-cuda $J
first_line run-srun-first-line-world-mismatch 65 \
	'^mcinit run: rank 3: env: the slurm environment has a world of 4 rank(s) but the job says 8 (from --world-size)$' \
	$T $M run --allow-no-cuda $J --world-size 8
first_line run-srun-first-line-timeout 75 \
	'^mcinit run: rank 3: rendezvous: rank 0 never arrived: no store at 127.0.0.1:[0-9]* within 1 s' \
	MASTER_PORT=$(free_port) $T $M run --allow-no-cuda --timeout 1 $J
first_line run-srun-first-line-device 69 \
	'^mcinit run: rank 3: device: no CUDA device' \
	$T $M run $J
first_line run-srun-first-line-handover 127 \
	'^mcinit run: rank 0: hand-over: cannot run ./no-such-program: No such file or directory$' \
	SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_LOCALID=0 $T $M run --allow-no-cuda $J -- ./no-such-program

finish
