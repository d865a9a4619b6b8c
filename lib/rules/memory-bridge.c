/*
 * memory-bridge.c — --memory-model bridge (issue 42): memory per GPU in the
 * model Megatron-Bridge 0.6.2 reports once training runs,
 * megatron/bridge/training/utils/theoretical_memory_utils.py's
 * estimate_training_memory(config, num_microbatches), on the
 * ConfigContainer as pretrain() has it at that point: finalized
 * (num_query_groups, kv_channels, ffn_hidden_size and the expert TP filled
 * in, the virtual pipeline taken from a layout), data_parallel_size set,
 * and the vocabulary as setup's _validate_and_set_vocab_size left it
 * (padded only when it came from the tokenizer; derive.c), with the
 * micro-batch count get_num_microbatches() gives.
 *
 * Reproduced operation for operation in double precision, Python's integer
 * arithmetic where Bridge's is integral, and Python 3.12's sum() (Neumaier's
 * compensated sum) where Bridge sums a tuple of floats, so that every
 * figure is Bridge's to the byte (tests/oracle/bridge/memory_diff.py runs
 * Bridge's own function beside this).  What Bridge's estimate does and does
 * not count is its own: it always assumes sequence parallelism and
 * selective recompute, counts multi-latent attention as standard attention
 * of kv_channels, and puts the embedding on the first and the output layer
 * on the last stage of an uneven pipeline; a pipeline layout only sets the
 * virtual pipeline.  Where Bridge's estimator raises, mcinit says why there
 * is no estimate.  Not estimated: Bridge 0.5.1 (its estimator counts
 * differently: even stages only, its own MTP rule), Bridge main (not
 * pinned), hybrid (Mamba) models, whose Mamba layers the formula would
 * count as attention and MLP.
 */
#include "rules/rules-table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* More layers than any model has: the bound keeps a per-layer table small. */
#define MAX_LAYERS 100000
/* Integers at or below 2^53 are doubles exactly, so Python's int / int (a
 * correctly rounded quotient) is C's quotient of the two doubles. */
#define EXACT (1LL << 53)

/* The inputs estimate_training_memory reads, after finalize and setup. */
struct bmem_in {
	struct mcinit_mem_par p; /* what MC063's hint changes */
	long long h, kv, ffn, moe_ffn, experts, topk, shared, latent, vocab, vocab_div, seq, cp,
	    mtp, first, last;
	bool has_moe, has_latent, pad_vocab, silu_glu, share, has_vpp, has_first, has_last;
	const unsigned char *moe; /* num_layers + mtp entries: a MoE layer */
};

const char *
mcinit_memory_assumption(int i)
{
	static const char *const text[MCINIT_MEM_A_COUNT] = {
	    "Reports the most-loaded GPU shard; runtime allocator, kernel workspace, and CUDA "
	    "graph buffers are excluded.",
	    "Weight/optimizer bytes use the Megatron Bridge Adam estimate: 18 B/parameter without "
	    "distributed optimizer, otherwise 6 B plus 12 B sharded over the relevant optimizer "
	    "group.",
	    "Embedding parameters are assigned to first/last pipeline stages; untied embeddings "
	    "double-count only when PP=1.",
	    "Routed MoE expert parameters are sharded by expert_model_parallel_size and "
	    "expert_tensor_parallel_size; routed expert optimizer state uses the expert "
	    "data-parallel shard size.",
	    "Dense optimizer state and activations are divided across context parallel ranks.",
	    "Activation estimates assume sequence parallelism and selective activation "
	    "recomputation; full recompute, CPU offload, token imbalance, and dispatcher "
	    "workspace are not modeled."};

	return i >= 0 && i < MCINIT_MEM_A_COUNT ? text[i] : NULL;
}

/* Python 3.12's sum() of n floats: 0 + v[0], then Neumaier's compensated
 * sum, the compensation added at the end.  Python's sum() of nothing is
 * the int 0, the same here. */
static double
py_sum(const double *v, size_t n)
{
	double s, c = 0, t;
	size_t i;

	if (n == 0)
		return 0;
	s = v[0];
	for (i = 1; i < n; i++) {
		t = s + v[i];
		if (fabs(s) >= fabs(v[i]))
			c += (s - t) + v[i];
		else
			c += (v[i] - t) + s;
		s = t;
	}
	if (c != 0 && isfinite(c))
		s += c;
	return s;
}

