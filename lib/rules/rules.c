/*
 * rules.c — the cross-field rules of rules.md, one function per rule, listed
 * in one table, and mcinit_check, which runs the repairs (repairs.c), the
 * derived values (derive.c) and then the table.  See rules.h for the order of
 * work and the conventions, rules-impl.h for how the files share the work.
 *
 * Every rule reproduces a check that Megatron-LM, Megatron-Core or
 * Megatron-Bridge makes somewhere between argument parsing and the first
 * training step (validate_args, the micro-batch calculator, the config
 * dataclasses' __post_init__, initialize_model_parallel, the RNG setup), or a
 * silent failure they do not check.  Messages carry the values involved and
 * hints compute a fix where one can be computed.
 */
#include "rules/rules-impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

/* ---- findings ---- */

/* The current rule's finding, with the rule's severity. */
static struct mcinit_diag *report(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt,
                                  ...) __attribute__((format(printf, 3, 4)));
static struct mcinit_diag *
report(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vreport(x, x->rule->sev, x->rule->code, at, fmt, ap);
	va_end(ap);
	return g;
}

/* The current rule's finding with another severity (a rule that is a
 * warning in one case and an error in another). */
static struct mcinit_diag *report_sev(struct mcinit_rule_ctx *x, enum mcinit_severity sev,
                                      enum mcinit_field at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static struct mcinit_diag *
report_sev(struct mcinit_rule_ctx *x, enum mcinit_severity sev, enum mcinit_field at,
           const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vreport(x, sev, x->rule->code, at, fmt, ap);
	va_end(ap);
	return g;
}

/* A finding of a check that only Megatron-LM's validate_args makes (its
 * rows in the ledger are all megatron/training/arguments.py): an error for
 * Megatron-LM's flags; for a Megatron-Bridge ConfigContainer a warning that
 * says so, since Bridge's own validation accepts it (judged by Bridge 0.6.2
 * on its recipes: tests/bridge/0.6.2/mutations.tsv, lm_* rows). */
static struct mcinit_diag *report_lm(struct mcinit_rule_ctx *x, enum mcinit_field at,
                                     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static struct mcinit_diag *
report_lm(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!x->c->bridge)
		return report(x, at, "%s", msg);
	return report_sev(x, MCINIT_WARNING, at,
	                  "%s (Megatron-LM's validate_args refuses this; Megatron-Bridge does "
	                  "not check it)",
	                  msg);
}

/* A finding at an explicit place (NULL: none) rather than at a field. */
static struct mcinit_diag *report_loc(struct mcinit_rule_ctx *x, const struct mcinit_loc *loc,
                                      const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static struct mcinit_diag *
report_loc(struct mcinit_rule_ctx *x, const struct mcinit_loc *loc, const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vemit(x, x->rule->sev, x->rule->code, loc && loc->source ? loc : NULL,
	                       NULL, "", fmt, ap);
	va_end(ap);
	return g;
}

/* The field the user most plausibly has to edit: the first of `cands` that
 * was written somewhere, else the first. */
static enum mcinit_field
written_in(struct mcinit_rule_ctx *x, const enum mcinit_field *cands, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (user_wrote(x->c, cands[i]))
			return cands[i];
	return cands[0];
}
#define written(x, ...)                                                                            \
	written_in(x, (const enum mcinit_field[]){__VA_ARGS__},                                    \
	           sizeof((const enum mcinit_field[]){__VA_ARGS__}) / sizeof(enum mcinit_field))

/*
 * The valid values next to `near` among v = k*step - off (k >= 1): "96 or
 * 112", or just the upper one when the lower is not positive.  `near` itself
 * must not be valid.
 */
static const char *
near_values(struct mcinit_buf *b, long long near, long long step, long long off)
{
	long long base = near + off, lo = base / step * step - off, hi = lo + step;

	b->len = 0;
	if (lo > 0)
		mcinit_buf_printf(b, "%lld or %lld", lo, hi);
	else
		mcinit_buf_printf(b, "%lld", hi);
	return mcinit_buf_cstr(b);
}

/* The divisors of n next to `near` (excluding near) that also divide `fit`
 * when fit > 0: "4 or 8". */
static const char *
near_divisors_fit(struct mcinit_buf *b, long long n, long long near, long long fit)
{
	long long lo = 0, hi = 0, k;

	b->len = 0;
	for (k = near - 1; k >= 1; k--)
		if (n % k == 0 && (fit <= 0 || fit % k == 0)) {
			lo = k;
			break;
		}
	for (k = near + 1; k <= n; k++)
		if (n % k == 0 && (fit <= 0 || fit % k == 0)) {
			hi = k;
			break;
		}
	if (lo > 0 && hi > 0)
		mcinit_buf_printf(b, "%lld or %lld", lo, hi);
	else
		mcinit_buf_printf(b, "%lld", lo > 0 ? lo : hi > 0 ? hi : 1);
	return mcinit_buf_cstr(b);
}

static const char *
near_divisors(struct mcinit_buf *b, long long n, long long near)
{
	return near_divisors_fit(b, n, near, 0);
}

/* ---- environment ---- */

/*
 * An environment variable as the job will see it: the process environment
 * wins over env_vars (which `run` applies with setdefault semantics, as
 * Megatron-Bridge does).  env_vars values are turned into text the way
 * Python's str() does.  *from_config tells where it came from.
 */
static bool
job_env(const struct mcinit_rule_ctx *x, const char *name, char *buf, size_t len, bool *from_config)
{
	const char *s;
	json_t *j;

	*from_config = false;
	/* the launch script's export / unset: what the job really gets */
	if (mcinit_config_job_env(x->c, name, &s, NULL)) {
		if (s == NULL)
			return false;
		snprintf(buf, len, "%s", s);
		return true;
	}
	s = mcinit_rules_env_get(x->o, name);
	if (s != NULL) {
		snprintf(buf, len, "%s", s);
		return true;
	}
	j = json_object_get(x->c->env_vars, name);
	if (j == NULL)
		return false;
	*from_config = true;
	if (json_is_string(j))
		snprintf(buf, len, "%s", json_string_value(j));
	else if (json_is_integer(j))
		snprintf(buf, len, "%lld", (long long)json_integer_value(j));
	else if (json_is_real(j) && json_real_value(j) == (double)(long long)json_real_value(j))
		snprintf(buf, len, "%.1f", json_real_value(j));
	else if (json_is_real(j))
		snprintf(buf, len, "%.17g", json_real_value(j));
	else if (json_is_boolean(j))
		snprintf(buf, len, "%s", json_is_true(j) ? "True" : "False");
	else
		snprintf(buf, len, "None");
	return true;
}

/* ---- rules ---- */

#define READS(...)                                                                                 \
	(const enum mcinit_field[])                                                                \
	{                                                                                          \
		__VA_ARGS__, MCINIT_F_COUNT                                                        \
	}

static void
mc010(struct mcinit_rule_ctx *x)
{
	long long w = x->dv->world_size, gtp = x->dv->gtp > 1 ? x->dv->gtp : 1,
	          mp = I(tensor_model_parallel_size) * I(pipeline_model_parallel_size) *
	               I(context_parallel_size) * gtp;
	struct mcinit_buf near = {0};
	struct mcinit_diag *g;
	char extra[64] = "";

	if (!x->dv->world_ok || w % mp == 0)
		return;
	/* gtp_remat (r0.19+) counts toward the model size. */
	if (gtp > 1)
		snprintf(extra, sizeof extra, " x gtp_remat %lld", gtp);
	g = report(x,
	           written(x, F(tensor_model_parallel_size), F(pipeline_model_parallel_size),
	                   F(context_parallel_size), F(tensor_parallel_num_weight_shards)),
	           "world size %lld (from %s) is not divisible by TP x PP x CP%s = %lld x %lld x "
	           "%lld%s = %lld",
	           w, x->dv->world_size_source, gtp > 1 ? " x GTP" : "",
	           I(tensor_model_parallel_size), I(pipeline_model_parallel_size),
	           I(context_parallel_size), extra, mp);
	mcinit_diag_hint(g,
	                 "nearest valid world sizes: %s; or change TP/PP/CP so that their product "
	                 "divides %lld",
	                 near_values(&near, w, mp, 0), w);
	mcinit_buf_free(&near);
}

#define ETP_F F(expert_tensor_parallel_size)

static void
mc011(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long w = dv->world_size, ep = I(expert_model_parallel_size),
	          pp = I(pipeline_model_parallel_size), emp, both;
	struct mcinit_buf near = {0};
	struct mcinit_diag *g;

	/* Dense model with ETP following TP: ETP x PP divides TP x PP x CP,
	 * so MC010 already says everything there is to say. */
	if (!dv->world_ok || !dv->etp_ok || (ep == 1 && !user_wrote(x->c, ETP_F)))
		return;
	emp = dv->etp * ep * pp * (dv->egtp > 1 ? dv->egtp : 1);
	if (w % emp == 0)
		return;
	g = report(x,
	           written(x, F(expert_model_parallel_size), F(expert_tensor_parallel_size),
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
	                 near_values(&near, w, both, 0), w);
	mcinit_buf_free(&near);
}

static void
mc012(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long mbs = I(micro_batch_size), step, gbs;
	struct mcinit_buf near = {0};
	struct mcinit_diag *g;

	/* GBS defaults to MBS x DP, which divides only without GTP */
	if (!dv->gbs_ok || (NUL(global_batch_size) && dv->gtp == 1))
		return;
	step = mbs * dv->dp * dv->gtp;
	gbs = dv->gbs;
	if (B(decrease_batch_size_if_needed)) {
		if (dv->running_gbs >= step)
			return; /* MC109 notes the rounding */
		g = report(x, F(global_batch_size),
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
		g = report(x, written(x, F(global_batch_size), F(micro_batch_size)),
		           "global batch size %lld is smaller than MBS x DP = %lld x %lld = %lld: "
		           "each data-parallel rank needs at least one micro-batch",
		           gbs, mbs, dv->dp * dv->gtp, step);
	else
		g = report(
		    x, written(x, F(global_batch_size), F(micro_batch_size)),
		    "global batch size %lld is not divisible by MBS x DP = %lld x %lld = %lld", gbs,
		    mbs, dv->dp * dv->gtp, step);
	mcinit_diag_hint(g,
	                 "nearest valid global batch sizes: %s (multiples of %lld); or change "
	                 "micro_batch_size or the data-parallel size (DP = %lld), or set "
	                 "decrease_batch_size_if_needed",
	                 near_values(&near, gbs, step, 0), step, dv->dp * dv->gtp);
	mcinit_buf_free(&near);
}

static void
mc013(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long egbs, embs, step, dp = dv->dp * dv->gtp, ecp = 0;
	struct mcinit_buf near = {0};
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
	g = report(x, written(x, F(eval_global_batch_size), F(eval_micro_batch_size)),
	           "evaluation global batch size %lld is not %s eval MBS x DP = %lld x %lld = "
	           "%lld",
	           egbs, egbs < step ? "at least" : "divisible by", embs, ecp ? dp : dv->dp, step);
	mcinit_diag_hint(g, "nearest valid evaluation batch sizes: %s",
	                 near_values(&near, egbs, step, 0));
	mcinit_buf_free(&near);
}

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
	struct mcinit_buf b = {0};

	if (heads % tp == 0)
		return;
	mcinit_diag_hint(
	    report(x, written(x, F(tensor_model_parallel_size), F(num_attention_heads)),
	           "num_attention_heads %lld is not divisible by tensor_model_parallel_size "
	           "%lld",
	           heads, tp),
	    "use a tensor-parallel size that divides %lld%s: %s", heads,
	    tp_room(x) > 0 ? " and fits the world size" : "",
	    near_divisors_fit(&b, heads, tp, tp_room(x)));
	mcinit_buf_free(&b);
}

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
	struct mcinit_buf b = {0};
	struct mcinit_diag *d;

	if (!gqa(x) || g < 1 || g % tp == 0 || (!strict && tp % g == 0))
		return;
	d = report(x, written(x, F(tensor_model_parallel_size), F(num_query_groups)),
	           strict ? "num_query_groups %lld is not a multiple of tensor_model_parallel_size "
	                    "%lld (required by Megatron-LM core_r0.15)"
	                  : "num_query_groups %lld is neither a multiple nor a divisor of "
	                    "tensor_model_parallel_size %lld",
	           g, tp);
	if (strict)
		mcinit_diag_hint(d, "use a tensor-parallel size that divides %lld: %s", g,
		                 near_divisors_fit(&b, g, tp, tp_room(x)));
	else
		mcinit_diag_hint(d,
		                 "use a tensor-parallel size that divides %lld (%s) or a multiple "
		                 "of it",
		                 g, near_divisors(&b, g, tp));
	mcinit_buf_free(&b);
}

static void
mc016(struct mcinit_rule_ctx *x)
{
	long long g = I(num_query_groups), heads = I(num_attention_heads);
	struct mcinit_buf b = {0};

	if (!gqa(x))
		return;
	if (g < 1) {
		mcinit_diag_hint(
		    report(x, F(num_query_groups), "num_query_groups %lld must be at least 1", g),
		    "use a divisor of num_attention_heads %lld, e.g. 8", heads);
		return;
	}
	if (heads % g == 0)
		return;
	mcinit_diag_hint(report(x, written(x, F(num_query_groups), F(num_attention_heads)),
	                        "num_attention_heads %lld is not divisible by num_query_groups "
	                        "%lld: Megatron does not check this and crashes inside attention "
	                        "(Megatron-LM #5755)",
	                        heads, g),
	                 "use a number of query groups that divides %lld: %s", heads,
	                 near_divisors(&b, heads, g));
	mcinit_buf_free(&b);
}

static void
mc017(struct mcinit_rule_ctx *x)
{
	long long h = I(hidden_size), heads = I(num_attention_heads);
	struct mcinit_buf b = {0};

	/* validate_args' check: Megatron-Core's TransformerConfig (what a
	 * Bridge ConfigContainer builds) takes hidden_size // heads. */
	if (!NUL(kv_channels) || h % heads == 0 || x->c->bridge)
		return;
	mcinit_diag_hint(report(x, written(x, F(hidden_size), F(num_attention_heads)),
	                        "hidden_size %lld is not divisible by num_attention_heads %lld, so "
	                        "kv_channels cannot be derived",
	                        h, heads),
	                 "set kv_channels explicitly, or use a hidden size that is a multiple "
	                 "of %lld (%s)",
	                 heads, near_values(&b, h, heads, 0));
	mcinit_buf_free(&b);
}

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
	struct mcinit_buf b = {0};

	if (ep <= 1)
		return;
	if (NUL(num_moe_experts)) {
		mcinit_diag_hint(report(x, F(expert_model_parallel_size),
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
	    report(x, written(x, F(expert_model_parallel_size), F(num_moe_experts)),
	           "num_moe_experts %lld is not divisible by expert_model_parallel_size %lld", n,
	           ep),
	    "use an expert-parallel size that divides %lld: %s", n,
	    near_divisors_fit(&b, n, ep, ep_room(x)));
	mcinit_buf_free(&b);
}

static void
mc019(struct mcinit_rule_ctx *x)
{
	long long k = I(moe_router_topk), n;

	if (NUL(num_moe_experts))
		return;
	n = I(num_moe_experts);
	if (k <= n)
		return;
	mcinit_diag_hint(report(x, written(x, F(moe_router_topk), F(num_moe_experts)),
	                        "moe_router_topk %lld is larger than num_moe_experts %lld", k, n),
	                 "route each token to at most %lld experts", n);
}

/* A suggestion for an uneven split of L layers over PP stages: equal middle
 * stages, the remainder shared by the first and last. */
static bool
suggest_uneven(long long l, long long pp, long long *first, long long *last, long long *mid)
{
	long long rest;

	if (pp < 2 || l < 2)
		return false;
	*mid = pp > 2 ? l / pp : 0;
	rest = l - *mid * (pp - 2);
	*first = rest / 2;
	*last = rest - *first;
	return *first > 0 && *last > 0;
}

static void
mc020(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long pp = I(pipeline_model_parallel_size), l = split_layers(x),
	          extra = l - I(num_layers), parts, f, la, m;
	struct mcinit_buf b = {0}, c = {0};
	struct mcinit_diag *g;

	if (!dv->vpp_ok || !NUL(num_layers_in_first_pipeline_stage) ||
	    !NUL(num_layers_in_last_pipeline_stage) || !NUL(pipeline_model_parallel_layout) ||
	    !NUL(num_layers_per_virtual_pipeline_stage))
		return;
	parts = pp * (dv->vpp ? dv->vpp : 1);
	if (l % parts == 0)
		return;
	if (dv->vpp)
		g = report(x, written(x, F(num_layers), F(pipeline_model_parallel_size)),
		           "%lld layers%s do not split evenly into PP x VPP = %lld x %lld = %lld "
		           "chunks: Megatron would silently drop %lld layers",
		           l, extra ? " (with embedding/loss)" : "", pp, dv->vpp, parts, l % parts);
	else
		g = report(x, written(x, F(num_layers), F(pipeline_model_parallel_size)),
		           "%lld layers%s are not divisible by pipeline_model_parallel_size %lld "
		           "(Megatron-LM PR #823: layers would be dropped)",
		           l, extra ? " (with embedding/loss)" : "", pp);
	if (!dv->vpp && suggest_uneven(I(num_layers), pp, &f, &la, &m) && extra == 0)
		mcinit_diag_hint(g,
		                 "nearest valid num_layers: %s; a pipeline size that divides %lld: "
		                 "%s; or split unevenly with --decoder-first-pipeline-num-layers "
		                 "%lld --decoder-last-pipeline-num-layers %lld (%lld per middle "
		                 "stage)",
		                 near_values(&b, I(num_layers), parts, extra), l,
		                 near_divisors(&c, l, pp), f, la, m);
	else
		mcinit_diag_hint(g,
		                 "nearest valid num_layers: %s; or a pipeline size that divides "
		                 "%lld: %s",
		                 near_values(&b, I(num_layers), parts, extra), l,
		                 near_divisors(&c, l, pp));
	mcinit_buf_free(&b);
	mcinit_buf_free(&c);
}

static void
mc021(struct mcinit_rule_ctx *x)
{
	long long pp = I(pipeline_model_parallel_size), vpp = x->dv->vpp;
	bool overlap = B(overlap_p2p_comm);

	if (!x->dv->vpp_ok || vpp == 0 || pp > (overlap ? 1 : 2))
		return;
	/* PP > 1 is what parallel_state needs; PP > 2 without p2p overlap
	 * only validate_args asks */
	mcinit_diag_hint(
	    (pp > 1 ? report_lm : report)(
	        x, written(x, F(pipeline_model_parallel_size), F(overlap_p2p_comm)),
	        overlap || pp <= 1 ? "a virtual pipeline (VPP = %lld, from %s) needs "
	                             "pipeline_model_parallel_size > 1, got %lld"
	                           : "a virtual pipeline (VPP = %lld, from %s) without "
	                             "overlap_p2p_comm needs pipeline_model_parallel_size > 2, got "
	                             "%lld",
	        vpp, x->dv->vpp_source, pp),
	    overlap ? "use pipeline parallelism (PP >= 2) or drop the virtual pipeline option"
	            : "use PP >= 3, keep p2p overlap on, or drop the virtual pipeline option");
}

static void
mc022(struct mcinit_rule_ctx *x)
{
	long long pp = I(pipeline_model_parallel_size), l = split_layers(x),
	          n = I(num_layers_per_virtual_pipeline_stage), per;
	struct mcinit_buf b = {0};

	if (NUL(num_layers_per_virtual_pipeline_stage) || vpp_sources(x) > 1)
		return;
	if (!NUL(num_layers_in_first_pipeline_stage) || !NUL(num_layers_in_last_pipeline_stage)) {
		mcinit_diag_hint(report(x, F(num_layers_per_virtual_pipeline_stage),
		                        "num_layers_per_virtual_pipeline_stage cannot be combined "
		                        "with an uneven pipeline (first/last stage layer counts)"),
		                 "use --num-virtual-stages-per-pipeline-rank instead");
		return;
	}
	if (l % pp != 0) {
		mcinit_diag_hint(
		    report(x, written(x, F(num_layers), F(pipeline_model_parallel_size)),
		           "%lld layers are not divisible by pipeline_model_parallel_size "
		           "%lld (needed by num_layers_per_virtual_pipeline_stage)",
		           l, pp),
		    "nearest valid num_layers: %s",
		    near_values(&b, I(num_layers), pp, l - I(num_layers)));
		mcinit_buf_free(&b);
		return;
	}
	per = l / pp;
	if (per % n == 0)
		return;
	mcinit_diag_hint(report(x, F(num_layers_per_virtual_pipeline_stage),
	                        "%lld layers per pipeline stage are not divisible by "
	                        "num_layers_per_virtual_pipeline_stage %lld",
	                        per, n),
	                 "use a divisor of %lld: %s", per, near_divisors(&b, per, n));
	mcinit_buf_free(&b);
}

static void
mc023(struct mcinit_rule_ctx *x)
{
	long long v, direct;
	const char *src;

	if (vpp_sources(x) > 1) {
		mcinit_diag_hint(report(x,
		                        written(x, F(pipeline_model_parallel_layout),
		                                F(num_virtual_stages_per_pipeline_rank),
		                                F(num_layers_per_virtual_pipeline_stage)),
		                        "at most one of num_layers_per_virtual_pipeline_stage, "
		                        "num_virtual_stages_per_pipeline_rank and "
		                        "pipeline_model_parallel_layout may be set; %d are",
		                        vpp_sources(x)),
		                 "keep one way of describing the virtual pipeline");
		return;
	}
	if (NUL(virtual_pipeline_model_parallel_size))
		return;
	v = mcinit_rules_vpp_from_inputs(x, &src);
	direct = I(virtual_pipeline_model_parallel_size);
	if (src == NULL || v < 0 || direct == (v > 1 ? v : 1))
		return;
	mcinit_diag_hint(report(x, F(virtual_pipeline_model_parallel_size),
	                        "virtual_pipeline_model_parallel_size %lld conflicts with %s, "
	                        "which gives %lld",
	                        direct, src, v > 1 ? v : 1),
	                 "drop virtual_pipeline_model_parallel_size or make it %lld",
	                 v > 1 ? v : 1);
}

/* Stage s of the unrolled layout is pipeline rank s % pp's virtual stage
 * s / pp (PipelineParallelLayerLayout.__init__).  In each pipeline rank:
 * the MTP layers (m) of its stages, the last stage that holds one, and
 * whether its last stage holds the loss. */
struct mtp_rank {
	long m;
	bool m_early; /* an m in a virtual stage before the rank's last */
	bool loss_in_last;
};

static void
mtp_by_rank(const char *flat, long pp, long nstages, struct mtp_rank *r)
{
	long s = 0;

	for (long k = 0; k < pp; k++)
		r[k] = (struct mtp_rank){0, false, false};
	for (const char *p = flat;; p++) {
		struct mtp_rank *k = &r[s % pp];

		if (*p == '\0' || *p == '|') {
			if (*p == '\0')
				break;
			s++;
			continue;
		}
		if (*p == 'm') {
			k->m++;
			k->m_early |= s / pp != nstages / pp - 1;
		}
		if (*p == 'L' && s / pp == nstages / pp - 1)
			k->loss_in_last = true;
	}
}

/* validate_layer_layout's MTP conditions: as many m as mtp_num_layers, none
 * outside a rank's last virtual stage, all in one stage; r0.15 also wants
 * them on the last rank, beside the loss (later releases allow a rank of
 * their own: mtp_standalone). */
static void
mc024_mtp(struct mcinit_rule_ctx *x, const char *flat)
{
	long pp = (long)I(pipeline_model_parallel_size), nstages = 1, m = 0, k;
	long want = NUL(mtp_num_layers) ? 0 : (long)I(mtp_num_layers);
	struct mtp_rank *r;

	for (const char *p = flat; *p; p++) {
		nstages += *p == '|';
		m += *p == 'm';
	}
	if (m != want) {
		if (NUL(mtp_num_layers))
			report(x, F(pipeline_model_parallel_layout),
			       "the layout has %ld MTP layers (m) but mtp_num_layers is not set",
			       m);
		else
			report(x, written(x, F(pipeline_model_parallel_layout), F(mtp_num_layers)),
			       "the layout has %ld MTP layers (m) but mtp_num_layers is %ld", m,
			       want);
		return;
	}
	if (m == 0 || pp <= 0 || nstages % pp != 0)
		return;
	r = mcinit_xcalloc((size_t)pp, sizeof *r);
	mtp_by_rank(flat, pp, nstages, r);
	for (k = 0; k < pp; k++) {
		if (r[k].m == 0)
			continue;
		if (r[k].m_early)
			report(
			    x, F(pipeline_model_parallel_layout),
			    "the layout puts an MTP layer (m) in a virtual stage of pipeline rank "
			    "%ld other than its last; Megatron-Core keeps MTP in a rank's last "
			    "virtual stage",
			    k);
		else if (r[k].m != m)
			report(x, F(pipeline_model_parallel_layout),
			       "the layout spreads the %ld MTP layers (m) over several stages; "
			       "they must all be in one",
			       m);
		else if (x->c->mversion == MCINIT_MV_R015 && (k != pp - 1 || !r[k].loss_in_last))
			report(x, F(pipeline_model_parallel_layout),
			       "Megatron-LM r0.15 wants the MTP layers (m) in the last stage, "
			       "with the loss (L)");
		break;
	}
	free(r);
}

/* Megatron-Core's validate_layer_layout on the unrolled layout. */
static void
mc024_layers(struct mcinit_rule_ctx *x, const char *flat)
{
	const char *p, *first = NULL, *lastc = NULL, *m = NULL;
	long e = 0, lo = 0, t = 0, late_t = 0;

	for (p = flat; *p; p++) {
		if (*p == '|')
			continue;
		if (first == NULL)
			first = p;
		lastc = p;
		e += *p == 'E';
		lo += *p == 'L';
		t += *p == 't';
		if (*p == 'm' && m == NULL)
			m = p;
		late_t += *p == 't' && m != NULL;
	}
	if (t != I(num_layers))
		report(x, F(pipeline_model_parallel_layout),
		       "the layout has %ld transformer layers (t) but num_layers is %lld", t,
		       I(num_layers));
	if (e != 1 || lo != 1 || first == NULL || *first != 'E' || *lastc != 'L')
		mcinit_diag_hint(report(x, F(pipeline_model_parallel_layout),
		                        "the layout must start with the embedding E and end with "
		                        "the loss L, each exactly once (found %ld E, %ld L)",
		                        e, lo),
		                 "e.g. \"Et*3|(tt|)*29,m|L\"");
	if (late_t > 0)
		report(x, F(pipeline_model_parallel_layout),
		       "the layout places %ld transformer layers after an MTP layer (m); MTP "
		       "layers come last",
		       late_t);
	mc024_mtp(x, flat);
}

static void
mc024(struct mcinit_rule_ctx *x)
{
	const char *layout = mcinit_cfg_str(x->c, F(pipeline_model_parallel_layout));
	long long pp = I(pipeline_model_parallel_size);
	struct mcinit_buf flat = {0};
	char *why = NULL;
	long n;

	if (layout == NULL)
		return;
	if (mcinit_layout_unroll(layout, &flat, &why) < 0) {
		mcinit_diag_hint(report(x, F(pipeline_model_parallel_layout),
		                        "pipeline_model_parallel_layout \"%s\": %s", layout, why),
		                 "write stages of E, L, t, m separated by |, with (...)*n or x*n "
		                 "to repeat");
		goto out;
	}
	n = mcinit_layout_parse(layout, NULL, 0, NULL);
	if (n % pp != 0) {
		struct mcinit_buf b = {0}, c = {0};

		mcinit_diag_hint(
		    report(x,
		           written(x, F(pipeline_model_parallel_layout),
		                   F(pipeline_model_parallel_size)),
		           "pipeline_model_parallel_layout has %ld stages, not a multiple of "
		           "pipeline_model_parallel_size %lld",
		           n, pp),
		    "use %s stages, or a pipeline size that divides %ld (%s)",
		    near_values(&b, n, pp, 0), n, near_divisors(&c, n, pp));
		mcinit_buf_free(&b);
		mcinit_buf_free(&c);
		goto out;
	}
	mc024_layers(x, flat.data);
out:
	free(why);
	mcinit_buf_free(&flat);
}

/* The uneven-pipeline conditions of Megatron-Core's TransformerConfig, and
 * the silent loss of layers when no middle stage is left to take them. */
static void
mc025(struct mcinit_rule_ctx *x)
{
	bool first = !NUL(num_layers_in_first_pipeline_stage),
	     last = !NUL(num_layers_in_last_pipeline_stage);
	long long pp = I(pipeline_model_parallel_size), l = I(num_layers), vpp = x->dv->vpp,
	          fl = first ? I(num_layers_in_first_pipeline_stage) : 0,
	          ll = last ? I(num_layers_in_last_pipeline_stage) : 0, ml, ms, sf, sl, sm;
	enum mcinit_field at =
	    first ? F(num_layers_in_first_pipeline_stage) : F(num_layers_in_last_pipeline_stage);
	struct mcinit_diag *g = NULL;

	if (!first && !last)
		return;
	if (B(account_for_embedding_in_pipeline_split) || B(account_for_loss_in_pipeline_split) ||
	    !NUL(pipeline_model_parallel_layout)) {
		mcinit_diag_hint(report(x, at,
		                        "first/last pipeline stage layer counts cannot be combined "
		                        "with %s",
		                        NUL(pipeline_model_parallel_layout)
		                            ? "account_for_embedding/loss_in_pipeline_split"
		                            : "pipeline_model_parallel_layout"),
		                 "use one way of splitting the layers");
		return;
	}
	if ((first && fl <= 0) || (last && ll <= 0)) {
		report(x,
		       first && fl <= 0 ? F(num_layers_in_first_pipeline_stage)
		                        : F(num_layers_in_last_pipeline_stage),
		       "first/last pipeline stage layer counts must be > 0 (got %lld)",
		       first && fl <= 0 ? fl : ll);
		return;
	}
	/* No PP >= 2 check: TransformerConfig accepts PP = 1 when the stages
	 * account for every layer (the middle-stage test below). */
	if (vpp > 0 && ((first && fl % vpp) || (last && ll % vpp)))
		report(x,
		       first && fl % vpp ? F(num_layers_in_first_pipeline_stage)
		                         : F(num_layers_in_last_pipeline_stage),
		       "%s stage layer count %lld is not divisible by the virtual pipeline size "
		       "%lld",
		       first && fl % vpp ? "first" : "last", first && fl % vpp ? fl : ll, vpp);
	ml = l - fl - ll;
	ms = pp - first - last;
	if (ml < 0)
		g = report(x, at, "first + last stage layers (%lld) exceed num_layers %lld",
		           fl + ll, l);
	else if ((ml == 0) != (ms == 0))
		g = report(x, at,
		           ms == 0 ? "%lld middle layers but no middle pipeline stage: Megatron "
		                     "would silently drop them"
		                   : "no layers left for the %lld middle pipeline stages",
		           ms == 0 ? ml : ms);
	else if (ms > 0 && ml % ms != 0)
		g = report(
		    x, at,
		    "%lld middle layers are not divisible by the %lld middle pipeline stages", ml,
		    ms);
	else if (ms > 0 && vpp > 0 && (ml / ms) % vpp != 0)
		g = report(x, at,
		           "%lld layers per middle stage are not divisible by the virtual pipeline "
		           "size %lld",
		           ml / ms, vpp);
	if (g != NULL && suggest_uneven(l, pp, &sf, &sl, &sm) && (first && last))
		mcinit_diag_hint(g,
		                 "e.g. --decoder-first-pipeline-num-layers %lld "
		                 "--decoder-last-pipeline-num-layers %lld (%lld per middle stage)",
		                 sf, sl, sm);
	else if (g != NULL)
		mcinit_diag_hint(g,
		                 "make num_layers - first - last a multiple of the %lld middle "
		                 "stages",
		                 ms);
}

static void
seq_hint(struct mcinit_rule_ctx *x, struct mcinit_diag *g, long long seq)
{
	struct mcinit_buf b = {0};

	if (!x->dv->seq_multiple_ok)
		return;
	mcinit_diag_hint(g, "nearest valid seq_length: %s (multiples of %lld)",
	                 near_values(&b, seq, x->dv->seq_multiple, 0), x->dv->seq_multiple);
	mcinit_buf_free(&b);
}

static void
mc026(struct mcinit_rule_ctx *x)
{
	long long cp = I(context_parallel_size), seq = I(seq_length);

	if (cp <= 1 || seq % (2 * cp) == 0)
		return;
	seq_hint(x,
	         report(x, written(x, F(seq_length), F(context_parallel_size)),
	                "seq_length %lld is not divisible by 2 x context_parallel_size = %lld", seq,
	                2 * cp),
	         seq);
}

static void
mc027(struct mcinit_rule_ctx *x)
{
	long long cp = I(context_parallel_size), tp = I(tensor_model_parallel_size),
	          seq = I(seq_length);

	if (!B(sequence_parallel) || tp <= 1 || seq % (cp * tp) == 0)
		return;
	if (cp > 1)
		seq_hint(x,
		         report(x, written(x, F(seq_length), F(sequence_parallel)),
		                "with sequence_parallel, seq_length %lld must be divisible by CP x "
		                "TP = %lld x %lld = %lld (each context-parallel chunk is split "
		                "across the tensor-parallel ranks)",
		                seq, cp, tp, cp * tp),
		         seq);
	else
		seq_hint(x,
		         report(x, written(x, F(seq_length), F(sequence_parallel)),
		                "with sequence_parallel, seq_length %lld must be divisible by "
		                "tensor_model_parallel_size %lld",
		                seq, tp),
		         seq);
}

static bool
cp_comm_has(struct mcinit_rule_ctx *x, const char *kind)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(cp_comm_type));
	size_t i;

	if (v->kind == MCINIT_V_STR)
		return strcmp(v->s, kind) == 0;
	for (i = 0; v->kind == MCINIT_V_LIST && i < v->n; i++)
		if (v->items[i].s && strcmp(v->items[i].s, kind) == 0)
			return true;
	return false;
}

static void
mc028(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *h = mcinit_cfg_val(x->c, F(hierarchical_context_parallel_sizes));
	long long cp = I(context_parallel_size), prod = 1;
	struct mcinit_buf b = {0};
	size_t i;

	if (h->kind != MCINIT_V_LIST) {
		if (cp_comm_has(x, "a2a+p2p"))
			mcinit_diag_hint(
			    report(x, F(cp_comm_type),
			           "cp_comm_type a2a+p2p needs "
			           "hierarchical_context_parallel_sizes, which is not set"),
			    "add --hierarchical-context-parallel-sizes A B with A x B = "
			    "context_parallel_size %lld (A: a2a inside a node)",
			    cp);
		return;
	}
	for (i = 0; i < h->n; i++) {
		mcinit_buf_printf(&b, "%s%lld", i ? " x " : "", h->items[i].i);
		prod *= h->items[i].i;
	}
	if (prod != cp)
		report(x,
		       written(x, F(hierarchical_context_parallel_sizes), F(context_parallel_size)),
		       "hierarchical_context_parallel_sizes %s = %lld, but context_parallel_size "
		       "is %lld",
		       mcinit_buf_cstr(&b), prod, cp);
	mcinit_buf_free(&b);
}

static void
mc029(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(cp_comm_type));

	/* Megatron-LM turns a one-element list into the plain string;
	 * Megatron-Bridge (ConfigContainer._validate_cp_comm_type) does not. */
	if (I(context_parallel_size) <= 1 || v->kind != MCINIT_V_LIST ||
	    (v->n == 1 && !x->c->bridge) || (long long)v->n == I(num_layers))
		return;
	mcinit_diag_hint(report(x, F(cp_comm_type),
	                        "cp_comm_type lists %zu values but there are %lld layers", v->n,
	                        I(num_layers)),
	                 "give one value for all layers, or exactly one per layer");
}

static void
mc030(struct mcinit_rule_ctx *x)
{
	long long mp, seq = I(seq_length);

	if (NUL(max_position_embeddings))
		return;
	mp = I(max_position_embeddings);
	if (mp >= seq)
		return;
	mcinit_diag_hint(report_lm(x, written(x, F(max_position_embeddings), F(seq_length)),
	                           "max_position_embeddings %lld is smaller than seq_length %lld",
	                           mp, seq),
	                 "set max_position_embeddings to at least %lld", seq);
}

static void
mc031(struct mcinit_rule_ctx *x)
{
	if (!B(fp16) || !B(bf16))
		return;
	mcinit_diag_hint(report(x, written(x, F(fp16), F(bf16)), "fp16 and bf16 are both set"),
	                 "choose one: --bf16 (recommended on Ampere and newer) or --fp16");
}

static void
mc032(struct mcinit_rule_ctx *x)
{
	if (!B(tp_comm_overlap) || B(sequence_parallel))
		return;
	mcinit_diag_hint(report_lm(x, F(tp_comm_overlap),
	                           "tp_comm_overlap needs sequence_parallel%s",
	                           x->c->origin[F(sequence_parallel)] == MCINIT_ORIG_REPAIR
	                               ? " (turned off because TP = 1, see MC101)"
	                               : ""),
	                 x->c->origin[F(sequence_parallel)] == MCINIT_ORIG_REPAIR
	                     ? "tensor-parallel overlap needs TP > 1; drop --tp-comm-overlap"
	                     : "add --sequence-parallel, or drop --tp-comm-overlap");
}

static void
mc033(struct mcinit_rule_ctx *x)
{
	if (I(expert_model_parallel_size) <= 1 || I(tensor_model_parallel_size) <= 1 ||
	    B(sequence_parallel))
		return;
	mcinit_diag_hint(
	    report(x, written(x, F(expert_model_parallel_size), F(tensor_model_parallel_size)),
	           "expert parallelism (EP = %lld) with tensor parallelism (TP = %lld) "
	           "without sequence_parallel: Megatron warns that sequence "
	           "parallelism must be used with EP and TP",
	           I(expert_model_parallel_size), I(tensor_model_parallel_size)),
	    "add --sequence-parallel");
}

static void
mc034(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;

	if (!B(use_tp_pp_dp_mapping) || I(pipeline_model_parallel_size) <= 1 || !dv->dp_ok ||
	    !dv->edp_ok || dv->dp == dv->edp)
		return;
	mcinit_diag_hint(
	    report(x, F(use_tp_pp_dp_mapping),
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

static void
mc035(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long n = I(num_distributed_optimizer_instances), dpcp;

	if (n <= 1 || !dv->dp_ok)
		return;
	dpcp = dv->dp * I(context_parallel_size);
	if (dpcp % n != 0)
		report(x, F(num_distributed_optimizer_instances),
		       "DP x CP = %lld x %lld = %lld is not divisible by "
		       "num_distributed_optimizer_instances %lld",
		       dv->dp, I(context_parallel_size), dpcp, n);
	/* Without experts EDP is usually DP x CP: one report is enough. */
	if (dv->edp_ok && dv->edp % n != 0 && dv->edp != dpcp)
		report(x, F(num_distributed_optimizer_instances),
		       "the expert data-parallel size %lld is not divisible by "
		       "num_distributed_optimizer_instances %lld",
		       dv->edp, n);
}

/* parallel_state.initialize_model_parallel (r0.19+) asserts this first. */
static void
mc060(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;

	if (I(num_distributed_optimizer_instances) <= 1 || (dv->gtp <= 1 && dv->egtp <= 1))
		return;
	report(x, F(num_distributed_optimizer_instances),
	       "GTP_remat with num_distributed_optimizer_instances > 1 is not yet supported "
	       "(gtp_remat %lld, expert gtp_remat %lld, %lld instances)",
	       dv->gtp, dv->egtp, I(num_distributed_optimizer_instances));
}

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
		report(x, shards, "%s (%lld) must be >= %s (%lld)", name, n, what, tp);
	else if (n % tp != 0)
		report(x, shards, "%s (%lld) must be divisible by %s (%lld)", name, n, what, tp);
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

static void
mc036(struct mcinit_rule_ctx *x)
{
	const char *grp = mcinit_cfg_str(x->c, F(sharp_enabled_group));

	if (grp == NULL)
		return;
	if (!B(use_sharp))
		mcinit_diag_hint(report(x, F(sharp_enabled_group),
		                        "sharp_enabled_group %s is set but use_sharp is off", grp),
		                 "add --use-sharp, or drop --sharp-enabled-group");
	if (strcmp(grp, "dp_replica") == 0 && I(num_distributed_optimizer_instances) <= 1)
		mcinit_diag_hint(report(x, F(sharp_enabled_group),
		                        "sharp_enabled_group dp_replica needs "
		                        "num_distributed_optimizer_instances > 1, got %lld",
		                        I(num_distributed_optimizer_instances)),
		                 "use sharp_enabled_group dp, or more distributed-optimizer "
		                 "instances");
}

static void
mc037(struct mcinit_rule_ctx *x)
{
	if (B(use_megatron_fsdp) && B(use_torch_fsdp2))
		mcinit_diag_hint(report(x, written(x, F(use_torch_fsdp2), F(use_megatron_fsdp)),
		                        "use_megatron_fsdp and use_torch_fsdp2 are mutually "
		                        "exclusive"),
		                 "choose one FSDP implementation");
	if ((B(use_megatron_fsdp) || B(use_torch_fsdp2)) && B(use_tp_pp_dp_mapping))
		mcinit_diag_hint(
		    report(x, F(use_tp_pp_dp_mapping),
		           "%s cannot be combined with use_tp_pp_dp_mapping",
		           B(use_torch_fsdp2) ? "use_torch_fsdp2" : "use_megatron_fsdp"),
		    "drop --use-tp-pp-dp-mapping");
}

static void
mc038(struct mcinit_rule_ctx *x)
{
	if (!B(use_torch_fsdp2))
		return;
	if (I(pipeline_model_parallel_size) != 1)
		report_lm(x, F(pipeline_model_parallel_size),
		          "use_torch_fsdp2 does not support pipeline parallelism "
		          "(pipeline_model_parallel_size %lld)",
		          I(pipeline_model_parallel_size));
	if (I(expert_model_parallel_size) != 1)
		report_lm(x, F(expert_model_parallel_size),
		          "use_torch_fsdp2 does not support expert parallelism "
		          "(expert_model_parallel_size %lld)",
		          I(expert_model_parallel_size));
	/* Not when R8 turned it on for Megatron FSDP: MC037 covers that. */
	if (B(use_distributed_optimizer) && user_wrote(x->c, F(use_distributed_optimizer)))
		report_lm(x, F(use_distributed_optimizer),
		          "use_torch_fsdp2 does not support Megatron's distributed optimizer");
	if (B(fp16))
		mcinit_diag_hint(report_lm(x, F(fp16), "use_torch_fsdp2 does not support fp16"),
		                 "use --bf16");
}

static void
mc039(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(high_priority_stream_groups));
	const char *names[MCINIT_GROUP_COUNT];
	struct mcinit_buf all = {0};
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
			mcinit_buf_printf(&all, "%s%s", k ? ", " : "", names[k]);
		}
		sug = mcinit_suggest(s, names, MCINIT_GROUP_COUNT);
		if (sug != NULL)
			mcinit_diag_hint(report(x, F(high_priority_stream_groups),
			                        "high_priority_stream_groups: '%s' is not a group "
			                        "key; did you mean '%s'?",
			                        s, sug),
			                 "group keys: %s", mcinit_buf_cstr(&all));
		else
			mcinit_diag_hint(
			    report(x, F(high_priority_stream_groups),
			           "high_priority_stream_groups: '%s' is not a group key", s),
			    "group keys: %s", mcinit_buf_cstr(&all));
	}
	mcinit_buf_free(&all);
}

static void
mc040(struct mcinit_rule_ctx *x)
{
	/* A ConfigContainer: Bridge's TrainingConfig.finalize refuses both and
	 * neither, with num_epochs (MC301). */
	if (x->c->bridge)
		return;
	if (!NUL(train_iters) && !NUL(train_samples))
		mcinit_diag_hint(report(x, written(x, F(train_samples), F(train_iters)),
		                        "train_iters (%lld) and train_samples (%lld) are mutually "
		                        "exclusive",
		                        I(train_iters), I(train_samples)),
		                 "keep one: iteration-based or sample-based training");
	else if (NUL(train_iters) && NUL(train_samples))
		mcinit_diag_hint(report_sev(x, MCINIT_WARNING, F(train_iters),
		                            "neither train_iters nor train_samples is set"),
		                 "add --train-iters N or --train-samples N");
}

static void
mc041(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *r = mcinit_cfg_val(x->c, F(rampup_batch_size));
	long long start, inc, samples, gbs, diff, step;
	struct mcinit_buf b = {0};

	if (r->kind != MCINIT_V_LIST || r->n != 3 || !x->dv->gbs_ok)
		return;
	start = r->items[0].i;
	inc = r->items[1].i;
	samples = r->items[2].i;
	gbs = x->dv->gbs;
	if (!NUL(train_iters))
		mcinit_diag_hint(report(x, F(rampup_batch_size),
		                        "rampup_batch_size needs sample-based training, but "
		                        "train_iters is set"),
		                 "use --train-samples instead of --train-iters");
	if (start <= 0 || inc <= 0 || samples < 0) {
		report(x, F(rampup_batch_size),
		       "rampup_batch_size %lld %lld %lld: start and increment must be > 0 and "
		       "ramp-up samples >= 0",
		       start, inc, samples);
		return;
	}
	diff = gbs - start;
	if (diff < 0) {
		report(x, F(rampup_batch_size),
		       "rampup start batch size %lld exceeds the global batch size %lld", start,
		       gbs);
		return;
	}
	if (diff == 0 || diff % inc != 0) {
		mcinit_diag_hint(report(x, F(rampup_batch_size),
		                        diff == 0
		                            ? "rampup start batch size equals the global batch "
		                              "size %lld: no increment is left (Megatron "
		                              "divides by zero)"
		                            : "global batch size %lld minus the start %lld is not "
		                              "divisible by the increment %lld",
		                        gbs, start, inc),
		                 diff == 0 ? "drop --rampup-batch-size"
		                           : "choose an increment that divides %lld",
		                 diff);
		return;
	}
	step = I(micro_batch_size) * (x->dv->dp_ok ? x->dv->dp : 1);
	if (x->dv->dp_ok && !B(decrease_batch_size_if_needed) && (start % step || inc % step))
		mcinit_diag_hint(
		    report(x, F(rampup_batch_size),
		           "rampup batch sizes (start %lld, increment %lld) are not all "
		           "multiples of MBS x DP = %lld",
		           start, inc, step),
		    "use a start and an increment that are multiples of %lld (e.g. "
		    "start %s)",
		    step, start % step ? near_values(&b, start, step, 0) : "as is");
	mcinit_buf_free(&b);
}

static void
mc042(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long s = I(seed);

	if (s <= 0) {
		mcinit_diag_hint(report(x, F(seed), "seed %lld must be a positive integer", s),
		                 "use e.g. --seed 1234");
		return;
	}
	if (!dv->seeds_ok || dv->seed_max < (1LL << 32))
		return;
	mcinit_diag_hint(
	    report(x, F(seed),
	           "seed %lld gives a largest per-rank seed of %lld (seed + 100 x (PP - "
	           "1)%s), above numpy's limit 2^32 - 1",
	           s, dv->seed_max, B(data_parallel_random_init) ? " + 10 x (DP - 1)" : ""),
	    "use a seed below %lld", (1LL << 32) - (dv->seed_max - s));
}

/* Megatron adds seed + 2718 + tp_rank and seed + 1024 + 100*ep_rank +
 * etp_rank to the same RNG tracker, which refuses a seed it already has. */
static void
mc043(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long tp = I(tensor_model_parallel_size), ep = I(expert_model_parallel_size), period, r,
	          lim;

	if (!dv->edp_ok || !dv->dp_ok || !dv->etp_ok)
		return;
	period = lcm(tp, dv->etp * ep);
	lim = period < dv->world_size ? period : dv->world_size;
	if (lim > (1LL << 24))
		return;
	for (r = 0; r < lim; r++) {
		long long t = r % tp, et = r % dv->etp, e = (r / dv->etp) % ep;

		if (2718 + t != 1024 + 100 * e + et)
			continue;
		mcinit_diag_hint(
		    report(x,
		           written(x, F(expert_model_parallel_size), F(tensor_model_parallel_size)),
		           "rank %lld's CUDA RNG seeds collide: model-parallel seed + "
		           "2718 + tp_rank %lld = expert seed + 1024 + 100 x ep_rank "
		           "%lld + etp_rank %lld (Megatron raises 'seed already "
		           "exists' at init)",
		           r, t, e, et),
		    "this needs EP >= 18 with TP >= 7; use EP <= 17 or TP <= 6");
		return;
	}
}

/* The GPU architecture (x10): the probed device, else launch.gpu_arch. */
static int
gpu_arch(struct mcinit_rule_ctx *x)
{
	if (x->o->gpu_arch > 0)
		return x->o->gpu_arch;
	if (!BAD(gpu_arch) && !NUL(gpu_arch))
		return (int)I(gpu_arch);
	return 0;
}

static void
mc044(struct mcinit_rule_ctx *x)
{
	bool fsdp = B(use_torch_fsdp2) || B(use_megatron_fsdp), from_cfg, set;
	long long tp = I(tensor_model_parallel_size), cp = I(context_parallel_size);
	int arch = gpu_arch(x);
	char val[64];
	struct mcinit_diag *g;

	set = job_env(x, "CUDA_DEVICE_MAX_CONNECTIONS", val, sizeof val, &from_cfg);
	if (fsdp) {
		if (set && strcmp(val, "1") == 0)
			mcinit_diag_hint(
			    report_loc(x, from_cfg ? &x->c->env_vars_loc : &mcinit_rules_env_loc,
			               "%s needs CUDA_DEVICE_MAX_CONNECTIONS > 1, but "
			               "it is 1%s",
			               B(use_torch_fsdp2) ? "use_torch_fsdp2" : "use_megatron_fsdp",
			               from_cfg ? " (env_vars)" : " in the environment"),
			    "unset CUDA_DEVICE_MAX_CONNECTIONS or set it to e.g. 32");
		return;
	}
	/* Megatron only warns when overlap_moe_expert_parallel_comm wants a larger
	 * CUDA_DEVICE_MAX_CONNECTIONS (validate_args; MC250 quotes the warning). */
	if ((tp <= 1 && cp <= 1) || arch >= 100 || (set && strcmp(val, "1") == 0) ||
	    B(overlap_moe_expert_parallel_comm))
		return;
	if (arch == 0) {
		g = report_sev(
		    x, MCINIT_WARNING,
		    written(x, F(tensor_model_parallel_size), F(context_parallel_size)),
		    "TP = %lld, CP = %lld: on GPUs older than Blackwell Megatron requires "
		    "CUDA_DEVICE_MAX_CONNECTIONS=1, which is %s (GPU architecture "
		    "unknown)",
		    tp, cp, set ? val : "not set");
		mcinit_diag_hint(g, "set env_vars.CUDA_DEVICE_MAX_CONNECTIONS=\"1\", or "
		                    "launch.gpu_arch (e.g. 90 for Hopper, 100 for Blackwell)");
		return;
	}
	g = report(x, written(x, F(tensor_model_parallel_size), F(context_parallel_size)),
	           "TP = %lld, CP = %lld on GPU architecture %d (< 100): Megatron requires "
	           "CUDA_DEVICE_MAX_CONNECTIONS=1, which is %s",
	           tp, cp, arch, set ? val : "not set");
	mcinit_diag_hint(g, "export CUDA_DEVICE_MAX_CONNECTIONS=1, or set "
	                    "env_vars.CUDA_DEVICE_MAX_CONNECTIONS=\"1\" in the config");
}

/* validate runs where there may be no GPU at all, so without a probe it
 * only speaks up when the environment hides every device. */
static void
mc045(struct mcinit_rule_ctx *x)
{
	const char *be = mcinit_cfg_str(x->c, F(distributed_backend));
	const char *vis = mcinit_rules_env_get(x->o, "CUDA_VISIBLE_DEVICES");
	bool none;

	if (be == NULL || strcmp(be, "nccl") != 0)
		return;
	if (x->o->cuda_probed)
		none = x->o->cuda_devices <= 0;
	else
		none = vis != NULL && (*vis == '\0' || strcmp(vis, "-1") == 0 ||
		                       strcasecmp(vis, "NoDevFiles") == 0);
	if (!none)
		return;
	mcinit_diag_hint(
	    report_sev(
	        x, x->o->run_mode && !x->o->allow_no_cuda ? MCINIT_ERROR : MCINIT_WARNING,
	        F(distributed_backend), "distributed_backend nccl needs a CUDA device, but %s",
	        x->o->cuda_probed ? "none is present" : "CUDA_VISIBLE_DEVICES hides every device"),
	    "run on a GPU node, use --distributed-backend gloo for a CPU-only test, "
	    "or pass --allow-no-cuda to `mcinit run`");
}

static long long
launch_value(struct mcinit_rule_ctx *x, long long opt, enum mcinit_field f)
{
	if (opt > 0)
		return opt;
	if (!x->c->invalid[f] && !mcinit_cfg_null(x->c, f))
		return mcinit_cfg_int(x->c, f);
	return 0;
}

static void
human_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void
mc046(struct mcinit_rule_ctx *x)
{
	long long np = launch_value(x, x->o->nproc_per_node, F(nproc_per_node)),
	          tp = I(tensor_model_parallel_size), w = x->dv->world_size, k, span = 0, groups;
	struct mcinit_diag *g;

	if (np <= 0 || !x->dv->world_ok || tp <= 1 || w % tp != 0)
		return;
	/* TP is the fastest dimension in both rank orders: group k is ranks
	 * [k*TP, (k+1)*TP), and a node holds ranks [n*np, (n+1)*np). */
	groups = w / tp;
	for (k = 0; k < groups && k < (1LL << 22); k++)
		span += (k * tp) / np != (k * tp + tp - 1) / np;
	if (span == 0)
		return;
	if (!INVALID(x->c, F(hidden_size), F(seq_length), F(micro_batch_size)) &&
	    !NUL(hidden_size) && !NUL(seq_length) && !NUL(micro_batch_size)) {
		long long cp = I(context_parallel_size), s = I(seq_length) / cp,
		          bytes = B(bf16) || B(fp16) ? 2 : 4;
		double per = 2.0 * (double)(tp - 1) / (double)tp * (double)s *
		             (double)I(micro_batch_size) * (double)I(hidden_size) * (double)bytes;
		char a[32], b[32];

		human_bytes(a, sizeof a, per);
		human_bytes(b, sizeof b, 4 * per);
		g = report(
		    x, written(x, F(tensor_model_parallel_size), F(nproc_per_node)),
		    "%lld of %lld tensor-parallel groups span nodes (TP = %lld, %lld "
		    "processes per node): each tensor-parallel all-reduce sends 2 x "
		    "(TP-1)/TP x s x b x h x %lld bytes = %s per rank over the network (s = "
		    "%lld%s, b = %lld, h = %lld), about %s per layer (2 forward, 2 backward)",
		    span, groups, tp, np, bytes, a, s, cp > 1 ? " = seq_length/CP" : "",
		    I(micro_batch_size), I(hidden_size), b);
	} else {
		g = report(x, written(x, F(tensor_model_parallel_size), F(nproc_per_node)),
		           "%lld of %lld tensor-parallel groups span nodes (TP = %lld, %lld "
		           "processes per node): tensor-parallel traffic crosses the network",
		           span, groups, tp, np);
	}
	mcinit_diag_hint(g, "keep TP <= %lld and a divisor of it", np);
}

static void
mc047(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long nn = launch_value(x, x->o->nnodes, F(nnodes)),
	          np = launch_value(x, x->o->nproc_per_node, F(nproc_per_node)), prod;

	if (nn <= 0 || np <= 0 || __builtin_mul_overflow(nn, np, &prod) || !dv->world_ok ||
	    dv->world_size == prod || strcmp(dv->world_size_source, "default") == 0)
		return;
	mcinit_diag_hint(report_loc(x, &dv->world_size_loc,
	                            "world size %lld (from %s) differs from nnodes x "
	                            "nproc_per_node = %lld x %lld = %lld",
	                            dv->world_size, dv->world_size_source, nn, np, prod),
	                 "make them agree; a launcher starts nnodes x nproc_per_node processes");
}

static void
mc048(struct mcinit_rule_ctx *x)
{
	if (!B(lazy_mpu_init))
		return;
	report(x, F(lazy_mpu_init),
	       "lazy_mpu_init: until the model-parallel groups exist Megatron sets the "
	       "tensor-parallel rank from the global rank, and the lazy path does not "
	       "initialise tensor-parallel communication overlap%s",
	       B(tp_comm_overlap) ? " (tp_comm_overlap is set and will not take effect)" : "");
}

static void
mc049(struct mcinit_rule_ctx *x)
{
	const struct mcinit_derived *dv = x->dv;

	if (!dv->vocab_ok || dv->padded_vocab_size == dv->vocab_size)
		return;
	report(x, dv->vocab_from_tokenizer ? F(tokenizer_vocab_size) : F(vocab_size),
	       "%s %lld is padded to %lld (a multiple of make_vocab_size_divisible_by x "
	       "TP = %lld x %lld); %lld dummy rows",
	       dv->vocab_from_tokenizer ? "the tokenizer's vocab_size (Megatron-Bridge: "
	                                  "use_tokenizer_vocab_size or no model.vocab_size)"
	                                : "vocab_size",
	       dv->vocab_size, dv->padded_vocab_size, I(make_vocab_size_divisible_by),
	       I(tensor_model_parallel_size), dv->padded_vocab_size - dv->vocab_size);
}

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
		report(x, F(recompute_granularity),
		       "recompute_granularity must not be full when CUDA Graphs are enabled "
		       "(cuda_graph_impl = %s, core_r0.15)",
		       impl);
	else if (strcmp(impl, "transformer_engine") != 0 || scope->kind != MCINIT_V_STR ||
	         strcmp(scope->s, "attn") != 0)
		report(x, F(recompute_granularity),
		       "CUDA graphs not supported with activation recomputation (core_r0.15: only "
		       "selective recomputation with cuda_graph_impl = transformer_engine and "
		       "cuda_graph_scope = attn)");
}

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
	mcinit_diag_hint(report_loc(x, from_cfg ? &x->c->env_vars_loc : &mcinit_rules_env_loc,
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
			report(x, F(use_flash_attn),
			       "Flash attention can not be used in deterministic mode");
		if (B(cross_entropy_loss_fusion))
			report(x, F(cross_entropy_loss_fusion),
			       "Cross Entropy Fusion is currently not deterministic");
		set = job_env(x, "NCCL_ALGO", val, sizeof val, &from_cfg);
		for (i = 0; set && old_algos[i] && strcmp(old_algos[i], val) != 0; i++)
			;
		if (!set || old_algos[i] == NULL)
			mcinit_diag_hint(
			    report(x, F(deterministic_mode),
			           "deterministic_mode needs NCCL_ALGO set to one of Tree, "
			           "Ring, CollnetDirect, CollnetChain, ^NVLS (it is %s)",
			           set ? val : "not set"),
			    "export NCCL_ALGO=Ring or set it in env_vars");
		return;
	}
	if (B(cross_entropy_loss_fusion))
		mcinit_diag_hint(
		    report(x, F(cross_entropy_loss_fusion),
		           "--deterministic-mode requires cross_entropy_loss_fusion=False"),
		    "drop --cross-entropy-loss-fusion");
	if (B(tp_comm_overlap))
		mcinit_diag_hint(report(x, F(tp_comm_overlap),
		                        "--deterministic-mode requires tp_comm_overlap=False"),
		                 "drop --tp-comm-overlap");
	if (job_env(x, "NCCL_ALGO", val, sizeof val, &from_cfg))
		det_env(x, "NCCL_ALGO", tokens_in(val, algos), val, from_cfg,
		        "Ring, CollnetDirect, CollnetChain or ^NVLS (comma-separated)");
	if (job_env(x, "NVTE_ALLOW_NONDETERMINISTIC_ALGO", val, sizeof val, &from_cfg))
		det_env(x, "NVTE_ALLOW_NONDETERMINISTIC_ALGO", strcmp(val, "0") == 0, val, from_cfg,
		        "0");
	if (job_env(x, "CUBLAS_WORKSPACE_CONFIG", val, sizeof val, &from_cfg))
		det_env(x, "CUBLAS_WORKSPACE_CONFIG",
		        strcmp(val, ":4096:8") == 0 || strcmp(val, ":16:8") == 0, val, from_cfg,
		        ":4096:8 or :16:8");
	for (i = 0; i < 2; i++)
		if (job_env(x, mamba[i], val, sizeof val, &from_cfg) && val[0] != '\0')
			det_env(x, mamba[i], val[0] == '1', val, from_cfg, "1");
}

