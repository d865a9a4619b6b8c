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
 * Transformer Engine's spec (transformer_impl transformer_engine,
 * Megatron's default) differs in attention: fused or flash attention saves
 * no s x s tensor, so its figure is the local spec's with core attention
 * recomputed plus the softmax's log-sum-exp (attention(); the local spec with
 * that recompute is what the oracle measured, and tests/cli/activations.sh
 * holds the two figures together on the corpus).  Its fused norms save
 * less than torch's RMSNorm: the low end counts them at Transformer
 * Engine's figure (norm()), the high end at torch's, as measured, so that
 * MC063's error stays certain.  Megatron's fused SwiGLU, where it runs, is
 * not modelled: the torch figure stands, which may be larger.
 *
 * Every rank of a pipeline stage saves the same bytes (TP splits the heads
 * and the MLP evenly, SP the sequence of what lies outside attention and
 * MLP), so a kind of rank is a pipeline stage, and stages with the same
 * bytes share a kind.  Context parallelism divides the sequence by CP: the
 * local spec cannot run it on the CPU (ring attention is Transformer
 * Engine's), so that division is modelled, not measured.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>

/* The inputs, as the local spec's modules read them. */
struct act_in {
	long long s, b, h, heads, groups, kv, ffn, vocab, tp, cp, pp, vp, layers;
	long long rc_layers; /* recompute_num_layers (full) */
	int e;               /* bytes of an activation element: 2 bf16/fp16, 4 fp32 */
	bool sp, rms, swiglu, rope, learned, fp32_softmax;
	bool hidden_drop, attn_drop;
	/* core attention as Transformer Engine's fused/flash kernels run it:
	 * no s x s tensor is saved (see layer()) */
	bool te;
	/* the norms as Transformer Engine's fused modules save them, at most
	 * torch's figure: the low end of the transformer_engine spec (norm()) */
	bool te_norms;
	long long mtp; /* MTP layers, on the last stage */
	enum { RC_NONE, RC_SELECTIVE, RC_UNIFORM, RC_BLOCK } rc;
	bool rc_attn, rc_mlp; /* selective: core_attn, mlp among recompute_modules */
	double rotary_percent;
	/* MLA: its latent ranks (q_lora 0: no q LoRA, linear_q_proj from the
	 * hidden states) and head sizes */
	bool mla;
	long long q_lora, kv_lora, qk_head, qk_pos, v_head;
	/* MoE: experts, top-k, the experts' and the shared experts' hidden
	 * sizes, ETP; the capacity factor (0: drop-less) and its padding; the
	 * router's softmax before top-k, its auxiliary loss */
	long long experts, topk, moe_ffn, shared, etp;
	double capacity;
	bool pad, pre_softmax, aux;
	bool alltoall;          /* the alltoall dispatcher (else allgather) */
	const int *moe_pattern; /* one 0/1 per layer; NULL without MoE */
};

/* What a norm over n tokens keeps: torch's LayerNorm its input and the
 * mean and 1/std in the input's dtype; torch's RMSNorm computes in fp32 and
 * keeps the fp32 input, the normalised fp32 values and 1/rms.
 *
 * Transformer Engine's fused norms (Megatron's TE spec fuses the layer's
 * two norms into TELayerNormColumnParallelLinear, the final one is TENorm)
 * keep the input in its own dtype and fp32 statistics per token: mu and
 * rsigma for LayerNorm, rsigma for RMSNorm.  Source: Transformer Engine
 * (d0067d0), transformer_engine/pytorch/module/layernorm_linear.py,
 * _LayerNormLinear.forward (save_for_backward of inputmat, ln_out, mu,
 * rsigma: ln_out is the linear's input, counted in the attention and MLP
 * terms); pytorch/ops/basic/layer_norm.py LayerNorm.op_forward and
 * rmsnorm.py RMSNorm.op_forward (save_for_backward(x, means, rstdevs) and
 * (x, rstdevs)); pytorch/csrc/extensions/normalization.cpp layernorm_fwd
 * and rmsnorm_fwd (mu and rsigma at::kFloat, one per row).  With te_norms
 * the smaller of the two figures is counted: in 16 bits TE's LayerNorm
 * keeps its statistics in fp32, 4 bytes a token more than torch's, and the
 * low end must not count what may not exist. */
static long long
norm(const struct act_in *a, long long n)
{
	long long torch = a->rms ? 2 * n * a->h * 4 + n * 4 : n * a->h * a->e + 2 * n * a->e;
	long long te = n * a->h * a->e + (a->rms ? 1 : 2) * n * 4;

	return a->te_norms && te < torch ? te : torch;
}

/* The MoE layer's MLP (the allgather dispatcher): n tokens of the sequence,
 * as on this rank (SP's shard), which the router sees. */
static void
moe(const struct act_in *a, long long n, long long as, long long t[MCINIT_AT_COUNT])
{
	long long k = a->topk, E = a->experts, f = a->moe_ffn / a->etp, pairs = n * k, cap, g;

	/* the router on this rank's tokens: the top-k probabilities (fp32;
	 * with the softmax first, every expert's score) and their indices;
	 * the auxiliary loss keeps every expert's fp32 score */
	t[MCINIT_AT_MLP] += as * (a->pre_softmax ? E : k) * 4 + as * k * 8;
	if (a->aux)
		t[MCINIT_AT_MLP] += as * E * 4 + E * 8 + 4;
	/* the routing map (bool) and the probabilities over the gathered
	 * tokens (alltoall: this rank's); with a capacity, its mask */
	g = a->alltoall ? as : n;
	t[MCINIT_AT_MLP] += E * g * (1 + a->e) + (a->capacity > 0 ? E * g : 0);
	/* (token, expert) pairs this rank's experts take: drop-less, all of
	 * them on average over EP (the experts each take what the router
	 * sends: balanced here, in expectation); with a capacity, at most
	 * capacity = ceil(tokens x k / E x factor) per expert from each rank
	 * of the gather, and exactly that when padded */
	if (a->capacity > 0) {
		/* get_capacity: ceil(tokens x k / E x factor), in that order */
		double c = (double)(as * k) / (double)E * a->capacity;

		cap = (long long)c;
		cap += (double)cap < c;
		cap *= E * (n / as);
		pairs = a->pad || cap < pairs ? cap : pairs;
	}
	/* the permutation's sorted indices, its input (the norm's output, the
	 * shared experts' fc1 input too) */
	t[MCINIT_AT_MLP] += pairs * 8 + as * a->h * a->e;
	/* the experts: the permuted tokens (fc1's input), as a dense MLP of
	 * the pairs, plus the probabilities' product that the activation's
	 * output enters, and the permuted probabilities */
	t[MCINIT_AT_MLP] +=
	    pairs * a->h * a->e + (a->swiglu ? 6 : 3) * pairs * f * a->e + pairs * a->e;
	/* the shared experts: an MLP over the gathered tokens, split over TP */
	if (a->shared > 0)
		t[MCINIT_AT_MLP] += (a->swiglu ? 5 : 2) * n * (a->shared / a->tp) * a->e;
}

/* The s x s tensors of the local spec's unfused core attention: the
 * softmax's output (fp32 with attention_softmax_in_fp32), the
 * probabilities' dropout mask and the dropped probabilities that the
 * context's matmul keeps. */
static long long
scores_kept(const struct act_in *a, long long scores)
{
	long long t = scores * (a->fp32_softmax ? 4 : a->e);

	if (a->attn_drop)
		return t + 2 * scores * a->e;
	return t + (a->fp32_softmax ? scores * a->e : 0);
}

/* Self-attention's tensors past linear_qkv's input (the local spec's
 * SelfAttention, or Transformer Engine's with a->te): n tokens through
 * attention, sc of the sequence. */
static void
attention(const struct act_in *a, long long n, long long sc, long long t[MCINIT_AT_COUNT])
{
	long long np = a->heads / a->tp, ng = a->groups / a->tp, d = a->kv;
	long long hq = n * np * d * a->e, qkv = n * (np + 2 * ng) * d * a->e;
	long long scores = a->b * np * sc * sc;
	bool gqa = ng < np;

	/* the rotary tables: cos and sin, for q and for k, s x rotary dims */
	if (a->rope)
		t[MCINIT_AT_ATTENTION] +=
		    4 * sc * (long long)((double)d * a->rotary_percent) * a->e;
	if ((a->rc == RC_SELECTIVE && a->rc_attn) || a->te) {
		/* the checkpoint of core_attn keeps q, k, v and the mask (and
		 * an int32): v a view of the fused qkv output, kept whole; q a
		 * copy when rotated or when its heads, split over 1 < groups <
		 * heads, cannot be a view; k a copy when rotated */
		t[MCINIT_AT_ATTENTION] += qkv + (a->rope || (ng > 1 && gqa) ? hq : 0) +
		                          (a->rope ? n * ng * d * a->e : 0) + 4;
		/* Transformer Engine's fused/flash attention saves the same q,
		 * k and v (GQA's k and v unexpanded), its output (the context
		 * linear_proj keeps, below) and, when not recomputed, the
		 * softmax's log-sum-exp, fp32 b x heads x s; never the s x s
		 * scores, probabilities or dropout mask, which its backward
		 * recomputes tile by tile (Dao 2023, "FlashAttention-2",
		 * arXiv 2307.08691: the forward stores only the logsumexp for
		 * the backward; Transformer Engine's fused_attn_fwd returns the
		 * cuDNN backend's softmax statistics, fp32 b x h x s x 1, and an
		 * RNG state as aux_ctx_tensors).  Korthikanti et al. 2022,
		 * "Reducing Activation Recomputation in Large Transformer
		 * Models" (arXiv 2205.05198), count those s x s tensors, 5 a s
		 * b per layer, as what selective recompute of core attention
		 * saves: so this is the local spec's figure with core_attn
		 * recomputed (measured, tests/memory/activations-core.tsv),
		 * plus the log-sum-exp. */
		if (a->te && !(a->rc == RC_SELECTIVE && a->rc_attn))
			t[MCINIT_AT_ATTENTION] += a->b * np * sc * 4;
	} else {
		/* q and k for the scores, v for the context: rotated or
		 * expanded to every head (GQA) they are copies, else views of
		 * the fused qkv output, which is then kept whole */
		t[MCINIT_AT_ATTENTION] += (a->rope || gqa ? hq : 0) + (a->rope || gqa ? hq : 0) +
		                          (gqa ? hq : 0) + (gqa ? 0 : qkv);
		t[MCINIT_AT_ATTENTION] += scores_kept(a, scores);
	}
	/* linear_proj keeps the context */
	t[MCINIT_AT_ATTENTION] += hq;
}

/* Multi-latent attention (MLASelfAttention, as Megatron-LM builds it: the
 * down-projections duplicated on every TP rank, no latent norms), its
 * tensors past the input the down-projections share.  n tokens through
 * attention, as of them on this rank outside it (SP's shard). */
static long long
mla(const struct act_in *a, long long n, long long as, long long sc)
{
	long long np = a->heads / a->tp, e = a->e;
	long long q = n * np * (a->qk_head + a->qk_pos) * e, v = n * np * a->v_head * e;
	/* the q LoRA's latent (linear_q_up_proj's input; without a q LoRA
	 * linear_q_proj keeps the hidden states, counted already) and the
	 * kv down-projection's output, of which the kv latent that
	 * linear_kv_up_proj keeps is a view: duplicated modules run on SP's
	 * shard */
	long long t = as * a->q_lora * e + as * (a->kv_lora + a->qk_pos) * e;

	/* the rotary tables, computed in each layer: cos and sin for q's and
	 * for k's rotated part, s x qk_pos_emb_head_dim */
	t += 4 * sc * a->qk_pos * e;
	/* query and key (the no-position and the rotated parts concatenated,
	 * copies) and value (made contiguous, a copy), as the core attention
	 * gets them; its checkpoint keeps the same three and the mask's int */
	t += 2 * q + v;
	if ((a->rc == RC_SELECTIVE && a->rc_attn) || a->te) {
		t += 4;
		/* flash attention's log-sum-exp (see attention()) */
		if (a->te && !(a->rc == RC_SELECTIVE && a->rc_attn))
			t += a->b * np * sc * 4;
	} else
		t += scores_kept(a, a->b * np * sc * sc);
	/* linear_proj keeps the context, v_head_dim per head */
	return t + v;
}

/* One decoder layer, not under full recompute: a = tokens through attention
 * and the MLP (s/CP x b), as = tokens outside them (a/TP with SP). */
static void
layer(const struct act_in *a, bool is_moe, long long t[MCINIT_AT_COUNT])
{
	long long sc = a->s / a->cp, n = sc * a->b, as = a->sp ? n / a->tp : n;
	long long f = a->ffn / a->tp;

	t[MCINIT_AT_NORMS] += 2 * norm(a, as);
	/* linear_qkv keeps its input: the norm's output, SP's shard (the
	 * gathered sequence is gathered again in backward); MLA's
	 * down-projections share it */
	t[MCINIT_AT_ATTENTION] += as * a->h * a->e;
	if (a->mla)
		t[MCINIT_AT_ATTENTION] += mla(a, n, as, sc);
	else
		attention(a, n, sc, t);
	/* fc1 keeps its input; the activation its input (fc1's output, twice
	 * f under SwiGLU), SwiGLU's product its two halves' silu and the
	 * product itself; fc2 its input */
	if (is_moe)
		moe(a, n, as, t);
	else if (a->rc == RC_SELECTIVE && a->rc_mlp)
		/* the checkpoint of a dense MLP keeps its input alone (MoE
		 * layers ignore "mlp") */
		t[MCINIT_AT_MLP] += as * a->h * a->e;
	else
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

/* The loss over this rank's vocabulary shard, n tokens: the fp32 softmax,
 * the target mask and the masked targets. */
static long long
loss(const struct act_in *a, long long n)
{
	return n * (a->vocab / a->tp) * 4 + n + n * 8;
}

/* One MTP layer (MultiTokenPredictionLayer) and its loss, all in the mtp
 * term; moe: its inner layer is an MoE layer (the decoder's last layer's
 * spec, get_gpt_mtp_block_spec).  It embeds the input ids rolled by one
 * (new ids, and new position ids for learned positions, both b x s), norms
 * the embedding (enorm) and the hidden states (hnorm), projects their
 * concatenation (eh_proj keeps it, 2h wide), runs a decoder layer and its
 * final norm; under uniform full recompute the checkpoint around the
 * projection and the layer keeps its two inputs, hidden states and
 * embedding, instead (MultiTokenPredictionLayer._checkpointed_forward;
 * block recompute skips MTP layers).  Its loss (process_mtp_loss) keeps
 * what the main loss keeps, its share of the output layer's input (the
 * hidden states of all depths concatenated, one storage), the rolled loss
 * mask (int64) the loss is multiplied by, the fp32 loss per token that
 * MTPLossAutoScaler saves and the token count it is divided by. */
static void
mtp_layer(const struct act_in *a, bool moe_inner, long long t[MCINIT_AT_COUNT])
{
	long long n = a->s / a->cp * a->b, as = a->sp ? n / a->tp : n, hs = as * a->h * a->e;
	long long l[MCINIT_AT_COUNT] = {0};
	int i;

	t[MCINIT_AT_MTP] += n * 8 + (a->tp > 1 ? n : 0) + (a->learned ? n * 8 : 0);
	if (a->hidden_drop)
		t[MCINIT_AT_MTP] += hs;
	if (a->rc == RC_UNIFORM)
		t[MCINIT_AT_MTP] += 2 * hs;
	else {
		layer(a, moe_inner, l);
		for (i = 0; i < MCINIT_AT_COUNT; i++)
			t[MCINIT_AT_MTP] += l[i];
		t[MCINIT_AT_MTP] += 3 * norm(a, as) + 2 * hs;
		/* with SP, the layer's input is SP's shard of eh_proj's output
		 * gathered over TP: a slice that .contiguous() leaves a view
		 * (mappings.py _split_along_first_dim), so a norm that keeps its
		 * input (torch's LayerNorm, Transformer Engine's either) keeps
		 * the whole sequence */
		if (a->sp && (!a->rms || a->te_norms))
			t[MCINIT_AT_MTP] += (n - as) * a->h * a->e;
	}
	t[MCINIT_AT_MTP] += hs + loss(a, n) + n * 8 + n * 4 + 8;
}

/* The decoder layers of one model chunk (nl of them), whose first and last
 * chunk flags say whether it holds the embedding and the loss (and the MTP
 * layers). */
static void
chunk(const struct act_in *a, long long off, long long nl, bool pre, bool post,
      long long t[MCINIT_AT_COUNT])
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
			layer(a, a->moe_pattern != NULL && a->moe_pattern[off + i], t);
	}
	if (post) {
		/* the final norm, the output layer's input, and the loss: the
		 * fp32 softmax of this rank's vocabulary shard, the target mask
		 * and the masked targets */
		t[MCINIT_AT_NORMS] += norm(a, as);
		t[MCINIT_AT_LOGITS] += as * a->h * a->e + loss(a, n);
		for (i = 0; i < a->mtp; i++)
			mtp_layer(a, a->moe_pattern != NULL && a->moe_pattern[a->layers - 1], t);
	}
}

