/*
 * memory-params.c — mcinit's own memory model (issue 42), its first term:
 * the parameters each distinct kind of rank holds, exactly as Megatron-Core
 * allocates them (GPTModel with one model chunk per virtual stage, the
 * pre_process and post_process Megatron-LM's get_model gives each chunk),
 * split by kind and dense against expert.
 *
 * Megatron-LM's theoretical estimate (memory.c) counts only the most
 * loaded shard and approximates it: it leaves out the learned position
 * embeddings, the biases of the projections, the q/k layer norms, the MTP
 * layers' own norms and projection, and the tied output layer's copy on the
 * last stage, and divides the layers evenly over the stages.  Here every
 * tensor Megatron-Core builds is counted, per stage; tests/oracle/params-diff.py
 * builds Megatron-Core 0.19.2's own model on the CPU (TP, PP, EP > 1 through
 * gloo) and compares rank by rank.
 *
 * Every rank of a pipeline stage holds the same counts: TP splits each
 * matrix evenly (Megatron refuses sizes it cannot split, and so does this
 * count), EP gives every rank experts/EP experts.  So a kind of rank is a
 * pipeline stage, and stages with the same counts share a kind.
 *
 * Counted for Megatron-LM's flags, r0.19 and main, and for Megatron-Bridge
 * 0.6.2's ConfigContainers (which pin Megatron-Core 0.19.2), one reading of
 * the shape for both: where Bridge names a field differently
 * (gated_linear_unit, share_embeddings_and_output_weights), derives it
 * differently (the vocabulary padded only when it comes from the
 * tokenizer, derive.c; the learned position table of seq_length rows, the
 * provider's max_sequence_length) or builds differently (its
 * default_layer_spec is one layer's spec, so every layer of a MoE model is
 * a MoE layer), bridge_model and read_shape say so; tests/oracle/bridge/
 * params_diff.py builds the model from Bridge's own provider and compares.
 * A shape this file does not know (hybrid, latent MoE, heterogeneous
 * layers, a custom spec or a provider of its own: Gemma's, OLMoE's, a
 * vision model's, ...) is "not estimated" with the reason, never a guess.
 * The dtype is every parameter's: Megatron-LM (and Bridge's get_model)
 * wraps the model in Float16Module under bf16/fp16, which casts all of
 * them.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>

#include "config/mflags.h"
#include "input/pyexpr.h"

/* More layers than any model has (memory.c's bound too). */
#define MAX_LAYERS 100000
/* A size (hidden, heads, vocabulary, ...) larger than any model's. */
#define BIG (1LL << 40)

/* The shape, as Megatron-Core's modules read it. */
struct shape {
	long long h, heads, kv, groups, ffn, vocab, maxpos, layers, mtp;
	long long tp, pp, vp, ep, etp;
	long long experts, moe_ffn, shared;
	long long q_lora, kv_lora, qk_head, qk_pos, v_head;
	int norm;  /* parameters per normalised channel: 2 LayerNorm, 1 RMSNorm */
	int glu;   /* fc1's output multiple: 2 with SwiGLU */
	bool bias; /* add_bias_linear */
	bool qkv_bias, qk_ln, tied, learned_pos, gate, mla, has_q_lora, moe;
	bool has_mtp;           /* mtp_num_layers is set (even to 0) */
	const int *moe_pattern; /* layers entries, 0/1; NULL without MoE */
	/* with a layout: the MTP layers of each chunk (stage * vp + vstage) */
	const int *mtp_chunk;
};

/* Parameters by kind, dense or expert; ovf: a sum or product overflowed
 * (a shape no machine holds; the count is then refused). */
struct counts {
	long long k[MCINIT_PK_COUNT];
	long long expert;
	long long linear; /* the weights of Transformer Engine's linear layers */
	bool ovf;
};

static long long
mul(struct counts *c, long long a, long long b)
{
	long long r;

	if (__builtin_mul_overflow(a, b, &r)) {
		c->ovf = true;
		return 0;
	}
	return r;
}

static long long
sum(struct counts *c, long long a, long long b)
{
	long long r;

	if (__builtin_add_overflow(a, b, &r)) {
		c->ovf = true;
		return 0;
	}
	return r;
}

/* n parameters of kind k, or of MTP when the layer is an MTP layer's. */
static void
add(struct counts *c, int k, bool in_mtp, long long n)
{
	k = in_mtp ? MCINIT_PK_MTP : k;
	c->k[k] = sum(c, c->k[k], n);
}