/* ---- step batch-size schedule (MC051) ---- */

static void
mc051(struct mcinit_rule_ctx *x)
{
	long long thr[64], bs[64], step;
	char *why = NULL;
	int n, i;

	if (x->c->mversion < MCINIT_MV_R018 || NUL(step_batch_size_schedule))
		return;
	n = mcinit_rules_schedule(x, thr, bs, 64, &why);
	if (n < 0) {
		mcinit_diag_hint(
		    report(x, F(step_batch_size_schedule), "%s", why),
		    "write the schedule as space-separated THRESHOLD:BATCH_SIZE pairs, "
		    "e.g. \"0:768 250B:1536\" (thresholds in tokens, K/M/B/T suffixes)");
		free(why);
		return;
	}
	if (n == 0) {
		report(x, F(step_batch_size_schedule), "schedule must have at least one entry");
		return;
	}
	if (thr[0] != 0)
		mcinit_diag_hint(report(x, F(step_batch_size_schedule),
		                        "first schedule entry must have threshold 0, got %lld",
		                        thr[0]),
		                 "start the schedule with 0:BATCH_SIZE");
	for (i = 1; i < n; i++)
		if (thr[i] <= thr[i - 1])
			report(
			    x, F(step_batch_size_schedule),
			    "schedule thresholds must be strictly increasing, got %lld before %lld "
			    "(in samples: thresholds are tokens divided by seq_length)",
			    thr[i - 1], thr[i]);
	for (i = 0; i < n; i++)
		if (bs[i] <= 0)
			report(x, F(step_batch_size_schedule),
			       "batch size must be positive, got %lld", bs[i]);
	if (!x->dv->dp_ok)
		return;
	/* the calculator checks the current batch size once training runs */
	step = I(micro_batch_size) * x->dv->dp * x->dv->gtp;
	for (i = 0; i < n; i++)
		if (bs[i] > 0 && bs[i] % step != 0)
			report_sev(
			    x, i == 0 ? MCINIT_ERROR : MCINIT_WARNING, F(step_batch_size_schedule),
			    "schedule batch size %lld (from %lld samples) is not divisible by "
			    "micro_batch_size x data_parallel_size = %lld%s",
			    bs[i], thr[i], step,
			    i == 0 ? ": the first training step fails"
			           : ": training fails when it is reached");
}

