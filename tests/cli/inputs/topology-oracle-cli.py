"""Runs `mcinit topology --format=json` on the configurations of an oracle
golden file (tests/oracle/golden/RELEASE.txt, written by Megatron-Core's own
initialize_model_parallel) through Megatron-LM flags, and compares every
kind's groups, in creation order, with Megatron's.

Usage: python3 topology-oracle-cli.py MCINIT GOLDEN RELEASE [EVERY]
Checks every EVERY-th valid configuration (default 1).  Exit 0 when all
match, 77 when mcinit does not know RELEASE; the first mismatch is printed.
"""
import json
import re
import subprocess
import sys

# No linear biases (TransformerConfig rejects MoE biases with ETP > 1); the
# global batch size is set per job to the world size, a multiple of DP x
# gtp_remat, which Megatron's default (MBS x DP) is not once gtp_remat > 1.
BASE = ["--num-layers", "12", "--hidden-size", "256", "--num-attention-heads", "8",
        "--seq-length", "256", "--max-position-embeddings", "256", "--micro-batch-size", "1",
        "--train-iters", "1", "--bf16", "--use-distributed-optimizer", "--disable-bias-linear"]


def configs(path):
    cfg, groups = None, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# config "):
            if cfg is not None:
                yield cfg, groups
            cfg = dict(kv.split("=") for kv in line[len("# config "):].split())
            groups = {}
        elif cfg is not None and line.startswith("error:"):
            groups = line
        elif cfg is not None and groups is not None and line:
            key, ranks = line.split(":", 1)
            groups.setdefault(key, []).append([int(r) for r in ranks.split()])
    if cfg is not None:
        yield cfg, groups


def flags(c):
    tp, etp = int(c["tp"]), c["etp"]
    out = ["--tensor-model-parallel-size", c["tp"], "--pipeline-model-parallel-size", c["pp"],
           "--context-parallel-size", c["cp"], "--expert-model-parallel-size", c["ep"],
           "--num-distributed-optimizer-instances", c["ndoi"]]
    if int(c["ep"]) > 1:
        out += ["--num-experts", "8"]
    if etp != "-":
        out += ["--expert-tensor-parallel-size", etp]
    if c["hcp"] != "-":
        out += ["--hierarchical-context-parallel-sizes"] + c["hcp"].split(",")
    if c["gtp"] != "1":
        out += ["--tensor-parallel-num-weight-shards", str(tp * int(c["gtp"]))]
    if c["egtp"] != "1":
        e = tp if etp == "-" else int(etp)
        out += ["--expert-tensor-parallel-num-weight-shards", str(e * int(c["egtp"]))]
    if c["mapping"] == "1":
        out.append("--use-tp-pp-dp-mapping")
    if c["ag"] == "1":
        out.append("--create-all-gather-group")
    return out


def main():
    mcinit, golden, release = sys.argv[1:4]
    every = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    probe = subprocess.run([mcinit, "topology", "--megatron-version", release, "--help"],
                           capture_output=True)
    if probe.returncode != 0:
        print(f"mcinit does not know {release}: skipped")
        sys.exit(77)
    n = bad = 0
    for i, (c, want) in enumerate(configs(golden)):
        if i % every:
            continue
        argv = [mcinit, "topology", "--megatron-version", release, "--world-size", c["world"],
                "--format=json", "--"] + BASE + ["--global-batch-size", c["world"]] + flags(c)
        p = subprocess.run(argv, capture_output=True, text=True)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            sys.exit(f"{c}: no JSON (exit {p.returncode}): {p.stderr[-400:]}")
        if isinstance(want, str):
            codes = [d["code"] for d in doc.get("diagnostics", []) if d["severity"] == "error"]
            if "groups" in doc or p.returncode != 1 or not codes:
                sys.exit(f"{c}: Megatron fails ({want}), mcinit exits {p.returncode}")
            bad += 1
            continue
        if "groups" not in doc:
            errs = [d["message"] for d in doc.get("diagnostics", []) if d["severity"] == "error"]
            sys.exit(f"{c}: mcinit rejects a job Megatron accepts: {errs}")
        if list(doc["groups"]) != list(want):
            sys.exit(f"{c}: keys {list(doc['groups'])}, Megatron {list(want)}")
        for key, groups in want.items():
            if doc["groups"][key] != groups:
                sys.exit(f"{c}: {key}: {doc['groups'][key][:4]}..., Megatron {groups[:4]}...")
        n += 1
    print(f"{release}: {n} configurations match Megatron-Core, {bad} rejected as by it")


if __name__ == "__main__":
    main()
