/*
 * rules.c — repairs, derived values and the cross-field rules of rules.md,
 * one function per rule, listed in one table.  See rules.h for the order of
 * work and the conventions.
 *
 * Every rule reproduces a check that Megatron-LM, Megatron-Core or
 * Megatron-Bridge makes somewhere between argument parsing and the first
 * training step (validate_args, the micro-batch calculator, the config
 * dataclasses' __post_init__, initialize_model_parallel, the RNG setup), or a
 * silent failure they do not check.  Messages carry the values involved and
 * hints compute a fix where one can be computed.
 */
#include "rules.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "affinity.h"
#include "mflags.h"
#include "topology.h"

struct mcinit_rule_ctx {
	struct mcinit_config *c;
	struct mcinit_derived *dv;
	struct mcinit_diags *d;
	const struct mcinit_check_opts *o;
	const struct mcinit_rule *rule; /* NULL while repairing */
};

/* ---- helpers ---- */

#define F(f)   MCINIT_F_##f
#define I(f)   mcinit_cfg_int(x->c, MCINIT_F_##f)
#define B(f)   mcinit_cfg_bool(x->c, MCINIT_F_##f)
#define NUL(f) mcinit_cfg_null(x->c, MCINIT_F_##f)
#define BAD(f) (x->c->invalid[MCINIT_F_##f])

/* Layouts unroll `(...)*n`: cap what a typo like `t*99999999` may cost. */
#define LAYOUT_MAX (1u << 20)

static struct mcinit_diag *
vemit(struct mcinit_rule_ctx *x, enum mcinit_severity sev, const char *code,
      const struct mcinit_loc *loc, const char *key, const char *suffix, const char *fmt,
      va_list ap)
{
	struct mcinit_diag *g;
	char *msg = NULL, k[128];
	const enum mcinit_field *r;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	g = mcinit_diag_add(x->d, sev, code, loc, "%s%s", msg ? msg : fmt, suffix);
	if (key != NULL)
		mcinit_diag_key(g, key);
	for (r = x->rule ? x->rule->reads : NULL; r && *r != MCINIT_F_COUNT; r++)
		mcinit_diag_key(g, mcinit_field_key(*r, k, sizeof k));
	free(msg);
	return g;
}

/*
 * A finding about field `at`, located where the user wrote it.  A value that
 * came from a default (or that mcinit derived) has no place to point at: the
 * message says so instead.
 */
static struct mcinit_diag *
vreport_field(struct mcinit_rule_ctx *x, enum mcinit_severity sev, const char *code,
              enum mcinit_field at, const char *fmt, va_list ap)
{
	const struct mcinit_loc *loc = &x->c->loc[at];
	char key[128], suffix[192] = "";

	mcinit_field_key(at, key, sizeof key);
	if (x->c->origin[at] == MCINIT_ORIG_DEFAULT) {
		snprintf(suffix, sizeof suffix, " (%s is the default)", key);
		loc = NULL;
	} else if (loc->source == NULL) {
		snprintf(suffix, sizeof suffix, " (%s was derived by mcinit)", key);
		loc = NULL;
	}
	return vemit(x, sev, code, loc, key, suffix, fmt, ap);
}

/* The current rule's finding, with the rule's severity. */
static struct mcinit_diag *report(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt,
                                  ...) __attribute__((format(printf, 3, 4)));
static struct mcinit_diag *
report(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = vreport_field(x, x->rule->sev, x->rule->code, at, fmt, ap);
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
	g = vreport_field(x, sev, x->rule->code, at, fmt, ap);
	va_end(ap);
	return g;
}

/* A repair or derived-value note (no rule is current). */
static struct mcinit_diag *note(struct mcinit_rule_ctx *x, const char *code,
                                enum mcinit_severity sev, enum mcinit_field at, const char *fmt,
                                ...) __attribute__((format(printf, 5, 6)));
static struct mcinit_diag *
note(struct mcinit_rule_ctx *x, const char *code, enum mcinit_severity sev, enum mcinit_field at,
     const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = vreport_field(x, sev, code, at, fmt, ap);
	va_end(ap);
	return g;
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
	g = vemit(x, x->rule->sev, x->rule->code, loc && loc->source ? loc : NULL, NULL, "", fmt,
	          ap);
	va_end(ap);
	return g;
}