/* The vocabulary _get_vocab_size gives at TP tp. */
static long long
vocab_at(const struct bmem_in *a, long long tp)
{
	return a->pad_vocab ? mcinit_padded_vocab_size(a->vocab, a->vocab_div, tp) : a->vocab;
}

/* _uneven_pipeline_stage_layer_counts into counts[pp]; NULL, or Bridge's
 * reason when it raises. */
static const char *
stage_counts(const struct bmem_in *a, long long *counts)
{
	long long left = a->p.layers, stages = a->p.pp, mid, i;

	if (a->p.pp <= 1)
		return "Uneven pipeline stages require pipeline_model_parallel_size greater than 1";
	if (a->has_first) {
		left -= a->first;
		stages--;
	}
	if (a->has_last) {
		left -= a->last;
		stages--;
	}
	if (stages == 0) {
		if (left != 0)
			return "Uneven pipeline stage layer counts do not cover all model layers";
		mid = 0;
	} else {
		if (left <= 0 || left % stages != 0)
			return "Model layers must divide evenly over the remaining pipeline stages";
		mid = left / stages;
	}
	for (i = 0; i < a->p.pp; i++)
		counts[i] = mid;
	if (a->has_first)
		counts[0] = a->first;
	if (a->has_last)
		counts[a->p.pp - 1] = a->last;
	if (a->has_vpp)
		for (i = 0; i < a->p.pp; i++)
			if (counts[i] % a->p.vpp != 0)
				return "Each uneven pipeline stage layer count must divide over "
				       "virtual "
				       "pipeline stages";
	return NULL;
}

/* The largest stage's share of per_layer (num_layers + mtp values) over an
 * uneven pipeline, _uneven_pipeline_stage_layer_indices' layers in its
 * order; extra (the final layernorm, or 0) and emb (the embedding, or 0)
 * as Bridge adds them.  stage: pp doubles, layer: num_layers doubles of
 * scratch. */
static double
most_loaded_stage(const struct bmem_in *a, const long long *counts, const double *per_layer,
                  double extra, double emb, double *stage, double *layer)
{
	long long v, r, k, off = 0, vpp = a->has_vpp ? a->p.vpp : 1, pp = a->p.pp;
	size_t n;
	double best;

	for (r = 0; r < pp; r++) {
		/* stage r's layers: its chunk of each virtual stage, in order */
		n = 0;
		off = 0;
		for (v = 0; v < vpp; v++)
			for (k = 0; k < pp; k++) {
				long long chunk = counts[k] / vpp, j;

				if (k == r)
					for (j = 0; j < chunk; j++)
						layer[n++] = per_layer[off + j];
				off += chunk;
			}
		stage[r] = py_sum(layer, n);
	}
	stage[pp - 1] += py_sum(per_layer + a->p.layers, (size_t)a->mtp);
	stage[pp - 1] += extra;
	stage[0] += emb;
	stage[pp - 1] += emb;
	best = stage[0];
	for (r = 1; r < pp; r++)
		if (stage[r] > best)
			best = stage[r];
	return best;
}

/* _bytes_per_parameter. */
static double
bytes_per_param(const struct bmem_in *a, long long shard)
{
	return a->p.dist_opt ? 6.0 + (12.0 / (double)(shard > 1 ? shard : 1)) : 18.0;
}

/* _compute_activation_memory_bytes, the first pipeline stage. */
static double
activations(const struct bmem_in *a, long long total, long long moe_layers)
{
	long long dense_ffn = (total - moe_layers) * a->ffn, sbh = a->seq * a->p.mbs * a->h;
	double ratio, act;

	if (a->has_moe && moe_layers > 0)
		ratio = (double)(dense_ffn + moe_layers * ((a->moe_ffn * a->topk) + a->shared)) /
		        (double)(total * a->h);
	else
		ratio = (double)dense_ffn / (double)(total * a->h);
	act = (double)sbh * (18 + (4 * ratio));
	act *= (double)total;
	act += (double)(8 * a->seq * a->p.mbs * a->p.pp);
	act += (double)(sbh * a->p.pp);
	if (a->has_vpp)
		act *= 1 + ((double)(a->p.pp - 1) / (double)(a->p.pp * a->p.vpp));
	if (!a->has_vpp && a->p.pp > 1 && (double)a->p.nmb / (double)a->p.pp < 1)
		act *= (double)a->p.nmb / (double)a->p.pp;
	if (a->p.pp == 1)
		act += (double)(sbh * 4) * (1 + ((double)vocab_at(a, a->p.tp) / (double)a->h));
	return act / (double)(a->p.tp * a->cp);
}

