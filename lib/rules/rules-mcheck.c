/*
 * rules-mcheck.c — runs the rows of Megatron-LM's check table (mchecks.h)
 * as rules MC200-MC256: each row's guard and condition are evaluated with
 * Python's semantics against the config after repairs, the derived values
 * (data_parallel_size, the virtual pipeline size, ...) and the job's
 * environment, and a failing row is reported with Megatron's own message.
 * A row that reads something mcinit cannot evaluate for this config (a name
 * Python would not find, None where a number is compared) is skipped: a
 * check that cannot be decided is never guessed.
 */
#include "rules/rules-table.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rules/mchecks.h"
#include "input/pyexpr.h"
#include "core/versions.h"

/* A field of type any (cuda_graph_modules): Megatron reads it after
 * normalizing it, which the raw value is not. */
static struct mcinit_pv
unmodelled(struct mcinit_pyexpr *e, json_t *j)
{
	(void)e;
	(void)j;
	return (struct mcinit_pv){.kind = MCINIT_PV_ERR, .s = "a value mcinit does not model"};
}

static struct mcinit_pv
from_value(struct mcinit_pyexpr *e, const struct mcinit_value *v)
{
	return mcinit_rules_pv_of(e, v, unmodelled);
}

static int
pv_int(struct mcinit_pv *out, bool ok, long long v)
{
	if (!ok)
		return -1;
	*out = (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = v};
	return 0;
}

/* The job's environment: the process wins over env_vars (as in MC044).
 * -1 when unset (the evaluator then uses the default of os.getenv). */
static int
env_value(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *var,
          struct mcinit_pv *out)
{
	const char *s = mcinit_rules_env_get(x->o, var);

	if (s == NULL) {
		json_t *j = json_object_get(x->c->env_vars, var);

		if (j == NULL || !json_is_string(j))
			return -1;
		s = json_string_value(j);
	}
	*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, s)};
	return 0;
}

static int special_value(struct mcinit_rule_ctx *x, enum mcinit_special s, struct mcinit_pv *out);
static bool from_megatron_flags(struct mcinit_rule_ctx *x);

/* Whether the row being evaluated is one of validate_args (MC200, MC250),
 * which sees the flags before it rewrites them. */
static bool
validate_args_row(const struct mcinit_rule_ctx *x)
{
	return x->rule != NULL &&
	       (strcmp(x->rule->code, "MC200") == 0 || strcmp(x->rule->code, "MC250") == 0);
}

/* The value of the Bridge field section.name, -1 if none or invalid. */
static int
bridge_value(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *section,
             const char *name, struct mcinit_pv *out)
{
	int f = mcinit_field_lookup(section, name);

	if (f < 0 || mcinit_cfg_unreadable(x->c, f))
		return -1;
	*out = from_value(e, &x->c->val[f]);
	return out->kind == MCINIT_PV_ERR ? -1 : 0;
}

/* The config value of field `name` (by dest), -1 if none or invalid. */
static int
field_value(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *name,
            struct mcinit_pv *out)
{
	int f = mcinit_mcheck_field(name, x->c->mversion, NULL);

	if (f < 0 || mcinit_cfg_unreadable(x->c, f))
		return -1;
	*out = from_value(e, &x->c->val[f]);
	return out->kind == MCINIT_PV_ERR ? -1 : 0;
}

static bool
field_true(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *name)
{
	struct mcinit_pv v;

	return field_value(x, e, name, &v) == 0 && mcinit_pv_truthy(&v);
}

/* Whether megatron-fill.c copied `to` from `from` (same place, a repair). */
static bool
filled_from(const struct mcinit_config *c, enum mcinit_field to, enum mcinit_field from)
{
	const struct mcinit_loc *a = &c->loc[to], *b = &c->loc[from];

	return c->origin[to] == MCINIT_ORIG_REPAIR && a->source == b->source &&
	       a->line == b->line && a->col == b->col;
}

