/*
 * memory-peak.c — mcinit's own memory model (issue 42), the peak of each
 * distinct kind of rank: the parameters (memory-params.c, exact), the
 * gradients, the optimizer, the fp8/fp4 weight copies, the activations of
 * the micro-batches in flight (memory-act.c), and around them what the
 * CUDA context, NCCL, tp-comm-overlap, CUDA graphs and the allocator add.
 *
 * The first five are what Megatron-Core allocates for the configuration,
 * read from its code (the sources are beside each term); where an input
 * they need is unknown, the term is "not counted" with the reason, never
 * guessed, and MC063 then says nothing.  The last five depend on the
 * driver, NCCL's tuning and the allocator's history: they are modelled
 * ranges, low..high, each with its source.  MC063 is an error only when
 * what is certain does not fit: the exact state and the overheads at
 * their least, before any activation (out of memory is then certain); a
 * warning when the high end passes 90% of the GPU (it may not fit).  The
 * activations are left out of the certainty: their figure is the CPU
 * oracle's, and published GPU peaks lie below the low end that counts
 * them (tests/memory/published.tsv), so they cannot make an error.
 *
 * MC063 under --memory-model mcinit is here too: its hint's changes are
 * estimated again by this same code, on the configuration with the change
 * made (retry), never scaled.
 */
#include "rules/rules-table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/versions.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)
/* Above this share of the GPU a warning (memory.c's WARN_SHARE too). */
#define WARN_SHARE 0.9

/* The CUDA context: PyTorch PR 86509 measured a process that only
 * initialises CUDA at 287,047,680 bytes with lazy module loading and
 * 666,632,192 without (CUDA_MODULE_LOADING=EAGER); lazy loading is the
 * default since CUDA 12.2 (CUDA C Programming Guide, "Lazy Loading"). */
#define CONTEXT_LAZY  287047680.0
#define CONTEXT_EAGER 666632192.0
/* NCCL: NCCL_BUFFSIZE's default, 4 MiB (NCCL's environment variables), per
 * channel and peer; channels from NCCL_MIN_NCHANNELS' floor (1) to
 * NCCL_MAX_NCHANNELS' ceiling (32); a ring's peers, the previous and the
 * next rank (2). */
#define NCCL_BUFFSIZE    (4.0 * MIB)
#define NCCL_CHANNELS_LO 1
#define NCCL_CHANNELS_HI 32
#define NCCL_PEERS       2
/* The allocator: Megatron-Bridge PR 3107's Llama 3 70B baseline ran out of
 * memory on an 80 GB GPU with 58.8 GB allocated, and fitted with
 * expandable segments: reserved beyond allocated reached (80 - 58.8) /
 * 58.8 = 0.36 of it (tests/memory/README).  With expandable segments the
 * allocator maps 2 MiB pages into one segment per stream, and what is left
 * is modelled as at most 5 %: no published gap. */
#define FRAG_SHARE    0.36
#define FRAG_SHARE_ES 0.05

static const char *
str_of(struct mcinit_rule_ctx *x, enum mcinit_field f)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, f);

	return !x->c->invalid[f] && v->kind == MCINIT_V_STR ? v->s : NULL;
}

static bool
str_is(struct mcinit_rule_ctx *x, enum mcinit_field f, const char *want)
{
	const char *v = str_of(x, f);

	return v != NULL && strcmp(v, want) == 0;
}

/* Bytes of a dtype as Megatron-LM's dtype_map reads it ("fp32", "bf16",
 * "fp16", "fp8": uint8), or as Bridge writes torch's; 0 when unknown. */
static double
dtype_bytes(struct mcinit_rule_ctx *x, enum mcinit_field f)
{
	static const struct {
		const char *name;
		double bytes;
	} t[] = {{"fp32", 4}, {"torch.float32", 4},  {"float32", 4},
	         {"bf16", 2}, {"torch.bfloat16", 2}, {"bfloat16", 2},
	         {"fp16", 2}, {"torch.float16", 2},  {"float16", 2},
	         {"fp8", 1},  {"torch.uint8", 1},    {"uint8", 1}};
	const char *v = str_of(x, f);
	size_t i;

	if (mcinit_cfg_null(x->c, f) && !x->c->invalid[f])
		return 4; /* OptimizerConfig's defaults are fp32 */
	for (i = 0; v != NULL && i < sizeof t / sizeof t[0]; i++)
		if (strcmp(v, t[i].name) == 0)
			return t[i].bytes;
	return 0;
}

/* ---- the exact terms' inputs, the same for every kind of rank ---- */

