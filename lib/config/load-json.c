/*
 * load-json.c — JSON config files, and the walker over a config tree that
 * YAML files (load-yaml.c) share.  jansson parses; a one-pass position
 * index (jpos.c) maps every key and value back to line:column so that every
 * diagnostic found after parsing can point at what the user wrote.
 */
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

#include "config/bridge.h"
#include "input/jpos.h"

/* Keys that Megatron-Bridge's YAML/JSON dumps carry for Hydra instantiation. */
static bool
is_meta_key(const char *k)
{
	return strcmp(k, "_target_") == 0 || strcmp(k, "_partial_") == 0 ||
	       strcmp(k, "_call_") == 0;
}

struct jctx {
	struct mcinit_config *c;
	struct mcinit_diags *d;
	struct mcinit_jpos *jp;
	struct mcinit_loc base;  /* source name and order */
	const char *target;      /* the class Bridge builds for the section read */
	enum mcinit_origin orig; /* what the values read are */
	/* A file merged over a ConfigContainer an earlier input loaded, as
	 * Bridge's example scripts merge `--config-file`
	 * (process_config_with_overrides): OmegaConf merges it, then
	 * apply_overrides sets back each key the dataclass has and skips the
	 * others with a log warning, whatever the class's constructor takes. */
	bool merged;
	/* {section: {key: true}}: a _target_ Bridge refuses is under it, so
	 * its value is not read (the rules skip it).  Owned. */
	json_t *refused;
	/* The did-you-mean candidates of the section last asked for, with
	 * their keys: [0] its fields, [1] with its variant classes' too.  Made
	 * for every unknown key, they cost 130 us each (160,000 unknown keys
	 * took 21 s).  Owned. */
	struct cands {
		char *sec;
		const char **v, **sorted;
		struct mcinit_suggest_key *keys;
		size_t n;
	} cands[2];
};

struct names {
	const char *v[4096];
	size_t n;
};

