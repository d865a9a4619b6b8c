/*
 * memory.c — memory per GPU before launch (issue 42), in the model
 * Megatron-LM itself prints once training runs:
 * megatron/training/theoretical_memory_usage.py's
 * compute_weight_and_optimizer_memory and compute_activation_memory (or
 * compute_activation_memory_without_sp, as report_theoretical_memory picks),
 * reproduced operation for operation in double precision, so that the
 * figures are Megatron's to the byte (tests/oracle/memory-diff.py runs
 * Megatron's own functions beside this on a generated corpus).
 *
 * The model is r0.18's, r0.19's and main's (identical but for latent MoE,
 * which is None before r0.19); earlier releases count differently, and are
 * not estimated.  A Megatron-Bridge ConfigContainer is not estimated here:
 * Bridge has its own estimator (memory-bridge.c, --memory-model bridge).
 * Hybrid (Mamba) models are not, as Megatron's report skips them.
 *
 * MC063 is here for both models: the finding, and the hint's changes
 * (mcinit_rules_memory_change), each estimated again by the model that
 * made the figure.
 */
#include "rules/rules-table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/mflags.h"

/* More layers than any model has: the bound keeps a per-layer table small. */
#define MAX_LAYERS 100000

/* The inputs Megatron's functions read from args, after validate_args. */
struct mem_in {
	struct mcinit_mem_par p; /* what MC063's hint changes */
	long long h, kv, ffn, moe_ffn, experts, topk, shared, latent, vocab;
	long long seq, mtp;
	long long q_lora, qk_head, qk_pos, kv_lora, v_head;
	bool has_experts, has_latent, has_mtp, has_q_lora, swiglu, rms, mla, untie, bias, gate,
	    sp_selective;
	const int *moe_pattern; /* num_layers entries, 0/1 */
};

/* compute_weight_and_optimizer_memory (bytes on the most loaded shard). */
static double
weights_and_optimizer(const struct mem_in *a)
{
	double ratio = (double)(a->kv * a->p.heads) / (double)a->h;
	double glm = a->swiglu ? 1.5 : 1.0, self_attn, attention, dense_mlp, shared_expert, routed,
	       latent_proj, layernorm, router, gate, final_ln, tp_block, rep_block, exp_block,
	       tp_mtp, rep_mtp, exp_mtp, tp_most, rep_most, exp_most, embedding, b_dp, b_edp;
	long long num_experts = a->has_experts ? a->experts : 1, moe_ffn = a->moe_ffn;
	long long num_dense = a->p.layers, num_moe = 0, mtp_moe = 0, mtp_dense = 0, i, rh, edp;
	int norm = a->rms ? 1 : 2;

	if (a->has_experts) {
		for (i = 0; i < a->p.layers; i++)
			num_moe += a->moe_pattern[i];
		num_dense = a->p.layers - num_moe;
	} else
		moe_ffn = 0;
	if (a->has_mtp) {
		int last = a->has_experts ? a->moe_pattern[a->p.layers - 1] : 0;

		mtp_moe = last * a->mtp;
		mtp_dense = (1 - last) * a->mtp;
	}
	if (a->mla) {
		double q_term =
		    a->has_q_lora ? (double)(a->q_lora *
		                             (a->h + a->p.heads * (a->qk_head + a->qk_pos) + norm))
		                  : (double)(a->h * a->p.heads * (a->qk_head + a->qk_pos));

		self_attn =
		    q_term +
		    (double)(a->kv_lora * (a->h + a->p.heads * (a->qk_head + a->v_head) + norm)) +
		    (double)(a->h * a->qk_pos) + (double)(a->p.heads * a->v_head * a->h);
	} else
		self_attn = (double)(2 * a->h * a->h) *
		            ((1 + (double)a->p.groups / (double)a->p.heads) * ratio);
	embedding = (double)(a->h * a->vocab);
	final_ln = (double)(norm * a->h);
	attention = self_attn;
	dense_mlp = (double)(2 * a->h * a->ffn) * glm;
	shared_expert = (double)(2 * a->h * a->shared) * glm;
	rh = a->has_latent ? a->latent : a->h;
	routed = (double)(2 * rh * moe_ffn * num_experts) * glm;
	latent_proj = a->has_experts && a->has_latent ? (double)(2 * a->h * a->latent) : 0;
	layernorm = (double)(2 * a->h * norm);
	router = a->has_experts ? (double)(a->h * num_experts + (a->bias ? num_experts : 0)) : 0;
	gate = a->shared > 0 && a->gate ? (double)a->h : 0;

	edp = a->p.world / (a->p.etp * a->p.ep * a->p.pp);
	tp_block = (attention + dense_mlp) * (double)num_dense +
	           (attention + shared_expert) * (double)num_moe;
	rep_block = layernorm * (double)num_dense +
	            (layernorm + latent_proj + router + gate) * (double)num_moe + final_ln;
	exp_block = routed * (double)num_moe;
	tp_mtp = (attention + dense_mlp) * (double)mtp_dense +
	         (attention + shared_expert) * (double)mtp_moe;
	rep_mtp = layernorm * (double)mtp_dense +
	          (layernorm + latent_proj + router + gate) * (double)mtp_moe;
	exp_mtp = routed * (double)mtp_moe;

	tp_most = ((tp_block / (double)a->p.pp) + tp_mtp + embedding) / (double)a->p.tp;
	rep_most = (rep_block / (double)a->p.pp) + rep_mtp;
	exp_most = ((exp_block / (double)a->p.pp) + exp_mtp) / (double)(a->p.etp * a->p.ep);
	if (a->untie && a->p.pp == 1)
		tp_most += embedding / (double)a->p.tp;
	b_dp = a->p.dist_opt ? 6 + (12 / (double)a->p.dp) : 18;
	b_edp = a->p.dist_opt ? 6 + (12 / (double)edp) : 18;
	return (tp_most + rep_most) * b_dp + exp_most * b_edp;
}