/* estimate_training_memory(config, num_microbatches) into m; NULL, or why
 * Bridge raises. */
static const char *
estimate(const struct bmem_in *a, struct mcinit_memory *m)
{
	long long L = a->p.layers, total = L + a->mtp, i, moe_layers = 0, tp = a->p.tp,
	          pp = a->p.pp, emb = a->h * vocab_at(a, tp), dense_shard, expert_shard;
	double fpf = a->silu_glu ? 3.0 : 2.0, attn, dense_mlp, shared_mlp, routed = 0,
	       latent_proj = 0, dense_total, routed_total, *dense, *rout, *scratch, bytes[2];
	long long *counts = NULL;
	const char *why = NULL;
	bool uneven = a->has_first || a->has_last;

	for (i = 0; i < total; i++)
		moe_layers += a->moe[i];
	attn = (double)(2 * a->h * a->h) * ((1 + ((double)a->p.groups / (double)a->p.heads)) *
	                                    ((double)(a->kv * a->p.heads) / (double)a->h));
	dense_mlp = fpf * (double)a->h * (double)a->ffn;
	shared_mlp = fpf * (double)a->h * (double)a->shared;
	if (a->has_moe && moe_layers > 0) {
		if (!a->has_latent)
			routed = fpf * (double)a->h * (double)a->moe_ffn * (double)a->experts;
		else {
			routed = fpf * (double)a->latent * (double)a->moe_ffn * (double)a->experts;
			latent_proj = (double)(2 * a->h * a->latent);
		}
	}
	dense = mcx_xcalloc((size_t)total * 3, sizeof *dense);
	rout = dense + total;
	scratch = rout + total;
	for (i = 0; i < total; i++) {
		dense[i] = (attn + (double)(4 * a->h)) +
		           (a->moe[i] ? shared_mlp + latent_proj : dense_mlp);
		rout[i] = a->moe[i] ? routed : 0.0;
	}
	dense_total = py_sum(dense, (size_t)total) + (double)(2 * a->h);
	routed_total = py_sum(rout, (size_t)total);
	m->dense.params = dense_total + (double)(a->share ? emb : 2 * emb);
	m->total_params = dense_total + routed_total + (double)(a->share ? emb : 2 * emb);
	m->expert.params = routed_total;
	m->experts = routed_total > 0;
	/* Bridge raises for so many stages (one would have no layer); say so
	 * before a table of pp stages is allocated */
	if (uneven && pp > L + 2)
		why = "Model layers must divide evenly over the remaining pipeline stages";
	else if (uneven) {
		double *stage = mcx_xcalloc((size_t)pp, sizeof *stage);

		counts = mcx_xcalloc((size_t)pp, sizeof *counts);
		why = stage_counts(a, counts);
		if (why == NULL) {
			m->dense.params_per_gpu =
			    most_loaded_stage(a, counts, dense, (double)(2 * a->h), (double)emb,
			                      stage, scratch) /
			    (double)tp;
			if (m->experts)
				m->expert.params_per_gpu =
				    most_loaded_stage(a, counts, rout, 0, 0, stage, scratch) /
				    (double)(a->p.ep * a->p.etp);
		}
		free(stage);
		free(counts);
	} else {
		m->dense.params_per_gpu =
		    dense_total / (double)(pp * tp) + (double)emb / (double)tp;
		if (!a->share && pp == 1)
			m->dense.params_per_gpu += (double)emb / (double)tp;
		if (m->experts)
			m->expert.params_per_gpu = routed_total / (double)(pp * a->p.ep * a->p.etp);
	}
	free(dense);
	if (why != NULL)
		return why;
	dense_shard = a->p.dp * a->cp;
	m->dense.bytes_per_param = bytes_per_param(a, dense_shard);
	m->dense.bytes = m->dense.params_per_gpu * m->dense.bytes_per_param;
	bytes[0] = m->dense.bytes;
	if (m->experts) {
		long long epe = a->p.ep * a->p.etp;

		expert_shard = a->p.dp * tp * a->cp / (epe > 1 ? epe : 1);
		m->expert.bytes_per_param = bytes_per_param(a, expert_shard > 1 ? expert_shard : 1);
		m->expert.bytes = m->expert.params_per_gpu * m->expert.bytes_per_param;
		bytes[1] = m->expert.bytes;
	} else
		memset(&m->expert, 0, sizeof m->expert);
	m->weights_and_optimizer = py_sum(bytes, m->experts ? 2 : 1);
	m->activations = activations(a, total, moe_layers);
	m->total = m->weights_and_optimizer + m->activations;
	m->assumptions = MCINIT_MEM_A_SHARD | MCINIT_MEM_A_ADAM | MCINIT_MEM_A_EMBEDDING |
	                 MCINIT_MEM_A_ACTIVATION | (m->experts ? MCINIT_MEM_A_EXPERTS : 0) |
	                 (a->cp > 1 ? MCINIT_MEM_A_CP : 0);
	m->ok = true;
	m->why = NULL;
	return NULL;
}