struct peak_in {
	double param_bytes;                  /* a parameter's bytes: 2 bf16/fp16, 4 fp32 */
	double lowp_param;                   /* with fp8 parameters: a linear weight's bytes */
	double grad_bytes;                   /* a main grad's */
	double opt_bytes;                    /* main parameters and states per parameter */
	double lowp_copy;                    /* per linear weight: the copies fp8/fp4 keeps */
	long long shard_params, shard_grads; /* Megatron-FSDP's: DP x CP, or 1 */
	long long dense_shard, expert_shard; /* the optimizer's */
	long long edp;
	double offload;
};

/* Fields that a ConfigContainer holds twice, either of which turns the
 * feature on: Bridge's runtime_config_update syncs the optimizer's and
 * DDP's distributed optimizer, and the model's fp8_param with DDP's
 * fp8_param_gather; Megatron-FSDP is dist's and ddp's (Megatron-LM's flag
 * sets both). */
static bool
dist_opt(struct mcinit_rule_ctx *x)
{
	return B(use_distributed_optimizer) ||
	       (x->c->bridge && B(optimizer_use_distributed_optimizer));
}

static bool
megatron_fsdp(struct mcinit_rule_ctx *x)
{
	return B(use_megatron_fsdp) || (x->c->bridge && B(ddp_use_megatron_fsdp));
}

static bool
fp8_params(struct mcinit_rule_ctx *x)
{
	return B(fp8_param_gather) || (x->c->bridge && B(fp8_param));
}

static bool
fp4_params(struct mcinit_rule_ctx *x)
{
	return B(fp4_param_gather) || (x->c->bridge && B(fp4_param));
}

/* The gradients' dtype: DDP's grad buffer is fp32 with
 * grad_reduce_in_fp32 (accumulate_allreduce_grads_in_fp32), else the
 * parameters' (param_and_grad_buffer.py group_params_for_buffers);
 * validate_args turns it on for bf16 unless --grad-reduce-in-bf16 or
 * main_grads_dtype is not fp32 (arguments.py). */
static const char *
grads(struct mcinit_rule_ctx *x, struct peak_in *p, const char **dtype)
{
	bool fp32 = B(accumulate_allreduce_grads_in_fp32);
	double main = dtype_bytes(x, F(main_grads_dtype));

	if (main == 0)
		return "main_grads_dtype is not one Megatron-LM reads";
	/* Megatron-LM's validate_args; a ConfigContainer's ddp section says it
	 * itself (its mixed-precision preset sets grad_reduce_in_fp32) */
	if (!x->c->bridge && B(bf16) && !B(grad_reduce_in_bf16) && main == 4)
		fp32 = true;
	if (!x->c->bridge && B(bf16) && B(grad_reduce_in_bf16))
		fp32 = false;
	p->grad_bytes = fp32 ? 4 : p->param_bytes;
	*dtype = fp32 || p->param_bytes == 4 ? "fp32" : B(bf16) ? "bf16" : "fp16";
	return NULL;
}

/* Main parameters and states per parameter (before sharding and offload):
 * Adam's two moments, SGD's momentum buffer (none at momentum 0), and the
 * fp32 main copy of 16-bit parameters (Float16OptimizerWithFloat16Params,
 * DistributedOptimizer); the precision-aware optimizer (Transformer
 * Engine's FusedAdam) keeps them in main_params_dtype, exp_avg_dtype and
 * exp_avg_sq_dtype, and with bf16 parameters and fp32 main parameters only
 * the low 16 bits (store_param_remainders, Transformer Engine 2.1 and
 * later: megatron/core/optimizer/__init__.py). */
static const char *
optimizer(struct mcinit_rule_ctx *x, struct peak_in *p, const char **name)
{
	const char *opt = str_of(x, F(optimizer));
	bool aware = B(use_precision_aware_optimizer), half = p->param_bytes == 2;
	double main = half ? 4 : 0, m1 = 4, m2 = 4;

	*name = opt;
	if (opt == NULL)
		return "the optimizer is not known";
	if (strcmp(opt, "sgd") == 0) {
		if (mcinit_cfg_null(x->c, F(sgd_momentum)) || x->c->invalid[F(sgd_momentum)])
			return "sgd_momentum is not known";
		p->opt_bytes = main + (mcinit_cfg_float(x->c, F(sgd_momentum)) != 0 ? 4 : 0);
		return NULL;
	}
	if (strcmp(opt, "adam") != 0)
		return "only Adam's and SGD's states are counted";
	if (aware) {
		m1 = dtype_bytes(x, F(exp_avg_dtype));
		m2 = dtype_bytes(x, F(exp_avg_sq_dtype));
		if (m1 == 0 || m2 == 0 || dtype_bytes(x, F(main_params_dtype)) == 0)
			return "a precision-aware optimizer dtype is not one Megatron-LM reads";
		if (half)
			main = dtype_bytes(x, F(main_params_dtype));
		if (half && B(bf16) && main == 4 &&
		    (mcinit_cfg_null(x->c, F(store_param_remainders)) ||
		     B(store_param_remainders))) {
			int cmp;

			if (NUL(te_version) || BAD(te_version) ||
			    mcinit_version_cmp(mcinit_cfg_str(x->c, F(te_version)), "2.1.0.dev0",
			                       &cmp) < 0)
				return "store_param_remainders keeps 2 bytes of each fp32 main "
				       "parameter from Transformer Engine 2.1, 4 before: "
				       "launch.te_version is not known";
			main = cmp >= 0 ? 2 : 4;
		}
	}
	p->opt_bytes = main + m1 + m2;
	return NULL;
}