/* ---- the tables ---- */

#define TP  F(tensor_model_parallel_size)
#define PP  F(pipeline_model_parallel_size)
#define CP  F(context_parallel_size)
#define EP  F(expert_model_parallel_size)
#define ETP F(expert_tensor_parallel_size)
#define NL  F(num_layers)
#define ACC F(account_for_embedding_in_pipeline_split), F(account_for_loss_in_pipeline_split)
#define VPPIN                                                                                      \
	F(num_layers_per_virtual_pipeline_stage), F(num_virtual_stages_per_pipeline_rank),         \
	    F(pipeline_model_parallel_layout)
#define UNEVEN F(num_layers_in_first_pipeline_stage), F(num_layers_in_last_pipeline_stage)

const struct mcinit_rule mcinit_rules[] = {
    {"MC010", MCINIT_ERROR, "the world size is divisible by TP x PP x CP",
     "--world-size 12 -- --tensor-model-parallel-size 8",
     "choose a world size that is a multiple of TP x PP x CP, or change the sizes",
     READS(TP, PP, CP, F(world_size)), mc010},
    {"MC011", MCINIT_ERROR, "the world size is divisible by expert TP x EP x PP",
     "--world-size 16 -- --expert-model-parallel-size 3 --num-experts 6",
     "choose EP and expert_tensor_parallel_size so that ETP x EP x PP divides the world "
     "size",
     READS(TP, PP, CP, EP, ETP), mc011},
    {"MC012", MCINIT_ERROR,
     "global_batch_size is a positive multiple of micro_batch_size x data-parallel size",
     "--world-size 8 -- --micro-batch-size 2 --global-batch-size 100",
     "use one of the suggested global batch sizes, change MBS or DP, or set "
     "decrease_batch_size_if_needed",
     READS(F(micro_batch_size), F(global_batch_size), F(decrease_batch_size_if_needed)), mc012},
    {"MC013", MCINIT_ERROR,
     "the evaluation global batch size is a multiple of eval micro-batch size x DP (for a "
     "Megatron-Bridge ConfigContainer: the DP of dist.eval_context_parallel_size when set, "
     "whatever decrease_batch_size_if_needed)",
     "validation.eval_global_batch_size=10 with DP 4",
     "use one of the suggested evaluation batch sizes",
     READS(F(eval_global_batch_size), F(eval_micro_batch_size), F(micro_batch_size),
           F(global_batch_size), F(eval_context_parallel_size)),
     mc013},
    {"MC014", MCINIT_ERROR, "num_attention_heads is divisible by TP",
     "--num-attention-heads 12 --tensor-model-parallel-size 8",
     "use a tensor-parallel size that divides the number of heads",
     READS(F(num_attention_heads), TP), mc014},
    {"MC015", MCINIT_ERROR,
     "with GQA, num_query_groups is a multiple or a divisor of TP (a multiple with "
     "--megatron-version=r0.15)",
     "--group-query-attention --num-query-groups 6 --tensor-model-parallel-size 4",
     "use a tensor-parallel size that divides num_query_groups",
     READS(F(group_query_attention), F(num_query_groups), TP), mc015},
    {"MC016", MCINIT_ERROR,
     "with GQA, num_query_groups >= 1 and divides num_attention_heads (Megatron does not "
     "check; Megatron-LM #5755)",
     "--num-attention-heads 32 --group-query-attention --num-query-groups 12",
     "use a number of query groups that divides the number of heads",
     READS(F(group_query_attention), F(num_query_groups), F(num_attention_heads)), mc016},
    {"MC017", MCINIT_ERROR,
     "hidden_size is divisible by num_attention_heads when kv_channels is derived (Megatron-LM's "
     "validate_args; not for a Megatron-Bridge ConfigContainer)",
     "--hidden-size 1000 --num-attention-heads 16",
     "set --kv-channels, or use a hidden size that is a multiple of the heads",
     READS(F(kv_channels), F(hidden_size), F(num_attention_heads)), mc017},
    {"MC018", MCINIT_ERROR, "EP > 1 needs num_moe_experts, a multiple of EP",
     "--expert-model-parallel-size 8 --num-experts 12",
     "use an expert-parallel size that divides the number of experts",
     READS(EP, F(num_moe_experts)), mc018},
    {"MC019", MCINIT_ERROR, "moe_router_topk <= num_moe_experts",
     "--num-experts 4 --moe-router-topk 8", "route each token to at most num_moe_experts",
     READS(F(moe_router_topk), F(num_moe_experts)), mc019},
    {"MC020", MCINIT_ERROR,
     "without an uneven split or a layout, the layers (plus embedding/loss when accounted "
     "for) split evenly over the pipeline (and virtual) stages; Megatron drops the rest "
     "silently (Megatron-LM PR #823)",
     "--num-layers 30 --pipeline-model-parallel-size 4",
     "use a suggested layer count or pipeline size, or an uneven first/last split",
     READS(NL, PP, ACC, UNEVEN, VPPIN), mc020},
    {"MC021", MCINIT_ERROR,
     "a virtual pipeline needs PP > 1, and PP > 2 when overlap_p2p_comm is off (the second "
     "only Megatron-LM's validate_args asks: a warning for a Megatron-Bridge ConfigContainer)",
     "--pipeline-model-parallel-size 1 --num-virtual-stages-per-pipeline-rank 2",
     "use pipeline parallelism, or drop the virtual pipeline option",
     READS(PP, F(overlap_p2p_comm)), mc021},
    {"MC022", MCINIT_ERROR,
     "num_layers_per_virtual_pipeline_stage divides the layers per stage and is not used "
     "with first/last stage counts",
     "--num-layers 32 --pipeline-model-parallel-size 4 "
     "--num-layers-per-virtual-pipeline-stage 3",
     "use a divisor of the layers per pipeline stage", READS(VPPIN, UNEVEN, NL, PP, ACC), mc022},
    {"MC023", MCINIT_ERROR,
     "at most one of num_layers_per_virtual_pipeline_stage, "
     "num_virtual_stages_per_pipeline_rank, pipeline_model_parallel_layout; a "
     "virtual_pipeline_model_parallel_size agrees with them",
     "--num-layers-per-virtual-pipeline-stage 2 --num-virtual-stages-per-pipeline-rank 4",
     "describe the virtual pipeline one way",
     READS(VPPIN, F(virtual_pipeline_model_parallel_size), NL, PP, ACC), mc023},
    {"MC024", MCINIT_ERROR,
     "a pipeline layout uses only E L t m, has a multiple of PP stages, num_layers t "
     "layers, E first and L last",
     "--pipeline-model-parallel-layout \"Ett|tt|tL\" --pipeline-model-parallel-size 2",
     "fix the layout string", READS(F(pipeline_model_parallel_layout), PP, NL), mc024},
    {"MC025", MCINIT_ERROR,
     "an uneven pipeline has positive first/last counts divisible by VPP, middle layers "
     "that divide over the middle stages, and no layout or account_for_* split",
     "--num-layers 30 --pipeline-model-parallel-size 4 "
     "--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6",
     "use the suggested first/last counts",
     READS(UNEVEN, PP, NL, ACC, F(pipeline_model_parallel_layout)), mc025},
    {"MC026", MCINIT_ERROR, "with CP > 1, seq_length is a multiple of 2 x CP",
     "--context-parallel-size 4 --seq-length 8196", "use one of the suggested sequence lengths",
     READS(CP, F(seq_length)), mc026},
    {"MC027", MCINIT_ERROR,
     "with sequence parallelism, seq_length is a multiple of TP (of CP x TP with context "
     "parallelism)",
     "--tensor-model-parallel-size 8 --sequence-parallel --seq-length 4100",
     "use one of the suggested sequence lengths",
     READS(F(sequence_parallel), CP, TP, F(seq_length)), mc027},
    {"MC028", MCINIT_ERROR,
     "hierarchical_context_parallel_sizes multiply to CP; cp_comm_type a2a+p2p needs them",
     "--context-parallel-size 8 --hierarchical-context-parallel-sizes 2 2",
     "make the product equal context_parallel_size",
     READS(F(hierarchical_context_parallel_sizes), CP, F(cp_comm_type)), mc028},
    {"MC029", MCINIT_ERROR,
     "with CP > 1, a cp_comm_type list has one entry per layer (a one-entry list stands for all "
     "layers, except in a Megatron-Bridge ConfigContainer)",
     "--num-layers 4 --context-parallel-size 2 --cp-comm-type p2p a2a",
     "give one value, or exactly num_layers values", READS(F(cp_comm_type), CP, NL), mc029},
    {"MC030", MCINIT_ERROR,
     "max_position_embeddings >= seq_length (Megatron-LM's validate_args; a warning for a "
     "Megatron-Bridge ConfigContainer)",
     "--seq-length 8192 --max-position-embeddings 4096",
     "raise max_position_embeddings to at least seq_length",
     READS(F(max_position_embeddings), F(seq_length)), mc030},
    {"MC031", MCINIT_ERROR, "fp16 and bf16 are not both set", "--fp16 --bf16",
     "choose one precision", READS(F(fp16), F(bf16)), mc031},
    {"MC032", MCINIT_ERROR,
     "tp_comm_overlap needs sequence_parallel (Megatron-LM's validate_args; a warning for a "
     "Megatron-Bridge ConfigContainer)",
     "--tensor-model-parallel-size 4 --tp-comm-overlap", "add --sequence-parallel",
     READS(F(tp_comm_overlap), F(sequence_parallel)), mc032},
    {"MC033", MCINIT_WARNING, "EP > 1 with TP > 1 should use sequence_parallel",
     "--expert-model-parallel-size 8 --tensor-model-parallel-size 2 --num-experts 8",
     "add --sequence-parallel", READS(EP, TP, F(sequence_parallel)), mc033},
    {"MC034", MCINIT_ERROR,
     "use_tp_pp_dp_mapping with PP > 1 needs expert data-parallel size = data-parallel "
     "size (Megatron fails this only at init)",
     "--world-size 16 -- --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
     "--context-parallel-size 2 --use-tp-pp-dp-mapping",
     "drop use_tp_pp_dp_mapping, or make ETP x EP = TP x CP",
     READS(F(use_tp_pp_dp_mapping), PP, TP, CP, EP, ETP), mc034},
    {"MC035", MCINIT_ERROR,
     "DP x CP and the expert data-parallel size are multiples of "
     "num_distributed_optimizer_instances",
     "--world-size 6 -- --num-distributed-optimizer-instances 4",
     "use a number of instances that divides DP x CP and the expert DP size",
     READS(F(num_distributed_optimizer_instances), CP), mc035},
    {"MC036", MCINIT_ERROR,
     "sharp_enabled_group needs use_sharp; dp_replica needs more than one optimizer "
     "instance",
     "--sharp-enabled-group dp", "add --use-sharp",
     READS(F(sharp_enabled_group), F(use_sharp), F(num_distributed_optimizer_instances)), mc036},
    {"MC037", MCINIT_ERROR,
     "use_megatron_fsdp and use_torch_fsdp2 are exclusive, and neither goes with "
     "use_tp_pp_dp_mapping",
     "--use-megatron-fsdp --use-torch-fsdp2", "choose one FSDP implementation",
     READS(F(use_megatron_fsdp), F(use_torch_fsdp2), F(use_tp_pp_dp_mapping)), mc037},
    {"MC038", MCINIT_ERROR,
     "use_torch_fsdp2 needs PP = 1 and EP = 1 (and no distributed optimizer, no fp16; "
     "Megatron-LM's validate_args: warnings for a Megatron-Bridge ConfigContainer)",
     "--use-torch-fsdp2 --pipeline-model-parallel-size 2",
     "drop pipeline/expert parallelism or use Megatron FSDP",
     READS(F(use_torch_fsdp2), PP, EP, F(use_distributed_optimizer), F(fp16)), mc038},
    {"MC039", MCINIT_ERROR, "high_priority_stream_groups names known group keys",
     "--high-priority-stream-groups dp_cpp", "use the group keys of mcinit topology",
     READS(F(high_priority_stream_groups)), mc039},
    {"MC040", MCINIT_ERROR,
     "train_iters and train_samples are exclusive (a warning when neither is set; for a "
     "Megatron-Bridge ConfigContainer, MC301 says what Bridge refuses)",
     "--train-iters 1000 --train-samples 512000", "keep one of them",
     READS(F(train_iters), F(train_samples)), mc040},
    {"MC041", MCINIT_ERROR,
     "rampup_batch_size: start > 0, increment > 0, samples >= 0, (GBS - start) a positive "
     "multiple of the increment, batch sizes multiples of MBS x DP, sample-based training",
     "--global-batch-size 1024 --rampup-batch-size 16 24 5000000",
     "choose an increment that divides GBS - start",
     READS(F(rampup_batch_size), F(train_iters), F(micro_batch_size),
           F(decrease_batch_size_if_needed)),
     mc041},
    {"MC042", MCINIT_ERROR,
     "seed > 0 and every rank's seed (seed + 100 x pp_rank [+ 10 x dp_rank]) < 2^32",
     "--seed 4294967290 --pipeline-model-parallel-size 4", "use a smaller seed",
     READS(F(seed), F(data_parallel_random_init), PP), mc042},
    {"MC043", MCINIT_ERROR,
     "a rank's model-parallel and expert-parallel CUDA RNG seeds differ (they collide for "
     "EP >= 18 with TP >= 7)",
     "--world-size 144 -- --tensor-model-parallel-size 8 --expert-model-parallel-size 18 "
     "--num-experts 36",
     "use EP <= 17 or TP <= 6", READS(TP, EP, ETP), mc043},
    {"MC044", MCINIT_ERROR,
     "TP > 1 or CP > 1 on GPUs before Blackwell (arch < 100) without FSDP needs "
     "CUDA_DEVICE_MAX_CONNECTIONS=1 (a warning when the arch is unknown); FSDP needs it "
     "unset or > 1",
     "launch.gpu_arch=90 -- --tensor-model-parallel-size 2",
     "export CUDA_DEVICE_MAX_CONNECTIONS=1 or set it in env_vars",
     READS(TP, CP, F(use_torch_fsdp2), F(use_megatron_fsdp), F(overlap_moe_expert_parallel_comm)),
     mc044},
    {"MC045", MCINIT_WARNING,
     "distributed_backend nccl needs a CUDA device (an error for mcinit run without "
     "--allow-no-cuda)",
     "CUDA_VISIBLE_DEVICES= mcinit validate job.json",
     "run on a GPU node, or use the gloo backend for CPU-only tests", READS(F(distributed_backend)),
     mc045},
    {"MC046", MCINIT_WARNING,
     "tensor-parallel groups stay inside a node (TP <= nproc_per_node and divides it)",
     "--nproc-per-node 8 -- --tensor-model-parallel-size 16", "keep TP within a node",
     READS(TP, CP, F(bf16), F(fp16)), mc046},
    {"MC047", MCINIT_WARNING, "the world size equals nnodes x nproc_per_node when both are known",
     "--world-size 16 --nnodes 1 --nproc-per-node 8", "make them agree", READS(F(world_size)),
     mc047},
    {"MC048", MCINIT_NOTE,
     "lazy_mpu_init: the TP rank comes from the global rank until groups exist; TP comm "
     "overlap is not initialised on the lazy path",
     "--lazy-mpu-init", "none needed; be aware of the quirk",
     READS(F(lazy_mpu_init), F(tp_comm_overlap)), mc048},
    {"MC049", MCINIT_NOTE,
     "vocab_size is padded to a multiple of make_vocab_size_divisible_by x TP (for a "
     "Megatron-Bridge ConfigContainer: NullTokenizer's tokenizer.vocab_size when "
     "use_tokenizer_vocab_size is set or model.vocab_size is not; a preset model.vocab_size is "
     "not padded)",
     "--vocab-size 50257 --tensor-model-parallel-size 2",
     "none needed; the padded rows are never predicted",
     READS(F(vocab_size), F(make_vocab_size_divisible_by), TP, F(tokenizer_vocab_size),
           F(use_tokenizer_vocab_size)),
     mc049},
    {"MC050", MCINIT_ERROR,
     "deterministic_mode: no cross_entropy_loss_fusion or tp_comm_overlap, and NCCL_ALGO, "
     "NVTE_ALLOW_NONDETERMINISTIC_ALGO, CUBLAS_WORKSPACE_CONFIG, MAMBA_DETERMINISTIC are "
     "deterministic when set (before core_r0.19: no flash attention or cross-entropy fusion, "
     "NCCL_ALGO set to Tree, Ring, CollnetDirect, CollnetChain or ^NVLS)",
     "--deterministic-mode --cross-entropy-loss-fusion",
     "drop the non-deterministic option, or fix the environment variable",
     READS(F(deterministic_mode), F(cross_entropy_loss_fusion), F(tp_comm_overlap)), mc050},
    {"MC051", MCINIT_ERROR,
     "step_batch_size_schedule (core_r0.18 on) parses as THRESHOLD:BATCH_SIZE pairs, starts "
     "at threshold 0, increases strictly, has positive batch sizes divisible by MBS x DP (a "
     "warning for later steps)",
     "--step-batch-size-schedule \"100:512 0:256\" --micro-batch-size 1",
     "fix the schedule; thresholds are tokens (K/M/B/T suffixes), batch sizes in samples",
     READS(F(step_batch_size_schedule), F(micro_batch_size), F(seq_length)), mc051},
    {"MC060", MCINIT_ERROR,
     "gtp_remat (tensor_parallel_num_weight_shards > TP) needs one distributed-optimizer "
     "instance",
     "--megatron-version main -- --tensor-model-parallel-size 2 "
     "--tensor-parallel-num-weight-shards 4 --num-distributed-optimizer-instances 2",
     "drop --num-distributed-optimizer-instances, or the weight shards",
     READS(F(num_distributed_optimizer_instances), F(tensor_parallel_num_weight_shards),
           F(expert_tensor_parallel_num_weight_shards), TP, ETP),
     mc060},
    {"MC061", MCINIT_ERROR,
     "tensor_parallel_num_weight_shards is a multiple of TP (expert: of ETP), at least TP",
     "--megatron-version main -- --tensor-model-parallel-size 4 "
     "--tensor-parallel-num-weight-shards 6",
     "use a multiple of the tensor-parallel size: TP x gtp_remat",
     READS(F(tensor_parallel_num_weight_shards), F(expert_tensor_parallel_num_weight_shards), TP,
           ETP),
     mc061},
    {"MC062", MCINIT_ERROR,
     "core_r0.15 only: no activation recomputation under CUDA graphs, except selective "
     "recomputation with cuda_graph_impl transformer_engine and cuda_graph_scope attn",
     "--megatron-version r0.15 -- --cuda-graph-impl local --recompute-granularity full",
     "drop the recomputation or the CUDA graphs (core_r0.16 on allow full recomputation with "
     "full-iteration graphs)",
     READS(F(cuda_graph_impl), F(recompute_granularity), F(cuda_graph_scope)), mc062},
    {"MC200", MCINIT_ERROR,
     "Megatron-LM's own check in validate_args (megatron/training/arguments.py) holds (one row of "
     "data/megatron-checks.tsv)",
     "--use-torch-fsdp2 --use-distributed-optimizer without --untie-embeddings-and-output-weights",
     "do what Megatron's message (quoted) asks", READS(F(world_size)), mcinit_rules_mchecks},
    {"MC201", MCINIT_ERROR,
     "Megatron-LM's own check in TransformerConfig.__post_init__ (megatron/core/transformer/) "
     "holds (one row of data/megatron-checks.tsv)",
     "--num-experts 8 --moe-router-topk 2 --moe-router-load-balancing-type seq_aux_loss "
     "--moe-aux-loss-coeff 0 ...",
     "do what Megatron's message (quoted) asks", READS(F(world_size)), mcinit_rules_mchecks},
    {"MC202", MCINIT_ERROR,
     "Megatron-LM's own check in ModelParallelConfig.__post_init__ "
     "(megatron/core/model_parallel_config.py) holds (one row of data/megatron-checks.tsv)",
     "--tensor-parallel-num-weight-shards 3 --tensor-model-parallel-size 2",
     "do what Megatron's message (quoted) asks", READS(F(world_size)), mcinit_rules_mchecks},
    {"MC203", MCINIT_ERROR,
     "Megatron-LM's own check in OptimizerConfig.__post_init__ (megatron/core/optimizer/) holds "
     "(one row of data/megatron-checks.tsv)",
     "an optimizer option out of its range", "do what Megatron's message (quoted) asks",
     READS(F(world_size)), mcinit_rules_mchecks},
    {"MC204", MCINIT_ERROR,
     "Megatron-LM's own check in DistributedDataParallelConfig.__post_init__ "
     "(megatron/core/distributed/) holds (one row of data/megatron-checks.tsv)",
     "a DDP option combination Megatron rejects", "do what Megatron's message (quoted) asks",
     READS(F(world_size)), mcinit_rules_mchecks},
    {"MC205", MCINIT_ERROR,
     "Megatron-LM's own check in the micro-batch calculator "
     "(megatron/core/num_microbatches_calculator.py) holds (one row of data/megatron-checks.tsv)",
     "--step-batch-size-schedule with --global-batch-size",
     "do what Megatron's message (quoted) asks", READS(F(world_size)), mcinit_rules_mchecks},
    {"MC206", MCINIT_ERROR,
     "Megatron-LM's own check in the training-config dataclasses (megatron/training/config/) holds "
     "(one row of data/megatron-checks.tsv)",
     "a training option combination Megatron rejects", "do what Megatron's message (quoted) asks",
     READS(F(world_size)), mcinit_rules_mchecks},
    {"MC250", MCINIT_WARNING,
     "a warning Megatron-LM prints in validate_args (megatron/training/arguments.py) (one row of "
     "data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC251", MCINIT_WARNING,
     "a warning Megatron-LM prints in TransformerConfig.__post_init__ (megatron/core/transformer/) "
     "(one row of data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC252", MCINIT_WARNING,
     "a warning Megatron-LM prints in ModelParallelConfig.__post_init__ "
     "(megatron/core/model_parallel_config.py) (one row of data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC253", MCINIT_WARNING,
     "a warning Megatron-LM prints in OptimizerConfig.__post_init__ (megatron/core/optimizer/) "
     "(one row of data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC254", MCINIT_WARNING,
     "a warning Megatron-LM prints in DistributedDataParallelConfig.__post_init__ "
     "(megatron/core/distributed/) (one row of data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC255", MCINIT_WARNING,
     "a warning Megatron-LM prints in the micro-batch calculator "
     "(megatron/core/num_microbatches_calculator.py) (one row of data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC256", MCINIT_WARNING,
     "a warning Megatron-LM prints in the training-config dataclasses (megatron/training/config/) "
     "(one row of data/megatron-checks.tsv)",
     "see the quoted Megatron message",
     "do what Megatron's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_mchecks},
    {"MC300", MCINIT_ERROR,
     "Megatron-Bridge's own check in ConfigContainer.validate, or in what runtime_config_update "
     "runs before it, holds for a ConfigContainer (a config whose root _target_ is "
     "megatron.bridge.training.config.ConfigContainer), as the config's Bridge release "
     "(--bridge-version) has it (one row of data/bridge-checks.tsv)",
     "model.seq_length 131072 with dataset.seq_length 8192 (Bridge 0.6.2's "
     "nemotron_nano_9b_v2_pretrain_config)",
     "do what Bridge's message (quoted) asks", READS(F(world_size)), mcinit_rules_bchecks},
    {"MC301", MCINIT_ERROR,
     "Megatron-Bridge's own check in a section's finalize (TrainingConfig, SchedulerConfig, "
     "CheckpointConfig, LoggerConfig, ProfilingConfig, NVRxStragglerDetectionConfig, "
     "GPTDatasetConfig, MixedPrecisionConfig) holds for a ConfigContainer (one row of "
     "data/bridge-checks.tsv)",
     "scheduler.lr_warmup_fraction 0.01 with scheduler.lr_warmup_iters 2000",
     "do what Bridge's message (quoted) asks", READS(F(world_size)), mcinit_rules_bchecks},
    {"MC350", MCINIT_WARNING,
     "a warning Megatron-Bridge gives in ConfigContainer.validate or runtime_config_update "
     "for a ConfigContainer (one row of data/bridge-checks.tsv)",
     "ddp.use_distributed_optimizer true with optimizer.use_distributed_optimizer false",
     "do what Bridge's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_bchecks},
    {"MC351", MCINIT_WARNING,
     "a warning Megatron-Bridge gives in a section's finalize or __post_init__ for a "
     "ConfigContainer (one row of data/bridge-checks.tsv)",
     "tokenizer.hf_tokenizer_kwargs set",
     "do what Bridge's message (quoted) suggests, or ignore it", READS(F(world_size)),
     mcinit_rules_bchecks},
};
const size_t mcinit_nrules = sizeof mcinit_rules / sizeof mcinit_rules[0];

const struct mcinit_rule *
mcinit_rule_find(const char *code)
{
	size_t i;

	for (i = 0; i < mcinit_nrules; i++)
		if (strcmp(mcinit_rules[i].code, code) == 0)
			return &mcinit_rules[i];
	return NULL;
}

int
mcinit_check(struct mcinit_config *c, const struct mcinit_check_opts *o, struct mcinit_derived *dv,
             struct mcinit_diags *d, struct mcinit_err *err)
{
	struct mcinit_rule_ctx x = {c, dv, d, o, NULL, 0};
	size_t i;

	(void)err;
	memset(dv, 0, sizeof *dv);
	mcinit_rules_repair(&x);
	mcinit_rules_derive_sizes(&x);
	mcinit_rules_repair_p2p(&x);
	mcinit_rules_derive_rest(&x);
	for (i = 0; i < mcinit_nrules; i++) {
		x.rule = &mcinit_rules[i];
		/* A rule whose inputs were rejected would only repeat that error. */
		if (any_invalid(c, x.rule->reads))
			continue;
		x.rule->check(&x);
	}
	return 0;
}