/* add, for the weight of a linear layer: what fp8/fp4 training casts
 * (memory-peak.c's low-precision copies; biases and norms stay 16-bit). */
static void
add_w(struct counts *c, int k, bool in_mtp, long long n)
{
	add(c, k, in_mtp, n);
	c->linear = sum(c, c->linear, n);
}

static void
attention(const struct shape *s, struct counts *c, bool in_mtp)
{
	long long n, q = s->heads / s->tp;

	if (s->mla) {
		/* Transformer Engine's spec: the down-projections are duplicated
		 * on every TP rank (TELinear, parallel_mode "duplicated"), the
		 * up-projections column-parallel; only linear_proj has a bias */
		if (s->has_q_lora) {
			add_w(c, MCINIT_PK_ATTENTION, in_mtp, mul(c, s->q_lora, s->h));
			add_w(c, MCINIT_PK_ATTENTION, in_mtp,
			      mul(c, mul(c, q, s->qk_head + s->qk_pos), s->q_lora));
		} else
			add_w(c, MCINIT_PK_ATTENTION, in_mtp,
			      mul(c, mul(c, q, s->qk_head + s->qk_pos), s->h));
		add_w(c, MCINIT_PK_ATTENTION, in_mtp, mul(c, s->kv_lora + s->qk_pos, s->h));
		add_w(c, MCINIT_PK_ATTENTION, in_mtp,
		      mul(c, mul(c, q, s->qk_head + s->v_head), s->kv_lora));
		add_w(c, MCINIT_PK_ATTENTION, in_mtp, mul(c, s->h, mul(c, q, s->v_head)));
		add(c, MCINIT_PK_ATTENTION, in_mtp, s->bias ? s->h : 0);
		if (s->qk_ln)
			add(c, MCINIT_PK_NORMS, in_mtp,
			    s->norm * ((s->has_q_lora ? s->q_lora : 0) + s->kv_lora));
		return;
	}
	/* linear_qkv column-parallel, with a bias under add_bias_linear or
	 * add_qkv_bias; linear_proj row-parallel, its bias whole */
	n = mul(c, s->kv, q + 2 * (s->groups / s->tp));
	add_w(c, MCINIT_PK_ATTENTION, in_mtp, mul(c, n, s->h));
	add(c, MCINIT_PK_ATTENTION, in_mtp, s->bias || s->qkv_bias ? n : 0);
	add_w(c, MCINIT_PK_ATTENTION, in_mtp, mul(c, s->h, mul(c, s->kv, q)));
	add(c, MCINIT_PK_ATTENTION, in_mtp, s->bias ? s->h : 0);
	if (s->qk_ln)
		add(c, MCINIT_PK_NORMS, in_mtp, 2 * s->norm * s->kv);
}

/* An MLP of hidden size f split over t ranks: fc1 column-parallel (twice f
 * with SwiGLU), fc2 row-parallel with its bias whole; its weights (fc1's
 * and fc2's, without the biases) in *w. */
static long long
mlp(const struct shape *s, struct counts *c, long long f, long long t, long long *w)
{
	long long out = s->glu * (f / t), n = mul(c, out, s->h);

	*w = sum(c, n, mul(c, s->h, f / t));
	n = sum(c, n, s->bias ? out : 0);
	n = sum(c, n, mul(c, s->h, f / t));
	return sum(c, n, s->bias ? s->h : 0);
}

/* A decoder layer, or an MTP layer's inner layer (in_mtp). */
static void
layer(const struct shape *s, bool moe, struct counts *c, bool in_mtp)
{
	long long e, w;

	add(c, MCINIT_PK_NORMS, in_mtp, 2 * s->norm * s->h);
	attention(s, c, in_mtp);
	if (!moe) {
		add(c, MCINIT_PK_MLP, in_mtp, mlp(s, c, s->ffn, s->tp, &w));
		c->linear = sum(c, c->linear, w);
		return;
	}
	/* the router (replicated; a bias under add_bias_linear), the shared
	 * experts over TP with their gate, the routed experts over EP x ETP */
	add(c, MCINIT_PK_MLP, in_mtp, mul(c, s->experts, s->h));
	add(c, MCINIT_PK_MLP, in_mtp, s->bias ? s->experts : 0);
	if (s->shared > 0) {
		add(c, MCINIT_PK_MLP, in_mtp, mlp(s, c, s->shared, s->tp, &w));
		c->linear = sum(c, c->linear, w);
		add(c, MCINIT_PK_MLP, in_mtp, s->gate ? s->h : 0);
	}
	e = mul(c, s->experts / s->ep, mlp(s, c, s->moe_ffn, s->etp, &w));
	c->linear = sum(c, c->linear, mul(c, s->experts / s->ep, w));
	add(c, MCINIT_PK_EXPERTS, in_mtp, e);
	/* Megatron-Core marks them for the expert-data-parallel group
	 * (allreduce False, what DDP's buffers go by) only when EP > 1 or ETP
	 * differs from TP; else they are reduced with the dense ones */
	if (s->ep > 1 || s->etp != s->tp)
		c->expert = sum(c, c->expert, e);
}