/* fp8/fp4 copies of the linear weights.  Transformer Engine casts each
 * weight once per step and keeps the cast for the step's other
 * micro-batches (Megatron-Core passes is_first_microbatch), in both the
 * layouts the GEMMs read: on Hopper, fp8 GEMMs take only the TN layout, so
 * the backward's GEMMs need W transposed, and Float8Tensor keeps that
 * transpose beside the data (Transformer Engine's Float8Tensor,
 * update_usage(rowwise, columnwise)); MXFP8 keeps rowwise and columnwise
 * data, each with an E8M0 scale per 32 elements; NVFP4 4-bit data with an
 * E4M3 scale per 16 elements, both ways.  With fp8 parameters
 * (--fp8-param-gather) the parameter is the rowwise copy and only the
 * transpose is added. */
static const char *
lowp(struct mcinit_rule_ctx *x, struct peak_in *p)
{
	bool fp8 = !NUL(fp8) && !BAD(fp8), fp4 = !NUL(fp4) && !BAD(fp4);
	double one;

	p->lowp_param = p->param_bytes;
	if (!fp8 && !fp4)
		return NULL;
	if (B(first_last_layers_bf16))
		return "--first-last-layers-bf16 keeps some layers in bf16: which is not counted";
	if (fp4) {
		if (fp4_params(x))
			return "fp4 parameters (--fp4-param-gather) are not counted";
		if (!str_is(x, F(fp4_recipe), "nvfp4"))
			return "an fp4 recipe other than nvfp4";
		p->lowp_copy = 2 * (0.5 + 1.0 / 16);
		return NULL;
	}
	if (str_is(x, F(fp8_recipe), "mxfp8"))
		one = 1 + 1.0 / 32;
	else if (str_is(x, F(fp8_recipe), "delayed") || str_is(x, F(fp8_recipe), "tensorwise") ||
	         str_is(x, F(fp8_recipe), "blockwise"))
		one = 1; /* blockwise: an fp32 scale per 128 x 128 block, below a byte in 4096 */
	else
		return "an fp8 recipe other than delayed, tensorwise, mxfp8, blockwise";
	if (fp8_params(x)) {
		p->lowp_param = one;
		p->lowp_copy = one;
	} else
		p->lowp_copy = 2 * one;
	return NULL;
}

