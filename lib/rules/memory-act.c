/*
 * memory-act.c — mcinit's own memory model (issue 42), its second term:
 * the activations one micro-batch leaves saved for backward on each
 * distinct kind of rank, as named terms (embedding, norms, attention, MLP,
 * dropout masks, recompute checkpoints, logits and loss).
 *
 * The terms are the tensors Megatron-Core 0.19's GPTModel with the local
 * layer spec saves, storage by storage, as tests/oracle/activations-diff.py
 * measures them with torch.autograd.graph.saved_tensors_hooks on the CPU
 * (each storage once, the parameters left out).  What only a GPU run shows
 * (Transformer Engine's fused norms and attention, bool dropout masks,
 * workspaces, the allocator's fragmentation, NCCL) is not in these bytes:
 * `mcinit explain memory` states it as ranges with their sources.
 *
 * Every rank of a pipeline stage saves the same bytes (TP splits the heads
 * and the MLP evenly, SP the sequence of what lies outside attention and
 * MLP), so a kind of rank is a pipeline stage, and stages with the same
 * bytes share a kind.  Context parallelism divides the sequence by CP: the
 * local spec cannot run it on the CPU (ring attention is Transformer
 * Engine's), so that division is modelled, not measured.
 */
#include "rules/rules-table.h"

#include <string.h>

/* The inputs, as the local spec's modules read them. */
struct act_in {
	long long s, b, h, heads, groups, kv, ffn, vocab, tp, cp, pp, vp;
	long long rc_layers; /* recompute_num_layers (full) */
	int e;               /* bytes of an activation element: 2 bf16/fp16, 4 fp32 */
	bool sp, rms, swiglu, rope, learned, fp32_softmax;
	bool hidden_drop, attn_drop;
	enum { RC_NONE, RC_SELECTIVE, RC_UNIFORM, RC_BLOCK } rc;
	double rotary_percent;
};

/* What a norm over n tokens keeps: torch's LayerNorm its input and the
 * mean and 1/std in the input's dtype; torch's RMSNorm computes in fp32 and
 * keeps the fp32 input, the normalised fp32 values and 1/rms. */
static long long
norm(const struct act_in *a, long long n)
{
	return a->rms ? 2 * n * a->h * 4 + n * 4 : n * a->h * a->e + 2 * n * a->e;
}

/* One decoder layer, not under full recompute: a = tokens through attention
 * and the MLP (s/CP x b), as = tokens outside them (a/TP with SP). */