static void
embedding(const struct shape *s, struct counts *c)
{
	add(c, MCINIT_PK_EMBEDDING, false, mul(c, s->vocab / s->tp, s->h));
	add(c, MCINIT_PK_EMBEDDING, false, s->learned_pos ? mul(c, s->maxpos, s->h) : 0);
}

/* Stage p's parameters: its chunks v = 0 .. vp-1, the decoder layers of
 * each from dv->layers, their global index in chunk order (virtual stage
 * major, as get_transformer_layer_offset counts).  false on overflow. */
static bool
stage(const struct shape *s, const struct mcinit_derived *dv, long long p,
      struct mcinit_rank_params *r)
{
	struct counts c;
	long long v, i, off, g, mtp;

	memset(&c, 0, sizeof c);
	for (v = 0; v < s->vp && !c.ovf; v++) {
		bool pre = p == 0 && v == 0, post = p == s->pp - 1 && v == s->vp - 1;

		off = 0;
		for (g = 0; g < v * s->pp + p; g++)
			off += dv->layers[(g % s->pp) * s->vp + g / s->pp];
		for (i = off; i < off + dv->layers[p * s->vp + v] && !c.ovf; i++)
			layer(s, s->moe_pattern != NULL && s->moe_pattern[i], &c, false);
		mtp = s->mtp_chunk != NULL ? s->mtp_chunk[p * s->vp + v] : post ? s->mtp : 0;
		/* the MTP stage keeps its own copy of the embedding */
		if (pre || mtp > 0)
			embedding(s, &c);
		for (i = 0; i < mtp && !c.ovf; i++) {
			/* enorm, hnorm, the final norm; eh_proj column-parallel
			 * (2h -> h, no bias); the layer as the decoder's last */
			add(&c, MCINIT_PK_MTP, true, 3 * s->norm * s->h);
			add_w(&c, MCINIT_PK_MTP, true, mul(&c, 2 * s->h, s->h / s->tp));
			layer(s, s->moe_pattern != NULL && s->moe_pattern[s->layers - 1], &c, true);
		}
		/* the final norm: with MTP on the chunk of the decoder's last layer
		 * (has_final_layernorm_in_this_stage), else on the last chunk */
		if (s->has_mtp ? off < s->layers && s->layers <= off + dv->layers[p * s->vp + v]
		               : post)
			add(&c, MCINIT_PK_NORMS, false, s->norm * s->h);
		if (post) {
			/* tied: the first chunk's embedding is the output layer; any
			 * other chunk allocates its own copy */
			if (!(pre && s->tied))
				add(&c, MCINIT_PK_OUTPUT, false, mul(&c, s->vocab / s->tp, s->h));
		}
	}
	memset(r, 0, sizeof *r);
	for (i = 0; i < MCINIT_PK_COUNT; i++) {
		r->by_kind[i] = c.k[i];
		r->total = sum(&c, r->total, c.k[i]);
	}
	r->expert = c.expert;
	r->dense = r->total - c.expert;
	r->linear = c.linear;
	return !c.ovf;
}

/* A size that TP (or another split) must divide, as Megatron asserts. */
static const char *
split(long long n, long long by, const char *why)
{
	return by > 0 && n % by == 0 ? NULL : why;
}