/* An optional int field: def when null (Bridge's getattr default),
 * *neg when negative (Bridge's _optional_positive_int_attr raises). */
static long long
opt_int(struct mcinit_rule_ctx *x, enum mcinit_field f, long long def, bool *neg)
{
	long long v;

	if (mcinit_cfg_null(x->c, f))
		return def;
	v = mcinit_cfg_int(x->c, f);
	*neg |= v < 0;
	return v;
}

/* A MoE layer per layer (moe_layer_freq: an int or a list), then the MTP
 * layers, each like the last layer; NULL or Bridge's reason. */
static const char *
moe_layers(struct mcinit_rule_ctx *x, const struct bmem_in *a, unsigned char *moe)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(moe_layer_freq));
	long long i, L = a->p.layers;

	if (a->has_moe) {
		if (v->kind == MCINIT_V_INT) {
			if (v->i <= 0)
				return "moe_layer_freq must be positive";
			for (i = 0; i < L; i++)
				moe[i] = i % v->i == 0;
		} else if (v->kind == MCINIT_V_LIST) {
			if ((long long)v->n != L)
				return "Invalid moe_layer_freq length: not one per layer";
			for (i = 0; i < L; i++) {
				if (v->items[i].kind != MCINIT_V_INT &&
				    v->items[i].kind != MCINIT_V_BOOL)
					return "moe_layer_freq lists something other than 0/1";
				moe[i] = v->items[i].i != 0;
			}
		} else
			return "Unsupported moe_layer_freq value: neither an int nor a list";
	}
	for (i = L; i < L + a->mtp; i++)
		moe[i] = moe[L - 1];
	return NULL;
}

/* activation_func as the finalized config holds it: F.silu itself (Bridge
 * writes {_target_: torch.nn.functional.silu, _call_: false}). */
static bool
is_silu(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(activation_func));
	json_t *t, *p;

	if (v->kind != MCINIT_V_JSON || !json_is_object(v->j))
		return false;
	t = json_object_get(v->j, "_target_");
	p = json_object_get(v->j, "_partial_");
	return json_is_string(t) && strcmp(json_string_value(t), "torch.nn.functional.silu") == 0 &&
	       !json_is_true(p);
}

/* Every product the estimate makes of integers stays below 2^53, so that
 * C's doubles are Python's ints. */
static bool
in_range(const struct bmem_in *a)
{
	long long t, tot = a->p.layers + a->mtp, v = vocab_at(a, a->p.tp);
	long long prods[][3] = {
	    {2 * a->h, a->h, 1}, {a->kv, a->p.heads, 1}, {a->seq * a->p.mbs, a->h, 4 * a->p.pp},
	    {a->h, v, 2},        {tot, a->ffn, 1},       {a->moe_ffn, a->topk, tot},
	    {a->shared, tot, 1}, {tot, a->h, 1},         {a->p.dp * a->cp, a->p.tp, 1},
	    {a->h, a->latent, 2}};
	size_t i;

	if (a->h > EXACT || a->seq > EXACT || a->p.mbs > EXACT || a->p.pp > EXACT || v <= 0)
		return false;
	for (i = 0; i < sizeof prods / sizeof prods[0]; i++)
		if (__builtin_mul_overflow(prods[i][0], prods[i][1], &t) ||
		    __builtin_mul_overflow(t, prods[i][2], &t) || t > EXACT || t < 0)
			return false;
	return true;
}

