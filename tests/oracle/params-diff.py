#!/usr/bin/env python3
"""Differential of mcinit's parameters per rank (`mcinit validate
--memory-model mcinit`, derived.memory.parameters) against the parameters
Megatron-Core itself allocates.

For each generated case (Megatron-LM flags of small shapes: dense, GQA, MLA
with and without q-LoRA, MoE with shared experts and gates and a layer
pattern, MTP, tied and untied embeddings, SwiGLU, biases, qk-layernorm,
learned or rotary positions; TP, PP, virtual PP, uneven first and last
stages, EP, ETP), the world's ranks are forked as CPU processes that join a
gloo process group, call parallel_state.initialize_model_parallel, and build
(tests/oracle/cpumodel.py, which activations-diff.py shares)
Megatron-Core's GPTModel (one model chunk per virtual stage, pre_process and
post_process as Megatron-LM's get_model sets them) with
use_cpu_initialization and the local layer spec (Transformer Engine has no
CPU wheel), wrapped in Float16Module as Megatron-LM wraps it under
--bf16/--fp16.  Each rank counts its parameters by dtype, by kind (from the
parameter's name) and dense against expert (the parameter's allreduce
attribute); mcinit's figure for the rank's pipeline stage must be equal.
Not part of the build (it needs megatron-core and torch):

    /var/tmp/bridge-venv/bin/python tests/oracle/params-diff.py \\
        --mcinit _build/src/mcinit --count 120 --seed 1

Output: one line per disagreement, then "N equal / N total".  --tsv FILE
writes the cases with Megatron-Core's counts (tests/memory/params-*.tsv).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpumodel  # noqa: E402

KINDS = ["embedding", "attention", "mlp", "experts", "norms", "output", "mtp"]
TSV_KEYS = ["total"] + KINDS + ["expert"]


def gen_case(rng, i):
    """One case: a shape, its parallel sizes, and the features to combine."""
    c = {}
    variant = ["dense", "gqa", "moe", "mla", "mtp"][i % 5]
    heads = rng.choice([2, 4, 8])
    h = heads * rng.choice([4, 8, 16])
    c["h"], c["heads"] = h, heads
    c["kv"] = rng.choice([None, None, 8])
    c["groups"] = None
    c["swiglu"] = rng.random() < 0.5
    c["bias"] = rng.random() < 0.5
    c["qkv_bias"] = (not c["bias"]) and rng.random() < 0.3
    c["qk_ln"] = rng.random() < 0.4
    c["rms"] = rng.random() < 0.5
    c["untie"] = rng.random() < 0.5
    c["pos"] = rng.choice(["learned_absolute", "rope"])
    # (SwiGLU's default MLP size is 0 below a hidden size of 24)
    c["ffn"] = rng.choice([None, h * 2, h * 3]) if h >= 24 or not c["swiglu"] else h * 2
    c["vocab"] = rng.randint(100, 300)
    c["div"] = rng.choice([8, 16, 128])
    c["maxpos"] = rng.choice([32, 64])
    c["dtype"] = rng.choice(["bf16", "bf16", "fp16", "fp32"])
    c["mla"] = None
    c["moe"] = None
    c["mtp"] = None
    c["first"] = c["last"] = None
    tp, pp = cpumodel.draw_tp_pp(rng, heads)
    if variant == "gqa":
        gs = [g for g in (1, 2, 4, 8) if heads % g == 0 and g % tp == 0 and g < heads]
        if gs:
            c["groups"] = rng.choice(gs)
    if variant == "mla":
        c["mla"] = {"q_lora": rng.choice([None, 16, 32]), "kv_lora": rng.choice([16, 32]),
                    "qk_head": rng.choice([8, 16]), "qk_pos": rng.choice([4, 8]),
                    "v_head": rng.choice([8, 16])}
        c["pos"] = "rope"
        c["kv"] = None
        # without a q LoRA, Transformer Engine fuses a norm into linear_q_proj
        # that the local modules cannot build: mcinit does not count it
        if c["mla"]["q_lora"] is None:
            c["qk_ln"] = False
    dp = 1
    ep = etp = 1
    if variant in ("moe", "mtp") and (variant == "moe" or rng.random() < 0.5):
        experts = rng.choice([2, 4, 8])
        ep = rng.choice([e for e in (1, 2, 4) if experts % e == 0])
        # (Megatron-Core refuses biases in MoE with ETP > 1)
        etp = 1 if c["bias"] else rng.choice([1, tp])
        while etp * ep * pp > 8:
            ep //= 2
            if ep < 1:
                ep = 1
                break
        # (Megatron-Core refuses biases in the shared experts)
        c["moe"] = {"experts": experts, "topk": 2,
                    "ffn": rng.choice([None, h // 2, h]),
                    "shared": None if c["bias"] else rng.choice([None, h, h // 2]),
                    "gate": rng.random() < 0.5,
                    "freq": None}
    if variant == "mtp":
        c["mtp"] = rng.choice([1, 2])
    # world = tp * pp * dp; the expert side needs world % (etp * ep * pp) == 0
    world = tp * pp
    while world % (etp * ep * pp):
        world *= 2
    if world > 8:
        ep, etp, world = 1, 1, tp * pp
    if rng.random() < 0.3 and world * 2 <= 8:
        world *= 2
    dp = world // (tp * pp)
    vpp = rng.choice([None, None, 2]) if pp > 1 else None
    chunks = pp * (vpp or 1)
    layers = chunks * rng.choice([1, 2])
    if pp > 1 and vpp is None and rng.random() < 0.3:
        # uneven first and last stages
        mid = rng.choice([1, 2])
        first, last = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
        c["first"], c["last"] = first, last
        layers = first + last + mid * (pp - 2)
    c["layers"] = layers
    c["layout"] = None
    if pp > 1 and c["first"] is None and rng.random() < 0.3:
        c["layout"] = cpumodel.deal_layout(rng, layers, chunks, c["mtp"])
    if c["moe"] and rng.random() < 0.5:
        if rng.random() < 0.5:
            c["moe"]["freq"] = rng.choice([1, 2, 3])
        else:
            c["moe"]["freq"] = [rng.choice([0, 1]) for _ in range(layers)]
    c.update(tp=tp, pp=pp, vpp=vpp, ep=ep, etp=etp, world=world, dp=dp)
    return c


def flags(c):
    """Megatron-LM's flags for the case (what `mcinit validate` reads)."""
    f = ["--num-layers", c["layers"], "--hidden-size", c["h"],
         "--num-attention-heads", c["heads"], "--seq-length", 32,
         "--max-position-embeddings", c["maxpos"], "--micro-batch-size", 1,
         "--global-batch-size", 8 * c["dp"], "--train-iters", 10, "--lr", "1e-4",
         "--vocab-size", c["vocab"], "--make-vocab-size-divisible-by", c["div"],
         "--tokenizer-type", "NullTokenizer",
         "--tensor-model-parallel-size", c["tp"],
         "--pipeline-model-parallel-size", c["pp"],
         "--position-embedding-type", c["pos"]]
    if c["dtype"] != "fp32":
        f += ["--" + c["dtype"]]
    if c["kv"]:
        f += ["--kv-channels", c["kv"]]
    if c["groups"]:
        f += ["--group-query-attention", "--num-query-groups", c["groups"]]
    if c["ffn"]:
        f += ["--ffn-hidden-size", c["ffn"]]
    if c["swiglu"]:
        f += ["--swiglu"]
    if not c["bias"]:
        f += ["--disable-bias-linear"]
    if c["qkv_bias"]:
        f += ["--add-qkv-bias"]
    if c["qk_ln"]:
        f += ["--qk-layernorm"]
    if c["rms"]:
        f += ["--normalization", "RMSNorm"]
    if c["untie"]:
        f += ["--untie-embeddings-and-output-weights"]
    if c["vpp"] and not c["layout"]:  # a layout implies it
        f += ["--num-virtual-stages-per-pipeline-rank", c["vpp"]]
    if c["layout"]:
        f += ["--pipeline-model-parallel-layout", c["layout"]]
    if c["first"] is not None:
        f += ["--decoder-first-pipeline-num-layers", c["first"],
              "--decoder-last-pipeline-num-layers", c["last"]]
    m = c["mla"]
    if m:
        f += ["--multi-latent-attention", "--kv-lora-rank", m["kv_lora"],
              "--qk-head-dim", m["qk_head"], "--qk-pos-emb-head-dim", m["qk_pos"],
              "--v-head-dim", m["v_head"]]
        if m["q_lora"]:
            f += ["--q-lora-rank", m["q_lora"]]
    e = c["moe"]
    if e:
        f += ["--num-experts", e["experts"], "--moe-router-topk", e["topk"],
              "--expert-model-parallel-size", c["ep"],
              "--expert-tensor-parallel-size", c["etp"]]
        if e["ffn"]:
            f += ["--moe-ffn-hidden-size", e["ffn"]]
        if e["shared"]:
            f += ["--moe-shared-expert-intermediate-size", e["shared"]]
            if e["gate"]:
                f += ["--moe-shared-expert-gate"]
        if e["freq"] is not None:
            fr = e["freq"]
            f += ["--moe-layer-freq",
                  fr if isinstance(fr, int) else "([" + ",".join(map(str, fr)) + "])"]
    if c["mtp"]:
        f += ["--mtp-num-layers", c["mtp"]]
    return [str(x) for x in f]


