/*
 * rules-sizes.c — the rules about the parallel sizes and what they must divide: the world, the
 * batch, the heads and query groups, the experts, the vocabulary, the weight shards. Each rule is
 * its function with its table row beside it; rules.c lists the rows in the order they run.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

static void
mc010(struct mcinit_rule_ctx *x)
{
	long long w = x->dv->world_size, gtp = x->dv->gtp > 1 ? x->dv->gtp : 1,
	          mp = I(tensor_model_parallel_size) * I(pipeline_model_parallel_size) *
	               I(context_parallel_size) * gtp;
	struct mcx_buf near = {0};
	struct mcinit_diag *g;
	char extra[64] = "";

	if (!x->dv->world_ok || w % mp == 0)
		return;
	/* gtp_remat (r0.19+) counts toward the model size. */
	if (gtp > 1)
		snprintf(extra, sizeof extra, " x gtp_remat %lld", gtp);
	g = mcinit_rule_report(
	    x,
	    mcinit_rule_written(x, F(tensor_model_parallel_size), F(pipeline_model_parallel_size),
	                        F(context_parallel_size), F(tensor_parallel_num_weight_shards)),
	    "world size %lld (from %s) is not divisible by TP x PP x CP%s = %lld x %lld x "
	    "%lld%s = %lld",
	    w, x->dv->world_size_source, gtp > 1 ? " x GTP" : "", I(tensor_model_parallel_size),
	    I(pipeline_model_parallel_size), I(context_parallel_size), extra, mp);
	mcinit_diag_hint(g,
	                 "nearest valid world sizes: %s; or change TP/PP/CP so that their product "
	                 "divides %lld",
	                 mcinit_rule_near_values(&near, w, mp, 0), w);
	mcx_buf_free(&near);
}

const struct mcinit_rule mcinit_rule_mc010 = {
    "MC010",
    MCINIT_ERROR,
    "the world size is divisible by TP x PP x CP",
    "--world-size 12 -- --tensor-model-parallel-size 8",
    "choose a world size that is a multiple of TP x PP x CP, or change the sizes",
    READS(TP, PP, CP, F(world_size)),
    mc010};

#define ETP_F F(expert_tensor_parallel_size)

static void
mc011(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long w = dv->world_size, ep = I(expert_model_parallel_size),
	          pp = I(pipeline_model_parallel_size), emp, both;
	struct mcx_buf near = {0};
	struct mcinit_diag *g;

	/* Dense model with ETP following TP: ETP x PP divides TP x PP x CP,
	 * so MC010 already says everything there is to say. */
	if (!dv->world_ok || !dv->etp_ok || (ep == 1 && !user_wrote(x->c, ETP_F)))
		return;
	emp = dv->etp * ep * pp * (dv->egtp > 1 ? dv->egtp : 1);
	if (w % emp == 0)
		return;
	g = mcinit_rule_report(
	    x,
	    mcinit_rule_written(x, F(expert_model_parallel_size), F(expert_tensor_parallel_size),
	                        F(pipeline_model_parallel_size)),
	    "world size %lld (from %s) is not divisible by expert TP x EP x PP%s = %lld x "
	    "%lld x %lld%s = %lld%s",
	    w, dv->world_size_source, dv->egtp > 1 ? " x GTP" : "", dv->etp, ep, pp,
	    dv->egtp > 1 ? " x expert gtp_remat" : "", emp,
	    user_wrote(x->c, F(expert_tensor_parallel_size))
	        ? ""
	        : " (expert_tensor_parallel_size is not set and follows TP)");
	both = lcm(emp, I(tensor_model_parallel_size) * pp * I(context_parallel_size));
	mcinit_diag_hint(g,
	                 "nearest world sizes that fit both the dense and the expert grid: %s; or "
	                 "choose EP and expert_tensor_parallel_size so that ETP x EP x PP divides "
	                 "%lld",
	                 mcinit_rule_near_values(&near, w, both, 0), w);
	mcx_buf_free(&near);
}

const struct mcinit_rule mcinit_rule_mc011 = {
    "MC011",
    MCINIT_ERROR,
    "the world size is divisible by expert TP x EP x PP",
    "--world-size 16 -- --expert-model-parallel-size 3 --num-experts 6",
    "choose EP and expert_tensor_parallel_size so that ETP x EP x PP divides the world "
    "size",
    READS(TP, PP, CP, EP, ETP),
    mc011};

