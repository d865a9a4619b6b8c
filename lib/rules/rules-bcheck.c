/*
 * rules-bcheck.c — runs the rows of Megatron-Bridge's check table
 * (bchecks.h) as rules MC300-MC351 on a ConfigContainer: each row's guard
 * and condition are evaluated with Python's semantics, as the row's function
 * sees them.  In a section's method (SchedulerConfig.finalize) `self.x` is
 * that section's field; in ConfigContainer's methods and the module's
 * functions `self.model.x` (`config.model.x`) is model's, `self.peft` the
 * section itself (None when not set); a local is what
 * data/bridge-checks-locals.tsv computes; isinstance(self.dataset, C) asks
 * the dataset section's class (its _target_).  A section's method runs only
 * when the section is set and its class is the method's, and a function
 * only under its "(call)" condition.  A row that reads something mcinit
 * cannot evaluate for this config is skipped: a check that cannot be
 * decided is never guessed.
 */
#include "rules/rules-table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config/bridge.h"
#include "input/pyexpr.h"
#include "rules/bchecks.h"

/* The resolver's context is the engine's struct mcinit_port_run of the
 * row (r->v: the Bridge release). */

static int resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out);

/* ---- values ---- */

/* A JSON value as Python sees it; a dict stands as the list of its keys
 * (what `in`, len(), bool() and iteration see of it). */
static struct mcinit_pv
from_json(struct mcinit_pyexpr *e, json_t *j)
{
	struct mcinit_pv *l;
	const char *k;
	json_t *v;
	size_t i, n;

	switch (json_typeof(j)) {
	case JSON_TRUE:
	case JSON_FALSE:
		return (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = json_is_true(j)};
	case JSON_INTEGER:
		return (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = json_integer_value(j)};
	case JSON_REAL:
		return (struct mcinit_pv){.kind = MCINIT_PV_FLOAT, .f = json_real_value(j)};
	case JSON_STRING:
		return (struct mcinit_pv){.kind = MCINIT_PV_STR,
		                          .s = mcinit_pyexpr_strdup(e, json_string_value(j))};
	case JSON_ARRAY:
		n = json_array_size(j);
		l = mcinit_pyexpr_alloc_list(e, n);
		json_array_foreach(j, i, v) l[i] = from_json(e, v);
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = n};
	case JSON_OBJECT:
		n = json_object_size(j);
		l = mcinit_pyexpr_alloc_list(e, n);
		i = 0;
		json_object_foreach(j, k, v) l[i++] =
		    (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, k)};
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = n};
	default:
		return (struct mcinit_pv){.kind = MCINIT_PV_NONE};
	}
}

static struct mcinit_pv
from_value(struct mcinit_pyexpr *e, int f, const struct mcinit_value *v)
{
	const char *s = v->kind == MCINIT_V_STR ? mcinit_port_torch_dtype(f, v->s) : NULL;

	/* "bf16" is torch.bfloat16 to Bridge */
	if (s != NULL && s != v->s)
		return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = s};
	return mcinit_rules_pv_of(e, v, from_json);
}

/* ---- sections and their classes ---- */

/* The class section sec holds: its _target_, else its own class; NULL for
 * a section of no variant classes (train, scheduler, ...). */
static const struct mcinit_vclass *
section_class(const struct mcinit_config *c, const char *sec)
{
	json_t *t = json_object_get(json_object_get(c->extras, sec), "_target_");
	const struct mcinit_vclass *k = NULL;

	if (json_is_string(t))
		k = mcinit_vclass_find(sec, json_string_value(t));
	return k != NULL ? k : mcinit_vclass_default(sec);
}

/* Whether mcinit does not know what section sec holds: a mixed-precision
 * preset's name it did not resolve, or a section Bridge requires that the
 * config leaves out (Bridge's from_yaml would not construct the container:
 * a partial config, checked for what it has). */
static bool
unknown_section(const struct mcinit_config *c, const char *sec)
{
	const struct mcinit_section_info *si = mcinit_section_find(sec);

	if (json_is_string(json_object_get(c->extras, sec)))
		return !c->preset_known;
	return si != NULL && si->kind == MCINIT_SK_REQUIRED &&
	       json_object_get(c->sections, sec) == NULL;
}