static void
add_name(const char *name, void *arg)
{
	struct names *nm = arg;

	if (nm->n < sizeof nm->v / sizeof nm->v[0])
		nm->v[nm->n++] = name;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The candidates of section sec (with_variants: and of its variant
 * classes), made once for a run of keys of one section. */
static const struct cands *
cands_of(struct jctx *x, const char *sec, bool with_variants)
{
	struct cands *cc = &x->cands[with_variants];
	struct names *nm;
	size_t i;

	if (cc->sec != NULL && strcmp(cc->sec, sec) == 0)
		return cc;
	free(cc->sec);
	free(cc->v);
	free(cc->sorted);
	free(cc->keys);
	nm = mcx_xcalloc(1, sizeof *nm);
	for (i = 0; i < MCINIT_F_COUNT; i++)
		if (strcmp(mcinit_field_s(i, section), sec) == 0)
			add_name(mcinit_field_s(i, name), nm);
	if (with_variants)
		mcinit_vfield_each(sec, nm, add_name);
	cc->sec = mcx_xstrdup(sec);
	cc->n = nm->n;
	cc->v = mcx_xmalloc((nm->n + 1) * sizeof *cc->v);
	cc->keys = mcx_xmalloc((nm->n + 1) * sizeof *cc->keys);
	for (i = 0; i < nm->n; i++) {
		cc->v[i] = nm->v[i];
		mcinit_suggest_key_of(nm->v[i], &cc->keys[i]);
	}
	cc->sorted = mcx_xmalloc((nm->n + 1) * sizeof *cc->sorted);
	memcpy(cc->sorted, cc->v, nm->n * sizeof *cc->sorted);
	qsort(cc->sorted, nm->n, sizeof *cc->sorted, cmp_name);
	free(nm);
	return cc;
}

/* Whether key is one of the candidates (a binary search). */
static bool
in_cands(const struct cands *cc, const char *key)
{
	return bsearch(&key, cc->sorted, cc->n, sizeof *cc->sorted, cmp_name) != NULL;
}

static void
jctx_free(struct jctx *x)
{
	for (size_t k = 0; k < 2; k++) {
		free(x->cands[k].sec);
		free(x->cands[k].v);
		free(x->cands[k].sorted);
		free(x->cands[k].keys);
	}
	json_decref(x->refused);
}

/* Position of /a/b (key when want_key, else value). */
static struct mcinit_loc
where(const struct jctx *x, const char *a, const char *b, bool want_key)
{
	struct mcx_buf ptr = {0};
	struct mcinit_pos kp = {0}, vp = {0};
	struct mcinit_loc l = x->base;

	if (a != NULL)
		mcinit_jpos_append_token(&ptr, a);
	if (b != NULL)
		mcinit_jpos_append_token(&ptr, b);
	if (mcinit_jpos_lookup(x->jp, ptr.len ? mcx_buf_cstr(&ptr) : "", &kp, &vp) == 0) {
		struct mcinit_pos *p = want_key && kp.line > 0 ? &kp : &vp;

		l.line = p->line;
		l.col = p->col;
	}
	mcx_buf_free(&ptr);
	return l;
}

/* Position of /a/b/c: a key of a config nested in a section's field. */
static struct mcinit_loc
where3(const struct jctx *x, const char *a, const char *b, const char *c, bool want_key)
{
	struct mcx_buf ptr = {0};
	struct mcinit_pos kp = {0}, vp = {0};
	struct mcinit_loc l = x->base;

	mcinit_jpos_append_token(&ptr, a);
	mcinit_jpos_append_token(&ptr, b);
	mcinit_jpos_append_token(&ptr, c);
	if (mcinit_jpos_lookup(x->jp, mcx_buf_cstr(&ptr), &kp, &vp) == 0) {
		struct mcinit_pos *p = want_key && kp.line > 0 ? &kp : &vp;

		l.line = p->line;
		l.col = p->col;
	}
	mcx_buf_free(&ptr);
	return l;
}

/* How bad a key is that the section's class lacks.  Bridge's from_yaml
 * drops it with a log warning (its value never applies), unless the class's
 * constructor takes **kwargs: then the key is passed on and refused.  Only
 * a ConfigContainer goes through that loader; mcinit's own format refuses. */
static enum mcinit_severity
unknown_sev(const struct jctx *x)
{
	if (x->merged)
		return MCINIT_WARNING;
	if (!x->c->bridge || x->target == NULL ||
	    mcinit_bridge_keeps_unknown_keys(x->target, x->c->bversion))
		return MCINIT_ERROR;
	return MCINIT_WARNING;
}

/* What the message adds when Bridge drops the key. */
static const char *
dropped(const struct jctx *x)
{
	return unknown_sev(x) == MCINIT_WARNING
	           ? "; Megatron-Bridge drops it with only a log warning, so its value never "
	             "applies"
	           : "";
}

static void
unknown_key(struct jctx *x, const char *sec, const char *key)
{
	const struct cands *cc = cands_of(x, sec, false);
	const char *pick = mcinit_suggest_keyed(key, cc->v, cc->keys, cc->n);
	struct mcinit_loc l = where(x, sec, key, true);
	struct mcinit_diag *g;
	int i;

	g = mcinit_diag_add(x->d, unknown_sev(x), "MC003", &l, "unknown key '%s' in section '%s'%s",
	                    key, sec, dropped(x));
	if (pick != NULL) {
		mcinit_diag_hint(g, "did you mean `%s`?", pick);
		return;
	}
	/* Right name, wrong section is a common slip when moving between
	 * Megatron-LM flags (flat) and Bridge configs (sectioned). */
	i = mcinit_field_lookup(NULL, key);
	if (i >= 0)
		mcinit_diag_hint(g, "`%s` belongs in section \"%s\"", key,
		                 mcinit_field_s(i, section));
	else if (unknown_sev(x) == MCINIT_ERROR && mcinit_section_find(sec)->bridge_ty != NULL)
		mcinit_diag_hint(
		    g,
		    "Megatron-Bridge's %s has no field `%s`: Bridge would skip it with "
		    "only a log warning, so its value would never apply",
		    mcinit_section_find(sec)->bridge_ty, key);
}

static void
load_env_vars(struct jctx *x, json_t *obj)
{
	const char *k;
	json_t *v;

	x->c->env_vars_loc = where(x, "env_vars", NULL, false);
	if (!json_is_object(obj)) {
		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &x->c->env_vars_loc,
		                "env_vars: expected an object of NAME: value");
		return;
	}
	json_object_foreach(obj, k, v)
	{
		if (k[0] == '\0') {
			struct mcinit_loc l = where(x, "env_vars", k, true);

			/* Bridge's apply_environment_variables refuses it */
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l,
			                "env_vars: an environment variable name must be a "
			                "non-empty string");
			continue;
		}
		if (json_is_string(v) || json_is_number(v) || json_is_boolean(v)) {
			json_object_set(x->c->env_vars, k, v);
			continue;
		}
		struct mcinit_loc l = where(x, "env_vars", k, false);

		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l,
		                "env_vars.%s: expected a string, number or boolean", k);
	}
}

/* Keeps what a section holds beyond its standard fields, for --print-config. */
static void
keep_extra(struct jctx *x, const char *sec, const char *key, json_t *v)
{
	json_t *s = json_object_get(x->c->extras, sec);

	if (s == NULL) {
		s = json_object();
		json_object_set_new(x->c->extras, sec, s);
	}
	json_object_set(s, key, v);
}

/* A key of no class of the section: MC003 with the closest field of any. */
static void
unknown_class_key(struct jctx *x, const char *sec, const char *key, const struct mcinit_vclass *cls)
{
	struct mcinit_loc l = where(x, sec, key, true);
	const struct cands *cc = cands_of(x, sec, true);
	const char *pick = mcinit_suggest_keyed(key, cc->v, cc->keys, cc->n);
	struct mcinit_diag *g;
	if (cls != NULL)
		g = mcinit_diag_add(x->d, unknown_sev(x), "MC003", &l,
		                    "unknown key '%s' in section '%s': %s has no such field%s", key,
		                    sec, mcinit_vclass_short(cls), dropped(x));
	else
		g = mcinit_diag_add(
		    x->d, unknown_sev(x), "MC003", &l,
		    "unknown key '%s' in section '%s': no Megatron-Bridge class of "
		    "this section has it%s",
		    key, sec,
		    x->c->bridge ? dropped(x) : " (Bridge would skip it with only a log warning)");
	if (pick != NULL)
		mcinit_diag_hint(g, "did you mean `%s`?", pick);
}

/* A field of another Megatron-Bridge release than the one the config is
 * checked against: that release's class has no such argument, so its
 * loader drops the key or refuses it (unknown_sev). */
