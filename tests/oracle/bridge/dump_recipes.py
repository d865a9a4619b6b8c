#!/usr/bin/env python
"""Dump Megatron-Bridge 0.6.2 recipes to YAML (cfg.to_yaml) and judge each as pretrain() would.

For each recipe NAME:
  recipes/NAME.yaml  - cfg.to_yaml() of the recipe function's ConfigContainer
  recipes/NAME.json  - {recipe, world_size, world_size_source, min_world_size, accepted, error,
                        derived, post_checks, warnings, in_memory, at_min_world}
    * `accepted`/`error`/`derived`: the YAML re-loaded with ConfigContainer.from_yaml, then
      runtime_config_update(cfg) with WORLD_SIZE=world_size (judge.py's path).
    * `in_memory`: the same verdict on the recipe object itself (no YAML round trip).
    * `at_min_world`: the verdict at min_world_size when it differs from world_size.
World size: the GPU count in the recipe's own name (`..._<N>gpu_...`: the world Bridge documents
the recipe for). min_world_size: smallest multiple k*TP*PP*CP (k>=1) that is divisible by the
expert grid ETP*EP*PP and for which GBS % (MBS*DP) == 0.

usage: dump_recipes.py [NAME ...]   (default: the RECIPES list below)
       dump_recipes.py --all         every recipe function megatron.bridge.recipes exports
                                     (a callable whose name ends in _config), skipping those
                                     already dumped (a NAME.json exists) so a run can resume
"""
import contextlib
import io
import json
import os
import re
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.environ.get("BRIDGE_ORACLE_WORK", os.path.dirname(HERE)), "recipes")
sys.path.insert(0, HERE)

RECIPES = [
    # Llama 3 / 3.1 / 3.2
    "llama3_8b_pretrain_2gpu_h100_bf16_config",
    "llama3_8b_pretrain_2gpu_h100_fp8cs_config",
    "llama3_8b_pretrain_2gpu_h100_fp8mx_config",
    "llama3_8b_pretrain_16gpu_h100_bf16_16k_config",
    "llama3_70b_pretrain_32gpu_h100_bf16_config",
    "llama3_8b_sft_2gpu_h100_bf16_config",
    "llama3_8b_peft_1gpu_h100_bf16_config",
    "llama3_70b_peft_8gpu_h100_bf16_config",
    "llama32_1b_pretrain_1gpu_h100_bf16_config",
    "llama31_405b_pretrain_256gpu_h100_bf16_config",
    # Qwen
    "qwen3_8b_pretrain_4gpu_h100_bf16_config",
    "qwen3_8b_sft_4gpu_h100_bf16_config",
    "qwen3_8b_peft_1gpu_h100_bf16_config",
    "qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config",
    "qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config",
    "qwen3_30b_a3b_peft_4gpu_h100_bf16_config",
    "qwen25_7b_pretrain_2gpu_h100_bf16_config",
    # DeepSeek
    "deepseek_v3_pretrain_256gpu_h100_bf16_32nodes_config",
    "deepseek_v3_pretrain_1024gpu_h100_bf16_config",
    "deepseek_v2_lite_pretrain_8gpu_h100_bf16_config",
    "moonlight_16b_pretrain_8gpu_h100_bf16_config",
    # GPT-OSS
    "gpt_oss_20b_pretrain_16gpu_h100_bf16_config",
    "gpt_oss_20b_sft_8gpu_h100_bf16_config",
    "gpt_oss_20b_peft_1gpu_h100_bf16_config",
    # Gemma
    "gemma3_1b_pretrain_1gpu_h100_bf16_config",
    "gemma3_1b_peft_1gpu_h100_bf16_config",
    "gemma2_2b_pretrain_2gpu_h100_bf16_config",
    # Nemotron-H / Nano v2 / Nemotron 3 Nano
    "nemotronh_8b_pretrain_2gpu_h100_bf16_config",
    "nemotronh_8b_sft_2gpu_h100_bf16_config",
    "nemotron_nano_9b_v2_pretrain_2gpu_h100_bf16_config",
    "nemotron_nano_9b_v2_sft_2gpu_h100_bf16_config",
    "nemotron_nano_9b_v2_peft_1gpu_h100_bf16_config",
    "nemotron_3_nano_pretrain_8gpu_h100_bf16_config",
    "nemotron_3_nano_sft_8gpu_h100_bf16_config",
    "nemotron_3_nano_peft_8gpu_h100_bf16_config",
    # OLMoE
    "olmoe_7b_pretrain_8gpu_h100_bf16_config",
    "olmoe_7b_peft_1gpu_h100_bf16_config",
    # Qwen2.5-VL
    "qwen25_vl_7b_sft_2gpu_h100_bf16_config",
    "qwen25_vl_3b_peft_1gpu_h100_bf16_config",
    # GPT
    "gpt3_175b_pretrain_32gpu_h100_bf16_config",
    "vanilla_gpt_pretrain_1gpu_h100_bf16_config",
    # GB200 (judged with a fake GB200, see gpu_for())
    "nemotron_3_nano_pretrain_8gpu_gb200_bf16_config",
    # more variants of the same families
    "llama3_70b_pretrain_32gpu_h100_bf16_deterministic_config",
    "llama3_8b_pretrain_2gpu_h100_nvfp4_config",
    "llama3_8b_pretrain_32gpu_h100_bf16_64k_config",
    "llama3_8b_pretrain_64gpu_h100_bf16_128k_config",
    "qwen3_30b_a3b_sft_8gpu_h100_bf16_config",
    "qwen3_8b_sft_8gpu_h100_bf16_32k_config",
    "gpt_oss_20b_pretrain_16gpu_h100_fp8cs_config",
    "nemotronh_8b_peft_1gpu_h100_bf16_config",
    "nemotronh_4b_pretrain_1gpu_h100_bf16_config",
    "nemotron_nano_12b_v2_pretrain_4gpu_h100_bf16_config",
]


