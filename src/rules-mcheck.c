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
#include "rules-impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "mchecks.h"
#include "pyexpr.h"

enum special {
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
};

static const struct {
	const char *name;
	enum special s;
} specials[] = {
    {"world_size", S_WORLD},
    {"data_parallel_size", S_DP},
    {"transformer_pipeline_model_parallel_size", S_PP},
    {"virtual_pipeline_model_parallel_size", S_VPP},
    {"gtp_weight_remat_size", S_GTP},
    {"expert_gtp_weight_remat_size", S_GTP},
    {"rank", S_RANK},
    {"params_dtype", S_PARAMS_DTYPE},
    /* core_transformer_config_from_args: pipeline_dtype = params_dtype */
    {"pipeline_dtype", S_PARAMS_DTYPE},
    {"expert_tensor_parallel_size", S_ETP},
    {"ffn_hidden_size", S_FFN},
    {"kv_channels", S_KV},
    {"global_batch_size", S_GBS},
    {"get_device_arch_version()", S_ARCH},
};

static enum special
special_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof specials / sizeof specials[0]; i++)
		if (strcmp(specials[i].name, name) == 0)
			return specials[i].s;
	return S_NONE;
}

/* The config field a Megatron name stands for: a field of that name, else
 * the field set by the flag whose dest it is; -1 if none. */
static int
field_of(const char *name)
{
	char flag[160], *p;
	bool neg;
	int f = mcinit_field_lookup(NULL, name);

	/* For now only the fields of src/schema.def: the whole field universe
	 * (every flag dest, every Bridge field) makes ~345 more rows decidable,
	 * and their verdicts on the bundled examples and rule tests are to be
	 * reviewed first (fsdp2 without untied embeddings, MoE bias with ETP > 1,
	 * ...).  Drop this line to enable them. */
	if (f >= 0 && mcinit_fields[f].origin != MCINIT_FO_SCHEMA)
		return -1;
	if (f >= 0 || strlen(name) > 150)
		return f;
	snprintf(flag, sizeof flag, "--%s", name);
	for (p = flag + 2; *p; p++)
		if (*p == '_')
			*p = '-';
	f = mcinit_field_by_flag(flag, &neg);
	return f >= 0 && !neg ? f : -1;
}

/* `torch.bfloat16`, `AttnBackend.local`: constants that compare as text. */
static bool
constant_name(const char *name)
{
	const char *dot = strchr(name, '.');

	if (dot == NULL || strchr(dot + 1, '.') != NULL)
		return false;
	return strncmp(name, "torch.", 6) == 0 || isupper((unsigned char)name[0]);
}

/* The parameters of the micro-batch calculator's functions: bare names
 * that stand for the config values of the same name (rank is 0). */
static const char *const calc_params[] = {"%rank",
                                          "%rampup_batch_size",
                                          "%global_batch_size",
                                          "%micro_batch_size",
                                          "%data_parallel_size",
                                          "%decrease_batch_size_if_needed",
                                          "%step_batch_size_schedule",
                                          "%seq_length",
                                          NULL};

static bool
calc_param(const char *name)
{
	size_t i;

	for (i = 0; calc_params[i]; i++)
		if (strcmp(calc_params[i], name) == 0)
			return true;
	return false;
}

bool
mcinit_mcheck_name_known(const char *name)
{
	if (name[0] == '%')
		return calc_param(name);
	return special_of(name) != S_NONE || field_of(name) >= 0 || constant_name(name) ||
	       name[0] == '$';
}

static struct mcinit_pv
from_value(struct mcinit_pyexpr *e, const struct mcinit_value *v)
{
	struct mcinit_pv *l;
	size_t i;

	switch (v->kind) {
	case MCINIT_V_BOOL:
		return (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = v->i};
	case MCINIT_V_INT:
		return (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = v->i};
	case MCINIT_V_FLOAT:
		return (struct mcinit_pv){.kind = MCINIT_PV_FLOAT, .f = v->d};
	case MCINIT_V_STR:
		return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = v->s};
	case MCINIT_V_LIST:
		l = mcinit_pyexpr_alloc_list(e, v->n);
		for (i = 0; i < v->n; i++)
			l[i] = from_value(e, &v->items[i]);
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = v->n};
	default:
		return (struct mcinit_pv){.kind = MCINIT_PV_NONE};
	}
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

static int
special_value(struct mcinit_rule_ctx *x, enum special s, struct mcinit_pv *out)
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
		return pv_int(out, true, 1);
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
		break;
	}
	return -1;
}

static bool
is_dtype_field(int f)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	int i;

	for (i = 0; i < t->nalt; i++)
		if (t->alt[i].base == MCINIT_B_DTYPE)
			return true;
	return false;
}

/* mcinit's canonical dtype names as the torch constants Megatron compares
 * them with. */
static const char *
torch_dtype(const char *s)
{
	return strcmp(s, "fp32") == 0   ? "torch.float32"
	       : strcmp(s, "fp16") == 0 ? "torch.float16"
	       : strcmp(s, "bf16") == 0 ? "torch.bfloat16"
	                                : s;
}

