#!/usr/bin/env python
"""Make single-mutation variants of recipe dumps and judge each with the oracle.

variants/rejected/NAME.yaml + NAME.json   (expected: Bridge rejects)
variants/accepted/NAME.yaml + NAME.json   (expected: Bridge accepts - near misses)
variants/INDEX.tsv                          name, expect, got, world_size, gpu, base, mutation, error

Each YAML = a recipe dump (recipes/BASE.yaml) loaded with yaml.safe_load, mutated, re-dumped with
yaml.safe_dump (PyYAML; same loader as from_yaml), except `text` mutations that edit the YAML text.
The JSON is exactly judge.py's output (plus variant metadata).
"""
import contextlib
import copy
import io
import json
import os
import sys
import warnings

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REC = os.path.join(ROOT, "recipes")
VAR = os.path.join(ROOT, "variants")
FAKE_CKPT = os.path.join(ROOT, "scratch", "fake_pretrained_ckpt")

L8 = "llama3_8b_pretrain_2gpu_h100_bf16"          # TP1 PP1 CP2, GBS512 MBS1, seq 8192, ws 2
L8SFT = "llama3_8b_sft_2gpu_h100_bf16"            # TP2, GBS8, seq 4096, GPTSFTDatasetConfig
L8FP8MX = "llama3_8b_pretrain_2gpu_h100_fp8mx"
L70 = "llama3_70b_pretrain_32gpu_h100_bf16"       # TP4? PP4 VP5 ...
Q8 = "qwen3_8b_pretrain_4gpu_h100_bf16"           # TP4, GBS32 MBS2, seq 4096
Q30 = "qwen3_30b_a3b_pretrain_8gpu_h100_bf16"     # TP4 PP2 EP4 SP
N3 = "nemotron_3_nano_pretrain_8gpu_h100_bf16"    # hybrid, EP8, flex/hybridep
NH8 = "nemotronh_8b_pretrain_2gpu_h100_bf16"
G3 = "gemma3_1b_pretrain_1gpu_h100_bf16"
GPT3 = "gpt3_175b_pretrain_32gpu_h100_bf16"
PEFT = "llama3_8b_peft_1gpu_h100_bf16"


def s(path, value):
    """set dotted path"""
    def f(d):
        keys = path.split(".")
        cur = d
        for k in keys[:-1]:
            cur = cur[k]
        cur[keys[-1]] = value
    f.__doc__ = f"{path} = {value!r}"
    return f


def many(*fs):
    def f(d):
        for g in fs:
            g(d)
    f.__doc__ = "; ".join(g.__doc__ or "?" for g in fs)
    return f


def text(old, new, count=1):
    def f(t):
        assert old in t, f"text mutation: {old!r} not found"
        return t.replace(old, new, count)
    f.__doc__ = f"text: {old!r} -> {new!r}"
    f.is_text = True
    return f


def anchor_alias(t):
    i = t.index("  seq_length: 8192\n")
    t = t[:i] + "  seq_length: &seqlen 8192\n" + t[i + len("  seq_length: 8192\n"):]
    j = t.index("  seq_length: 8192\n", i)
    return t[:j] + "  seq_length: *seqlen\n" + t[j + len("  seq_length: 8192\n"):]


anchor_alias.__doc__ = "text: dataset.seq_length: &seqlen 8192 ; model.seq_length: *seqlen (YAML anchor/alias)"
anchor_alias.is_text = True


def peft_fix(d):
    d["peft"]["params_to_save"] = []


peft_fix.__doc__ = "peft.params_to_save = [] (instead of the !!set {} Bridge emits)"

