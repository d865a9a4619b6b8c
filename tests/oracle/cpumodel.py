"""What the CPU oracles of mcinit's memory model share (params-diff.py,
activations-diff.py): Megatron-Core's GPTModel built on the CPU, one forked
process per rank of the case's world, joined in a gloo process group with
Megatron-Core's parallel state initialized.  A case is the dict the
oracle's gen_case makes; the keys read here are those both oracles have
(layers, h, heads, groups, swiglu, bias, rms, untie, pos, moe, world, tp,
pp).  Transformer Engine has no CPU wheel: the model is built with the
local layer spec, and what Megatron-Core asks of CUDA is answered on the
CPU.  Not part of the build (it needs torch and megatron-core)."""
import os
import traceback
import warnings


def cpu_device():
    """The CUDA device Megatron-Core asks for is the CPU: MLA's rotary
    embedding asks for it under use_cpu_initialization (it holds no
    parameter), and the tied embedding's first all-reduce moves it to CUDA
    (gloo reduces CPU tensors, where it stays)."""
    import torch

    torch.cuda.current_device = lambda: "cpu"
    torch.Tensor.cuda = lambda self, *a, **k: self


def join(c, rank, port, **sizes):
    """Joins rank to the case's gloo group on port and initializes
    Megatron-Core's parallel state: TP and PP from the case, the other
    sizes (virtual PP, EP, ETP) as given."""
    import torch.distributed as dist
    from megatron.core import parallel_state as ps

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=c["world"])
    ps.initialize_model_parallel(tensor_model_parallel_size=c["tp"],
                                 pipeline_model_parallel_size=c["pp"], **sizes)


def _rank(body, rank, args, q):
    """A forked rank: body's result, or the traceback of what it raised."""
    try:
        q.put((rank, body(rank, *args), None))
    except BaseException:
        q.put((rank, None, traceback.format_exc()))


def run_ranks(c, body, *args):
    """Forks the case's world of ranks, each running body(rank, *args);
    returns ({rank: what body returned}, None), or (None, the traceback of
    the first rank that failed)."""
    import torch.multiprocessing as mp

    # Imported once here, before the fork, so each rank starts at once.
    warnings.filterwarnings("ignore")
    import megatron.core.models.gpt.gpt_model  # noqa: F401
    import megatron.core.models.gpt.gpt_layer_specs  # noqa: F401

    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_rank, args=(body, r, args, q)) for r in range(c["world"])]
    for p in procs:
        p.start()
    out = {}
    try:
        for _ in procs:
            rank, res, err = q.get(timeout=300)
            if err:
                return None, err
            out[rank] = res
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    return out, None


def padded_vocab(c, divisible_by):
    """Megatron-LM's _vocab_size_with_padding."""
    m = divisible_by * c["tp"]
    return (c["vocab"] + m - 1) // m * m


def norm_name(c):
    return "RMSNorm" if c["rms"] else "LayerNorm"


def config_kw(c, dtype):
    """TransformerConfig's arguments that both oracles set alike, for params
    of dtype; each adds its own."""
    import torch

    kw = dict(num_layers=c["layers"], hidden_size=c["h"], num_attention_heads=c["heads"],
              use_cpu_initialization=True, params_dtype=dtype,
              bf16=dtype == torch.bfloat16, fp16=dtype == torch.half,
              tensor_model_parallel_size=c["tp"], pipeline_model_parallel_size=c["pp"],
              add_bias_linear=c["bias"], gated_linear_unit=c["swiglu"],
              normalization=norm_name(c), pipeline_dtype=dtype)
    if c["swiglu"]:
        kw["activation_func"] = torch.nn.functional.silu
    if c["groups"]:
        kw["num_query_groups"] = c["groups"]
    return kw


def layer_spec(cfg, c, qk_layernorm=False, mla=False, vp_stage=None):
    """The local layer spec: the decoder block's (a spec per layer) with
    MoE, else one layer's."""
    from megatron.core.models.gpt.gpt_layer_specs import (
        get_gpt_decoder_block_spec, get_gpt_layer_local_spec)

    if c["moe"]:
        return get_gpt_decoder_block_spec(cfg, use_transformer_engine=False,
                                          normalization=norm_name(c), vp_stage=vp_stage)
    return get_gpt_layer_local_spec(None, False, qk_layernorm, mla, None, norm_name(c))


def gpt_model(cfg, spec, c, vocab, max_len, pre, post, **kw):
    """Megatron-Core's GPTModel for the case's stage (pre: it holds the
    embedding, post: the output layer and the loss)."""
    from megatron.core.models.gpt.gpt_model import GPTModel

    return GPTModel(cfg, spec, vocab_size=vocab, max_sequence_length=max_len,
                    pre_process=pre, post_process=post,
                    share_embeddings_and_output_weights=not c["untie"],
                    position_embedding_type=c["pos"], **kw)


def float16(cfg, model):
    """The model as Megatron-LM wraps it under --bf16 or --fp16."""
    from megatron.core.transformer.module import Float16Module

    return Float16Module(cfg, model)


def deal_layout(rng, layers, chunks, mtp):
    """A pipeline layout string: the layers dealt unevenly over the chunks,
    the embedding first, the MTP layers and the loss last."""
    per = [0] * chunks
    for _ in range(layers):
        per[rng.randrange(chunks)] += 1
    parts = ["t" * n for n in per]
    parts[0] = "E" + parts[0]
    parts[-1] += "m" * (mtp or 0) + "L"
    return "|".join(parts)


def draw_tp_pp(rng, heads, pp_choices=(1, 2, 2, 4)):
    """TP and PP for a generated case: TP divides the heads, TP x PP is at
    most 8 (the CPU ranks one machine runs)."""
    tp = rng.choice([1, 2, 2, 4])
    while heads % tp:
        tp //= 2
    pp = rng.choice(list(pp_choices))
    while tp * pp > 8:
        pp //= 2
    return tp, pp
