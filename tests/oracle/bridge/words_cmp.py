#!/usr/bin/env python3
"""words_cmp.py MCINIT ROWS [DIR] — mcinit beside Bridge on override-word rows
(judge_words.py's output: NAME FILE WS WORD VERDICT BRIDGE_ERROR), the word
given to `mcinit validate` as the command line gives it to Bridge's example
scripts.  Prints NAME WORD BRIDGE MCINIT FIRST-ERROR a row, then the counts.
Not part of the build."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    mc, rows = os.path.abspath(sys.argv[1]), sys.argv[2]
    d = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "..", "bridge", "0.6.2")
    rel = os.path.basename(os.path.normpath(d))
    n = {"agree": 0, "false_error": 0, "missed": 0}
    for line in open(rows):
        if line.startswith("#") or line.startswith("name\t") or not line.strip():
            continue
        name, f, ws, word, verdict = line.rstrip("\n").split("\t")[:5]
        p = subprocess.run([mc, "validate", "--bridge-version", rel, "--world-size", ws, f, word],
                           cwd=d, capture_output=True, text=True,
                           env=dict(os.environ, HOME="/nonexistent"))
        mv = "accept" if p.returncode == 0 else "reject"
        err = next((l for l in (p.stdout + p.stderr).splitlines() if "error" in l), "")
        # accept-typeerror: accepted at load, a TypeError at use, which mcinit refuses
        want = "reject" if verdict == "accept-typeerror" else verdict
        k = "agree" if mv == want else ("false_error" if want == "accept" else "missed")
        n[k] += 1
        print("%s\t%s\t%s\t%s\t%s" % (name, word, verdict, mv, err[:200]), flush=True)
    print("# agree %(agree)d, false errors %(false_error)d, missed errors %(missed)d" % n)


if __name__ == "__main__":
    main()