# (name, base, world_size, mutation, expect, gpu)
REJECTED = [
    ("seq_length_mismatch", L8, 2, s("model.seq_length", 4096)),
    ("dataset_seq_length_mismatch", L8, 2, s("dataset.seq_length", 4096)),
    ("num_query_groups_vs_tp", L8, 8, many(s("model.tensor_model_parallel_size", 4), s("model.num_query_groups", 6))),
    ("heads_not_divisible_by_tp", L8, 6, s("model.tensor_model_parallel_size", 3)),
    ("warmup_fraction_and_iters", L8, 2, s("scheduler.lr_warmup_fraction", 0.01)),
    ("max_steps_below_train_iters", L8, 2, s("scheduler.max_steps", 1000)),
    ("max_steps_nonpositive", L8, 2, s("scheduler.max_steps", 0)),
    ("lr_decay_iters_zero", L8, 2, s("scheduler.lr_decay_iters", 0)),
    ("mix_iter_and_sample_scheduler_fields", L8, 2, s("scheduler.lr_decay_samples", 1000000)),
    ("sample_training_with_lr_decay_iters", L8, 2,
     many(s("train.train_iters", None), s("train.train_samples", 1000000), s("scheduler.lr_warmup_iters", 0),
          s("scheduler.lr_decay_iters", 1000))),
    ("iter_training_with_lr_warmup_samples", L8, 2,
     many(s("scheduler.lr_warmup_iters", 0), s("scheduler.lr_warmup_samples", 1000))),
    ("train_iters_and_train_samples", L8, 2, many(s("train.train_samples", 1000000), s("scheduler.lr_warmup_iters", 0))),
    ("no_train_iters_nor_samples", L8, 2, s("train.train_iters", None)),
    ("num_epochs_on_gpt_dataset", L8, 2, s("train.num_epochs", 1.0)),
    ("start_wd_gt_end_wd", L8, 2, many(s("scheduler.start_weight_decay", 0.1), s("scheduler.end_weight_decay", 0.01))),
    ("override_and_use_ckpt_sched", L8, 2,
     many(s("scheduler.override_opt_param_scheduler", True), s("scheduler.use_checkpoint_opt_param_scheduler", True))),
    ("async_save_ckpt_format_torch", L8, 2,
     many(s("checkpoint.async_save", True), s("checkpoint.ckpt_format", "torch"))),
    ("async_save_without_save", L8, 2, many(s("checkpoint.async_save", True), s("checkpoint.save", None))),
    ("async_save_without_persistent_worker", L8, 2,
     many(s("checkpoint.async_save", True), s("checkpoint.use_persistent_ckpt_worker", False))),
    ("load_main_params_with_load_optim", L8, 2,
     many(s("checkpoint.load_main_params_from_ckpt", True), s("checkpoint.load_optim", True))),
    ("ckpt_step_without_load", L8, 2, many(s("checkpoint.ckpt_step", 100), s("checkpoint.load", None))),
    ("hf_export_with_fsdp_dtensor", L8, 2,
     many(s("checkpoint.also_save_hf_checkpoint", True), s("checkpoint.ckpt_format", "fsdp_dtensor"))),
    ("fsdp_dtensor_without_megatron_fsdp", L8, 2, s("checkpoint.ckpt_format", "fsdp_dtensor")),
    ("dist_opt_legacy_ckpt_no_gloo", L8, 2,
     many(s("checkpoint.ckpt_format", "torch"), s("dist.use_gloo_process_groups", False))),
    ("peft_without_pretrained_checkpoint", PEFT, 1, peft_fix),
    ("peft_pretrained_checkpoint_missing", PEFT, 1,
     many(peft_fix, s("checkpoint.pretrained_checkpoint", "/nonexistent/ckpt/dir"))),
    ("world_not_divisible_by_tp_pp_cp", L8, 3, lambda d: None),
    ("gbs_not_divisible_by_mbs_dp", L8, 8, s("train.global_batch_size", 510)),
    ("gbs_not_divisible_even_with_decrease_flag", L8, 8,
     many(s("train.global_batch_size", 510), s("train.decrease_batch_size_if_needed", True))),
    ("eval_gbs_not_divisible", L8, 8, s("validation.eval_global_batch_size", 6)),
    ("target_os_system", L8, 2, s("model.activation_func", {"_target_": "os.system", "_call_": False})),
    ("target_builtins_eval", L8, 2, s("model.activation_func", {"_target_": "builtins.eval", "_call_": False})),
    ("target_denylisted_torch_load", L8, 2, s("model.activation_func", {"_target_": "torch.load", "_call_": False})),
    ("target_private_segment", L8, 2,
     s("model.activation_func", {"_target_": "torch.nn.functional._in_projection", "_call_": False})),
    ("target_nonexistent_megatron", L8, 2,
     s("model.activation_func", {"_target_": "megatron.core.activations.no_such_fn", "_call_": False})),
    ("target_toplevel_outside_allowlist", L8, 2, s("_target_", "mypkg.config.ConfigContainer")),
    ("cp_seq_not_divisible_by_2cp", L8, 2, many(s("model.seq_length", 8190), s("dataset.seq_length", 8190))),
    ("cp_sft_without_per_token_loss", L8SFT, 4,
     many(s("model.context_parallel_size", 2), s("model.calculate_per_token_loss", False))),
    ("hierarchical_cp_product_mismatch", L8, 2, s("model.hierarchical_context_parallel_sizes", [2, 2])),
    ("cp_comm_type_a2a_p2p_without_hcp", L8, 2, s("model.cp_comm_type", "a2a+p2p")),
    ("megatron_fsdp_and_torch_fsdp2", L8, 2, many(s("dist.use_megatron_fsdp", True), s("dist.use_torch_fsdp2", True))),
    ("deterministic_with_ce_fusion", L8, 2, s("model.deterministic_mode", True)),
    ("deterministic_without_nccl_algo", L8, 2,
     many(s("model.deterministic_mode", True), s("model.cross_entropy_loss_fusion", False))),
    ("decentralized_pg_with_gloo", L8, 2, many(s("dist.use_decentralized_pg", True), s("dist.use_gloo_process_groups", True))),
    ("mxfp8_param_gather_without_reuse_grad_buf", L8FP8MX, 2, s("mixed_precision.reuse_grad_buf_for_mxfp8_param_ag", False)),
    ("fine_grained_offload_no_modules", L8, 2, s("model.fine_grained_activation_offloading", True)),
    ("fine_grained_offload_local_impl", L8, 2,
     many(s("model.fine_grained_activation_offloading", True), s("model.offload_modules", ["core_attn"]),
          s("model.transformer_impl", "local"))),
    ("fine_grained_offload_te_without_env", L8, 2,
     many(s("model.fine_grained_activation_offloading", True), s("model.offload_modules", ["core_attn"]))),
    ("pp_split_account_for_embedding", L70, 32, s("model.account_for_embedding_in_pipeline_split", True)),
    ("pp_first_stage_layers_mismatch", L70, 32, s("model.num_layers_in_first_pipeline_stage", 19)),
    ("moe_router_groups_not_dividing_experts", Q30, 8,
     many(s("model.moe_router_num_groups", 3), s("model.moe_router_group_topk", 1))),
    ("unknown_key_in_dataset_fatal", L8, 2, s("dataset.no_such_dataset_option", True)),
    ("sft_packed_mbs_gt1", L8SFT, 2, many(s("train.micro_batch_size", 2))),
    ("sft_packing_specs_without_enable", L8SFT, 2, s("dataset.enable_offline_packing", False)),
    ("sft_pad_cu_seqlens_without_pad_to_max", L8SFT, 2,
     many(s("dataset.offline_packing_specs.pad_cu_seqlens", True), s("dataset.dataset_kwargs.pad_to_max_length", False))),
    ("sft_num_epochs_single_dataloader", L8SFT, 2,
     many(s("train.num_epochs", 1.0), s("train.train_iters", None), s("dataset.dataloader_type", "single"))),
    ("hf_export_without_hf_source", L8, 2,
     many(s("checkpoint.also_save_hf_checkpoint", True), s("model.hf_model_id", None))),
    ("nvrx_straggler_bad_interval", L8, 2,
     s("nvrx_straggler", {"_target_": "megatron.bridge.training.config.NVRxStragglerDetectionConfig",
                          "enabled": True, "report_time_interval": 0.0})),
    ("mlflow_without_run_name", L8, 2, s("logger.mlflow_experiment", "exp")),
    ("comet_without_experiment_name", L8, 2, s("logger.comet_project", "proj")),
    ("profiler_pytorch_and_nsys", L8, 2, many(s("profiling.use_pytorch_profiler", True), s("profiling.use_nsys_profiler", True))),
    ("profile_end_before_start", L8, 2, many(s("profiling.profile_step_start", 20), s("profiling.profile_step_end", 10))),
    ("env_vars_non_scalar", L8, 2, s("env_vars.FOO", [1, 2])),
    ("hybrid_mamba_chunk_size_zero", NH8, 2, s("model.mamba_chunk_size", 0)),
    ("hybrid_both_patterns", NH8, 2, lambda d: d["model"].__setitem__("hybrid_override_pattern", d["model"]["hybrid_layer_pattern"])),
    ("flex_ncclep_on_a100", N3, 8, s("model.moe_flex_dispatcher_backend", "ncclep"), "A100"),
    ("flex_hybridep_on_fake_sm120", N3, 8, lambda d: None, "SM120"),
    ("bf16_and_fp16_model", L8, 2, many(s("mixed_precision", None), s("model.bf16", True), s("model.fp16", True))),
    ("bad_type_gbs_string", L8, 2, s("train.global_batch_size", "512x")),
    ("unknown_mixed_precision_recipe", L8, 2, s("mixed_precision", "bf16_mixed_typo")),
]