static int
pv_bool(struct mcinit_pv *out, bool b)
{
	*out = (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = b};
	return 0;
}

static int
pv_str(struct mcinit_pv *out, const char *s)
{
	*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = s};
	return 0;
}

/* The specials that stand for a TransformerConfig attribute Megatron-LM
 * derives from its flags (core_transformer_config_from_args): in a config
 * file (Bridge's model section is that dataclass) the attribute itself. */
static const struct {
	enum mcinit_special s;
	const char *attr;
} model_attrs[] = {
    {S_GLU, "gated_linear_unit"},
    {S_ACTIVATION, "activation_func"},
    {S_BIAS_ACT_FUSION, "bias_activation_fusion"},
    {S_NQG, "num_query_groups"},
    {S_POS_EMB, "position_embedding_type"},
    {S_ROPE_FUSION, "apply_rope_fusion"},
};

/* The name of a callable as Bridge writes it: "megatron.core.fusions.
 * fused_bias_geglu.quick_gelu", or {_target_: that}: its last component,
 * the name transformer_config.py compares activation_func with. */
static int
callable_name(const struct mcinit_value *v, struct mcinit_pv *out)
{
	const char *s = v->kind == MCINIT_V_STR ? v->s : NULL, *dot;

	if (v->kind == MCINIT_V_JSON && json_is_string(json_object_get(v->j, "_target_")))
		s = json_string_value(json_object_get(v->j, "_target_"));
	if (s == NULL)
		return -1;
	dot = strrchr(s, '.');
	return pv_str(out, dot ? dot + 1 : s);
}

/* The model field a config file wrote for special s when s is one of
 * model_attrs (Bridge's model section is the TransformerConfig itself),
 * else -1: Megatron-LM's derivation from its flags applies. */
static int
model_attr_field(const struct mcinit_config *c, enum mcinit_special s)
{
	size_t i;
	int f;

	for (i = 0; i < sizeof model_attrs / sizeof model_attrs[0]; i++) {
		if (model_attrs[i].s != s)
			continue;
		f = mcinit_field_lookup("model", model_attrs[i].attr);
		return f >= 0 && from_config(c, f) ? f : -1;
	}
	return -1;
}

/* 0 with the attribute's value when s is one of model_attrs and a config
 * file set it; 1 when Megatron-LM's derivation applies. */
static int
model_attr(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, enum mcinit_special s,
           struct mcinit_pv *out, int *rc)
{
	int f = model_attr_field(x->c, s);

	if (f < 0 || mcinit_cfg_unreadable(x->c, f))
		return 1;
	/* the field itself: a Bridge-only one (bias_activation_fusion) has no
	 * Megatron-LM dest for field_value to find */
	if (s == S_ACTIVATION) {
		*rc = callable_name(&x->c->val[f], out);
	} else {
		*out = from_value(e, &x->c->val[f]);
		*rc = out->kind == MCINIT_PV_ERR ? -1 : 0;
	}
	return 0;
}

/* Values as Megatron's checks see them after validate_args and
 * core_transformer_config_from_args have rewritten the flags. */
/* args.fp8_param_gather / fp4_param_gather as validate_args leaves them
 * for the TransformerConfig: with --use-torch-fsdp2 it turns FP8 param
 * gather off from Transformer Engine 2.0 (arguments.py:1051) and FP4 param
 * gather off before 2.7.0.dev0 (r0.17 and newer, arguments.py:1058).  -1
 * when that turns on a TE version the job does not declare. */
static int
param_gather(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, bool fp4, struct mcinit_pv *out)
{
	bool on = field_true(x, e, fp4 ? "fp4_param_gather" : "fp8_param_gather");
	const char *te;
	int cmp;

	if (!on || !field_true(x, e, "use_torch_fsdp2") || (fp4 && x->c->mversion < MCINIT_MV_R017))
		return pv_bool(out, on);
	if (BAD(te_version) || NUL(te_version))
		return -1;
	te = mcinit_cfg_str(x->c, F(te_version));
	if (mcinit_version_cmp(strcmp(te, "none") == 0 ? "0.0.0" : te, fp4 ? "2.7.0.dev0" : "2.0.0",
	                       &cmp) < 0)
		return -1;
	return pv_bool(out, fp4 ? cmp >= 0 : cmp < 0);
}

