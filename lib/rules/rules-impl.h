/*
 * rules-impl.h — PRIVATE to the files of the rules module (rules.c,
 * repairs.c, derive.c, layout.c): not installed, and not to be included by
 * any other module, which uses rules.h.  It holds the context every check
 * runs in, the field accessors and small helpers the files share, and the
 * internal functions one file provides to another (mcinit_rules_*: extern
 * only because the module spans several files).
 *
 * Who does what in mcinit_check (rules.c): repairs.c bounds the sizes and
 * applies the repairs, derive.c computes the derived values, rules.c runs
 * the rule table; layout.c parses pipeline layouts for derive.c and MC024.
 */
#ifndef MCINIT_RULES_IMPL_H
#define MCINIT_RULES_IMPL_H

#include <stdarg.h>
#include <stdbool.h>

#include "rules/rules.h"
#include "core/util.h"

struct mcinit_rule_ctx {
	struct mcinit_config *c;
	struct mcinit_derived *dv;
	struct mcinit_diags *d;
	const struct mcinit_check_opts *o;
	const struct mcinit_rule *rule; /* NULL while repairing */
	int from_flags;                 /* rules-mcheck.c: a value came from Megatron-LM's flags:
	                                 * 2 yes, 1 no, 0 not asked yet */
};

/* Field accessors: x is the struct mcinit_rule_ctx in scope. */
#define F(f)   MCINIT_F_##f
#define I(f)   mcinit_cfg_int(x->c, MCINIT_F_##f)
#define B(f)   mcinit_cfg_bool(x->c, MCINIT_F_##f)
#define NUL(f) mcinit_cfg_null(x->c, MCINIT_F_##f)
#define BAD(f) (x->c->invalid[MCINIT_F_##f])

static inline bool
user_wrote(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->origin[f] != MCINIT_ORIG_DEFAULT && c->origin[f] != MCINIT_ORIG_REPAIR;
}

/* Set by a config file or an override: a field of Megatron-Bridge's
 * dataclasses as the user wrote it, not what Megatron-LM derives from its
 * argparse flags. */
static inline bool
from_config(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->origin[f] == MCINIT_ORIG_FILE || c->origin[f] == MCINIT_ORIG_OVERRIDE;
}

/* Grouped-query attention is on: Megatron-LM's --group-query-attention with
 * num_query_groups, or num_query_groups from a config file, since
 * Megatron-Core's TransformerConfig (Bridge's model section) has no switch:
 * the field is the number of groups there. */
static inline bool
gqa_on(const struct mcinit_config *c)
{
	if (mcinit_cfg_null(c, MCINIT_F_num_query_groups))
		return false;
	return mcinit_cfg_bool(c, MCINIT_F_group_query_attention) ||
	       from_config(c, MCINIT_F_num_query_groups);
}