/* isinstance(<section sec>, cls). */
static bool
section_isa(const struct mcinit_config *c, const char *sec, const char *cls)
{
	const struct mcinit_vclass *k = section_class(c, sec);

	return mcinit_config_section_set(c, sec) && mcinit_bclass_isa(sec, k ? k->name : NULL, cls);
}

/* "model.seq_length" -> the section ("model" into sec) and the rest after
 * the field ("" or ".k..." into *rest); the field's name into key. */
static bool
split_path(const char *path, char *sec, char *key, size_t len, const char **rest)
{
	size_t n = strcspn(path, "."), k;

	if (n == 0 || n >= len || path[n] != '.')
		return false;
	memcpy(sec, path, n);
	sec[n] = '\0';
	path += n + 1;
	k = strcspn(path, ".");
	if (k == 0 || k >= len)
		return false;
	memcpy(key, path, k);
	key[k] = '\0';
	*rest = path + k;
	return mcinit_section_find(sec) != NULL;
}

/* The standard field key of section sec in release v, -1 if none. */
static int
std_field(const char *sec, const char *key, unsigned v)
{
	int f = mcinit_field_lookup_key(sec, key, NULL);

	return f >= 0 && mcinit_field_in_bridge(f, v) ? f : -1;
}

/* The value of sec.key (and of the keys of a dict after it in rest), as the
 * section's class has it: 0, or -1 when the class has no such field or its
 * value is not known. */
static int
field_value(struct mcinit_port_run *r, struct mcinit_pyexpr *e, const char *sec, const char *key,
            const char *rest, struct mcinit_pv *out)
{
	const struct mcinit_config *c = r->x->c;
	const struct mcinit_vclass *k = section_class(c, sec);
	const struct mcinit_vfield *vf;
	json_t *j = NULL, *own = NULL;
	int f = std_field(sec, key, r->v);
	int nest = k != NULL ? mcinit_vclass_nested(k, "transformer") : -1;

	if (!mcinit_config_section_set(c, sec))
		return -1; /* None has no attributes */
	/* self.model.transformer.X of a builder-style model config: the
	 * nested TransformerConfig's field X */
	if (nest >= 0 && strcmp(key, "transformer") == 0 && rest[0] == '.') {
		char sub[128];
		size_t n = strcspn(rest + 1, ".");
		int g;

		snprintf(sub, sizeof sub, "%.*s", (int)n, rest + 1);
		g = std_field(sec, sub, r->v);
		if (g >= 0 && mcinit_field_in_nested(g, nest)) {
			f = g;
			rest += 1 + n;
		}
	}
	/* A section the config leaves out (a recipe's, a partial config's) is
	 * not known, but a field of it an input set is: the recipe's literal
	 * (checkpoint.pretrained_checkpoint = None), an override after it. */
	if (unknown_section(c, sec) && (f < 0 || json_is_string(json_object_get(c->extras, sec)) ||
	                                c->origin[f] == MCINIT_ORIG_DEFAULT || c->runtime[f]))
		return -1;
	/* (and self.model.X of one: its __getattr__ hands X to transformer) */
	if (f >= 0 &&
	    (k == NULL || mcinit_vclass_has_std(k, f) || mcinit_field_in_nested(f, nest))) {
		/* (a value of another type Bridge keeps, pyval, is read as
		 * Python holds it) */
		if (mcinit_cfg_unreadable(c, f))
			return -1;
		if (c->pyval[f])
			r->pyval_read = true;
		if (*rest == '\0') {
			*out = from_value(e, f, &c->val[f]);
			return 0;
		}
		if (c->val[f].kind != MCINIT_V_JSON)
			return -1;
		j = c->val[f].j;
	} else if (k != NULL && (vf = mcinit_vclass_field(k, key)) != NULL) {
		j = json_object_get(json_object_get(c->extras, sec), key);
		if (j == NULL)
			j = own = json_loads(mcinit_vstr(vf->def), JSON_DECODE_ANY, NULL);
	}
	/* a dict's keys read as attributes */
	while (j != NULL && *rest == '.') {
		char sub[128];
		size_t n = strcspn(rest + 1, ".");

		snprintf(sub, sizeof sub, "%.*s", (int)n, rest + 1);
		j = json_is_object(j) ? json_object_get(j, sub) : NULL;
		rest += 1 + n;
	}
	if (j != NULL)
		*out = from_json(e, j);
	json_decref(own);
	return j != NULL ? 0 : -1;
}