def kind_of(name):
    """The kind of a parameter, from its name in GPTModel."""
    if name.startswith("mtp."):
        return "mtp"
    if name.startswith("embedding."):
        return "embedding"
    if name.startswith("output_layer."):
        return "output"
    leaf = name.rsplit(".", 2)[-2]
    if leaf.endswith("layernorm") or leaf.endswith("norm"):
        return "norms"
    if ".mlp.experts." in name:
        return "experts"
    if ".self_attention." in name:
        return "attention"
    if ".mlp." in name:
        return "mlp"
    raise ValueError("no kind for " + name)


class NoParamAttention:
    """Stands for the core attention of MLA: the local DotProductAttention
    does not take MLA's head sizes, and no core attention holds a parameter."""

    def __new__(cls, *args, **kwargs):
        import torch

        return torch.nn.Module()


def mla_as_te(spec):
    """MLA as Megatron-LM builds it (Transformer Engine's spec; the local spec
    cannot run MLA): the q and kv down-projections duplicated on every TP
    rank (TELinear, parallel_mode="duplicated"), here modelopt's plain
    Linear, which MLASelfAttention duplicates when it is the TELinear it
    knows."""
    import megatron.core.transformer.multi_latent_attention as mla
    from megatron.core.post_training.modelopt.layers import Linear

    mla.TELinear = Linear

    layer_specs = getattr(spec, "layer_specs", None) or [spec]
    for ls in layer_specs:
        sub = ls.submodules.self_attention.submodules
        sub.linear_q_down_proj = Linear
        sub.linear_kv_down_proj = Linear
        sub.core_attention = NoParamAttention