static void
other_release_key(struct jctx *x, const char *sec, const char *key, int f)
{
	struct mcinit_loc l = where(x, sec, key, true);
	char in[64] = "", *p = in;
	unsigned v;

	for (v = 1; strcmp(mcinit_bversion_name(v), "?") != 0; v <<= 1)
		if (mcinit_field_in_bridge(f, v))
			p += snprintf(p, sizeof in - (size_t)(p - in), "%s%s", p == in ? "" : ", ",
			              mcinit_bversion_name(v));
	mcinit_diag_hint(mcinit_diag_add(x->d, unknown_sev(x), "MC003", &l,
	                                 "%s.%s is not a field of Megatron-Bridge %s, only of %s%s",
	                                 sec, key, mcinit_bversion_name(x->c->bversion), in,
	                                 dropped(x)),
	                 "drop it, or check against the release you run (--bridge-version)");
}

/* A key only some classes of the section have (a VLM provider's field in
 * `model`, a LoRA's in `peft`): checked against that class's type. */
static void
class_key(struct jctx *x, const char *sec, const char *key, json_t *v,
          const struct mcinit_vclass *cls, bool chosen)
{
	const struct mcinit_vfield *vf = NULL;
	const struct mcinit_vclass *k = cls;
	struct mcinit_loc l = where(x, sec, key, false);
	char *why = NULL;

	if (chosen)
		vf = mcinit_vclass_field(cls, key);
	else if (in_cands(cands_of(x, sec, true), key)) /* else no class has it: no scan */
		k = mcinit_vclass_with_key(sec, key, &vf);
	if (vf == NULL) {
		unknown_class_key(x, sec, key, chosen ? cls : NULL);
		return;
	}
	if (!chosen) {
		struct mcinit_loc kl = where(x, sec, key, true);

		mcinit_diag_hint(
		    mcinit_diag_add(x->d, MCINIT_NOTE, "MC003", &kl,
		                    "%s.%s is a field of Megatron-Bridge's %s, not of "
		                    "%s; accepted as that class's",
		                    sec, key, mcinit_vclass_short(k), mcinit_vclass_short(cls)),
		    "write \"_target_\": \"%s\" in \"%s\" to say which class it is", k->name, sec);
	}
	if (mcinit_type_check(mcinit_vstr(vf->type), mcinit_vstr(vf->choices), v, &why) < 0) {
		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l, "%s.%s (%s): %s", sec, key,
		                mcinit_vclass_short(k), why);
		free(why);
		return;
	}
	keep_extra(x, sec, key, v);
}

/* A standard field that the section's class redeclares with another type
 * (Gemma 3's rotary_base, a tuple of two bases): a value the class's type
 * allows and the standard type does not is kept as it is.  True when so. */
static bool
class_typed(struct jctx *x, int f, json_t *v, const struct mcinit_vclass *cls,
            const struct mcinit_loc *l)
{
	const struct mcinit_vfield *vf =
	    cls ? mcinit_vclass_field(cls, mcinit_field_s(f, name)) : NULL;
	struct mcinit_value tmp;
	const char *code;
	char *why = NULL, *note = NULL;
	int std;

	if (vf == NULL)
		return false;
	std = mcinit_value_from_json_py(f, v, true, &tmp, &code, &why, &note);
	if (std == 0)
		mcinit_value_clear(&tmp);
	free(why);
	free(note);
	why = NULL;
	if (std == 0 ||
	    mcinit_type_check(mcinit_vstr(vf->type), mcinit_vstr(vf->choices), v, &why) < 0) {
		free(why);
		return false;
	}
	mcinit_config_set_raw(x->c, f, v, x->orig, l);
	return true;
}

/* `_target_` names the section's class: its defaults replace the standard
 * ones where they differ.  Returns the class, or the section's default. */
static const struct mcinit_vclass *
section_class(struct jctx *x, const char *sec, json_t *obj, bool *chosen)
{
	json_t *t = json_object_get(obj, "_target_");
	const struct mcinit_vclass *dflt = mcinit_vclass_default(sec), *k;
	int f, nest;

	*chosen = false;
	if (dflt != NULL && !json_is_string(t) && x->merged) {
		/* a file merged over a builder-style model config: OmegaConf
		 * merges into the mapping that names its class, so the keys are
		 * that class's (model.transformer.X) */
		json_t *was = json_object_get(json_object_get(x->c->extras, sec), "_target_");

		k = json_is_string(was) ? mcinit_vclass_find(sec, json_string_value(was)) : NULL;
		if (k != NULL && mcinit_vclass_nested(k, "transformer") >= 0) {
			*chosen = true;
			return k;
		}
	}
	if (dflt == NULL || !json_is_string(t))
		return dflt;
	k = mcinit_vclass_find(sec, json_string_value(t));
	if (k == NULL) {
		struct mcinit_loc l = where(x, sec, "_target_", false);

		mcinit_diag_add(x->d, MCINIT_WARNING, "MC003", &l,
		                "%s._target_ '%s' is no Megatron-Bridge class mcinit knows; the "
		                "section is checked as %s",
		                sec, json_string_value(t), mcinit_vclass_short(dflt));
		return dflt;
	}
	*chosen = true;
	nest = mcinit_vclass_nested(k, "transformer");
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const struct mcinit_vfield *vf;
		const char *def;
		json_t *j;

		if (strcmp(mcinit_field_s(f, section), sec) != 0 ||
		    x->c->origin[f] != MCINIT_ORIG_DEFAULT)
			continue;
		vf = mcinit_vclass_field(k, mcinit_field_s(f, name));
		/* a builder-style config's transformer starts from its own class's
		 * defaults, not from those the default provider overrides */
		def = vf != NULL ? mcinit_vstr(vf->def) : mcinit_field_nested_default(f, nest);
		if (def == NULL)
			continue;
		j = json_loads(def, JSON_DECODE_ANY, NULL);
		if (j != NULL) {
			struct mcinit_value v;
			const char *code;
			char *why = NULL, *note = NULL;

			/* Bridge's own defaults, read as Python reads them */
			if (mcinit_value_from_json_py(f, j, true, &v, &code, &why, &note) == 0) {
				mcinit_value_clear(&x->c->val[f]);
				x->c->val[f] = v;
			}
			free(note);
			free(why);
		}
		json_decref(j);
	}
	return k;
}