static void
mc012(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long mbs = I(micro_batch_size), step, gbs;
	struct mcx_buf near = {0};
	struct mcinit_diag *g;

	/* GBS defaults to MBS x DP, which divides only without GTP */
	if (!dv->gbs_ok || (NUL(global_batch_size) && dv->gtp == 1))
		return;
	step = mbs * dv->dp * dv->gtp;
	gbs = dv->gbs;
	if (B(decrease_batch_size_if_needed)) {
		if (dv->running_gbs >= step)
			return; /* MC109 notes the rounding */
		g = mcinit_rule_report(
		    x, F(global_batch_size),
		    "global batch size %lld is smaller than MBS x DP = %lld x %lld = %lld: "
		    "even decrease_batch_size_if_needed leaves no micro-batch",
		    gbs, mbs, dv->dp * dv->gtp, step);
		mcinit_diag_hint(g,
		                 "use a global batch size of at least %lld, or a smaller "
		                 "micro_batch_size or data-parallel size",
		                 step);
		return;
	}
	if (gbs % step == 0)
		return;
	if (gbs < step)
		g = mcinit_rule_report(
		    x, mcinit_rule_written(x, F(global_batch_size), F(micro_batch_size)),
		    "global batch size %lld is smaller than MBS x DP = %lld x %lld = %lld: "
		    "each data-parallel rank needs at least one micro-batch",
		    gbs, mbs, dv->dp * dv->gtp, step);
	else
		g = mcinit_rule_report(
		    x, mcinit_rule_written(x, F(global_batch_size), F(micro_batch_size)),
		    "global batch size %lld is not divisible by MBS x DP = %lld x %lld = %lld", gbs,
		    mbs, dv->dp * dv->gtp, step);
	mcinit_diag_hint(g,
	                 "nearest valid global batch sizes: %s (multiples of %lld); or change "
	                 "micro_batch_size or the data-parallel size (DP = %lld), or set "
	                 "decrease_batch_size_if_needed",
	                 mcinit_rule_near_values(&near, gbs, step, 0), step, dv->dp * dv->gtp);
	mcx_buf_free(&near);
}

const struct mcinit_rule mcinit_rule_mc012 = {
    "MC012",
    MCINIT_ERROR,
    "global_batch_size is a positive multiple of micro_batch_size x data-parallel size",
    "--world-size 8 -- --micro-batch-size 2 --global-batch-size 100",
    "use one of the suggested global batch sizes, change MBS or DP, or set "
    "decrease_batch_size_if_needed",
    READS(F(micro_batch_size), F(global_batch_size), F(decrease_batch_size_if_needed)),
    mc012};

static void
mc013(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long egbs, embs, step, dp = dv->dp * dv->gtp, ecp = 0;
	struct mcx_buf near = {0};
	struct mcinit_diag *g;

	/* Megatron-Bridge (ConfigContainer.validate) checks the evaluation sizes
	 * over the evaluation context-parallel size's DP when one is set
	 * (MC300 checks that the world divides), and without regard to
	 * decrease_batch_size_if_needed. */
	if (x->c->bridge && !BAD(eval_context_parallel_size) && !NUL(eval_context_parallel_size))
		ecp = I(eval_context_parallel_size);
	if (ecp > 0) {
		long long emp =
		    I(tensor_model_parallel_size) * I(pipeline_model_parallel_size) * ecp;

		if (!dv->world_ok || dv->world_size % emp != 0)
			return;
		dp = dv->world_size / emp;
	}
	/* With neither set, evaluation uses the training sizes: MC012 covers it. */
	if (!dv->gbs_ok || (NUL(eval_global_batch_size) && NUL(eval_micro_batch_size) && ecp == 0 &&
	                    !(x->c->bridge && B(decrease_batch_size_if_needed))))
		return;
	egbs = NUL(eval_global_batch_size) ? dv->gbs : I(eval_global_batch_size);
	embs = NUL(eval_micro_batch_size) ? I(micro_batch_size) : I(eval_micro_batch_size);
	step = embs * dp;
	if (egbs % step == 0)
		return;
	g = mcinit_rule_report(
	    x, mcinit_rule_written(x, F(eval_global_batch_size), F(eval_micro_batch_size)),
	    "evaluation global batch size %lld is not %s eval MBS x DP = %lld x %lld = "
	    "%lld",
	    egbs, egbs < step ? "at least" : "divisible by", embs, ecp ? dp : dv->dp, step);
	mcinit_diag_hint(g, "nearest valid evaluation batch sizes: %s",
	                 mcinit_rule_near_values(&near, egbs, step, 0));
	mcx_buf_free(&near);
}

