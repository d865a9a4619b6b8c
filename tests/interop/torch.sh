#!/bin/sh
# Interop with the real PyTorch (skipped, exit 77, without it): torch's
# TCPStore client against `mcinit store`, mcinit's client against torch's
# server, `torchrun --no-python ... mcinit run`, and a gloo all_reduce
# program that an mcinit launcher hands over to.
#
# The Python with torch: $MCINIT_TORCH_PYTHON, else python3.  For a run of
# your own: python3 -m venv V && V/bin/pip install torch, then
#   make check TESTS=tests/interop/torch.sh MCINIT_TORCH_PYTHON=$PWD/V/bin/python
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT LOCAL_WORLD_SIZE GROUP_RANK TORCHELASTIC_USE_AGENT_STORE \
	TORCHELASTIC_ERROR_FILE MCINIT_STORE_TOKEN MCINIT_LAUNCHED 2>/dev/null || true

PY=${MCINIT_TORCH_PYTHON:-python3}
if ! "$PY" -c 'import torch.distributed' >/dev/null 2>&1; then
	# (TAP's skip-all: automake's driver counts it as SKIP, as exit 77 elsewhere)
	skip_all "no torch for $PY (set MCINIT_TORCH_PYTHON to a Python with torch)"
fi
# torch's C++ warnings (socket timeouts we cause on purpose) are noise here.
TORCH_CPP_LOG_LEVEL=ERROR
# torchrun leaves a torchelastic_* directory in TMPDIR after a failure:
# this script's own, removed at its end.
TMPDIR=$tmp
export TORCH_CPP_LOG_LEVEL TMPDIR
"$PY" -c 'import torch; print("# torch", torch.__version__)'
M=$MCINIT
IN="$srcdir/tests/interop"
J="$srcdir/tests/cli/inputs/topology-model.json"
T="timeout -k 5 180"

check torch-client-vs-mcinit-store sh -c "$T '$PY' '$IN/store-client.py' '$M' >'$tmp/c.out' 2>&1; rc=\$?; grep -E '^(ok|FAIL) ' '$tmp/c.out'; exit \$rc"
check mcinit-client-vs-torch-server sh -c "$T '$PY' '$IN/torch-server.py' '$M' '$J' >'$tmp/s.out' 2>&1; rc=\$?; grep -E '^(ok|FAIL) ' '$tmp/s.out'; exit \$rc"

# torchrun starts four mcinit workers, which join its agent's store.
check torchrun-no-python sh -c "$T '$PY' -m torch.distributed.run --no-python --nproc-per-node 4 \
	'$M' run --allow-no-cuda --timeout 60 '$J' --format=json >'$tmp/tr.json' 2>'$tmp/tr.err'; rc=\$?
	cat '$tmp/tr.err' | grep -v Warning | tail -n 5
	[ \$rc = 0 ] && '$PY' -c 'import json; d = json.load(open(\"$tmp/tr.json\")); assert d[\"ok\"] and len(d[\"ranks\"]) == 4 and d[\"contract\"] == \"torchrun\", d'"
# A failing worker's message reaches torchrun's own root-cause summary.
check torchrun-root-cause-shows-message sh -c "$T '$PY' -m torch.distributed.run --no-python --nproc-per-node 2 \
	'$M' run '$J' >'$tmp/tf.out' 2>&1; rc=\$?
	[ \$rc != 0 ] && grep -q 'traceback : rank [01]: device: no CUDA device' '$tmp/tf.out' || { tail -n 20 '$tmp/tf.out'; exit 1; }"

# Every class of failure, as torchrun's summary shows it: mcinit's own
# line ("rank R: PHASE: REASON", the line a failing rank also writes first
# on its stderr) is the root cause's traceback.  tr_root NAME GREP ARGS...
tr_root() {
	name=$1 want=$2
	shift 2
	check "torchrun-root-cause-$name" sh -c "$T '$PY' -m torch.distributed.run --no-python --nproc-per-node 2 \
		$* >'$tmp/rc.out' 2>&1; rc=\$?
		grep -A1 'traceback :' '$tmp/rc.out'
		[ \$rc != 0 ] && grep -q 'traceback : $want' '$tmp/rc.out' || { tail -n 20 '$tmp/rc.out'; exit 1; }"
}
# a config that does not validate: the first error and how many more
tr_root invalid-config 'rank [01]: config: invalid job: MC010 world size 2 (from the torchrun environment) is not divisible .* (+1 more)$' \
	"'$M' run --allow-no-cuda --timeout 30 '$J' model.tensor_model_parallel_size=3"