static bool
str_is(struct mcinit_rule_ctx *x, enum mcinit_field f, const char *want)
{
	const char *v = mcinit_cfg_null(x->c, f) ? NULL : mcinit_cfg_str(x->c, f);

	return v != NULL && strcmp(v, want) == 0;
}

/* recompute_modules: unset (core_attn, TransformerConfig's default) or
 * core_attn and mlp, what the local spec honours and what was measured;
 * false for any other module. */
static bool
read_modules(struct mcinit_rule_ctx *x, struct act_in *a)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(recompute_modules));
	size_t i;

	if (v->kind == MCINIT_V_NULL) {
		a->rc_attn = true;
		return true;
	}
	if (v->kind != MCINIT_V_LIST)
		return false;
	for (i = 0; i < v->n; i++) {
		if (v->items[i].kind != MCINIT_V_STR)
			return false;
		if (strcmp(v->items[i].s, "core_attn") == 0)
			a->rc_attn = true;
		else if (strcmp(v->items[i].s, "mlp") == 0)
			a->rc_mlp = true;
		else
			return false;
	}
	return true;
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
		if (!read_modules(x, a))
			return "selective recompute of modules other than core_attn and mlp is not "
			       "measured (the local spec)";
		a->rc = RC_SELECTIVE;
	} else if (!NUL(recompute_granularity))
		return "a recompute granularity other than full and selective";
	return NULL;
}

