/*
 * derive.c — the values Megatron derives from the config (rules.md D1-D12):
 * world size, data-parallel and expert sizes, the virtual pipeline, model
 * shape, batch sizes, layers per pipeline stage, the sequence-length multiple
 * and the seeds (their output: derived-out.c).  A value whose
 * inputs are invalid is left unset (its *_ok flag false), so the rules that
 * need it are skipped rather than cascading.
 */
#include "rules/rules-impl.h"

#include "config/mflags.h"
#include "topo/topology.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- D12: world size ---- */

static int
env_int(const struct mcinit_check_opts *o, const char *name, long long *out, struct mcinit_diags *d)
{
	const char *s = mcinit_rules_env_get(o, name);
	char *end;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*end != '\0' || errno != 0 || *out < 1) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC005", &mcinit_rules_env_loc,
		                "%s='%s' is not a positive integer", name, s);
		return -1;
	}
	return 1;
}

static void
derive_world(struct mcinit_config *c, const struct mcinit_check_opts *o, struct mcinit_derived *dv,
             struct mcinit_diags *d)
{
	static const char *const envs[] = {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"};
	long long nn = o->nnodes, np = o->nproc_per_node, v;
	size_t i;

	dv->world_ok = true;
	if (o->world_size > 0) {
		dv->world_size = o->world_size;
		dv->world_size_source =
		    o->world_size_source ? o->world_size_source : "--world-size";
		goto check;
	}
	if (c->invalid[MCINIT_F_world_size]) {
		dv->world_ok = false;
		return;
	}
	if (!mcinit_cfg_null(c, MCINIT_F_world_size)) {
		dv->world_size = mcinit_cfg_int(c, MCINIT_F_world_size);
		dv->world_size_source = "launch.world_size";
		dv->world_size_loc = c->loc[MCINIT_F_world_size];
		/* written by a launch script's launcher: say how */
		if (c->launch_source != NULL &&
		    c->origin[MCINIT_F_world_size] == MCINIT_ORIG_FILE &&
		    c->loc[MCINIT_F_world_size].source == c->launch_source_loc.source &&
		    c->loc[MCINIT_F_world_size].line == c->launch_source_loc.line &&
		    c->loc[MCINIT_F_world_size].col == c->launch_source_loc.col) {
			dv->world_size_source = c->launch_source;
			/* from a Slurm variable's default: the run's is not known
			 * (the launch note says so), so nothing is judged by it */
			if (c->launch_assumed)
				dv->world_ok = false;
		}
		return;
	}
	for (i = 0; i < sizeof envs / sizeof envs[0]; i++) {
		int r = env_int(o, envs[i], &v, d);

		if (r < 0) {
			dv->world_ok = false;
			return;
		}
		if (r > 0) {
			dv->world_size = v;
			dv->world_size_source = envs[i];
			dv->world_size_loc = mcinit_rules_env_loc;
			goto check;
		}
	}
	if (nn == 0 && !c->invalid[MCINIT_F_nnodes] && !mcinit_cfg_null(c, MCINIT_F_nnodes))
		nn = mcinit_cfg_int(c, MCINIT_F_nnodes);
	if (np == 0 && !c->invalid[MCINIT_F_nproc_per_node] &&
	    !mcinit_cfg_null(c, MCINIT_F_nproc_per_node))
		np = mcinit_cfg_int(c, MCINIT_F_nproc_per_node);
	if (nn > 0 && np > 0) {
		if (__builtin_mul_overflow(nn, np, &dv->world_size))
			dv->world_size = LLONG_MAX;
		dv->world_size_source = "nnodes x nproc_per_node";
		goto check;
	}
	dv->world_size = 1;
	dv->world_size_source = "default";
	mcinit_diag_add(d, MCINIT_NOTE, "MC112", NULL,
	                "world size not given: assuming 1 (use --world-size N, WORLD_SIZE, or "
	                "--nnodes and --nproc-per-node)");
	return;
check:
	/* The same bound as launch.world_size (its HI in src/schema.def). */
	if (dv->world_size >= (1LL << 31)) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC005",
		                dv->world_size_loc.source ? &dv->world_size_loc : NULL,
		                "world size %lld (from %s) is beyond what mcinit supports (2^31)",
		                dv->world_size, dv->world_size_source);
		dv->world_ok = false;
	}
}

