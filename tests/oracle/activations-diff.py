#!/usr/bin/env python3
"""Differential of mcinit's activations per micro-batch (`mcinit validate
--memory-model mcinit`, derived.memory.activations) against the bytes a
forward pass of Megatron-Core saves for backward.

For each generated case (Megatron-LM flags of small shapes: dense, GQA,
SwiGLU, LayerNorm or RMSNorm, biases, learned or rotary positions; MoE with
top-1 or top-2 routing, shared experts, the auxiliary loss, a padded
capacity factor or drop-less routing, a layer pattern, EP 1 or 2, the
allgather dispatcher; TP 1/2/4 with sequence parallelism on and off;
recompute none, selective (core_attn, mlp, both), full uniform and block;
the softmax in fp32 or not; dropout or none; micro-batch size and sequence
length; PP stages first, middle, last), the world's ranks are forked as CPU processes that
join a gloo process group, as tests/oracle/params-diff.py does (both with
tests/oracle/cpumodel.py), and build Megatron-Core 0.19.2's GPTModel with the local layer spec (Transformer
Engine has no CPU wheel) in Float16Module.  Each rank runs one forward of
its pipeline stage on one micro-batch (the first stage from token ids, the
others from a hidden state that requires grad, the last with labels, to
the loss) inside torch.autograd.graph.saved_tensors_hooks, and counts every
distinct storage that the autograd graph still holds after the forward
(bytes, by dtype; the parameters' storages are not activations and are
left out).  mcinit's figure for the rank's pipeline stage must be within
5 % (--tolerance) on every rank.

--kind mla, mtp or alltoall generates the cases of one more kind, named
KIND-N, each a core case with: multi-latent attention (MLASelfAttention with
and without a q LoRA, RoPE or YaRN; its down-projections duplicated over TP
as Megatron-LM builds them, its core attention the local unfused one at
MLA's head sizes: MLACoreAttention); 1 or 2 MTP layers on the last stage
(get_gpt_mtp_block_spec of the local spec, their loss with the labels);
the alltoall token dispatcher (EP 1, 2 or 4; its all_to_all_single and its
uneven gathers over ETP run over gloo, its side CUDA stream is the CPU's
one: cpu_patches).

What this cannot measure, and is modelled or left to the GPU: context
parallelism (the local spec has no ring attention; mcinit divides the
sequence by CP), the fused kernels of Transformer Engine and Apex (the CPU
keeps fp32 copies in the norms and a 16-bit dropout mask where CUDA keeps a
bool one; mcinit's terms are those of the path measured here), workspaces,
the allocator's fragmentation and NCCL's buffers; the flex dispatcher
(DeepEP's or HybridEP's CUDA kernels); MLA's fused RoPE and its q/kv latent
norms (qk_layernorm); a capacity factor without padding (the tokens dropped
depend on the routing: mcinit counts none dropped).  Not part of the build:

    /var/tmp/bridge-venv/bin/python tests/oracle/activations-diff.py \\
        --mcinit _build/src/mcinit --count 200 --seed 1
    /var/tmp/bridge-venv/bin/python tests/oracle/activations-diff.py \\
        --mcinit _build/src/mcinit --kind mla --count 36 --seed 1

Output: one line per case past the tolerance, the worst ratio, then
"N within / N total".  --tsv FILE writes the cases with the measured bytes
(tests/memory/activations-core.tsv).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import traceback
import warnings
import weakref

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpumodel  # noqa: E402


def gen_case(rng, i):
    """One case: a shape, its parallel sizes, recompute and batch."""
    c = {}
    variant = ["dense", "gqa", "moe", "dense", "gqa", "moe"][i % 6]
    heads = rng.choice([4, 8])
    h = heads * rng.choice([8, 16])
    c.update(h=h, heads=heads, groups=None)
    c["swiglu"] = rng.random() < 0.5
    c["bias"] = rng.random() < 0.5
    c["rms"] = rng.random() < 0.5
    c["untie"] = rng.random() < 0.5
    c["pos"] = rng.choice(["learned_absolute", "rope"])
    c["ffn"] = rng.choice([h * 2, h * 4])
    c["vocab"] = rng.randint(100, 300)
    c["seq"] = rng.choice([16, 32, 64])
    c["mbs"] = rng.choice([1, 2, 4])
    tp, pp = cpumodel.draw_tp_pp(rng, heads, (1, 1, 2, 4))
    if variant == "gqa":
        gs = [g for g in (1, 2, 4) if heads % g == 0 and g % tp == 0 and g < heads]
        if gs:
            c["groups"] = rng.choice(gs)
    c["sp"] = tp > 1 and rng.random() < 0.5
    c["moe"], ep = None, 1
    if variant == "moe":
        topk = rng.choice([1, 2, 2])
        cf = rng.choice([None, None, 1.0, 1.5])
        c["moe"] = {"experts": rng.choice([4, 8]), "topk": topk,
                    "ffn": rng.choice([h // 2, h]), "shared": rng.choice([None, h]),
                    # (padded: without, the tokens dropped depend on the
                    # routing; mcinit counts none dropped, an upper bound)
                    "cf": cf, "pad": cf is not None,
                    "aux": rng.choice([0.0, 0.01]), "pre": topk == 1,
                    "freq": rng.choice([None, None, 2])}
        # Megatron requires SP with MoE and TP, no biases in the shared
        # experts nor with ETP > 1; the expert ranks are DP ranks
        c["sp"] = tp > 1
        c["bias"] = False
        ep = rng.choice([1, 2])
        while tp * pp * ep > 8:
            pp //= 2
    c["layers"] = layers = pp * rng.choice([1, 2, 3])
    rc = rng.choice(["none", "none", "selective", "full-uniform", "full-block"])
    c["recompute"] = rc
    c["rc_layers"] = None
    if rc == "full-uniform":
        c["rc_layers"] = rng.choice([n for n in (1, 2, 3) if (layers // pp) % n == 0])
    elif rc == "full-block":
        c["rc_layers"] = rng.randint(0, layers // pp)
    # selective: Megatron-Core's recompute_modules that the local spec
    # honours (layernorm needs Transformer Engine's norms)
    c["modules"] = None
    if rc == "selective":
        c["modules"] = rng.choice([None, ["core_attn"], ["mlp"], ["core_attn", "mlp"]])
    # the softmax in fp32 (--attention-softmax-in-fp32), and no dropout
    c["fp32sm"] = rng.random() < 0.25
    c["nodrop"] = rng.random() < 0.2
    c.update(tp=tp, pp=pp, ep=ep, world=tp * pp * ep)
    return c


def gen_kind(rng, i, kind):
    """A case of one of the kinds measured after the core corpus: "mla"
    (multi-latent attention, with and without a q LoRA, rope or YaRN),
    "mtp" (1 or 2 MTP layers on the last stage) and "alltoall" (the
    alltoall token dispatcher, EP 1, 2 or 4).  The rest of the shape is
    drawn as for the core corpus (dense, GQA or MoE in turn; MoE for
    alltoall; MLA takes no query groups)."""
    c = gen_case(rng, 2 if kind == "alltoall" else i % 3)
    c["kind"] = kind
    if kind == "mla":
        c["mla"] = {"q_lora": rng.choice([None, 16, 32]), "kv_lora": rng.choice([16, 32]),
                    "qk_head": rng.choice([8, 16]), "qk_pos": rng.choice([4, 8]),
                    "v_head": rng.choice([8, 16]), "rope": rng.choice(["rope", "yarn"])}
        c["pos"] = "rope"
        c["groups"] = None
        if c["recompute"] == "selective":
            c["modules"] = rng.choice([None, ["core_attn"], ["mlp"], ["core_attn", "mlp"]])
    if kind == "mtp":
        c["mtp"] = rng.choice([1, 2])
        # Megatron-Core recomputes an MTP layer uniformly one at a time
        # (MultiTokenPredictionLayer._checkpointed_forward asserts it)
        if c["recompute"] == "full-uniform":
            c["rc_layers"] = 1
    if kind == "alltoall":
        e = c["moe"]
        # EP 4 as well: the alltoall dispatcher's collectives are
        # all_to_all_single, which gloo has
        c["ep"] = rng.choice([e for e in (1, 2, 4) if e_ok(c, e)])
        c["world"] = c["tp"] * c["pp"] * c["ep"]
    return c


def e_ok(c, ep):
    """EP fits the world of at most 8 CPU processes and divides the experts."""
    return c["moe"]["experts"] % ep == 0 and c["tp"] * c["pp"] * ep <= 8


def flags(c):
    """Megatron-LM's flags for the case (what `mcinit validate` reads)."""
    f = ["--num-layers", c["layers"], "--hidden-size", c["h"],
         "--num-attention-heads", c["heads"], "--seq-length", c["seq"],
         "--max-position-embeddings", 64, "--micro-batch-size", c["mbs"],
         "--global-batch-size", 8 * c["mbs"], "--train-iters", 10, "--lr", "1e-4",
         "--vocab-size", c["vocab"], "--make-vocab-size-divisible-by", 16,
         "--tokenizer-type", "NullTokenizer", "--bf16",
         "--tensor-model-parallel-size", c["tp"],
         "--pipeline-model-parallel-size", c["pp"],
         "--position-embedding-type", c["pos"], "--ffn-hidden-size", c["ffn"]]
    if c["groups"]:
        f += ["--group-query-attention", "--num-query-groups", c["groups"]]
    if c["swiglu"]:
        f += ["--swiglu"]
    if not c["bias"]:
        f += ["--disable-bias-linear"]
    if c["rms"]:
        f += ["--normalization", "RMSNorm"]
    if c["untie"]:
        f += ["--untie-embeddings-and-output-weights"]
    e = c["moe"]
    if e:
        f += ["--num-experts", e["experts"], "--moe-router-topk", e["topk"],
              "--moe-ffn-hidden-size", e["ffn"], "--expert-model-parallel-size", c["ep"],
              "--moe-aux-loss-coeff", e["aux"]]
        if e["shared"]:
            f += ["--moe-shared-expert-intermediate-size", e["shared"]]
        if e["cf"]:
            f += ["--moe-expert-capacity-factor", e["cf"]]
        if e["pad"]:
            f += ["--moe-pad-expert-input-to-capacity"]
        if e["pre"]:
            f += ["--moe-router-pre-softmax"]
        if e["freq"]:
            f += ["--moe-layer-freq", e["freq"]]
    if e and c.get("kind") == "alltoall":
        f += ["--moe-token-dispatcher-type", "alltoall"]
    m = c.get("mla")
    if m:
        f += ["--multi-latent-attention", "--kv-lora-rank", m["kv_lora"],
              "--qk-head-dim", m["qk_head"], "--qk-pos-emb-head-dim", m["qk_pos"],
              "--v-head-dim", m["v_head"], "--rope-type", m["rope"]]
        if m["q_lora"]:
            f += ["--q-lora-rank", m["q_lora"]]
    if c.get("mtp"):
        f += ["--mtp-num-layers", c["mtp"]]
    if c["sp"]:
        f += ["--sequence-parallel"]
    if c["fp32sm"]:
        f += ["--attention-softmax-in-fp32"]
    if c["nodrop"]:
        f += ["--hidden-dropout", 0, "--attention-dropout", 0]
    rc = c["recompute"]
    if rc == "selective":
        f += ["--recompute-granularity", "selective"]
        if c["modules"]:
            f += ["--recompute-modules"] + c["modules"]
    elif rc.startswith("full"):
        f += ["--recompute-granularity", "full", "--recompute-method", rc[5:],
              "--recompute-num-layers", c["rc_layers"]]
    return [str(x) for x in f]




