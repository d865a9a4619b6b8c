#!/usr/bin/env python3
"""mcinit beside the oracle on every recipe dump dump_recipes.py wrote.

usage: recipes_cmp.py MCINIT [--bridge-version V] [--scale K] [--out ROWS.tsv]

For each $BRIDGE_ORACLE_WORK/recipes/NAME.json with a YAML: mcinit validate
on the YAML at the recipe's world size (times K with --scale; the oracle's
verdict is then the one recorded at that size, when there is one), and
compares the verdict (accepted = no error), the derived values Bridge
computed, and keys mcinit calls unknown (MC003) on a dump Bridge accepts.
Prints one line per disagreement, a summary, and with --out the rows of a
verdicts.tsv (file, world, verdict, dp, nmb, bridge_error).
"""
import argparse
import glob
import json
import os
import subprocess
import sys

KEYS = [("data_parallel_size", "data_parallel_size"), ("num_micro_batches", "num_microbatches"),
        ("layers_per_stage", "layers_per_pipeline_stage"), ("padded_vocab_size", "padded_vocab_size"),
        ("virtual_pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size"),
        ("global_batch_size", "global_batch_size")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mcinit")
    ap.add_argument("--bridge-version")
    ap.add_argument("--out")
    a = ap.parse_args()
    work = os.environ.get("BRIDGE_ORACLE_WORK", ".")
    n = agree = false_err = missed = same = diff = unknown = 0
    rows = []
    for j in sorted(glob.glob(os.path.join(work, "recipes", "*.json"))):
        o = json.load(open(j))
        y = j[:-5] + ".yaml"
        if o.get("accepted") is None or not os.path.exists(y) or o.get("stage") in ("recipe()", "to_yaml"):
            continue
        ws = o["world_size"]
        cmd = [a.mcinit, "validate", y, "--world-size", str(ws), "--format", "json"]
        if a.bridge_version:
            cmd[2:2] = ["--bridge-version", a.bridge_version]
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HOME="/nonexistent"))
        try:
            d = json.loads(p.stdout)
        except ValueError:
            print("NOJSON %s rc=%d %s" % (os.path.basename(y), p.returncode, p.stderr[-300:]))
            continue
        n += 1
        errs = [g for g in d["diagnostics"] if g["severity"] == "error"]
        mine = not errs
        name = os.path.basename(y)
        if mine == bool(o["accepted"]):
            agree += 1
        elif o["accepted"]:
            false_err += 1
            print("FALSE-ERROR %s ws=%d: %s" % (name, ws, " | ".join(
                "%s %s" % (g["code"], g["message"][:160]) for g in errs)))
        else:
            missed += 1
            print("MISSED %s ws=%d: bridge: %s" % (name, ws, str(o.get("error"))[:200]))
        if o["accepted"]:
            unk = [g for g in d["diagnostics"] if g["code"] == "MC003"]
            for g in unk:
                unknown += 1
                print("UNKNOWN-KEY %s: %s" % (name, g["message"][:160]))
            dv = d.get("derived") or {}
            for k, b in KEYS:
                want = (o.get("derived") or {}).get(b)
                if want is None:  # not computed by this release's Bridge
                    continue
                if k == "layers_per_stage" and "pseudo-layers" in str(o["derived"].get("note")):
                    continue  # the oracle's counts include account_for_* layers, mcinit's do not
                got = dv.get(k)
                if k == "layers_per_stage" and got and isinstance(got[0], list):
                    got = [sum(c) for c in got]  # Bridge's per stage, over its chunks
                if got == want:
                    same += 1
                else:
                    diff += 1
                    print("DERIVED %s %s: mcinit %s bridge %s" % (name, k, got, want))
        der = o.get("derived") or {}
        rows.append((name, ws, "accept" if o["accepted"] else "reject",
                     der.get("data_parallel_size", "-"), der.get("num_microbatches", "-"),
                     (str(o.get("error") or "-").splitlines() or ["-"])[0][:200]))
    print("%d dumps: %d agree, %d false errors, %d missed; derived %d equal, %d differ; %d unknown keys"
          % (n, agree, false_err, missed, same, diff, unknown))
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write("\t".join(str(x) for x in r) + "\n")
    return 1 if false_err or missed or diff else 0


if __name__ == "__main__":
    sys.exit(main())
