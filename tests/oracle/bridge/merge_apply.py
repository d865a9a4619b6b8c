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

merge_apply.py rgen OUTDIR DUMP WS COUNT SEED  random merge files for one
dump (OUTDIR/NNN.yaml), as users write them over a recipe: 1-4 of the
dump's own scalar and list settings changed, with values near the old ones
(doubled, halved, one, the other bool, null, a list shortened) in the
spellings YAML and OmegaConf's loader read (1_000, 3e-4, .5, +4, True,
yes/on, ~, '8', flow and block forms, comments, anchors and aliases, a
document marker), now and then a type users get wrong.

merge_apply.py cmp MCINIT JUDGED GENDIR      mcinit's verdicts beside the
judged lines (DUMP WS JSON, as the README's loop writes them)."""
import contextlib
import io
import json
import math
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


def spell(rng, v):
    """A value near v, spelled as users write it in YAML: (text, flow ok)."""
    if isinstance(v, bool):
        b = rng.choice([v, not v])
        return rng.choice([str(b).lower(), str(b), "yes" if b else "no", "on" if b else "off"])
    if isinstance(v, int):
        n = rng.choice([v, v * 2, max(v // 2, 0), 1, v + 1]) if v else rng.choice([0, 1, 2])
        forms = [str(n)] * 6 + ["+%d" % n if n >= 0 else str(n), "'%d'" % n]
        if n >= 1000:
            forms.append("{:_}".format(n))
        return rng.choice(forms)
    if isinstance(v, float) and not math.isfinite(v):  # YAML's own words for them
        return rng.choice([".nan", ".NaN"]) if v != v else \
            ("-" if v < 0 else "") + rng.choice([".inf", ".Inf", ".INF"])
    if isinstance(v, float):
        f = rng.choice([v, v * 2, v / 2, 1.0, 0.5]) if v else rng.choice([0.0, 0.1])
        forms = [repr(f), "%g" % f, "%.1e" % f, ("%e" % f).replace(".000000", "")]
        if 0 < f < 1:
            forms.append(("%g" % f).lstrip("0") if "e" not in "%g" % f else "%g" % f)
        if f == int(f):
            forms.append("%d." % f)
        return rng.choice(forms)
    if v is None:
        return rng.choice(["null", "~", "Null", "NULL", ""])
    if isinstance(v, str):
        return rng.choice([v, "'%s'" % v, '"%s"' % v]) if v and ":" not in v and "#" not in v \
            else json.dumps(v)
    if isinstance(v, list):
        items = v[:rng.randint(0, len(v))] if v else []
        if rng.random() < 0.5:
            return "[%s]" % ", ".join(spell(rng, x) for x in items)
        return "".join("\n    - %s" % spell(rng, x) for x in items) or "[]"
    raise TypeError(type(v))


def rgen(outdir, dump, count, seed):
    import random

    import yaml
    rng = random.Random(seed)
    cfg = yaml.safe_load(open(dump))
    keys = [(s, k, v) for s, sec in cfg.items() if isinstance(sec, dict)
            for k, v in sec.items() if not k.startswith("_") and
            (v is None or isinstance(v, (bool, int, float, str)) or
             (isinstance(v, list) and all(isinstance(x, (bool, int, float, str)) for x in v)))]
    os.makedirs(outdir, exist_ok=True)
    for n in range(count):
        picked = rng.sample(keys, rng.randint(1, 4))
        by = {}
        for s, k, v in picked:
            if rng.random() < 0.08:  # a type users get wrong
                v = rng.choice([None, "8", 1.5, True, [1]])
            by.setdefault(s, []).append((k, spell(rng, v)))
        text = "---\n" if rng.random() < 0.2 else ""
        anchor = None
        for s, kvs in by.items():
            if rng.random() < 0.15:
                text += "# %s settings\n" % s
            if rng.random() < 0.2 and all("\n" not in t for _, t in kvs):
                text += "%s: {%s}\n" % (s, ", ".join("%s: %s" % kt for kt in kvs))
                continue
            text += "%s:\n" % s
            for k, t in kvs:
                if anchor is None and rng.random() < 0.1 and "\n" not in t and t:
                    anchor = t
                    text += "  %s: &v %s\n" % (k, t)
                elif anchor is not None and rng.random() < 0.3:
                    text += "  %s: *v\n" % k
                else:
                    text += "  %s: %s%s\n" % (k, t, "  # changed" if rng.random() < 0.1 else "")
        with open(os.path.join(outdir, "%03d.yaml" % n), "w") as fh:
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
    if sys.argv[1] == "rgen":
        rgen(sys.argv[2], sys.argv[3], int(sys.argv[5]), int(sys.argv[6]))
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