const struct mcinit_rule mcinit_rule_mc013 = {
    "MC013",
    MCINIT_ERROR,
    "the evaluation global batch size is a multiple of eval micro-batch size x DP (for a "
    "Megatron-Bridge ConfigContainer: the DP of dist.eval_context_parallel_size when set, "
    "whatever decrease_batch_size_if_needed)",
    "validation.eval_global_batch_size=10 with DP 4",
    "use one of the suggested evaluation batch sizes",
    READS(F(eval_global_batch_size), F(eval_micro_batch_size), F(micro_batch_size),
          F(global_batch_size), F(eval_context_parallel_size)),
    mc013};

/* W / (PP x CP): what a tensor-parallel size must divide; 0 when unknown. */
static long long
tp_room(struct mcinit_rule_ctx *x)
{
	long long rest = I(pipeline_model_parallel_size) * I(context_parallel_size);

	if (!x->dv->world_ok || BAD(pipeline_model_parallel_size) || BAD(context_parallel_size) ||
	    x->dv->world_size % rest != 0)
		return 0;
	return x->dv->world_size / rest;
}

static void
mc014(struct mcinit_rule_ctx *x)
{
	long long heads = I(num_attention_heads), tp = I(tensor_model_parallel_size);
	struct mcx_buf b = {0};

	if (heads % tp == 0)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(
	        x, mcinit_rule_written(x, F(tensor_model_parallel_size), F(num_attention_heads)),
	        "num_attention_heads %lld is not divisible by tensor_model_parallel_size "
	        "%lld",
	        heads, tp),
	    "use a tensor-parallel size that divides %lld%s: %s", heads,
	    tp_room(x) > 0 ? " and fits the world size" : "",
	    mcinit_rule_near_divisors_fit(&b, heads, tp, tp_room(x)));
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc014 = {
    "MC014",
    MCINIT_ERROR,
    "num_attention_heads is divisible by TP",
    "--num-attention-heads 12 --tensor-model-parallel-size 8",
    "use a tensor-parallel size that divides the number of heads",
    READS(F(num_attention_heads), TP),
    mc014};

static bool
gqa(struct mcinit_rule_ctx *x)
{
	return gqa_on(x->c);
}

