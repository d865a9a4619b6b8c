#!/usr/bin/env python3
"""mutations_cmp.py MCINIT ROWS [DIR] — mcinit beside Bridge on mutations.tsv
rows (judge_ovs.py's output), each change given to mcinit as
tests/cli/bridge-recipes.sh gives it (tests/bridge/as-hydra-edit.py:
`++key=value`; as-yaml-edit.py's copy of the file for an init=False
field).  Prints NAME OVERRIDES BRIDGE MCINIT FIRST-ERROR a row, then the
counts: agree, false errors (Bridge accepts, mcinit refuses), missed
errors.  Not part of the build."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EDIT = os.path.join(HERE, "..", "..", "bridge", "as-hydra-edit.py")
YEDIT = os.path.join(HERE, "..", "..", "bridge", "as-yaml-edit.py")
FACTS = os.path.join(HERE, "..", "..", "..", "data", "bridge-config-fields.tsv")


def main():
    mc, rows = os.path.abspath(sys.argv[1]), sys.argv[2]
    d = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "..", "bridge", "0.6.2")
    rel = os.path.basename(os.path.normpath(d))
    n = {"agree": 0, "false_error": 0, "missed": 0}
    for line in open(rows):
        if line.startswith("#") or line.startswith("name\t") or not line.strip():
            continue
        name, f, ws, ovs, verdict = line.rstrip("\n").split("\t")[:5]
        # a field Bridge computes itself (init=False): the change made in a
        # copy of the file, whose from_yaml drops it (as-yaml-edit.py)
        tmp = "/tmp/mutations_cmp.%d.yaml" % os.getpid()
        if subprocess.run([sys.executable, YEDIT, FACTS, os.path.join(d, f), tmp] + ovs.split(),
                          capture_output=True).returncode == 0:
            args = [tmp]
        else:
            args = [f] + subprocess.run([sys.executable, EDIT] + ovs.split(), capture_output=True,
                                        text=True, check=True).stdout.splitlines()
        p = subprocess.run([mc, "validate", "--bridge-version", rel, "--world-size", ws] + args,
                           cwd=d, capture_output=True, text=True,
                           env=dict(os.environ, HOME="/nonexistent"))
        mv = "accept" if p.returncode == 0 else "reject"
        err = next((l for l in (p.stdout + p.stderr).splitlines() if "error[" in l), "")
        if mv == "reject" and p.returncode == 1 and verdict == "reject" and not err:
            mv = "reject?"
        # accept-typeerror: accepted at load, a TypeError at use, which mcinit refuses
        want = "reject" if verdict == "accept-typeerror" else verdict
        k = "agree" if mv == want else ("false_error" if want == "accept" else "missed")
        n[k] += 1
        print("%s\t%s\t%s\t%s\t%s" % (name, ovs, verdict, mv, err[:200]), flush=True)
    if os.path.exists("/tmp/mutations_cmp.%d.yaml" % os.getpid()):
        os.remove("/tmp/mutations_cmp.%d.yaml" % os.getpid())
    print("# agree %(agree)d, false errors %(false_error)d, missed errors %(missed)d" % n)


if __name__ == "__main__":
    main()