/* The first feature set that this count does not know, or NULL. */
static const char *
unknown_shape(struct mcinit_rule_ctx *x)
{
	static const struct {
		enum mcinit_field f;
		const char *why;
	} set[] = {
	    {F(hybrid_layer_pattern), "a hybrid (Mamba) model: its layers are not counted"},
	    {F(hybrid_override_pattern), "a hybrid (Mamba) model: its layers are not counted"},
	    {F(moe_latent_size), "latent MoE (moe_latent_size): its projections are not counted"},
	    {F(heterogeneous_layers_config_path),
	     "heterogeneous layers: each layer's shape is in a file"},
	    {F(spec), "a custom layer spec (--spec): its modules are not known"},
	    {F(experimental_attention_variant), "an experimental attention variant"},
	    {F(linear_attention_freq), "linear attention layers are not counted"},
	};
	static const struct {
		enum mcinit_field f;
		const char *why;
	} on[] = {
	    {F(use_legacy_models), "the legacy models (--use-legacy-models) are not counted"},
	    {F(attention_output_gate), "the attention output gate is not counted"},
	    {F(mtp_use_repeated_layer), "a repeated MTP layer is not counted"},
	    {F(qk_l2_norm), "qk_l2_norm replaces the q/k norms: not counted"},
	    {F(is_hybrid_model), "a hybrid (Mamba) model: its layers are not counted"},
	};
	size_t i;

	for (i = 0; i < sizeof set / sizeof set[0]; i++)
		if (!mcinit_cfg_null(x->c, set[i].f) && !x->c->invalid[set[i].f])
			return set[i].why;
	for (i = 0; i < sizeof on / sizeof on[0]; i++)
		if (!mcinit_cfg_null(x->c, on[i].f) && mcinit_cfg_bool(x->c, on[i].f))
			return on[i].why;
	/* the learnable softmax offset is a parameter per head of each core
	 * attention (gpt-oss's sinks): not verified against Megatron-Core */
	if (!mcinit_cfg_null(x->c, F(softmax_type)) && !x->c->invalid[F(softmax_type)] &&
	    strcmp(mcinit_cfg_str(x->c, F(softmax_type)), "learnable") == 0)
		return "a learnable softmax offset (softmax_type learnable) is not counted";
	return NULL;
}

/* A JSON object's string member, or NULL. */
static const char *
member(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

#define GPT_PROVIDER "megatron.bridge.models.gpt_provider.GPTModelProvider"
#define MLA_PROVIDER "megatron.bridge.models.mla_provider.MLAModelProvider"
#define DEFAULT_SPEC "megatron.bridge.models.gpt_provider.default_layer_spec"
#define BLOCK_SPEC   "megatron.core.models.gpt.gpt_layer_specs.get_gpt_decoder_block_spec"

/* Whether transformer_layer_spec is Megatron-Core's decoder block spec as
 * Bridge's MLA recipes write it, partial(get_gpt_decoder_block_spec,
 * use_transformer_engine=...): a spec per layer, MoE by moe_layer_freq. */
static bool
block_spec(json_t *j)
{
	void *it;

	if (!json_is_object(j) || member(j, "_target_") == NULL ||
	    strcmp(member(j, "_target_"), BLOCK_SPEC) != 0 ||
	    !json_is_true(json_object_get(j, "_partial_")))
		return false;
	/* no argument but the spec's choice of modules */
	for (it = json_object_iter(j); it != NULL; it = json_object_iter_next(j, it)) {
		const char *k = json_object_iter_key(it);
		json_t *v = json_object_iter_value(it);

		if (strcmp(k, "_target_") != 0 && strcmp(k, "_partial_") != 0 &&
		    !(strcmp(k, "_args_") == 0 && json_is_array(v) && json_array_size(v) == 0) &&
		    !(strcmp(k, "use_transformer_engine") == 0 && json_is_boolean(v)))
			return false;
	}
	return true;
}

/* Whether transformer_layer_spec is Bridge's default_layer_spec (the
 * provider's default when null): Transformer Engine's spec of one layer,
 * every decoder layer alike. */
static bool
default_spec(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(transformer_layer_spec));

	if (NUL(transformer_layer_spec))
		return true;
	if (v->kind == MCINIT_V_STR)
		return strcmp(v->s, DEFAULT_SPEC) == 0;
	return v->kind == MCINIT_V_JSON && json_is_object(v->j) &&
	       member(v->j, "_target_") != NULL &&
	       strcmp(member(v->j, "_target_"), DEFAULT_SPEC) == 0 &&
	       json_object_get(v->j, "_partial_") == NULL && json_object_size(v->j) <= 2;
}

/* A ConfigContainer's model: NULL when its provider and layer spec build
 * what this count knows, else why not.  Bridge's providers of their own
 * (Gemma's, OLMoE's, Qwen-VL's, the hybrid ones) build other modules, each
 * in its own way: not counted. */