static void
mc015(struct mcinit_rule_ctx *x)
{
	long long g = I(num_query_groups), tp = I(tensor_model_parallel_size);
	bool strict = x->c->mversion == MCINIT_MV_R015;
	struct mcx_buf b = {0};
	struct mcinit_diag *d;

	if (!gqa(x) || g < 1 || g % tp == 0 || (!strict && tp % g == 0))
		return;
	d = mcinit_rule_report(
	    x, mcinit_rule_written(x, F(tensor_model_parallel_size), F(num_query_groups)),
	    strict ? "num_query_groups %lld is not a multiple of tensor_model_parallel_size "
	             "%lld (required by Megatron-LM core_r0.15)"
	           : "num_query_groups %lld is neither a multiple nor a divisor of "
	             "tensor_model_parallel_size %lld",
	    g, tp);
	if (strict)
		mcinit_diag_hint(d, "use a tensor-parallel size that divides %lld: %s", g,
		                 mcinit_rule_near_divisors_fit(&b, g, tp, tp_room(x)));
	else
		mcinit_diag_hint(d,
		                 "use a tensor-parallel size that divides %lld (%s) or a multiple "
		                 "of it",
		                 g, mcinit_rule_near_divisors(&b, g, tp));
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc015 = {
    "MC015",
    MCINIT_ERROR,
    "with GQA, num_query_groups is a multiple or a divisor of TP (a multiple with "
    "--megatron-version=r0.15)",
    "--group-query-attention --num-query-groups 6 --tensor-model-parallel-size 4",
    "use a tensor-parallel size that divides num_query_groups",
    READS(F(group_query_attention), F(num_query_groups), TP),
    mc015};

static void
mc016(struct mcinit_rule_ctx *x)
{
	long long g = I(num_query_groups), heads = I(num_attention_heads);
	struct mcx_buf b = {0};

	if (!gqa(x))
		return;
	if (g < 1) {
		mcinit_diag_hint(mcinit_rule_report(x, F(num_query_groups),
		                                    "num_query_groups %lld must be at least 1", g),
		                 "use a divisor of num_attention_heads %lld, e.g. 8", heads);
		return;
	}
	if (heads % g == 0)
		return;
	mcinit_diag_hint(mcinit_rule_report(
	                     x, mcinit_rule_written(x, F(num_query_groups), F(num_attention_heads)),
	                     "num_attention_heads %lld is not divisible by num_query_groups "
	                     "%lld: Megatron does not check this and crashes inside attention "
	                     "(Megatron-LM #5755)",
	                     heads, g),
	                 "use a number of query groups that divides %lld: %s", heads,
	                 mcinit_rule_near_divisors(&b, heads, g));
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc016 = {
    "MC016",
    MCINIT_ERROR,
    "with GQA, num_query_groups >= 1 and divides num_attention_heads (Megatron does not "
    "check; Megatron-LM #5755)",
    "--num-attention-heads 32 --group-query-attention --num-query-groups 12",
    "use a number of query groups that divides the number of heads",
    READS(F(group_query_attention), F(num_query_groups), F(num_attention_heads)),
    mc016};

static void
mc017(struct mcinit_rule_ctx *x)
{
	long long h = I(hidden_size), heads = I(num_attention_heads);
	struct mcx_buf b = {0};

	/* validate_args' check: Megatron-Core's TransformerConfig (what a
	 * Bridge ConfigContainer builds) takes hidden_size // heads. */
	if (!NUL(kv_channels) || h % heads == 0 || x->c->bridge)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(x, mcinit_rule_written(x, F(hidden_size), F(num_attention_heads)),
	                       "hidden_size %lld is not divisible by num_attention_heads %lld, so "
	                       "kv_channels cannot be derived",
	                       h, heads),
	    "set kv_channels explicitly, or use a hidden size that is a multiple "
	    "of %lld (%s)",
	    heads, mcinit_rule_near_values(&b, h, heads, 0));
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc017 = {
    "MC017",
    MCINIT_ERROR,
    "hidden_size is divisible by num_attention_heads when kv_channels is derived (Megatron-LM's "
    "validate_args; not for a Megatron-Bridge ConfigContainer)",
    "--hidden-size 1000 --num-attention-heads 16",
    "set --kv-channels, or use a hidden size that is a multiple of the heads",
    READS(F(kv_channels), F(hidden_size), F(num_attention_heads)),
    mc017};

/* W / (ETP x PP): what an expert-parallel size must divide; 0 when unknown. */
static long long
ep_room(struct mcinit_rule_ctx *x)
{
	long long rest;

	if (!x->dv->world_ok || !x->dv->etp_ok || BAD(pipeline_model_parallel_size))
		return 0;
	rest = x->dv->etp * I(pipeline_model_parallel_size);
	return x->dv->world_size % rest == 0 ? x->dv->world_size / rest : 0;
}

static void
mc018(struct mcinit_rule_ctx *x)
{
	long long ep = I(expert_model_parallel_size), n;
	struct mcx_buf b = {0};

	if (ep <= 1)
		return;
	if (NUL(num_moe_experts)) {
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(expert_model_parallel_size),
		                       "expert_model_parallel_size %lld needs num_moe_experts, "
		                       "which is not set",
		                       ep),
		    "set --num-experts to a multiple of %lld, or use "
		    "expert_model_parallel_size 1 for a dense model",
		    ep);
		return;
	}
	n = I(num_moe_experts);
	if (n % ep == 0)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(
	        x, mcinit_rule_written(x, F(expert_model_parallel_size), F(num_moe_experts)),
	        "num_moe_experts %lld is not divisible by expert_model_parallel_size %lld", n, ep),
	    "use an expert-parallel size that divides %lld: %s", n,
	    mcinit_rule_near_divisors_fit(&b, n, ep, ep_room(x)));
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc018 = {
    "MC018",
    MCINIT_ERROR,
    "EP > 1 needs num_moe_experts, a multiple of EP",
    "--expert-model-parallel-size 8 --num-experts 12",
    "use an expert-parallel size that divides the number of experts",
    READS(EP, F(num_moe_experts)),
    mc018};