def rank_main(rank, c, port):
    """One rank: join the group, build its model chunks, count."""
    warnings.filterwarnings("ignore")
    import torch
    from megatron.core import parallel_state as ps
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_mtp_block_spec
    from megatron.core.transformer.transformer_config import (
        MLATransformerConfig, TransformerConfig)

    cpumodel.cpu_device()
    cpumodel.join(c, rank, port, virtual_pipeline_model_parallel_size=c["vpp"],
                  expert_model_parallel_size=c["ep"], expert_tensor_parallel_size=c["etp"])
    dtype = {"bf16": torch.bfloat16, "fp16": torch.half, "fp32": torch.float}[c["dtype"]]
    kw = cpumodel.config_kw(c, dtype)
    kw.update(virtual_pipeline_model_parallel_size=c["vpp"],
              expert_model_parallel_size=c["ep"], expert_tensor_parallel_size=c["etp"],
              add_qkv_bias=c["qkv_bias"], qk_layernorm=c["qk_ln"])
    if c["ffn"]:
        kw["ffn_hidden_size"] = c["ffn"]
    elif c["swiglu"]:
        kw["ffn_hidden_size"] = int((4 * c["h"] * 2 / 3) / 64) * 64
    if c["kv"]:
        kw["kv_channels"] = c["kv"]
    if c["layout"]:
        kw["pipeline_model_parallel_layout"] = c["layout"]
    if c["first"] is not None:
        kw["num_layers_in_first_pipeline_stage"] = c["first"]
        kw["num_layers_in_last_pipeline_stage"] = c["last"]
    e = c["moe"]
    if e:
        kw.update(num_moe_experts=e["experts"], moe_router_topk=e["topk"],
                  moe_ffn_hidden_size=e["ffn"] or kw.get("ffn_hidden_size", 4 * c["h"]),
                  moe_shared_expert_intermediate_size=e["shared"],
                  moe_shared_expert_gate=bool(e["shared"]) and e["gate"],
                  moe_grouped_gemm=False)
        if e["freq"] is not None:
            kw["moe_layer_freq"] = e["freq"]
    if c["mtp"]:
        kw["mtp_num_layers"] = c["mtp"]
    m = c["mla"]
    if m:
        kw.update(multi_latent_attention=True, q_lora_rank=m["q_lora"],
                  kv_lora_rank=m["kv_lora"], qk_head_dim=m["qk_head"],
                  qk_pos_emb_head_dim=m["qk_pos"], v_head_dim=m["v_head"],
                  rope_type="rope")
        cfg = MLATransformerConfig(**kw)
    else:
        cfg = TransformerConfig(**kw)
    counts = {}
    layers = []
    for v in range(c["vpp"] or 1):
        vp = v if c["vpp"] else None
        spec = cpumodel.layer_spec(cfg, c, qk_layernorm=c["qk_ln"], mla=bool(m), vp_stage=vp)
        if m:
            mla_as_te(spec)
        mtp_spec = None
        if c["mtp"]:
            mtp_spec = get_gpt_mtp_block_spec(cfg, spec, use_transformer_engine=False,
                                              vp_stage=vp)
        model = cpumodel.gpt_model(
            cfg, spec, c, padded_vocab(c), c["maxpos"],
            ps.is_pipeline_first_stage(ignore_virtual=False, vp_stage=vp),
            ps.is_pipeline_last_stage(ignore_virtual=False, vp_stage=vp),
            mtp_block_spec=mtp_spec, vp_stage=vp)
        layers.append(len(model.decoder.layers))
        if c["dtype"] != "fp32":
            model = cpumodel.float16(cfg, model)
        for name, p in model.named_parameters():
            name = name.removeprefix("module.")
            dt = str(p.dtype).removeprefix("torch.")
            side = "dense" if getattr(p, "allreduce", True) else "expert"
            for key in (kind_of(name), "dt:" + dt, side, "total"):
                counts[key] = counts.get(key, 0) + p.numel()
    return ps.get_pipeline_model_parallel_rank(), counts, layers


