#!/usr/bin/env python3
"""merge_apply.py DUMP.yaml WS OVER.yaml... — each small YAML merged over a
ConfigContainer dump as Megatron-Bridge 0.6.2's example scripts merge
`--config-file` (megatron/bridge/training/utils/omegaconf_utils.py,
process_config_with_overrides: the dump loaded by ConfigContainer.from_yaml,
OmegaConf.merge of the file over the config, OmegaConf.to_container,
apply_overrides), then judged as pretrain() does (runtime_config_update, by
oraclelib.judge_cfg).  One JSON line per OVER file: accepted, error,
error_where, and Bridge's log warnings about skipped keys.  Run with the
Bridge venv's Python; not part of the build.

merge_apply.py gen OUTDIR                   writes the generated merge files
(OUTDIR/NNN-kind.yaml), the kinds of input an OmegaConf merge meets: a
section replaced by a preset's name, a mapping over a section that is a name
(most dumps name their preset) or null, null over a section, unknown keys per section and at
the top, lists, nested dicts.

merge_apply.py cmp MCINIT JUDGED GENDIR      mcinit's verdicts beside the
judged lines (DUMP WS JSON, as the README's loop writes them)."""
import contextlib
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def judge(dump, ws, over):
    import oraclelib
    from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides

    oraclelib._LOG_CAPTURE = []
    out = {"over": os.path.basename(over)}
    try:
        cfg = oraclelib.load_yaml(dump)
        process_config_with_overrides(cfg, config_filepath=over)
    except Exception as e:  # noqa: BLE001 -- the exception is the verdict
        out.update(accepted=False, stage="merge", error=oraclelib._short(e),
                   error_where=oraclelib._where(e))
        return out
    merge_warn = [w for w in oraclelib._LOG_CAPTURE if "overrides not found" in w]
    res = oraclelib.judge_cfg(cfg, ws)
    out.update(accepted=res["accepted"], stage="runtime_config_update", error=res["error"],
               error_where=res["error_where"], skipped=merge_warn)
    return out


SECTIONS_NULLABLE = ["comm_overlap", "profiling", "peft", "ft", "straggler", "nvrx_straggler",
                     "inprocess_restart", "tensor_inspect", "mixed_precision"]


def gen(outdir):
    os.makedirs(outdir, exist_ok=True)
    cases = []
    # a section replaced by a preset's name
    for p in ["bf16_mixed", "fp16_mixed", "bf16_with_fp8_delayed_scaling_mixed",
              "bf16_with_fp8_current_scaling_mixed", "bf16_with_mxfp8_mixed", "no_such_mixed",
              "fp16-mixed"]:
        cases.append(("name", f"mixed_precision: {p}\n"))
    # a mapping merged into the object
    cases.append(("map", "mixed_precision:\n  fp16: true\n  bf16: false\n"))
    cases.append(("map", "mixed_precision:\n  fp16: true\n"))
    cases.append(("map", "mixed_precision:\n  grad_reduce_in_fp32: false\n"))
    # null over a section, a mapping over a null section
    for s in SECTIONS_NULLABLE:
        cases.append(("null", f"{s}: null\n"))
    for s, body in [("comm_overlap", "{tp_comm_overlap: false}"), ("profiling", "{use_pytorch_profiler: false}"),
                    ("ft", "{enable_ft_package: false}"), ("straggler", "{log_straggler: false}"),
                    ("nvrx_straggler", "{enabled: false}"), ("inprocess_restart", "{enabled: false}"),
                    ("tensor_inspect", "{enabled: false}"), ("peft", "{dim: 8}"),
                    ("mixed_precision", "{bf16: true}")]:
        cases.append(("map-over-null", f"{s}: {body}\n"))
    # unknown keys per section and at the top
    for s in ["model", "train", "optimizer", "scheduler", "dataset", "logger", "tokenizer",
              "checkpoint", "dist", "rng", "ddp", "mixed_precision", "comm_overlap", "rerun_state_machine"]:
        cases.append(("unknown", f"{s}:\n  no_such_key_xyz: 1\n"))
    cases.append(("unknown", "no_such_section: {a: 1}\n"))
    cases.append(("unknown", "no_such_top: 3\n"))
    # lists replace, nested dicts merge
    cases.append(("list", "dataset:\n  split: '90,5,5'\n"))
    cases.append(("list", "model:\n  recompute_modules: [core_attn]\n"))
    cases.append(("list", "model:\n  recompute_modules: []\n"))
    cases.append(("nested", "model:\n  num_layers: 4\ntrain:\n  train_iters: 10\n"))
    cases.append(("nested", "train:\n  global_batch_size: 3\n"))
    cases.append(("nested", "mixed_precision:\n  fp8: hybrid\n"))
    cases.append(("map-over-name", "mixed_precision: {}\n"))
    # a mapping naming its class: apply_overrides instantiates it
    cases.append(("target", "comm_overlap:\n  _target_: megatron.bridge.training.comm_overlap.CommOverlapConfig\n"
                            "  tp_comm_overlap: false\n"))
    cases.append(("target", "mixed_precision:\n  _target_: megatron.bridge.training.mixed_precision.MixedPrecisionConfig\n"
                            "  bf16: true\n  params_dtype: bfloat16\n  pipeline_dtype: bfloat16\n"))
    for n, (kind, text) in enumerate(cases):
        with open(os.path.join(outdir, f"{n:03d}-{kind}.yaml"), "w") as fh:
            fh.write(text)