static const char *
bridge_model(struct mcinit_rule_ctx *x)
{
	const char *ver = mcinit_bversion_name(x->c->bversion);
	const char *cls = member(json_object_get(x->c->extras, "model"), "_target_");
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(transformer_layer_spec));

	/* the releases as mcinit names them: "0.6" is 0.6.2 */
	if (strcmp(ver, "0.6") != 0)
		return "only Megatron-Bridge 0.6.2's ConfigContainers are counted (the count is "
		       "Megatron-Core 0.19.2's modules, which it pins)";
	if (cls != NULL && strcmp(cls, GPT_PROVIDER) != 0 && strcmp(cls, MLA_PROVIDER) != 0)
		return "a Megatron-Bridge model provider other than GPTModelProvider and "
		       "MLAModelProvider: its modules are not counted";
	if (x->c->invalid[F(transformer_layer_spec)] ||
	    !(default_spec(x) || (v->kind == MCINIT_V_JSON && block_spec(v->j))))
		return "a transformer_layer_spec other than Bridge's default_layer_spec and "
		       "Megatron-Core's get_gpt_decoder_block_spec: its modules are not known";
	if (B(use_transformer_engine_full_layer_spec))
		return "Transformer Engine's full layer spec "
		       "(use_transformer_engine_full_layer_spec) is not counted";
	return NULL;
}

bool
mcinit_rules_model_glu(struct mcinit_rule_ctx *x)
{
	return x->c->bridge ? B(gated_linear_unit) : B(swiglu);
}

bool
mcinit_rules_model_tied(struct mcinit_rule_ctx *x)
{
	return x->c->bridge ? B(share_embeddings_and_output_weights)
	                    : !B(untie_embeddings_and_output_weights);
}

/* No name is known in a layer pattern: Megatron evaluates a literal. */
static int
no_names(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out)
{
	(void)ctx, (void)e, (void)name, (void)out;
	return -1;
}

/* A pattern written as Megatron-LM's moe_freq_type reads a string with a
 * '[': a Python list expression, "([1]*3+[0])*2". */
static const char *
pattern_expr(const char *src, int *pat, long long layers)
{
	static const char bad[] = "moe_layer_freq's expression is not a list of one 0/1 per layer";
	char *err = NULL;
	struct mcinit_pyexpr *e = mcinit_pyexpr_parse(src, &err);
	struct mcinit_pv v;
	const char *why = NULL;
	long long i;

	if (e == NULL) {
		free(err);
		return "moe_layer_freq's expression does not parse";
	}
	v = mcinit_pyexpr_eval(e, no_names, NULL);
	if (v.kind != MCINIT_PV_LIST || (long long)v.n != layers)
		why = bad;
	for (i = 0; why == NULL && i < layers; i++) {
		if (v.items[i].kind != MCINIT_PV_INT || (v.items[i].i != 0 && v.items[i].i != 1))
			why = bad;
		else
			pat[i] = (int)v.items[i].i;
	}
	mcinit_pyexpr_free(e);
	return why;
}

const char *
mcinit_rules_moe_pattern(struct mcinit_rule_ctx *x, int *pat, long long layers)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(moe_layer_freq));
	long long i;

	if (v->kind == MCINIT_V_STR && strchr(v->s, '[') != NULL)
		return pattern_expr(v->s, pat, layers);
	if (v->kind == MCINIT_V_INT && v->i > 0) {
		for (i = 0; i < layers; i++)
			pat[i] = i % v->i == 0;
		return NULL;
	}
	if (v->kind != MCINIT_V_LIST || (long long)v->n != layers)
		return "moe_layer_freq is neither a positive int nor a list of one 0/1 per layer";
	for (i = 0; i < layers; i++) {
		if (v->items[i].kind != MCINIT_V_INT || (v->items[i].i != 0 && v->items[i].i != 1))
			return "moe_layer_freq is neither a positive int nor a list of one 0/1 per "
			       "layer";
		pat[i] = (int)v->items[i].i;
	}
	return NULL;
}

const char *
mcinit_rules_model_moe_pattern(struct mcinit_rule_ctx *x, int *pat, long long layers)
{
	long long i;

	if (!x->c->bridge || !default_spec(x))
		return mcinit_rules_moe_pattern(x, pat, layers);
	for (i = 0; i < layers; i++)
		pat[i] = 1;
	return NULL;
}

/* A nullable int: its value, 0 when null. */
static long long
opt(struct mcinit_rule_ctx *x, enum mcinit_field f)
{
	return mcinit_cfg_null(x->c, f) ? 0 : mcinit_cfg_int(x->c, f);
}