def padded_vocab(c):
    """Megatron-LM's _vocab_size_with_padding (--make-vocab-size-divisible-by)."""
    return cpumodel.padded_vocab(c, c["div"])


def core_counts(c, port):
    """Every rank's (stage, counts, layers), or an error."""
    return cpumodel.run_ranks(c, rank_main, c, port)


DTNAME = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}


def as_mcinit(counts):
    """A rank's counts in the names of mcinit's JSON."""
    r = {k: counts.get(k, 0) for k in KINDS}
    r.update(total=counts.get("total", 0), dense=counts.get("dense", 0),
             expert=counts.get("expert", 0))
    r["by_dtype"] = {DTNAME[k[3:]]: v for k, v in counts.items() if k.startswith("dt:")}
    return r


def mcinit_ranks(mcinit, c):
    """mcinit's parameters per kind of rank, as {stage: figures}, or why not."""
    cmd = [mcinit, "validate", "--world-size", str(c["world"]), "--memory-model", "mcinit",
           "--format", "json", "--"] + flags(c)
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        mem = json.loads(p.stdout)["derived"].get("memory") or {}
    except ValueError:
        return None, "no JSON (exit %d): %s" % (p.returncode, p.stderr[-300:])
    par = mem.get("parameters")
    if not isinstance(par, dict) or "ranks" not in par:
        return None, "not estimated: %s" % (par or mem)
    out = {}
    for k in par["ranks"]:
        fig = {x: k[x] for x in KINDS + ["total", "dense", "expert"]}
        # (a stage with no parameter has no dtype in Megatron-Core's count)
        fig["by_dtype"] = {d: n for d, n in k["by_dtype"].items() if n}
        for s in k["stages"]:
            out[s] = (fig, k["layers"])
    return out, None


