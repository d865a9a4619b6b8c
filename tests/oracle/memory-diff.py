#!/usr/bin/env python3
"""Differential of `mcinit validate --memory-model megatron` against
Megatron-LM's own estimate (megatron/training/theoretical_memory_usage.py).

For each generated case (a world size and Megatron-LM flags of the kinds
users combine: dense, GQA, MLA with and without q-LoRA, MoE with shared
experts and gates, MTP, untied embeddings, SwiGLU, RMSNorm, pipeline and
virtual pipeline, sequence parallelism with or without selective recompute,
the distributed optimizer), Megatron's parse_args and validate_args build
args in a forked child of a process that imported Megatron once, and
compute_weight_and_optimizer_memory plus the activation function
report_theoretical_memory picks give the bytes (num_microbatches as
get_num_microbatches gives it without rampup).  mcinit's derived.memory must
be the same floats, bit for bit.  Not part of the build (it needs the
release's tree and a Python with torch):

    PYTHONPATH=/var/tmp/mlm-main VENV/bin/python tests/oracle/memory-diff.py \\
        --release main --mcinit _build/src/mcinit --count 300 --seed 1

Output: a summary line, and one line per disagreement.
"""
import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("mdiff", os.path.join(HERE, "megatron-diff.py"))
mdiff = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mdiff)