static void
mc019(struct mcinit_rule_ctx *x)
{
	long long k = I(moe_router_topk), n;

	if (NUL(num_moe_experts))
		return;
	n = I(num_moe_experts);
	if (k <= n)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(x, mcinit_rule_written(x, F(moe_router_topk), F(num_moe_experts)),
	                       "moe_router_topk %lld is larger than num_moe_experts %lld", k, n),
	    "route each token to at most %lld experts", n);
}

const struct mcinit_rule mcinit_rule_mc019 = {"MC019",
                                              MCINIT_ERROR,
                                              "moe_router_topk <= num_moe_experts",
                                              "--num-experts 4 --moe-router-topk 8",
                                              "route each token to at most num_moe_experts",
                                              READS(F(moe_router_topk), F(num_moe_experts)),
                                              mc019};

static void
mc034(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;

	if (!B(use_tp_pp_dp_mapping) || I(pipeline_model_parallel_size) <= 1 || !dv->dp_ok ||
	    !dv->edp_ok || dv->dp == dv->edp)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(x, F(use_tp_pp_dp_mapping),
	                       "use_tp_pp_dp_mapping with PP = %lld needs the expert data-parallel "
	                       "size (%lld) to equal the data-parallel size (%lld): the dense and "
	                       "expert grids would build different pipeline groups (Megatron fails "
	                       "this only at init)",
	                       I(pipeline_model_parallel_size), dv->edp, dv->dp),
	    "drop --use-tp-pp-dp-mapping, or make ETP x EP = TP x CP (%lld x %lld vs "
	    "%lld x %lld)",
	    dv->etp, I(expert_model_parallel_size), I(tensor_model_parallel_size),
	    I(context_parallel_size));
}

const struct mcinit_rule mcinit_rule_mc034 = {
    "MC034",
    MCINIT_ERROR,
    "use_tp_pp_dp_mapping with PP > 1 needs expert data-parallel size = data-parallel "
    "size (Megatron fails this only at init)",
    "--world-size 16 -- --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
    "--context-parallel-size 2 --use-tp-pp-dp-mapping",
    "drop use_tp_pp_dp_mapping, or make ETP x EP = TP x CP",
    READS(F(use_tp_pp_dp_mapping), PP, TP, CP, EP, ETP),
    mc034};

static void
mc035(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long n = I(num_distributed_optimizer_instances), dpcp;

	if (n <= 1 || !dv->dp_ok)
		return;
	dpcp = dv->dp * I(context_parallel_size);
	if (dpcp % n != 0)
		mcinit_rule_report(x, F(num_distributed_optimizer_instances),
		                   "DP x CP = %lld x %lld = %lld is not divisible by "
		                   "num_distributed_optimizer_instances %lld",
		                   dv->dp, I(context_parallel_size), dpcp, n);
	/* Without experts EDP is usually DP x CP: one report is enough. */
	if (dv->edp_ok && dv->edp % n != 0 && dv->edp != dpcp)
		mcinit_rule_report(x, F(num_distributed_optimizer_instances),
		                   "the expert data-parallel size %lld is not divisible by "
		                   "num_distributed_optimizer_instances %lld",
		                   dv->edp, n);
}

const struct mcinit_rule mcinit_rule_mc035 = {
    "MC035",
    MCINIT_ERROR,
    "DP x CP and the expert data-parallel size are multiples of "
    "num_distributed_optimizer_instances",
    "--world-size 6 -- --num-distributed-optimizer-instances 4",
    "use a number of instances that divides DP x CP and the expert DP size",
    READS(F(num_distributed_optimizer_instances), CP),
    mc035};

/* parallel_state.initialize_model_parallel (r0.19+) asserts this first. */
static void
mc060(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;

	if (I(num_distributed_optimizer_instances) <= 1 || (dv->gtp <= 1 && dv->egtp <= 1))
		return;
	mcinit_rule_report(
	    x, F(num_distributed_optimizer_instances),
	    "GTP_remat with num_distributed_optimizer_instances > 1 is not yet supported "
	    "(gtp_remat %lld, expert gtp_remat %lld, %lld instances)",
	    dv->gtp, dv->egtp, I(num_distributed_optimizer_instances));
}