/* The field of a builder-style model config (Megatron-LM's GPTModelConfig,
 * HybridModelConfig, MambaModelConfig and Bridge's subclasses) that holds
 * the transformer's fields: `transformer: TransformerConfig`, whose class
 * sits at a position of the section's default MRO (mcinit_vclass_nested);
 * -1 when cls is no such class. */
static int
builder_nest(const struct mcinit_vclass *cls, bool chosen)
{
	return chosen && cls != NULL ? mcinit_vclass_nested(cls, "transformer") : -1;
}

/* The keys of sec's nested config `nest` (model.transformer), whose class
 * sits at MRO position pos: each a standard field of the section that the
 * class holds, read as that field and located where the file wrote it.
 * Bridge's instantiate builds that class from them, and drops a key it
 * lacks with a log warning, as for a section. */
static void
load_nested(struct jctx *x, const char *sec, const char *nest, int pos, json_t *obj)
{
	const char *saved = x->target, *k;
	json_t *v, *t = json_object_get(obj, "_target_");

	if (json_is_string(t))
		x->target = json_string_value(t);
	json_object_foreach(obj, k, v)
	{
		bool alias = false;
		int f = mcinit_field_lookup_key(sec, k, &alias);
		struct mcinit_loc l = where3(x, sec, nest, k, false);

		if (is_meta_key(k))
			continue;
		if (f < 0 || alias || !mcinit_field_in_nested(f, pos)) {
			struct mcinit_loc kl = where3(x, sec, nest, k, true);
			char *in = mcx_xasprintf("%s.%s", sec, nest);
			/* (without a `_target_` of its own, as in a merged file: the
			 * class its field is annotated with) */
			const char *cls =
			    json_is_string(t) ? strrchr(x->target, '.') : ".TransformerConfig";
			struct mcinit_diag *g;

			g = mcinit_diag_add(x->d, unknown_sev(x), "MC003", &kl,
			                    "unknown key '%s' in '%s': %s has no such field%s", k,
			                    in, cls ? cls + 1 : x->target, dropped(x));
			if (f >= 0 && !alias && mcinit_field_in_bridge(f, x->c->bversion))
				mcinit_diag_hint(g, "`%s` belongs directly under \"%s\"", k, sec);
			free(in);
			continue;
		}
		if (!mcinit_field_in_bridge(f, x->c->bversion)) {
			other_release_key(x, sec, k, f);
			continue;
		}
		mcinit_config_set_json(x->c, f, v, x->orig, &l, x->d);
	}
	x->target = saved;
}

static bool
empty_container(const json_t *j)
{
	return (json_is_array(j) && json_array_size(j) == 0) ||
	       (json_is_object(j) && json_object_size(j) == 0);
}

/*
 * A file's key of a field Bridge computes itself (init=False): the
 * ConfigContainer's from_yaml drops it before it builds the dataclass
 * (sanitize_dataclass_config), so its value never applies, whatever its
 * type; an override or a merged file, which set attributes of the built
 * object, do set it (load_key).  Bridge's to_yaml writes such fields at
 * their defaults, which are dropped without a word.
 */
static void
init_false_key(struct jctx *x, const char *sec, const char *k, enum mcinit_field f, json_t *v)
{
	json_t *now = mcinit_value_to_json(&x->c->val[f]);
	struct mcinit_loc l = where(x, sec, k, true);

	/* (an empty set, `!!set {}`, is the empty list mcinit holds) */
	if (!json_equal(now, v) && !(empty_container(now) && empty_container(v)))
		mcinit_diag_hint(
		    mcinit_diag_add(x->d, MCINIT_WARNING, "MC003", &l,
		                    "%s.%s is computed by Megatron-Bridge (a dataclass "
		                    "field with init=False): its from_yaml drops a "
		                    "file's key of it, so this value never applies",
		                    sec, k),
		    "remove the key; an override (++%s.%s=...) would set it, until "
		    "Bridge computes it",
		    sec, k);
	json_decref(now);
}

/* One key of section sec, whose class is cls (named by its `_target_`
 * when chosen). */
