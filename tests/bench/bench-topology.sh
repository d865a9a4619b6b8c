#!/bin/sh
# Rank-group benchmark (issue 4).  First Megatron-Core's own generator, when
# MEGATRON_PYTHON (default python3) has megatron-core, numpy and einops:
# initialize_model_parallel with torch.distributed stubbed
# (tests/bench/topology-reference.py) at 65,536 and 262,144 ranks, in memory
# and as a whole process writing the groups as JSON.  Then mcinit's
# generator alone (bench-topology: in memory, JSON to /dev/null, JSON in a
# buffer), then the whole `mcinit topology --format=json` process writing to
# /dev/null at 65,536, 262,144 and 1,048,576 ranks (TP 8, PP 16, CP 2, EP 8,
# ETP 1, hierarchical CP [2], two optimizer instances: 24 kinds on main; 8
# ranks per node): median wall time of 3 runs, CPU time, peak RSS of the
# process (from wait4's rusage), output size, and the speed-up over
# Megatron-Core measured in this run (CPU time against CPU time: a loaded
# machine blurs it less than wall time).
# Needs MCINIT and srcdir; BENCH_BUILD is the build directory holding
# tests/bench/bench-topology (skipped when it is not built).
set -eu
: "${MCINIT:?}" "${srcdir:?}"
prog="${BENCH_BUILD:-.}/tests/bench/bench-topology"
py=${MEGATRON_PYTHON:-python3}
ref_memory="" ref_whole=""
if ps=$("$py" -c 'import os, sys
import numpy, einops
print(next(p for p in (os.path.join(d, "megatron", "core", "parallel_state.py") for d in sys.path) if os.path.isfile(p)))' 2>/dev/null); then
	echo "Megatron-Core's initialize_model_parallel ($ps), same job:"
	for world in 65536 262144; do
		out=$(python3 - "$py" "$srcdir/tests/bench/topology-reference.py" "$ps" "$world" <<'PY'
import os, subprocess, sys, time
py, script, ps, world = sys.argv[1:]
t = time.perf_counter()
p = subprocess.Popen([py, script, ps, world, "--json"], stdout=subprocess.PIPE, text=True)
line = p.stdout.read()
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(f"topology-reference.py at {world} ranks failed")
_, mwall, mcpu, ngroups = line.split()
print(world, mwall, mcpu, ngroups, f"{wall:.3f}", f"{ru.ru_utime + ru.ru_stime:.3f}")
PY
)
		set -- $out
		printf '%9s ranks: in memory %s s wall, %s s CPU (%s groups); whole process with JSON %s s wall, %s s CPU\n' \
			"$1" "$2" "$3" "$4" "$5" "$6"
		ref_memory="$ref_memory${ref_memory:+,}$1=$3"
		ref_whole="$ref_whole${ref_whole:+,}$1=$6"
	done
	echo
else
	echo "(Megatron-Core not measured: $py lacks megatron-core, numpy or einops; set MEGATRON_PYTHON)"
	echo
fi
if [ -x "$prog" ]; then
	if [ -n "$ref_memory" ]; then
		MCINIT_TOPOLOGY_REFERENCE=$ref_memory "$prog"
	else
		"$prog"
	fi
else
	echo "($prog not built: generator benchmark skipped)"
fi
echo
python3 - "$MCINIT" "$ref_whole" <<'PY'
import json, os, statistics, subprocess, sys, time

mcinit = sys.argv[1]
job = ["model.tensor_model_parallel_size=8", "model.pipeline_model_parallel_size=16",
       "model.context_parallel_size=2", "model.expert_model_parallel_size=8",
       "model.expert_tensor_parallel_size=1", "model.num_layers=32",
       "model.hidden_size=1024", "model.num_attention_heads=16", "model.seq_length=4096",
       "model.max_position_embeddings=4096", "model.num_moe_experts=8",
       "model.sequence_parallel=true", "model.bf16=true", "train.micro_batch_size=1",
       "model.hierarchical_context_parallel_sizes=[2]",
       "ddp.num_distributed_optimizer_instances=2", "ddp.use_distributed_optimizer=true"]
# Megatron-Core's whole process (CPU seconds), measured above; empty if not
reference = {int(w): float(s) for w, s in
             (kv.split("=") for kv in sys.argv[2].split(",") if kv)}
runs = 3


def argv(world):
    return [mcinit, "topology", "--world-size", str(world), "--nproc-per-node", "8",
            "--format=json"] + job


def timed(world):
    """Wall time of one run writing to /dev/null, its rusage peak RSS (KiB) and CPU time.
    That peak includes what the spawning process had resident (Linux keeps
    the pre-exec high-water mark), so peak_rss() prefers /usr/bin/time."""
    with open(os.devnull, "wb") as null:
        t = time.perf_counter()
        p = subprocess.Popen(argv(world), stdout=null, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"mcinit topology at {world} ranks exited {os.waitstatus_to_exitcode(status)}")
    return elapsed, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def peak_rss(world, fallback):
    """Peak RSS in KiB from /usr/bin/time -f %M, else the rusage figure."""
    if not os.access("/usr/bin/time", os.X_OK):
        return fallback, "rusage, includes python"
    with open(os.devnull, "wb") as null:
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv(world), stdout=null,
                           stderr=subprocess.PIPE, text=True)
    try:
        return int(r.stderr.strip().splitlines()[-1]), "/usr/bin/time"
    except (ValueError, IndexError):
        return fallback, "rusage, includes python"


def output_bytes(world):
    p = subprocess.Popen(argv(world), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    while chunk := p.stdout.read(1 << 20):
        n += len(chunk)
    if p.wait() != 0:
        sys.exit(f"mcinit topology at {world} ranks exited {p.returncode}")
    return n


# The output is checked once, at the smallest size, before anything is timed.
doc = json.loads(subprocess.run(argv(65536), capture_output=True, check=True).stdout)
assert doc["world_size"] == 65536 and len(doc["ranks"]) == 65536 and len(doc["groups"]) == 24
del doc

print(f"whole process: mcinit topology --format=json > /dev/null; TP 8, PP 16, CP 2, EP 8, "
      f"ETP 1; median of {runs}")
print(f"{'ranks':>9}  {'median s':>9} {'min s':>8} {'CPU s':>8} {'output':>9} {'peak RSS':>9}"
      f"  vs Megatron (CPU)")
how = ""
for world in (65536, 262144, 1048576):
    samples = [timed(world) for _ in range(runs)]
    times = [s[0] for s in samples]
    rss, how = peak_rss(world, max(s[1] for s in samples))
    med = statistics.median(times)
    cpu = statistics.median(s[2] for s in samples)
    ref = reference.get(world)
    vs = f"{ref / max(cpu, 1e-3):.0f}x faster ({ref:.1f} s)" if ref else "-"
    print(f"{world:>9}  {med:9.3f} {min(times):8.3f} {cpu:8.3f} "
          f"{output_bytes(world) / 1e6:7.1f}MB {rss / 1024:7.1f}MB  {vs}")
print(f"(peak RSS from {how})")
PY