/* The pipeline schedule's factor, shared by both activation formulas. */
static double
schedule(const struct mem_in *a, double act)
{
	if (a->p.vpp > 0)
		act *= 1 + ((double)(a->p.pp - 1) / (double)(a->p.pp * a->p.vpp));
	if (a->p.vpp == 0 && a->p.pp > 1 && a->p.has_nmb)
		act *= fmin(1, (double)a->p.nmb / (double)a->p.pp);
	return act;
}

/* compute_activation_memory (sequence parallelism and selective recompute). */
static double
activations_sp(const struct mem_in *a)
{
	double sbh = (double)(a->seq * a->p.mbs * a->h);
	double act = sbh * (18 + (4 * ((double)a->ffn / (double)a->h)));

	act *= (double)a->p.layers;
	act += (double)(8 * a->seq * a->p.mbs * a->p.pp);
	act += (double)(a->seq * a->p.mbs * a->h * a->p.pp);
	act = schedule(a, act);
	if (a->p.pp == 1)
		act += (double)(a->seq * a->p.mbs * a->h * 4) *
		       (1 + ((double)a->vocab / (double)a->h));
	return act / (double)a->p.tp;
}

/* compute_activation_memory_without_sp. */
static double
activations_no_sp(const struct mem_in *a)
{
	double per_layer = (double)(a->seq * a->p.mbs * a->h) * (10 + (24 / (double)a->p.tp)),
	       total;

	total = per_layer * (double)a->p.layers;
	total += (double)(8 * a->seq * a->p.mbs * a->p.pp);
	total += (double)(a->seq * a->p.mbs * a->h * a->p.pp);
	total = schedule(a, total);
	if (a->p.pp == 1) {
		double logits = (double)(a->seq * a->p.mbs * a->vocab);

		logits /= (double)a->p.tp;
		total += (logits + (double)(a->seq * a->p.mbs * a->h)) * 2;
	}
	return total * 1.05;
}

