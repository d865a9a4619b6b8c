/*
 * repairs.c — what mcinit_check does to the config before deriving anything:
 * it applies the repairs R1-R8 that Megatron applies (MC101-MC108), each reported as a note
 * when it changes a value, never silently.  Also the documentation of these
 * codes and of the notes about derived values (mcinit_repairs[]).
 */
#include "config/bridge.h"
#include "rules/rules-impl.h"

#include <string.h>

/* Keeps where the user wrote a value when a repair changes it, so later
 * findings about it still point there. */
static void
repair_bool(struct mcinit_config *c, enum mcinit_field f, bool v)
{
	struct mcinit_loc l = c->loc[f];

	mcinit_cfg_set_bool(c, f, v, MCINIT_ORIG_REPAIR, &l);
}

/* ---- repairs R1-R8 (MC101-MC108) ---- */

/* R1: Megatron-LM and Bridge turn sequence parallelism off at TP = 1 so that
 * numerics do not change. */
static void
repair_sp(struct mcinit_rule_ctx *x)
{
	if (INVALID(x->c, F(tensor_model_parallel_size), F(sequence_parallel)))
		return;
	if (I(tensor_model_parallel_size) != 1 || !B(sequence_parallel))
		return;
	mcinit_diag_hint(
	    mcinit_rules_note(x, "MC101", MCINIT_NOTE, F(sequence_parallel),
	                      "sequence_parallel turned off: Megatron disables sequence "
	                      "parallelism when tensor_model_parallel_size is 1"),
	    "drop --sequence-parallel, or use tensor_model_parallel_size > 1");
	repair_bool(x->c, F(sequence_parallel), false);
}

static const char *
compute_dtype(struct mcinit_rule_ctx *x)
{
	return B(bf16) ? "bf16" : B(fp16) ? "fp16" : "fp32";
}

/* R2: params_dtype follows the precision flags; pipeline_dtype (the dtype of
 * activations sent between stages) is params_dtype: Megatron-LM has no flag
 * for it and always takes params_dtype, so there is nothing to report. */
static void
repair_dtypes(struct mcinit_rule_ctx *x)
{
	if (INVALID(x->c, F(fp16), F(bf16), F(params_dtype), F(pipeline_dtype)))
		return;
	if (NUL(params_dtype) && !(B(fp16) && B(bf16)))
		mcinit_cfg_set_str(x->c, F(params_dtype), compute_dtype(x), MCINIT_ORIG_REPAIR,
		                   NULL);
	if (NUL(pipeline_dtype) && !NUL(params_dtype))
		mcinit_cfg_set_str(x->c, F(pipeline_dtype), mcinit_cfg_str(x->c, F(params_dtype)),
		                   MCINIT_ORIG_REPAIR, NULL);
}

/* R3: Megatron-LM takes ETP = TP when unset; Megatron-Bridge (>= PR #4579,
 * release 0.6) takes 1 when EP > 1.  The two disagree silently, so say
 * which applies: Bridge's for a ConfigContainer of a release that does it
 * (bridge-loader.tsv, etp-one-with-ep) or when --bridge-defaults asks. */