def gen_case(rng):
    """One case: a world size and the flags, of a shape users pick."""
    heads = rng.choice([8, 16, 32, 64, 96, 128])
    head_dim = rng.choice([64, 128])
    h = heads * head_dim
    tp = rng.choice([1, 1, 2, 4, 8])
    while heads % tp:
        tp //= 2
    pp = rng.choice([1, 1, 2, 4])
    vpp = rng.choice([None, None, 2]) if pp > 1 else None
    per = pp * (vpp or 1)
    layers = per * rng.choice([1, 2, 3, 4, 6, 8])
    cp = rng.choice([1, 1, 2])
    dp = rng.choice([1, 2, 4, 8])
    world = tp * pp * cp * dp
    mbs = rng.choice([1, 1, 2, 4])
    gbs = mbs * dp * rng.choice([1, 2, 4, 8, 16])
    seq = rng.choice([1024, 2048, 4096, 8192])
    f = ["--num-layers", layers, "--hidden-size", h, "--num-attention-heads", heads,
         "--seq-length", seq, "--max-position-embeddings", seq, "--micro-batch-size", mbs,
         "--global-batch-size", gbs, "--train-iters", 100, "--lr", "1e-4",
         "--tensor-model-parallel-size", tp, "--pipeline-model-parallel-size", pp,
         "--context-parallel-size", cp, "--vocab-size", rng.choice([32000, 50257, 128256]),
         "--tokenizer-type", "NullTokenizer", "--bf16"]
    if vpp:
        f += ["--num-layers-per-virtual-pipeline-stage", layers // per]
    if rng.random() < 0.5:
        f += ["--swiglu"]
    if rng.random() < 0.5:
        f += ["--normalization", "RMSNorm"]
    if rng.random() < 0.4:
        f += ["--untie-embeddings-and-output-weights"]
    if rng.random() < 0.5:
        f += ["--use-distributed-optimizer"]
    if rng.random() < 0.3:
        f += ["--disable-bias-linear"]
    if tp > 1 and rng.random() < 0.6:
        f += ["--sequence-parallel"]
    if rng.random() < 0.5:
        f += ["--recompute-granularity", "selective"]
    if rng.random() < 0.3:
        f += ["--ffn-hidden-size", h * rng.choice([2, 3, 4])]
    mla = rng.random() < 0.15
    if mla:
        f += ["--multi-latent-attention", "--kv-lora-rank", 512, "--qk-head-dim", 128,
              "--qk-pos-emb-head-dim", 64, "--v-head-dim", 128]
        if rng.random() < 0.5:
            f += ["--q-lora-rank", 1536]
    elif rng.random() < 0.5:
        g = rng.choice([g for g in (1, 2, 4, 8) if heads % g == 0 and (g % tp == 0 or tp % g == 0)])
        f += ["--group-query-attention", "--num-query-groups", g]
    if rng.random() < 0.35:
        ep = rng.choice([e for e in (1, 2, 4, 8) if dp * cp * tp % e == 0])
        experts = ep * rng.choice([1, 2, 4, 8])
        f += ["--num-experts", experts, "--expert-model-parallel-size", ep,
              "--moe-router-topk", min(experts, rng.choice([1, 2, 4])),
              "--moe-ffn-hidden-size", h // rng.choice([1, 2, 4]),
              "--moe-token-dispatcher-type", "alltoall", "--moe-grouped-gemm"]
        if rng.random() < 0.5:
            f += ["--moe-shared-expert-intermediate-size", h]
            if rng.random() < 0.5:
                f += ["--moe-shared-expert-gate"]
        if rng.random() < 0.4:
            freq = rng.choice([1, 2])
            f += ["--moe-layer-freq", freq]
        if rng.random() < 0.3 and tp > 1:
            f += ["--expert-tensor-parallel-size", 1]
    if rng.random() < 0.5:
        f += ["--position-embedding-type", "rope"]
        if rng.random() < 0.3:
            f += ["--mtp-num-layers", 1]
    return {"world": world, "flags": [str(x) for x in f]}


def megatron_memory(case):
    """Megatron's (weights, activations) in bytes, or the error."""
    import megatron.training.arguments as A
    import megatron.training.theoretical_memory_usage as T

    if hasattr(A, "get_device_arch_version"):
        A.get_device_arch_version = lambda: 9
    os.environ.update({"WORLD_SIZE": str(case["world"]), "RANK": "0", "LOCAL_RANK": "0",
                       "CUDA_DEVICE_MAX_CONNECTIONS": "1"})
    sys.argv = ["pretrain_gpt.py"] + case["flags"]
    import contextlib
    import io

    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            args = A.parse_args()
            A.validate_args(args)
            try:
                from megatron.training.argument_utils import core_transformer_config_from_args
            except ImportError:
                core_transformer_config_from_args = A.core_transformer_config_from_args
            core_transformer_config_from_args(args)
            # what training's build_tokenizer sets before the report
            try:
                from megatron.core.tokenizers.utils.build_tokenizer import build_tokenizer
            except ImportError:
                from megatron.training.tokenizer import build_tokenizer

            build_tokenizer(args)
            nmb = args.global_batch_size // (args.micro_batch_size * args.data_parallel_size)
            w = T.compute_weight_and_optimizer_memory(args)
            if args.sequence_parallel and args.recompute_granularity == "selective":
                act = T.compute_activation_memory(args, num_microbatches=nmb)
            else:
                act = T.compute_activation_memory_without_sp(args, num_microbatches=nmb)
    except BaseException as e:  # noqa: BLE001 -- a refused case is skipped
        return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    return (w, act), None


def forked(case):
    return mdiff.run_forked(megatron_memory, lambda why: (None, why), case)


def mcinit_memory(mcinit, release, case):
    cmd = [mcinit, "validate", "--megatron-version", release, "--world-size", str(case["world"]),
           "--memory-model", "megatron", "--format", "json", "launch.gpu_arch=90", "--"] + case["flags"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        return None, "no JSON: " + p.stderr[-200:]
    return d["derived"].get("memory"), [g for g in d["diagnostics"] if g["severity"] == "error"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", required=True)
    ap.add_argument("--mcinit", required=True)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    a = ap.parse_args()
    mdiff.install_stubs("2.14.0")
    mdiff.install_gpu()
    import megatron.training.arguments  # noqa: F401 -- imported once, before the forks
    import megatron.training.theoretical_memory_usage  # noqa: F401

    rng = random.Random(a.seed)
    n = same = differ = refused = 0
    rows = []
    while n < a.count:
        case = gen_case(rng)
        got, why = forked(case)
        if got is None:
            refused += 1
            if refused > 20 * a.count:
                break
            continue
        n += 1
        mem, errs = mcinit_memory(a.mcinit, a.release, case)
        want = {"weights_and_optimizer_bytes": got[0], "activation_bytes": got[1],
                "total_bytes": got[0] + got[1]}
        # mcinit writes reals with 15 significant digits (MCINIT_JSON_REALS):
        # below 10^14 bytes, a thousandth of a byte
        ok = mem is not None and all(mem.get(k) == float("%.15g" % v) for k, v in want.items())
        same += ok
        differ += not ok
        rows.append({"case": case, "megatron": want, "mcinit": mem, "same": ok})
        if not ok:
            print("DIFF world=%d %s\n  megatron %s\n  mcinit   %s %s" % (
                case["world"], " ".join(case["flags"]), want, mem,
                [e["code"] + " " + e["message"][:80] for e in errs or []]))
    print("%s: %d cases Megatron accepts: %d equal to the byte, %d differ "
          "(%d generated cases Megatron refused, skipped)" % (a.release, n, same, differ, refused))
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