/* A list of one value (or a value): its number, else -1. */
static double
one_number(const struct mcinit_value *v)
{
	if (v->kind == MCINIT_V_LIST)
		return v->n == 1 ? one_number(&v->items[0]) : -1;
	return v->kind == MCINIT_V_INT ? (double)v->i : v->kind == MCINIT_V_FLOAT ? v->d : -1;
}

/* MoE's inputs, or why they are not counted: the router and the
 * dispatcher that were measured (softmax scores, top-k, the auxiliary loss
 * or none, the allgather dispatcher), nothing else. */
static const char *
read_moe(struct mcinit_rule_ctx *x, struct act_in *a)
{
	static const enum mcinit_field off[] = {
	    F(moe_shared_expert_gate),   F(moe_router_enable_expert_bias),
	    F(moe_apply_probs_on_input), F(moe_router_force_load_balancing),
	    F(moe_enable_deepep),        F(moe_layer_recompute),
	};
	static const enum mcinit_field unset[] = {
	    F(moe_router_num_groups), F(moe_router_topk_scaling_factor),  F(moe_input_jitter_eps),
	    F(moe_z_loss_coeff),      F(moe_expert_rank_capacity_factor),
	};
	const struct mcinit_value *lb = mcinit_cfg_val(x->c, F(moe_router_load_balancing_type));
	const char *lbs;
	size_t i;

	for (i = 0; i < sizeof off / sizeof off[0]; i++)
		if (!mcinit_cfg_null(x->c, off[i]) && mcinit_cfg_bool(x->c, off[i]))
			return "an MoE router or dispatcher option whose activations were not "
			       "measured";
	for (i = 0; i < sizeof unset / sizeof unset[0]; i++)
		if (!mcinit_cfg_null(x->c, unset[i]))
			return "an MoE router option whose activations were not measured";
	a->alltoall = str_is(x, F(moe_token_dispatcher_type), "alltoall");
	if (!a->alltoall && !str_is(x, F(moe_token_dispatcher_type), "allgather"))
		return "an MoE dispatcher other than allgather and alltoall (flex is DeepEP's "
		       "or HybridEP's, CUDA only: not measured)";
	if (!NUL(moe_router_score_function) && !str_is(x, F(moe_router_score_function), "softmax"))
		return "an MoE router score function other than softmax";
	if (lb->kind == MCINIT_V_LIST)
		lb = lb->n == 1 ? &lb->items[0] : NULL;
	lbs = lb != NULL && lb->kind == MCINIT_V_STR ? lb->s : NULL;
	if (lbs == NULL || (strcmp(lbs, "aux_loss") != 0 && strcmp(lbs, "none") != 0))
		return "an MoE load balancing other than aux_loss and none";
	a->aux = strcmp(lbs, "aux_loss") == 0 &&
	         one_number(mcinit_cfg_val(x->c, F(moe_aux_loss_coeff))) != 0;
	a->experts = I(num_moe_experts);
	a->topk = I(moe_router_topk);
	a->moe_ffn = x->dv->moe_ffn_hidden_size;
	a->shared =
	    NUL(moe_shared_expert_intermediate_size) ? 0 : I(moe_shared_expert_intermediate_size);
	a->etp = x->dv->etp;
	a->capacity = NUL(moe_expert_capacity_factor)
	                  ? 0
	                  : mcinit_cfg_float(x->c, F(moe_expert_capacity_factor));
	a->pad = B(moe_pad_expert_input_to_capacity);
	a->pre_softmax = B(moe_router_pre_softmax);
	if (a->experts <= 0 || a->experts > (1 << 20) || a->topk <= 0 || a->topk > a->experts ||
	    a->moe_ffn <= 0 || a->moe_ffn > (1LL << 26) || a->shared < 0 ||
	    a->shared > (1LL << 26) || a->etp <= 0 || a->capacity < 0 || a->capacity > 1e6 ||
	    a->moe_ffn % a->etp || a->shared % a->tp)
		return "its MoE inputs are out of range";
	/* the allgather dispatcher gathers SP's shards; without SP every TP
	 * rank routes every token (Megatron requires SP with MoE and TP) */
	if (a->tp > 1 && !a->sp)
		return "MoE with TP > 1 and no SP";
	return NULL;
}

