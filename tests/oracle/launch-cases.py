#!/usr/bin/env python3
"""Turns launch scripts into cases of the Megatron-LM differential
(megatron-diff.py), judged end to end: each script runs in real bash,
with its `# script-args:` and the environment of its `# oracle-env:`
line, in a copy of its directory, with stand-ins on PATH for the
launchers and wrappers (torchrun, python -m torch.distributed.run,
deepspeed, srun, numactl, nsys, singularity, apptainer, and scontrol's
`show hostnames`).  The stand-ins
do what the real ones do with their options, as documented, and run the
command behind them; python records the words after the entry point and
the world size the launcher gave it.  Each recorded launch of a
pretrain_*.py becomes one case:

    {"name", "world", "flags", "script": PATH}

megatron-diff.py judges "flags" at "world" with Megatron-LM's own
parse_args + validate_args, and mcinit on the script itself, without its
arguments (`mcinit validate SCRIPT`).  Not part of the build.

    launch-cases.py SCRIPT... > CORPUS.jsonl
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

# The stand-ins, one Python program behind every name: what each launcher
# does with its options before it runs the command behind it.
STUB = r'''#!/usr/bin/python3
import json, os, sys

name = os.path.basename(sys.argv[0])
argv = sys.argv[1:]
rec = os.environ["REC_DIR"]


def run(words, env=None):
    os.execvpe(words[0], words, dict(os.environ, **(env or {})))


def options(words, with_value, flags=()):
    """Splits launcher options from the command after them: {opt: value}."""
    got, i = {}, 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        w = words[i]
        if "=" in w and w.startswith("--"):
            k, v = w.split("=", 1)
            got[k] = v
            i += 1
        elif w in with_value:
            got[w] = words[i + 1] if i + 1 < len(words) else ""
            i += 2
        elif len(w) > 2 and not w.startswith("--") and w[:2] in with_value:
            got[w[:2]] = w[2:]
            i += 1
        else:
            got[w] = ""
            i += 1
    if i < len(words) and words[i] == "--":
        i += 1
    return got, words[i:]


def torchrun(words):
    opts, rest = options(words, {"--nproc_per_node", "--nproc-per-node", "--nnodes",
                                 "--node_rank", "--node-rank", "--master_addr", "--master-addr",
                                 "--master_port", "--master-port", "--rdzv_backend",
                                 "--rdzv-backend", "--rdzv_endpoint", "--rdzv-endpoint",
                                 "--rdzv_id", "--rdzv-id", "--max_restarts", "--max-restarts",
                                 "--log_dir", "--log-dir", "--redirects", "--tee", "-r", "-t"})
    nproc = opts.get("--nproc_per_node", opts.get("--nproc-per-node", "1"))
    nnodes = opts.get("--nnodes", "1").split(":")[-1]
    world = int(nproc) * int(nnodes)
    run(["python"] + rest, {"WORLD_SIZE": str(world), "LAUNCHED": "1"})


if name == "torchrun":
    torchrun(argv)
elif name in ("python", "python3"):
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-m":
        i += 1
    if argv[i:i + 2] in (["-m", "torch.distributed.run"], ["-m", "torch.distributed.launch"]):
        torchrun(argv[i + 2:])
    words = argv[i:]
    world = os.environ.get("WORLD_SIZE") if os.environ.get("LAUNCHED") else \
        os.environ.get("SRUN_NTASKS", "1")
    n = len(os.listdir(rec))
    with open(os.path.join(rec, "%d.json" % n), "w") as f:
        json.dump({"entry": words[0] if words else "", "flags": words[1:],
                   "world": int(world)}, f)
elif name == "deepspeed":
    opts, rest = options(argv, {"--num_gpus", "--num_nodes", "--master_port", "--master_addr",
                                "--hostfile", "-H", "--include", "-i", "--exclude", "-e",
                                "--launcher", "--node_rank"})
    world = int(opts.get("--num_gpus", "1")) * int(opts.get("--num_nodes", "1"))
    run(["python"] + rest, {"WORLD_SIZE": str(world), "LAUNCHED": "1"})
elif name == "srun":
    opts, rest = options(argv, {"-n", "--ntasks", "-N", "--nodes", "--ntasks-per-node", "-c",
                                "--cpus-per-task", "--mpi", "-o", "-e", "-J", "--gres",
                                "--gpus-per-node", "--container-image", "--container-mounts"})
    n = opts.get("-n", opts.get("--ntasks"))
    if n is None and "--ntasks-per-node" in opts:
        n = int(opts.get("-N", opts.get("--nodes", os.environ.get("SLURM_NNODES", "1")))) * \
            int(opts["--ntasks-per-node"])
    n = n or os.environ.get("SLURM_NTASKS", "1")
    run(rest, {"SRUN_NTASKS": str(n)})
elif name == "scontrol":  # show hostnames LIST: one per line (node[01-02] only)
    import re
    m = re.fullmatch(r"(\w+)\[(\d+)-(\d+)\]", argv[2])
    print("\n".join("%s%0*d" % (m[1], len(m[2]), k) for k in range(int(m[2]), int(m[3]) + 1)))
elif name == "numactl":
    run(options(argv, {"-N", "-m", "-C", "-p"})[1])
elif name == "nsys":
    assert argv[0] == "profile"
    run(options(argv[1:], {"-t", "--trace", "-o", "--output", "--force-overwrite", "-s",
                           "--sample", "-c", "--capture-range"})[1])
elif name in ("singularity", "apptainer"):
    assert argv[0] in ("exec", "run")
    rest = options(argv[1:], {"-B", "--bind", "--env", "-W", "--workdir"})[1]
    run(rest[1:])
'''

NAMES = ["torchrun", "python", "python3", "deepspeed", "srun", "numactl", "nsys", "singularity",
         "apptainer", "scontrol"]


def header(text, key):
    for line in text.splitlines():
        if line.startswith("# %s: " % key):
            return line[len("# %s: " % key):].strip()
    return ""


def cases(path, stub_dir):
    text = open(path).read()
    args = header(text, "script-args").split()
    env = dict(kv.split("=", 1) for kv in header(text, "oracle-env").split())
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "job")
        shutil.copytree(os.path.dirname(os.path.abspath(path)), work)
        rec = os.path.join(tmp, "rec")
        os.mkdir(rec)
        full = dict(PATH=stub_dir + ":/usr/bin:/bin", HOME=tmp, REC_DIR=rec, **env)
        p = subprocess.run(["bash", os.path.basename(path)] + args, cwd=work, env=full,
                           capture_output=True, text=True, timeout=60)
        got = [json.load(open(os.path.join(rec, f)))
               for f in sorted(os.listdir(rec), key=lambda f: int(f.split(".")[0]))]
    for k, g in enumerate(got):
        if os.path.basename(g["entry"]).startswith("pretrain_"):
            yield {"name": "%s#%d" % (os.path.basename(path), k), "world": g["world"],
                   "flags": g["flags"], "script": os.path.abspath(path),
                   "bash_status": p.returncode}


def main():
    with tempfile.TemporaryDirectory() as stub_dir:
        for n in NAMES:
            with open(os.path.join(stub_dir, n), "w") as f:
                f.write(STUB)
            os.chmod(os.path.join(stub_dir, n), 0o755)
        for path in sys.argv[1:]:
            for c in cases(path, stub_dir):
                print(json.dumps(c))


if __name__ == "__main__":
    main()