/* ---- D1, D3 ---- */

/* Megatron's resolve_tensor_parallel_weight_shards: shards / tp when the
 * shards are set and a multiple of tp (MC061 reports the others), else 1. */
static long long
weight_remat(struct mcinit_rule_ctx *x, enum mcinit_field shards, long long tp)
{
	long long n;

	if (!(mcinit_topo_features(mcinit_mversion_name(x->c->mversion)) & MCINIT_TOPO_F_GTP) ||
	    mcinit_cfg_null(x->c, shards) || x->c->invalid[shards] || tp < 1)
		return 1;
	n = mcinit_cfg_int(x->c, shards);
	return n >= tp && n % tp == 0 ? n / tp : 1;
}

static void
derive_parallel(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long mp, emp;

	dv->gtp = dv->egtp = 1;
	if (!dv->world_ok || INVALID(x->c, F(tensor_model_parallel_size),
	                             F(pipeline_model_parallel_size), F(context_parallel_size)))
		return;
	dv->gtp =
	    weight_remat(x, F(tensor_parallel_num_weight_shards), I(tensor_model_parallel_size));
	mp = I(tensor_model_parallel_size) * I(pipeline_model_parallel_size) *
	     I(context_parallel_size) * dv->gtp;
	if (dv->world_size % mp == 0) {
		dv->dp = dv->world_size / mp;
		dv->dp_ok = true;
	}
	if (INVALID(x->c, F(expert_model_parallel_size), F(expert_tensor_parallel_size)) ||
	    NUL(expert_tensor_parallel_size))
		return;
	dv->etp = I(expert_tensor_parallel_size);
	dv->etp_ok = true;
	dv->egtp = weight_remat(x, F(expert_tensor_parallel_num_weight_shards), dv->etp);
	emp = dv->etp * I(expert_model_parallel_size) * I(pipeline_model_parallel_size) * dv->egtp;
	if (dv->world_size % emp == 0) {
		dv->edp = dv->world_size / emp;
		dv->edp_ok = true;
	}
}

/* ---- D2: virtual pipeline size ---- */

/* VPP from the Megatron-LM inputs, before comparing with a VPP written
 * directly (Megatron-Bridge style).  -1: cannot be derived. */
long long
mcinit_rules_vpp_from_inputs(struct mcinit_rule_ctx *x, const char **src)
{
	long long pp = I(pipeline_model_parallel_size);

	*src = NULL;
	if (!NUL(pipeline_model_parallel_layout)) {
		long n = mcinit_layout_parse(
		    mcinit_cfg_str(x->c, F(pipeline_model_parallel_layout)), NULL, 0, NULL);

		*src = "pipeline_model_parallel_layout";
		return n > 0 && n % pp == 0 ? n / pp : -1;
	}
	if (x->c->mversion >= MCINIT_MV_R017 &&
	    (!NUL(hybrid_override_pattern) || !NUL(hybrid_layer_pattern))) {
		/* validate_args: one virtual stage per '|'-separated segment beyond PP */
		const char *p =
		    mcinit_cfg_str(x->c, !NUL(hybrid_override_pattern) ? F(hybrid_override_pattern)
		                                                       : F(hybrid_layer_pattern));
		long long seg = 1;

		for (; p && *p && *p != '/'; p++)
			seg += *p == '|';
		*src = "hybrid_layer_pattern";
		if (seg == 1 && pp > 1)
			return 0;
		if (seg % pp != 0)
			return -1;
		return seg > pp ? seg / pp : 0;
	}
	if (!NUL(num_virtual_stages_per_pipeline_rank)) {
		*src = "num_virtual_stages_per_pipeline_rank";
		return I(num_virtual_stages_per_pipeline_rank);
	}
	if (!NUL(num_layers_per_virtual_pipeline_stage)) {
		long long l = split_layers(x), per, n = I(num_layers_per_virtual_pipeline_stage);

		*src = "num_layers_per_virtual_pipeline_stage";
		if (l % pp != 0)
			return -1;
		per = l / pp;
		return per % n == 0 ? per / n : -1;
	}
	return 0;
}