static void
repair_etp(struct mcinit_rule_ctx *x)
{
	long long tp, ep, etp;
	enum mcinit_field at;
	bool moe, bridge;

	if (INVALID(x->c, F(tensor_model_parallel_size), F(expert_model_parallel_size),
	            F(expert_tensor_parallel_size), F(num_moe_experts)) ||
	    !NUL(expert_tensor_parallel_size))
		return;
	tp = I(tensor_model_parallel_size);
	ep = I(expert_model_parallel_size);
	bridge = x->o->bridge_defaults ||
	         (x->c->bridge && mcinit_bridge_etp_one_with_ep(x->c->bversion));
	etp = bridge && ep > 1 ? 1 : tp;
	mcinit_cfg_set_int(x->c, F(expert_tensor_parallel_size), etp, MCINIT_ORIG_REPAIR, NULL);
	moe = ep > 1 || (!NUL(num_moe_experts) && I(num_moe_experts) > 0);
	/* With TP = 1 both conventions give 1: nothing to say. */
	if (!moe || tp == 1)
		return;
	at = user_wrote(x->c, F(expert_model_parallel_size)) ? F(expert_model_parallel_size)
	                                                     : F(num_moe_experts);
	if (etp == 1)
		mcinit_diag_hint(
		    mcinit_rules_note(x, "MC103", MCINIT_NOTE, at,
		                      "expert_tensor_parallel_size not set: experts use ETP = 1 "
		                      "(Megatron-Bridge's default with EP = %lld > 1; Megatron-LM "
		                      "would use TP = %lld)",
		                      ep, tp),
		    "set expert_tensor_parallel_size explicitly so that both agree");
	else
		mcinit_diag_hint(
		    mcinit_rules_note(
		        x, "MC103", MCINIT_NOTE, at,
		        "expert_tensor_parallel_size not set: experts use ETP = TP = "
		        "%lld (Megatron-LM's default%s)",
		        tp, ep > 1 ? "; Megatron-Bridge >= PR #4579 uses 1 when EP > 1" : ""),
		    "set expert_tensor_parallel_size explicitly so that Megatron-LM and "
		    "Megatron-Bridge agree");
}

/* R4: lazy MPU init creates the model before any GPU group exists. */
static void
repair_cpu_init(struct mcinit_rule_ctx *x)
{
	if (INVALID(x->c, F(lazy_mpu_init), F(use_cpu_initialization)) || !B(lazy_mpu_init) ||
	    B(use_cpu_initialization))
		return;
	repair_bool(x->c, F(use_cpu_initialization), true);
	mcinit_rules_note(
	    x, "MC104", MCINIT_NOTE, F(lazy_mpu_init),
	    "use_cpu_initialization set to true because lazy_mpu_init is on (weights are "
	    "initialised before the model-parallel groups exist)");
}

/* R5 */
static void
repair_experts(struct mcinit_rule_ctx *x)
{
	struct mcinit_loc l;

	if (BAD(num_moe_experts) || NUL(num_moe_experts) || I(num_moe_experts) != 0)
		return;
	mcinit_rules_note(x, "MC105", MCINIT_NOTE, F(num_moe_experts),
	                  "num_moe_experts 0 means a dense model: treated as null");
	l = x->c->loc[F(num_moe_experts)];
	mcinit_value_clear(&x->c->val[F(num_moe_experts)]);
	x->c->origin[F(num_moe_experts)] = MCINIT_ORIG_REPAIR;
	x->c->loc[F(num_moe_experts)] = l;
}

/* R6 */
static void
repair_rng_tracker(struct mcinit_rule_ctx *x)
{
	const char *impl = mcinit_cfg_str(x->c, F(cuda_graph_impl));

	if (INVALID(x->c, F(cuda_graph_impl), F(te_rng_tracker)) || impl == NULL ||
	    strcmp(impl, "none") == 0 || B(te_rng_tracker))
		return;
	repair_bool(x->c, F(te_rng_tracker), true);
	mcinit_rules_note(
	    x, "MC106", MCINIT_NOTE, F(cuda_graph_impl),
	    "te_rng_tracker turned on: CUDA graphs (cuda_graph_impl = %s) need Transformer "
	    "Engine's RNG tracker",
	    impl);
}

/* R7 runs after D2: it depends on whether there is a virtual pipeline. */
void
mcinit_rules_repair_p2p(struct mcinit_rule_ctx *x)
{
	if (!x->dv->vpp_ok || x->dv->vpp > 0 ||
	    INVALID(x->c, F(overlap_p2p_comm), F(pipeline_model_parallel_size)) ||
	    !B(overlap_p2p_comm))
		return;
	if (I(pipeline_model_parallel_size) > 1)
		mcinit_rules_note(
		    x, "MC107", MCINIT_NOTE,
		    user_wrote(x->c, F(overlap_p2p_comm)) ? F(overlap_p2p_comm)
		                                          : F(pipeline_model_parallel_size),
		    "overlap_p2p_comm turned off: only the interleaved schedule (a virtual "
		    "pipeline) overlaps pipeline send/receive with compute");
	repair_bool(x->c, F(overlap_p2p_comm), false);
}