static void
load_key(struct jctx *x, const char *sec, const struct mcinit_vclass *cls, bool chosen,
         const char *k, json_t *v)
{
	bool alias = false;
	int f = mcinit_field_lookup_key(sec, k, &alias), nest;
	struct mcinit_loc l = where(x, sec, k, false);

	if (json_object_get(json_object_get(x->refused, sec), k) != NULL) {
		if (f >= 0) {
			x->c->invalid[f] = true;
			x->c->pyval[f] = false;
		}
		return;
	}
	if (is_meta_key(k)) {
		keep_extra(x, sec, k, v);
		return;
	}
	nest = builder_nest(cls, chosen);
	/* Megatron-LM's ModelConfig.to_dict writes the class's builder (a
	 * ClassVar) as `_builder_`, and Bridge's to_yaml keeps it; instantiate
	 * drops it again, and the builder is always the class's own */
	if (nest >= 0 && strcmp(k, "_builder_") == 0) {
		keep_extra(x, sec, k, v);
		return;
	}
	if (nest >= 0 && strcmp(k, "transformer") == 0 && json_is_object(v)) {
		load_nested(x, sec, k, nest, v);
		return;
	}
	/* model.num_layers beside such a class: its constructor (from_yaml's
	 * instantiate) has no such argument and drops it, but an override or
	 * a merged file sets it as an attribute, and the class's __setattr__
	 * hands a transformer's field to its `transformer` */
	if (nest >= 0 && f >= 0 && !alias && !mcinit_vclass_has_std(cls, f) &&
	    mcinit_field_in_nested(f, nest) && (x->merged || x->orig == MCINIT_ORIG_OVERRIDE) &&
	    mcinit_field_in_bridge(f, x->c->bversion)) {
		mcinit_config_set_json(x->c, f, v, x->orig, &l, x->d);
		return;
	}
	if (f >= 0 && alias) {
		struct mcinit_loc kl = where(x, sec, k, true);

		mcinit_diag_add(x->d, MCINIT_NOTE, "MC007", &kl,
		                "%s.%s is an alias of %s.%s, the name Megatron-Bridge's "
		                "dataclass and Megatron-LM use; read as that",
		                sec, k, mcinit_field_s(f, section), mcinit_field_s(f, name));
	}
	if (f >= 0 && chosen && !mcinit_vclass_has_std(cls, f)) {
		if (nest >= 0 && !alias && mcinit_field_in_nested(f, nest)) {
			/* the name is right, the level is not */
			struct mcinit_loc kl = where(x, sec, k, true);

			mcinit_diag_hint(
			    mcinit_diag_add(x->d, unknown_sev(x), "MC003", &kl,
			                    "unknown key '%s' in section '%s': %s has no "
			                    "such field%s",
			                    k, sec, mcinit_vclass_short(cls), dropped(x)),
			    "`%s` is a field of its TransformerConfig: write it under "
			    "\"%s.transformer\"",
			    k, sec);
			return;
		}
		unknown_class_key(x, sec, k, cls);
		return;
	}
	if (f < 0 && cls != NULL) {
		class_key(x, sec, k, v, cls, chosen);
		return;
	}
	if (f < 0) {
		unknown_key(x, sec, k);
		return;
	}
	if (!mcinit_field_in_bridge(f, x->c->bversion)) {
		other_release_key(x, sec, k, f);
		return;
	}
	if (x->c->bridge && !x->merged && x->orig != MCINIT_ORIG_OVERRIDE &&
	    mcinit_field_bridge_init_false(f)) {
		init_false_key(x, sec, k, f, v);
		return;
	}
	if (class_typed(x, f, v, cls, &l))
		return;
	mcinit_config_set_json(x->c, f, v, x->orig, &l, x->d);
}

/* Where Bridge 0.6.2 first uses a section that a merge left a plain dict,
 * and what it asks of it there: the AttributeError it then raises. */
static const struct {
	const char *sec, *attr, *where;
} dict_use[] = {
    {"mixed_precision", "finalize", "runtime_config_update (training/config.py:1876)"},
    {"comm_overlap", "data_parallel_size",
     "ConfigContainer.set_data_parallel_size (training/config.py:1041)"},
    {"profiling", "finalize", "ConfigContainer.validate (training/config.py:1269)"},
    {"nvrx_straggler", "finalize", "ConfigContainer.validate (training/config.py:1271)"},
    {"tensor_inspect", "finalize", "ConfigContainer.validate (training/config.py:1273)"},
    {"inprocess_restart", "enabled", "pretrain (training/pretrain.py:83)"},
    {"ft", "enable_ft_package", "setup (training/setup.py:271)"},
    {"straggler", "log_straggler", "train (training/train.py:217)"},
};

/*
 * A later input's mapping merged over a section an earlier one wrote as a
 * preset's name or None.  Bridge's example scripts merge the file with
 * OmegaConf (process_config_with_overrides): the mapping replaces the name
 * or None, and apply_overrides, finding no dataclass there to recurse into,
 * sets the plain dict itself, unless it names a `_target_` (instantiated:
 * a new object of that class).  True when the mapping is to be read (as a
 * new object: the section starts from its defaults), false when refused.
 */
