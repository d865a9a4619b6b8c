#!/usr/bin/env python
"""params_diff.py — mcinit's parameters per kind of rank on a Megatron-Bridge 0.6.2
ConfigContainer (`mcinit validate DUMP OVERRIDES --memory-model mcinit`,
derived.memory.parameters) against the model Bridge's own provider builds.

usage: params_diff.py MCINIT [--count N] [--seed S] [--tsv GOLDEN.tsv] [--only I]

Each case is a recipe dump of tests/bridge/0.6.2 (dense: llama3_8b_pretrain, GPTModelProvider
with default_layer_spec; MoE: qwen3_30b_a3b_pretrain, the same provider and spec with experts;
MLA: deepseek_v2_lite_pretrain, MLAModelProvider with get_gpt_decoder_block_spec) with small
shapes and drawn overrides written as SECTION.FIELD=VALUE words (TP, PP, virtual PP, uneven
first/last stages, a pipeline layout, EP, ETP, GQA, untied embeddings, gated linear unit or
not, biases, qk-layernorm, learned or rotary positions, MTP, moe_layer_freq, shared experts).
The words are applied to the dump's dict and written as YAML; Bridge loads it
(ConfigContainer.from_yaml), runtime_config_update at the world size, sets the vocabulary as
setup() does (_validate_and_set_vocab_size with the NullTokenizer's size), then every rank of
the world, a forked CPU process in a gloo group with Megatron-Core's parallel state at the
config's sizes (tests/oracle/cpumodel.py), builds the model with the provider's own
provide_distributed_model(wrap_with_ddp=False, use_cpu_initialization=True) and Float16Module
as Bridge's get_model wraps it.  Transformer Engine has no CPU wheel: the layer spec is
replaced by its local twin of the same modules (Bridge's local_layer_spec for
default_layer_spec, one layer's spec for every layer; get_gpt_decoder_block_spec with
use_transformer_engine=False, MLA's down-projections duplicated as Transformer Engine's spec
has them, for the block spec), and the experts by SequentialMLP (moe_grouped_gemm off: the
same weights).  Each rank counts its parameters by kind, dtype and dense/expert as
tests/oracle/params-diff.py does; mcinit, run on the dump and the same words, must give
every stage the same figures.

Prints one line per disagreement and "N equal / N total (M refused by Bridge)"; --tsv writes
the agreeing cases for tests/cli/params.sh (tests/memory/params-bridge.tsv).  Not part of the
build; run with /var/tmp/bridge-venv/bin/python under nice.
"""
import argparse
import contextlib
import importlib.util
import inspect
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
sys.path.insert(0, os.path.dirname(HERE))
DUMPS = os.path.join(HERE, "..", "..", "bridge", "0.6.2")
with contextlib.redirect_stdout(io.StringIO()):
    import oraclelib  # noqa: E402  (stubs Transformer Engine before Megatron)
import cpumodel  # noqa: E402

_spec = importlib.util.spec_from_file_location("params_core", os.path.join(HERE, "..", "params-diff.py"))
core = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(core)

BASES = {
    "dense": "llama3_8b_pretrain_2gpu_h100_bf16.yaml",
    "moe": "qwen3_30b_a3b_pretrain_8gpu_h100_bf16.yaml",
    "mla": "deepseek_v2_lite_pretrain_8gpu_h100_bf16.yaml",
}


def word(k, v):
    """SECTION.FIELD=VALUE as a Hydra override word."""
    if v is None:
        s = "null"
    elif isinstance(v, bool):
        s = "true" if v else "false"
    elif isinstance(v, list):
        s = "[" + ",".join(str(x) for x in v) + "]"
    elif isinstance(v, str):
        s = "'" + v + "'"
    else:
        s = str(v)
    return "%s=%s" % (k, s)