static int
view_value(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, enum mcinit_special s,
           const char *name, struct mcinit_pv *out)
{
	static const char *const dtypes[][2] = {{"fp32", "torch.float32"},
	                                        {"fp16", "torch.float16"},
	                                        {"bf16", "torch.bfloat16"},
	                                        {"fp8", "torch.uint8"}};
	struct mcinit_pv v;
	size_t i;
	int rc;

	if (model_attr(x, e, s, out, &rc) == 0)
		return rc;
	switch (s) {
	case S_COLLAPSE:
		if (field_value(x, e, name, out) < 0)
			return -1;
		if (out->kind == MCINIT_PV_LIST && out->n == 1)
			*out = out->items[0];
		return 0;
	case S_TORCH_DTYPE:
		if (field_value(x, e, name, out) < 0)
			return -1;
		for (i = 0; out->kind == MCINIT_PV_STR && i < sizeof dtypes / sizeof dtypes[0]; i++)
			if (strcmp(out->s, dtypes[i][0]) == 0)
				return pv_str(out, dtypes[i][1]);
		return 0;
	case S_USE_DIST_CKPT:
		if (field_value(x, e, "ckpt_format", &v) < 0 || v.kind != MCINIT_PV_STR)
			return -1;
		return pv_bool(out, strcmp(v.s, "torch") != 0);
	case S_POS_EMB:
		if (field_true(x, e, "use_rotary_position_embeddings"))
			return pv_str(out, "rope");
		return field_value(x, e, "position_embedding_type", out);
	case S_ROPE_FUSION:
		if (view_value(x, e, S_POS_EMB, name, &v) < 0)
			return -1;
		if (v.kind != MCINIT_PV_STR || strcmp(v.s, "rope") != 0)
			return pv_bool(out, false);
		return field_value(x, e, "apply_rope_fusion", out);
	case S_BATCH_P2P:
		return pv_bool(out, !B(overlap_p2p_comm));
	case S_PIPELINE_DTYPE:
		return special_value(x, S_PARAMS_DTYPE, out);
	case S_FP8_PARAM:
		return param_gather(x, e, false, out);
	case S_FP4_PARAM:
		return param_gather(x, e, true, out);
	case S_GLU:
		return pv_bool(out, B(swiglu) || field_true(x, e, "quick_geglu"));
	case S_ACTIVATION:
		return pv_str(out, B(swiglu)                          ? "silu"
		                   : field_true(x, e, "squared_relu") ? "squared_relu"
		                   : field_true(x, e, "quick_geglu")  ? "quick_gelu"
		                                                      : "gelu");
	case S_BIAS_ACT_FUSION:
		/* validate_args drops bias_gelu_fusion without add_bias_linear */
		if (B(swiglu))
			return pv_bool(out, field_true(x, e, "bias_swiglu_fusion"));
		return pv_bool(out, field_true(x, e, "bias_gelu_fusion") &&
		                        field_true(x, e, "add_bias_linear"));
	case S_NQG:
		/* TransformerConfig gets num_query_groups only with GQA */
		if (!B(group_query_attention))
			return field_value(x, e, "num_attention_heads", out);
		return field_value(x, e, "num_query_groups", out);
	case S_HYBRID:
		return pv_bool(out, field_value(x, e, "hybrid_layer_pattern", &v) == 0 &&
		                        v.kind != MCINIT_PV_NONE);
	case S_GBS_EXPLICIT:
		return pv_bool(out, user_wrote(x->c, F(global_batch_size)));
	case S_PAD_QUANT:
		/* TransformerConfig folds the deprecated moe_router_padding_for_fp8 in */
		return pv_bool(out, field_true(x, e, "moe_router_padding_for_quantization") ||
		                        field_true(x, e, "moe_router_padding_for_fp8"));
	case S_NL_FROM_ENC:
		return pv_bool(out, filled_from(x->c, F(num_layers), F(encoder_num_layers)));
	case S_SEQ_FROM_ENC:
		return pv_bool(out, filled_from(x->c, F(seq_length), F(encoder_seq_length)));
	case S_DELETED:
		if (from_megatron_flags(x) && !validate_args_row(x))
			return pv_bool(out, false);
		return field_value(x, e, name, out);
	case S_LOCAL: {
		char local[64];

		snprintf(local, sizeof local, "%%%s", name);
		return mcinit_mcheck_local(x, e, local, out);
	}
	case S_CPU_OFFLOAD:
		/* no flag sets it: validate_args turns it on for
		 * cpu_offloading_num_layers > 0; a Bridge config sets it itself */
		if (from_megatron_flags(x) &&
		    field_value(x, e, "cpu_offloading_num_layers", &v) == 0 &&
		    v.kind == MCINIT_PV_INT && v.i > 0)
			return pv_bool(out, true);
		return bridge_value(x, e, "model", "cpu_offloading", out);
	case S_EXP_ATTN:
		/* core_transformer_config_from_args makes it "dsa" when the
		 * hybrid pattern has DSA layers (Symbols.DS_ATTENTION, "D") */
		if (from_megatron_flags(x) && field_value(x, e, "hybrid_layer_pattern", &v) == 0 &&
		    v.kind == MCINIT_PV_STR && strchr(v.s, 'D') != NULL)
			return pv_str(out, "dsa");
		/* __post_init__ first rewrites the deprecated spelling */
		if (field_value(x, e, name, out) < 0)
			return -1;
		if (out->kind == MCINIT_PV_STR && strcmp(out->s, "gated_delta_net") == 0)
			return pv_str(out, "gdn");
		return 0;
	case S_GRAD_FP32:
		/* DistributedDataParallelConfig gets it from
		 * accumulate_allreduce_grads_in_fp32, which validate_args turns
		 * on for bf16 with fp32 main grads unless grad_reduce_in_bf16 */
		if (field_value(x, e, "accumulate_allreduce_grads_in_fp32", out) < 0)
			return -1;
		if (!from_megatron_flags(x) || !B(bf16))
			return 0;
		if (field_true(x, e, "grad_reduce_in_bf16"))
			return pv_bool(out, false);
		if (mcinit_pv_truthy(out))
			return 0;
		return pv_bool(out, field_value(x, e, "main_grads_dtype", &v) == 0 &&
		                        v.kind == MCINIT_PV_STR && strcmp(v.s, "fp32") == 0);
	case S_ROPE_TYPE:
		/* core_transformer_config_from_args drops rope_type when the flag
		 * is not given, so MLATransformerConfig keeps its default, "yarn";
		 * validate_args' own rows see the flag as given */
		if (field_value(x, e, name, out) < 0)
			return -1;
		if (out->kind == MCINIT_PV_NONE && !validate_args_row(x))
			return pv_str(out, "yarn");
		return 0;
	default:
		return -1;
	}
}

