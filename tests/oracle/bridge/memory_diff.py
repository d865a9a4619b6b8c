#!/usr/bin/env python
"""memory_diff.py — `mcinit validate --memory-model bridge` beside Megatron-Bridge 0.6.2's own
estimate_training_memory (megatron/bridge/training/utils/theoretical_memory_utils.py).

usage: memory_diff.py MCINIT gen [--count N] [--seed S] [--out ROWS.jsonl] [--tsv GOLDEN.tsv]
       memory_diff.py MCINIT recipes            (every accepted dump of $BRIDGE_ORACLE_WORK/recipes)
       memory_diff.py MCINIT tsv --rows ROWS.jsonl --tsv GOLDEN.tsv   (golden rows of a gen run)

gen: N random ConfigContainers that Bridge accepts, each a recipe dump of tests/bridge/0.6.2
(dense, GQA, MLA, MoE with shared experts) with its model's shape, parallel layout and
training settings drawn at random (SwiGLU or GELU, tied or untied embeddings, MTP, VPP, an
uneven pipeline by a layout or by first/last stage layers, SP on and off, CP, selective or
full recompute, the distributed optimizer on and off, the precision-aware optimizer),
written as YAML.  Bridge loads each with ConfigContainer.from_yaml and brings it to where
pretrain() reports the estimate: runtime_config_update at the world size, setup's
vocabulary (_validate_and_set_vocab_size with the NullTokenizer's size), and
get_num_microbatches(); then estimate_training_memory(cfg, num_microbatches).  mcinit reads
the same YAML.  Every figure must be the same float as mcinit writes reals (15 significant
digits, below 10^14 bytes a thousandth of a byte): the weight/optimizer, activation and
total bytes, each component's parameter counts, bytes per parameter and bytes, the model's
parameters, and the assumptions' text.  Generated cases Bridge refuses are skipped and
counted.

recipes: the same on every recipe dump Bridge accepted (dump_recipes.py), at its world size;
where Bridge's setup would need a tokenizer that is not loaded offline, or the model is a
hybrid one, mcinit must say "not estimated".

Prints one line per disagreement and a summary; --tsv writes golden rows for
tests/cli/memory.sh (the YAML's overrides over its dump, and Bridge's figures).
Run it -j1 (one process): it imports Bridge once and judges in-process.
"""
import argparse
import contextlib
import copy
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
DUMPS = os.path.join(HERE, "..", "..", "bridge", "0.6.2")
with contextlib.redirect_stdout(io.StringIO()):
    import oraclelib  # noqa: E402  (stubs Transformer Engine before Megatron)
import yaml  # noqa: E402
from megatron.bridge.training.config import ConfigContainer, runtime_config_update  # noqa: E402
from megatron.bridge.training.setup import _validate_and_set_vocab_size  # noqa: E402
from megatron.bridge.training.utils.theoretical_memory_utils import estimate_training_memory  # noqa: E402

# Bases: recipe dumps with a NullTokenizer (the vocabulary known offline).
BASES = {
    "dense": "llama3_8b_pretrain_2gpu_h100_bf16.yaml",
    "moe": "olmoe_7b_pretrain_8gpu_h100_bf16.yaml",
    "mla": "deepseek_v2_lite_pretrain_8gpu_h100_bf16.yaml",
    "gptoss": "gpt_oss_20b_pretrain_16gpu_h100_bf16.yaml",
}
SILU = {"_call_": False, "_target_": "torch.nn.functional.silu"}
GELU = {"_call_": False, "_target_": "torch.nn.functional.gelu"}


def r15(v):
    return float("%.15g" % v)