/* R8: Megatron-Bridge keeps the ddp and optimizer copies of these settings in
 * sync; Megatron-LM asserts on the combinations below.  mcinit applies the
 * repair but warns, since the user asked for something that cannot happen. */
static void
repair_ddp(struct mcinit_rule_ctx *x)
{
	bool fsdp;

	if (INVALID(x->c, F(use_megatron_fsdp), F(use_distributed_optimizer),
	            F(overlap_param_gather), F(overlap_grad_reduce)))
		return;
	fsdp = B(use_megatron_fsdp);
	if (fsdp && !B(use_distributed_optimizer)) {
		repair_bool(x->c, F(use_distributed_optimizer), true);
		mcinit_diag_hint(
		    mcinit_rules_note(x, "MC108", MCINIT_WARNING, F(use_megatron_fsdp),
		                      "use_distributed_optimizer turned on: Megatron FSDP always "
		                      "uses the distributed optimizer"),
		    "set ddp.use_distributed_optimizer=true to say so");
	}
	/* Megatron-LM's validate_args asserts where Bridge repairs: with
	 * Megatron-LM flags the check rows (arguments.py:1025, :1028, MC200)
	 * report it, so nothing is turned off here. */
	if (x->c->megatron_argv)
		return;
	if (B(overlap_param_gather) && !(B(use_distributed_optimizer) || fsdp)) {
		mcinit_diag_hint(
		    mcinit_rules_note(x, "MC108", MCINIT_WARNING, F(overlap_param_gather),
		                      "overlap_param_gather turned off: it needs "
		                      "use_distributed_optimizer (Megatron-LM asserts this)"),
		    "add --use-distributed-optimizer, or drop --overlap-param-gather");
		repair_bool(x->c, F(overlap_param_gather), false);
	} else if (B(overlap_param_gather) && !B(overlap_grad_reduce)) {
		mcinit_diag_hint(
		    mcinit_rules_note(x, "MC108", MCINIT_WARNING, F(overlap_param_gather),
		                      "overlap_param_gather turned off: it needs "
		                      "overlap_grad_reduce (Megatron-LM asserts this)"),
		    "add --overlap-grad-reduce, or drop --overlap-param-gather");
		repair_bool(x->c, F(overlap_param_gather), false);
	}
}

/* num_query_groups without group_query_attention: Megatron-LM passes
 * num_query_groups = None to the model, i.e. plain multi-head attention.
 * Not so in a config file: Megatron-Core's model reads the field itself. */
static void
note_gqa_ignored(struct mcinit_rule_ctx *x)
{
	if (INVALID(x->c, F(num_query_groups), F(group_query_attention)) || NUL(num_query_groups) ||
	    gqa_on(x->c))
		return;
	mcinit_diag_hint(
	    mcinit_rules_note(x, "MC111", MCINIT_NOTE, F(num_query_groups),
	                      "num_query_groups = %lld is ignored: group_query_attention is "
	                      "false, so the model uses multi-head attention",
	                      I(num_query_groups)),
	    "add --group-query-attention (model.group_query_attention=true) to use "
	    "grouped-query attention");
}

/* R10: a ConfigContainer's comm_overlap section (not null) makes Bridge's
 * CommOverlapConfig.setup write the model's overlap fields before the
 * model's own checks run: the section's value where it gives one, else
 * Bridge's choice (off; overlapped p2p with a virtual pipeline, batched
 * p2p without; no wgrad deferral limit), whatever the model section says.
 * It keeps tp_comm_overlap off at TP < 2 or without sequence parallelism.
 * (megatron/bridge/training/comm_overlap.py, _get_model_comm_overlap_cfgs
 * and setup, Bridge 0.5-0.6.) */