static bool
merge_over_value(struct jctx *x, const char *sec, json_t *obj, const char *before)
{
	struct mcinit_loc l = where(x, sec, NULL, true);
	const char *ty = mcinit_section_find(sec)->bridge_ty;
	struct mcinit_diag *g;
	size_t i, n;

	/* "Optional[Union[MixedPrecisionConfig, str]]", "TensorInspectConfig |
	 * None": the class alone */
	if (ty != NULL && strncmp(ty, "Optional[", 9) == 0)
		ty += 9;
	if (ty != NULL && strncmp(ty, "Union[", 6) == 0)
		ty += 6;
	n = ty != NULL ? strcspn(ty, "],| ") : 0;

	if (json_is_string(json_object_get(obj, "_target_"))) {
		mcinit_config_reset_section(x->c, sec);
		return true;
	}
	for (i = 0; i < sizeof dict_use / sizeof dict_use[0]; i++)
		if (strcmp(dict_use[i].sec, sec) == 0)
			break;
	if (i < sizeof dict_use / sizeof dict_use[0])
		g = mcinit_diag_add(
		    x->d, MCINIT_ERROR, "MC004", &l,
		    "section '%s' is %s in an earlier input: this mapping, merged "
		    "over it as OmegaConf merges, replaces it by a plain dict, which "
		    "Bridge's apply_overrides sets as it is; Bridge then fails in %s: "
		    "AttributeError: 'dict' object has no attribute '%s'",
		    sec, strcmp(before, "null") == 0 ? "None" : "a preset's name",
		    dict_use[i].where, dict_use[i].attr);
	else
		g = mcinit_diag_add(
		    x->d, MCINIT_ERROR, "MC004", &l,
		    "section '%s' is %s in an earlier input: this mapping, merged "
		    "over it as OmegaConf merges, replaces it by a plain dict, which "
		    "Bridge's apply_overrides sets where its class belongs",
		    sec, strcmp(before, "null") == 0 ? "None" : "a preset's name");
	/* with a _target_, apply_overrides instantiates the class */
	mcinit_diag_hint(g,
	                 "give the mapping the `_target_` of its class (%.*s), as Bridge's "
	                 "to_yaml writes it: apply_overrides then makes a new object of it%s",
	                 ty != NULL ? (int)n : (int)strlen(sec), ty != NULL ? ty : sec,
	                 strcmp(before, "null") == 0 ? "" : "; or name a preset");
	return false;
}

static void
load_section(struct jctx *x, const char *sec, json_t *obj)
{
	/* how an earlier input wrote the section: this one merges over it */
	const char *before = json_string_value(json_object_get(x->c->sections, sec));
	const struct mcinit_vclass *cls;
	bool chosen;
	const char *k;
	json_t *v;

	if (!json_is_object(obj)) {
		const struct mcinit_section_info *si = mcinit_section_find(sec);
		struct mcinit_loc l = where(x, sec, NULL, false);

		/* Bridge's optional sections are None by default, and
		 * mixed_precision may name a preset ("bf16_mixed"). */
		/* profiling is annotated ProfilingConfig, yet every use of it in
		 * Bridge 0.6.2 allows None (config.py:1268 and 1933,
		 * initialize.py:101, train.py's profiler hooks): null, which a
		 * merge sets as it is, turns profiling off */
		if (json_is_null(obj) && (si->kind == MCINIT_SK_OPTIONAL ||
		                          (x->c->bridge && strcmp(sec, "profiling") == 0))) {
			json_object_set_new(x->c->sections, sec, json_string("null"));
			return;
		}
		if (json_is_string(obj) && si->str_ok) {
			/* the name replaces the object an earlier input wrote:
			 * Bridge makes a new MixedPrecisionConfig of the preset
			 * (get_mixed_precision_config), nothing of the old kept */
			if (before != NULL)
				mcinit_config_reset_section(x->c, sec);
			json_object_set(x->c->extras, sec, obj);
			json_object_set_new(x->c->sections, sec, json_string("string"));
			x->c->preset_loc = l;
			return;
		}
		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l,
		                "section '%s': expected an object%s", sec,
		                si->kind == MCINIT_SK_OPTIONAL ? " or null"
		                : si->str_ok                   ? " or a string"
		                                               : "");
		return;
	}
	if (x->c->bridge && before != NULL &&
	    (strcmp(before, "string") == 0 || strcmp(before, "null") == 0) &&
	    !merge_over_value(x, sec, obj, before))
		return;
	json_object_set_new(x->c->sections, sec, json_string("object"));
	cls = section_class(x, sec, obj, &chosen);
	x->target = json_string_value(json_object_get(obj, "_target_"));
	if (x->target == NULL && cls != NULL)
		x->target = cls->name;
	json_object_foreach(obj, k, v) load_key(x, sec, cls, chosen, k, v);
}

/* Where check_targets is: a JSON pointer (for positions) and the dotted
 * path Bridge names in its messages. */
struct tpath {
	struct mcx_buf ptr, dots;
	int depth;
	const char *sec, *key; /* the first two components, once that deep */
};

static void
refuse_target(struct jctx *x, struct tpath *p, const char *target, const char *key)
{
	char *why = mcinit_bridge_target_refusal(target, key, x->c->bversion);
	struct mcinit_pos kp = {0}, vp = {0};
	struct mcinit_loc l = x->base;
	size_t len = p->ptr.len;

	if (why == NULL)
		return;
	if (p->depth >= 2) { /* the field holding it is not read (mark_refused) */
		json_t *sec = json_object_get(x->refused, p->sec);

		if (sec == NULL)
			json_object_set_new(x->refused, p->sec, sec = json_object());
		json_object_set_new(sec, p->key, json_true());
	}
	mcinit_jpos_append_token(&p->ptr, "_target_");
	if (mcinit_jpos_lookup(x->jp, mcx_buf_cstr(&p->ptr), &kp, &vp) == 0) {
		l.line = vp.line;
		l.col = vp.col;
	}
	p->ptr.len = len;
	mcinit_diag_hint(mcinit_diag_add(x->d, MCINIT_ERROR, "MC005", &l,
	                                 "%s%s_target_ '%s' is refused: %s", mcx_buf_cstr(&p->dots),
	                                 p->dots.len ? "." : "", target, why),
	                 "name a class or function of the allowed packages, or set the value "
	                 "in Python code");
	free(why);
}