static int
resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out)
{
	struct mcinit_rule_ctx *x = ctx;
	enum special s;
	int f;

	/* A bare name is a local of the Megatron function: only the calculator's
	 * parameters are known (mcinit_mcheck_status keeps other rows out). */
	if (name[0] == '%') {
		if (!calc_param(name))
			return -1;
		name++;
	}
	s = special_of(name);
	if (s != S_NONE)
		return special_value(x, s, out);
	if (name[0] == '$')
		return env_value(x, e, name + 1, out);
	f = field_of(name);
	if (f >= 0) {
		if (x->c->invalid[f])
			return -1;
		*out = from_value(e, &x->c->val[f]);
		if (out->kind == MCINIT_PV_STR && is_dtype_field(f))
			out->s = torch_dtype(out->s); /* "bf16" is torch.bfloat16 to Megatron */
		return 0;
	}
	if (constant_name(name)) {
		/* enum members compare with the flag's value, their name in lower case */
		const char *m = strchr(name, '.') + 1;

		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR,
		                          .s = strncmp(name, "torch.", 6) == 0 ? name : m};
		return 0;
	}
	return -1;
}

/* 1: the row fails, 0: it holds, -1: it cannot be decided for this config. */
static int
evaluate(struct mcinit_rule_ctx *x, const char *src, bool negate)
{
	struct mcinit_pyexpr *e;
	struct mcinit_pv v;
	char *why = NULL;
	int r;

	if (src == NULL || *src == '\0')
		return negate ? 0 : 1;
	e = mcinit_pyexpr_parse(src, &why);
	if (e == NULL) {
		free(why);
		return -1;
	}
	v = mcinit_pyexpr_eval(e, resolve, x);
	r = v.kind == MCINIT_PV_ERR ? -1 : mcinit_pv_truthy(&v) != negate;
	mcinit_pyexpr_free(e);
	return r;
}

struct at {
	struct mcinit_rule_ctx *x;
	int first, written;
};

static void
note_field(void *ctx, const char *name)
{
	struct at *a = ctx;
	int f = field_of(name);

	if (f < 0)
		return;
	if (a->first < 0)
		a->first = f;
	if (a->written < 0 && user_wrote(a->x->c, f))
		a->written = f;
}

/* The field to point at: the first the row reads that the user wrote. */
static enum mcinit_field
row_field(struct mcinit_rule_ctx *x, const struct mcinit_mcheck *m)
{
	struct at a = {x, -1, -1};
	const char *srcs[] = {m->when, m->guard, m->cond};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct mcinit_pyexpr *e;
		char *why = NULL;

		if (srcs[i] == NULL || (e = mcinit_pyexpr_parse(srcs[i], &why)) == NULL) {
			free(why);
			continue;
		}
		mcinit_pyexpr_names(e, note_field, &a);
		mcinit_pyexpr_free(e);
	}
	return a.written >= 0 ? a.written : a.first >= 0 ? a.first : F(world_size);
}

static void
report_row(struct mcinit_rule_ctx *x, const struct mcinit_mcheck *m)
{
	struct mcinit_pyexpr *e;
	struct mcinit_buf b = {0};
	char *why = NULL;
	enum mcinit_severity sev = x->rule->sev;
	const struct mcinit_rule *rule;

	if (m->sev != NULL)
		sev = strcmp(m->sev, "note") == 0 ? MCINIT_NOTE : MCINIT_WARNING;
	e = mcinit_pyexpr_parse(m->message, &why);
	if (e != NULL) {
		struct mcinit_pv v = mcinit_pyexpr_eval(e, resolve, x);

		if (v.kind == MCINIT_PV_ERR || v.kind == MCINIT_PV_NONE)
			mcinit_buf_adds(&b, m->message);
		else
			mcinit_pv_str(&b, &v);
		mcinit_pyexpr_free(e);
	} else {
		mcinit_buf_adds(&b, *m->message ? m->message : m->cond);
		free(why);
	}
	/* The row's own field, not the family rule's nominal reads. */
	rule = x->rule;
	x->rule = NULL;
	mcinit_diag_hint(mcinit_rules_note(x, rule->code, sev, row_field(x, m),
	                                   "Megatron-LM %s (%s): %s", m->function, m->id,
	                                   mcinit_buf_cstr(&b)),
	                 "see %s in Megatron-LM", m->id);
	x->rule = rule;
	mcinit_buf_free(&b);
}

void
mcinit_rules_mchecks(struct mcinit_rule_ctx *x)
{
	size_t i;

	for (i = 0; i < mcinit_nmchecks; i++) {
		const struct mcinit_mcheck *m = &mcinit_mchecks[i];
		const char *why, *code = mcinit_mcheck_status(m, &why);
		int r;

		if (code == NULL || m->rule != NULL || strcmp(code, x->rule->code) != 0)
			continue;
		if (m->when != NULL) {
			r = evaluate(x, m->when, false);
		} else {
			r = evaluate(x, m->guard, false);
			if (r == 1)
				r = evaluate(x, m->cond, strcmp(m->kind, "assert") == 0);
		}
		if (r == 1)
			report_row(x, m);
	}
}
