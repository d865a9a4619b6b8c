#!/usr/bin/env python3
"""Compare mcinit's derived values with Bridge's on the recipe dumps Bridge accepts."""
import json, subprocess, sys, glob, os
mc = sys.argv[1]
keys = [("data_parallel_size", "data_parallel_size"), ("num_micro_batches", "num_microbatches"),
        ("layers_per_stage", "layers_per_pipeline_stage"), ("padded_vocab_size", "padded_vocab_size"),
        ("virtual_pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size"),
        ("global_batch_size", "global_batch_size")]
same = diff = 0
for j in sorted(glob.glob(os.path.join(os.environ.get("BRIDGE_ORACLE_WORK", "."), "recipes", "*.json"))):
    o = json.load(open(j))
    if not o.get("accepted"):
        continue
    y = j[:-5] + ".yaml"
    out = subprocess.run([mc, "validate", y, "--world-size", str(o["world_size"]), "--format", "json"],
                         capture_output=True, text=True).stdout
    d = json.loads(out)["derived"]
    for a, b in keys:
        bv = o["derived"].get(b)
        if bv is None and b not in o["derived"]:
            continue
        mv = d.get(a)
        if mv == bv:
            same += 1
        else:
            diff += 1
            print("DIFF %s %s: mcinit %s bridge %s" % (os.path.basename(y), a, mv, bv))
print("%d same, %d differ" % (same, diff))