/* The estimate's inputs, or why there is none. */
static const char *
inputs(struct mcinit_rule_ctx *x, struct bmem_in *a)
{
	const struct mcinit_derived *dv = x->dv;
	const char *ver = mcinit_bversion_name(x->c->bversion);
	bool neg = false;

	if (!x->c->bridge)
		return "Megatron-Bridge's estimate reads a ConfigContainer, not Megatron-LM's "
		       "flags "
		       "(--memory-model megatron reads those)";
	/* the releases as mcinit names them: "0.5" is 0.5.1, "0.6" 0.6.2 */
	if (strcmp(ver, "0.5") == 0)
		return "Megatron-Bridge 0.5.1's estimate_training_memory counts differently (even "
		       "pipeline stages only, its own MTP rule): only 0.6.2's is reproduced";
	if (strcmp(ver, "0.6") != 0)
		return "only Megatron-Bridge 0.6.2's estimate_training_memory is reproduced";
	if (B(is_hybrid_model) || !NUL(hybrid_layer_pattern) || !NUL(hybrid_override_pattern))
		return "a hybrid (Mamba) model: Bridge's estimate would count its Mamba layers as "
		       "attention and MLP";
	if (!dv->world_ok || !dv->vpp_ok || !dv->kv_ok || !dv->vocab_ok)
		return dv->vocab_ok
		           ? "its inputs are not all known"
		           : "the vocabulary is not known before the tokenizer loads "
		             "(tokenizer.vocab_size of a NullTokenizer, or model.vocab_size "
		             "without use_tokenizer_vocab_size, makes it known)";
	if (INVALID(x->c, F(hidden_size), F(num_attention_heads), F(num_query_groups),
	            F(num_layers), F(ffn_hidden_size), F(num_moe_experts), F(moe_ffn_hidden_size),
	            F(moe_router_topk), F(moe_shared_expert_intermediate_size), F(moe_latent_size),
	            F(moe_layer_freq), F(mtp_num_layers), F(seq_length), F(micro_batch_size), TP,
	            PP, CP, EP, ETP, UNEVEN, F(virtual_pipeline_model_parallel_size),
	            F(gated_linear_unit), F(activation_func),
	            F(share_embeddings_and_output_weights), F(use_distributed_optimizer),
	            F(optimizer_use_distributed_optimizer), F(use_megatron_fsdp),
	            F(ddp_use_megatron_fsdp)) ||
	    NUL(hidden_size) || NUL(num_attention_heads) || NUL(num_layers) || NUL(seq_length))
		return "its inputs are not all known";
	memset(a, 0, sizeof *a);
	a->h = I(hidden_size);
	a->p.heads = I(num_attention_heads);
	a->p.groups =
	    NUL(num_query_groups) || I(num_query_groups) == 0 ? a->p.heads : I(num_query_groups);
	a->kv = dv->kv_channels;
	a->ffn = NUL(ffn_hidden_size) ? 4 * a->h : I(ffn_hidden_size);
	a->p.layers = I(num_layers);
	a->has_moe = !NUL(num_moe_experts) && I(num_moe_experts) > 0;
	a->experts = a->has_moe ? I(num_moe_experts) : 0;
	a->moe_ffn = opt_int(x, F(moe_ffn_hidden_size), a->ffn, &neg);
	a->topk = opt_int(x, F(moe_router_topk), 1, &neg);
	a->shared = opt_int(x, F(moe_shared_expert_intermediate_size), 0, &neg);
	a->has_latent = !NUL(moe_latent_size);
	a->latent = a->has_latent ? I(moe_latent_size) : 0;
	a->mtp = NUL(mtp_num_layers) ? 0 : I(mtp_num_layers);
	a->vocab = dv->vocab_size;
	a->vocab_div = I(make_vocab_size_divisible_by);
	a->pad_vocab = dv->vocab_from_tokenizer;
	a->seq = I(seq_length);
	a->p.mbs = I(micro_batch_size);
	a->p.tp = I(tensor_model_parallel_size);
	a->p.pp = I(pipeline_model_parallel_size);
	a->cp = I(context_parallel_size);
	a->p.ep = I(expert_model_parallel_size);
	a->p.etp_follows = NUL(expert_tensor_parallel_size);
	a->p.etp = a->p.etp_follows ? a->p.tp : I(expert_tensor_parallel_size);
	/* the finalized VPP: as written, else the layout's when above 1 */
	a->has_vpp = !NUL(virtual_pipeline_model_parallel_size) || dv->vpp > 0;
	a->p.vpp = !NUL(virtual_pipeline_model_parallel_size)
	               ? I(virtual_pipeline_model_parallel_size)
	               : dv->vpp;
	a->has_first = !NUL(num_layers_in_first_pipeline_stage);
	a->first = a->has_first ? I(num_layers_in_first_pipeline_stage) : 0;
	a->has_last = !NUL(num_layers_in_last_pipeline_stage);
	a->last = a->has_last ? I(num_layers_in_last_pipeline_stage) : 0;
	a->silu_glu = B(gated_linear_unit) && is_silu(x);
	a->share = B(share_embeddings_and_output_weights);
	/* Bridge turns both on where either is, and Megatron-FSDP turns them on */
	a->p.dist_opt = B(use_distributed_optimizer) || B(optimizer_use_distributed_optimizer) ||
	                B(use_megatron_fsdp) || B(ddp_use_megatron_fsdp);
	a->p.world = dv->world_size;
	a->p.has_nmb = dv->nmb_ok;
	a->p.nmb = dv->num_micro_batches;
	if (neg)
		return "a MoE size or the router's top-k is negative: Bridge's estimate raises";
	if (a->h <= 0 || a->p.heads <= 0 || a->p.layers <= 0 || a->p.layers > MAX_LAYERS ||
	    a->mtp < 0 || a->mtp > MAX_LAYERS || a->p.tp <= 0 || a->p.pp <= 0 || a->cp <= 0 ||
	    a->p.ep <= 0 || a->p.etp <= 0 || (a->has_vpp && a->p.vpp <= 0) ||
	    (a->has_first && a->first <= 0) || (a->has_last && a->last <= 0) || a->seq <= 0 ||
	    a->p.mbs <= 0 || a->vocab_div <= 0 || a->p.world % (a->p.tp * a->p.pp * a->cp) != 0)
		return "its inputs are out of range";
	a->p.dp = a->p.world / (a->p.tp * a->p.pp * a->cp);
	if (a->p.pp > 1 && !a->has_vpp && !a->p.has_nmb)
		return "the number of micro-batches is not known";
	if (!in_range(a))
		return "its inputs are out of range";
	return NULL;
}