def gen_case(rng, i):
    """One case: its base, its overrides (an ordered list of (key, value)), its world."""
    kind = ["dense", "dense", "moe", "mla", "moe"][i % 5]
    m = {}
    heads = rng.choice([2, 4, 8])
    h = heads * rng.choice([8, 16])
    tp, pp = cpumodel.draw_tp_pp(rng, heads)
    vpp = rng.choice([None, None, 2]) if pp > 1 else None
    chunks = pp * (vpp or 1)
    layers = chunks * rng.choice([1, 2])
    m.update(hidden_size=h, num_attention_heads=heads, kv_channels=rng.choice([None, 8]),
             tensor_model_parallel_size=tp, pipeline_model_parallel_size=pp,
             virtual_pipeline_model_parallel_size=vpp,
             num_layers_in_first_pipeline_stage=None, num_layers_in_last_pipeline_stage=None,
             pipeline_model_parallel_layout=None, sequence_parallel=False,
             context_parallel_size=1,
             gated_linear_unit=rng.random() < 0.6,
             share_embeddings_and_output_weights=rng.random() < 0.5,
             add_bias_linear=rng.random() < 0.4,
             qk_layernorm=rng.random() < 0.4,
             normalization=rng.choice(["RMSNorm", "LayerNorm"]),
             position_embedding_type=rng.choice(["rope", "learned_absolute"]),
             seq_length=rng.choice([32, 64]),
             make_vocab_size_divisible_by=rng.choice([8, 16, 128]),
             mtp_num_layers=rng.choice([None, None, None, 1]),
             recompute_granularity=None, recompute_method=None, recompute_num_layers=None,
             cuda_graph_impl="none", moe_grouped_gemm=False)
    m["ffn_hidden_size"] = rng.choice([None, h * 2, h * 3])
    gs = [g for g in (1, 2, 4) if heads % g == 0 and g % tp == 0 and g < heads]
    m["num_query_groups"] = rng.choice(gs) if gs and rng.random() < 0.6 else None
    ep = etp = 1
    if kind == "mla":
        m.update(q_lora_rank=rng.choice([None, 16]), kv_lora_rank=rng.choice([16, 32]),
                 qk_head_dim=rng.choice([8, 16]), qk_pos_emb_head_dim=rng.choice([4, 8]),
                 v_head_dim=rng.choice([8, 16]), position_embedding_type="rope",
                 kv_channels=None, num_query_groups=None)
        if m["q_lora_rank"] is None:
            m["qk_layernorm"] = False
    experts = None
    if kind in ("moe", "mla"):
        experts = rng.choice([2, 4, 8])
        ep = rng.choice([e for e in (1, 2, 4) if experts % e == 0])
        etp = 1 if m["add_bias_linear"] else rng.choice([1, tp])
        shared = None if m["add_bias_linear"] else rng.choice([None, h, h // 2])
        m.update(num_moe_experts=experts, moe_router_topk=min(2, experts),
                 moe_ffn_hidden_size=rng.choice([h // 2, h]),
                 moe_shared_expert_intermediate_size=shared,
                 moe_shared_expert_gate=bool(shared) and rng.random() < 0.5,
                 expert_model_parallel_size=ep, expert_tensor_parallel_size=etp,
                 moe_token_dispatcher_type="allgather", moe_router_dtype=None,
                 moe_permute_fusion=False, moe_router_fusion=False,
                 moe_shared_expert_overlap=False, moe_layer_freq=1)
    elif kind in ("moe", "mla"):
        m.update(num_moe_experts=None, expert_model_parallel_size=1,
                 expert_tensor_parallel_size=None, moe_shared_expert_intermediate_size=None,
                 moe_ffn_hidden_size=None, moe_layer_freq=1)
    world = tp * pp
    while world % (etp * ep * pp):
        world *= 2
    if world > 8:
        ep = etp = 1
        world = tp * pp
        if experts:
            m.update(expert_model_parallel_size=1, expert_tensor_parallel_size=1)
    if rng.random() < 0.3 and world * 2 <= 8:
        world *= 2
    if pp > 1 and vpp is None and rng.random() < 0.3:
        mid = rng.choice([1, 2])
        first, last = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
        m["num_layers_in_first_pipeline_stage"] = first
        m["num_layers_in_last_pipeline_stage"] = last
        layers = first + last + mid * (pp - 2)
    elif pp > 1 and rng.random() < 0.3:
        m["pipeline_model_parallel_layout"] = cpumodel.deal_layout(rng, layers, chunks,
                                                                  m["mtp_num_layers"])
        m["virtual_pipeline_model_parallel_size"] = None
    m["num_layers"] = layers
    if experts and rng.random() < 0.5:
        m["moe_layer_freq"] = rng.choice([1, 2]) if rng.random() < 0.5 else \
            [rng.choice([0, 1]) for _ in range(layers)]
    dp = world // (tp * pp)
    ov = [("model." + k, v) for k, v in m.items()]
    ov += [("train.micro_batch_size", 1), ("train.global_batch_size", 2 * dp),
           ("dataset.seq_length", m["seq_length"]),
           ("tokenizer.tokenizer_type", "NullTokenizer"),
           ("tokenizer.vocab_size", rng.randint(100, 300))]
    if rng.random() < 0.3:
        ov += [("tokenizer.use_tokenizer_vocab_size", False),
               ("model.vocab_size", None)]  # replaced below
        # (a vocabulary TP does not divide: the embedding refuses it)
        ov[-1] = ("model.vocab_size", (ov[-3][1] + rng.choice([0, 7])) // 8 * 8 + 8)
    else:
        ov += [("tokenizer.use_tokenizer_vocab_size", True)]
    return {"base": BASES[kind], "overrides": ov, "world": world}


def write_yaml(case, path):
    oraclelib.write_dump(os.path.join(DUMPS, case["base"]), case["overrides"], path)


def bridge_config(path, world):
    """The config as pretrain() builds the model from it, or (None, why)."""
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), \
            contextlib.redirect_stderr(sink), oraclelib._isolated_env(world):
        warnings.simplefilter("ignore")
        try:
            from megatron.bridge.training.config import ConfigContainer, runtime_config_update
            from megatron.bridge.training.setup import _validate_and_set_vocab_size
            from megatron.bridge.training.tokenizers.tokenizer import build_tokenizer

            cfg = ConfigContainer.from_yaml(path)
            runtime_config_update(cfg)
            m = cfg.model
            tok = build_tokenizer(cfg.tokenizer).vocab_size
            m.vocab_size, m.should_pad_vocab = _validate_and_set_vocab_size(
                m.vocab_size, tok, bool(cfg.tokenizer.use_tokenizer_vocab_size))
        except Exception as e:  # noqa: BLE001 -- a refused config
            return None, "refused: " + oraclelib._short(e)[:200]
    return cfg, None


def local_spec(m):
    """The provider's layer spec with the local modules in Transformer Engine's place."""
    import functools
    from megatron.bridge.models import gpt_provider
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_decoder_block_spec

    spec = m.transformer_layer_spec
    target = getattr(spec, "func", spec)
    if target is gpt_provider.default_layer_spec:
        return gpt_provider.local_layer_spec
    if target is get_gpt_decoder_block_spec:
        def block(config, vp_stage=None):
            s = get_gpt_decoder_block_spec(config, use_transformer_engine=False,
                                           normalization=config.normalization,
                                           vp_stage=vp_stage)
            if config.multi_latent_attention:
                core.mla_as_te(s)
            return s
        return block
    raise ValueError("layer spec %r" % (spec,))


def rank_main(rank, path, world, port):
    """One rank: join the group at the config's sizes, build its chunks, count."""
    warnings.filterwarnings("ignore")
    from megatron.core import parallel_state as ps

    import megatron.core.transformer.transformer_block as tblock

    # Transformer Engine is a stub here (oraclestub, for Bridge's imports):
    # the block's CPU offload context is then Megatron-Core's own, none
    tblock.get_cpu_offload_context = None
    # and the final norm of a block built from one layer's spec is torch's
    # (Transformer Engine's TENorm has the same weights)
    from megatron.core.transformer.torch_norm import WrappedTorchNorm

    tblock.LayerNormImpl = WrappedTorchNorm
    from megatron.bridge.models import gpt_provider
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_mtp_block_spec

    def local_mtp(config, vp_stage=None):
        # Bridge's mtp_block_spec with the local modules (it asks for
        # Transformer Engine's): the same layer spec, the same projection
        if not getattr(config, "mtp_num_layers", None):
            return None
        spec = config.transformer_layer_spec
        if callable(spec):
            spec = spec(config, vp_stage=vp_stage) if "vp_stage" in \
                inspect.signature(spec).parameters else spec(config)
        return get_gpt_mtp_block_spec(config, spec, use_transformer_engine=False,
                                      vp_stage=vp_stage)

    gpt_provider.mtp_block_spec = local_mtp
    cfg, why = bridge_config(path, world)
    if cfg is None:
        raise RuntimeError(why)
    m = cfg.model
    cpumodel.cpu_device()
    c = {"world": world, "tp": m.tensor_model_parallel_size, "pp": m.pipeline_model_parallel_size}
    cpumodel.join(c, rank, port,
                  virtual_pipeline_model_parallel_size=m.virtual_pipeline_model_parallel_size,
                  expert_model_parallel_size=m.expert_model_parallel_size,
                  expert_tensor_parallel_size=m.expert_tensor_parallel_size)
    m.transformer_layer_spec = local_spec(m)
    # the CUDA fusions the recipes turn on hold no parameter; torch's norms
    # and the CPU's linear layers refuse them
    for f in ("persist_layer_norm", "gradient_accumulation_fusion", "bias_activation_fusion",
              "masked_softmax_fusion", "apply_rope_fusion", "bias_dropout_fusion"):
        setattr(m, f, False)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        chunks = m.provide_distributed_model(wrap_with_ddp=False, use_cpu_initialization=True,
                                             fp16=m.fp16, bf16=m.bf16)
    counts, layers = {}, []
    for model in chunks:
        inner = model.module if hasattr(model, "module") else model
        layers.append(len(inner.decoder.layers))
        for name, p in model.named_parameters():
            name = name.removeprefix("module.")
            dt = str(p.dtype).removeprefix("torch.")
            side = "dense" if getattr(p, "allreduce", True) else "expert"
            if os.environ.get("PARAMS_DIFF_DEBUG"):
                print("rank %d: %s %s %s" % (rank, name, tuple(p.shape), dt), file=sys.stderr)
            for key in (core.kind_of(name), "dt:" + dt, side, "total"):
                counts[key] = counts.get(key, 0) + p.numel()
    return ps.get_pipeline_model_parallel_rank(), counts, layers


def mcinit_ranks(mcinit, case):
    """mcinit's parameters per stage on the dump and the words, or why not."""
    cmd = [mcinit, "validate", os.path.join(DUMPS, case["base"]), "--world-size",
           str(case["world"]), "--memory-model", "mcinit", "--format", "json"] + \
        [word(k, v) for k, v in case["overrides"]]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HOME="/nonexistent"))
    try:
        mem = json.loads(p.stdout)["derived"].get("memory") or {}
    except ValueError:
        return None, "no JSON (exit %d): %s" % (p.returncode, p.stderr[-300:])
    par = mem.get("parameters")
    if not isinstance(par, dict) or "ranks" not in par:
        return None, "not estimated: %s" % mem.get("parameters_not_estimated")
    out = {}
    for k in par["ranks"]:
        fig = {x: k[x] for x in core.KINDS + ["total", "dense", "expert"]}
        fig["by_dtype"] = {d: n for d, n in k["by_dtype"].items() if n}
        for s in k["stages"]:
            out[s] = (fig, k["layers"])
    return out, None


def compare(mcinit, case, port):
    """(None or why not, Bridge's ranks or None, "refused" when Bridge refuses)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "case.yaml")
        write_yaml(case, path)
        cfg, why = bridge_config(path, case["world"])
        if cfg is None:
            return why, None, True
        ranks, err = cpumodel.run_ranks({"world": case["world"]}, rank_main, path,
                                        case["world"], port)
    if err:
        if os.environ.get("PARAMS_DIFF_DEBUG"):
            print(err, file=sys.stderr)
        return "bridge failed: " + err.strip().splitlines()[-1], None, False
    mine, err = mcinit_ranks(mcinit, case)
    if err:
        return "mcinit: " + err, ranks, False
    for rank in sorted(ranks):
        stage, counts, layers = ranks[rank]
        want = core.as_mcinit(counts)
        got = mine.get(stage)
        if got is None:
            return "rank %d (stage %d): mcinit has no figure" % (rank, stage), ranks, False
        if got[0] != want or got[1] != layers:
            diff = {k: (got[0].get(k), want[k]) for k in want if got[0].get(k) != want[k]}
            return "rank %d (stage %d): mcinit, bridge: %s layers %s %s" % (
                rank, stage, diff, got[1], layers), ranks, False
    return None, ranks, False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mcinit")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tsv")
    ap.add_argument("--port", type=int, default=29900)
    ap.add_argument("--only", type=int)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = [gen_case(rng, i) for i in range(a.count)]
    equal = refused = total = 0
    rows = []
    for i, case in enumerate(cases):
        if a.only is not None and i != a.only:
            continue
        why, ranks, was_refused = compare(a.mcinit, case, a.port + i % 50)
        if was_refused:
            refused += 1
            print("case %d: Bridge %s" % (i, why), flush=True)
            continue
        total += 1
        words = " ".join(word(k, v) for k, v in case["overrides"])
        if why is None:
            equal += 1
            dtypes = set()
            stages = {}
            for stage, counts, _ in ranks.values():
                r = core.as_mcinit(counts)
                dtypes.update(r["by_dtype"])
                stages[stage] = ":".join(str(r[k]) for k in core.TSV_KEYS)
            rows.append((i, case, "/".join(sorted(dtypes)), words,
                         ["%d:%s" % (s, stages[s]) for s in sorted(stages)]))
        else:
            print("case %d: %s\n  %s --world-size %d %s" % (i, why, case["base"], case["world"],
                                                          words), flush=True)
    print("%d equal / %d total (%d refused by Bridge)" % (equal, total, refused))
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("# Megatron-Bridge 0.6.2's model, built by its own provider on the CPU (the "
                    "local twin of its\n# layer spec; Megatron-Core 0.19.2), parameters per "
                    "pipeline stage, every case of\n# tests/oracle/bridge/params_diff.py --seed "
                    "%d on which mcinit agreed; written by the\n# oracle, read by "
                    "tests/cli/params.sh.  base: a dump of tests/bridge/0.6.2; words: the\n"
                    "# overrides after it; stages: one STAGE:%s per pipeline\n# stage, every "
                    "rank of a stage the same.\ncase\tworld\tdtype\tbase\twords\tstages\n"
                    % (a.seed, ":".join(core.TSV_KEYS)))
            for i, case, dt, words, stages in rows:
                f.write("%d\t%d\t%s\t%s\t%s\t%s\n" % (i, case["world"], dt, case["base"], words,
                                                   " ".join(stages)))
    sys.exit(0 if equal == total else 1)


if __name__ == "__main__":
    main()