static void
derive_vpp(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long v;
	const char *src;

	if (INVALID(
	        x->c, F(pipeline_model_parallel_size), F(num_layers),
	        F(account_for_embedding_in_pipeline_split), F(account_for_loss_in_pipeline_split),
	        F(pipeline_model_parallel_layout), F(num_layers_per_virtual_pipeline_stage),
	        F(num_virtual_stages_per_pipeline_rank), F(virtual_pipeline_model_parallel_size)) ||
	    vpp_sources(x) > 1)
		return;
	v = mcinit_rules_vpp_from_inputs(x, &src);
	if (v < 0)
		return;
	if (!NUL(virtual_pipeline_model_parallel_size)) {
		long long direct = I(virtual_pipeline_model_parallel_size);

		if (src != NULL && direct != (v > 1 ? v : 1))
			return; /* MC023 */
		v = direct;
		if (src == NULL)
			src = "virtual_pipeline_model_parallel_size";
	}
	dv->vpp = v > 1 ? v : 0;
	dv->vpp_source = dv->vpp ? src : NULL;
	dv->vpp_ok = true;
}

void
mcinit_rules_derive_sizes(struct mcinit_rule_ctx *x)
{
	derive_world(x->c, x->o, x->dv, x->d);
	derive_parallel(x);
	derive_vpp(x);
}

/* ---- D4, D5 ---- */

long long
mcinit_default_ffn_hidden_size(long long hidden, bool swiglu)
{
	/* int((4*h*2/3)/64)*64 in exact integers: 8h/3/64 = h/24. */
	return swiglu ? hidden / 24 * 64 : 4 * hidden;
}

long long
mcinit_padded_vocab_size(long long vocab, long long divisible_by, long long tp)
{
	long long m = divisible_by * tp;

	return (vocab + m - 1) / m * m;
}

/* The vocabulary as Megatron-Bridge's setup makes it
 * (training/setup.py _validate_and_set_vocab_size, then the model
 * provider's provide()): the tokenizer's, padded, when
 * tokenizer.use_tokenizer_vocab_size is set (the pretrain recipes set it)
 * or model.vocab_size is not; else model.vocab_size as it is, unpadded.
 * The tokenizer's vocabulary is known without loading it only for
 * NullTokenizer (tokenizer.vocab_size); a model vocabulary below it is
 * refused by setup, and derives nothing. */
static void
derive_bridge_vocab(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long tok = -1;

	if (INVALID(x->c, F(vocab_size), F(make_vocab_size_divisible_by),
	            F(tensor_model_parallel_size), F(tokenizer_vocab_size), F(tokenizer_type),
	            F(use_tokenizer_vocab_size)))
		return;
	if (!NUL(tokenizer_type) &&
	    strcmp(mcinit_cfg_str(x->c, F(tokenizer_type)), "NullTokenizer") == 0 &&
	    !NUL(tokenizer_vocab_size))
		tok = I(tokenizer_vocab_size);
	if (B(use_tokenizer_vocab_size) || NUL(vocab_size)) {
		if (tok < 0)
			return;
		dv->vocab_size = tok;
		dv->vocab_from_tokenizer = true;
		dv->padded_vocab_size = mcinit_padded_vocab_size(
		    tok, I(make_vocab_size_divisible_by), I(tensor_model_parallel_size));
	} else {
		if (tok >= 0 && I(vocab_size) < tok)
			return;
		dv->vocab_size = dv->padded_vocab_size = I(vocab_size);
	}
	dv->vocab_ok = true;
}