static void
estimate(const struct mem_in *a, struct mcinit_memory *m)
{
	m->weights_and_optimizer = weights_and_optimizer(a);
	m->activations = a->sp_selective ? activations_sp(a) : activations_no_sp(a);
	m->total = m->weights_and_optimizer + m->activations;
	m->model = "megatron";
	m->ok = true;
	m->why = NULL;
}

/* A nullable int field: its value, and whether it is set. */
static bool
opt_int(struct mcinit_rule_ctx *x, enum mcinit_field f, long long *v)
{
	*v = mcinit_cfg_null(x->c, f) ? 0 : mcinit_cfg_int(x->c, f);
	return !mcinit_cfg_null(x->c, f);
}

/* The estimate's inputs, or why there is none. */
static const char *
inputs(struct mcinit_rule_ctx *x, struct mem_in *a)
{
	const struct mcinit_derived *dv = x->dv;
	const char *norm = mcinit_cfg_str(x->c, MCINIT_F_normalization);
	const char *rg = mcinit_cfg_str(x->c, MCINIT_F_recompute_granularity);

	if (x->c->bridge)
		return "Megatron-LM's estimate reads Megatron-LM's arguments, not a "
		       "Megatron-Bridge "
		       "ConfigContainer";
	if (x->c->mversion < MCINIT_MV_R018)
		return "Megatron-LM before r0.18 counts differently; not reproduced";
	if (!mcinit_cfg_null(x->c, MCINIT_F_hybrid_layer_pattern) ||
	    !mcinit_cfg_null(x->c, MCINIT_F_hybrid_override_pattern))
		return "a hybrid (Mamba) model: Megatron-LM does not estimate it";
	if (!dv->world_ok || !dv->dp_ok || !dv->etp_ok || !dv->vpp_ok || !dv->ffn_ok ||
	    !dv->kv_ok || !dv->vocab_ok ||
	    (!mcinit_cfg_null(x->c, MCINIT_F_num_moe_experts) && !dv->moe_ffn_ok))
		return "its inputs are not all known";
	memset(a, 0, sizeof *a);
	a->h = I(hidden_size);
	a->p.heads = I(num_attention_heads);
	a->kv = dv->kv_channels;
	a->p.groups = gqa_on(x->c) ? I(num_query_groups) : a->p.heads;
	a->p.layers = I(num_layers);
	a->ffn = dv->ffn_hidden_size;
	a->moe_ffn = dv->moe_ffn_hidden_size;
	a->has_experts = opt_int(x, MCINIT_F_num_moe_experts, &a->experts);
	a->topk = I(moe_router_topk);
	opt_int(x, MCINIT_F_moe_shared_expert_intermediate_size, &a->shared);
	a->has_latent = opt_int(x, MCINIT_F_moe_latent_size, &a->latent);
	a->vocab = dv->padded_vocab_size;
	a->seq = I(seq_length);
	a->p.mbs = I(micro_batch_size);
	a->p.tp = I(tensor_model_parallel_size);
	a->p.pp = I(pipeline_model_parallel_size);
	a->p.vpp = dv->vpp;
	a->p.ep = I(expert_model_parallel_size);
	a->p.etp = dv->etp;
	a->p.etp_follows = a->p.etp == a->p.tp;
	a->p.dp = dv->dp;
	a->p.world = dv->world_size;
	a->p.has_nmb = dv->nmb_ok;
	a->p.nmb = dv->num_micro_batches;
	a->has_mtp = opt_int(x, MCINIT_F_mtp_num_layers, &a->mtp);
	a->mla = B(multi_latent_attention);
	a->has_q_lora = opt_int(x, MCINIT_F_q_lora_rank, &a->q_lora);
	a->qk_head = I(qk_head_dim);
	a->qk_pos = I(qk_pos_emb_head_dim);
	a->kv_lora = I(kv_lora_rank);
	a->v_head = I(v_head_dim);
	a->swiglu = B(swiglu);
	a->rms = norm != NULL && strcmp(norm, "RMSNorm") == 0;
	a->untie = B(untie_embeddings_and_output_weights);
	a->bias = B(add_bias_linear);
	a->gate = B(moe_shared_expert_gate);
	a->p.dist_opt = B(use_distributed_optimizer);
	a->sp_selective = dv->sequence_parallel && rg != NULL && strcmp(rg, "selective") == 0;
	if (a->h <= 0 || a->p.heads <= 0 || a->p.layers <= 0 || a->p.layers > MAX_LAYERS ||
	    a->p.tp <= 0 || a->p.pp <= 0 || a->p.ep <= 0 || a->p.etp <= 0 || a->p.dp <= 0 ||
	    a->p.world / (a->p.etp * a->p.ep * a->p.pp) <= 0)
		return "its inputs are out of range";
	return NULL;
}

