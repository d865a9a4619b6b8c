"""campaign.py SEED N OUT.tsv — random differential of mcinit against Megatron-Bridge 0.6.2
(or the release of tests/bridge/$BRIDGE_RELEASE, run with that release: main, README).

Each case: one recipe dump of tests/bridge/0.6.2, 1-3 overrides drawn from a catalogue of
the settings people change (parallelism, sizes, batches, precision, recompute, MoE, DDP),
a world size.  Bridge judges the changed file in this process (from_yaml +
runtime_config_update + the post checks pretrain() hits next); the row records both
verdicts so a second step can run mcinit on the same overrides.
"""
import json, os, random, sys, io, contextlib, warnings
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import yaml
seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
# BRIDGE_RELEASE: the release directory of tests/bridge (main with Bridge main's sources)
DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bridge",
                   os.environ.get("BRIDGE_RELEASE", "0.6.2"))
CAT = {
 "model.tensor_model_parallel_size": [1, 2, 3, 4, 8],
 "model.pipeline_model_parallel_size": [1, 2, 3, 4],
 "model.context_parallel_size": [1, 2, 4],
 "model.expert_model_parallel_size": [1, 2, 4, 8],
 "model.expert_tensor_parallel_size": [None, 1, 2],
 "model.virtual_pipeline_model_parallel_size": [None, 2, 3],
 "model.sequence_parallel": [True, False],
 "model.num_layers": [7, 12, 30, 32],
 "model.hidden_size": [1000, 4096],
 "model.ffn_hidden_size": [None, 11008],
 "model.num_attention_heads": [12, 30, 32],
 "model.num_query_groups": [None, 3, 8],
 "model.kv_channels": [None, 64, 128],
 "model.seq_length": [2048, 4096, 8192],
 "dataset.sequence_length": [2048, 4096],
 "dataset.seq_length": [2048, 4096],
 "train.micro_batch_size": [1, 2, 3],
 "train.global_batch_size": [6, 100, 128, 1000],
 "train.train_iters": [10, 1000],
 "model.recompute_granularity": [None, "full", "selective"],
 "model.recompute_method": [None, "uniform", "block"],
 "model.recompute_num_layers": [None, 1, 4],
 "model.fp8": [None, "hybrid", "e4m3"],
 "model.fp8_recipe": ["tensorwise", "delayed", "blockwise", "mxfp8"],
 "model.fp8_param": [True, False],
 "ddp.overlap_grad_reduce": [True, False],
 "ddp.overlap_param_gather": [True, False],
 "ddp.use_distributed_optimizer": [True, False],
 "ddp.average_in_collective": [True, False],
 "optimizer.lr": [0.0003, 0.1],
 "optimizer.min_lr": [0.0, 0.001],
 "optimizer.use_distributed_optimizer": [True, False],
 "scheduler.lr_warmup_iters": [0, 100000],
 "scheduler.lr_decay_iters": [None, 10],
 "model.moe_router_topk": [1, 2, 9],
 "model.num_moe_experts": [None, 6, 8],
 "model.moe_token_dispatcher_type": ["alltoall", "allgather", "flex"],
 "model.moe_grouped_gemm": [True, False],
 "model.apply_rope_fusion": [True, False],
 "model.bias_activation_fusion": [True, False],
 "model.masked_softmax_fusion": [True, False],
 "model.gradient_accumulation_fusion": [True, False],
 "model.account_for_embedding_in_pipeline_split": [True, False],
 "model.account_for_loss_in_pipeline_split": [True, False],
 "model.cross_entropy_loss_fusion": [True, False],
 "model.cross_entropy_fusion_impl": ["native", "te"],
 "model.tp_comm_overlap": [True, False],
 "model.defer_embedding_wgrad_compute": [True, False],
 "model.untie_embeddings_and_output_weights": [True, False],
 "model.share_embeddings_and_output_weights": [True, False],
 "model.position_embedding_type": ["rope", "learned_absolute", "none"],
 "model.normalization": ["LayerNorm", "RMSNorm"],
 "model.params_dtype": ["bf16", "fp32"],
 "model.bf16": [True, False],
 "model.fp16": [True, False],
 "checkpoint.save_interval": [None, 0, 100],
 "train.eval_iters": [0, 10],
 "validation.eval_iters": [0, 10],
 "validation.eval_interval": [None, 100],
 "logger.log_interval": [0, 1, 10],
 "rng.seed": [0, 1234],
 "comm_overlap.tp_comm_overlap": [True, False],
 "model.mtp_num_layers": [None, 1, 2],
 "model.moe_layer_freq": [1, 2],
 "model.first_last_layers_bf16": [True, False],
}
GENERIC = len(sys.argv) > 4 and sys.argv[4] == "generic"
GEN_SECS = ["train", "optimizer", "scheduler", "checkpoint", "dist", "logger", "tokenizer", "rng", "ddp", "dataset", "rerun_state_machine", "validation"]
ENUMS = {"optimizer.optimizer": ["adam", "sgd", "muon", "lion", "soap", "dist_muon"],
         "scheduler.lr_decay_style": ["constant", "linear", "cosine", "inverse-square-root", "WSD"],
         "checkpoint.ckpt_format": ["torch_dist", "torch", "zarr", "fsdp_dtensor"],
         "dataset.dataloader_type": ["single", "cyclic", "external"],
         "scheduler.weight_decay_incr_style": ["constant", "linear", "cosine"],
         "checkpoint.async_strategy": ["nvrx", "mcore"],
         "logger.timing_log_option": ["max", "minmax", "all"]}