static bool
str_is(struct mcinit_rule_ctx *x, enum mcinit_field f, const char *want)
{
	const char *v = mcinit_cfg_null(x->c, f) ? NULL : mcinit_cfg_str(x->c, f);

	return v != NULL && strcmp(v, want) == 0;
}

/* MLA's sizes in a ConfigContainer: MLATransformerConfig's fields, which
 * the field table holds only as Megatron-LM's arguments, kept with the
 * model section's other keys (extras).  Each must be written (the dumps
 * write them all): NULL, or why not. */
static const char *
bridge_mla(struct mcinit_rule_ctx *x, struct shape *s)
{
	static const char *const key[] = {"q_lora_rank", "kv_lora_rank", "qk_head_dim",
	                                  "qk_pos_emb_head_dim", "v_head_dim"};
	long long *to[] = {&s->q_lora, &s->kv_lora, &s->qk_head, &s->qk_pos, &s->v_head};
	json_t *model = json_object_get(x->c->extras, "model"), *v;
	size_t i;

	for (i = 0; i < sizeof key / sizeof key[0]; i++) {
		v = json_object_get(model, key[i]);
		if (i == 0 && json_is_null(v)) {
			s->has_q_lora = false;
			s->q_lora = 0;
			continue;
		}
		if (!json_is_integer(v))
			return "MLA's sizes (q_lora_rank, kv_lora_rank, qk_head_dim, "
			       "qk_pos_emb_head_dim, v_head_dim) are not all written as integers";
		*to[i] = json_integer_value(v);
		if (i == 0)
			s->has_q_lora = true;
	}
	return NULL;
}