/* ---- names ---- */

/* A local whose value is a plain attribute path (model_cfg = config.model):
 * the path without self./config., into buf; NULL otherwise. */
static const char *
alias_of(const struct mcinit_port_local *l, char *buf, size_t len)
{
	const char *p = l->value;
	size_t i;

	if (strncmp(p, "self.", 5) == 0)
		p += 5;
	else if (strncmp(p, "config.", 7) == 0)
		p += 7;
	else
		return NULL;
	for (i = 0; p[i]; i++)
		if (!(p[i] == '.' || p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z') ||
		      (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9')))
			return NULL;
	snprintf(buf, len, "%s", p);
	return buf;
}

/* The local `name` of the row's function: in release r->v, or (asking
 * whether names are known) in any release of the row. */
static const struct mcinit_port_local *
local(const struct mcinit_port_run *r, const char *name)
{
	const struct mcinit_port_local *l =
	    mcinit_ports_bridge.local(r->row, name, r->x ? r->v : r->row->releases);

	/* inside its own value, a local that names an attribute
	 * (self.scheduler.lr_decay_steps) is the attribute as written */
	return l != NULL && !mcinit_port_local_active(r, l) ? l : NULL;
}

/* name with a local alias at its head replaced by the alias's path
 * ("model_cfg.bf16" -> "model.bf16", "%cfg:C" -> "model:C"), into buf;
 * name itself when there is none. */
static const char *
unalias(const struct mcinit_port_run *r, const char *name, char *buf, size_t len)
{
	const char *start = name[0] == '%' ? name + 1 : name;
	size_t n = strcspn(start, ".:");
	const struct mcinit_port_local *l;
	char head[128], path[160];

	if (n >= sizeof head - 1)
		return name;
	/* "%" and the name's head (not snprintf: asked at every name) */
	head[0] = '%';
	memcpy(head + 1, start, n);
	head[n + 1] = '\0';
	if ((l = local(r, head)) == NULL || alias_of(l, path, sizeof path) == NULL)
		return name;
	snprintf(buf, len, "%s%s", path, start + n);
	return buf;
}

/* name in the terms of the container: a section method's `self.x` is its
 * section's x ("x" -> "scheduler.x"). */
static const char *
scoped(const struct mcinit_port_run *r, const char *name, char *buf, size_t len)
{
	const char *sec = mcinit_bscope(r->row)->section;

	if (sec[0] == '\0' || name[0] == '%' || name[0] == '$')
		return name;
	snprintf(buf, len, "%s.%s", sec, name);
	return buf;
}

/* The job's environment as Bridge reads it: the process's, where
 * apply_environment_variables sets env_vars with os.environ.setdefault. */
static int
env_value(struct mcinit_port_run *r, struct mcinit_pyexpr *e, const char *var,
          struct mcinit_pv *out)
{
	const char *s = mcinit_rules_env_get(r->x->o, var);
	json_t *j;

	if (s == NULL && (j = json_object_get(r->x->c->env_vars, var)) != NULL) {
		struct mcx_buf b = {0};
		struct mcinit_pv v = from_json(e, j);

		if (json_is_boolean(j) || json_is_number(j)) /* str(value) */
			mcinit_pv_str(&b, &v);
		else
			mcx_buf_adds(&b, json_string_value(j));
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR,
		                          .s = mcinit_pyexpr_strdup(e, mcx_buf_cstr(&b))};
		mcx_buf_free(&b);
		return 0;
	}
	if (s == NULL)
		return -1;
	*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, s)};
	return 0;
}

