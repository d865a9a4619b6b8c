#!/usr/bin/env python3
"""yaml_scalars.py judge|write [DIR] < LINES — each line: NAME FILE WS SECTION.KEY RAW
(tab-separated): the recipe dump FILE (in DIR, default tests/bridge/0.6.2)
with the value of SECTION.KEY written as the YAML text RAW (`.inf`, `inf`,
`1e309`, ...), so that what decides is how a YAML reader types the scalar.
`judge`: Bridge 0.6.2's verdict (ConfigContainer.from_yaml: PyYAML's
SafeLoader, YAML 1.1; then runtime_config_update), as rows NAME FILE WS
SECTION.KEY RAW VERDICT BRIDGE_ERROR.  `write OUTDIR`: the files themselves,
OUTDIR/NAME.yaml (for mcinit).  Run `judge` with the Bridge venv's Python;
not part of the build."""
import contextlib
import io
import os
import re
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def edit(text, dotted, raw):
    """text with SECTION.KEY's line (a top-level section's direct key) set to raw."""
    sec, key = dotted.split(".", 1)
    out, in_sec, done = [], False, False
    for line in text.split("\n"):
        if re.match(r"^\S", line):
            in_sec = line.rstrip() == sec + ":"
        elif in_sec and not done and re.match(r"^  %s:( |$)" % re.escape(key), line):
            line = "  %s: %s" % (key, raw)
            done = True
        out.append(line)
    if not done:
        raise SystemExit("%s: no line for %s" % (dotted, dotted))
    return "\n".join(out)


def main():
    mode = sys.argv[1]
    rest = sys.argv[2:]
    outdir = rest.pop(0) if mode == "write" else None
    d = rest[0] if rest else os.path.join(HERE, "..", "..", "bridge", "0.6.2")
    if mode == "judge":
        with contextlib.redirect_stdout(io.StringIO()):
            import oraclelib
    for line in sys.stdin:
        p = line.rstrip("\n").split("\t")
        if len(p) != 5:
            continue
        name, f, ws, key, raw = p
        text = edit(open(os.path.join(d, f)).read(), key, raw)
        if mode == "write":
            with open(os.path.join(outdir, name + ".yaml"), "w") as o:
                o.write(text)
            continue
        path = "/tmp/yaml_scalars_%s.yaml" % name
        with open(path, "w") as o:
            o.write(text)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            j = oraclelib.judge_file(path, int(ws))
        pc = j.get("post_checks") or {}
        bad = [k for k in ("microbatches", "parallel_state")
               if isinstance(pc.get(k), dict) and not pc[k].get("ok", True)]
        v = "accept" if j.get("accepted") and not bad else "reject"
        err = (j.get("error") or "-").replace("\n", " ").replace("\t", " ")[:200]
        if j.get("accepted") and bad:
            err = "post-check " + ",".join(bad)
        print("\t".join([name, f, ws, key, raw, v, err]), flush=True)


if __name__ == "__main__":
    main()