/* The shape from the config, or why there is none. */
static const char *
read_shape(struct mcinit_rule_ctx *x, struct shape *s)
{
	const struct mcinit_derived *dv = x->dv;
	const char *why;

	if (x->c->bridge && (why = bridge_model(x)) != NULL)
		return why;
	if (!x->c->bridge && x->c->mversion < MCINIT_MV_R019)
		return "Megatron-LM before r0.19 is not counted (the count is Megatron-Core "
		       "0.19's modules)";
	if ((why = unknown_shape(x)) != NULL)
		return why;
	/* derive.c's vocabulary of a ConfigContainer: the tokenizer's, known
	 * offline only for a NullTokenizer */
	if (x->c->bridge && !dv->vocab_ok)
		return "the vocabulary is not known before the tokenizer loads "
		       "(tokenizer.vocab_size of a NullTokenizer, or model.vocab_size "
		       "without use_tokenizer_vocab_size, makes it known)";
	if (!dv->layers_ok || !dv->vpp_ok || !dv->etp_ok || !dv->ffn_ok || !dv->kv_ok ||
	    !dv->vocab_ok || (!NUL(num_moe_experts) && I(num_moe_experts) > 0 && !dv->moe_ffn_ok))
		return "its inputs are not all known";
	memset(s, 0, sizeof *s);
	s->h = I(hidden_size);
	s->heads = I(num_attention_heads);
	s->kv = dv->kv_channels;
	s->groups = gqa_on(x->c) ? I(num_query_groups) : s->heads;
	s->ffn = dv->ffn_hidden_size;
	s->vocab = dv->padded_vocab_size;
	s->layers = I(num_layers);
	s->mtp = opt(x, F(mtp_num_layers));
	s->has_mtp = !NUL(mtp_num_layers);
	s->tp = I(tensor_model_parallel_size);
	s->pp = dv->pp;
	s->vp = dv->chunks_per_stage;
	s->ep = I(expert_model_parallel_size);
	s->etp = dv->etp;
	s->moe = !NUL(num_moe_experts) && I(num_moe_experts) > 0;
	s->experts = s->moe ? I(num_moe_experts) : 0;
	s->moe_ffn = s->moe ? dv->moe_ffn_hidden_size : 0;
	s->shared = s->moe ? opt(x, F(moe_shared_expert_intermediate_size)) : 0;
	s->gate = B(moe_shared_expert_gate);
	s->mla = B(multi_latent_attention);
	s->has_q_lora = !NUL(q_lora_rank);
	s->q_lora = opt(x, F(q_lora_rank));
	s->kv_lora = I(kv_lora_rank);
	s->qk_head = I(qk_head_dim);
	s->qk_pos = I(qk_pos_emb_head_dim);
	s->v_head = I(v_head_dim);
	if (x->c->bridge && s->mla && (why = bridge_mla(x, s)) != NULL)
		return why;
	s->norm = str_is(x, F(normalization), "RMSNorm") ? 1 : 2;
	s->glu = mcinit_rules_model_glu(x) ? 2 : 1;
	s->bias = B(add_bias_linear);
	s->qkv_bias = B(add_qkv_bias);
	s->qk_ln = B(qk_layernorm);
	s->tied = mcinit_rules_model_tied(x);
	if (!str_is(x, F(normalization), "RMSNorm") && !str_is(x, F(normalization), "LayerNorm"))
		return "a normalization other than LayerNorm and RMSNorm";
	/* validate_args: --use-rotary-position-embeddings means rope */
	if (B(use_rotary_position_embeddings) || str_is(x, F(position_embedding_type), "rope") ||
	    str_is(x, F(position_embedding_type), "yarn") ||
	    str_is(x, F(position_embedding_type), "mrope") ||
	    str_is(x, F(position_embedding_type), "none"))
		s->learned_pos = false;
	else if (str_is(x, F(position_embedding_type), "learned_absolute"))
		s->learned_pos = true;
	else
		return "a position embedding other than learned_absolute, rope, yarn, mrope, none";
	/* Bridge's provider builds the table with max_sequence_length =
	 * seq_length; Megatron-LM with --max-position-embeddings */
	if (x->c->bridge) {
		if (s->learned_pos && (NUL(seq_length) || BAD(seq_length)))
			return "learned position embeddings without seq_length";
		s->maxpos = s->learned_pos ? I(seq_length) : 0;
	} else {
		if (s->learned_pos && NUL(max_position_embeddings))
			return "learned position embeddings without max_position_embeddings";
		s->maxpos = s->learned_pos ? I(max_position_embeddings) : 0;
	}
	/* each size far above any model's, so that sums of two cannot overflow */
	if (s->h > BIG || s->heads > BIG || s->kv > BIG || s->groups > BIG || s->ffn > BIG ||
	    s->vocab > BIG || s->maxpos > BIG || s->experts > BIG || s->moe_ffn > BIG ||
	    s->shared > BIG || s->q_lora > BIG || s->kv_lora > BIG || s->qk_head > BIG ||
	    s->qk_pos > BIG || s->v_head > BIG)
		return "its inputs are out of range";
	if (s->h <= 0 || s->heads <= 0 || s->kv <= 0 || s->groups <= 0 || s->ffn < 0 ||
	    s->vocab <= 0 || s->layers <= 0 || s->layers > MAX_LAYERS || s->mtp < 0 ||
	    s->mtp > MAX_LAYERS || s->tp <= 0 || s->pp <= 0 || s->vp <= 0 || s->ep <= 0 ||
	    s->etp <= 0 || s->experts < 0 || s->moe_ffn < 0 || s->shared < 0 ||
	    (s->mla && (s->q_lora < 0 || s->kv_lora <= 0 || s->qk_head <= 0 || s->qk_pos < 0 ||
	                s->v_head <= 0)))
		return "its inputs are out of range";
	/* what Megatron-Core's modules refuse to build */
	if ((!NUL(num_layers_in_first_pipeline_stage) &&
	     I(num_layers_in_first_pipeline_stage) <= 0) ||
	    (!NUL(num_layers_in_last_pipeline_stage) && I(num_layers_in_last_pipeline_stage) <= 0))
		return "an uneven first or last pipeline stage without layers: Megatron-Core "
		       "refuses it";
	if (s->moe && s->shared > 0 && s->bias)
		return "biases in the shared experts: Megatron-Core refuses them";
	/* Transformer Engine's spec then fuses a norm of the hidden states into
	 * linear_q_proj (mla_qk_norm_config.py): not verified on the CPU */
	if (s->mla && s->qk_ln && !s->has_q_lora)
		return "MLA with qk_layernorm and no q_lora_rank: Transformer Engine's fused "
		       "norm in linear_q_proj is not counted";
	if (s->moe && s->bias && s->etp != 1)
		return "biases in MoE with ETP > 1: Megatron-Core refuses them";
	if ((why = split(s->heads, s->tp, "the attention heads are not divisible by TP")) ||
	    (why = split(s->mla ? s->tp : s->groups, s->tp,
	                 "the query groups are not divisible by TP")) ||
	    (why = split(s->ffn, s->tp, "ffn_hidden_size is not divisible by TP")) ||
	    (why = split(s->h, s->tp, "hidden_size is not divisible by TP")) ||
	    (why = split(s->vocab, s->tp, "the padded vocabulary is not divisible by TP")))
		return why;
	if (s->moe &&
	    ((why = split(s->experts, s->ep, "the experts are not divisible by EP")) ||
	     (why = split(s->moe_ffn, s->etp, "moe_ffn_hidden_size is not divisible by ETP")) ||
	     (why = split(s->shared, s->tp,
	                  "the shared experts' hidden size is not divisible by TP"))))
		return why;
	return NULL;
}