static void
layer(const struct act_in *a, long long t[MCINIT_AT_COUNT])
{
	long long sc = a->s / a->cp, n = sc * a->b, as = a->sp ? n / a->tp : n;
	long long np = a->heads / a->tp, ng = a->groups / a->tp, d = a->kv;
	long long hq = n * np * d * a->e, qkv = n * (np + 2 * ng) * d * a->e;
	long long scores = a->b * np * sc * sc, f = a->ffn / a->tp;
	bool gqa = ng < np;

	t[MCINIT_AT_NORMS] += 2 * norm(a, as);
	/* linear_qkv keeps its input: the norm's output, SP's shard (the
	 * gathered sequence is gathered again in backward) */
	t[MCINIT_AT_ATTENTION] += as * a->h * a->e;
	/* the rotary tables: cos and sin, for q and for k, s x rotary dims */
	if (a->rope)
		t[MCINIT_AT_ATTENTION] +=
		    4 * sc * (long long)((double)d * a->rotary_percent) * a->e;
	if (a->rc == RC_SELECTIVE) {
		/* the checkpoint of core_attn keeps q, k, v and the mask (and
		 * an int32): v a view of the fused qkv output, kept whole; q a
		 * copy when rotated or when its heads, split over 1 < groups <
		 * heads, cannot be a view; k a copy when rotated */
		t[MCINIT_AT_ATTENTION] += qkv + (a->rope || (ng > 1 && gqa) ? hq : 0) +
		                          (a->rope ? n * ng * d * a->e : 0) + 4;
	} else {
		/* q and k for the scores, v for the context: rotated or
		 * expanded to every head (GQA) they are copies, else views of
		 * the fused qkv output, which is then kept whole */
		t[MCINIT_AT_ATTENTION] += (a->rope || gqa ? hq : 0) + (a->rope || gqa ? hq : 0) +
		                          (gqa ? hq : 0) + (gqa ? 0 : qkv);
		/* the softmax's output (fp32 with attention_softmax_in_fp32),
		 * the probabilities' dropout mask and the dropped probabilities
		 * that the context's matmul keeps */
		t[MCINIT_AT_ATTENTION] += scores * (a->fp32_softmax ? 4 : a->e);
		if (a->attn_drop)
			t[MCINIT_AT_ATTENTION] += 2 * scores * a->e;
		else if (a->fp32_softmax)
			t[MCINIT_AT_ATTENTION] += scores * a->e;
	}
	/* linear_proj keeps the context */
	t[MCINIT_AT_ATTENTION] += hq;
	/* fc1 keeps its input; the activation its input (fc1's output, twice
	 * f under SwiGLU), SwiGLU's product its two halves' silu and the
	 * product itself; fc2 its input */
	t[MCINIT_AT_MLP] += as * a->h * a->e + (a->swiglu ? 5 : 2) * n * f * a->e;
	/* bias-dropout-add after attention and after the MLP: the masks,
	 * in the activations' dtype on the CPU */
	if (a->hidden_drop)
		t[MCINIT_AT_DROPOUT] += 2 * as * a->h * a->e;
}

/* A layer under full recompute keeps nothing (its forward runs without
 * grad) but, when it opens a checkpoint, the checkpoint's input. */
static void
recomputed(const struct act_in *a, long long t[MCINIT_AT_COUNT], bool opens)
{
	long long n = a->s / a->cp * a->b, as = a->sp ? n / a->tp : n;

	if (opens)
		t[MCINIT_AT_RECOMPUTE] += as * a->h * a->e;
}

/* The decoder layers of one model chunk (nl of them), whose first and last
 * chunk flags say whether it holds the embedding and the loss. */
static void
chunk(const struct act_in *a, long long nl, bool pre, bool post, long long t[MCINIT_AT_COUNT])
{
	long long sc = a->s / a->cp, n = sc * a->b, as = a->sp ? n / a->tp : n, i;

	if (pre) {
		/* the token ids the embedding keeps; under TP the vocabulary
		 * range mask; learned positions keep their ids (one row) */
		t[MCINIT_AT_EMBEDDING] += n * 8 + (a->tp > 1 ? n : 0) + (a->learned ? sc * 8 : 0);
		if (a->hidden_drop)
			t[MCINIT_AT_DROPOUT] += as * a->h * a->e;
	}
	/* the attention mask, one storage the stage's layers share */
	if (nl > 0)
		t[MCINIT_AT_ATTENTION] += sc * sc;
	/* full recompute keeps the rotary frequencies (fp32, s x rotary
	 * dims) as an input of the checkpoints, one storage they share */
	if (nl > 0 && a->rope && (a->rc == RC_UNIFORM || (a->rc == RC_BLOCK && a->rc_layers > 0)))
		t[MCINIT_AT_RECOMPUTE] += sc * (long long)((double)a->kv * a->rotary_percent) * 4;
	for (i = 0; i < nl; i++) {
		if (a->rc == RC_UNIFORM)
			recomputed(a, t, i % a->rc_layers == 0);
		else if (a->rc == RC_BLOCK && i < a->rc_layers)
			recomputed(a, t, true);
		else
			layer(a, t);
	}
	if (post) {
		/* the final norm, the output layer's input, and the loss: the
		 * fp32 softmax of this rank's vocabulary shard, the target mask
		 * and the masked targets */
		t[MCINIT_AT_NORMS] += norm(a, as);
		t[MCINIT_AT_LOGITS] += as * a->h * a->e + n * (a->vocab / a->tp) * 4 + n + n * 8;
	}
}