/* MLA's inputs, or why they are not counted.  GPTModel computes no rotary
 * table for MLA (each layer's MLASelfAttention rotates its own
 * qk_pos_emb_head_dim part), so a->rope, the model's table, is off. */
static const char *
read_mla(struct mcinit_rule_ctx *x, struct act_in *a)
{
	a->mla = true;
	a->rope = false;
	a->q_lora = NUL(q_lora_rank) ? 0 : I(q_lora_rank);
	a->kv_lora = I(kv_lora_rank);
	a->qk_head = I(qk_head_dim);
	a->qk_pos = I(qk_pos_emb_head_dim);
	a->v_head = I(v_head_dim);
	if (a->q_lora < 0 || a->q_lora > (1LL << 24) || a->kv_lora <= 0 ||
	    a->kv_lora > (1LL << 24) || a->qk_head <= 0 || a->qk_head > (1LL << 20) ||
	    a->qk_pos < 0 || a->qk_pos > (1LL << 20) || a->v_head <= 0 || a->v_head > (1LL << 20))
		return "its MLA inputs are out of range";
	/* RoPE's rotary_percent applies to MLA's rotated part too (YaRN's
	 * table ignores it): only the whole part was measured */
	if (!str_is(x, F(rope_type), "yarn") && !NUL(rope_type) && a->rotary_percent != 1.0)
		return "MLA with rotary_percent below 1 is not measured";
	return NULL;
}