void
mcinit_rules_memory(struct mcinit_rule_ctx *x)
{
	struct mem_in a;
	int *pat = NULL;

	/* mcinit's own model is memory-params.c's */
	if ((x->o->memory_model == MCINIT_MEM_NONE && x->o->gpu_memory == 0) ||
	    x->o->memory_model == MCINIT_MEM_MCINIT)
		return;
	/* --gpu-memory alone: the estimate of the config's own kind */
	if (x->o->memory_model == MCINIT_MEM_BRIDGE ||
	    (x->o->memory_model == MCINIT_MEM_NONE && x->c->bridge)) {
		mcinit_rules_memory_bridge(x);
		return;
	}
	x->dv->mem.model = "megatron";
	x->dv->mem.why = inputs(x, &a);
	if (x->dv->mem.why == NULL && a.has_experts) {
		pat = mcx_xcalloc((size_t)a.p.layers, sizeof *pat);
		x->dv->mem.why = mcinit_rules_moe_pattern(x, pat, a.p.layers);
		a.moe_pattern = pat;
	}
	if (x->dv->mem.why == NULL)
		estimate(&a, &x->dv->mem);
	free(pat);
}

/* ---- MC063: the estimate against the GPU ---- */

#define GIB (1024.0 * 1024.0 * 1024.0)
/* Above this share of the GPU, what the estimate leaves out (the CUDA
 * context, NCCL's buffers, the allocator's fragmentation) may not fit. */
#define WARN_SHARE 0.9

bool
mcinit_rules_memory_change(const struct mcinit_mem_par *a, int what, long long gbs,
                           struct mcinit_mem_par *b)
{
	long long tp = a->tp, pp = a->pp, dp;

	*b = *a;
	switch (what) {
	case 4:
		b->recompute = 1;
		return a->recompute == 0;
	case 5:
		b->recompute = 2;
		return a->recompute != 2;
	case 6:
		/* CP takes its ranks from DP: the layout is derived again */
		b->cp = a->cp * 2;
		b->dp = a->dp / 2;
		return a->dp % 2 == 0 && (gbs <= 0 || gbs % (a->mbs * b->dp) == 0);
	case 0:
		b->dist_opt = true;
		return !a->dist_opt && a->dp > 1;
	case 1:
		b->mbs = a->mbs / 2;
		b->nmb = a->nmb * 2;
		return a->mbs > 1 && a->mbs % 2 == 0;
	case 2:
		if (gbs <= 0)
			return false;
		tp *= 2;
		if (a->heads % tp != 0 || (a->groups % tp != 0 && tp % a->groups != 0))
			return false;
		if (a->etp_follows)
			b->etp = tp;
		break;
	default:
		if (gbs <= 0)
			return false;
		pp *= 2;
		if (a->layers % (pp * (a->vpp ? a->vpp : 1)) != 0)
			return false;
		break;
	}
	if ((a->dp * a->tp * a->pp) % (tp * pp) != 0)
		return false;
	dp = a->dp * a->tp * a->pp / (tp * pp);
	if (dp < 1 || gbs % (a->mbs * dp) != 0 || a->world % (b->etp * b->ep * pp) != 0)
		return false;
	b->tp = tp;
	b->pp = pp;
	b->dp = dp;
	b->nmb = gbs / (a->mbs * dp);
	return true;
}