/* The inputs of the exact terms; not_counted[] says which are left out. */
static const char *
read_in(struct mcinit_rule_ctx *x, struct peak_in *p)
{
	struct mcinit_memory *m = &x->dv->mem;
	const struct mcinit_derived *dv = x->dv;
	long long dpcp, inst;
	const char *strategy;

	memset(p, 0, sizeof *p);
	if (!dv->dp_ok || !dv->edp_ok || BAD(context_parallel_size) ||
	    BAD(num_distributed_optimizer_instances))
		return "the data-parallel sizes are not known";
	if (dv->gtp > 1 || dv->egtp > 1)
		return "weight shards over TP (gtp_weight_remat_size) are not counted";
	p->param_bytes = strcmp(m->params_dtype, "fp32") == 0 ? 4 : 2;
	inst = I(num_distributed_optimizer_instances);
	dpcp = dv->dp * I(context_parallel_size);
	if (inst <= 0 || dpcp % inst != 0 || dv->edp % inst != 0)
		return "num_distributed_optimizer_instances does not divide DP";
	p->edp = dv->edp;
	p->shard_params = p->shard_grads = 1;
	p->dense_shard = p->expert_shard = 1;
	/* the distributed optimizer shards over the data-parallel group with
	 * CP (intra_dp_cp_group), the experts' over expert DP
	 * (intra_expt_dp_group): distributed_data_parallel.py */
	if (dist_opt(x)) {
		p->dense_shard = dpcp / inst;
		p->expert_shard = dv->edp / inst;
	}
	if (B(use_torch_fsdp2))
		return "torch FSDP2's sharding is not counted";
	if (megatron_fsdp(x)) {
		strategy = str_of(x, F(data_parallel_sharding_strategy));
		if (strategy == NULL)
			return "Megatron-FSDP's sharding strategy is not known";
		/* no_shard, optim, optim_grads, optim_grads_params: ZeRO 0-3 */
		if (strcmp(strategy, "no_shard") != 0) {
			p->dense_shard = dpcp;
			p->expert_shard = dv->edp;
		}
		if (strcmp(strategy, "optim_grads") == 0 ||
		    strcmp(strategy, "optim_grads_params") == 0)
			p->shard_grads = 0; /* by the dense/expert shards below */
		if (strcmp(strategy, "optim_grads_params") == 0)
			p->shard_params = 0;
	}
	if (B(optimizer_cpu_offload)) {
		/* HybridDeviceOptimizer: that share of the parameters' optimizer
		 * (main parameters and states) runs on the CPU */
		double f = mcinit_cfg_float(x->c, F(optimizer_offload_fraction));

		if (BAD(optimizer_offload_fraction) || f < 0 || f > 1)
			return "optimizer_offload_fraction is not a share from 0 to 1";
		p->offload = f;
	}
	m->not_counted[MCINIT_PT_GRADS] = grads(x, p, &m->grad_dtype);
	m->not_counted[MCINIT_PT_OPTIMIZER] = optimizer(x, p, &m->optimizer);
	m->not_counted[MCINIT_PT_LOWP] = lowp(x, p);
	if (megatron_fsdp(x) && p->shard_params == 0)
		m->not_counted[MCINIT_PT_PARAMS] =
		    "Megatron-FSDP gathers each layer's parameters for its forward and backward: "
		    "those buffers are not counted";
	m->shard_dense = p->dense_shard;
	m->shard_expert = p->expert_shard;
	m->opt_bytes_per_param = p->opt_bytes;
	m->offload = p->offload;
	return NULL;
}

/* ---- the overheads ---- */

/* An integer environment variable of the job, or dflt. */
static double
env_num(struct mcinit_rule_ctx *x, const char *name, double dflt)
{
	char buf[64], *end;
	bool cfg;
	double v;

	if (!mcinit_rule_job_env(x, name, buf, sizeof buf, &cfg))
		return dflt;
	v = strtod(buf, &end);
	return end != buf && *end == '\0' && v > 0 ? v : dflt;
}

/* The communicators of more than one rank a rank is in (Megatron-Core's
 * parallel_state: each a NCCL communicator once used). */
static unsigned
communicators(struct mcinit_rule_ctx *x, const struct peak_in *p)
{
	const struct mcinit_derived *dv = x->dv;
	bool moe = !NUL(num_moe_experts) && I(num_moe_experts) > 0;
	unsigned c = 0;

	c |= I(tensor_model_parallel_size) > 1 ? 1u << MCINIT_COMM_TP : 0;
	c |= I(context_parallel_size) > 1 ? 1u << MCINIT_COMM_CP : 0;
	c |= dv->dp * I(context_parallel_size) > 1 ? 1u << MCINIT_COMM_DP : 0;
	c |= dv->pp > 1 ? 1u << MCINIT_COMM_PP : 0;
	c |= moe && I(expert_model_parallel_size) > 1 ? 1u << MCINIT_COMM_EP : 0;
	c |= moe && p->edp > 1 ? 1u << MCINIT_COMM_EDP : 0;
	/* the tied embedding's gradient between the first and last stages */
	c |= dv->pp > 1 && mcinit_rules_model_tied(x) ? 1u << MCINIT_COMM_EMBEDDING : 0;
	return c;
}

static void
overheads(struct mcinit_rule_ctx *x, const struct peak_in *p)
{
	struct mcinit_memory *m = &x->dv->mem;
	char buf[256];
	bool cfg;
	unsigned c;
	int n = 0;

	/* NCCL_BUFFSIZE and the channel bounds as the job sets them */
	m->nccl_lo = env_num(x, "NCCL_BUFFSIZE", NCCL_BUFFSIZE) *
	             env_num(x, "NCCL_MIN_NCHANNELS", NCCL_CHANNELS_LO) * NCCL_PEERS;
	m->nccl_hi = env_num(x, "NCCL_BUFFSIZE", NCCL_BUFFSIZE) *
	             env_num(x, "NCCL_MAX_NCHANNELS", NCCL_CHANNELS_HI) * NCCL_PEERS;
	if (m->nccl_hi < m->nccl_lo)
		m->nccl_hi = m->nccl_lo;
	m->comms = communicators(x, p);
	for (c = m->comms; c != 0; c &= c - 1)
		n++;
	m->nccl_lo *= n;
	m->nccl_hi *= n;
	m->frag_share = FRAG_SHARE;
	if (mcinit_rule_job_env(x, "PYTORCH_CUDA_ALLOC_CONF", buf, sizeof buf, &cfg) &&
	    strstr(buf, "expandable_segments:True") != NULL)
		m->frag_share = FRAG_SHARE_ES;
}