/* A ConfigContainer's MLP activation is one that was measured: GeLU
 * alone, SiLU in a gated linear unit (SwiGLU), activation_func as the
 * finalized config holds it ({_target_: torch.nn.functional.silu,
 * _call_: false}); TransformerConfig's default, F.gelu, when null. */
static bool
bridge_activation(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(activation_func));
	const char *want =
	    B(gated_linear_unit) ? "torch.nn.functional.silu" : "torch.nn.functional.gelu";
	json_t *t;

	if (x->c->invalid[F(activation_func)])
		return false;
	if (NUL(activation_func))
		return !B(gated_linear_unit);
	if (v->kind != MCINIT_V_JSON || !json_is_object(v->j))
		return false;
	t = json_object_get(v->j, "_target_");
	return json_is_string(t) && strcmp(json_string_value(t), want) == 0 &&
	       !json_is_true(json_object_get(v->j, "_partial_"));
}

/* The inputs, or why there are none. */
static const char *
read_in(struct mcinit_rule_ctx *x, struct act_in *a)
{
	const struct mcinit_derived *dv = x->dv;
	const char *why;
	double n;

	memset(a, 0, sizeof *a);
	if (!NUL(mtp_num_layers) && I(mtp_num_layers) > 0) {
		a->mtp = I(mtp_num_layers);
		/* the layout may place the MTP layers on any stage: not
		 * measured */
		if (!NUL(pipeline_model_parallel_layout))
			return "MTP layers with a pipeline layout are not measured";
	}
	if (B(qk_layernorm))
		return "q/k layer norms' activations are not counted yet";
	if (B(squared_relu) || !NUL(activation_func_clamp_value) ||
	    (x->c->bridge && !bridge_activation(x)))
		return "an MLP activation other than GeLU and SwiGLU";
	if (NUL(seq_length) || NUL(micro_batch_size) || !dv->sp_ok)
		return "the sequence length or the micro-batch size is not known";
	if ((why = read_recompute(x, a)) != NULL)
		return why;
	/* Megatron-Core recomputes an MTP layer uniformly, one at a time, or
	 * not at all (block): MultiTokenPredictionLayer._checkpointed_forward
	 * asserts recompute_num_layers 1 */
	if (a->mtp > 0 && a->rc == RC_UNIFORM && a->rc_layers != 1)
		return "MTP layers under uniform full recompute of more than one layer "
		       "(Megatron-Core asserts recompute_num_layers 1)";
	a->s = I(seq_length);
	a->layers = I(num_layers);
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
	a->swiglu = mcinit_rules_model_glu(x);
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
	if (B(multi_latent_attention) && (why = read_mla(x, a)) != NULL)
		return why;
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
	    (double)a->s * a->b * (a->ffn + a->vocab + 8 * a->h) > 1e17 ||
	    (double)a->s * a->b * a->heads * (a->qk_head + a->qk_pos + a->v_head) > 1e17)
		return "its inputs are out of range";
	/* after the sizes: MoE reads TP and SP */
	if (!NUL(num_moe_experts) && I(num_moe_experts) > 0 && (why = read_moe(x, a)) != NULL)
		return why;
	/* every term is at most 16 bytes times one of these products, and a
	 * stage has at most every layer: the sums stay far below 2^63 */
	n = (double)a->s * (double)a->b;
	if (((double)I(num_layers) + 2 + 3 * (double)a->mtp) * 16 *
	        ((double)a->s * n * a->heads +
	         n * (a->h + a->ffn + a->vocab + (a->heads + 2 * a->groups) * a->kv + a->q_lora +
	              a->kv_lora + a->heads * (a->qk_head + a->qk_pos + a->v_head) +
	              a->experts * (1 + a->topk) + a->topk * (a->h + a->moe_ffn + 1) + a->shared)) >
	    1e18)
		return "its inputs are out of range";
	return NULL;
}