/* Every `_target_` of the tree under v, as Bridge's instantiate meets
 * them: it checks each before it imports it (_validate_target_prefix), and
 * one it refuses stops from_yaml.  key: the last component of v's path. */
static void
check_targets(struct jctx *x, struct tpath *p, json_t *v, const char *key)
{
	size_t plen = p->ptr.len, dlen = p->dots.len, i;
	const char *k;
	json_t *e;

	if (json_is_object(v) && json_is_string(json_object_get(v, "_target_")))
		refuse_target(x, p, json_string_value(json_object_get(v, "_target_")), key);
	if (json_is_object(v)) {
		json_object_foreach(v, k, e)
		{
			/* a ConfigContainer drops a top-level key it lacks unread */
			if (p->dots.len == 0 && x->c->bridge && !is_meta_key(k) &&
			    mcinit_section_find(k) == NULL)
				continue;
			mcinit_jpos_append_token(&p->ptr, k);
			mcx_buf_printf(&p->dots, "%s%s", dlen ? "." : "", k);
			if (p->depth == 0)
				p->sec = k;
			else if (p->depth == 1)
				p->key = k;
			p->depth++;
			check_targets(x, p, e, k);
			p->depth--;
			p->ptr.len = plen;
			p->dots.len = dlen;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
		{
			char idx[32];

			snprintf(idx, sizeof idx, "%zu", i);
			mcinit_jpos_append_token(&p->ptr, idx);
			mcx_buf_printf(&p->dots, "[%zu]", i);
			if (p->depth < 2) /* a list where a section or field should be */
				p->sec = p->key = "";
			p->depth++;
			check_targets(x, p, e, NULL);
			p->depth--;
			p->ptr.len = plen;
			p->dots.len = dlen;
		}
	}
}

/* A class path whose last component is ConfigContainer. */
static bool
is_container(const char *target)
{
	const char *dot = strrchr(target, '.');

	return strcmp(dot ? dot + 1 : target, "ConfigContainer") == 0;
}

static void
load_root(struct jctx *x, json_t *root)
{
	struct tpath p = {{0}, {0}, 0, NULL, NULL};
	const char *k;
	json_t *v;
	size_t i;

	if (!json_is_object(root)) {
		struct mcinit_loc l = where(x, NULL, NULL, false);

		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l,
		                "expected a JSON object with sections (model, train, dist, ...)");
		return;
	}
	/* Bridge's from_yaml requires the root's _target_: a ConfigContainer
	 * (megatron.bridge.training.config.ConfigContainer, or a subclass
	 * named so).  Its defaults apply before its sections are read. */
	v = json_object_get(root, "_target_");
	if (json_is_string(v) && is_container(json_string_value(v)))
		mcinit_config_bridge_container(x->c);
	/* mcinit's own format may name a class alone ("_target_":
	 * "GPTSFTDatasetConfig"): only what Bridge loads is held to its rules */
	if (x->c->bridge)
		check_targets(x, &p, root, NULL);
	mcx_buf_free(&p.ptr);
	mcx_buf_free(&p.dots);
	json_object_foreach(root, k, v)
	{
		const struct mcinit_section_info *si;

		if (is_meta_key(k))
			continue;
		si = mcinit_section_find(k);
		if (si == NULL) {
			struct mcinit_loc l = where(x, k, NULL, true);
			const char *names[64], *pick;
			struct mcinit_diag *g;

			for (i = 0; i < mcinit_nsections && i < 64; i++)
				names[i] = mcinit_sections[i].name;
			pick = mcinit_suggest(k, names, i);
			/* a ConfigContainer's from_yaml drops it without a word;
			 * apply_overrides, merging a file over one, with a warning */
			g = mcinit_diag_add(
			    x->d, x->c->bridge ? MCINIT_WARNING : MCINIT_ERROR, "MC003", &l,
			    "unknown section '%s'%s", k,
			    x->merged      ? "; Megatron-Bridge's apply_overrides skips it "
			                     "with a log warning, so it never applies"
			    : x->c->bridge ? "; Megatron-Bridge's ConfigContainer drops "
			                     "it without a word, so it never applies"
			                   : "");
			if (pick != NULL)
				mcinit_diag_hint(g, "did you mean `%s`?", pick);
			else if (mcinit_field_lookup(NULL, k) >= 0)
				mcinit_diag_hint(
				    g, "`%s` is a field of section \"%s\"", k,
				    mcinit_field_s(mcinit_field_lookup(NULL, k), section));
			else
				mcinit_diag_hint(g,
				                 "sections are Megatron-Bridge's (model, train, "
				                 "optimizer, ...), launch, megatron and env_vars; "
				                 "`mcinit schema` lists them");
		} else if (si->kind == MCINIT_SK_MAP) {
			load_env_vars(x, v);
		} else {
			load_section(x, k, v);
		}
	}
}