/* What change i made, in words: Megatron-LM's flag, or the Bridge field
 * as an override (key=value). */
static void
change_name(char *buf, size_t n, int i, const struct mcinit_mem_par *b, bool bridge)
{
	static const char *const what[] = {"the distributed optimizer",
	                                   "half the micro-batch size",
	                                   "twice the tensor-parallel size",
	                                   "twice the pipeline-parallel size",
	                                   "selective recompute",
	                                   "full recompute",
	                                   "twice the context-parallel size"};
	static const char *const flag[][2] = {
	    {"--use-distributed-optimizer", "optimizer.use_distributed_optimizer=true"},
	    {"--micro-batch-size ", "train.micro_batch_size="},
	    {"--tensor-model-parallel-size ", "model.tensor_model_parallel_size="},
	    {"--pipeline-model-parallel-size ", "model.pipeline_model_parallel_size="},
	    {"--recompute-granularity selective", "model.recompute_granularity=selective"},
	    {"--recompute-granularity full --recompute-method uniform --recompute-num-layers 1",
	     "model.recompute_granularity=full model.recompute_method=uniform "
	     "model.recompute_num_layers=1"},
	    {"--context-parallel-size ", "model.context_parallel_size="}};
	long long v[] = {0, b->mbs, b->tp, b->pp, 0, 0, b->cp};

	if (i == 0 || i == 4 || i == 5)
		snprintf(buf, n, "%s (%s)", what[i], flag[i][bridge]);
	else
		snprintf(buf, n, "%s (%s%lld)", what[i], flag[i][bridge], v[i]);
}

void
mcinit_rules_memory_hint(struct mcinit_diag *g, const struct mcinit_mem_retry *r, long long gbs,
                         double cap)
{
	/* cheapest first: for mcinit's model, selective recompute (a few per
	 * cent of the step) before a smaller micro-batch or more model
	 * parallelism, full recompute (a third more compute) last */
	static const int megatron[] = {0, 1, 2, 3}, mcinit[] = {0, 4, 1, 2, 6, 3, 5};
	const int *order = r->mcinit ? mcinit : megatron;
	int n = r->mcinit ? 7 : 4;
	struct mcinit_mem_par b;
	char what[160];
	double total;
	int i, j;

	for (j = 0; j < n; j++) {
		i = order[j];
		if (!mcinit_rules_memory_change(r->par, i, gbs, &b))
			continue;
		total = r->estimate(r->in, &b);
		if (total < 0 || total > cap * WARN_SHARE)
			continue;
		change_name(what, sizeof what, i, &b, r->bridge);
		if (r->mcinit)
			/* the high end under the warning's share: neither the
			 * error nor the warning is left */
			mcinit_diag_hint(g,
			                 "with %s it needs %.1f GiB at the high end by the same "
			                 "model, under 90%% of the GPU",
			                 what, total / GIB);
		else
			mcinit_diag_hint(g, "with %s it needs %.1f GiB by the same estimate", what,
			                 total / GIB);
		return;
	}
	/* none clears the high end: the cheapest that makes the out of
	 * memory no longer certain (its warning stays) */
	for (j = 0; r->in_low != NULL && j < n; j++) {
		i = order[j];
		if (!mcinit_rules_memory_change(r->par, i, gbs, &b))
			continue;
		total = r->estimate(r->in_low, &b);
		if (total < 0 || total > cap)
			continue;
		change_name(what, sizeof what, i, &b, r->bridge);
		mcinit_diag_hint(g,
		                 "no single change brings the high end under 90%% of the GPU; with "
		                 "%s it needs %.1f GiB before any activation by the same model, "
		                 "which fits (with the activations it may still not: combine "
		                 "changes)",
		                 what, total / GIB);
		return;
	}
	if (r->mcinit)
		mcinit_diag_hint(
		    g, "no single change (distributed optimizer, selective or full "
		       "recompute, half the micro-batch size, twice TP, CP or PP) fits by "
		       "the same estimate: combine them");
	else
		mcinit_diag_hint(
		    g, "no single change (distributed optimizer, half the micro-batch size, "
		       "twice TP or PP) fits by the same estimate: combine them, or "
		       "recompute activations");
}