static int
special_value(struct mcinit_rule_ctx *x, enum mcinit_special s, struct mcinit_pv *out)
{
	struct mcinit_derived *dv = x->dv;

	switch (s) {
	case S_WORLD:
		return pv_int(out, dv->world_ok, dv->world_size);
	case S_DP:
		return pv_int(out, dv->dp_ok, dv->dp);
	case S_PP:
		return pv_int(out, !BAD(pipeline_model_parallel_size),
		              I(pipeline_model_parallel_size));
	case S_VPP:
		if (!dv->vpp_ok)
			return -1;
		if (dv->vpp == 0)
			*out = (struct mcinit_pv){.kind = MCINIT_PV_NONE};
		else
			*out = (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = dv->vpp};
		return 0;
	case S_GTP:
		return pv_int(out, dv->dp_ok, dv->gtp);
	case S_RANK:
		return pv_int(out, true, 0);
	case S_PARAMS_DTYPE:
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR,
		                          .s = B(fp16)   ? "torch.float16"
		                               : B(bf16) ? "torch.bfloat16"
		                                         : "torch.float32"};
		return 0;
	case S_ETP:
		return pv_int(out, dv->etp_ok, dv->etp);
	case S_FFN:
		return pv_int(out, dv->ffn_ok, dv->ffn_hidden_size);
	case S_KV:
		return pv_int(out, dv->kv_ok, dv->kv_channels);
	case S_GBS:
		return pv_int(out, dv->gbs_ok, dv->gbs);
	case S_ARCH:
		if (x->o->gpu_arch > 0)
			return pv_int(out, true, x->o->gpu_arch / 10);
		if (!BAD(gpu_arch) && !NUL(gpu_arch))
			return pv_int(out, true, I(gpu_arch) / 10);
		return -1;
	case S_NONE:
	default:
		break;
	}
	return -1;
}