static bool
str_is(struct mcinit_rule_ctx *x, enum mcinit_field f, const char *want)
{
	const char *v = mcinit_cfg_null(x->c, f) ? NULL : mcinit_cfg_str(x->c, f);

	return v != NULL && strcmp(v, want) == 0;
}

/* recompute_modules is unset or exactly ["core_attn"] (what the local spec
 * honours and what was measured). */
static bool
core_attn_only(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(recompute_modules));

	if (v->kind == MCINIT_V_NULL)
		return true;
	return v->kind == MCINIT_V_LIST && v->n == 1 && v->items[0].kind == MCINIT_V_STR &&
	       strcmp(v->items[0].s, "core_attn") == 0;
}

/* The recompute mode, or why it is not counted. */
static const char *
read_recompute(struct mcinit_rule_ctx *x, struct act_in *a)
{
	bool sel = str_is(x, F(recompute_granularity), "selective") || B(recompute_activations);

	a->rc = RC_NONE;
	if (str_is(x, F(recompute_granularity), "full")) {
		if (NUL(recompute_num_layers) || I(recompute_num_layers) < 0)
			return "full recompute without recompute_num_layers";
		a->rc_layers = I(recompute_num_layers);
		if (str_is(x, F(recompute_method), "uniform") && a->rc_layers > 0)
			a->rc = RC_UNIFORM;
		else if (str_is(x, F(recompute_method), "block"))
			a->rc = RC_BLOCK;
		else
			return "full recompute with a method other than uniform and block";
	} else if (sel) {
		if (!core_attn_only(x))
			return "selective recompute of modules other than core_attn is not "
			       "measured (the local spec)";
		a->rc = RC_SELECTIVE;
	} else if (!NUL(recompute_granularity))
		return "a recompute granularity other than full and selective";
	return NULL;
}