static const struct {
	enum mcinit_field co, model;
} comm_overlap_map[] = {
    {F(comm_overlap_tp_comm_overlap), F(tp_comm_overlap)},
    {F(comm_overlap_overlap_p2p_comm), F(overlap_p2p_comm)},
    {F(comm_overlap_batch_p2p_comm), F(batch_p2p_comm)},
    {F(comm_overlap_defer_embedding_wgrad_compute), F(defer_embedding_wgrad_compute)},
    {F(comm_overlap_wgrad_deferral_limit), F(wgrad_deferral_limit)},
    {F(comm_overlap_overlap_moe_expert_parallel_comm), F(overlap_moe_expert_parallel_comm)},
    {F(comm_overlap_delay_wgrad_compute), F(delay_wgrad_compute)},
};

/* What setup gives model field i of comm_overlap_map when the section
 * leaves it null. */
static long long
comm_overlap_default(struct mcinit_rule_ctx *x, enum mcinit_field model)
{
	long long pp = I(pipeline_model_parallel_size),
	          vp = NUL(virtual_pipeline_model_parallel_size)
	                   ? 1
	                   : I(virtual_pipeline_model_parallel_size);

	if (model == F(overlap_p2p_comm))
		return pp > 1 && vp > 1;
	if (model == F(batch_p2p_comm))
		return pp > 1 && vp <= 1;
	return model == F(wgrad_deferral_limit) ? -1 : 0;
}

static void
value_text(char *buf, size_t n, bool isbool, long long v)
{
	if (isbool)
		snprintf(buf, n, "%s", v ? "true" : "false");
	else
		snprintf(buf, n, "%lld", v);
}

static void
note_comm_overlap(struct mcinit_rule_ctx *x, enum mcinit_field co, enum mcinit_field m,
                  long long want)
{
	bool isbool = mcinit_cfg_val(x->c, m)->kind == MCINIT_V_BOOL;
	char was[32], now[32];

	value_text(was, sizeof was, isbool, mcinit_cfg_val(x->c, m)->i);
	value_text(now, sizeof now, isbool, want);
	mcinit_diag_hint(
	    mcinit_rules_note(x, "MC110", MCINIT_NOTE, m,
	                      "model.%s = %s becomes %s: Megatron-Bridge's "
	                      "comm_overlap section sets it (comm_overlap.%s %s)",
	                      mcinit_field_s(m, name), was, now, mcinit_field_s(co, name),
	                      mcinit_cfg_null(x->c, co) ? "is null: Bridge's choice" : "is set"),
	    "set comm_overlap.%s instead, or drop the comm_overlap section",
	    mcinit_field_s(co, name));
}

static void
repair_comm_overlap(struct mcinit_rule_ctx *x)
{
	size_t i;

	if (!x->c->bridge || !mcinit_config_section_set(x->c, "comm_overlap") ||
	    INVALID(x->c, F(tensor_model_parallel_size), F(pipeline_model_parallel_size),
	            F(virtual_pipeline_model_parallel_size), F(sequence_parallel)))
		return;
	for (i = 0; i < sizeof comm_overlap_map / sizeof comm_overlap_map[0]; i++) {
		enum mcinit_field co = comm_overlap_map[i].co, m = comm_overlap_map[i].model;
		const struct mcinit_value *v = mcinit_cfg_val(x->c, m);
		bool isbool = v->kind == MCINIT_V_BOOL;
		long long want;

		if (x->c->invalid[co] || x->c->invalid[m] ||
		    (v->kind != MCINIT_V_BOOL && v->kind != MCINIT_V_INT))
			continue;
		want = mcinit_cfg_null(x->c, co) ? comm_overlap_default(x, m)
		                                 : mcinit_cfg_val(x->c, co)->i;
		if (m == F(tp_comm_overlap) &&
		    (I(tensor_model_parallel_size) < 2 || !B(sequence_parallel)))
			want = 0;
		if (v->i == want)
			continue;
		/* said only where a feature the user turned on is lost: the p2p
		 * and deferral-limit settings are Bridge's plumbing, and a dump
		 * writes every field */
		if (user_wrote(x->c, m) && isbool && v->i && !want && m != F(overlap_p2p_comm) &&
		    m != F(batch_p2p_comm))
			note_comm_overlap(x, co, m, want);
		if (isbool)
			repair_bool(x->c, m, want != 0);
		else
			mcinit_cfg_set_int(x->c, m, want, MCINIT_ORIG_REPAIR, &x->c->loc[m]);
	}
}