/* ---- one kind of rank ---- */

/* Stage s's peak into r. */
static void
stage_peak(struct mcinit_rule_ctx *x, const struct peak_in *p, long long s,
           struct mcinit_rank_peak *r)
{
	struct mcinit_memory *m = &x->dv->mem;
	const struct mcinit_rank_params *q = &m->kinds[m->stage_kind[s]];
	const struct mcinit_derived *dv = x->dv;
	double dense = (double)q->dense, expert = (double)q->expert, all = (double)q->total;
	double lin = (double)q->linear, alloc, ctx_lo = CONTEXT_LAZY, t, tokens, elem;
	char buf[64];
	bool cfg;
	int i;

	memset(r, 0, sizeof *r);
	/* parameters, the linear weights in their own dtype with fp8 ones */
	r->params_lowp = lin * p->lowp_param;
	r->lo[MCINIT_PT_PARAMS] = (all - lin) * p->param_bytes + r->params_lowp;
	if (r->params_lowp == lin * p->param_bytes)
		r->params_lowp = 0;
	if (p->shard_params == 0)
		r->lo[MCINIT_PT_PARAMS] =
		    r->lo[MCINIT_PT_PARAMS] * (dense / all) / (double)p->dense_shard +
		    r->lo[MCINIT_PT_PARAMS] * (expert / all) / (double)p->expert_shard;
	r->lo[MCINIT_PT_GRADS] =
	    p->shard_grads == 0
	        ? (dense / (double)p->dense_shard + expert / (double)p->expert_shard) *
	              p->grad_bytes
	        : all * p->grad_bytes;
	r->opt_dense = dense * p->opt_bytes * (1 - p->offload) / (double)p->dense_shard;
	r->opt_expert = expert * p->opt_bytes * (1 - p->offload) / (double)p->expert_shard;
	r->lo[MCINIT_PT_OPTIMIZER] = r->opt_dense + r->opt_expert;
	r->lo[MCINIT_PT_LOWP] = lin * p->lowp_copy;
	if (m->act_ok && m->in_flight[s] > 0) {
		const struct mcinit_rank_act *a = &m->act[m->stage_act[s]];

		r->in_flight = m->in_flight[s];
		r->lo[MCINIT_PT_ACTIVATIONS] =
		    (double)(m->in_flight[s] * (a->total / dv->chunks_per_stage));
		r->hi[MCINIT_PT_ACTIVATIONS] =
		    (double)(m->in_flight[s] * (a->total_hi / dv->chunks_per_stage));
		r->logits = (double)(m->in_flight[s] *
		                     (a->by_term[MCINIT_AT_LOGITS] / dv->chunks_per_stage));
	}
	/* exact but for the activations, whose high end is the local spec's
	 * figure when the spec is not certain (memory-act.c read_spec) */
	for (i = MCINIT_PT_PARAMS; i < MCINIT_PT_ACTIVATIONS; i++)
		r->hi[i] = r->lo[i];
	alloc = r->hi[MCINIT_PT_PARAMS] + r->hi[MCINIT_PT_GRADS] + r->hi[MCINIT_PT_OPTIMIZER] +
	        r->hi[MCINIT_PT_LOWP] + r->hi[MCINIT_PT_ACTIVATIONS];
	if (mcinit_rule_job_env(x, "CUDA_MODULE_LOADING", buf, sizeof buf, &cfg) &&
	    strcmp(buf, "EAGER") == 0)
		ctx_lo = CONTEXT_EAGER;
	r->lo[MCINIT_PT_CONTEXT] = ctx_lo;
	r->hi[MCINIT_PT_CONTEXT] = CONTEXT_EAGER;
	r->lo[MCINIT_PT_NCCL] = m->nccl_lo;
	r->hi[MCINIT_PT_NCCL] = m->nccl_hi;
	/* tp-comm-overlap: Transformer Engine's initialize_ub, called by
	 * Megatron-LM's _initialize_tp_communicators with the shape (s x b /
	 * CP, h), one buffer per overlapped GEMM: at least the 4 all-gather
	 * (ring exchange) and 2 reduce-scatter (pipeline) overlaps, in fp8
	 * under fp8; at most also the 4 bulk overlaps of the backward, all
	 * in 16 bits */
	if (B(tp_comm_overlap) && I(tensor_model_parallel_size) > 1 && !NUL(seq_length)) {
		tokens = (double)I(seq_length) * (double)I(micro_batch_size) /
		         (double)I(context_parallel_size);
		elem = !NUL(fp8) ? 1 : 2;
		t = tokens * (double)I(hidden_size);
		r->lo[MCINIT_PT_USERBUFFERS] = 6 * t * elem;
		r->hi[MCINIT_PT_USERBUFFERS] = 10 * t * 2;
	}
	/* CUDA graphs: the captured layers' tensors live in the graphs'
	 * private pool (PyTorch's torch.cuda.graph, pool=); shared by the
	 * graphs of one stage at best, at worst a second copy of what the
	 * micro-batches in flight keep (Megatron-Core's cuda_graphs.py
	 * captures one graph per layer and micro-batch) */
	if ((!str_is(x, F(cuda_graph_impl), "none") && !NUL(cuda_graph_impl)) ||
	    B(enable_cuda_graph) || B(external_cuda_graph))
		r->hi[MCINIT_PT_GRAPHS] = r->hi[MCINIT_PT_ACTIVATIONS];
	r->hi[MCINIT_PT_FRAGMENTATION] = alloc * m->frag_share;
	for (i = 0; i < MCINIT_PT_COUNT; i++)
		if (m->not_counted[i] == NULL) {
			r->total_lo += r->lo[i];
			r->total_hi += r->hi[i];
			if (i != MCINIT_PT_ACTIVATIONS)
				r->total_certain += r->lo[i];
		}
	r->first_stage = s;
}