/* What the resolver knows of the row being evaluated. */
struct row_ctx {
	struct mcinit_port_run run;   /* the engine's: x, the row, the release */
	const struct mcinit_value *d; /* the release's defaults, what memos compare with */
	const char *section;          /* row_section of the row */
	const char *unknown;          /* the undeclared version the row asked for, or NULL */
	/* the fields the row's evaluation read, while memo_ok: it read only
	 * fields, functions and constants (not the environment, a derived
	 * value or a local), at most MCINIT_MEMO_FIELDS of them */
	unsigned short reads[MCINIT_MEMO_FIELDS];
	unsigned char nreads;
	bool memo_ok;
};

/* A field read for the memo: the verdict is a function of the values read. */
static void
note_read(struct row_ctx *r, int f)
{
	unsigned i;

	for (i = 0; i < r->nreads; i++)
		if (r->reads[i] == f)
			return;
	if (r->nreads == MCINIT_MEMO_FIELDS)
		r->memo_ok = false;
	else
		r->reads[r->nreads++] = (unsigned short)f;
}

/* The version the job declares for a version probe (launch.te_version,
 * launch.torch_version): a Megatron without Transformer Engine sees 0.0.0.
 * -1, with the package in r->unknown, when nothing is declared. */
static int
declared_version(struct row_ctx *r, enum mcinit_special s, struct mcinit_pv *out)
{
	struct mcinit_rule_ctx *x = r->run.x;
	bool te = s == S_TE_VERSION;
	enum mcinit_field f = te ? F(te_version) : F(torch_version);

	if (x->c->invalid[f] || mcinit_cfg_null(x->c, f)) {
		r->unknown = te ? "Transformer Engine" : "torch";
		return -1;
	}
	*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = x->c->val[f].s};
	if (te && strcmp(out->s, "none") == 0)
		out->s = "0.0.0";
	return 0;
}

static int resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out);