static void
derive_shape(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;

	if (!INVALID(x->c, F(ffn_hidden_size), F(hidden_size), F(swiglu))) {
		dv->ffn_hidden_size =
		    NUL(ffn_hidden_size) ? mcinit_default_ffn_hidden_size(I(hidden_size), B(swiglu))
		                         : I(ffn_hidden_size);
		dv->ffn_ok = true;
	}
	if (dv->ffn_ok && !INVALID(x->c, F(moe_ffn_hidden_size), F(num_moe_experts)) &&
	    !NUL(num_moe_experts)) {
		dv->moe_ffn_hidden_size =
		    NUL(moe_ffn_hidden_size) ? dv->ffn_hidden_size : I(moe_ffn_hidden_size);
		dv->moe_ffn_ok = true;
	}
	if (!INVALID(x->c, F(kv_channels), F(hidden_size), F(num_attention_heads))) {
		if (!NUL(kv_channels)) {
			dv->kv_channels = I(kv_channels);
			dv->kv_ok = true;
		} else if (I(hidden_size) % I(num_attention_heads) == 0 || x->c->bridge) {
			/* Megatron-Core's TransformerConfig (a Bridge config's model)
			 * takes hidden_size // heads; validate_args refuses the rest */
			dv->kv_channels = I(hidden_size) / I(num_attention_heads);
			dv->kv_ok = true;
		}
	}
	/* A partial ConfigContainer without its tokenizer section (which Bridge
	 * requires) pads as Megatron-LM does. */
	if (x->c->bridge && json_object_get(x->c->sections, "tokenizer") != NULL) {
		derive_bridge_vocab(x);
	} else if (!INVALID(x->c, F(vocab_size), F(make_vocab_size_divisible_by),
	                    F(tensor_model_parallel_size)) &&
	           !NUL(vocab_size)) {
		dv->vocab_size = I(vocab_size);
		dv->padded_vocab_size = mcinit_padded_vocab_size(
		    I(vocab_size), I(make_vocab_size_divisible_by), I(tensor_model_parallel_size));
		dv->vocab_ok = true;
	}
	if (!BAD(sequence_parallel)) {
		dv->sequence_parallel = B(sequence_parallel);
		dv->sp_ok = true;
	}
}

/* ---- D6, D7, D11 ---- */

/* Megatron's RampupBatchsizeNumMicroBatchesCalculator: the global batch size
 * after `consumed` samples. */
static long long
rampup_gbs(long long consumed, long long start, long long inc, long long samples, long long gbs)
{
	double per_inc = (double)samples / (double)((gbs - start) / inc);

	if (consumed > samples)
		return gbs;
	return start + (long long)((double)consumed / per_inc) * inc;
}

/* Megatron-LM's update_train_iters for sample-based training. */
static bool
train_iters_from_samples(struct mcinit_rule_ctx *x, long long samples, long long *iters)
{
	const struct mcinit_value *r = mcinit_cfg_val(x->c, F(rampup_batch_size));
	long long gbs = x->dv->gbs, start, inc, rs, consumed = 0, it = 0;

	/* Bridge's TrainingConfig.finalize: train_samples // global_batch_size
	 * (it refuses a ramp-up beside train_samples) */
	if (r->kind != MCINIT_V_LIST || x->c->bridge) {
		*iters = samples / gbs;
		return true;
	}
	start = r->items[0].i;
	inc = r->items[1].i;
	rs = r->items[2].i;
	if (start <= 0 || inc <= 0 || rs < 0 || gbs - start <= 0 || (gbs - start) % inc != 0)
		return false; /* MC041 */
	while (consumed <= rs && consumed <= samples) {
		consumed += rampup_gbs(consumed, start, inc, rs, gbs);
		if (++it > 100000000)
			return false;
	}
	if (samples > consumed)
		it += (samples - consumed) / gbs;
	*iters = it;
	return true;
}