const struct mcinit_rule mcinit_rule_mc060 = {
    "MC060",
    MCINIT_ERROR,
    "gtp_remat (tensor_parallel_num_weight_shards > TP) needs one distributed-optimizer "
    "instance",
    "--megatron-version main -- --tensor-model-parallel-size 2 "
    "--tensor-parallel-num-weight-shards 4 --num-distributed-optimizer-instances 2",
    "drop --num-distributed-optimizer-instances, or the weight shards",
    READS(F(num_distributed_optimizer_instances), F(tensor_parallel_num_weight_shards),
          F(expert_tensor_parallel_num_weight_shards), TP, ETP),
    mc060};

/* Megatron's resolve_tensor_parallel_weight_shards raises ValueError. */
static void
mc061_one(struct mcinit_rule_ctx *x, enum mcinit_field shards, const char *name, const char *what,
          long long tp)
{
	long long n;

	if (mcinit_cfg_null(x->c, shards))
		return;
	n = mcinit_cfg_int(x->c, shards);
	if (n < tp)
		mcinit_rule_report(x, shards, "%s (%lld) must be >= %s (%lld)", name, n, what, tp);
	else if (n % tp != 0)
		mcinit_rule_report(x, shards, "%s (%lld) must be divisible by %s (%lld)", name, n,
		                   what, tp);
}

static void
mc061(struct mcinit_rule_ctx *x)
{
	if (!(mcinit_topo_features(mcinit_mversion_name(x->c->mversion)) & MCINIT_TOPO_F_GTP))
		return;
	mc061_one(x, F(tensor_parallel_num_weight_shards), "tensor_parallel_num_weight_shards",
	          "tensor_model_parallel_size", I(tensor_model_parallel_size));
	if (x->dv->etp_ok)
		mc061_one(x, F(expert_tensor_parallel_num_weight_shards),
		          "expert_tensor_parallel_num_weight_shards", "expert_tensor_parallel_size",
		          x->dv->etp);
}

const struct mcinit_rule mcinit_rule_mc061 = {
    "MC061",
    MCINIT_ERROR,
    "tensor_parallel_num_weight_shards is a multiple of TP (expert: of ETP), at least TP",
    "--megatron-version main -- --tensor-model-parallel-size 4 "
    "--tensor-parallel-num-weight-shards 6",
    "use a multiple of the tensor-parallel size: TP x gtp_remat",
    READS(F(tensor_parallel_num_weight_shards), F(expert_tensor_parallel_num_weight_shards), TP,
          ETP),
    mc061};

static void
mc049(struct mcinit_rule_ctx *x)
{
	const struct mcinit_derived *dv = x->dv;

	if (!dv->vocab_ok || dv->padded_vocab_size == dv->vocab_size)
		return;
	mcinit_rule_report(
	    x, dv->vocab_from_tokenizer ? F(tokenizer_vocab_size) : F(vocab_size),
	    "%s %lld is padded to %lld (a multiple of make_vocab_size_divisible_by x "
	    "TP = %lld x %lld); %lld dummy rows",
	    dv->vocab_from_tokenizer ? "the tokenizer's vocab_size (Megatron-Bridge: "
	                               "use_tokenizer_vocab_size or no model.vocab_size)"
	                             : "vocab_size",
	    dv->vocab_size, dv->padded_vocab_size, I(make_vocab_size_divisible_by),
	    I(tensor_model_parallel_size), dv->padded_vocab_size - dv->vocab_size);
}

const struct mcinit_rule mcinit_rule_mc049 = {
    "MC049",
    MCINIT_NOTE,
    "vocab_size is padded to a multiple of make_vocab_size_divisible_by x TP (for a "
    "Megatron-Bridge ConfigContainer: NullTokenizer's tokenizer.vocab_size when "
    "use_tokenizer_vocab_size is set or model.vocab_size is not; a preset model.vocab_size is "
    "not padded)",
    "--vocab-size 50257 --tensor-model-parallel-size 2",
    "none needed; the padded rows are never predicted",
    READS(F(vocab_size), F(make_vocab_size_divisible_by), TP, F(tokenizer_vocab_size),
          F(use_tokenizer_vocab_size)),
    mc049};