static int
resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out)
{
	struct row_ctx *r = ctx;
	struct mcinit_rule_ctx *x = r->run.x;
	const struct mcinit_port_local *l;
	struct mcinit_mcheck_binding b = mcinit_mcheck_bind(name, x->c->mversion, r->section);
	int f = b.f;

	name += b.skip;
	if (b.kind != MB_FIELD && b.kind != MB_FUNCTION && b.kind != MB_CONSTANT &&
	    b.kind != MB_NONE)
		r->memo_ok = false;
	switch (b.kind) {
	case MB_FUNCTION:
		/* a copy: name may be the caller's stack buffer (resolve_name) */
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR,
		                          .s = mcinit_pyexpr_strdup(e, name + 1)};
		return 0;
	case MB_LOCAL:
		/* a local of the Megatron function, as mcheck-locals.c computes
		 * it or data/megatron-checks-locals.tsv gives it (the rows
		 * evaluated are vetted, and the ledger's test holds their names
		 * to what the resolver knows) */
		if (mcinit_mcheck_local_known(name))
			return mcinit_mcheck_local(x, e, name, out);
		l = mcinit_ports_megatron.local(r->run.row, name, x->c->mversion);
		return l != NULL ? mcinit_port_eval_local(&r->run, e, l, out) : -1;
	case MB_SPECIAL:
		if (b.s == S_TE_VERSION || b.s == S_TORCH_VERSION)
			return declared_version(r, b.s, out);
		if (b.s >= S_COLLAPSE)
			return view_value(x, e, b.s, name, out);
		return special_value(x, b.s, out);
	case MB_ENV:
		return env_value(x, e, name + 1, out);
	case MB_FIELD:
		note_read(r, f);
		if (mcinit_cfg_unreadable(x->c, f))
			return -1;
		if (x->c->pyval[f])
			r->run.pyval_read = true;
		*out = from_value(e, &x->c->val[f]);
		if (out->kind == MCINIT_PV_STR)
			out->s = mcinit_port_torch_dtype(f, out->s); /* "bf16" is torch.bfloat16 */
		return 0;
	case MB_CONSTANT: {
		/* enum members compare with the flag's value, their name in lower case */
		const char *m = strchr(name, '.') + 1;

		*out = (struct mcinit_pv){
		    .kind = MCINIT_PV_STR,
		    .s = mcinit_pyexpr_strdup(e, strncmp(name, "torch.", 6) == 0 ? name : m)};
		return 0;
	}
	case MB_NONE:
		break;
	}
	return -1;
}

/* The field a row's name points at: a Megatron-LM dest's or the row's own
 * section's; for a TransformerConfig attribute Megatron-LM derives from its
 * flags (bias_activation_fusion), the model field a config file wrote. */
static int
name_field(struct mcinit_rule_ctx *x, const char *name, const char *section)
{
	enum mcinit_special s = mcinit_mcheck_special(name);
	int f = mcinit_mcheck_field(name, x->c->mversion, s == S_NONE ? section : NULL);

	return f >= 0 ? f : model_attr_field(x->c, s);
}

static void
point(void *ctx, const char *name)
{
	struct mcinit_port_at *a = ctx;
	struct row_ctx *r = (struct row_ctx *)a->r;
	enum mcinit_field from[8];
	char local[64];
	size_t i, n;

	/* a local, or a value validate_args computes, points at what it is
	 * computed from */
	snprintf(local, sizeof local, "%%%s", name);
	n = mcinit_mcheck_local_fields(mcinit_mcheck_special(name) == S_LOCAL ? local : name, from,
	                               8);
	for (i = 0; i < n; i++)
		mcinit_port_point(a, from[i]);
	if (n == 0)
		mcinit_port_point(a, name_field(r->run.x, name, r->section));
}

/* A row whose verdict turns on a version the job did not declare: never an
 * error, a note that names the check and how to decide it. */
static void
undecided(struct mcinit_port_run *run)
{
	struct row_ctx *r = (struct row_ctx *)run;
	struct mcinit_rule_ctx *x = run->x;
	const struct mcinit_port *m = run->row;
	const struct mcinit_rule *rule = x->rule;
	bool te;

	if (r->unknown == NULL)
		return;
	te = strcmp(r->unknown, "torch") != 0;
	x->rule = NULL;
	mcinit_diag_hint(mcinit_rules_note(x, rule->code, MCINIT_NOTE, mcinit_port_field(run),
	                                   "Megatron-LM %s (%s) not decided: it depends on the %s "
	                                   "version, which is not declared",
	                                   m->function, m->id, r->unknown),
	                 "declare it: --%s-version VERSION or launch.%s_version",
	                 te ? "te" : "torch", te ? "te" : "torch");
	x->rule = rule;
}

