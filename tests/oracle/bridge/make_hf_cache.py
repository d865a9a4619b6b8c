"""Write the offline HF cache (config.json only) the AutoBridge-based recipes read.

Layout: $HF_HOME/hub/models--ORG--NAME/{refs/main, snapshots/REV/config.json}.
Values are the models' published config.json (written from the model cards / hub files).
`auto_map` entries (trust_remote_code) are omitted: transformers 5.12 has native classes for
all these model types and no remote code can be fetched here.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
HF_HOME = os.environ.get("HF_HOME", os.path.join(os.environ.get("BRIDGE_ORACLE_WORK", os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "hf"))
REV = "0000000000000000000000000000000000oracle"[:40]

INF = float("inf")


def llama(hidden, inter, heads, layers, kv=8, max_pos=8192, rope_scaling=None, tie=False, head_dim=None, vocab=128256):
    c = {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 128000,
        "eos_token_id": 128001,
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": max_pos,
        "mlp_bias": False,
        "model_type": "llama",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_scaling": rope_scaling,
        "rope_theta": 500000.0,
        "tie_word_embeddings": tie,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }
    if head_dim:
        c["head_dim"] = head_dim
    return c


def l31_rope(factor=8.0):
    return {"factor": factor, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192, "rope_type": "llama3"}


def qwen3(hidden, inter, layers, heads, kv, tie, max_pos=40960):
    return {
        "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
        "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": inter,
        "max_position_embeddings": max_pos, "max_window_layers": layers, "model_type": "qwen3",
        "num_attention_heads": heads, "num_hidden_layers": layers, "num_key_value_heads": kv,
        "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
        "tie_word_embeddings": tie, "torch_dtype": "bfloat16", "use_cache": True,
        "use_sliding_window": False, "vocab_size": 151936,
    }


def qwen2(hidden, inter, layers, heads, kv, tie, vocab, max_pos=131072, eos=151643):
    return {
        "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": eos, "hidden_act": "silu", "hidden_size": hidden, "initializer_range": 0.02,
        "intermediate_size": inter, "max_position_embeddings": max_pos, "max_window_layers": layers,
        "model_type": "qwen2", "num_attention_heads": heads, "num_hidden_layers": layers,
        "num_key_value_heads": kv, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
        "sliding_window": max_pos, "tie_word_embeddings": tie, "torch_dtype": "bfloat16",
        "use_cache": True, "use_mrope": False, "use_sliding_window": False, "vocab_size": vocab,
    }


def qwen25_vl(hidden, inter, layers, heads, kv, tie, vocab, out_hidden, max_window_layers):
    return {
        "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0,
        "bos_token_id": 151643, "eos_token_id": 151645, "vision_start_token_id": 151652,
        "vision_end_token_id": 151653, "vision_token_id": 151654, "image_token_id": 151655,
        "video_token_id": 151656, "hidden_act": "silu", "hidden_size": hidden, "initializer_range": 0.02,
        "intermediate_size": inter, "max_position_embeddings": 128000, "max_window_layers": max_window_layers,
        "model_type": "qwen2_5_vl", "num_attention_heads": heads, "num_hidden_layers": layers,
        "num_key_value_heads": kv, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
        "tie_word_embeddings": tie, "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False,
        "vision_config": {
            "depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16,
            "in_chans": 3, "out_hidden_size": out_hidden, "patch_size": 14, "spatial_merge_size": 2,
            "spatial_patch_size": 14, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
            "tokens_per_second": 2, "temporal_patch_size": 2,
        },
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "vocab_size": vocab,
    }


def gemma2(hidden, inter, layers, heads, kv, head_dim, qpas):
    return {
        "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid",
        "eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": head_dim,
        "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": inter,
        "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": heads,
        "num_hidden_layers": layers, "num_key_value_heads": kv, "pad_token_id": 0,
        "query_pre_attn_scalar": qpas, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
        "sliding_window": 4096, "torch_dtype": "float32", "use_cache": True, "vocab_size": 256000,
    }


def glm4_moe(hidden, inter, layers, experts, moe_inter, first_dense):
    return {
        "architectures": ["Glm4MoeForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
        "eos_token_id": [151329, 151336, 151338], "first_k_dense_replace": first_dense,
        "head_dim": 128, "hidden_act": "silu", "hidden_size": hidden, "initializer_range": 0.02,
        "intermediate_size": inter, "max_position_embeddings": 131072, "model_type": "glm4_moe",
        "moe_intermediate_size": moe_inter, "n_group": 1, "n_routed_experts": experts,
        "n_shared_experts": 1, "norm_topk_prob": True, "num_attention_heads": 96,
        "num_experts_per_tok": 8, "num_hidden_layers": layers, "num_key_value_heads": 8,
        "num_nextn_predict_layers": 1, "pad_token_id": 151329, "partial_rotary_factor": 0.5,
        "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000,
        "routed_scaling_factor": 2.5, "tie_word_embeddings": False, "topk_group": 1,
        "torch_dtype": "bfloat16", "use_cache": True, "use_qk_norm": hidden == 5120,
        "vocab_size": 151552,
    }


MODELS = {
    "meta-llama/Meta-Llama-3-8B": llama(4096, 14336, 32, 32),
    "meta-llama/Meta-Llama-3-70B": llama(8192, 28672, 64, 80),
    "meta-llama/Meta-Llama-3.1-8B": llama(4096, 14336, 32, 32, max_pos=131072, rope_scaling=l31_rope()),
    "meta-llama/Meta-Llama-3.1-70B": llama(8192, 28672, 64, 80, max_pos=131072, rope_scaling=l31_rope()),
    "meta-llama/Meta-Llama-3.1-405B": llama(16384, 53248, 128, 126, max_pos=131072, rope_scaling=l31_rope()),
    "meta-llama/Llama-3.2-1B": llama(2048, 8192, 32, 16, max_pos=131072, rope_scaling=l31_rope(32.0), tie=True, head_dim=64),
    "meta-llama/Llama-3.2-3B": llama(3072, 8192, 24, 28, max_pos=131072, rope_scaling=l31_rope(32.0), tie=True, head_dim=128),
    # The rest of the dense and MoE families the 0.6.2 recipes name (written from the published
    # config.json files; the differential compares two readings of the same dump, so a value
    # that differs from the hub changes the case, not what the comparison measures).
    "Qwen/Qwen3-1.7B": qwen3(2048, 6144, 28, 16, 8, True),
    "Qwen/Qwen3-4B": qwen3(2560, 9728, 36, 32, 8, True),
    "Qwen/Qwen3-14B": qwen3(5120, 17408, 40, 40, 8, False),
    "Qwen/Qwen3-32B": qwen3(5120, 25600, 64, 64, 8, False),
    "Qwen/Qwen3-235B-A22B": dict(qwen3(4096, 12288, 94, 64, 4, False), architectures=["Qwen3MoeForCausalLM"],
                                 model_type="qwen3_moe", decoder_sparse_step=1, mlp_only_layers=[],
                                 moe_intermediate_size=1536, norm_topk_prob=True, num_experts=128,
                                 num_experts_per_tok=8, output_router_logits=False,
                                 router_aux_loss_coef=0.001),
    "Qwen/Qwen2.5-0.5B": qwen2(896, 4864, 24, 14, 2, True, 151936, max_pos=32768),
    "Qwen/Qwen2.5-1.5B": qwen2(1536, 8960, 28, 12, 2, True, 151936, max_pos=32768),
    "Qwen/Qwen2.5-14B": qwen2(5120, 13824, 48, 40, 8, False, 152064),
    "Qwen/Qwen2.5-32B": qwen2(5120, 27648, 64, 40, 8, False, 152064),
    "Qwen/Qwen2.5-72B": qwen2(8192, 29568, 80, 64, 8, False, 152064),
    "Qwen/Qwen2-0.5B": qwen2(896, 4864, 24, 14, 2, True, 151936),
    "Qwen/Qwen2-1.5B": qwen2(1536, 8960, 28, 12, 2, True, 151936),
    "Qwen/Qwen2-7B": qwen2(3584, 18944, 28, 28, 4, False, 152064),
    "Qwen/Qwen2-72B": qwen2(8192, 29568, 80, 64, 8, False, 152064),
    "google/gemma-2-9b": gemma2(3584, 14336, 42, 16, 8, 256, 256),
    "google/gemma-2-27b": gemma2(4608, 36864, 46, 32, 16, 128, 144),
    "meta-llama/Llama-2-7b-hf": dict(llama(4096, 11008, 32, 32, kv=32, max_pos=4096, vocab=32000),
                                     bos_token_id=1, eos_token_id=2, rope_theta=10000.0, rms_norm_eps=1e-05),
    "zai-org/GLM-4.5": glm4_moe(5120, 12288, 92, 160, 1536, 3),
    "zai-org/GLM-4.5-Air": glm4_moe(4096, 10944, 46, 128, 1408, 1),
    "Qwen/Qwen3-0.6B": qwen3(1024, 3072, 28, 16, 8, True),
    "Qwen/Qwen3-8B": qwen3(4096, 12288, 36, 32, 8, False),
    "Qwen/Qwen3-30B-A3B": {
        "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
        "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
        "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
        "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
        "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
        "num_key_value_heads": 4, "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_scaling": None,
        "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": None,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
        "use_sliding_window": False, "vocab_size": 151936,
    },
    "Qwen/Qwen2.5-7B": qwen2(3584, 18944, 28, 28, 4, False, 152064),
    "Qwen/Qwen2.5-VL-7B-Instruct": qwen25_vl(3584, 18944, 28, 28, 4, False, 152064, 3584, 28),
    "Qwen/Qwen2.5-VL-3B-Instruct": qwen25_vl(2048, 11008, 36, 16, 2, True, 151936, 2048, 70),
    "deepseek-ai/DeepSeek-V3": {
        "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1,
        "first_k_dense_replace": 3, "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02,
        "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840,
        "model_type": "deepseek_v3", "moe_intermediate_size": 2048, "moe_layer_freq": 1, "n_group": 8,
        "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": True, "num_attention_heads": 128,
        "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
        "num_nextn_predict_layers": 1, "pretraining_tp": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                "weight_block_size": [128, 128]},
        "rms_norm_eps": 1e-06,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096, "type": "yarn"},
        "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "seq_aux": True,
        "tie_word_embeddings": False, "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
        "use_cache": True, "v_head_dim": 128, "vocab_size": 129280,
    },
    "deepseek-ai/DeepSeek-V2-Lite": {
        "architectures": ["DeepseekV2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001, "bos_token_id": 100000, "eos_token_id": 100001, "first_k_dense_replace": 1,
        "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 10944,
        "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v2",
        "moe_intermediate_size": 1408, "moe_layer_freq": 1, "n_group": 1, "n_routed_experts": 64,
        "n_shared_experts": 2, "norm_topk_prob": False, "num_attention_heads": 16, "num_experts_per_tok": 6,
        "num_hidden_layers": 27, "num_key_value_heads": 16, "pretraining_tp": 1, "q_lora_rank": None,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                         "original_max_position_embeddings": 4096, "type": "yarn"},
        "rope_theta": 10000, "routed_scaling_factor": 1.0, "scoring_func": "softmax", "seq_aux": True,
        "tie_word_embeddings": False, "topk_group": 1, "topk_method": "greedy", "torch_dtype": "bfloat16",
        "use_cache": True, "v_head_dim": 128, "vocab_size": 102400,
    },
    "moonshotai/Moonlight-16B-A3B": {
        "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001, "bos_token_id": 163584, "eos_token_id": 163585, "ep_size": 1,
        "first_k_dense_replace": 1, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
        "intermediate_size": 11264, "kv_lora_rank": 512, "max_position_embeddings": 8192,
        "model_type": "deepseek_v3", "moe_intermediate_size": 1408, "moe_layer_freq": 1, "n_group": 1,
        "n_routed_experts": 64, "n_shared_experts": 2, "norm_topk_prob": True, "num_attention_heads": 16,
        "num_experts_per_tok": 6, "num_hidden_layers": 27, "num_key_value_heads": 16,
        "num_nextn_predict_layers": 0, "pretraining_tp": 1, "q_lora_rank": None, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 50000.0,
        "routed_scaling_factor": 2.446, "scoring_func": "sigmoid", "seq_aux": True,
        "tie_word_embeddings": False, "topk_group": 1, "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
        "use_cache": True, "v_head_dim": 128, "vocab_size": 163840,
    },
    "openai/gpt-oss-20b": {
        "architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
        "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu",
        "hidden_size": 2880, "initial_context_length": 4096, "initializer_range": 0.02,
        "intermediate_size": 2880,
        "layer_types": ["sliding_attention", "full_attention"] * 12,
        "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
        "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 8,
        "num_local_experts": 32, "output_router_logits": False, "pad_token_id": 199999,
        "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                           "model.embed_tokens", "lm_head"],
                                "quant_method": "mxfp4"},
        "rms_norm_eps": 1e-05,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                         "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
        "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
        "tie_word_embeddings": False, "use_cache": True, "vocab_size": 201088,
    },
    "google/gemma-3-1b-pt": {
        "architectures": ["Gemma3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": None, "bos_token_id": 2, "cache_implementation": "hybrid",
        "eos_token_id": 1, "final_logit_softcapping": None, "head_dim": 256,
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "initializer_range": 0.02,
        "intermediate_size": 6912, "max_position_embeddings": 32768, "model_type": "gemma3_text",
        "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0,
        "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
        "rope_scaling": None, "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
        "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 262144,
    },
    "google/gemma-2-2b": {
        "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid",
        "eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304, "initializer_range": 0.02,
        "intermediate_size": 9216, "max_position_embeddings": 8192, "model_type": "gemma2",
        "num_attention_heads": 8, "num_hidden_layers": 26, "num_key_value_heads": 4, "pad_token_id": 0,
        "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096,
        "torch_dtype": "float32", "use_cache": True, "vocab_size": 256000,
    },
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": {
        "architectures": ["NemotronHForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 1, "chunk_size": 128, "conv_kernel": 4, "eos_token_id": 2, "head_dim": 128,
        "hidden_dropout": 0.0, "hidden_size": 2688,
        "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
        "initializer_range": 0.02, "intermediate_size": 1856, "layer_norm_epsilon": 1e-05,
        "mamba_head_dim": 64, "mamba_hidden_act": "silu", "mamba_num_heads": 64, "mamba_proj_bias": False,
        "max_position_embeddings": 262144, "mlp_bias": False, "mlp_hidden_act": "relu2",
        "model_type": "nemotron_h", "moe_intermediate_size": 1856, "moe_shared_expert_intermediate_size": 3712,
        "n_group": 1, "n_groups": 8, "n_routed_experts": 128, "n_shared_experts": 1, "norm_eps": 1e-05,
        "norm_topk_prob": True, "num_attention_heads": 32, "num_experts_per_tok": 6, "num_hidden_layers": 52,
        "num_key_value_heads": 2, "num_logits_to_keep": 1, "pad_token_id": 0, "partial_rotary_factor": 1.0,
        "rescale_prenorm_residual": True, "residual_in_fp32": False, "rope_theta": 10000,
        "routed_scaling_factor": 2.5, "sliding_window": None, "ssm_state_size": 128,
        "tie_word_embeddings": False, "time_step_floor": 0.0001, "time_step_limit": [0.0, INF],
        "time_step_max": 0.1, "time_step_min": 0.001, "topk_group": 1, "torch_dtype": "bfloat16",
        "use_bias": False, "use_cache": True, "use_conv_bias": True, "use_mamba_kernels": True,
        "vocab_size": 131072,
    },
}

MODELS["openai/gpt-oss-120b"] = dict(MODELS["openai/gpt-oss-20b"], num_hidden_layers=36, num_local_experts=128,
                                     layer_types=["sliding_attention", "full_attention"] * 18)
MODELS["deepseek-ai/DeepSeek-V2"] = dict(
    MODELS["deepseek-ai/DeepSeek-V2-Lite"], hidden_size=5120, intermediate_size=12288, moe_intermediate_size=1536,
    n_group=8, n_routed_experts=160, num_attention_heads=128, num_hidden_layers=60, num_key_value_heads=128,
    q_lora_rank=1536, routed_scaling_factor=16.0, topk_group=3, topk_method="group_limited_greedy")


# Revisions the recipes pin (from_hf_pretrained(..., revision=...)): the same config.json is
# also stored under that snapshot so the pinned lookup resolves offline.
PINNED = {
    "Qwen/Qwen3-8B": "b968826d9c46dd6066d109eabc6255188de91218",
    "Qwen/Qwen3-30B-A3B": "ad44e777bcd18fa416d9da3bd8f70d33ebb85d39",
    "moonshotai/Moonlight-16B-A3B": "476b36a473d4467f94469414bef6cee75c9c8172",
}


def main():
    hub = os.path.join(HF_HOME, "hub")
    for repo, cfg in MODELS.items():
        org, name = repo.split("/")
        d = os.path.join(hub, f"models--{org}--{name}")
        os.makedirs(os.path.join(d, "refs"), exist_ok=True)
        os.makedirs(os.path.join(d, "snapshots", REV), exist_ok=True)
        with open(os.path.join(d, "refs", "main"), "w") as f:
            f.write(REV)
        for rev in {REV, PINNED.get(repo, REV)}:
            os.makedirs(os.path.join(d, "snapshots", rev), exist_ok=True)
            with open(os.path.join(d, "snapshots", rev, "config.json"), "w") as f:
                json.dump(cfg, f, indent=2)  # Infinity written as JSON5-style Infinity, as HF does
    print(f"wrote {len(MODELS)} configs under {hub}")


if __name__ == "__main__":
    main()