/* Stages with the same figures share a kind. */
static bool
same_peak(const struct mcinit_rank_peak *a, const struct mcinit_rank_peak *b)
{
	return memcmp(a->lo, b->lo, sizeof a->lo) == 0 && memcmp(a->hi, b->hi, sizeof a->hi) == 0 &&
	       a->logits == b->logits && a->in_flight == b->in_flight &&
	       a->opt_dense == b->opt_dense && a->params_lowp == b->params_lowp;
}

void
mcinit_rules_memory_peak(struct mcinit_rule_ctx *x)
{
	struct mcinit_memory *m = &x->dv->mem;
	struct mcinit_rank_peak r;
	struct peak_in p;
	long long s;
	size_t k;
	int i;

	if (x->o->memory_model != MCINIT_MEM_MCINIT)
		return;
	m->npeak = 0;
	m->worst = 0;
	memset(m->not_counted, 0, sizeof m->not_counted);
	m->peak_why = m->params_ok ? read_in(x, &p) : "the parameters are not counted";
	m->peak_ok = m->peak_why == NULL;
	if (!m->peak_ok)
		return;
	if (!m->act_ok)
		m->not_counted[MCINIT_PT_ACTIVATIONS] = m->act_why;
	else if (m->in_flight[0] <= 0)
		m->not_counted[MCINIT_PT_ACTIVATIONS] =
		    "the micro-batches in flight are not known (num_micro_batches)";
	overheads(x, &p);
	for (s = 0; s < x->dv->pp; s++) {
		stage_peak(x, &p, s, &r);
		for (k = 0; k < m->npeak; k++)
			if (same_peak(&m->peak[k], &r))
				break;
		if (k == m->npeak) {
			if (k == MCINIT_MAX_RANK_KINDS) {
				m->peak_ok = false;
				m->peak_why = "more distinct kinds of rank than are kept (32)";
				return;
			}
			m->peak[k] = r;
			m->npeak++;
		}
		m->peak[k].nstages++;
		m->stage_peak[s] = (short)k;
		if (m->peak[k].total_hi > m->peak[m->worst].total_hi)
			m->worst = k;
	}
	m->complete = true;
	for (i = 0; i < MCINIT_PT_COUNT; i++)
		m->complete = m->complete && m->not_counted[i] == NULL;
	m->why = NULL;
}

/* ---- MC063 under mcinit's model ---- */

/* The fields a change sets, saved to be put back. */
static const enum mcinit_field changed[] = {
    F(tensor_model_parallel_size),
    F(pipeline_model_parallel_size),
    F(context_parallel_size),
    F(micro_batch_size),
    F(use_distributed_optimizer),
    F(expert_tensor_parallel_size),
    F(recompute_granularity),
    F(recompute_method),
    F(recompute_num_layers),
    F(recompute_modules),
    F(optimizer_use_distributed_optimizer),
};
#define NCHANGED (sizeof changed / sizeof changed[0])

/* A value that owns nothing, written over the config's while it is saved
 * (the saved one keeps its storage, put back unchanged). */
static void
put_int(struct mcinit_config *c, enum mcinit_field f, long long v)
{
	memset(&c->val[f], 0, sizeof c->val[f]);
	c->val[f].kind = MCINIT_V_INT;
	c->val[f].i = v;
}