def cpu_patches():
    """What Megatron-Core asks of CUDA, done on the CPU: the device
    (cpumodel.cpu_device); the RNG tracker's states are the CPU generator's;
    the collectives of TP and SP go through the gloo calls that it has (no
    effect on what autograd saves: they run inside autograd Functions)."""
    import torch
    import torch.distributed as dist
    from megatron.core.tensor_parallel import mappings
    from megatron.core.tensor_parallel import random as tpr

    cpumodel.cpu_device()
    tpr._get_cuda_rng_state = lambda *a, **k: torch.get_rng_state()
    tpr._set_cuda_rng_state = lambda *a, **k: None
    torch.cuda.get_rng_state = lambda *a, **k: torch.get_rng_state()
    torch.cuda.set_rng_state = lambda *a, **k: None

    def all_gather(out, inp, group=None, async_op=False):
        n = dist.get_world_size(group)
        parts = list(out.chunk(n, dim=0))
        dist.all_gather(parts, inp, group=group)
        for a, b in zip(out.chunk(n, dim=0), parts):
            if a.data_ptr() != b.data_ptr():
                a.copy_(b)

    def reduce_scatter(out, inp, group=None, async_op=False):
        n = dist.get_world_size(group)
        full = inp.clone()
        dist.all_reduce(full, group=group)
        out.copy_(full.chunk(n, dim=0)[dist.get_rank(group)])

    # torch's norms refuse SP only because their weights would need SP's
    # gradient reduction; their forward on a sequence shard is the same
    from megatron.core.transformer import torch_norm

    new = torch_norm.WrappedTorchNorm.__new__

    def no_sp(cls, config, *a, **k):
        import copy

        config = copy.copy(config)
        config.sequence_parallel = False
        return new(cls, config, *a, **k)

    torch_norm.WrappedTorchNorm.__new__ = no_sp

    # The alltoall dispatcher copies its split sizes to the host on a side
    # CUDA stream and waits for an event; on the CPU there is one stream and
    # nothing to wait for (its tensors are on the CPU already, which
    # maybe_move_tensor_to_cpu leaves alone).  Its collectives are
    # all_to_all_single, which gloo has.
    class Stream:
        def wait_stream(self, other):
            pass

        def record_event(self):
            return Event()

    class Event:
        def synchronize(self):
            pass

    import contextlib

    stream = Stream()
    torch.cuda.Stream = lambda *a, **k: stream
    torch.cuda.current_stream = lambda *a, **k: stream
    torch.cuda.stream = lambda s: contextlib.nullcontext()
    # (the split sizes are then still tensors, which the CUDA path turned
    # into numpy arrays: the collective takes lists)
    a2a = dist.all_to_all_single

    def all_to_all_single(out, inp, output_split_sizes=None, input_split_sizes=None, **k):
        def ints(x):
            return x.tolist() if hasattr(x, "tolist") else x

        return a2a(out, inp, ints(output_split_sizes), ints(input_split_sizes), **k)

    dist.all_to_all_single = all_to_all_single
    # With ETP > 1 it gathers each TP rank's share of the tokens, of uneven
    # sizes, which gloo's all_gather refuses: padded to the largest here.
    gather = dist.all_gather

    def all_gather_v(outs, inp, group=None, async_op=False):
        sizes = [o.shape[0] for o in outs]
        if len(set(sizes)) == 1:
            return gather(outs, inp, group=group)
        pad = inp.new_zeros((max(sizes),) + tuple(inp.shape[1:]))
        pad[: inp.shape[0]] = inp
        bufs = [torch.empty_like(pad) for _ in outs]
        gather(bufs, pad, group=group)
        for o, b, n in zip(outs, bufs, sizes):
            o.copy_(b[:n])

    dist.all_gather = all_gather_v
    mappings.dist_all_gather_func = all_gather
    mappings.dist_reduce_scatter_func = reduce_scatter