def gpu_for(name):
    for g in ("gb300", "gb200", "b200", "h100"):
        if f"_{g}_" in name or name.endswith(f"_{g}"):
            return g.upper()
    return "H100"


def world_from_name(name):
    m = re.search(r"_(\d+)gpu_", name)
    return int(m.group(1)) if m else None


def min_world(cfg):
    m, t = cfg.model, cfg.train
    tp = getattr(m, "tensor_model_parallel_size", 1) or 1
    pp = getattr(m, "pipeline_model_parallel_size", 1) or 1
    cp = getattr(m, "context_parallel_size", 1) or 1
    ep = getattr(m, "expert_model_parallel_size", 1) or 1
    etp = getattr(m, "expert_tensor_parallel_size", None) or tp
    mp = tp * pp * cp
    for k in range(1, 4097):
        w = k * mp
        if w % (etp * ep * pp):
            continue
        if t.global_batch_size % (t.micro_batch_size * k):
            continue
        return w
    return None


def all_recipes(R):
    return sorted(n for n in dir(R) if n.endswith("_config") and callable(getattr(R, n)))


def main(names):
    os.makedirs(OUT, exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        import oraclelib
        import oraclestub
        import megatron.bridge.recipes as R
    # A model whose config.json the offline cache lacks fails the same way on
    # every try: skip the retries' back-off sleeps (the verdict is unchanged).
    import types
    import megatron.bridge.models.hf_pretrained.safe_config_loader as scl
    scl.time = types.SimpleNamespace(time=time.time, sleep=lambda s: None)
    resume = names == ["--all"]
    if resume:
        names = all_recipes(R)
    summary = []
    for name in names:
        if resume and os.path.exists(os.path.join(OUT, name.removesuffix("_config") + ".json")):
            continue
        try:
            one(R, oraclelib, oraclestub, name, summary)
        except Exception as e:  # the harness itself: record it, go on with the next recipe
            summary.append((name, None, "harness: " + oraclelib._short(e)[:150]))
            print(f"[{name}] harness failed: {oraclelib._short(e)[:200]}", flush=True)
    with open(os.path.join(OUT, "SUMMARY.tsv"), "a" if len(sys.argv) > 1 else "w") as f:
        for n, w, v in summary:
            f.write(f"{n}\t{w}\t{v}\n")


def one(R, oraclelib, oraclestub, name, summary):
    t0 = time.time()
    os.environ["ORACLE_GPU"] = gpu_for(name)
    oraclestub._install_gpu()
    rec = {"recipe": name, "fake_gpu": os.environ["ORACLE_GPU"]}
    ypath = os.path.join(OUT, name.removesuffix("_config") + ".yaml")
    jpath = ypath[:-5] + ".json"
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            cfg = getattr(R, name)()
    except Exception as e:
        rec.update({"accepted": False, "stage": "recipe()", "error": oraclelib._short(e),
                    "traceback": traceback.format_exc()[-3000:]})
        json.dump(rec, open(jpath, "w"), indent=2, default=str)
        summary.append((name, None, "recipe() failed: " + rec["error"][:150]))
        print(f"[{name}] recipe() failed: {rec['error'][:200]}", flush=True)
        return
    ws = world_from_name(name)
    mw = min_world(cfg)
    rec["world_size"] = ws if ws else mw
    rec["world_size_source"] = "recipe name (<N>gpu)" if ws else "min_world_size"
    rec["min_world_size"] = mw
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cfg.to_yaml(ypath)
    except Exception as e:
        rec.update({"accepted": False, "stage": "to_yaml", "error": oraclelib._short(e),
                    "traceback": traceback.format_exc()[-3000:]})
        json.dump(rec, open(jpath, "w"), indent=2, default=str)
        summary.append((name, rec["world_size"], "to_yaml failed: " + rec["error"][:150]))
        print(f"[{name}] to_yaml failed: {rec['error'][:200]}", flush=True)
        return
    with contextlib.redirect_stdout(io.StringIO()):
        res = oraclelib.judge_file(ypath, rec["world_size"])
    res.pop("file", None)
    rec.update(res)
    rec["yaml"] = os.path.relpath(ypath, os.path.dirname(OUT))
    # same verdict without the YAML round trip
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            cfg2 = getattr(R, name)()
            r2 = oraclelib.judge_cfg(cfg2, rec["world_size"])
        rec["in_memory"] = {"accepted": r2["accepted"], "error": r2["error"], "error_where": r2["error_where"]}
        if rec.get("derived") is None and r2.get("derived") is not None:
            rec["derived"] = r2["derived"]
            rec["post_checks"] = r2["post_checks"]
            rec["derived_source"] = "in_memory (YAML could not be loaded)"
    except Exception as e:
        rec["in_memory"] = {"accepted": None, "error": "harness: " + oraclelib._short(e)}
    if getattr(cfg, "peft", None) is not None:
        # PEFT recipes leave checkpoint.pretrained_checkpoint None: verdict with an existing dir
        fake = os.path.join(os.path.dirname(OUT), "scratch", "fake_pretrained_ckpt")
        os.makedirs(fake, exist_ok=True)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            cfg3 = getattr(R, name)()
            cfg3.checkpoint.pretrained_checkpoint = fake
            r4 = oraclelib.judge_cfg(cfg3, rec["world_size"])
        rec["in_memory_with_pretrained_checkpoint"] = {
            "pretrained_checkpoint": fake, "accepted": r4["accepted"], "error": r4["error"],
            "error_where": r4["error_where"]}
    if mw and mw != rec["world_size"]:
        with contextlib.redirect_stdout(io.StringIO()):
            r3 = oraclelib.judge_file(ypath, mw)
        rec["at_min_world"] = {"world_size": mw, "accepted": r3["accepted"], "error": r3["error"],
                               "data_parallel_size": (r3.get("derived") or {}).get("data_parallel_size"),
                               "num_microbatches": (r3.get("derived") or {}).get("num_microbatches")}
    json.dump(rec, open(jpath, "w"), indent=2, default=str)
    verdict = "ACCEPT" if rec["accepted"] else f"REJECT ({rec.get('stage')}): {str(rec['error'])[:160]}"
    summary.append((name, rec["world_size"], verdict))
    print(f"[{name}] ws={rec['world_size']} min={mw} {verdict}  "
          f"in_memory={rec['in_memory']['accepted']} ({time.time() - t0:.1f}s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or RECIPES)