/* The inputs, or why there are none. */
static const char *
read_in(struct mcinit_rule_ctx *x, struct act_in *a)
{
	const struct mcinit_derived *dv = x->dv;
	const char *why;

	memset(a, 0, sizeof *a);
	if (!NUL(num_moe_experts) && I(num_moe_experts) > 0)
		return "MoE activations are not counted yet (the router, the dispatcher and "
		       "the experts)";
	if (B(multi_latent_attention))
		return "MLA's activations are not counted yet";
	if (!NUL(mtp_num_layers) && I(mtp_num_layers) > 0)
		return "the MTP layers' activations are not counted yet";
	if (B(qk_layernorm))
		return "q/k layer norms' activations are not counted yet";
	if (B(squared_relu) || !NUL(activation_func_clamp_value))
		return "an MLP activation other than GeLU and SwiGLU";
	if (NUL(seq_length) || NUL(micro_batch_size) || !dv->sp_ok)
		return "the sequence length or the micro-batch size is not known";
	if ((why = read_recompute(x, a)) != NULL)
		return why;
	a->s = I(seq_length);
	a->b = I(micro_batch_size);
	a->h = I(hidden_size);
	a->heads = I(num_attention_heads);
	a->groups = gqa_on(x->c) ? I(num_query_groups) : a->heads;
	a->kv = dv->kv_channels;
	a->ffn = dv->ffn_hidden_size;
	a->vocab = dv->padded_vocab_size;
	a->tp = I(tensor_model_parallel_size);
	a->cp = I(context_parallel_size);
	a->pp = dv->pp;
	a->vp = dv->chunks_per_stage;
	a->sp = dv->sequence_parallel;
	a->e = B(bf16) || B(fp16) ? 2 : 4;
	a->rms = str_is(x, F(normalization), "RMSNorm");
	a->swiglu = B(swiglu);
	a->rope =
	    B(use_rotary_position_embeddings) || str_is(x, F(position_embedding_type), "rope");
	a->learned = !a->rope && str_is(x, F(position_embedding_type), "learned_absolute");
	a->rotary_percent = mcinit_cfg_float(x->c, F(rotary_percent));
	/* validate_args: query-key layer scaling turns the fp32 softmax on */
	a->fp32_softmax = B(attention_softmax_in_fp32) || B(apply_query_key_layer_scaling);
	a->hidden_drop = mcinit_cfg_float(x->c, F(hidden_dropout)) > 0;
	a->attn_drop = mcinit_cfg_float(x->c, F(attention_dropout)) > 0;
	if (!a->rms && !str_is(x, F(normalization), "LayerNorm"))
		return "a normalization other than LayerNorm and RMSNorm";
	if (!a->rope && !a->learned && !str_is(x, F(position_embedding_type), "none"))
		return "a position embedding other than learned_absolute, rope, none";
	if (a->s <= 0 || a->b <= 0 || a->h <= 0 || a->heads <= 0 || a->groups <= 0 || a->kv <= 0 ||
	    a->ffn <= 0 || a->vocab <= 0 || a->tp <= 0 || a->cp <= 0 || a->pp <= 0 || a->vp <= 0 ||
	    a->s > (1LL << 24) || a->b > (1LL << 20) || a->h > (1LL << 24) ||
	    a->heads > (1LL << 20) || a->kv > (1LL << 20) || a->ffn > (1LL << 26) ||
	    a->vocab > (1LL << 28) || a->rotary_percent < 0 || a->rotary_percent > 1)
		return "its inputs are out of range";
	if (a->heads % a->tp || a->groups % a->tp || a->ffn % a->tp || a->vocab % a->tp ||
	    a->s % a->cp || (a->sp && (a->s / a->cp * a->b) % a->tp))
		return "a size is not divisible by its split (TP, CP)";
	/* (a->s / cp)^2 x b x heads x 4 must stay far below 2^63 */
	if ((double)a->s * a->s * a->b * a->heads > 1e17 ||
	    (double)a->s * a->b * (a->ffn + a->vocab + 8 * a->h) > 1e17)
		return "its inputs are out of range";
	return NULL;
}

static const char *
count(struct mcinit_rule_ctx *x, const struct act_in *a)
{
	struct mcinit_memory *m = &x->dv->mem;
	struct mcinit_rank_act r;
	long long p, v;
	size_t k;
	int i;

	for (p = 0; p < a->pp; p++) {
		memset(&r, 0, sizeof r);
		for (v = 0; v < a->vp; v++)
			chunk(a, x->dv->layers[p * a->vp + v], p == 0 && v == 0,
			      p == a->pp - 1 && v == a->vp - 1, r.by_term);
		for (i = 0; i < MCINIT_AT_COUNT; i++)
			r.total += r.by_term[i];
		r.first_stage = p;
		for (k = 0; k < m->nact; k++)
			if (memcmp(m->act[k].by_term, r.by_term, sizeof r.by_term) == 0)
				break;
		if (k == m->nact) {
			if (k == MCINIT_MAX_RANK_KINDS)
				return "more distinct kinds of rank than are kept (32)";
			m->act[k] = r;
			m->nact++;
		}
		m->act[k].nstages++;
		m->stage_act[p] = (short)k;
	}
	return NULL;
}

void
mcinit_rules_memory_act(struct mcinit_rule_ctx *x)
{
	static const char *const modes[] = {"none", "selective", "full uniform", "full block"};
	struct mcinit_memory *m = &x->dv->mem;
	struct act_in a;

	if (x->o->memory_model != MCINIT_MEM_MCINIT)
		return;
	m->nact = 0;
	/* the parameters' checks cover the release, the shape's feature set,
	 * the layer counts and the splits the model is built with */
	m->act_why = m->params_ok ? read_in(x, &a) : "the parameters are not counted";
	if (m->act_why == NULL) {
		m->act_recompute = modes[a.rc];
		m->act_why = count(x, &a);
	}
	m->act_ok = m->act_why == NULL;
}