/* StepBatchsizeNumMicroBatchesCalculator._parse_numeric_value: a number
 * with an optional K/M/B/T suffix, int(float(text) * multiplier). */
static int
schedule_number(const char *s, size_t n, long long *out)
{
	char buf[64], *end;
	double v, mult = 1;

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	switch (buf[n - 1]) {
	case 'T':
	case 't':
		mult = 1e12;
		buf[--n] = '\0';
		break;
	case 'B':
	case 'b':
		mult = 1e9;
		buf[--n] = '\0';
		break;
	case 'M':
	case 'm':
		mult = 1e6;
		buf[--n] = '\0';
		break;
	case 'K':
	case 'k':
		mult = 1e3;
		buf[--n] = '\0';
		break;
	}
	errno = 0;
	v = strtod(buf, &end);
	if (n == 0 || *end != '\0' || v != v || v * mult > 9e18 || v * mult < -9e18)
		return -1;
	*out = (long long)(v * mult);
	return 0;
}

int
mcinit_rules_schedule(struct mcinit_rule_ctx *x, long long *thr, long long *bs, int max, char **why)
{
	const char *p = mcinit_cfg_str(x->c, F(step_batch_size_schedule));
	long long seq = NUL(seq_length) || BAD(seq_length) ? 0 : I(seq_length);
	int n = 0, i, j;

	*why = NULL;
	while (*p) {
		const char *e, *colon;

		while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		for (e = p; *e && *e != ' ' && *e != '\t' && *e != ',' && *e != '\n'; e++)
			;
		colon = memchr(p, ':', (size_t)(e - p));
		if (colon == NULL) {
			*why = mcx_xasprintf("Invalid schedule entry \"%.*s\". Expected format: "
			                     "\"THRESHOLD:BATCH_SIZE\"",
			                     (int)(e - p), p);
			return -1;
		}
		if (n == max) {
			*why = mcx_xasprintf("more than %d schedule entries", max);
			return -1;
		}
		if (schedule_number(p, (size_t)(colon - p), &thr[n]) < 0 ||
		    schedule_number(colon + 1, (size_t)(e - colon - 1), &bs[n]) < 0) {
			*why = mcx_xasprintf("schedule entry \"%.*s\" is not a number (Megatron's "
			                     "float() raises ValueError)",
			                     (int)(e - p), p);
			return -1;
		}
		if (seq > 0) /* thresholds are tokens when seq_length is known */
			thr[n] = thr[n] >= 0 ? thr[n] / seq : -((-thr[n] + seq - 1) / seq);
		n++;
		p = e;
	}
	/* sort by threshold, stable (Python's list.sort) */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && thr[j - 1] > thr[j]; j--) {
			long long t = thr[j];

			thr[j] = thr[j - 1];
			thr[j - 1] = t;
			t = bs[j];
			bs[j] = bs[j - 1];
			bs[j - 1] = t;
		}
	return n;
}

/* The number of micro-batches the calculator starts with when the batch
 * size changes during training: the first entry of a step schedule
 * (core_r0.18 on), the ramp-up's start batch size (before core_r0.18; from
 * core_r0.18 on --rampup-batch-size is ignored).  false: constant GBS. */
