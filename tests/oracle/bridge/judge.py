#!/usr/bin/env python
"""judge.py FILE.yaml --world-size N [--gpu H100|GB200|...] [--pretty]

Loads FILE.yaml with Megatron-Bridge 0.6.2's own ConfigContainer.from_yaml and judges it as
pretrain() does before training: WORLD_SIZE=N RANK=0 LOCAL_RANK=0, runtime_config_update(cfg)
(mixed precision, data-parallel size, comm overlap, cfg.validate() incl. provider finalize).
Prints JSON: {accepted, error, error_where, stage, derived, post_checks, warnings, ...}.
`accepted` is runtime_config_update's verdict only; post_checks are the next arithmetic checks
pretrain() would hit (microbatch calculator, parallel_state grid, vocab padding).
Exit code 0 if accepted, 1 if rejected, 2 on harness error.
"""
import argparse
import json
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("yaml")
ap.add_argument("--world-size", "-n", type=int, required=True)
ap.add_argument("--gpu", default=None, help="fake GPU for flex-dispatcher checks (default H100)")
ap.add_argument("--pretty", action="store_true")
args = ap.parse_args()
if args.gpu:
    os.environ["ORACLE_GPU"] = args.gpu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contextlib, io  # noqa: E402

_real_stdout = sys.stdout
with contextlib.redirect_stdout(io.StringIO()):
    import oraclelib  # noqa: E402
    res = oraclelib.judge_file(args.yaml, args.world_size)
print(json.dumps(res, indent=2 if args.pretty else None, default=str), file=_real_stdout)
sys.exit(0 if res.get("accepted") else 1)