if GENERIC:
    CAT = {}
files = sorted(f for f in os.listdir(DIR) if f.endswith(".yaml"))
verdicts = {}
for line in open(os.path.join(DIR, "verdicts.tsv")):
    if line.startswith("#") or line.startswith("file\t"):
        continue
    p = line.rstrip("\n").split("\t")
    verdicts[p[0]] = int(p[1])
rng = random.Random(seed)
_real = sys.stdout
with contextlib.redirect_stdout(io.StringIO()):
    import oraclelib
os.makedirs("/tmp/camp", exist_ok=True)
def fmt(v):
    if v is None: return "null"
    if v is True: return "true"
    if v is False: return "false"
    return str(v)
with open(out, "a") as o:
    done = 0
    while done < n:
        f = rng.choice(files)
        base = yaml.safe_load(open(os.path.join(DIR, f)))
        if GENERIC:
            keys = []
            for sec in GEN_SECS:
                v = base.get(sec)
                if isinstance(v, dict):
                    keys += ["%s.%s" % (sec, k) for k, x in v.items() if k != "_target_" and (isinstance(x, (bool, int, float)) or ("%s.%s" % (sec, k)) in ENUMS)]
            for k in keys:
                if k not in CAT:
                    s_, k_ = k.split(".")
                    x = base[s_][k_]
                    CAT[k] = ENUMS.get(k) or ([not x] if isinstance(x, bool) else [0, 1, 2, -1, 7, 1000] if isinstance(x, int) else [0.0, 1e-5, 0.5, 1.5, -1.0])
        else:
            keys = [k for k in CAT if isinstance(base.get(k.split(".")[0]), dict) and k.split(".")[1] in base[k.split(".")[0]]]
            # a builder-style model (Bridge main's BridgeGPTModelConfig) holds the
            # transformer's fields under model.transformer
            tr = (base.get("model") or {}).get("transformer")
            if isinstance(tr, dict):
                keys += ["model.transformer." + k.split(".")[1] for k in CAT
                         if k.startswith("model.") and k.split(".")[1] in tr]
        if not keys:
            continue
        picks = rng.sample(keys, rng.choice([1, 1, 2, 3]))
        ovs = []
        for k in picks:
            *path, key = k.split(".")
            v = rng.choice(CAT["%s.%s" % (path[0], key)])
            t = base
            for s in path:
                t = t[s]
            if t[key] == v:
                continue
            t[key] = v
            ovs.append("%s=%s" % (k, fmt(v)))
        if not ovs:
            continue
        ws0 = verdicts.get(f, 8)
        ws = rng.choice([ws0, ws0, ws0 * 2, max(1, ws0 // 2), ws0 * 3])
        p = "/tmp/camp/c%d-%d.yaml" % (seed, done)
        yaml.safe_dump(base, open(p, "w"), default_flow_style=False, sort_keys=False)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                j = oraclelib.judge_file(p, ws)
            except BaseException as e:
                j = {"accepted": False, "error": "HARNESS " + repr(e)[:150], "post_checks": None}
        pc = j.get("post_checks") or {}
        bad = [k for k in ("microbatches", "parallel_state") if isinstance(pc.get(k), dict) and not pc[k].get("ok", True)]
        err = (j.get("error") or "-").replace("\n", " ").replace("\t", " ")[:220]
        pce = ";".join(bad) or "-"
        o.write("c%d-%d\t%s\t%d\t%s\t%s\t%s\t%s\n" % (seed, done, f, ws, " ".join(ovs),
                "accept" if j.get("accepted") else "reject", err, pce))
        o.flush()
        done += 1