/* With a pipeline layout: the MTP layers ('m') of each chunk into m. */
static const char *
layout_mtp(struct mcinit_rule_ctx *x, const struct shape *s, int *m)
{
	struct mcx_buf flat = {0};
	const char *p;
	char *err = NULL;
	long long i = 0, total = 0;

	if (mcinit_layout_unroll(mcinit_cfg_str(x->c, F(pipeline_model_parallel_layout)), &flat,
	                         &err) < 0) {
		free(err);
		mcx_buf_free(&flat);
		return "the pipeline layout does not parse";
	}
	/* layout stage i is virtual stage i / PP of pipeline stage i % PP */
	for (p = mcx_buf_cstr(&flat); *p != '\0' && i < s->pp * s->vp; p++) {
		if (*p == '|')
			i++;
		else if (*p == 'm') {
			m[(i % s->pp) * s->vp + i / s->pp]++;
			total++;
		}
	}
	mcx_buf_free(&flat);
	return total == s->mtp ? NULL : "the pipeline layout's MTP layers are not mtp_num_layers";
}

/* Stages with equal counts and layers share a kind. */
static bool
same_kind(const struct mcinit_derived *dv, const struct mcinit_rank_params *a,
          const struct mcinit_rank_params *b, long long p)
{
	long long v;

	if (memcmp(a->by_kind, b->by_kind, sizeof a->by_kind) != 0 || a->expert != b->expert ||
	    a->linear != b->linear)
		return false;
	for (v = 0; v < dv->chunks_per_stage; v++)
		if (dv->layers[a->first_stage * dv->chunks_per_stage + v] !=
		    dv->layers[p * dv->chunks_per_stage + v])
			return false;
	return true;
}

static const char *
count_stages(struct mcinit_rule_ctx *x, const struct shape *s)
{
	struct mcinit_memory *m = &x->dv->mem;
	struct mcinit_rank_params r;
	long long p;
	size_t k;

	for (p = 0; p < s->pp; p++) {
		if (!stage(s, x->dv, p, &r))
			return "the counts overflow 64 bits";
		r.first_stage = p;
		for (k = 0; k < m->nkinds; k++)
			if (same_kind(x->dv, &m->kinds[k], &r, p))
				break;
		if (k == m->nkinds) {
			if (k == MCINIT_MAX_RANK_KINDS)
				return "more distinct kinds of rank than are kept (32)";
			m->kinds[k] = r;
			m->nkinds++;
		}
		m->kinds[k].nstages++;
		m->stage_kind[p] = (short)k;
	}
	return NULL;
}

void
mcinit_rules_memory_params(struct mcinit_rule_ctx *x)
{
	struct mcinit_memory *m = &x->dv->mem;
	struct shape s;
	int *pat = NULL, *mtp = NULL;

	if (x->o->memory_model != MCINIT_MEM_MCINIT)
		return;
	m->model = "mcinit";
	m->why = "mcinit's own model: the peak per rank is not estimated (see why beside it)";
	m->nkinds = 0;
	m->params_why = read_shape(x, &s);
	if (m->params_why == NULL && s.moe) {
		pat = mcx_xcalloc((size_t)s.layers, sizeof *pat);
		m->params_why = mcinit_rules_model_moe_pattern(x, pat, s.layers);
		s.moe_pattern = pat;
	}
	if (m->params_why == NULL && !NUL(pipeline_model_parallel_layout)) {
		mtp = mcx_xcalloc((size_t)(s.pp * s.vp), sizeof *mtp);
		m->params_why = layout_mtp(x, &s, mtp);
		s.mtp_chunk = mtp;
	}
	if (m->params_why == NULL)
		m->params_why = count_stages(x, &s);
	m->params_ok = m->params_why == NULL;
	m->params_dtype = B(bf16) ? "bf16" : B(fp16) ? "fp16" : "fp32";
	free(pat);
	free(mtp);
}
