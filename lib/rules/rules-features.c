/*
 * rules-features.c — the rules about features that exclude or need each other: precision, tp-comm
 * overlap, FSDP, SHARP, stream priorities, deterministic mode, CUDA graphs. Each rule is its
 * function with its table row beside it; rules.c lists the rows in the order they run.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

static void
mc031(struct mcinit_rule_ctx *x)
{
	if (!B(fp16) || !B(bf16))
		return;
	mcinit_diag_hint(mcinit_rule_report(x, mcinit_rule_written(x, F(fp16), F(bf16)),
	                                    "fp16 and bf16 are both set"),
	                 "choose one: --bf16 (recommended on Ampere and newer) or --fp16");
}

const struct mcinit_rule mcinit_rule_mc031 = {"MC031",
                                              MCINIT_ERROR,
                                              "fp16 and bf16 are not both set",
                                              "--fp16 --bf16",
                                              "choose one precision",
                                              READS(F(fp16), F(bf16)),
                                              mc031};

static void
mc032(struct mcinit_rule_ctx *x)
{
	if (!B(tp_comm_overlap) || B(sequence_parallel))
		return;
	mcinit_diag_hint(mcinit_rule_report_lm(
	                     x, F(tp_comm_overlap), "tp_comm_overlap needs sequence_parallel%s",
	                     x->c->origin[F(sequence_parallel)] == MCINIT_ORIG_REPAIR
	                         ? " (turned off because TP = 1, see MC101)"
	                         : ""),
	                 x->c->origin[F(sequence_parallel)] == MCINIT_ORIG_REPAIR
	                     ? "tensor-parallel overlap needs TP > 1; drop --tp-comm-overlap"
	                     : "add --sequence-parallel, or drop --tp-comm-overlap");
}

const struct mcinit_rule mcinit_rule_mc032 = {
    "MC032",
    MCINIT_ERROR,
    "tp_comm_overlap needs sequence_parallel (Megatron-LM's validate_args; a warning for a "
    "Megatron-Bridge ConfigContainer)",
    "--tensor-model-parallel-size 4 --tp-comm-overlap",
    "add --sequence-parallel",
    READS(F(tp_comm_overlap), F(sequence_parallel)),
    mc032};

static void
mc033(struct mcinit_rule_ctx *x)
{
	if (I(expert_model_parallel_size) <= 1 || I(tensor_model_parallel_size) <= 1 ||
	    B(sequence_parallel))
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(x,
	                       mcinit_rule_written(x, F(expert_model_parallel_size),
	                                           F(tensor_model_parallel_size)),
	                       "expert parallelism (EP = %lld) with tensor parallelism (TP = %lld) "
	                       "without sequence_parallel: Megatron warns that sequence "
	                       "parallelism must be used with EP and TP",
	                       I(expert_model_parallel_size), I(tensor_model_parallel_size)),
	    "add --sequence-parallel");
}

const struct mcinit_rule mcinit_rule_mc033 = {
    "MC033",
    MCINIT_WARNING,
    "EP > 1 with TP > 1 should use sequence_parallel",
    "--expert-model-parallel-size 8 --tensor-model-parallel-size 2 --num-experts 8",
    "add --sequence-parallel",
    READS(EP, TP, F(sequence_parallel)),
    mc033};

static void
mc036(struct mcinit_rule_ctx *x)
{
	const char *grp = mcinit_cfg_str(x->c, F(sharp_enabled_group));

	if (grp == NULL)
		return;
	if (!B(use_sharp))
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(sharp_enabled_group),
		                       "sharp_enabled_group %s is set but use_sharp is off", grp),
		    "add --use-sharp, or drop --sharp-enabled-group");
	if (strcmp(grp, "dp_replica") == 0 && I(num_distributed_optimizer_instances) <= 1)
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(sharp_enabled_group),
		                       "sharp_enabled_group dp_replica needs "
		                       "num_distributed_optimizer_instances > 1, got %lld",
		                       I(num_distributed_optimizer_instances)),
		    "use sharp_enabled_group dp, or more distributed-optimizer "
		    "instances");
}

const struct mcinit_rule mcinit_rule_mc036 = {
    "MC036",
    MCINIT_ERROR,
    "sharp_enabled_group needs use_sharp; dp_replica needs more than one optimizer "
    "instance",
    "--sharp-enabled-group dp",
    "add --use-sharp",
    READS(F(sharp_enabled_group), F(use_sharp), F(num_distributed_optimizer_instances)),
    mc036};

static void
mc037(struct mcinit_rule_ctx *x)
{
	if (B(use_megatron_fsdp) && B(use_torch_fsdp2))
		mcinit_diag_hint(
		    mcinit_rule_report(
		        x, mcinit_rule_written(x, F(use_torch_fsdp2), F(use_megatron_fsdp)),
		        "use_megatron_fsdp and use_torch_fsdp2 are mutually "
		        "exclusive"),
		    "choose one FSDP implementation");
	if ((B(use_megatron_fsdp) || B(use_torch_fsdp2)) && B(use_tp_pp_dp_mapping))
		mcinit_diag_hint(mcinit_rule_report(
		                     x, F(use_tp_pp_dp_mapping),
		                     "%s cannot be combined with use_tp_pp_dp_mapping",
		                     B(use_torch_fsdp2) ? "use_torch_fsdp2" : "use_megatron_fsdp"),
		                 "drop --use-tp-pp-dp-mapping");
}

const struct mcinit_rule mcinit_rule_mc037 = {
    "MC037",
    MCINIT_ERROR,
    "use_megatron_fsdp and use_torch_fsdp2 are exclusive, and neither goes with "
    "use_tp_pp_dp_mapping",
    "--use-megatron-fsdp --use-torch-fsdp2",
    "choose one FSDP implementation",
    READS(F(use_megatron_fsdp), F(use_torch_fsdp2), F(use_tp_pp_dp_mapping)),
    mc037};

static void
mc038(struct mcinit_rule_ctx *x)
{
	if (!B(use_torch_fsdp2))
		return;
	if (I(pipeline_model_parallel_size) != 1)
		mcinit_rule_report_lm(x, F(pipeline_model_parallel_size),
		                      "use_torch_fsdp2 does not support pipeline parallelism "
		                      "(pipeline_model_parallel_size %lld)",
		                      I(pipeline_model_parallel_size));
	if (I(expert_model_parallel_size) != 1)
		mcinit_rule_report_lm(x, F(expert_model_parallel_size),
		                      "use_torch_fsdp2 does not support expert parallelism "
		                      "(expert_model_parallel_size %lld)",
		                      I(expert_model_parallel_size));
	/* Not when R8 turned it on for Megatron FSDP: MC037 covers that. */
	if (B(use_distributed_optimizer) && user_wrote(x->c, F(use_distributed_optimizer)))
		mcinit_rule_report_lm(
		    x, F(use_distributed_optimizer),
		    "use_torch_fsdp2 does not support Megatron's distributed optimizer");
	if (B(fp16))
		mcinit_diag_hint(
		    mcinit_rule_report_lm(x, F(fp16), "use_torch_fsdp2 does not support fp16"),
		    "use --bf16");
}