ACCEPTED = [
    ("baseline_llama3_8b", L8, 2, lambda d: None),
    ("grad_norm_skip_threshold_Inf_spelling", L8, 2, text("grad_norm_skip_threshold: .inf", "grad_norm_skip_threshold: .Inf")),
    ("grad_norm_skip_threshold_large_float", L8, 2, s("optimizer.grad_norm_skip_threshold", 1.0e30)),
    ("rotary_base_float", L8, 2, s("model.rotary_base", 500000.0)),
    ("rotary_base_int", L8, 2, s("model.rotary_base", 500000)),
    ("gemma3_rotary_base_pair_and_window_int", G3, 1, lambda d: None),
    ("gemma3_window_size_list", G3, 1, s("model.window_size", [512, 0])),
    ("interpolation_dataset_seq_length", L8, 2, s("dataset.seq_length", "${model.seq_length}")),
    ("interpolation_oc_env", L8, 2, s("logger.tensorboard_dir", "${oc.env:HOME}/tb")),
    ("yaml_anchor_alias", L8, 2, anchor_alias),
    ("unknown_key_in_model_dropped", L8, 2, s("model.not_a_real_field", 123)),
    ("unknown_toplevel_key_dropped", L8, 2, s("not_a_section", {"a": 1})),
    ("warmup_fraction_with_zero_iters", L8, 2, many(s("scheduler.lr_warmup_fraction", 0.01), s("scheduler.lr_warmup_iters", 0))),
    ("max_steps_equal_train_iters", L8, 2, s("scheduler.max_steps", 1168251)),
    ("warmup_longer_than_training_capped", L8, 2, s("train.train_iters", 100)),
    ("async_save_torch_dist", L8, 2, s("checkpoint.async_save", True)),
    ("peft_with_existing_pretrained_checkpoint", PEFT, 1, many(peft_fix, s("checkpoint.pretrained_checkpoint", FAKE_CKPT))),
    ("num_query_groups_divides_tp", L8, 32, s("model.tensor_model_parallel_size", 16)),
    ("sequence_parallel_with_tp1_ignored", L8, 2, s("model.sequence_parallel", True)),
    ("larger_world_size", L8, 16, lambda d: None),
    ("sample_based_training", L8, 2,
     many(s("train.train_iters", None), s("train.train_samples", 10000000), s("scheduler.lr_warmup_iters", 0),
          s("scheduler.lr_warmup_samples", 100000))),
    ("exit_signal_sigint", L8, 2, s("train.exit_signal", {"_target_": "signal.Signals", "_call_": True, "_args_": [2], "_name_": "SIGINT"})),
    ("activation_torch_C_gelu", L8, 2, s("model.activation_func", {"_target_": "torch._C._nn.gelu", "_call_": False})),
    ("mixed_precision_string_fp16", L8, 2, s("mixed_precision", "fp16_mixed")),
    ("env_vars_scalars", L8, 2, many(s("env_vars.MY_INT", 3), s("env_vars.MY_BOOL", True), s("env_vars.MY_FLOAT", 0.5))),
    ("cp1_odd_seq_length", L8, 1, many(s("model.context_parallel_size", 1), s("model.seq_length", 8191), s("dataset.seq_length", 8191))),
    ("lr_warmup_iters_zero_no_fraction", L8, 2, s("scheduler.lr_warmup_iters", 0)),
    ("gbs_decrease_flag_divisible", L8, 8, s("train.decrease_batch_size_if_needed", True)),
    ("flex_hybridep_on_gb200", N3, 8, lambda d: None, "GB200"),
    ("nemotron_nano_9b_v2_seq_fixed", "nemotron_nano_9b_v2_pretrain_2gpu_h100_bf16", 2, s("model.seq_length", 8192)),
    ("lenient_extra_scheduler_key", L8, 2, s("scheduler.no_such_scheduler_option", True)),
    ("lr_decay_iters_below_train_iters", L8, 2, s("scheduler.lr_decay_iters", 1000)),
    ("lr_decay_iters_below_warmup_capped", L8, 2, s("scheduler.lr_decay_iters", 1500)),
]