/* Megatron's estimate of in with the parallel layout b: its total. */
static double
retry(const void *in, const struct mcinit_mem_par *b)
{
	struct mem_in a = *(const struct mem_in *)in;
	struct mcinit_memory m;

	a.p = *b;
	estimate(&a, &m);
	return m.total;
}

static void
mc063(struct mcinit_rule_ctx *x)
{
	const struct mcinit_memory *m = &x->dv->mem;
	double cap = (double)x->o->gpu_memory;
	struct mcinit_diag *g;
	struct mem_in a;
	int *pat = NULL;
	bool bridge;

	if (x->o->gpu_memory != 0 && x->o->memory_model == MCINIT_MEM_MCINIT) {
		mcinit_rules_memory_peak_mc063(x);
		return;
	}
	if (x->o->gpu_memory == 0 || !m->ok || m->total <= cap * WARN_SHARE)
		return;
	bridge = strcmp(m->model, "megatron") != 0;
	g = mcinit_rule_report_sev(
	    x, m->total > cap ? MCINIT_ERROR : MCINIT_WARNING, F(micro_batch_size),
	    "the most loaded rank needs %.1f GiB by %s own estimate (weights and "
	    "optimizer %.1f, activations %.1f), %s the GPU's %.1f GiB",
	    m->total / GIB, bridge ? "Megatron-Bridge's" : "Megatron-LM's",
	    m->weights_and_optimizer / GIB, m->activations / GIB,
	    m->total > cap ? "more than" : "over 90% of", cap / GIB);
	if (bridge) {
		mcinit_rules_memory_bridge_hint(x, g, cap);
		return;
	}
	if (inputs(x, &a) != NULL)
		return;
	if (a.has_experts) {
		pat = mcx_xcalloc((size_t)a.p.layers, sizeof *pat);
		a.moe_pattern = pat;
		if (mcinit_rules_moe_pattern(x, pat, a.p.layers) != NULL) {
			free(pat);
			return;
		}
	}
	mcinit_rules_memory_hint(g, &(struct mcinit_mem_retry){&a, &a.p, retry, false, false, NULL},
	                         x->dv->gbs_ok ? x->dv->gbs : 0, cap);
	free(pat);
}

