#!/usr/bin/env python3
"""judge_words.py [DIR] < LINES — each line: NAME FILE WS WORD (tab-separated:
the word may hold spaces); Bridge 0.6.2's verdict on the recipe dump FILE (in
DIR, default tests/bridge/0.6.2) with the override words applied as its
example scripts apply the command line: ConfigContainer.from_yaml, then
process_config_with_overrides(cfg, cli_overrides=[WORD]) (Hydra's override
parser, OmegaConf, apply_overrides), then runtime_config_update
(oraclelib.judge_cfg).  Prints override-words.tsv rows: NAME FILE WS WORD VERDICT
BRIDGE_ERROR MCINIT_DIFFERS ("-": a row where mcinit differs says why by hand).
VERDICT: accept, reject, or accept-typeerror (judge_ovs.py says what it is).  Run with the
Bridge venv's Python; not part of the build."""
import contextlib
import io
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "bridge", "0.6.2")
with contextlib.redirect_stdout(io.StringIO()):
    import oraclelib
    from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides


def clean(s):
    return (s or "-").replace("\n", " ").replace("\t", " ")[:200]


for line in sys.stdin:
    p = line.rstrip("\n").split("\t")
    if len(p) != 4:
        continue
    name, f, ws, words = p[0], p[1], int(p[2]), [p[3]]
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cfg = oraclelib.load_yaml(os.path.join(DIR, f))
            process_config_with_overrides(cfg, cli_overrides=words)
        except Exception as e:  # noqa: BLE001 -- the exception is the verdict
            print("%s\t%s\t%d\t%s\treject\t%s\t-" % (name, f, ws, "\t".join(words),
                                                      clean(oraclelib._short(e))),
                  file=sys.__stdout__, flush=True)
            continue
        j = oraclelib.judge_cfg(cfg, ws)
    pc = j.get("post_checks") or {}
    bad = [k for k in ("microbatches", "parallel_state")
           if isinstance(pc.get(k), dict) and not pc[k].get("ok", True)]
    v = "accept" if j.get("accepted") and not bad else "reject"
    err = clean(j.get("error"))
    if j.get("accepted") and bad:
        err = "post-check " + ",".join(bad)
    elif v == "accept" and j.get("typeerror_at_use"):
        v, err = "accept-typeerror", clean("; ".join(j["typeerror_at_use"]))
    print("%s\t%s\t%d\t%s\t%s\t%s\t-" % (name, f, ws, "\t".join(words), v, err), flush=True)