# Refused after runtime_config_update, where the oracle stops (as
# campaign_cmp.py): at initialize or model build, or where Bridge first uses a
# section a merge left a plain dict (pretrain, setup, train).
LATER = {"MC042", "MC020", "MC018", "MC016", "MC019", "MC034"}
LATER_WHERE = ("fails in pretrain (", "fails in setup (", "fails in train (")


def cmp(mc, rows, gendir):
    """mcinit's verdict (validate --world-size WS DUMP OVER) beside each row
    of a judge run's output (lines: DUMP WS JSON)."""
    import collections
    import re
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    dumps = os.path.join(here, "..", "..", "bridge", "0.6.2")
    cnt = collections.Counter()
    for line in open(rows):
        if not line.strip() or line.startswith("DONE"):
            continue
        name, ws, js = line.split(" ", 2)
        try:
            r = json.loads(js)
        except ValueError:  # a line still being written
            continue
        want = "accept" if r["accepted"] else "reject"
        p = subprocess.run([mc, "validate", "--world-size", ws, os.path.join(dumps, name + ".yaml"),
                            os.path.join(gendir, r["over"])], capture_output=True, text=True,
                           env=dict(os.environ, HOME="/nonexistent"))
        got = {0: "accept", 1: "reject"}.get(p.returncode, "rc%d" % p.returncode)
        errs = [x for x in (p.stdout + p.stderr).splitlines() if "error[" in x]
        codes = set(re.findall(r"error\[(MC\d+)\]", p.stdout + p.stderr))
        if got == "reject" and want == "accept" and errs and all(
                re.search(r"error\[(MC\d+)\]", e).group(1) in LATER or any(w in e for w in LATER_WHERE)
                for e in errs):
            cnt["later_reject"] += 1
            if "-v" in sys.argv:
                print("later_reject %s ws=%s %s\n   mcinit=%s" % (name, ws, r["over"], " | ".join(errs)[:300]))
            continue
        cls = "agree" if got == want else ("FALSE_ERROR" if got == "reject" else
                                            ("MISSED" if got == "accept" else "OTHER"))
        cnt[cls] += 1
        if cls != "agree" or "-v" in sys.argv:
            print("%s %s ws=%s %s\n   bridge=%s (%s)\n   mcinit=%s %s" % (
                cls, name, ws, r["over"], want, (r["error"] or "")[:160], got, " | ".join(errs)[:400]))
    print(dict(cnt))


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        return
    if sys.argv[1] == "cmp":
        cmp(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    dump, ws = sys.argv[1], int(sys.argv[2])
    real = sys.stdout
    for over in sys.argv[3:]:
        with contextlib.redirect_stdout(io.StringIO()):
            r = judge(dump, ws, over)
        print(json.dumps(r, default=str), file=real, flush=True)


if __name__ == "__main__":
    main()