static bool
user_wrote(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->origin[f] != MCINIT_ORIG_DEFAULT && c->origin[f] != MCINIT_ORIG_REPAIR;
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

static long long
gcd(long long a, long long b)
{
	while (b != 0) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

static long long
lcm(long long a, long long b)
{
	return a / gcd(a, b) * b;
}

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

static bool
any_invalid(const struct mcinit_config *c, const enum mcinit_field *fs)
{
	for (; *fs != MCINIT_F_COUNT; fs++)
		if (c->invalid[*fs])
			return true;
	return false;
}
#define INVALID(c, ...) any_invalid(c, (const enum mcinit_field[]){__VA_ARGS__, MCINIT_F_COUNT})

/* Keeps where the user wrote a value when a repair changes it, so later
 * findings about it still point there. */
static void
repair_bool(struct mcinit_config *c, enum mcinit_field f, bool v)
{
	struct mcinit_loc l = c->loc[f];

	mcinit_cfg_set_bool(c, f, v, MCINIT_ORIG_REPAIR, &l);
}

/* ---- environment ---- */

static const char *
env_get(const struct mcinit_check_opts *o, const char *name)
{
	size_t n = strlen(name);
	char *const *e;

	if (o->envp == NULL)
		return getenv(name);
	for (e = o->envp; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static const struct mcinit_loc env_loc = {"env", 0, 0, 1 << 30};

static int
env_int(const struct mcinit_check_opts *o, const char *name, long long *out, struct mcinit_diags *d)
{
	const char *s = env_get(o, name);
	char *end;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*end != '\0' || errno != 0 || *out < 1) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC005", &env_loc,
		                "%s='%s' is not a positive integer", name, s);
		return -1;
	}
	return 1;
}

/*
 * An environment variable as the job will see it: the process environment
 * wins over env_vars (which `run` applies with setdefault semantics, as
 * Megatron-Bridge does).  env_vars values are turned into text the way
 * Python's str() does.  *from_config tells where it came from.
 */
static bool
job_env(const struct mcinit_rule_ctx *x, const char *name, char *buf, size_t len, bool *from_config)
{
	const char *s = env_get(x->o, name);
	json_t *j;

	*from_config = false;
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
	mcinit_diag_hint(note(x, "MC101", MCINIT_NOTE, F(sequence_parallel),
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
 * activations sent between stages) follows params_dtype. */
static void
repair_dtypes(struct mcinit_rule_ctx *x)
{
	if (INVALID(x->c, F(fp16), F(bf16), F(params_dtype), F(pipeline_dtype),
	            F(pipeline_model_parallel_size)))
		return;
	if (NUL(params_dtype) && !(B(fp16) && B(bf16)))
		mcinit_cfg_set_str(x->c, F(params_dtype), compute_dtype(x), MCINIT_ORIG_REPAIR,
		                   NULL);
	if (NUL(pipeline_dtype) && !NUL(params_dtype) && I(pipeline_model_parallel_size) > 1) {
		mcinit_cfg_set_str(x->c, F(pipeline_dtype), mcinit_cfg_str(x->c, F(params_dtype)),
		                   MCINIT_ORIG_REPAIR, NULL);
		note(x, "MC102", MCINIT_NOTE, F(pipeline_model_parallel_size),
		     "pipeline_dtype not set: pipeline stages exchange activations as %s "
		     "(params_dtype)",
		     mcinit_cfg_str(x->c, F(params_dtype)));
	}
}

/* R3: Megatron-LM takes ETP = TP when unset; Megatron-Bridge (>= PR #4579)
 * takes 1 when EP > 1.  The two disagree silently, so say which applies. */
static void
repair_etp(struct mcinit_rule_ctx *x)
{
	long long tp, ep, etp;
	enum mcinit_field at;
	bool moe;

	if (INVALID(x->c, F(tensor_model_parallel_size), F(expert_model_parallel_size),
	            F(expert_tensor_parallel_size), F(num_moe_experts)) ||
	    !NUL(expert_tensor_parallel_size))
		return;
	tp = I(tensor_model_parallel_size);
	ep = I(expert_model_parallel_size);
	etp = x->o->bridge_defaults && ep > 1 ? 1 : tp;
	mcinit_cfg_set_int(x->c, F(expert_tensor_parallel_size), etp, MCINIT_ORIG_REPAIR, NULL);
	moe = ep > 1 || (!NUL(num_moe_experts) && I(num_moe_experts) > 0);
	/* With TP = 1 both conventions give 1: nothing to say. */
	if (!moe || tp == 1)
		return;
	at = user_wrote(x->c, F(expert_model_parallel_size)) ? F(expert_model_parallel_size)
	                                                     : F(num_moe_experts);
	if (etp == 1)
		mcinit_diag_hint(note(x, "MC103", MCINIT_NOTE, at,
		                      "expert_tensor_parallel_size not set: experts use ETP = 1 "
		                      "(Megatron-Bridge's default with EP = %lld > 1; Megatron-LM "
		                      "would use TP = %lld)",
		                      ep, tp),
		                 "set expert_tensor_parallel_size explicitly so that both agree");
	else
		mcinit_diag_hint(
		    note(x, "MC103", MCINIT_NOTE, at,
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
	note(x, "MC104", MCINIT_NOTE, F(lazy_mpu_init),
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
	note(x, "MC105", MCINIT_NOTE, F(num_moe_experts),
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
	note(x, "MC106", MCINIT_NOTE, F(cuda_graph_impl),
	     "te_rng_tracker turned on: CUDA graphs (cuda_graph_impl = %s) need Transformer "
	     "Engine's RNG tracker",
	     impl);
}

/* R7 runs after D2: it depends on whether there is a virtual pipeline. */
static void
repair_p2p_overlap(struct mcinit_rule_ctx *x)
{
	if (!x->dv->vpp_ok || x->dv->vpp > 0 ||
	    INVALID(x->c, F(overlap_p2p_comm), F(pipeline_model_parallel_size)) ||
	    !B(overlap_p2p_comm))
		return;
	if (I(pipeline_model_parallel_size) > 1)
		note(x, "MC107", MCINIT_NOTE,
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
		mcinit_diag_hint(note(x, "MC108", MCINIT_WARNING, F(use_megatron_fsdp),
		                      "use_distributed_optimizer turned on: Megatron FSDP always "
		                      "uses the distributed optimizer"),
		                 "set ddp.use_distributed_optimizer=true to say so");
	}
	if (B(overlap_param_gather) && !(B(use_distributed_optimizer) || fsdp)) {
		mcinit_diag_hint(note(x, "MC108", MCINIT_WARNING, F(overlap_param_gather),
		                      "overlap_param_gather turned off: it needs "
		                      "use_distributed_optimizer (Megatron-LM asserts this)"),
		                 "add --use-distributed-optimizer, or drop --overlap-param-gather");
		repair_bool(x->c, F(overlap_param_gather), false);
	} else if (B(overlap_param_gather) && !B(overlap_grad_reduce)) {
		mcinit_diag_hint(note(x, "MC108", MCINIT_WARNING, F(overlap_param_gather),
		                      "overlap_param_gather turned off: it needs "
		                      "overlap_grad_reduce (Megatron-LM asserts this)"),
		                 "add --overlap-grad-reduce, or drop --overlap-param-gather");
		repair_bool(x->c, F(overlap_param_gather), false);
	}
}

/* num_query_groups without group_query_attention: Megatron-LM passes
 * num_query_groups = None to the model, i.e. plain multi-head attention. */
static void
note_gqa_ignored(struct mcinit_rule_ctx *x)
{
	if (INVALID(x->c, F(num_query_groups), F(group_query_attention)) || NUL(num_query_groups) ||
	    B(group_query_attention))
		return;
	mcinit_diag_hint(note(x, "MC111", MCINIT_NOTE, F(num_query_groups),
	                      "num_query_groups = %lld is ignored: group_query_attention is "
	                      "false, so the model uses multi-head attention",
	                      I(num_query_groups)),
	                 "add --group-query-attention (model.group_query_attention=true) to use "
	                 "grouped-query attention");
}

/* ---- limits ---- */

/*
 * Products of sizes must not overflow: values far beyond any machine are
 * rejected here (MC005, like any out-of-range value) and marked invalid, so
 * every later rule may multiply freely.
 */
static const struct {
	enum mcinit_field f;
	int bits; /* |value| < 2^bits */
} limits[] = {
    {F(tensor_model_parallel_size), 20},
    {F(pipeline_model_parallel_size), 20},
    {F(context_parallel_size), 20},
    {F(expert_model_parallel_size), 20},
    {F(expert_tensor_parallel_size), 20},
    {F(virtual_pipeline_model_parallel_size), 20},
    {F(num_layers_per_virtual_pipeline_stage), 31},
    {F(num_virtual_stages_per_pipeline_rank), 20},
    {F(num_distributed_optimizer_instances), 20},
    {F(num_layers), 31},
    {F(num_layers_in_first_pipeline_stage), 31},
    {F(num_layers_in_last_pipeline_stage), 31},
    {F(hierarchical_context_parallel_sizes), 20},
    {F(hidden_size), 31},
    {F(ffn_hidden_size), 31},
    {F(moe_ffn_hidden_size), 31},
    {F(num_attention_heads), 31},
    {F(num_query_groups), 31},
    {F(kv_channels), 31},
    {F(seq_length), 31},
    {F(max_position_embeddings), 40},
    {F(num_moe_experts), 31},
    {F(moe_router_topk), 31},
    {F(vocab_size), 31},
    {F(make_vocab_size_divisible_by), 31},
    {F(micro_batch_size), 31},
    {F(global_batch_size), 31},
    {F(eval_global_batch_size), 31},
    {F(eval_micro_batch_size), 31},
    {F(rampup_batch_size), 50},
    {F(train_iters), 50},
    {F(train_samples), 50},
    {F(seed), 62},
    {F(world_size), 31},
    {F(nnodes), 20},
    {F(nproc_per_node), 20},
};

static bool
beyond(const struct mcinit_value *v, long long lim, long long *bad)
{
	size_t i;

	if (v->kind == MCINIT_V_INT && (v->i >= lim || v->i <= -lim)) {
		*bad = v->i;
		return true;
	}
	for (i = 0; v->kind == MCINIT_V_LIST && i < v->n; i++)
		if (beyond(&v->items[i], lim, bad))
			return true;
	return false;
}

static void
check_limits(struct mcinit_rule_ctx *x)
{
	size_t i;

	for (i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		enum mcinit_field f = limits[i].f;
		long long lim = 1LL << limits[i].bits, bad;

		if (x->c->invalid[f] || !beyond(&x->c->val[f], lim, &bad))
			continue;
		note(x, "MC005", MCINIT_ERROR, f, "%s %lld is beyond what mcinit supports (2^%d)",
		     mcinit_fields[f].name, bad, limits[i].bits);
		x->c->invalid[f] = true;
	}
}

/* ---- D12: world size ---- */

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
		dv->world_size_source = "--world-size";
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
			dv->world_size_loc = env_loc;
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
	/* The same bound as launch.world_size (check_limits). */
	if (dv->world_size >= (1LL << 31)) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC005",
		                dv->world_size_loc.source ? &dv->world_size_loc : NULL,
		                "world size %lld (from %s) is beyond what mcinit supports (2^31)",
		                dv->world_size, dv->world_size_source);
		dv->world_ok = false;
	}
}

/* ---- D1, D3 ---- */

static void
derive_parallel(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long mp, emp;

	if (!dv->world_ok || INVALID(x->c, F(tensor_model_parallel_size),
	                             F(pipeline_model_parallel_size), F(context_parallel_size)))
		return;
	mp = I(tensor_model_parallel_size) * I(pipeline_model_parallel_size) *
	     I(context_parallel_size);
	if (dv->world_size % mp == 0) {
		dv->dp = dv->world_size / mp;
		dv->dp_ok = true;
	}
	if (INVALID(x->c, F(expert_model_parallel_size), F(expert_tensor_parallel_size)) ||
	    NUL(expert_tensor_parallel_size))
		return;
	dv->etp = I(expert_tensor_parallel_size);
	dv->etp_ok = true;
	emp = dv->etp * I(expert_model_parallel_size) * I(pipeline_model_parallel_size);
	if (dv->world_size % emp == 0) {
		dv->edp = dv->world_size / emp;
		dv->edp_ok = true;
	}
}

/* ---- D2: virtual pipeline size ---- */

static long long
split_layers(struct mcinit_rule_ctx *x)
{
	return I(num_layers) + B(account_for_embedding_in_pipeline_split) +
	       B(account_for_loss_in_pipeline_split);
}

/* How many of the ways to ask for a virtual pipeline are used (MC023). */
static int
vpp_sources(struct mcinit_rule_ctx *x)
{
	return !NUL(num_layers_per_virtual_pipeline_stage) +
	       !NUL(num_virtual_stages_per_pipeline_rank) + !NUL(pipeline_model_parallel_layout);
}

/* VPP from the Megatron-LM inputs, before comparing with a VPP written
 * directly (Megatron-Bridge style).  -1: cannot be derived. */
static long long
vpp_from_inputs(struct mcinit_rule_ctx *x, const char **src)
{
	long long pp = I(pipeline_model_parallel_size);

	*src = NULL;
	if (!NUL(pipeline_model_parallel_layout)) {
		long n = mcinit_layout_parse(
		    mcinit_cfg_str(x->c, F(pipeline_model_parallel_layout)), NULL, 0, NULL);

		*src = "pipeline_model_parallel_layout";
		return n > 0 && n % pp == 0 ? n / pp : -1;
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
	v = vpp_from_inputs(x, &src);
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
		} else if (I(hidden_size) % I(num_attention_heads) == 0) {
			dv->kv_channels = I(hidden_size) / I(num_attention_heads);
			dv->kv_ok = true;
		}
	}
	if (!INVALID(x->c, F(vocab_size), F(make_vocab_size_divisible_by),
	             F(tensor_model_parallel_size)) &&
	    !NUL(vocab_size)) {
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

	if (r->kind != MCINIT_V_LIST) {
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

static void
derive_batch(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long step;

	if (!dv->dp_ok || INVALID(x->c, F(micro_batch_size), F(global_batch_size),
	                          F(decrease_batch_size_if_needed)))
		return;
	step = I(micro_batch_size) * dv->dp;
	dv->gbs = NUL(global_batch_size) ? step : I(global_batch_size);
	dv->running_gbs = B(decrease_batch_size_if_needed) ? dv->gbs / step * step : dv->gbs;
	dv->gbs_ok = true;
	if (dv->running_gbs % step == 0 && dv->running_gbs >= step) {
		dv->num_micro_batches = dv->running_gbs / step;
		dv->nmb_ok = true;
	}
	if (B(decrease_batch_size_if_needed) && dv->running_gbs != dv->gbs && dv->running_gbs > 0)
		note(x, "MC109", MCINIT_NOTE, F(global_batch_size),
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

static void
derive_rest(struct mcinit_rule_ctx *x)
{
	derive_shape(x);
	derive_batch(x);
	if (!INVALID(x->c, F(num_layers), F(pipeline_model_parallel_size),
	             F(account_for_embedding_in_pipeline_split),
	             F(account_for_loss_in_pipeline_split)))
		derive_layers(x);
	derive_seq_and_seeds(x);
}

/* ---- pipeline layouts ---- */

/* One re.sub pass of Megatron's parse_str_to_list: every non-overlapping
 * match of `pattern`, left to right, becomes group 1 repeated group 2 times. */
static int
unroll(const char *in, const char *pattern, struct mcinit_buf *out, char **why)
{
	regmatch_t m[3];
	const char *p = in;
	regex_t re;
	int rc = -1;

	if (regcomp(&re, pattern, REG_EXTENDED) != 0) {
		*why = mcinit_xstrdup("internal error: bad layout pattern");
		return -1;
	}
	out->len = 0;
	while (*p && regexec(&re, p, 3, m, p == in ? 0 : REG_NOTBOL) == 0) {
		size_t glen = (size_t)(m[1].rm_eo - m[1].rm_so);
		unsigned long long n, k;

		errno = 0;
		n = strtoull(p + m[2].rm_so, NULL, 10);
		if (errno != 0 || (glen > 0 && n > LAYOUT_MAX / glen) ||
		    out->len + glen * n > LAYOUT_MAX) {
			*why = mcinit_xasprintf("unrolls to more than %u layers", LAYOUT_MAX);
			goto out;
		}
		mcinit_buf_add(out, p, (size_t)m[0].rm_so);
		for (k = 0; k < n; k++)
			mcinit_buf_add(out, p + m[1].rm_so, glen);
		p += m[0].rm_eo;
	}
	mcinit_buf_adds(out, p);
	mcinit_buf_cstr(out);
	rc = 0;
out:
	regfree(&re);
	return rc;
}

/* The unrolled layout: stages separated by '|', each a string of E L t m. */
static int
layout_unroll(const char *layout, struct mcinit_buf *flat, char **why)
{
	struct mcinit_buf a = {0}, b = {0};
	const char *p;
	int rc = -1;

	for (p = layout; *p; p++)
		if (*p != ',')
			mcinit_buf_addc(&a, *p);
	mcinit_buf_cstr(&a);
	if (unroll(a.data, "\\(([^)]+)\\)\\*([0-9]+)", &b, why) < 0 ||
	    unroll(b.data, "(.)\\*([0-9]+)", flat, why) < 0)
		goto out;
	for (p = flat->data; *p; p++) {
		if (strchr("ELtm|", *p) == NULL) {
			*why = mcinit_xasprintf("'%c' is not a layer (known: E embedding, L loss, "
			                        "t transformer layer, m MTP layer; | ends a stage)",
			                        *p);
			goto out;
		}
	}
	rc = 0;
out:
	mcinit_buf_free(&a);
	mcinit_buf_free(&b);
	return rc;
}

long
mcinit_layout_parse(const char *layout, int *t_counts, size_t max, char **why)
{
	struct mcinit_buf flat = {0};
	char *msg = NULL;
	const char *p;
	long stages = 1;

	if (layout_unroll(layout, &flat, &msg) < 0) {
		stages = -1;
		goto out;
	}
	if (t_counts != NULL && max > 0)
		t_counts[0] = 0;
	for (p = flat.data; *p; p++) {
		if (*p == '|') {
			if (t_counts != NULL && (size_t)stages < max)
				t_counts[stages] = 0;
			stages++;
		} else if (*p == 't' && t_counts != NULL && (size_t)stages <= max) {
			t_counts[stages - 1]++;
		}
	}
out:
	if (why != NULL)
		*why = msg;
	else
		free(msg);
	mcinit_buf_free(&flat);
	return stages;
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
	long long w = x->dv->world_size, mp = I(tensor_model_parallel_size) *
	                                      I(pipeline_model_parallel_size) *
	                                      I(context_parallel_size);
	struct mcinit_buf near = {0};
	struct mcinit_diag *g;

	if (!x->dv->world_ok || w % mp == 0)
		return;
	g = report(x,
	           written(x, F(tensor_model_parallel_size), F(pipeline_model_parallel_size),
	                   F(context_parallel_size)),
	           "world size %lld (from %s) is not divisible by TP x PP x CP = %lld x %lld x "
	           "%lld = %lld",
	           w, x->dv->world_size_source, I(tensor_model_parallel_size),
	           I(pipeline_model_parallel_size), I(context_parallel_size), mp);
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
	emp = dv->etp * ep * pp;
	if (w % emp == 0)
		return;
	g = report(x,
	           written(x, F(expert_model_parallel_size), F(expert_tensor_parallel_size),
	                   F(pipeline_model_parallel_size)),
	           "world size %lld (from %s) is not divisible by expert TP x EP x PP = %lld x "
	           "%lld x %lld = %lld%s",
	           w, dv->world_size_source, dv->etp, ep, pp, emp,
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

	if (!dv->gbs_ok || NUL(global_batch_size))
		return;
	step = mbs * dv->dp;
	gbs = dv->gbs;
	if (B(decrease_batch_size_if_needed)) {
		if (dv->running_gbs >= step)
			return; /* MC109 notes the rounding */
		g = report(x, F(global_batch_size),
		           "global batch size %lld is smaller than MBS x DP = %lld x %lld = %lld: "
		           "even decrease_batch_size_if_needed leaves no micro-batch",
		           gbs, mbs, dv->dp, step);
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
		           gbs, mbs, dv->dp, step);
	else
		g = report(
		    x, written(x, F(global_batch_size), F(micro_batch_size)),
		    "global batch size %lld is not divisible by MBS x DP = %lld x %lld = %lld", gbs,
		    mbs, dv->dp, step);
	mcinit_diag_hint(g,
	                 "nearest valid global batch sizes: %s (multiples of %lld); or change "
	                 "micro_batch_size or the data-parallel size (DP = %lld), or set "
	                 "decrease_batch_size_if_needed",
	                 near_values(&near, gbs, step, 0), step, dv->dp);
	mcinit_buf_free(&near);
}

static void
mc013(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long egbs, embs, step;
	struct mcinit_buf near = {0};
	struct mcinit_diag *g;

	/* With neither set, evaluation uses the training sizes: MC012 covers it. */
	if (!dv->gbs_ok || (NUL(eval_global_batch_size) && NUL(eval_micro_batch_size)))
		return;
	egbs = NUL(eval_global_batch_size) ? dv->gbs : I(eval_global_batch_size);
	embs = NUL(eval_micro_batch_size) ? I(micro_batch_size) : I(eval_micro_batch_size);
	step = embs * dv->dp;
	if (egbs % step == 0)
		return;
	g = report(x, written(x, F(eval_global_batch_size), F(eval_micro_batch_size)),
	           "evaluation global batch size %lld is not %s eval MBS x DP = %lld x %lld = "
	           "%lld",
	           egbs, egbs < step ? "at least" : "divisible by", embs, dv->dp, step);
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
	return B(group_query_attention) && !NUL(num_query_groups);
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

	if (!NUL(kv_channels) || h % heads == 0)
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
	mcinit_diag_hint(
	    report(x, written(x, F(pipeline_model_parallel_size), F(overlap_p2p_comm)),
	           overlap ? "a virtual pipeline (VPP = %lld, from %s) needs "
	                     "pipeline_model_parallel_size > 1, got %lld"
	                   : "a virtual pipeline (VPP = %lld, from %s) without overlap_p2p_comm "
	                     "needs pipeline_model_parallel_size > 2, got %lld",
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
	v = vpp_from_inputs(x, &src);
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
	if (layout_unroll(layout, &flat, &why) < 0) {
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
	if (pp < 2) {
		report(x, written(x, F(pipeline_model_parallel_size), at),
		       "first/last pipeline stage layer counts need pipeline_model_parallel_size "
		       ">= 2, got %lld",
		       pp);
		return;
	}
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

	/* Megatron-LM turns a one-element list into the plain string. */
	if (I(context_parallel_size) <= 1 || v->kind != MCINIT_V_LIST || v->n == 1 ||
	    (long long)v->n == I(num_layers))
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
	mcinit_diag_hint(report(x, written(x, F(max_position_embeddings), F(seq_length)),
	                        "max_position_embeddings %lld is smaller than seq_length %lld", mp,
	                        seq),
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
	mcinit_diag_hint(report(x, F(tp_comm_overlap), "tp_comm_overlap needs sequence_parallel%s",
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
		report(x, F(pipeline_model_parallel_size),
		       "use_torch_fsdp2 does not support pipeline parallelism "
		       "(pipeline_model_parallel_size %lld)",
		       I(pipeline_model_parallel_size));
	if (I(expert_model_parallel_size) != 1)
		report(x, F(expert_model_parallel_size),
		       "use_torch_fsdp2 does not support expert parallelism "
		       "(expert_model_parallel_size %lld)",
		       I(expert_model_parallel_size));
	/* Not when R8 turned it on for Megatron FSDP: MC037 covers that. */
	if (B(use_distributed_optimizer) && user_wrote(x->c, F(use_distributed_optimizer)))
		report(x, F(use_distributed_optimizer),
		       "use_torch_fsdp2 does not support Megatron's distributed optimizer");
	if (B(fp16))
		mcinit_diag_hint(report(x, F(fp16), "use_torch_fsdp2 does not support fp16"),
		                 "use --bf16");
}

static void
mc039(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(high_priority_stream_groups));
	const char *names[MCINIT_GROUP_COUNT];
	struct mcinit_buf all = {0};
	size_t i;
	int k;

	if (v->kind != MCINIT_V_LIST)
		return;
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		names[k] = mcinit_group_kind_name((enum mcinit_group_kind)k);
		mcinit_buf_printf(&all, "%s%s", k ? ", " : "", names[k]);
	}
	for (i = 0; i < v->n; i++) {
		const char *s = v->items[i].s, *sug;

		if (s == NULL || mcinit_group_kind_from_name(s) >= 0)
			continue;
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
			    report_loc(x, from_cfg ? &x->c->env_vars_loc : &env_loc,
			               "%s needs CUDA_DEVICE_MAX_CONNECTIONS > 1, but "
			               "it is 1%s",
			               B(use_torch_fsdp2) ? "use_torch_fsdp2" : "use_megatron_fsdp",
			               from_cfg ? " (env_vars)" : " in the environment"),
			    "unset CUDA_DEVICE_MAX_CONNECTIONS or set it to e.g. 32");
		return;
	}
	if ((tp <= 1 && cp <= 1) || arch >= 100 || (set && strcmp(val, "1") == 0))
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
	const char *vis = env_get(x->o, "CUDA_VISIBLE_DEVICES");
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
	if (!x->dv->vocab_ok || x->dv->padded_vocab_size == I(vocab_size))
		return;
	report(x, F(vocab_size),
	       "vocab_size %lld is padded to %lld (a multiple of make_vocab_size_divisible_by x "
	       "TP = %lld x %lld); %lld dummy rows",
	       I(vocab_size), x->dv->padded_vocab_size, I(make_vocab_size_divisible_by),
	       I(tensor_model_parallel_size), x->dv->padded_vocab_size - I(vocab_size));
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
     "the evaluation global batch size is a multiple of eval micro-batch size x DP",
     "validation.eval_global_batch_size=10 with DP 4",
     "use one of the suggested evaluation batch sizes",
     READS(F(eval_global_batch_size), F(eval_micro_batch_size), F(micro_batch_size),
           F(global_batch_size)),
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
     "hidden_size is divisible by num_attention_heads when kv_channels is derived",
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
     "a virtual pipeline needs PP > 1, and PP > 2 when overlap_p2p_comm is off",
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
    {"MC029", MCINIT_ERROR, "with CP > 1, a cp_comm_type list has one entry per layer",
     "--num-layers 4 --context-parallel-size 2 --cp-comm-type p2p a2a",
     "give one value, or exactly num_layers values", READS(F(cp_comm_type), CP, NL), mc029},
    {"MC030", MCINIT_ERROR, "max_position_embeddings >= seq_length",
     "--seq-length 8192 --max-position-embeddings 4096",
     "raise max_position_embeddings to at least seq_length",
     READS(F(max_position_embeddings), F(seq_length)), mc030},
    {"MC031", MCINIT_ERROR, "fp16 and bf16 are not both set", "--fp16 --bf16",
     "choose one precision", READS(F(fp16), F(bf16)), mc031},
    {"MC032", MCINIT_ERROR, "tp_comm_overlap needs sequence_parallel",
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
     "use_torch_fsdp2 needs PP = 1 and EP = 1 (and no distributed optimizer, no fp16)",
     "--use-torch-fsdp2 --pipeline-model-parallel-size 2",
     "drop pipeline/expert parallelism or use Megatron FSDP",
     READS(F(use_torch_fsdp2), PP, EP, F(use_distributed_optimizer), F(fp16)), mc038},
    {"MC039", MCINIT_ERROR, "high_priority_stream_groups names known group keys",
     "--high-priority-stream-groups dp_cpp", "use the group keys of mcinit topology",
     READS(F(high_priority_stream_groups)), mc039},
    {"MC040", MCINIT_ERROR,
     "train_iters and train_samples are exclusive (a warning when neither is set)",
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
     READS(TP, CP, F(use_torch_fsdp2), F(use_megatron_fsdp)), mc044},
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
     "vocab_size is padded to a multiple of make_vocab_size_divisible_by x TP",
     "--vocab-size 50257 --tensor-model-parallel-size 2",
     "none needed; the padded rows are never predicted",
     READS(F(vocab_size), F(make_vocab_size_divisible_by), TP), mc049},
};
const size_t mcinit_nrules = sizeof mcinit_rules / sizeof mcinit_rules[0];

const struct mcinit_code_doc mcinit_repairs[] = {
    {"MC101", MCINIT_NOTE, "R1: sequence_parallel is turned off when TP = 1",
     "--sequence-parallel (with TP 1)", "drop --sequence-parallel or use TP > 1"},
    {"MC102", MCINIT_NOTE,
     "R2: params_dtype follows fp16/bf16 (else fp32); pipeline_dtype follows params_dtype "
     "when PP > 1",
     "--bf16 --pipeline-model-parallel-size 4", "set pipeline_dtype to choose otherwise"},
    {"MC103", MCINIT_NOTE,
     "R3: an unset expert_tensor_parallel_size becomes TP (Megatron-LM), or 1 when EP > 1 "
     "with --bridge-defaults (Megatron-Bridge)",
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
    {"MC111", MCINIT_NOTE,
     "num_query_groups is ignored without group_query_attention (Megatron-LM)",
     "--num-query-groups 8", "add --group-query-attention"},
    {"MC112", MCINIT_NOTE, "no world size was given: 1 is assumed", "mcinit validate job.json",
     "pass --world-size, set launch.world_size, or --nnodes and --nproc-per-node"},
};
const size_t mcinit_nrepairs = sizeof mcinit_repairs / sizeof mcinit_repairs[0];

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
	struct mcinit_rule_ctx x = {c, dv, d, o, NULL};
	size_t i;

	(void)err;
	memset(dv, 0, sizeof *dv);
	check_limits(&x);
	repair_experts(&x);
	repair_sp(&x);
	repair_dtypes(&x);
	repair_etp(&x);
	repair_cpu_init(&x);
	repair_rng_tracker(&x);
	repair_ddp(&x);
	note_gqa_ignored(&x);
	derive_world(c, o, dv, d);
	derive_parallel(&x);
	derive_vpp(&x);
	repair_p2p_overlap(&x);
	derive_rest(&x);
	for (i = 0; i < mcinit_nrules; i++) {
		x.rule = &mcinit_rules[i];
		/* A rule whose inputs were rejected would only repeat that error. */
		if (any_invalid(c, x.rule->reads))
			continue;
		x.rule->check(&x);
	}
	return 0;
}

/* ---- output ---- */

static json_t *
opt_int(bool ok, long long v)
{
	return ok ? json_integer(v) : json_null();
}

static json_t *
layers_json(const struct mcinit_derived *dv)
{
	json_t *a = json_array();
	long long p, v;

	for (p = 0; p < dv->pp; p++) {
		json_t *s = dv->vpp ? json_array() : NULL;

		for (v = 0; v < dv->chunks_per_stage && s; v++)
			json_array_append_new(
			    s, json_integer(dv->layers[p * dv->chunks_per_stage + v]));
		json_array_append_new(a, s ? s : json_integer(dv->layers[p]));
	}
	return a;
}

json_t *
mcinit_derived_to_json(const struct mcinit_derived *dv)
{
	json_t *o = json_object(), *s;

	json_object_set_new(o, "world_size", opt_int(dv->world_ok, dv->world_size));
	json_object_set_new(o, "world_size_source",
	                    dv->world_ok ? json_string(dv->world_size_source) : json_null());
	json_object_set_new(o, "data_parallel_size", opt_int(dv->dp_ok, dv->dp));
	json_object_set_new(o, "expert_tensor_parallel_size", opt_int(dv->etp_ok, dv->etp));
	json_object_set_new(o, "expert_data_parallel_size", opt_int(dv->edp_ok, dv->edp));
	json_object_set_new(o, "virtual_pipeline_model_parallel_size",
	                    opt_int(dv->vpp_ok && dv->vpp > 0, dv->vpp));
	json_object_set_new(o, "global_batch_size", opt_int(dv->gbs_ok, dv->gbs));
	/* Megatron's get_current_running_global_batch_size: below GBS only
	 * with decrease_batch_size_if_needed. */
	json_object_set_new(o, "running_global_batch_size", opt_int(dv->gbs_ok, dv->running_gbs));
	json_object_set_new(o, "num_micro_batches", opt_int(dv->nmb_ok, dv->num_micro_batches));
	json_object_set_new(o, "ffn_hidden_size", opt_int(dv->ffn_ok, dv->ffn_hidden_size));
	json_object_set_new(o, "moe_ffn_hidden_size",
	                    opt_int(dv->moe_ffn_ok, dv->moe_ffn_hidden_size));
	json_object_set_new(o, "kv_channels", opt_int(dv->kv_ok, dv->kv_channels));
	json_object_set_new(o, "sequence_parallel",
	                    dv->sp_ok ? json_boolean(dv->sequence_parallel) : json_null());
	json_object_set_new(o, "layers_per_stage", dv->layers_ok ? layers_json(dv) : json_null());
	json_object_set_new(o, "seq_length_multiple",
	                    opt_int(dv->seq_multiple_ok, dv->seq_multiple));
	json_object_set_new(o, "padded_vocab_size", opt_int(dv->vocab_ok, dv->padded_vocab_size));
	json_object_set_new(o, "train_iters", opt_int(dv->train_iters_ok, dv->train_iters));
	if (dv->seeds_ok) {
		s = json_object();
		json_object_set_new(s, "rank0", json_integer(dv->seed));
		json_object_set_new(s, "rank0_model_parallel",
		                    json_integer(dv->seed_model_parallel));
		json_object_set_new(s, "rank0_expert_parallel",
		                    json_integer(dv->seed_expert_parallel));
		json_object_set_new(s, "max", json_integer(dv->seed_max));
		json_object_set_new(o, "seeds", s);
	} else {
		json_object_set_new(o, "seeds", json_null());
	}
	return o;
}

/* "4, 8 x 14, 6": runs of equal stages, for a short table line. */
static void
layers_text(const struct mcinit_derived *dv, struct mcinit_buf *b)
{
	long long p = 0, q, v, cps = dv->chunks_per_stage;

	while (p < dv->pp) {
		for (q = p + 1; q < dv->pp && memcmp(&dv->layers[q * cps], &dv->layers[p * cps],
		                                     (size_t)cps * sizeof(int)) == 0;
		     q++)
			;
		if (b->len)
			mcinit_buf_adds(b, ", ");
		if (dv->vpp) {
			mcinit_buf_addc(b, '[');
			for (v = 0; v < cps; v++)
				mcinit_buf_printf(b, "%s%d", v ? " " : "", dv->layers[p * cps + v]);
			mcinit_buf_addc(b, ']');
		} else {
			mcinit_buf_printf(b, "%d", dv->layers[p]);
		}
		if (q - p > 1)
			mcinit_buf_printf(b, " x %lld", q - p);
		p = q;
	}
}

#define ROW "  %-37s "

void
mcinit_derived_print(const struct mcinit_derived *dv, FILE *out)
{
	struct mcinit_buf b = {0};

	fprintf(out, "derived values:\n");
	if (dv->world_ok)
		fprintf(out, ROW "%lld (%s)\n", "world_size", dv->world_size,
		        dv->world_size_source);
	if (dv->dp_ok)
		fprintf(out, ROW "%lld\n", "data_parallel_size", dv->dp);
	if (dv->etp_ok)
		fprintf(out, ROW "%lld\n", "expert_tensor_parallel_size", dv->etp);
	if (dv->edp_ok)
		fprintf(out, ROW "%lld\n", "expert_data_parallel_size", dv->edp);
	if (dv->vpp_ok && dv->vpp)
		fprintf(out, ROW "%lld (from %s)\n", "virtual_pipeline_model_parallel_size",
		        dv->vpp, dv->vpp_source);
	else if (dv->vpp_ok)
		fprintf(out, ROW "none\n", "virtual_pipeline_model_parallel_size");
	if (dv->gbs_ok && dv->running_gbs != dv->gbs)
		fprintf(out, ROW "%lld (runs as %lld)\n", "global_batch_size", dv->gbs,
		        dv->running_gbs);
	else if (dv->gbs_ok)
		fprintf(out, ROW "%lld\n", "global_batch_size", dv->gbs);
	if (dv->nmb_ok)
		fprintf(out, ROW "%lld\n", "num_micro_batches", dv->num_micro_batches);
	if (dv->ffn_ok)
		fprintf(out, ROW "%lld\n", "ffn_hidden_size", dv->ffn_hidden_size);
	if (dv->moe_ffn_ok)
		fprintf(out, ROW "%lld\n", "moe_ffn_hidden_size", dv->moe_ffn_hidden_size);
	if (dv->kv_ok)
		fprintf(out, ROW "%lld\n", "kv_channels", dv->kv_channels);
	if (dv->sp_ok)
		fprintf(out, ROW "%s\n", "sequence_parallel",
		        dv->sequence_parallel ? "true" : "false");
	if (dv->layers_ok) {
		layers_text(dv, &b);
		fprintf(out, ROW "%s\n", "layers_per_stage", mcinit_buf_cstr(&b));
	}
	if (dv->seq_multiple_ok)
		fprintf(out, ROW "%lld\n", "seq_length_multiple", dv->seq_multiple);
	if (dv->vocab_ok)
		fprintf(out, ROW "%lld\n", "padded_vocab_size", dv->padded_vocab_size);
	if (dv->train_iters_ok)
		fprintf(out, ROW "%lld\n", "train_iters", dv->train_iters);
	if (dv->seeds_ok)
		fprintf(out, ROW "%lld (model-parallel %lld, expert %lld; max %lld)\n",
		        "seed (rank 0)", dv->seed, dv->seed_model_parallel,
		        dv->seed_expert_parallel, dv->seed_max);
	mcinit_buf_free(&b);
}

/* ---- documentation ---- */

static const char *const sev_words[] = {"note", "warning", "error"};

/* roff text: backslashes escaped, hyphens made literal, no line that starts
 * with a control character. */
static void
roff_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
	fputc('\n', out);
}

static void
doc_entry(FILE *out, enum mcinit_doc_format fmt, const char *code, enum mcinit_severity sev,
          const char *doc, const char *example, const char *fix, const enum mcinit_field *reads)
{
	struct mcinit_buf b = {0};
	char key[128];

	if (fmt == MCINIT_DOC_TEXT) {
		fprintf(out, "%s (%s)\n    %s\n    example: %s\n    fix: %s\n", code,
		        sev_words[sev], doc, example, fix);
		if (reads != NULL) {
			fputs("    reads:", out);
			for (; *reads != MCINIT_F_COUNT; reads++)
				fprintf(out, " %s", mcinit_field_key(*reads, key, sizeof key));
			fputc('\n', out);
		}
		fputc('\n', out);
		return;
	}
	fprintf(out, ".TP\n.BR %s \" (%s)\"\n", code, sev_words[sev]);
	roff_text(out, doc);
	fputs(".br\nExample:\n", out);
	roff_text(out, example);
	fputs(".br\nFix:\n", out);
	roff_text(out, fix);
	if (reads == NULL)
		return;
	fputs(".br\nReads:\n", out);
	for (; *reads != MCINIT_F_COUNT; reads++)
		mcinit_buf_printf(&b, "%s%s", b.len ? ", " : "",
		                  mcinit_field_key(*reads, key, sizeof key));
	roff_text(out, mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
}

static void
doc_section(FILE *out, enum mcinit_doc_format fmt, const char *title, const char *intro)
{
	if (fmt == MCINIT_DOC_ROFF) {
		/* roff: the dash of a code range (MC001-MC009) is "\-"; the
		 * hyphen of a word (Cross-field) stays a hyphen. */
		const char *p;

		fputs(".SS \"", out);
		for (p = title; *p; p++) {
			if (*p == '-' && p > title && p[-1] >= '0' && p[-1] <= '9')
				fputc('\\', out);
			fputc(*p, out);
		}
		fprintf(out, "\"\n%s\n", intro);
	} else {
		fprintf(out, "%s\n\n", title);
	}
}

static void
doc_table(FILE *out, enum mcinit_doc_format fmt, const struct mcinit_code_doc *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		doc_entry(out, fmt, v[i].code, v[i].sev, v[i].doc, v[i].example, v[i].fix, NULL);
}

int
mcinit_rules_doc(FILE *out, enum mcinit_doc_format fmt)
{
	size_t i;

	doc_section(out, fmt, "Input problems (MC001-MC009)",
	            "Found while reading the inputs; each points at what the user wrote.");
	doc_table(out, fmt, mcinit_input_codes, mcinit_ninput_codes);
	doc_section(out, fmt, "Cross-field rules (MC010-MC049)",
	            "Checked after every input is read; all violations are reported together.\n"
	            "A rule whose input was rejected is skipped.");
	for (i = 0; i < mcinit_nrules; i++) {
		const struct mcinit_rule *r = &mcinit_rules[i];

		doc_entry(out, fmt, r->code, r->sev, r->doc, r->example, r->fix, r->reads);
	}
	doc_section(out, fmt, "Placement and affinity (MC050-MC054)",
	            "Reported by mcinit topology from the node's hwloc topology.");
	doc_table(out, fmt, mcinit_affinity_codes, mcinit_naffinity_codes);
	doc_section(out, fmt, "Repairs and derived values (MC100+)",
	            "Values mcinit changes or derives the way Megatron does, reported so that "
	            "nothing changes silently.");
	doc_table(out, fmt, mcinit_repairs, mcinit_nrepairs);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

static void
append_docs(struct mcinit_code_doc **v, size_t *n, const struct mcinit_code_doc *src, size_t k)
{
	*v = mcinit_xrealloc(*v, (*n + k) * sizeof **v);
	memcpy(*v + *n, src, k * sizeof *src);
	*n += k;
}

struct mcinit_code_doc *
mcinit_all_codes(size_t *n)
{
	struct mcinit_code_doc *v = NULL;
	size_t i;

	*n = 0;
	append_docs(&v, n, mcinit_input_codes, mcinit_ninput_codes);
	for (i = 0; i < mcinit_nrules; i++) {
		const struct mcinit_rule *r = &mcinit_rules[i];
		struct mcinit_code_doc e = {r->code, r->sev, r->doc, r->example, r->fix};

		append_docs(&v, n, &e, 1);
	}
	append_docs(&v, n, mcinit_affinity_codes, mcinit_naffinity_codes);
	append_docs(&v, n, mcinit_repairs, mcinit_nrepairs);
	return v;
}