def gen_case(rng):
    """One case: its base, the overrides over the base (section.key -> value), a world size."""
    kind = rng.choice(["dense", "dense", "moe", "mla", "gptoss"])
    ov = {}
    # heads of 12, 24 or 40 over power-of-two groups: per-layer counts that are not
    # integers, which Bridge sums with Python's compensated sum() (on this corpus's sizes
    # it rounds as a plain sum would; memory-bridge.c's py_sum is Python's algorithm)
    heads = rng.choice([8, 12, 16, 24, 32, 40])
    kv = rng.choice([64, 128])
    h = heads * rng.choice([64, 128])
    tp = rng.choice([1, 2, 4])
    while heads % tp:
        tp //= 2
    pp = rng.choice([1, 1, 2, 4])
    vpp = rng.choice([None, None, 2]) if pp > 1 else None
    cp = rng.choice([1, 1, 2])
    dp = rng.choice([1, 2, 4])
    per = pp * (vpp or 1)
    layers = per * rng.choice([1, 2, 3])
    uneven = None
    if pp > 1 and rng.random() < 0.3:
        uneven = rng.choice(["first", "last", "both", "layout"])
    m = {"num_layers": layers, "hidden_size": h, "num_attention_heads": heads, "kv_channels": kv,
         "tensor_model_parallel_size": tp, "pipeline_model_parallel_size": pp,
         "context_parallel_size": cp, "virtual_pipeline_model_parallel_size": vpp,
         "sequence_parallel": tp > 1 and rng.random() < 0.6,
         "num_layers_in_first_pipeline_stage": None, "num_layers_in_last_pipeline_stage": None,
         "pipeline_model_parallel_layout": None,
         "account_for_embedding_in_pipeline_split": False,
         "account_for_loss_in_pipeline_split": False}
    if uneven in ("first", "last", "both"):
        v = vpp or 1
        mid = v * rng.choice([1, 2])
        edge = v * rng.choice([1, 2, 3])
        n_edge = 2 if uneven == "both" else 1
        m["num_layers"] = layers = mid * (pp - n_edge) + edge * n_edge
        if uneven in ("first", "both"):
            m["num_layers_in_first_pipeline_stage"] = edge
        if uneven in ("last", "both"):
            m["num_layers_in_last_pipeline_stage"] = edge
    elif uneven == "layout":
        # one stage per pipeline rank (and virtual stage): the embedding on the first, the
        # loss on the last, uneven counts of transformer layers
        stages = per
        counts = [rng.choice([1, 2, 3]) for _ in range(stages)]
        layers = m["num_layers"] = sum(counts)
        parts = ["t" * c for c in counts]
        parts[0] = "E" + parts[0]
        parts[-1] = parts[-1] + "L"
        m["pipeline_model_parallel_layout"] = "|".join(parts)
        m["virtual_pipeline_model_parallel_size"] = None
    groups = rng.choice([g for g in (1, 2, 4, 8, heads) if heads % g == 0 and (g % tp == 0 or tp % g == 0)])
    m["bias_activation_fusion"] = False  # Bridge refuses it beside most activations
    m["num_query_groups"] = groups if rng.random() < 0.7 else None
    m["ffn_hidden_size"] = rng.choice([None, h * 2, h * 3, h * 4 - 64])
    glu = rng.random() < 0.6
    m["gated_linear_unit"] = glu
    m["activation_func"] = copy.deepcopy(SILU if rng.random() < 0.7 else GELU)
    m["share_embeddings_and_output_weights"] = rng.random() < 0.5
    seq = rng.choice([1024, 2048, 4096])
    m["seq_length"] = seq
    m["make_vocab_size_divisible_by"] = rng.choice([64, 128, 3200])
    m["mtp_num_layers"] = None
    if rng.random() < 0.25:
        m["mtp_num_layers"] = rng.choice([1, 2])
    moe = kind in ("moe", "mla", "gptoss") and rng.random() < 0.85
    ep = 1
    if moe:
        ep = rng.choice([e for e in (1, 2, 4) if (dp * cp * tp) % e == 0])
        experts = ep * rng.choice([2, 4, 8])
        m.update({"num_moe_experts": experts, "expert_model_parallel_size": ep,
                  "moe_router_topk": min(experts, rng.choice([1, 2, 4])),
                  "moe_router_pre_softmax": True,
                  "moe_ffn_hidden_size": rng.choice([None, h // 2, h // 4]),
                  "moe_shared_expert_intermediate_size": rng.choice([None, None, h, h // 2]),
                  "expert_tensor_parallel_size": rng.choice([None, None, 1])})
        r = rng.random()
        if r < 0.3:
            m["moe_layer_freq"] = rng.choice([1, 2])
        elif r < 0.5:
            m["moe_layer_freq"] = [int(i % 3 != 0) for i in range(layers)]
        else:
            m["moe_layer_freq"] = 1
        if rng.random() < 0.1:
            m["moe_latent_size"] = h // 2
    elif kind != "dense":
        m.update({"num_moe_experts": None, "expert_model_parallel_size": 1,
                  "moe_ffn_hidden_size": None, "moe_shared_expert_intermediate_size": None,
                  "moe_layer_freq": 1, "expert_tensor_parallel_size": None})
    r = rng.random()
    if r < 0.4:
        m["recompute_granularity"] = "selective"
        m["recompute_method"] = None
        m["recompute_num_layers"] = None
    elif r < 0.6:
        m["recompute_granularity"] = "full"
        m["recompute_method"] = "uniform"
        m["recompute_num_layers"] = 1
    else:
        m["recompute_granularity"] = None
        m["recompute_method"] = None
        m["recompute_num_layers"] = None
    for k, v in m.items():
        ov["model." + k] = v
    dist = rng.random() < 0.6
    ov["optimizer.use_distributed_optimizer"] = dist
    ov["ddp.use_distributed_optimizer"] = dist if rng.random() < 0.8 else not dist
    if dist and rng.random() < 0.3:
        ov["optimizer.use_precision_aware_optimizer"] = True
        ov["ddp.use_distributed_optimizer"] = True
    mbs = rng.choice([1, 1, 2, 4])
    ov["train.micro_batch_size"] = mbs
    ov["train.global_batch_size"] = mbs * dp * rng.choice([1, 2, 3, 8])
    ov["dataset.seq_length"] = seq
    tok = rng.choice([32000, 50257, 128256, 100000])
    ov["tokenizer.tokenizer_type"] = "NullTokenizer"
    ov["tokenizer.vocab_size"] = tok
    if rng.random() < 0.6:
        ov["tokenizer.use_tokenizer_vocab_size"] = True
    else:
        ov["tokenizer.use_tokenizer_vocab_size"] = False
        ov["model.vocab_size"] = tok + rng.choice([0, 0, 1, 1000])
    world = tp * pp * cp * dp
    if world % ((m.get("expert_tensor_parallel_size") or tp) * ep * pp):
        world *= ep
    return {"base": BASES[kind], "overrides": ov, "world": world}


def write_yaml(case, path):
    oraclelib.write_dump(os.path.join(DUMPS, case["base"]), case["overrides"].items(), path)


def bridge_estimate(path, world):
    """Bridge's figures for the YAML at world, as pretrain() has the config; or (None, why)."""
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            oraclelib._isolated_env(world):
        warnings.simplefilter("ignore")
        try:
            cfg = ConfigContainer.from_yaml(path)
            runtime_config_update(cfg)
        except Exception as e:  # noqa: BLE001 -- a refused config
            return None, "refused: " + oraclelib._short(e)[:200]
        m, t = cfg.model, cfg.train
        if getattr(m, "is_hybrid_model", False) or getattr(m, "hybrid_layer_pattern", None):
            return None, "hybrid"
        tok_type = getattr(cfg.tokenizer, "tokenizer_type", None)
        use_tok = bool(getattr(cfg.tokenizer, "use_tokenizer_vocab_size", False))
        if tok_type == "NullTokenizer":
            from megatron.bridge.training.tokenizers.tokenizer import build_tokenizer

            tok_vocab = build_tokenizer(cfg.tokenizer).vocab_size
        elif m.vocab_size is not None and not use_tok:
            tok_vocab = m.vocab_size  # a tokenizer not loaded offline: assumed not larger
        else:
            return None, "vocabulary unknown offline"
        try:
            m.vocab_size, m.should_pad_vocab = _validate_and_set_vocab_size(m.vocab_size, tok_vocab, use_tok)
            from megatron.core import num_microbatches_calculator as nmc

            calc = nmc._build_num_microbatches_calculator(
                0, t.global_batch_size, t.micro_batch_size, cfg.data_parallel_size,
                getattr(t, "decrease_batch_size_if_needed", False))
            est = estimate_training_memory(cfg, num_microbatches=calc.get())
        except Exception as e:  # noqa: BLE001 -- the estimator raises
            return None, "estimator raised: " + oraclelib._short(e)[:200]
    return {
        "weights_and_optimizer_bytes": est.weight_and_optimizer_bytes,
        "activation_bytes": est.activation.memory_bytes,
        "total_bytes": est.total_memory_bytes,
        "components": [{"name": c.name, "parameter_count": c.parameter_count,
                        "parameter_count_per_gpu": c.parameter_count_per_gpu,
                        "bytes_per_parameter": c.bytes_per_parameter, "memory_bytes": c.memory_bytes}
                       for c in est.model_state_components],
        "total_parameters": est.total_parameters,
        "assumptions": list(est.assumptions),
    }, None


def mcinit_memory(mcinit, path, world):
    p = subprocess.run([mcinit, "validate", path, "--world-size", str(world), "--memory-model", "bridge",
                        "--format", "json"], capture_output=True, text=True,
                       env=dict(os.environ, HOME="/nonexistent"))
    try:
        return json.loads(p.stdout)["derived"].get("memory")
    except (ValueError, KeyError, TypeError):
        return {"error": "rc %d: %s" % (p.returncode, p.stderr[-200:])}


def differences(want, got):
    """The figures that differ, as (key, Bridge's, mcinit's)."""
    if got is None or "not_estimated" in got or "error" in got:
        return [("memory", "estimated", got)]
    bad = []
    for k in ("weights_and_optimizer_bytes", "activation_bytes", "total_bytes", "total_parameters"):
        if got.get(k) != r15(want[k]):
            bad.append((k, want[k], got.get(k)))
    wc, gc = want["components"], got.get("components") or []
    if len(wc) != len(gc):
        bad.append(("components", len(wc), len(gc)))
    for w, g in zip(wc, gc):
        for k, v in w.items():
            if (g.get(k) != (v if k == "name" else r15(v))):
                bad.append(("%s.%s" % (w["name"], k), v, g.get(k)))
    if want["assumptions"] != got.get("assumptions"):
        bad.append(("assumptions", want["assumptions"], got.get("assumptions")))
    return bad


def run_gen(a):
    rng = random.Random(a.seed)
    import collections

    n = same = refused = 0
    rows, tsv, why_refused = [], [], collections.Counter()
    tmp = tempfile.mkdtemp(prefix="memdiff-")
    path = os.path.join(tmp, "case.yaml")
    while n < a.count:
        case = gen_case(rng)
        write_yaml(case, path)
        want, why = bridge_estimate(path, case["world"])
        if want is None:
            refused += 1
            why_refused[why[:90]] += 1
            if refused > 20 * a.count:
                break
            continue
        n += 1
        got = mcinit_memory(a.mcinit, path, case["world"])
        bad = differences(want, got)
        same += not bad
        rows.append({"case": case, "bridge": want, "mcinit": got, "same": not bad})
        tsv.append((case, want))
        if bad:
            print("DIFF %s world=%d %s\n  %s" % (case["base"], case["world"], json.dumps(case["overrides"]),
                                                  "\n  ".join("%s: bridge %r mcinit %r" % b for b in bad)))
    print("gen: %d cases Bridge accepts: %d equal in every figure, %d differ "
          "(%d generated cases Bridge refused, skipped)" % (n, same, n - same, refused))
    for why, k in why_refused.most_common(6):
        print("  refused %d: %s" % (k, why))
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    if a.tsv:
        write_tsv(a.tsv, tsv, a.seed)
    return 0 if same == n else 1


def assumption_order(lists):
    """Bridge's assumption lines in its order: every list is a subsequence of it."""
    order = []
    for lst in lists:
        for i, t in enumerate(lst):
            if t not in order:
                order.insert(order.index(lst[i - 1]) + 1 if i else 0, t)
    return order


def write_tsv(out, cases, seed):
    """Golden rows, one per kind: base, world, overrides (JSON), Bridge's figures (JSON, the
    assumptions as indices into OUT's sibling -assumptions.txt, Bridge's lines in its order)."""
    order = assumption_order([want["assumptions"] for _, want in cases])
    picked, seen = [], set()
    for case, want in cases:
        o = case["overrides"]
        k = (case["base"], len(want["components"]), o.get("model.pipeline_model_parallel_size", 1) > 1,
             bool(o.get("model.mtp_num_layers")), bool(o.get("model.virtual_pipeline_model_parallel_size")),
             o.get("model.num_layers_in_first_pipeline_stage") is not None
             or o.get("model.num_layers_in_last_pipeline_stage") is not None
             or o.get("model.pipeline_model_parallel_layout") is not None)
        if k not in seen:
            seen.add(k)
            w = dict(want, assumptions=[order.index(t) for t in want["assumptions"]])
            base = yaml.safe_load(open(os.path.join(DUMPS, case["base"])))
            # only what differs from the dump: the same file once merged over it
            ov = {k: v for k, v in o.items()
                  if (base.get(k.split(".")[0]) or {}).get(k.split(".", 1)[1], KeyError) != v}
            picked.append((dict(case, overrides=ov), w))
    with open(out, "w") as f:
        f.write("# Megatron-Bridge 0.6.2's own estimate_training_memory (theoretical_memory_utils.py) on\n"
                "# configs of tests/oracle/bridge/memory_diff.py's corpus (seed %d), one per kind: a\n"
                "# recipe dump of tests/bridge/0.6.2, the world size, the overrides over it (JSON), and\n"
                "# Bridge's figures (JSON, floats as Python's repr; assumptions: lines of\n"
                "# bridge-0.6.2-assumptions.txt).  Written by the oracle; tests/cli/memory.sh reads it.\n"
                % seed)
        f.write("base\tworld\toverrides\tbridge\n")
        for case, want in picked:
            f.write("%s\t%d\t%s\t%s\n" % (case["base"], case["world"], json.dumps(case["overrides"]),
                                          json.dumps(want)))
    with open(out[:-4] + "-assumptions.txt", "w") as f:
        f.write("".join(t + "\n" for t in order))


def run_tsv(a):
    """--tsv from the rows of an earlier gen run (--out), Bridge not run again."""
    cases = [(r["case"], r["bridge"]) for r in map(json.loads, open(a.rows)) if r["same"]]
    write_tsv(a.tsv, cases, a.seed)
    return 0


def run_recipes(a):
    import glob

    work = os.environ.get("BRIDGE_ORACLE_WORK", ".")
    n = same = none_both = 0
    for j in sorted(glob.glob(os.path.join(work, "recipes", "*.json"))):
        o = json.load(open(j))
        y = j[:-5] + ".yaml"
        if not o.get("accepted") or not os.path.exists(y):
            continue
        n += 1
        ws = o["world_size"]
        want, why = bridge_estimate(y, ws)
        got = mcinit_memory(a.mcinit, y, ws)
        name = os.path.basename(y)
        if want is None:
            ok = got is not None and "not_estimated" in got
            none_both += ok
            same += ok
            if not ok:
                print("DIFF %s ws=%d: Bridge: %s; mcinit: %s" % (name, ws, why, json.dumps(got)[:300]))
            continue
        bad = differences(want, got)
        same += not bad
        if bad:
            print("DIFF %s ws=%d\n  %s" % (name, ws, "\n  ".join("%s: bridge %r mcinit %r" % b for b in bad)))
    print("recipes: %d dumps Bridge accepts: %d agree (%d of them not estimated by either: a tokenizer "
          "not loaded offline, or a hybrid model), %d differ" % (n, same, none_both, n - same))
    return 0 if same == n else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mcinit")
    ap.add_argument("what", choices=["gen", "recipes", "tsv"])
    ap.add_argument("--rows", help="tsv: the --out of a gen run")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--tsv")
    a = ap.parse_args()
    return {"gen": run_gen, "recipes": run_recipes, "tsv": run_tsv}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