const struct mcinit_rule mcinit_rule_mc063 = {
    "MC063",
    MCINIT_ERROR,
    "with --gpu-memory: the most loaded rank fits in the GPU by the estimate --memory-model "
    "names (megatron: Megatron-LM's theoretical_memory_usage.py; bridge: Megatron-Bridge "
    "0.6.2's estimate_training_memory; without it, the one of the config's kind): weights, "
    "gradients and Adam states, activations of the first pipeline stage; a warning above 90% "
    "of it; the hint names the cheapest single change that fits, each checked by the same "
    "estimate.  mcinit (lib/rules/memory-peak.c): the peak of every kind of rank, judged "
    "only when every term is counted: an error only when what is certain does not fit, its "
    "low end without the activations (the exact state and the overheads at their least: out "
    "of memory is certain; the activations are the CPU oracle's figure, and published GPU "
    "peaks lie below the low end that counts them: tests/memory/published.tsv), a warning "
    "when its high end passes 90% of the GPU (it may not fit); the hint names the cheapest "
    "change whose high end is under 90%, else, with an error, the cheapest whose certain "
    "part fits; the peak is the sum of: parameters P x 2 "
    "(bf16/fp16; 4 fp32; with --fp8-param-gather the linear weights L x 1), exact per stage "
    "(memory-params.c); gradients P x 4 when grad_reduce_in_fp32, which validate_args turns "
    "on for bf16 unless --grad-reduce-in-bf16 or a main_grads_dtype other than fp32, else "
    "P x the parameters' bytes (DDP's grad buffer, param_and_grad_buffer.py); optimizer "
    "(Pdense / (DP x CP) + Pexpert / EDP) x (main + states) x (1 - optimizer_offload_fraction "
    "with --optimizer-cpu-offload), the shards only with the distributed optimizer or "
    "Megatron-FSDP (divided by num_distributed_optimizer_instances; intra_dp_cp_group and "
    "intra_expt_dp_group in distributed_data_parallel.py), main 4 for 16-bit parameters "
    "(main_params_dtype with --use-precision-aware-optimizer; 2 with bf16 and "
    "store_param_remainders from Transformer Engine 2.1), Adam's states 4 + 4 (exp_avg_dtype, "
    "exp_avg_sq_dtype: fp32 4, 16-bit 2, fp8 1), SGD's momentum 4 (0 at momentum 0), other "
    "optimizers not counted; Megatron-FSDP optim_grads shards the gradients too, "
    "optim_grads_params the parameters (its gathered layers then not counted); fp8/fp4 "
    "copies L x 2 (fp8: the cast weight and its transpose, which Hopper's TN-only fp8 GEMMs "
    "need in backward: Transformer Engine's Float8Tensor), L x 2 x (1 + 1/32) mxfp8 "
    "(rowwise and columnwise, E8M0 scales per 32), L x 2 x (1/2 + 1/16) nvfp4, L x 1 more "
    "with fp8 parameters; activations: the stage's bytes per micro-batch (memory-act.c: "
    "with transformer_impl transformer_engine, Megatron's default, fused or flash "
    "attention, the local spec's tensors with core attention recomputed plus the softmax's "
    "fp32 log-sum-exp, b x heads x s per layer, FlashAttention-2 and Korthikanti et al. "
    "2022; with local, unfused attention's s x s tensors; a transformer_impl not known, or "
    "attention_backend unfused, gives the first at the low end and the second at the high "
    "end) x "
    "the micro-batches in flight (1F1B: min(PP - stage, micro-batches); interleaved: "
    "Megatron-Core's "
    "warm-up + 1 chunks, each 1/VP of the stage), the logits and the loss among them on the "
    "last stage, not counted twice.  Modelled ranges, low..high: the CUDA context 287047680.."
    "666632192 bytes (PyTorch PR 86509, lazy and eager module loading; eager at both ends "
    "with CUDA_MODULE_LOADING=EAGER); NCCL NCCL_BUFFSIZE (4 MiB) x channels "
    "(NCCL_MIN_NCHANNELS 1 .. NCCL_MAX_NCHANNELS 32) x 2 peers per communicator of more than "
    "one rank (tp, cp, dp-cp, pp, ep, expert-dp, embedding); tp-comm-overlap userbuffers "
    "6 x (s x b / CP) x h x (1 fp8, else 2) .. 10 x (s x b / CP) x h x 2 (Megatron-LM's "
    "_initialize_tp_communicators, Transformer Engine's initialize_ub: one buffer per "
    "overlapped GEMM); CUDA graphs 0 .. the stage's activations again (the graphs' private "
    "pool); fragmentation 0 .. 0.36 of the allocated terms (Megatron-Bridge PR 3107: out of "
    "memory at 58.8 GB allocated of 80), 0.05 with expandable_segments:True in "
    "PYTORCH_CUDA_ALLOC_CONF (modelled).  Its hint also tries selective and full recompute "
    "and twice CP, each estimated again on the changed configuration",
    "--gpu-memory 80 --world-size 8 -- --num-layers 96 --hidden-size 12288 ...",
    "use the change the hint names: it was estimated to fit",
    READS(F(micro_batch_size), F(hidden_size), F(num_layers), TP, PP),
    mc063};