/* Whether name (after scoping and aliases) is something the resolver can
 * give a value: a section, a field of one, a class test of one. */
static bool
path_known(const char *name, unsigned v)
{
	char sec[128], key[128];
	const char *rest, *colon = strchr(name, ':');

	if (colon != NULL) {
		snprintf(sec, sizeof sec, "%.*s", (int)(colon - name), name);
		return mcinit_section_find(sec) != NULL;
	}
	if (strchr(name, '.') == NULL)
		return mcinit_section_find(name) != NULL;
	if (!split_path(name, sec, key, sizeof sec, &rest))
		return false;
	return std_field(sec, key, v) >= 0 || mcinit_vclass_with_key(sec, key, NULL) != NULL;
}

static int
resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out)
{
	struct mcinit_port_run *r = ctx;
	const struct mcinit_port_local *l;
	char b1[200], b2[200], sec[128], key[128];
	const char *rest, *colon;

	if (name[0] == '$')
		return env_value(r, e, name + 1, out);
	if (strcmp(name, "get_world_size_safe()") == 0) {
		if (!r->x->dv->world_ok)
			return -1;
		*out = (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = r->x->dv->world_size};
		return 0;
	}
	if ((l = local(r, name)) != NULL)
		return mcinit_port_eval_local(r, e, l, out);
	name = scoped(r, unalias(r, name, b1, sizeof b1), b2, sizeof b2);
	if ((l = local(r, name)) != NULL) /* self.x of a section's method */
		return mcinit_port_eval_local(r, e, l, out);
	if (mcinit_mcheck_constant(name) && strncmp(name, "torch.", 6) == 0) {
		*out =
		    (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, name)};
		return 0;
	}
	if ((colon = strchr(name, ':')) != NULL) {
		snprintf(sec, sizeof sec, "%.*s", (int)(colon - name), name);
		if (mcinit_section_find(sec) == NULL || unknown_section(r->x->c, sec))
			return -1;
		*out = (struct mcinit_pv){.kind = MCINIT_PV_BOOL,
		                          .i = section_isa(r->x->c, sec, colon + 1)};
		return 0;
	}
	if (strchr(name, '.') == NULL) {
		/* a section itself: None, a preset's name, or its class */
		json_t *s = json_object_get(r->x->c->extras, name);
		const struct mcinit_vclass *k;

		if (mcinit_section_find(name) == NULL || unknown_section(r->x->c, name))
			return -1;
		if (!mcinit_config_section_set(r->x->c, name)) {
			*out = (struct mcinit_pv){.kind = MCINIT_PV_NONE};
			return 0;
		}
		k = section_class(r->x->c, name);
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR,
		                          .s = json_is_string(s) ? json_string_value(s)
		                               : k               ? mcinit_vclass_short(k)
		                                                 : name};
		return 0;
	}
	if (!split_path(name, sec, key, sizeof sec, &rest))
		return -1;
	return field_value(r, e, sec, key, rest, out);
}

bool
mcinit_bcheck_name_known(const struct mcinit_port *b, const char *name)
{
	struct mcinit_port_run r = {.t = &mcinit_ports_bridge, .row = b, .v = b->releases};
	char b1[200], b2[200];
	unsigned v;

	if (name[0] == '$' || strcmp(name, "get_world_size_safe()") == 0 || local(&r, name))
		return true;
	name = scoped(&r, unalias(&r, name, b1, sizeof b1), b2, sizeof b2);
	if (local(&r, name) != NULL ||
	    (mcinit_mcheck_constant(name) && strncmp(name, "torch.", 6) == 0))
		return true;
	for (v = 1; v != 0 && v <= b->releases; v <<= 1)
		if ((b->releases & v) != 0 && path_known(name, v))
			return true;
	return false;
}

/* ---- evaluation ---- */

/* Whether the row's function runs: a section's method on a set section of
 * its class, a function under its "(call)" condition.  1, 0 or -1. */