static void
put_str(struct mcinit_config *c, enum mcinit_field f, const char *v)
{
	memset(&c->val[f], 0, sizeof c->val[f]);
	c->val[f].kind = v != NULL ? MCINIT_V_STR : MCINIT_V_NULL;
	c->val[f].s = (char *)(uintptr_t)v; /* never freed: put back before */
}

/* What retry estimates: the most loaded rank's high end, or (low) the
 * largest certain part of any kind of rank. */
struct peak_retry {
	const struct mcinit_rule_ctx *x;
	bool low;
};

/* The largest certain part of any kind of rank: what MC063's error
 * judges. */
static size_t
worst_certain(const struct mcinit_memory *m)
{
	size_t k, w = 0;

	for (k = 1; k < m->npeak; k++)
		if (m->peak[k].total_certain > m->peak[w].total_certain)
			w = k;
	return w;
}

/* The worst rank's high end (or low end) with the layout b: the derived
 * values and the whole model run again on the config with b written into
 * it, then the config is put back as it was.  Negative where the trainer
 * would refuse the layout, or the model cannot count it. */
static double
retry(const void *in, const struct mcinit_mem_par *b)
{
	const struct peak_retry *pr = in;
	const struct mcinit_rule_ctx *x0 = pr->x;
	struct mcinit_config *c = x0->c;
	struct mcinit_value saved[NCHANGED];
	struct mcinit_derived *dv = mcx_xcalloc(1, sizeof *dv);
	struct mcinit_diags d;
	struct mcinit_rule_ctx x = {c, dv, &d, x0->o, NULL, 0};
	double total = -1;
	size_t i;

	mcinit_diags_init(&d);
	for (i = 0; i < NCHANGED; i++)
		saved[i] = c->val[changed[i]];
	put_int(c, F(tensor_model_parallel_size), b->tp);
	put_int(c, F(pipeline_model_parallel_size), b->pp);
	put_int(c, F(context_parallel_size), b->cp);
	put_int(c, F(micro_batch_size), b->mbs);
	put_int(c, F(expert_tensor_parallel_size), b->etp);
	memset(&c->val[F(use_distributed_optimizer)], 0, sizeof(struct mcinit_value));
	c->val[F(use_distributed_optimizer)].kind = MCINIT_V_BOOL;
	c->val[F(use_distributed_optimizer)].i = b->dist_opt;
	/* a ConfigContainer's optimizer holds it too (dist_opt) */
	c->val[F(optimizer_use_distributed_optimizer)] = c->val[F(use_distributed_optimizer)];
	if (b->recompute == 1) {
		/* selective, Megatron-LM's default modules (core_attn) */
		put_str(c, F(recompute_granularity), "selective");
		put_str(c, F(recompute_method), NULL);
		put_str(c, F(recompute_modules), NULL);
	} else if (b->recompute == 2) {
		put_str(c, F(recompute_granularity), "full");
		put_str(c, F(recompute_method), "uniform");
		put_int(c, F(recompute_num_layers), 1);
	}
	mcinit_rules_derive_sizes(&x);
	mcinit_rules_derive_rest(&x);
	if (dv->dp_ok && dv->nmb_ok && dv->layers_ok) {
		mcinit_rules_memory_params(&x);
		mcinit_rules_memory_act(&x);
		mcinit_rules_memory_peak(&x);
		if (dv->mem.peak_ok && dv->mem.complete)
			total = pr->low ? dv->mem.peak[worst_certain(&dv->mem)].total_certain
			                : dv->mem.peak[dv->mem.worst].total_hi;
	}
	for (i = 0; i < NCHANGED; i++)
		c->val[changed[i]] = saved[i];
	mcinit_diags_destroy(&d);
	free(dv);
	return total;
}

/* MC063 under mcinit's model: an error only when what is certain does
 * not fit (the exact state, every modelled overhead at its least, no
 * activation: out of memory is then certain), a warning when the high end
 * passes 90% of the GPU (it may not fit); a false error is worse than a
 * missed one. */