/* The inputs and their MoE layers (freed by the caller), or why not. */
static const char *
load(struct mcinit_rule_ctx *x, struct bmem_in *a, unsigned char **moe)
{
	const char *why = inputs(x, a);

	*moe = NULL;
	if (why != NULL)
		return why;
	*moe = mcx_xcalloc((size_t)(a->p.layers + a->mtp), 1);
	a->moe = *moe;
	return moe_layers(x, a, *moe);
}

void
mcinit_rules_memory_bridge(struct mcinit_rule_ctx *x)
{
	struct mcinit_memory *m = &x->dv->mem;
	struct bmem_in a;
	unsigned char *moe;

	/* the release the config is read as, which not-estimated names too */
	m->model = !x->c->bridge                                              ? "bridge"
	           : strcmp(mcinit_bversion_name(x->c->bversion), "0.6") == 0 ? "bridge-0.6.2"
	           : strcmp(mcinit_bversion_name(x->c->bversion), "0.5") == 0 ? "bridge-0.5.1"
	                                                                      : "bridge-main";
	m->why = load(x, &a, &moe);
	if (m->why == NULL)
		m->why = estimate(&a, m);
	if (m->why != NULL)
		m->ok = false;
	free(moe);
}

/* Bridge's estimate of in with the layout b: its total, or -1 where
 * Bridge's estimator raises. */
static double
retry(const void *in, const struct mcinit_mem_par *b)
{
	struct bmem_in a = *(const struct bmem_in *)in;
	struct mcinit_memory m = {0};

	a.p = *b;
	if (!in_range(&a) || estimate(&a, &m) != NULL)
		return -1;
	return m.total;
}

void
mcinit_rules_memory_bridge_hint(struct mcinit_rule_ctx *x, struct mcinit_diag *g, double cap)
{
	struct bmem_in a;
	unsigned char *moe;

	if (load(x, &a, &moe) == NULL)
		mcinit_rules_memory_hint(
		    g, &(struct mcinit_mem_retry){&a, &a.p, retry, true, false, NULL},
		    x->dv->gbs_ok ? x->dv->gbs : 0, cap);
	free(moe);
}