class MLACoreAttention:
    """The local spec's core attention (DotProductAttention, unfused: the
    s x s scores, the softmax and its dropout) for MLA's head sizes, which
    it does not take as such: q and k of qk_head_dim + qk_pos_emb_head_dim,
    v and the context of v_head_dim (k_channels, v_channels, as
    MultiLatentAttention passes them to Transformer Engine's attention).
    Its tensors are what the unfused attention saves for any head size."""

    def __new__(cls, *args, k_channels=None, v_channels=None, **kwargs):
        from megatron.core.transformer.dot_product_attention import DotProductAttention

        att = DotProductAttention(*args, **kwargs)
        if v_channels is not None:  # (Attention builds one first, unused)
            att.hidden_size_per_partition = v_channels * att.num_attention_heads_per_partition
        return att


def mla_local(spec):
    """MLA as Megatron-LM builds it (Transformer Engine's spec, the one that
    runs MLA) with the local spec's modules: the q and kv down-projections
    duplicated on every TP rank (TELinear, parallel_mode="duplicated"; here
    modelopt's plain Linear, as tests/oracle/params-diff.py builds it), the
    up-projections column-parallel, no latent norms (qk_layernorm off), and
    the unfused core attention above."""
    import megatron.core.transformer.multi_latent_attention as mla
    from megatron.core.post_training.modelopt.layers import Linear

    mla.TELinear = Linear
    for ls in getattr(spec, "layer_specs", None) or [spec]:
        sub = ls.submodules.self_attention.submodules
        sub.linear_q_down_proj = Linear
        sub.linear_kv_down_proj = Linear
        sub.core_attention = MLACoreAttention