const struct mcinit_rule mcinit_rule_mc038 = {
    "MC038",
    MCINIT_ERROR,
    "use_torch_fsdp2 needs PP = 1 and EP = 1 (and no distributed optimizer, no fp16; "
    "Megatron-LM's validate_args: warnings for a Megatron-Bridge ConfigContainer)",
    "--use-torch-fsdp2 --pipeline-model-parallel-size 2",
    "drop pipeline/expert parallelism or use Megatron FSDP",
    READS(F(use_torch_fsdp2), PP, EP, F(use_distributed_optimizer), F(fp16)),
    mc038};

static void
mc039(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(high_priority_stream_groups));
	const char *names[MCINIT_GROUP_COUNT];
	struct mcx_buf all = {0};
	size_t i, first = SIZE_MAX;
	int k;

	if (v->kind != MCINIT_V_LIST)
		return;
	for (i = 0; i < v->n; i++) {
		const char *s = v->items[i].s, *sug;

		if (s == NULL || mcinit_group_kind_from_name(s) >= 0)
			continue;
		if (first == SIZE_MAX)
			first = i;
		/* the list of keys, for the hints: made at the first wrong one
		 * (this rule runs on every check) */
		for (k = 0; i == first && k < MCINIT_GROUP_COUNT; k++) {
			names[k] = mcinit_group_kind_name((enum mcinit_group_kind)k);
			mcx_buf_printf(&all, "%s%s", k ? ", " : "", names[k]);
		}
		sug = mcinit_suggest(s, names, MCINIT_GROUP_COUNT);
		if (sug != NULL)
			mcinit_diag_hint(
			    mcinit_rule_report(x, F(high_priority_stream_groups),
			                       "high_priority_stream_groups: '%s' is not a group "
			                       "key; did you mean '%s'?",
			                       s, sug),
			    "group keys: %s", mcx_buf_cstr(&all));
		else
			mcinit_diag_hint(mcinit_rule_report(
			                     x, F(high_priority_stream_groups),
			                     "high_priority_stream_groups: '%s' is not a group key",
			                     s),
			                 "group keys: %s", mcx_buf_cstr(&all));
	}
	mcx_buf_free(&all);
}