# an environment that contradicts the job: torchrun's world is 2
tr_root bad-environment 'rank [01]: env: the torchrun environment has a world of 2 rank(s) but the job says 4 (from --world-size)$' \
	"'$M' run --allow-no-cuda --timeout 30 '$J' --world-size 4"
# a peer that never arrives: rank 0 names it
tr_root missing-peer 'rank 0: groups: rank 1 never arrived (1 of 2 missing after 8 s)$' \
	"env MCINIT_FAULT=1:groups:stall '$M' run --allow-no-cuda --timeout 8 '$J'"
# a timeout: rank 0 hangs, rank 1's wait for it ends after --timeout
tr_root timeout 'rank 1: [a-z]*: rank 0 never arrived (1 of 2 missing after 6 s)$' \
	"env MCINIT_FAULT=0:verify:hang '$M' run --allow-no-cuda --timeout 6 '$J'"

# mcinit launches, then hands over to a torch program: init_process_group
# ("env://") joins mcinit's store and gloo reduces across the four ranks.
# With "eager": eager init, init_process_group(device_id=...), which binds
# the group to a device and connects at once; on the CPU that is gloo with
# device_id=cpu:0, which torch 2.15.0 accepts (2.9.1 wants an accelerator).
# NCCL's eager init (device_id=cuda:N) needs a GPU and is not run here.
cat >"$tmp/gloo.py" <<'PY'
import sys, torch, torch.distributed as dist
if sys.argv[1:] == ["eager"]:
    try:
        dist.init_process_group("gloo", device_id=torch.device("cpu", 0))
    except ValueError as e:
        print("SKIP torch %s refuses device_id=cpu:0: %s" % (torch.__version__, e))
        raise SystemExit(0)
    assert dist.group.WORLD.bound_device_id == torch.device("cpu", 0)
else:
    dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank())])
dist.all_reduce(t)
n = dist.get_world_size()
assert t.item() == n * (n - 1) / 2, t
print("all_reduce ok: rank %d of %d sum %g" % (dist.get_rank(), n, t.item()))
dist.destroy_process_group()
PY
check handover-gloo-all-reduce sh -c "$T '$M' run --allow-no-cuda --nproc-per-node 4 '$J' -- '$PY' '$tmp/gloo.py' >'$tmp/g.out' 2>&1; rc=\$?
	grep 'all_reduce ok' '$tmp/g.out'; [ \$rc = 0 ] && [ \$(grep -c 'all_reduce ok: rank [0-3] of 4 sum 6' '$tmp/g.out') = 4 ]"
$T "$M" run --allow-no-cuda --nproc-per-node 4 "$J" -- "$PY" "$tmp/gloo.py" eager >"$tmp/e.out" 2>&1
erc=$?
if grep -q 'SKIP torch' "$tmp/e.out" && [ $erc = 0 ]; then
	skip handover-gloo-eager-init "$(grep -m1 -o 'torch [^ ]* refuses device_id=cpu:0' "$tmp/e.out")"
else
	check handover-gloo-eager-init sh -c "grep 'all_reduce ok' '$tmp/e.out'; [ $erc = 0 ] &&
		[ \$(grep -c 'all_reduce ok: rank [0-3] of 4 sum 6' '$tmp/e.out') = 4 ]"
fi
# Without a launcher: two ranks by hand, rank 0 serves the store, then frees
# the port for the program's own rank 0.
P=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check handover-gloo-rank0-store sh -c "
	for r in 0 1; do
		WORLD_SIZE=2 RANK=\$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$P $T '$M' run --allow-no-cuda --timeout 60 '$J' -- '$PY' '$tmp/gloo.py' >$tmp/h\$r.out 2>&1 &
	done
	wait %1 && wait %2 && grep -q 'all_reduce ok: rank 0 of 2 sum 1' '$tmp/h0.out' && grep -q 'all_reduce ok: rank 1 of 2 sum 1' '$tmp/h1.out'"
finish