def rank_main(rank, c, port, detail):
    """One rank: join the group, build its stage, run one forward, count."""
    warnings.filterwarnings("ignore")
    import logging
    logging.disable(logging.WARNING)
    import torch
    from megatron.core import parallel_state as ps
    from megatron.core.tensor_parallel import random as tpr
    from megatron.core.transformer.transformer_config import TransformerConfig

    cpu_patches()
    torch.manual_seed(1234 + rank)
    cpumodel.join(c, rank, port, expert_model_parallel_size=c["ep"],
                  expert_tensor_parallel_size=c["tp"])
    tpr.model_parallel_cuda_manual_seed(1234)
    dtype = torch.bfloat16
    kw = cpumodel.config_kw(c, dtype)
    kw.update(sequence_parallel=c["sp"], ffn_hidden_size=c["ffn"],
              hidden_dropout=0.0 if c["nodrop"] else 0.1,
              attention_dropout=0.0 if c["nodrop"] else 0.1,
              # Megatron-LM's default: --attention-softmax-in-fp32 off
              attention_softmax_in_fp32=c["fp32sm"])
    rc = c["recompute"]
    if rc == "selective":
        kw.update(recompute_granularity="selective",
                  recompute_modules=c["modules"] or ["core_attn"])
    elif rc.startswith("full"):
        kw.update(recompute_granularity="full", recompute_method=rc[5:],
                  recompute_num_layers=c["rc_layers"])
    e = c["moe"]
    if e:
        # Megatron-LM's defaults: the allgather dispatcher, ETP = TP
        kw.update(num_moe_experts=e["experts"], moe_router_topk=e["topk"],
                  moe_ffn_hidden_size=e["ffn"], expert_model_parallel_size=c["ep"],
                  expert_tensor_parallel_size=c["tp"],
                  moe_shared_expert_intermediate_size=e["shared"],
                  moe_grouped_gemm=False, moe_token_dispatcher_type="allgather",
                  moe_expert_capacity_factor=e["cf"],
                  moe_pad_expert_input_to_capacity=e["pad"],
                  moe_router_load_balancing_type="aux_loss",
                  moe_aux_loss_coeff=e["aux"], moe_router_pre_softmax=e["pre"])
        if e["freq"]:
            kw["moe_layer_freq"] = e["freq"]
        if c.get("kind") == "alltoall":
            kw["moe_token_dispatcher_type"] = "alltoall"
    if c.get("mtp"):
        kw["mtp_num_layers"] = c["mtp"]
    m = c.get("mla")
    if m:
        from megatron.core.transformer.transformer_config import MLATransformerConfig

        kw.update(multi_latent_attention=True, q_lora_rank=m["q_lora"],
                  kv_lora_rank=m["kv_lora"], qk_head_dim=m["qk_head"],
                  qk_pos_emb_head_dim=m["qk_pos"], v_head_dim=m["v_head"],
                  rope_type=m["rope"])
        cfg = MLATransformerConfig(**kw)
    else:
        cfg = TransformerConfig(**kw)
    spec = cpumodel.layer_spec(cfg, c, mla=bool(m))
    if m:
        mla_local(spec)
    mtp_spec = None
    if c.get("mtp"):
        from megatron.core.models.gpt.gpt_layer_specs import get_gpt_mtp_block_spec

        mtp_spec = get_gpt_mtp_block_spec(cfg, spec, use_transformer_engine=False)
    pre, post = ps.is_pipeline_first_stage(), ps.is_pipeline_last_stage()
    model = cpumodel.gpt_model(cfg, spec, c, cpumodel.padded_vocab(c, 16), 64, pre, post,
                               mtp_block_spec=mtp_spec)
    # the MTP layers embed the input ids again, on the last stage
    pre_ids = pre or (post and bool(c.get("mtp")))
    model = cpumodel.float16(cfg, model)
    model.train()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    s, b = c["seq"], c["mbs"]
    ids = torch.randint(0, c["vocab"], (b, s))
    pos = torch.arange(s).unsqueeze(0).expand(b, s)
    mask = torch.tril(torch.ones(1, 1, s, s)) < 0.5
    labels = torch.randint(0, c["vocab"], (b, s)) if post else None
    if not pre:
        hs = s // c["tp"] if c["sp"] else s
        x = torch.randn(hs, b, c["h"], dtype=dtype, requires_grad=True)
        model.set_input_tensor(x)
    # A saved tensor is wrapped; what the graph still holds after the
    # forward is what backward needs (a checkpoint's forward without grad
    # may save tensors that are freed at once, and whose addresses are
    # reused: counting at pack time would merge or add them).
    class Saved:
        __slots__ = ("t", "where", "__weakref__")

    alive = weakref.WeakSet()

    def pack(t):
        w = Saved()
        w.t, w.where = t, None
        if detail:
            fr = [f for f in traceback.extract_stack()[:-1]
                  if "megatron" in f.filename or "torch/nn" in f.filename]
            w.where = ("%s:%d" % (fr[-1].filename.rsplit("/", 1)[-1], fr[-1].lineno)
                       if fr else "?")
        alive.add(w)
        return w

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda w: w.t):
        out = model(ids if pre_ids else None, pos if pre_ids else None, mask, labels=labels)
    seen, log = {}, []
    for w in sorted(alive, key=lambda w: w.t.untyped_storage().data_ptr()):
        st = w.t.untyped_storage()
        k = st.data_ptr()
        if k in params or k in seen:
            continue
        seen[k] = (st.nbytes(), str(w.t.dtype).removeprefix("torch."))
        if detail:
            log.append("%8d %-9s %-18s %s" % (st.nbytes(), seen[k][1],
                                               tuple(w.t.shape), w.where))
    del out
    by = {}
    for n, dt in seen.values():
        by[dt] = by.get(dt, 0) + n
    return ps.get_pipeline_model_parallel_rank(), by, log