const struct mcinit_rule mcinit_rule_mc039 = {"MC039",
                                              MCINIT_ERROR,
                                              "high_priority_stream_groups names known group keys",
                                              "--high-priority-stream-groups dp_cpp",
                                              "use the group keys of mcinit topology",
                                              READS(F(high_priority_stream_groups)),
                                              mc039};

/* ---- CUDA graphs and activation recomputation on core_r0.15 (MC062) ---- */

/* core_r0.15 refused recomputation under CUDA graphs: validate_args any
 * full recomputation, TransformerConfig all but selective recomputation of
 * Transformer Engine's graphed attention.  core_r0.16 on allow it with
 * full-iteration graphs (an MC201 row of main says so). */
static void
mc062(struct mcinit_rule_ctx *x)
{
	const char *impl = mcinit_cfg_str(x->c, F(cuda_graph_impl));
	const struct mcinit_value *scope = mcinit_cfg_val(x->c, F(cuda_graph_scope));
	const char *gran;

	if (x->c->mversion != MCINIT_MV_R015 || impl == NULL || strcmp(impl, "none") == 0 ||
	    NUL(recompute_granularity) ||
	    (gran = mcinit_cfg_str(x->c, F(recompute_granularity))) == NULL)
		return;
	if (strcmp(gran, "full") == 0)
		mcinit_rule_report(
		    x, F(recompute_granularity),
		    "recompute_granularity must not be full when CUDA Graphs are enabled "
		    "(cuda_graph_impl = %s, core_r0.15)",
		    impl);
	else if (strcmp(impl, "transformer_engine") != 0 || scope->kind != MCINIT_V_STR ||
	         strcmp(scope->s, "attn") != 0)
		mcinit_rule_report(
		    x, F(recompute_granularity),
		    "CUDA graphs not supported with activation recomputation (core_r0.15: only "
		    "selective recomputation with cuda_graph_impl = transformer_engine and "
		    "cuda_graph_scope = attn)");
}

const struct mcinit_rule mcinit_rule_mc062 = {
    "MC062",
    MCINIT_ERROR,
    "core_r0.15 only: no activation recomputation under CUDA graphs, except selective "
    "recomputation with cuda_graph_impl transformer_engine and cuda_graph_scope attn",
    "--megatron-version r0.15 -- --cuda-graph-impl local --recompute-granularity full",
    "drop the recomputation or the CUDA graphs (core_r0.16 on allow full recomputation with "
    "full-iteration graphs)",
    READS(F(cuda_graph_impl), F(recompute_granularity), F(cuda_graph_scope)),
    mc062};

/* ---- deterministic mode (MC050) ---- */

/* Whether every comma-separated token of v is in the set (determinism.py). */
static bool
tokens_in(const char *v, const char *const *set)
{
	char buf[256], *save = NULL, *t;
	size_t k, n = 0;

	snprintf(buf, sizeof buf, "%s", v);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ' || *t == '\t')
			t++;
		for (k = strlen(t); k > 0 && (t[k - 1] == ' ' || t[k - 1] == '\t'); k--)
			t[k - 1] = '\0';
		if (*t == '\0')
			continue;
		for (k = 0; set[k] && strcmp(set[k], t) != 0; k++)
			;
		if (set[k] == NULL)
			return false;
		n++;
	}
	return n > 0;
}

static void
det_env(struct mcinit_rule_ctx *x, const char *name, bool ok, const char *val, bool from_cfg,
        const char *want)
{
	if (ok)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report_loc(x, from_cfg ? &x->c->env_vars_loc : &mcinit_rules_env_loc,
	                           "deterministic_mode: %s=%s%s is not deterministic", name, val,
	                           from_cfg ? " (env_vars)" : " in the environment"),
	    "unset %s (Megatron then sets its default) or use %s", name, want);
}

