#!/usr/bin/env python3
"""recipe_flag_cmp.py MCINIT [--bridge-version V] — `mcinit validate
--bridge-recipe NAME` beside Bridge's verdict on the recipe function's own
ConfigContainer (the `in_memory` verdict dump_recipes.py wrote in
$BRIDGE_ORACLE_WORK/recipes/NAME.json: runtime_config_update on recipe(),
no YAML round trip), at the world size it was judged at.  Prints NAME WS
BRIDGE MCINIT BRIDGE_ERROR | MCINIT_FIRST_ERROR a row, then the counts.
Not part of the build."""
import glob
import json
import os
import subprocess
import sys


def main():
    mc = os.path.abspath(sys.argv[1])
    bv = sys.argv[sys.argv.index("--bridge-version") + 1] if "--bridge-version" in sys.argv \
        else "0.6.2"
    work = os.environ.get("BRIDGE_ORACLE_WORK", os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."))
    n = {"agree": 0, "false_error": 0, "missed": 0}
    for f in sorted(glob.glob(os.path.join(work, "recipes", "*.json"))):
        d = json.load(open(f))
        im = d.get("in_memory")
        if not isinstance(im, dict):
            continue
        name, ws = d["recipe"], d["world_size"]
        pc = im.get("post_checks") or {}
        bad = [k for k in ("microbatches", "parallel_state")
               if isinstance(pc.get(k), dict) and not pc[k].get("ok", True)]
        bver = "accept" if im.get("accepted") and not bad else "reject"
        p = subprocess.run([mc, "validate", "--bridge-version", bv, "--world-size", str(ws),
                            "--bridge-recipe", name], capture_output=True, text=True,
                           env=dict(os.environ, HOME="/nonexistent"))
        mv = "accept" if p.returncode == 0 else "reject"
        err = next((l for l in (p.stdout + p.stderr).splitlines() if "error[" in l), "")
        k = "agree" if mv == bver else ("false_error" if bver == "accept" else "missed")
        n[k] += 1
        print("%s\t%s\t%s\t%s\t%s | %s" % (name, ws, bver, mv, (im.get("error") or "-")[:100],
                                           err[:160]), flush=True)
    print("# agree %(agree)d, false errors %(false_error)d, missed errors %(missed)d" % n)


if __name__ == "__main__":
    main()