void
mcinit_rules_memory_peak_mc063(struct mcinit_rule_ctx *x)
{
	const struct mcinit_memory *m = &x->dv->mem;
	const struct mcinit_rank_peak *w;
	double cap = (double)x->o->gpu_memory, over_lo = 0, over_hi = 0;
	struct peak_retry hi_in = {x, false}, lo_in = {x, true};
	struct mcinit_mem_par par;
	struct mcinit_diag *g;
	char act[96];
	const char *rg;
	bool certain;
	int i;

	if (!m->peak_ok || !m->complete || m->npeak == 0)
		return;
	w = &m->peak[worst_certain(m)];
	certain = w->total_certain > cap;
	if (!certain) {
		w = &m->peak[m->worst];
		if (w->total_hi <= cap * WARN_SHARE)
			return;
	}
	for (i = MCINIT_PT_CONTEXT; i < MCINIT_PT_COUNT; i++) {
		over_lo += w->lo[i];
		over_hi += w->hi[i];
	}
	if (w->lo[MCINIT_PT_ACTIVATIONS] != w->hi[MCINIT_PT_ACTIVATIONS])
		snprintf(act, sizeof act, "%.1f..%.1f (%s)", w->lo[MCINIT_PT_ACTIVATIONS] / GIB,
		         w->hi[MCINIT_PT_ACTIVATIONS] / GIB,
		         m->act_spec_range != NULL ? "transformer_engine..local spec"
		                                   : "transformer_engine spec, its fused "
		                                     "norms..torch's");
	else
		snprintf(act, sizeof act, "%.1f (%s spec)", w->lo[MCINIT_PT_ACTIVATIONS] / GIB,
		         m->act_spec);
	if (certain)
		g = mcinit_rule_report_sev(
		    x, MCINIT_ERROR, F(micro_batch_size),
		    "the most loaded rank (pipeline stage %lld) needs at least %.1f GiB before "
		    "any activation by mcinit's model, more than the GPU's %.1f GiB: out of "
		    "memory is certain (%.1f..%.1f with the activations; parameters %.1f, "
		    "gradients %.1f, optimizer %.1f, fp8/fp4 copies %.1f, activations %s, "
		    "overheads %.1f..%.1f)",
		    w->first_stage, w->total_certain / GIB, cap / GIB, w->total_lo / GIB,
		    w->total_hi / GIB, w->lo[MCINIT_PT_PARAMS] / GIB, w->lo[MCINIT_PT_GRADS] / GIB,
		    w->lo[MCINIT_PT_OPTIMIZER] / GIB, w->lo[MCINIT_PT_LOWP] / GIB, act,
		    over_lo / GIB, over_hi / GIB);
	else
		g = mcinit_rule_report_sev(
		    x, MCINIT_WARNING, F(micro_batch_size),
		    "the most loaded rank (pipeline stage %lld) may not fit: %.1f..%.1f GiB by "
		    "mcinit's model, the high end %s the GPU's %.1f GiB (without the "
		    "activations, not yet confirmed on a GPU, %.1f; parameters %.1f, gradients "
		    "%.1f, optimizer %.1f, fp8/fp4 copies %.1f, activations %s, overheads "
		    "%.1f..%.1f)",
		    w->first_stage, w->total_lo / GIB, w->total_hi / GIB,
		    w->total_hi > cap ? "more than" : "over 90% of", cap / GIB,
		    m->peak[worst_certain(m)].total_certain / GIB, w->lo[MCINIT_PT_PARAMS] / GIB,
		    w->lo[MCINIT_PT_GRADS] / GIB, w->lo[MCINIT_PT_OPTIMIZER] / GIB,
		    w->lo[MCINIT_PT_LOWP] / GIB, act, over_lo / GIB, over_hi / GIB);
	memset(&par, 0, sizeof par);
	par.heads = I(num_attention_heads);
	par.groups = gqa_on(x->c) ? I(num_query_groups) : par.heads;
	par.layers = I(num_layers);
	par.mbs = I(micro_batch_size);
	par.nmb = x->dv->num_micro_batches;
	par.has_nmb = x->dv->nmb_ok;
	par.tp = I(tensor_model_parallel_size);
	par.pp = I(pipeline_model_parallel_size);
	par.cp = I(context_parallel_size);
	par.vpp = x->dv->vpp;
	par.ep = I(expert_model_parallel_size);
	par.etp = x->dv->etp;
	par.etp_follows = par.etp == par.tp;
	par.dp = x->dv->dp;
	par.world = x->dv->world_size;
	par.dist_opt = dist_opt(x);
	rg = str_of(x, F(recompute_granularity));
	par.recompute = rg != NULL && strcmp(rg, "full") == 0      ? 2
	                : (rg != NULL || B(recompute_activations)) ? 1
	                                                           : 0;
	/* the hint aims at the high end, so that the warning clears too; when
	 * out of memory is certain and nothing clears the high end, at the
	 * certain part; a ConfigContainer's changes are named as its
	 * overrides */
	mcinit_rules_memory_hint(g,
	                         &(struct mcinit_mem_retry){&hi_in, &par, retry, x->c->bridge, true,
	                                                    certain ? &lo_in : NULL},
	                         x->dv->gbs_ok ? x->dv->gbs : 0, cap);
}