def compare(mcinit, c, port):
    """None when mcinit and Megatron-Core agree on every rank, else why not."""
    core, err = core_counts(c, port)
    if err:
        return "megatron-core failed: " + err.strip().splitlines()[-1], None
    mine, err = mcinit_ranks(mcinit, c)
    if err:
        return "mcinit: " + err, core
    for rank in sorted(core):
        stage, counts, layers = core[rank]
        want = as_mcinit(counts)
        got = mine.get(stage)
        if got is None:
            return "rank %d (stage %d): mcinit has no figure" % (rank, stage), core
        if got[0] != want or got[1] != layers:
            diff = {k: (got[0].get(k), want[k]) for k in want if got[0].get(k) != want[k]}
            return "rank %d (stage %d): mcinit, core: %s layers %s %s" % (
                rank, stage, diff, got[1], layers), core
    return None, core


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcinit", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tsv", help="write the cases and Megatron-Core's counts here")
    ap.add_argument("--port", type=int, default=29700)
    ap.add_argument("--only", type=int, help="run case N only")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = [gen_case(rng, i) for i in range(a.count)]
    equal, rows = 0, []
    for i, c in enumerate(cases):
        if a.only is not None and i != a.only:
            continue
        why, core = compare(a.mcinit, c, a.port + i % 200)
        if why is None:
            equal += 1
            stages = {}
            for stage, counts, _ in core.values():
                r = as_mcinit(counts)
                stages[stage] = ":".join(str(r[k]) for k in TSV_KEYS)
            rows.append((i, c, ["%d:%s" % (s, stages[s]) for s in sorted(stages)]))
        else:
            print("case %d: %s\n  flags: --world-size %d %s" % (
                i, why, c["world"], " ".join(flags(c))), flush=True)
    total = a.count if a.only is None else 1
    print("%d equal / %d total" % (equal, total))
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("# Megatron-Core 0.19.2's parameters per pipeline stage (GPTModel built "
                    "on the CPU with the\n# local spec, MLA's down-projections duplicated as "
                    "Transformer Engine's spec has them,\n# in Float16Module), every case "
                    "of tests/oracle/params-diff.py --seed %d on which mcinit\n# agreed; "
                    "written by the oracle, read by tests/cli/params.sh.  stages: one\n# "
                    "STAGE:%s per pipeline stage, every rank of a stage the same.\n"
                    "case\tworld\tdtype\tflags\tstages\n" % (a.seed, ":".join(TSV_KEYS)))
            for i, c, stages in rows:
                f.write("%d\t%d\t%s\t%s\t%s\n" % (i, c["world"], c["dtype"],
                                                   " ".join(flags(c)), " ".join(stages)))
    sys.exit(0 if equal == total else 1)


if __name__ == "__main__":
    main()