/* Each stage's bytes, kinds of rank shared; range: the spec is not
 * certain, and each kind's total_hi is the local spec's figure; else,
 * with the transformer_engine spec, the same spec with torch's norms (the
 * low end, total, counts Transformer Engine's: norm()). */
static const char *
count(struct mcinit_rule_ctx *x, const struct act_in *a, bool range)
{
	struct mcinit_memory *m = &x->dv->mem;
	struct mcinit_rank_act r;
	long long p, v, g, off;
	size_t k;
	int i;

	for (p = 0; p < a->pp; p++) {
		memset(&r, 0, sizeof r);
		for (v = 0; v < a->vp; v++) {
			/* the chunk's first layer: chunks in virtual-stage-major order */
			for (g = 0, off = 0; g < v * a->pp + p; g++)
				off += x->dv->layers[(g % a->pp) * a->vp + g / a->pp];
			chunk(a, off, x->dv->layers[p * a->vp + v], p == 0 && v == 0,
			      p == a->pp - 1 && v == a->vp - 1, r.by_term);
		}
		for (i = 0; i < MCINIT_AT_COUNT; i++)
			r.total += r.by_term[i];
		r.total_hi = r.total;
		if (range || a->te_norms) {
			/* the spec is not certain: the local spec's figure, the
			 * larger, is the high end; with Transformer Engine's norms
			 * in the low end, torch's are in the high end */
			struct act_in l = *a;
			long long t[MCINIT_AT_COUNT] = {0};

			l.te = a->te && !range;
			l.te_norms = false;
			for (v = 0; v < a->vp; v++) {
				for (g = 0, off = 0; g < v * a->pp + p; g++)
					off += x->dv->layers[(g % a->pp) * a->vp + g / a->pp];
				chunk(&l, off, x->dv->layers[p * a->vp + v], p == 0 && v == 0,
				      p == a->pp - 1 && v == a->vp - 1, t);
			}
			for (i = 0, r.total_hi = 0; i < MCINIT_AT_COUNT; i++)
				r.total_hi += t[i];
		}
		r.first_stage = p;
		for (k = 0; k < m->nact; k++)
			if (memcmp(m->act[k].by_term, r.by_term, sizeof r.by_term) == 0 &&
			    m->act[k].total_hi == r.total_hi)
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

/* attention_backend is unfused: a string (a flag's, Bridge's YAML), or a
 * JSON string where the field takes any value, either as Megatron-LM's
 * --attention-backend writes it or as AttnBackend's member name. */
static bool
backend_unfused(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(attention_backend));
	const char *s = v->kind == MCINIT_V_STR                            ? v->s
	                : v->kind == MCINIT_V_JSON && json_is_string(v->j) ? json_string_value(v->j)
	                                                                   : NULL;

	return s != NULL && (strcmp(s, "unfused") == 0 || strcmp(s, "AttnBackend.unfused") == 0);
}

/* Which layer spec's attention the figure describes: Megatron-Core's
 * transformer_impl, transformer_engine by default (Megatron-LM's
 * --transformer-impl, Bridge's TransformerConfig), whose attention is
 * fused or flash (a->te); local, the spec the oracle measured, which
 * keeps the s x s tensors.  Returns why the high end is the local
 * figure when the spec is not certain, else NULL: the figure with fused
 * attention, the smaller, is then the low end, so that MC063's error,
 * judged there, never counts tensors that may not exist. */
static const char *
read_spec(struct mcinit_rule_ctx *x, struct act_in *a)
{
	const char *impl =
	    mcinit_cfg_null(x->c, F(transformer_impl)) || x->c->invalid[F(transformer_impl)]
	        ? NULL
	        : mcinit_cfg_str(x->c, F(transformer_impl));

	a->te = impl == NULL || strcmp(impl, "local") != 0;
	if (!a->te)
		return NULL;
	if (impl == NULL || strcmp(impl, "transformer_engine") != 0)
		return "transformer_impl is not known (not local, not transformer_engine): "
		       "the low end with fused attention, the high end with the local spec's";
	/* --attention-backend unfused makes Transformer Engine's
	 * DotProductAttention run UnfusedDotProductAttention, which keeps the
	 * scores as the local spec does: not measured, so a range */
	if (backend_unfused(x))
		return "attention_backend unfused: Transformer Engine's unfused attention keeps "
		       "the s x s scores as the local spec does (not measured): the low end with "
		       "fused attention, the high end with the local spec's";
	return NULL;
}

/* The schedule's in-flight count of each stage, as Megatron-Core's
 * schedules.py warms up: 1F1B keeps min(PP - s, micro-batches) forward
 * passes of stage s before its first backward; the interleaved schedule
 * (PP - s - 1) x 2 + (vp - 1) x PP model chunks, at most all of them,
 * plus the one in its steady state; without a pipeline, one. */
static void
in_flight(struct mcinit_rule_ctx *x, const struct act_in *a)
{
	struct mcinit_memory *m = &x->dv->mem;
	long long p, w, nmb = x->dv->nmb_ok ? x->dv->num_micro_batches : 0;

	for (p = 0; p < a->pp; p++) {
		if (nmb <= 0)
			m->in_flight[p] = 0;
		else if (a->pp == 1)
			m->in_flight[p] = 1;
		else if (a->vp == 1)
			m->in_flight[p] = a->pp - p < nmb ? a->pp - p : nmb;
		else {
			/* (with as many micro-batches as stages, all of them) */
			w = nmb == a->pp ? nmb * a->vp : (a->pp - p - 1) * 2 + (a->vp - 1) * a->pp;
			m->in_flight[p] = (w < nmb * a->vp ? w : nmb * a->vp) + 1;
			if (m->in_flight[p] > nmb * a->vp)
				m->in_flight[p] = nmb * a->vp;
		}
	}
}

void
mcinit_rules_memory_act(struct mcinit_rule_ctx *x)
{
	static const char *const modes[] = {"none", "selective", "full uniform", "full block"};
	struct mcinit_memory *m = &x->dv->mem;
	struct act_in a;
	int *pat = NULL;

	if (x->o->memory_model != MCINIT_MEM_MCINIT)
		return;
	m->nact = 0;
	m->act_spec_range = NULL;
	/* the parameters' checks cover the release, the shape's feature set,
	 * the layer counts and the splits the model is built with */
	m->act_why = m->params_ok ? read_in(x, &a) : "the parameters are not counted";
	if (m->act_why == NULL && a.experts > 0) {
		pat = mcx_xcalloc((size_t)I(num_layers), sizeof *pat);
		m->act_why = mcinit_rules_model_moe_pattern(x, pat, I(num_layers));
		a.moe_pattern = pat;
	}
	if (m->act_why == NULL) {
		m->act_recompute = modes[a.rc];
		m->act_spec_range = read_spec(x, &a);
		m->act_spec = a.te ? "transformer_engine" : "local";
		/* the low end of either spec Transformer Engine may run counts
		 * its norms (norm()); the high end counts torch's */
		a.te_norms = a.te;
		m->act_te_norms = a.te;
		m->act_why = count(x, &a, m->act_spec_range != NULL);
		in_flight(x, &a);
	}
	m->act_ok = m->act_why == NULL;
	free(pat);
}