/* R5 runs first: every later step sees num_moe_experts 0 as null. */
void
mcinit_rules_repair(struct mcinit_rule_ctx *x)
{
	repair_experts(x);
	repair_sp(x);
	repair_dtypes(x);
	repair_etp(x);
	repair_comm_overlap(x);
	repair_cpu_init(x);
	repair_rng_tracker(x);
	repair_ddp(x);
	note_gqa_ignored(x);
}

/* ---- documentation ---- */

const struct mcinit_code_doc mcinit_repairs[] = {
    {"MC101", MCINIT_NOTE, "R1: sequence_parallel is turned off when TP = 1",
     "--sequence-parallel (with TP 1)", "drop --sequence-parallel or use TP > 1"},
    {"MC103", MCINIT_NOTE,
     "R3: an unset expert_tensor_parallel_size becomes TP (Megatron-LM), or 1 when EP > 1 "
     "for a Megatron-Bridge >= 0.6 ConfigContainer or with --bridge-defaults",
     "--num-experts 8 --tensor-model-parallel-size 2",
     "set expert_tensor_parallel_size explicitly"},
    {"MC104", MCINIT_NOTE, "R4: use_cpu_initialization is turned on by lazy_mpu_init",
     "--lazy-mpu-init", "none needed"},
    {"MC105", MCINIT_NOTE, "R5: num_moe_experts 0 means no experts (null)", "--num-experts 0",
     "omit --num-experts"},
    {"MC106", MCINIT_NOTE, "R6: te_rng_tracker is turned on for CUDA graphs",
     "--cuda-graph-impl local", "add --te-rng-tracker"},
    {"MC107", MCINIT_NOTE,
     "R7: overlap_p2p_comm is turned off without a virtual pipeline (noted when PP > 1)",
     "--pipeline-model-parallel-size 4", "use a virtual pipeline to overlap p2p"},
    {"MC108", MCINIT_WARNING,
     "R8: use_distributed_optimizer / overlap_param_gather are kept consistent (Megatron "
     "FSDP turns the distributed optimizer on; overlap_param_gather without the "
     "distributed optimizer or overlap_grad_reduce is turned off)",
     "--overlap-param-gather", "add --use-distributed-optimizer --overlap-grad-reduce"},
    {"MC109", MCINIT_NOTE,
     "decrease_batch_size_if_needed rounds the global batch size down to a multiple of MBS "
     "x DP",
     "--global-batch-size 100 --decrease-batch-size-if-needed (DP 8)",
     "use a divisible global batch size to train on every sample"},
    {"MC110", MCINIT_NOTE,
     "R10: a Megatron-Bridge comm_overlap section sets the model's overlap fields "
     "(tp_comm_overlap, overlap_p2p_comm, batch_p2p_comm, defer_embedding_wgrad_compute, "
     "wgrad_deferral_limit, overlap_moe_expert_parallel_comm, delay_wgrad_compute): its "
     "own value, else Bridge's choice",
     "model.defer_embedding_wgrad_compute=true with a comm_overlap section",
     "set the field in comm_overlap, or drop the section"},
    {"MC111", MCINIT_NOTE,
     "num_query_groups is ignored without group_query_attention (Megatron-LM)",
     "--num-query-groups 8", "add --group-query-attention"},
    {"MC112", MCINIT_NOTE, "no world size was given: 1 is assumed", "mcinit validate job.json",
     "pass --world-size, set launch.world_size, or --nnodes and --nproc-per-node"},
};
const size_t mcinit_nrepairs = sizeof mcinit_repairs / sizeof mcinit_repairs[0];