/* A row's verdict where every field it read is at the release's default.
 * An evaluation is deterministic: the same values read take the same path
 * through the expressions, so the same fields are read and the verdict is
 * the same.  Most rows read only fields a job leaves at their defaults, and
 * a process that checks many jobs (validate --each, a program using the
 * library, a fuzzer) then skips evaluating them again.  A row that read
 * the environment, a derived value or a local is evaluated every time. */
enum { MEMO_EMPTY, MEMO_BUSY, MEMO_READY };

static struct mcinit_mcheck_memo *
memo_of(const struct mcinit_config *c, const struct mcinit_port *m)
{
	unsigned v = c->mversion;

	/* one release: a bit of enum mcinit_mversion */
	if (v == 0 || (v & (v - 1)) != 0 || __builtin_ctz(v) >= MCINIT_MV_COUNT)
		return NULL;
	return mcinit_mcheck_memo(m, __builtin_ctz(v));
}

static bool
at_defaults(const struct mcinit_config *c, const struct mcinit_value *d, const unsigned short *f,
            unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (c->invalid[f[i]] || !mcinit_value_equal(&c->val[f[i]], &d[f[i]]))
			return false;
	return true;
}

/* The memo's verdict for this config (1, 0 or -1), or 2 when it has none. */
static int
memo_get(struct mcinit_mcheck_memo *m, const struct mcinit_config *c, const struct mcinit_value *d)
{
	if (m == NULL || atomic_load_explicit(&m->state, memory_order_acquire) != MEMO_READY)
		return 2;
	return at_defaults(c, d, m->f, m->n) ? m->verdict : 2;
}

static void
memo_put(struct mcinit_mcheck_memo *m, const struct row_ctx *r, const struct mcinit_value *d,
         int verdict)
{
	unsigned char empty = MEMO_EMPTY;

	if (m == NULL || !r->memo_ok || r->unknown != NULL ||
	    !at_defaults(r->run.x->c, d, r->reads, r->nreads) ||
	    !atomic_compare_exchange_strong(&m->state, &empty, MEMO_BUSY))
		return;
	m->verdict = (signed char)verdict;
	m->n = r->nreads;
	memcpy(m->f, r->reads, sizeof m->f);
	atomic_store_explicit(&m->state, MEMO_READY, memory_order_release);
}

/* Row m's verdict: 1: it fails, 0: it holds, -1: it cannot be decided
 * (r->unknown names the undeclared version it turned on, if that). */
static int
verdict(struct mcinit_port_run *run)
{
	struct row_ctx *rc = (struct row_ctx *)run;
	struct mcinit_mcheck_memo *memo = memo_of(run->x->c, run->row);
	int r = memo_get(memo, run->x->c, rc->d);

	if (r != 2)
		return r;
	rc->nreads = 0;
	rc->memo_ok = true;
	r = mcinit_port_verdict(run);
	memo_put(memo, rc, rc->d, r);
	return r;
}

static void
begin(struct mcinit_port_run *run)
{
	struct row_ctx *rc = (struct row_ctx *)run;

	rc->section = mcinit_mcheck_row_section_at(run->index);
	rc->unknown = NULL;
}

static const struct mcinit_port_eval eval = {resolve, point, begin, verdict, undecided};

/* Whether any value came from Megatron-LM flags: only then does
 * validate_args run.  Megatron-Bridge builds its ConfigContainer without it
 * (the dataclasses' __post_init__ checks still run). */
static bool
from_megatron_flags(struct mcinit_rule_ctx *x)
{
	int f;

	/* asked by every rule and at several names: the 1,250 origins are
	 * read once per check */
	if (x->from_flags == 0) {
		for (f = 0; f < MCINIT_F_COUNT && x->c->origin[f] != MCINIT_ORIG_ARGV; f++)
			;
		x->from_flags = f < MCINIT_F_COUNT ? 2 : 1;
	}
	return x->from_flags == 2;
}