def measure(c, port, detail=False):
    """Every rank's (stage, bytes by dtype, log), or an error."""
    return cpumodel.run_ranks(c, rank_main, c, port, detail)


def mcinit_stages(mcinit, c):
    """mcinit's activation bytes per micro-batch by stage, or why not: the
    local spec's figure, the spec this oracle builds (mcinit's default is
    transformer_engine's, Megatron's own default)."""
    cmd = [mcinit, "validate", "--world-size", str(c["world"]), "--memory-model", "mcinit",
           "--format", "json", "--"] + flags(c) + ["--transformer-impl", "local"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        mem = json.loads(p.stdout)["derived"].get("memory") or {}
    except ValueError:
        return None, "no JSON (exit %d): %s" % (p.returncode, p.stderr[-300:])
    act = mem.get("activations")
    if not isinstance(act, dict) or "ranks" not in act:
        return None, "not estimated: %s" % (mem.get("activations_not_estimated") or mem)
    out = {}
    for k in act["ranks"]:
        for s in k["stages"]:
            out[s] = k["total"]
    return out, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcinit", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--tsv", help="write the cases and the measured bytes here")
    ap.add_argument("--port", type=int, default=29900)
    ap.add_argument("--only", type=int, help="run case N only")
    ap.add_argument("--detail", action="store_true", help="list each saved storage")
    ap.add_argument("--kind", choices=["core", "mla", "mtp", "alltoall"], default="core",
                    help="core: the corpus of the header; else the cases of that kind, "
                    "named KIND-N, whose rows --tsv puts in place of that kind's")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.kind == "core":
        cases = [gen_case(rng, i) for i in range(a.count)]
    else:
        cases = [gen_kind(rng, i, a.kind) for i in range(a.count)]
    within, worst, rows = 0, (1.0, None), []
    for i, c in enumerate(cases):
        if a.only is not None and i != a.only:
            continue
        core, err = measure(c, a.port + i % 50, a.detail)
        if err:
            print("case %d: megatron-core failed: %s" % (i, err.strip()), flush=True)
            continue
        # the ranks of a stage save the same bytes, but with EP > 1 and
        # drop-less routing, where each rank's experts take what the router
        # sends them: mcinit counts the mean, and each rank is compared
        stages, ranks = {}, {}
        for rank in sorted(core):
            stage, by, log = core[rank]
            if a.detail and rank == 0 or a.detail and stage not in ranks:
                print("case %d rank %d stage %d:\n  %s" % (i, rank, stage, "\n  ".join(log)))
            ranks.setdefault(stage, []).append(sum(by.values()))
        for st, v in ranks.items():
            stages[st] = round(sum(v) / len(v))
        mine, err = mcinit_stages(a.mcinit, c)
        bad = err
        for st in sorted(stages):
            got = None if mine is None else mine.get(st)
            if got is None:
                bad = bad or "stage %d: mcinit has no figure" % st
                continue
            for meas in ranks[st]:
                r = got / meas
                if abs(r - 1) > abs(worst[0] - 1):
                    worst = (r, i)
                if abs(r - 1) > a.tolerance:
                    bad = bad or "stage %d: mcinit %d, measured %d (%.3f)" % (st, got, meas, r)
        if bad:
            print("case %d: %s\n  flags: --world-size %d %s" % (
                i, bad, c["world"], " ".join(flags(c))), flush=True)
        else:
            within += 1
        rows.append((i if a.kind == "core" else "%s-%d" % (a.kind, i), c,
                     " ".join("%d:%d" % (s, stages[s]) for s in sorted(stages))))
    total = a.count if a.only is None else 1
    print("worst ratio %.4f (case %s)" % worst)
    print("%d within / %d total" % (within, total))
    if a.tsv and a.kind != "core":
        # this kind's rows replace its old ones, after the others
        with open(a.tsv) as f:
            keep = [ln for ln in f if not ln.startswith(a.kind + "-")]
        with open(a.tsv, "w") as f:
            f.writelines(keep)
            for i, c, stages in rows:
                f.write("%s\t%d\t%s\t%s\n" % (i, c["world"], " ".join(flags(c)), stages))
    elif a.tsv:
        with open(a.tsv, "w") as f:
            f.write("# The bytes a forward pass of Megatron-Core 0.19.2 saves for backward, "
                    "per pipeline stage\n# (GPTModel on the CPU, local spec, bf16, one "
                    "micro-batch; distinct storages,\n# parameters left out), every case of "
                    "tests/oracle/activations-diff.py --seed %d;\n# written by the oracle, "
                    "read by tests/cli/activations.sh.  stages: STAGE:BYTES, the mean of "
                    "the\n# stage's ranks (they differ only with EP > 1 and drop-less "
                    "routing).  The rows named\n# KIND-N follow, each kind written by "
                    "its own run, --kind KIND (mla, mtp, alltoall).\n"
                    "case\tworld\tflags\tstages\n" % a.seed)
            for i, c, stages in rows:
                f.write("%s\t%d\t%s\t%s\n" % (i, c["world"], " ".join(flags(c)), stages))
    sys.exit(0 if within == total else 1)


if __name__ == "__main__":
    main()