/* core_r0.19 on: megatron/training/determinism.py; before: validate_args. */
static void
mc050(struct mcinit_rule_ctx *x)
{
	static const char *const algos[] = {"Ring", "CollnetDirect", "CollnetChain", "^NVLS", NULL};
	static const char *const old_algos[] = {"Tree",         "Ring",  "CollnetDirect",
	                                        "CollnetChain", "^NVLS", NULL};
	static const char *const mamba[] = {"MAMBA_DETERMINISTIC", "CAUSAL_CONV1D_DETERMINISTIC"};
	bool from_cfg, set;
	char val[256];
	size_t i;

	if (!B(deterministic_mode))
		return;
	if (x->c->mversion < MCINIT_MV_R019) {
		if (B(use_flash_attn))
			mcinit_rule_report(x, F(use_flash_attn),
			                   "Flash attention can not be used in deterministic mode");
		if (B(cross_entropy_loss_fusion))
			mcinit_rule_report(x, F(cross_entropy_loss_fusion),
			                   "Cross Entropy Fusion is currently not deterministic");
		set = mcinit_rule_job_env(x, "NCCL_ALGO", val, sizeof val, &from_cfg);
		for (i = 0; set && old_algos[i] && strcmp(old_algos[i], val) != 0; i++)
			;
		if (!set || old_algos[i] == NULL)
			mcinit_diag_hint(
			    mcinit_rule_report(
			        x, F(deterministic_mode),
			        "deterministic_mode needs NCCL_ALGO set to one of Tree, "
			        "Ring, CollnetDirect, CollnetChain, ^NVLS (it is %s)",
			        set ? val : "not set"),
			    "export NCCL_ALGO=Ring or set it in env_vars");
		return;
	}
	if (B(cross_entropy_loss_fusion))
		mcinit_diag_hint(
		    mcinit_rule_report(
		        x, F(cross_entropy_loss_fusion),
		        "--deterministic-mode requires cross_entropy_loss_fusion=False"),
		    "drop --cross-entropy-loss-fusion");
	if (B(tp_comm_overlap))
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(tp_comm_overlap),
		                       "--deterministic-mode requires tp_comm_overlap=False"),
		    "drop --tp-comm-overlap");
	if (mcinit_rule_job_env(x, "NCCL_ALGO", val, sizeof val, &from_cfg))
		det_env(x, "NCCL_ALGO", tokens_in(val, algos), val, from_cfg,
		        "Ring, CollnetDirect, CollnetChain or ^NVLS (comma-separated)");
	if (mcinit_rule_job_env(x, "NVTE_ALLOW_NONDETERMINISTIC_ALGO", val, sizeof val, &from_cfg))
		det_env(x, "NVTE_ALLOW_NONDETERMINISTIC_ALGO", strcmp(val, "0") == 0, val, from_cfg,
		        "0");
	if (mcinit_rule_job_env(x, "CUBLAS_WORKSPACE_CONFIG", val, sizeof val, &from_cfg))
		det_env(x, "CUBLAS_WORKSPACE_CONFIG",
		        strcmp(val, ":4096:8") == 0 || strcmp(val, ":16:8") == 0, val, from_cfg,
		        ":4096:8 or :16:8");
	for (i = 0; i < 2; i++)
		if (mcinit_rule_job_env(x, mamba[i], val, sizeof val, &from_cfg) && val[0] != '\0')
			det_env(x, mamba[i], val[0] == '1', val, from_cfg, "1");
}

const struct mcinit_rule mcinit_rule_mc050 = {
    "MC050",
    MCINIT_ERROR,
    "deterministic_mode: no cross_entropy_loss_fusion or tp_comm_overlap, and NCCL_ALGO, "
    "NVTE_ALLOW_NONDETERMINISTIC_ALGO, CUBLAS_WORKSPACE_CONFIG, MAMBA_DETERMINISTIC are "
    "deterministic when set (before core_r0.19: no flash attention or cross-entropy fusion, "
    "NCCL_ALGO set to Tree, Ring, CollnetDirect, CollnetChain or ^NVLS)",
    "--deterministic-mode --cross-entropy-loss-fusion",
    "drop the non-deterministic option, or fix the environment variable",
    READS(F(deterministic_mode), F(cross_entropy_loss_fusion), F(tp_comm_overlap)),
    mc050};