# YAML 1.1 (PyYAML safe_load) scalar quirks: how Bridge actually reads these spellings
YAML11 = [
    ("yaml11_lr_exponent_without_dot_is_string", L8, 2, text("  lr: 0.0003\n", "  lr: 3e-4\n")),
    ("yaml11_min_lr_exponent_without_dot_is_string", L8, 2, text("  min_lr: 3.0e-05\n", "  min_lr: 3e-5\n")),
    ("yaml11_inf_without_dot_is_string", L8, 2, text("grad_norm_skip_threshold: .inf", "grad_norm_skip_threshold: inf")),
    ("yaml11_clip_grad_int", L8, 2, text("  clip_grad: 1.0\n", "  clip_grad: 1\n")),
    ("yaml11_bool_yes_on", L8, 2, text("  use_distributed_optimizer: true\n", "  use_distributed_optimizer: yes\n")),
    ("yaml11_underscore_int", L8, 2, text("  train_iters: 1168251\n", "  train_iters: 1_168_251\n")),
    ("yaml11_octal_eval_iters", L8, 2, text("  eval_iters: 32\n", "  eval_iters: 040\n")),
    ("yaml11_gbs_float", L8, 2, s("train.global_batch_size", 512.0)),
    ("yaml11_seq_length_float_mismatch_type", L8, 2, s("model.seq_length", 8192.0)),
    ("yaml11_tp_string", L8, 2, s("model.tensor_model_parallel_size", "1")),
]