static int
runs(struct mcinit_port_run *r)
{
	const struct mcinit_bscope *s = mcinit_bscope(r->row);
	const struct mcinit_port_local *call = local(r, "(call)");

	if (s->section[0] != '\0' && unknown_section(r->x->c, s->section))
		return -1;
	if (s->section[0] != '\0' && !section_isa(r->x->c, s->section, s->cls))
		return 0;
	return call != NULL ? mcinit_port_eval_expr(r, call->value,
	                                            mcinit_port_local_expr(r->t, call), false)
	                    : 1;
}

/* Whether row r fails on the config: 1, 0 or -1 (cannot be decided). */
static int
verdict(struct mcinit_port_run *r)
{
	return runs(r) == 1 ? mcinit_port_verdict(r) : 0;
}

/* The field name points at (mcinit_port_field): a local points at what it
 * is computed from. */
static void
point(void *ctx, const char *name)
{
	struct mcinit_port_at *a = ctx;
	const struct mcinit_port_local *l = local(a->r, name);
	char b1[200], b2[200], sec[128], key[128];
	const char *rest;

	if (l == NULL) {
		name = scoped(a->r, unalias(a->r, name, b1, sizeof b1), b2, sizeof b2);
		l = local(a->r, name);
	}
	if (l != NULL)
		mcinit_port_point_tree(a, mcinit_port_local_expr(a->r->t, l));
	else if (split_path(name, sec, key, sizeof sec, &rest))
		mcinit_port_point(a, std_field(sec, key, a->r->v));
}

static const struct mcinit_port_eval eval = {resolve, point, NULL, verdict, NULL};

void
mcinit_rules_bchecks(struct mcinit_rule_ctx *x)
{
	struct mcinit_port_run r = {x, &mcinit_ports_bridge, &eval, .v = x->c->bversion};

	if (x->c->bridge)
		mcinit_port_check(&r);
}

/* The rows of the checks this file runs (rules.c lists them). */
const struct mcinit_rule mcinit_rule_mc300 = {
    "MC300",
    MCINIT_ERROR,
    "Megatron-Bridge's own check in ConfigContainer.validate, or in what runtime_config_update "
    "runs before it, holds for a ConfigContainer (a config whose root _target_ is "
    "megatron.bridge.training.config.ConfigContainer), as the config's Bridge release "
    "(--bridge-version) has it (one row of data/bridge-checks.tsv)",
    "model.seq_length 131072 with dataset.seq_length 8192 (Bridge 0.6.2's "
    "nemotron_nano_9b_v2_pretrain_config)",
    "do what Bridge's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_bchecks};
const struct mcinit_rule mcinit_rule_mc301 = {
    "MC301",
    MCINIT_ERROR,
    "Megatron-Bridge's own check in a section's finalize (TrainingConfig, SchedulerConfig, "
    "CheckpointConfig, LoggerConfig, ProfilingConfig, NVRxStragglerDetectionConfig, "
    "GPTDatasetConfig, MixedPrecisionConfig) holds for a ConfigContainer (one row of "
    "data/bridge-checks.tsv)",
    "scheduler.lr_warmup_fraction 0.01 with scheduler.lr_warmup_iters 2000",
    "do what Bridge's message (quoted) asks",
    READS(F(world_size)),
    mcinit_rules_bchecks};
const struct mcinit_rule mcinit_rule_mc350 = {
    "MC350",
    MCINIT_WARNING,
    "a warning Megatron-Bridge gives in ConfigContainer.validate or runtime_config_update "
    "for a ConfigContainer (one row of data/bridge-checks.tsv)",
    "ddp.use_distributed_optimizer true with optimizer.use_distributed_optimizer false",
    "do what Bridge's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_bchecks};
const struct mcinit_rule mcinit_rule_mc351 = {
    "MC351",
    MCINIT_WARNING,
    "a warning Megatron-Bridge gives in a section's finalize or __post_init__ for a "
    "ConfigContainer (one row of data/bridge-checks.tsv)",
    "tokenizer.hf_tokenizer_kwargs set",
    "do what Bridge's message (quoted) suggests, or ignore it",
    READS(F(world_size)),
    mcinit_rules_bchecks};