static inline long long
gcd(long long a, long long b)
{
	while (b != 0) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

static inline long long
lcm(long long a, long long b)
{
	return a / gcd(a, b) * b;
}

static inline bool
any_invalid(const struct mcinit_config *c, const enum mcinit_field *fs)
{
	for (; *fs != MCINIT_F_COUNT; fs++)
		if (c->invalid[*fs])
			return true;
	return false;
}
#define INVALID(c, ...) any_invalid(c, (const enum mcinit_field[]){__VA_ARGS__, MCINIT_F_COUNT})

/* The layers the pipeline split divides: the transformer layers plus the
 * embedding and the loss when they count as one (D2, D8, MC020, MC022). */
static inline long long
split_layers(struct mcinit_rule_ctx *x)
{
	return I(num_layers) + B(account_for_embedding_in_pipeline_split) +
	       B(account_for_loss_in_pipeline_split);
}

/* How many of the ways to ask for a virtual pipeline are used (MC023). */
static inline int
vpp_sources(struct mcinit_rule_ctx *x)
{
	return !NUL(num_layers_per_virtual_pipeline_stage) +
	       !NUL(num_virtual_stages_per_pipeline_rank) + !NUL(pipeline_model_parallel_layout);
}

/* ---- report.c ---- */

/* A finding with severity sev and code at loc (NULL: none), keyed to key
 * and to the current rule's fields; the message is fmt then suffix. */
struct mcinit_diag *mcinit_rules_vemit(struct mcinit_rule_ctx *x, enum mcinit_severity sev,
                                       const char *code, const struct mcinit_loc *loc,
                                       const char *key, const char *suffix, const char *fmt,
                                       va_list ap);
/* A finding about field `at`, located where the user wrote it; a value
 * from a default or derived by mcinit has no place, and the message says so. */
struct mcinit_diag *mcinit_rules_vreport(struct mcinit_rule_ctx *x, enum mcinit_severity sev,
                                         const char *code, enum mcinit_field at, const char *fmt,
                                         va_list ap);
/* Where a finding about the process environment points. */
extern const struct mcinit_loc mcinit_rules_env_loc;
/* The variable from o->envp, else the process environment; NULL if unset. */
/* A config value as the Python checks see it (the evaluators of
 * Megatron-LM's and Megatron-Bridge's tables); json reads a value of type
 * any, which the two read differently.  Strings are borrowed from v. */
struct mcinit_pyexpr;
struct mcinit_pv mcinit_rules_pv_of(struct mcinit_pyexpr *e, const struct mcinit_value *v,
                                    struct mcinit_pv (*json)(struct mcinit_pyexpr *, json_t *));
static inline const char *
mcinit_rules_env_get(const struct mcinit_check_opts *o, const char *name)
{
	return mcinit_env_get((const char *const *)o->envp, name);
}
/* v, a value of an expression evaluated apart (a local's), with its
 * strings and list copied into outer, whose evaluation it joins (a list
 * inside a list is not: it becomes an error value). */
struct mcinit_pv mcinit_rules_pv_keep(struct mcinit_pyexpr *outer, struct mcinit_pv v);
/* A repair or derived-value note (no rule is current), at field `at`. */
struct mcinit_diag *mcinit_rules_note(struct mcinit_rule_ctx *x, const char *code,
                                      enum mcinit_severity sev, enum mcinit_field at,
                                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- repairs.c ---- */

/* Repairs R1-R6 and R8, and the MC111 note. */
void mcinit_rules_repair(struct mcinit_rule_ctx *x);
/* Repair R7: after D2, since it depends on whether there is a virtual pipeline. */
void mcinit_rules_repair_p2p(struct mcinit_rule_ctx *x);

/* ---- derive.c ---- */

/* Parses step_batch_size_schedule as Megatron's calculator does: up to max
 * (threshold in samples, batch size) pairs sorted by threshold, their count;
 * -1 with Megatron's message in *why (caller frees; NULL otherwise). */
int mcinit_rules_schedule(struct mcinit_rule_ctx *x, long long *thr, long long *bs, int max,
                          char **why);
/* D12, D1, D3 and D2: the world, data-parallel and virtual pipeline sizes. */
void mcinit_rules_derive_sizes(struct mcinit_rule_ctx *x);
/* D4-D11, after repair R7. */
void mcinit_rules_derive_rest(struct mcinit_rule_ctx *x);

/* ---- memory.c ---- */

/* dv->mem, when o asks for an estimate (--memory-model, --gpu-memory). */
void mcinit_rules_memory(struct mcinit_rule_ctx *x);
/* memory-params.c: dv->mem's parameters per kind of rank, under
 * --memory-model mcinit. */
void mcinit_rules_memory_params(struct mcinit_rule_ctx *x);
/* memory-act.c: the activations per micro-batch (--memory-model mcinit) */
void mcinit_rules_memory_act(struct mcinit_rule_ctx *x);
/* memory-peak.c: each kind of rank's peak, by term (--memory-model mcinit),
 * after the parameters and the activations */
void mcinit_rules_memory_peak(struct mcinit_rule_ctx *x);
/* MC063 on that peak (with --gpu-memory): its finding and hint. */
void mcinit_rules_memory_peak_mc063(struct mcinit_rule_ctx *x);
/* moe_layer_freq as Megatron-LM reads it: an int (every freq-th layer), a
 * list of one 0/1 per layer, or a string of a list expression
 * ("([1]*3+[0])*2"), into pat[layers]; NULL, or why it is none of those
 * (memory.c's estimate reads it too). */
const char *mcinit_rules_moe_pattern(struct mcinit_rule_ctx *x, int *pat, long long layers);
/* mcinit's own model reads one shape from Megatron-LM's flags and from a
 * Megatron-Bridge ConfigContainer, whose fields differ (memory-params.c):
 * fc1 doubled by a gated linear unit (--swiglu; gated_linear_unit), the
 * output layer tied to the embedding (not --untie-embeddings-and-output-
 * weights; share_embeddings_and_output_weights). */
bool mcinit_rules_model_glu(struct mcinit_rule_ctx *x);
bool mcinit_rules_model_tied(struct mcinit_rule_ctx *x);
/* The MoE layers of the model mcinit counts, into pat[layers]: as
 * mcinit_rules_moe_pattern, except where Bridge's layer spec is one
 * layer's (its default_layer_spec), which makes every decoder layer a MoE
 * layer whatever moe_layer_freq says. */
const char *mcinit_rules_model_moe_pattern(struct mcinit_rule_ctx *x, int *pat, long long layers);

/* The parallel layout and batch an estimate reads, as MC063's hint changes
 * them (etp_follows: the expert TP is the TP's, and doubles with it). */
struct mcinit_mem_par {
	long long heads, groups, layers, mbs, nmb, tp, pp, vpp, ep, etp, dp, world;
	bool dist_opt, has_nmb, etp_follows;
	/* mcinit's model only: CP, and the recompute (0 none, 1 selective,
	 * 2 full) */
	long long cp;
	int recompute;
};
/* a with change i (0: the distributed optimizer, 1: half the micro-batch
 * size, 2: twice TP, 3: twice PP; for mcinit's model also 4: selective
 * recompute, 5: full recompute, 6: twice CP) in b, DP and the number of
 * micro-batches derived again for global batch gbs (0: unknown); false
 * where the trainer would refuse it. */
bool mcinit_rules_memory_change(const struct mcinit_mem_par *a, int i, long long gbs,
                                struct mcinit_mem_par *b);
/* An estimate to run again: its inputs, their layout, and the total it
 * gives with another layout (negative: the estimator refuses it). */
struct mcinit_mem_retry {
	const void *in;
	const struct mcinit_mem_par *par;
	double (*estimate)(const void *in, const struct mcinit_mem_par *b);
	bool bridge; /* name the changes as Bridge overrides, not flags */
	bool mcinit; /* mcinit's model: the recompute and CP changes too */
	/* mcinit's model: in names the high end; when in_low is not NULL (an
	 * out of memory certain at the low end), estimate(in_low, b) is the
	 * low end, tried when no change brings the high end under 90% */
	const void *in_low;
};
/* MC063's hint on g: the first change, cheapest first, whose estimate
 * fits under 90% of cap bytes; else, with in_low, the first whose low
 * end fits in cap. */
void mcinit_rules_memory_hint(struct mcinit_diag *g, const struct mcinit_mem_retry *r,
                              long long gbs, double cap);

/* ---- memory-bridge.c ---- */

/* dv->mem by Megatron-Bridge's estimate_training_memory. */
void mcinit_rules_memory_bridge(struct mcinit_rule_ctx *x);
/* MC063's hint for it. */
void mcinit_rules_memory_bridge_hint(struct mcinit_rule_ctx *x, struct mcinit_diag *g, double cap);
/* D2 from the Megatron-LM inputs alone (MC023 compares it with a VPP written
 * directly); *src: the field it came from, or NULL. */
long long mcinit_rules_vpp_from_inputs(struct mcinit_rule_ctx *x, const char **src);

/* ---- rules-mcheck.c ---- */

/* The rows of Megatron-LM's check table whose code is x->rule's. */
void mcinit_rules_mchecks(struct mcinit_rule_ctx *x);

/* ---- rules-bcheck.c ---- */

/* The rows of Megatron-Bridge's check table whose code is x->rule's, on a
 * ConfigContainer. */
void mcinit_rules_bchecks(struct mcinit_rule_ctx *x);

/* ---- mcheck-locals.c ---- */
struct mcinit_pyexpr;
struct mcinit_pv;
/* Whether "%name" is a local of validate_args mcinit computes. */
bool mcinit_mcheck_local_known(const char *name);
/* The fields "%name" is computed from, the one to point at first; at most
 * max into f, their count (0 for a name that is not a local). */
size_t mcinit_mcheck_local_fields(const char *name, enum mcinit_field *f, size_t max);
/* Its value for this config into *out (0), or -1 when it cannot be told. */
int mcinit_mcheck_local(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *name,
                        struct mcinit_pv *out);

/* ---- layout.c ---- */

/* The unrolled layout in flat: stages separated by '|', each a string of
 * E L t m.  -1 with a message in why (caller frees); flat is the caller's to
 * free either way. */
int mcinit_layout_unroll(const char *layout, struct mcx_buf *flat, char **why);

/* ---- mcheck-names.c: the names of Megatron's check expressions ---- */

/* Names whose value mcinit computes or maps rather than reads. */
enum mcinit_special {
	S_NONE,
	S_WORLD,
	S_DP,
	S_PP,
	S_VPP,
	S_GTP,
	S_RANK,
	S_PARAMS_DTYPE,
	S_ETP,
	S_FFN,
	S_KV,
	S_GBS,
	S_ARCH,
	S_TE_VERSION,    /* launch.te_version: "none" is 0.0.0, as Megatron without TE */
	S_TORCH_VERSION, /* launch.torch_version */
	/* what validate_args / core_transformer_config_from_args make of the flags */
	S_COLLAPSE,    /* a one-item list becomes its item (validate_args) */
	S_TORCH_DTYPE, /* fp32/fp16/bf16/fp8 -> torch dtypes */
	S_USE_DIST_CKPT,
	S_ROPE_FUSION,
	S_POS_EMB,
	S_BATCH_P2P,
	S_PIPELINE_DTYPE,
	S_FP8_PARAM,
	S_FP4_PARAM,
	S_GLU,
	S_ACTIVATION,
	S_BIAS_ACT_FUSION,
	S_NQG,
	S_HYBRID,
	S_GBS_EXPLICIT,
	S_PAD_QUANT,
	S_NL_FROM_ENC,
	S_SEQ_FROM_ENC,
	S_LOCAL,   /* what validate_args made of it: a local of mcheck-locals.c */
	S_DELETED, /* validate_args deletes it once read: the dataclasses see False */
	S_CPU_OFFLOAD,
	S_EXP_ATTN,
	S_GRAD_FP32,
	S_ROPE_TYPE,
};

/* The special a name stands for, or S_NONE. */
enum mcinit_special mcinit_mcheck_special(const char *name);
/* The Bridge section mirroring the dataclass of check row `id`, or NULL. */
const char *mcinit_mcheck_row_section(const char *id);
/* The same of row `row` of mcinit_mchecks, kept for the process. */
const char *mcinit_mcheck_row_section_at(size_t row);
/* The config field a Megatron name stands for in `version` (see the
 * definition for the order of lookups), or -1. */
int mcinit_mcheck_field(const char *name, unsigned version, const char *section);
/* `torch.bfloat16`, `AttnBackend.local`: constants that compare as text. */
bool mcinit_mcheck_constant(const char *name);
/* A parameter of the micro-batch calculator's functions ("%seq_length"). */
bool mcinit_mcheck_calc_param(const char *name);
/* A function transformer_config.py compares activation_func with. */
bool mcinit_mcheck_module_function(const char *name);

/* What a name stands for, as resolving it decides from the tables alone:
 * decided once per name, release and section and kept for the process
 * (a check run asks for some 500 names; deciding each costs several
 * lookups by name, a quarter of validate's work before it was kept). */
enum mcinit_mcheck_kind {
	MB_NONE,
	MB_FUNCTION, /* a module function: its name is its value */
	MB_LOCAL,    /* a local of the Megatron function (mcheck-locals.c) */
	MB_SPECIAL,  /* .s */
	MB_ENV,      /* "$VAR" */
	MB_FIELD,    /* .f */
	MB_CONSTANT,
};
struct mcinit_mcheck_binding {
	enum mcinit_mcheck_kind kind;
	enum mcinit_special s;
	int f;
	int skip; /* the name read is name + skip: a calculator parameter's '%' */
};
/* The binding of name (see rules-mcheck.c's resolver for the order);
 * section is what mcinit_mcheck_row_section returned.  Thread-safe. */
struct mcinit_mcheck_binding mcinit_mcheck_bind(const char *name, unsigned version,
                                                const char *section);

#endif