static void
report_duplicate(struct jctx *x, const json_error_t *je)
{
	const char *ptr = NULL;
	struct mcinit_pos kp = {0};
	struct mcinit_loc l = x->base;
	struct mcinit_diag *g;

	if (mcinit_jpos_first_duplicate(x->jp, &ptr, &kp) == 0) {
		l.line = kp.line;
		l.col = kp.col;
	} else {
		l.line = je->line;
		l.col = je->column;
	}
	g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC006", &l, "duplicate key %s%s", ptr ? ptr : "",
	                    ptr ? "" : je->text);
	mcinit_diag_hint(g, "JSON readers disagree on which copy wins; keep one");
}

int
mcinit_config_builder_nest(const struct mcinit_config *c, const char *sec)
{
	json_t *t = json_object_get(json_object_get(c->extras, sec), "_target_");
	const struct mcinit_vclass *k =
	    json_is_string(t) ? mcinit_vclass_find(sec, json_string_value(t)) : NULL;

	return builder_nest(k, k != NULL);
}

void
mcinit_config_override_key(struct mcinit_config *c, const char *sec, const char *key, json_t *v,
                           const struct mcinit_loc *l, struct mcinit_diags *d)
{
	struct jctx x = {c, d, NULL, *l, NULL, MCINIT_ORIG_OVERRIDE, false, NULL, {{0}}};
	json_t *t = json_object_get(json_object_get(c->extras, sec), "_target_");
	const struct mcinit_vclass *cls = mcinit_vclass_default(sec), *k = NULL;
	struct tpath p = {{0}, {0}, 0, NULL, NULL};

	if (json_is_string(t))
		k = mcinit_vclass_find(sec, json_string_value(t));
	x.target = json_is_string(t) ? json_string_value(t) : cls ? cls->name : NULL;
	mcx_buf_printf(&p.dots, "%s.%s", sec, key);
	p.depth = 2;
	p.sec = sec;
	p.key = key;
	x.refused = json_object();
	check_targets(&x, &p, v, key);
	mcx_buf_free(&p.ptr);
	mcx_buf_free(&p.dots);
	if (strncmp(key, "transformer.", 12) == 0 && strchr(key + 12, '.') == NULL &&
	    builder_nest(k, k != NULL) >= 0) {
		/* model.transformer.num_layers: a key of the nested config */
		json_t *o = json_object();

		json_object_set(o, key + 12, v);
		load_nested(&x, sec, "transformer", builder_nest(k, true), o);
		json_decref(o);
	} else {
		load_key(&x, sec, k ? k : cls, k != NULL, key, v);
	}
	jctx_free(&x);
}

void
mcinit_config_load_tree(struct mcinit_config *c, struct mcinit_loc base, json_t *root,
                        struct mcinit_jpos *jp, struct mcinit_diags *d)
{
	struct jctx x = {c, d, jp, base, NULL, MCINIT_ORIG_FILE, false, json_object(), {{0}}};

	/* a file (an override word's section has no position index: Hydra
	 * merges it in struct mode, which refuses a key the class lacks) after
	 * an input that was a ConfigContainer */
	x.merged = c->bridge && jp != NULL;
	load_root(&x, root);
	jctx_free(&x);
}

/* jansson's error, located as jansson locates it (columns count bytes). */
static void
malformed(struct mcinit_err *err, const char *name, const json_error_t *je)
{
	/* memory that ran out is the machine's failure, never the input's */
	if (json_error_code(je) == json_error_out_of_memory)
		mcinit_err_at(err, MCINIT_E_NOMEM, name, je->line, je->column,
		              "out of memory reading JSON");
	else
		mcinit_err_at(err, MCINIT_E_PARSE, name, je->line, je->column, "malformed JSON: %s",
		              je->text);
}

int
mcinit_config_load_json_text(struct mcinit_config *c, const char *name, const char *text,
                             size_t len, struct mcinit_diags *d, struct mcinit_err *err)
{
	struct jctx x = {c,     d,    NULL, mcinit_config_source(c, name), NULL, MCINIT_ORIG_FILE,
	                 false, NULL, {{0}}};
	json_error_t je;
	json_t *root;
	int rc = -1;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL && json_error_code(&je) != json_error_duplicate_key) {
		malformed(err, name, &je);
		goto out;
	}
	x.jp = mcinit_jpos_new(text, len, err);
	if (x.jp == NULL) {
		mcinit_err_locate(err, name);
		goto out;
	}
	if (root == NULL) {
		report_duplicate(&x, &je);
		/* Keep checking the rest: the last copy wins, as in Python. */
		root = json_loadb(text, len, 0, &je);
		if (root == NULL) {
			malformed(err, name, &je);
			goto out;
		}
	}
	mcinit_config_load_tree(c, x.base, root, x.jp, d);
	rc = 0;
out:
	json_decref(root);
	mcinit_jpos_free(x.jp);
	return rc;
}

int
mcinit_config_load_file(struct mcinit_config *c, const char *path, mcinit_text_loader *load,
                        struct mcinit_diags *d, struct mcinit_err *err)
{
	size_t len;
	char *text = mcinit_read_file(path, &len, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = load(c, path, text, len, d, err);
	free(text);
	return rc;
}

int
mcinit_config_load_json(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                        struct mcinit_err *err)
{
	return mcinit_config_load_file(c, path, mcinit_config_load_json_text, d, err);
}