# Accepted by runtime_config_update (Bridge's pre-training verdict) although the run would fail
# later (parallel_state init / model provide()); see each JSON's post_checks.
ACCEPTED_LATE = [
    ("num_layers_not_divisible_by_pp", L70, 32, many(s("model.num_layers", 78))),
    ("vp_chunks_uneven", GPT3, 32, s("model.virtual_pipeline_model_parallel_size", 5)),
    ("vp_without_pp", L8, 2, s("model.virtual_pipeline_model_parallel_size", 2)),
    ("experts_not_divisible_by_ep", Q30, 24, many(s("model.expert_model_parallel_size", 6),
                                                   s("model.pipeline_model_parallel_size", 1),
                                                   s("train.global_batch_size", 36))),
    ("moe_tp_ep_without_sp", Q30, 8, s("model.sequence_parallel", False)),
    ("gbs_not_divisible_but_eval_gbs_set", L8, 8,
     many(s("train.global_batch_size", 510), s("validation.eval_global_batch_size", 512))),
    ("world_not_divisible_by_expert_grid", Q30, 8, s("model.expert_model_parallel_size", 8)),
]


def build(base, mut):
    ytext = open(os.path.join(REC, base + ".yaml")).read()
    if getattr(mut, "is_text", False):
        return mut(ytext)
    d = yaml.safe_load(ytext)
    mut(d)
    return yaml.safe_dump(d, default_flow_style=False, sort_keys=False)


def main():
    os.makedirs(FAKE_CKPT, exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        import oraclelib
        import oraclestub
    rows = []
    for group, items in (("rejected", REJECTED), ("accepted", ACCEPTED), ("accepted_late_failure", ACCEPTED_LATE),
                        ("yaml11", YAML11)):
        expect = {"rejected": "rejected", "yaml11": "either"}.get(group, "accepted")
        os.makedirs(os.path.join(VAR, group), exist_ok=True)
        for item in items:
            name, base, ws, mut = item[:4]
            gpu = item[4] if len(item) > 4 else "H100"
            yp = os.path.join(VAR, group, name + ".yaml")
            jp = yp[:-5] + ".json"
            try:
                y = build(base, mut)
            except Exception as e:
                print(f"!! build failed {name}: {e}")
                continue
            with open(yp, "w") as f:
                f.write(f"# variant of recipes/{base}.yaml: {mut.__doc__ or 'no mutation'}\n"
                        f"# judge: harness/judge.py variants/{group}/{name}.yaml --world-size {ws}"
                        + (f" --gpu {gpu}" if gpu != "H100" else "") + "\n")
                f.write(y)
            os.environ["ORACLE_GPU"] = gpu
            if gpu == "SM120":
                oraclestub._GPUS["SM120"] = ("NVIDIA RTX PRO 6000 Blackwell", 12, 0, 188)
            oraclestub._install_gpu()
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = oraclelib.judge_file(yp, ws)
            res["variant"] = {"name": name, "group": group, "expect": expect, "base": f"recipes/{base}.yaml", "world_size": ws,
                              "gpu": gpu, "mutation": mut.__doc__ or "none"}
            res["file"] = os.path.relpath(yp, ROOT)
            json.dump(res, open(jp, "w"), indent=2, default=str)
            got = "accepted" if res["accepted"] else "rejected"
            flag = "" if got == expect or expect == "either" else "  <<< UNEXPECTED"
            err = (res.get("error") or "").replace("\n", " ")[:300]
            rows.append([name, group, got, str(ws), gpu, base, mut.__doc__ or "", res.get("stage", ""), err])
            print(f"{expect[:3]} {got[:3]} {name}: {err[:170]}{flag}", flush=True)
    with open(os.path.join(VAR, "INDEX.tsv"), "w") as f:
        f.write("name\tgroup\tgot\tworld_size\tgpu\tbase\tmutation\tstage\terror\n")
        for r in rows:
            f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")


if __name__ == "__main__":
    main()