static bool
start_batch(struct mcinit_rule_ctx *x, long long step, long long *nmb)
{
	/* A ConfigContainer: Bridge calls init_num_microbatches_calculator with
	 * the ramp-up (which core 0.18 on ignores) and no step schedule, so the
	 * calculator is the constant one. */
	if (x->c->bridge)
		return false;
	if (x->c->mversion >= MCINIT_MV_R018) {
		long long thr[64], bs[64];
		char *why;
		int n;

		if (BAD(step_batch_size_schedule) || NUL(step_batch_size_schedule))
			return false;
		n = mcinit_rules_schedule(x, thr, bs, 64, &why);
		free(why);
		if (n <= 0 || bs[0] <= 0)
			return false;
		*nmb = bs[0] / step;
		return *nmb >= 1;
	}
	if (!BAD(rampup_batch_size) && !NUL(rampup_batch_size)) {
		const struct mcinit_value *r = mcinit_cfg_val(x->c, F(rampup_batch_size));
		long long s0;

		if (r->kind != MCINIT_V_LIST || r->n != 3 || r->items[0].kind != MCINIT_V_INT)
			return false;
		s0 = r->items[0].i;
		if (B(decrease_batch_size_if_needed))
			s0 = s0 / step * step;
		*nmb = s0 / step;
		return *nmb >= 1;
	}
	return false;
}

static void
derive_batch(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long step;

	if (!dv->dp_ok || INVALID(x->c, F(micro_batch_size), F(global_batch_size),
	                          F(decrease_batch_size_if_needed)))
		return;
	/* validate_args defaults GBS to MBS x DP (the replicate degree); the
	 * calculator divides by MBS x DP x gtp */
	step = I(micro_batch_size) * dv->dp * dv->gtp;
	dv->gbs = NUL(global_batch_size) ? I(micro_batch_size) * dv->dp : I(global_batch_size);
	dv->running_gbs = B(decrease_batch_size_if_needed) ? dv->gbs / step * step : dv->gbs;
	dv->gbs_ok = true;
	if (start_batch(x, step, &dv->num_micro_batches)) {
		dv->nmb_ok = true;
	} else if (dv->running_gbs % step == 0 && dv->running_gbs >= step) {
		dv->num_micro_batches = dv->running_gbs / step;
		dv->nmb_ok = true;
	}
	if (B(decrease_batch_size_if_needed) && dv->running_gbs != dv->gbs && dv->running_gbs > 0)
		mcinit_rules_note(
		    x, "MC109", MCINIT_NOTE, F(global_batch_size),
		    "global batch size %lld is not divisible by MBS x DP = %lld x %lld = %lld: "
		    "decrease_batch_size_if_needed runs with %lld (%lld samples of each batch "
		    "skipped)",
		    dv->gbs, I(micro_batch_size), dv->dp, step, dv->running_gbs,
		    dv->gbs - dv->running_gbs);
	if (INVALID(x->c, F(train_iters), F(train_samples), F(rampup_batch_size)))
		return;
	if (!NUL(train_iters)) {
		dv->train_iters = I(train_iters);
		dv->train_iters_ok = true;
	} else if (!NUL(train_samples)) {
		dv->train_iters_ok =
		    train_iters_from_samples(x, I(train_samples), &dv->train_iters);
	}
}

/* ---- D8: layers per stage ---- */

static void
set_chunk(struct mcinit_derived *dv, long long pp, long long v, long long n)
{
	dv->layers[pp * dv->chunks_per_stage + v] = (int)n;
}