void
mcinit_rules_mchecks(struct mcinit_rule_ctx *x)
{
	struct row_ctx rc = {.run = {x, &mcinit_ports_megatron, &eval, .v = x->c->mversion}};

	if (validate_args_row(x) && !from_megatron_flags(x))
		return;
	rc.d = mcinit_config_defaults(x->c->mversion); /* what the memos compare with */
	mcinit_port_check(&rc.run);
}

/* The rows of the checks this file runs (rules.c lists them). */
const struct mcinit_rule mcinit_rule_mc200 = {
    "MC200",
    MCINIT_ERROR,
    "Megatron-LM's own check in validate_args (megatron/training/arguments.py) holds (one row of "
    "data/megatron-checks.tsv)",
    "--use-torch-fsdp2 --use-distributed-optimizer without --untie-embeddings-and-output-weights",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc201 = {
    "MC201",
    MCINIT_ERROR,
    "Megatron-LM's own check in TransformerConfig.__post_init__ (megatron/core/transformer/) "
    "holds (one row of data/megatron-checks.tsv)",
    "--num-experts 8 --moe-router-topk 2 --moe-router-load-balancing-type seq_aux_loss "
    "--moe-aux-loss-coeff 0 ...",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc202 = {
    "MC202",
    MCINIT_ERROR,
    "Megatron-LM's own check in ModelParallelConfig.__post_init__ "
    "(megatron/core/model_parallel_config.py) holds (one row of data/megatron-checks.tsv)",
    "--tensor-parallel-num-weight-shards 3 --tensor-model-parallel-size 2",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc203 = {
    "MC203",
    MCINIT_ERROR,
    "Megatron-LM's own check in OptimizerConfig.__post_init__ (megatron/core/optimizer/) holds "
    "(one row of data/megatron-checks.tsv)",
    "an optimizer option out of its range",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc204 = {
    "MC204",
    MCINIT_ERROR,
    "Megatron-LM's own check in DistributedDataParallelConfig.__post_init__ "
    "(megatron/core/distributed/) holds (one row of data/megatron-checks.tsv)",
    "a DDP option combination Megatron rejects",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc205 = {
    "MC205",
    MCINIT_ERROR,
    "Megatron-LM's own check in the micro-batch calculator "
    "(megatron/core/num_microbatches_calculator.py) holds (one row of data/megatron-checks.tsv)",
    "--step-batch-size-schedule with --global-batch-size",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc206 = {
    "MC206",
    MCINIT_ERROR,
    "Megatron-LM's own check in the training-config dataclasses (megatron/training/config/) holds "
    "(one row of data/megatron-checks.tsv)",
    "a training option combination Megatron rejects",
    "do what Megatron's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc250 = {
    "MC250",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in validate_args (megatron/training/arguments.py) (one row of "
    "data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc251 = {
    "MC251",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in TransformerConfig.__post_init__ (megatron/core/transformer/) "
    "(one row of data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc252 = {
    "MC252",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in ModelParallelConfig.__post_init__ "
    "(megatron/core/model_parallel_config.py) (one row of data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc253 = {
    "MC253",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in OptimizerConfig.__post_init__ (megatron/core/optimizer/) "
    "(one row of data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc254 = {
    "MC254",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in DistributedDataParallelConfig.__post_init__ "
    "(megatron/core/distributed/) (one row of data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc255 = {
    "MC255",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in the micro-batch calculator "
    "(megatron/core/num_microbatches_calculator.py) (one row of data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
const struct mcinit_rule mcinit_rule_mc256 = {
    "MC256",
    MCINIT_WARNING,
    "a warning Megatron-LM prints in the training-config dataclasses (megatron/training/config/) "
    "(one row of data/megatron-checks.tsv)",
    "see the quoted Megatron message",
    "do what Megatron's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_mchecks};
