#!/bin/sh
# Rank-group benchmark (issue 4).  First the generator alone
# (bench-topology: in memory, JSON to /dev/null, JSON in a buffer), then the
# whole `mcinit topology --format=json` process writing to /dev/null at
# 65,536, 262,144 and 1,048,576 ranks (TP 8, PP 16, CP 2, EP 8, ETP 1,
# hierarchical CP [2], two optimizer instances: 24 kinds on main; 8 ranks
# per node): median wall time of 3 runs, peak RSS of the process (from
# wait4's rusage), output size, and the speed-up over Megatron-Core's Python
# generator (~4 s at 65,536 ranks, ~14 s at 262,144, in memory only).
# Needs MCINIT and srcdir; BENCH_BUILD is the build directory holding
# tests/bench/bench-topology (skipped when it is not built).
set -eu
: "${MCINIT:?}" "${srcdir:?}"
prog="${BENCH_BUILD:-.}/tests/bench/bench-topology"
if [ -x "$prog" ]; then
	"$prog"
else
	echo "($prog not built: generator benchmark skipped)"
fi
echo
python3 - "$MCINIT" <<'PY'
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
reference = {65536: 4.0, 262144: 14.0}  # Megatron-Core's Python RankGenerator, seconds
runs = 3


def argv(world):
    return [mcinit, "topology", "--world-size", str(world), "--nproc-per-node", "8",
            "--format=json"] + job


def timed(world):
    """Wall time of one run writing to /dev/null, and its rusage peak RSS (KiB).
    That peak includes what the spawning process had resident (Linux keeps
    the pre-exec high-water mark), so peak_rss() prefers /usr/bin/time."""
    with open(os.devnull, "wb") as null:
        t = time.perf_counter()
        p = subprocess.Popen(argv(world), stdout=null, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"mcinit topology at {world} ranks exited {os.waitstatus_to_exitcode(status)}")
    return elapsed, ru.ru_maxrss


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
print(f"{'ranks':>9}  {'median s':>9} {'min s':>8} {'output':>9} {'peak RSS':>9}  vs Megatron")
how = ""
for world in (65536, 262144, 1048576):
    samples = [timed(world) for _ in range(runs)]
    times = [s[0] for s in samples]
    rss, how = peak_rss(world, max(s[1] for s in samples))
    med = statistics.median(times)
    ref = reference.get(world)
    vs = f"{ref / med:.0f}x faster (ref ~{ref:.0f} s)" if ref else "-"
    print(f"{world:>9}  {med:9.3f} {min(times):8.3f} {output_bytes(world) / 1e6:7.1f}MB "
          f"{rss / 1024:7.1f}MB  {vs}")
print(f"(peak RSS from {how})")
PY