/* Megatron-Core's get_num_layers_to_build for every (stage, virtual stage). */
static bool
layers_even_or_uneven(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long pp = dv->pp, vp = dv->chunks_per_stage, p, v, mid_layers, mid_stages, per;
	bool first = !NUL(num_layers_in_first_pipeline_stage),
	     last = !NUL(num_layers_in_last_pipeline_stage);

	if (first || last) {
		mid_layers = I(num_layers) - (first ? I(num_layers_in_first_pipeline_stage) : 0) -
		             (last ? I(num_layers_in_last_pipeline_stage) : 0);
		mid_stages = pp - first - last;
		if (mid_stages < 0 || mid_layers < 0 || (mid_stages > 0 && mid_layers % mid_stages))
			return false;
		per = mid_stages > 0 ? mid_layers / mid_stages : 0;
	} else {
		if (split_layers(x) % pp != 0)
			return false;
		per = split_layers(x) / pp;
	}
	for (p = 0; p < pp; p++) {
		long long n = per;

		if (p == 0 && first)
			n = I(num_layers_in_first_pipeline_stage);
		if (p == pp - 1 && last)
			n = I(num_layers_in_last_pipeline_stage);
		if (n % vp != 0)
			return false;
		for (v = 0; v < vp; v++)
			set_chunk(dv, p, v, n / vp);
	}
	/* The embedding and the loss count as a layer in the split but are
	 * not transformer layers. */
	if (!first && !last && B(account_for_embedding_in_pipeline_split))
		dv->layers[0]--;
	if (!first && !last && B(account_for_loss_in_pipeline_split))
		dv->layers[pp * vp - 1]--;
	return true;
}

static bool
layers_from_layout(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long pp = dv->pp, vp = dv->chunks_per_stage, p, v;
	int t[MCINIT_MAX_CHUNKS];
	long n = mcinit_layout_parse(mcinit_cfg_str(x->c, F(pipeline_model_parallel_layout)), t,
	                             MCINIT_MAX_CHUNKS, NULL);

	if (n != pp * vp)
		return false;
	/* Layout stage i is virtual stage i / PP of pipeline stage i % PP. */
	for (v = 0; v < vp; v++)
		for (p = 0; p < pp; p++)
			set_chunk(dv, p, v, t[v * pp + p]);
	return true;
}

static void
derive_layers(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long i, sum = 0, n;
	bool ok;

	if (!dv->vpp_ok || INVALID(x->c, F(num_layers_in_first_pipeline_stage),
	                           F(num_layers_in_last_pipeline_stage)))
		return;
	dv->pp = I(pipeline_model_parallel_size);
	dv->chunks_per_stage = dv->vpp ? dv->vpp : 1;
	if (dv->pp > MCINIT_MAX_CHUNKS / dv->chunks_per_stage)
		return;
	n = dv->pp * dv->chunks_per_stage;
	if (!NUL(pipeline_model_parallel_layout))
		ok = layers_from_layout(x);
	else
		ok = layers_even_or_uneven(x);
	for (i = 0; ok && i < n; i++) {
		ok = dv->layers[i] >= 0;
		sum += dv->layers[i];
	}
	/* Anything else means layers would be lost: a rule reports it. */
	dv->layers_ok = ok && sum == I(num_layers);
}

/* ---- D9, D10 ---- */

static void
derive_seq_and_seeds(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;

	if (dv->sp_ok && !INVALID(x->c, F(context_parallel_size), F(tensor_model_parallel_size))) {
		long long cp = I(context_parallel_size), tp = I(tensor_model_parallel_size);

		dv->seq_multiple =
		    lcm(cp > 1 ? 2 * cp : 1, dv->sequence_parallel && tp > 1 ? cp * tp : 1);
		dv->seq_multiple_ok = true;
	}
	if (dv->dp_ok && !INVALID(x->c, F(seed), F(data_parallel_random_init))) {
		dv->seed = I(seed);
		dv->seed_model_parallel = dv->seed + 2718;
		dv->seed_expert_parallel = dv->seed + 1024;
		dv->seed_max = dv->seed + 100 * (I(pipeline_model_parallel_size) - 1) +
		               (B(data_parallel_random_init) ? 10 * (dv->dp - 1) : 0);
		dv->seeds_ok = true;
	}
}

void
mcinit_rules_derive_rest(struct mcinit_rule_ctx *x)
{
	derive_shape(x);
	derive_batch(x);
	if (!INVALID(x->c, F(num_layers), F(pipeline_model_parallel_size),
	             F(account_for_embedding_in_pipeline_split),
	             F(account_for_loss_in_pipeline_split)))
		derive_layers(x);
	derive_seq_and_seeds(x);
}
