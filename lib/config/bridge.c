/* bridge.c — Megatron-Bridge's section classes.  See bridge.h. */
#include "config/bridge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const struct mcinit_vclass classes[] = {
#define MCINIT_VCLASS(sec, name, pos) {sec, name, pos},
#include "config/variants.inc"
#undef MCINIT_VCLASS
};
static const size_t nclasses = sizeof classes / sizeof classes[0];

/* The strings of vfields and mro, which hold offsets into it: no pointer
 * in their 2,500 rows to relocate when the program starts. */
static const char vstrs[] =
#define MCINIT_VSTR(s) s
#include "config/variants.inc"
#undef MCINIT_VSTR
    ;

const char *
mcinit_vstr(uint32_t off)
{
	return off == MCINIT_NOSTR ? NULL : vstrs + off;
}

static const struct mcinit_vfield vfields[] = {
#define MCINIT_VFIELD(cls, name, type, choices, def) {cls, name, type, choices, def},
#include "config/variants.inc"
#undef MCINIT_VFIELD
};
static const size_t nvfields = sizeof vfields / sizeof vfields[0];
_Static_assert(sizeof classes / sizeof classes[0] <= 0xffff, "a class's index fits vfields");

/* origin: where the class that first declared it sits (a subclass's
 * redeclaration keeps it a field of that ancestor). */
static const struct {
	uint32_t section, name; /* in vstrs */
	int pos, origin;
	uint32_t origin_def; /* JSON, in vstrs: the origin's default, when the
	                        class at pos overrides it; NOSTR otherwise */
} mro[] = {
#define MCINIT_VMRO(sec, name, pos, origin, odef) {sec, name, pos, origin, odef},
#include "config/variants.inc"
#undef MCINIT_VMRO
};
static const size_t nmro = sizeof mro / sizeof mro[0];

/* A class's field that holds a config of a class of the section's MRO
 * (gen-tables.py: its annotation names it), and that class's position. */
static const struct {
	unsigned short cls;
	uint32_t name; /* in vstrs */
	int pos;
} nests[] = {
#define MCINIT_VNEST(cls, name, pos) {cls, name, pos},
#include "config/variants.inc"
#undef MCINIT_VNEST
    {0xffff, MCINIT_NOSTR, -1}, /* (none in a snapshot without builder classes) */
};

const char *
mcinit_vclass_short(const struct mcinit_vclass *k)
{
	const char *dot = strrchr(k->name, '.');

	return dot ? dot + 1 : k->name;
}

const struct mcinit_vclass *
mcinit_vclass_find(const char *section, const char *target)
{
	size_t i;

	for (i = 0; i < nclasses; i++)
		if (strcmp(classes[i].section, section) == 0 &&
		    (strcmp(classes[i].name, target) == 0 ||
		     strcmp(mcinit_vclass_short(&classes[i]), target) == 0))
			return &classes[i];
	return NULL;
}

/* Each section's default class (the generator lists it first), by the
 * section's place in mcinit_sections, found once per process: the rules ask
 * at every field of a section they read. */
static const struct mcinit_vclass **default_class;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void
find_default_classes(void)
{
	size_t i = nclasses;

	default_class = mcx_xcalloc(mcinit_nsections, sizeof *default_class);
	while (i-- > 0) {
		const struct mcinit_section_info *si = mcinit_section_find(classes[i].section);

		if (si != NULL)
			default_class[si - mcinit_sections] = &classes[i];
	}
}

const struct mcinit_vclass *
mcinit_vclass_default(const char *section)
{
	const struct mcinit_section_info *si = mcinit_section_find(section);
	size_t i;

	if (si != NULL) {
		pthread_once(&defaults_once, find_default_classes);
		return default_class[si - mcinit_sections];
	}
	/* a section of classes that mcinit_sections does not list */
	for (i = 0; i < nclasses; i++)
		if (strcmp(classes[i].section, section) == 0)
			return &classes[i];
	return NULL;
}

bool
mcinit_section_has_classes(const char *section)
{
	return mcinit_vclass_default(section) != NULL;
}

/* Each class's fields as a chain in table order, built once per process:
 * the rules ask for a class's field at every name they resolve, and the
 * table has ~2400 rows. */
#define NCLASSES (sizeof classes / sizeof classes[0])
#define NVFIELDS (sizeof vfields / sizeof vfields[0])
#define NONE     0xffff
_Static_assert(NVFIELDS < NONE, "a field's position fits the chains");
static unsigned short first_field[NCLASSES], next_field[NVFIELDS];
static pthread_once_t chains_once = PTHREAD_ONCE_INIT;

static void
chain_fields(void)
{
	size_t i = NVFIELDS;

	memset(first_field, 0xff, sizeof first_field);
	while (i-- > 0) {
		next_field[i] = first_field[vfields[i].cls];
		first_field[vfields[i].cls] = (unsigned short)i;
	}
}

const struct mcinit_vfield *
mcinit_vclass_field(const struct mcinit_vclass *k, const char *key)
{
	size_t i;

	pthread_once(&chains_once, chain_fields);
	for (i = first_field[k - classes]; i != NONE; i = next_field[i])
		if (strcmp(vstrs + vfields[i].name, key) == 0)
			return &vfields[i];
	return NULL;
}

/* Position in the MRO of the class that defines field f; -1 if unknown. */
static int
mro_pos(enum mcinit_field f)
{
	static signed char *pos;
	size_t i;

	if (pos == NULL) {
		pos = mcx_xcalloc(MCINIT_F_COUNT, 1);
		memset(pos, -1, MCINIT_F_COUNT);
		for (i = 0; i < nmro; i++) {
			int g = mcinit_field_lookup_key(vstrs + mro[i].section, vstrs + mro[i].name,
			                                NULL);

			if (g >= 0)
				pos[g] = (signed char)mro[i].pos;
		}
	}
	return pos[f];
}

bool
mcinit_vclass_has_std(const struct mcinit_vclass *k, enum mcinit_field f)
{
	int p;

	/* (the class's own field first: the MRO's table is built on first use) */
	if (mcinit_vclass_field(k, mcinit_field_s(f, name)) != NULL)
		return true;
	p = mro_pos(f);
	/* A field mcinit adds to the section (schema.def) belongs to every
	 * class that extends the default's chain. */
	if (p < 0)
		return k->base_pos >= 0;
	return k->base_pos >= 0 && p >= k->base_pos;
}

int
mcinit_vclass_nested(const struct mcinit_vclass *k, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof nests / sizeof nests[0]; i++)
		if (nests[i].cls == (unsigned short)(k - classes) &&
		    strcmp(vstrs + nests[i].name, key) == 0)
			return nests[i].pos;
	return -1;
}

/* Each standard field's origin (the mro rows' origin), found once per
 * process: a nested config's keys ask it one by one. */
static signed char *origin_of;
static uint32_t *origin_def;
static pthread_once_t origins_once = PTHREAD_ONCE_INIT;

static void
find_origins(void)
{
	size_t i;

	origin_of = mcx_xcalloc(MCINIT_F_COUNT, 1);
	memset(origin_of, -1, MCINIT_F_COUNT);
	origin_def = mcx_xcalloc(MCINIT_F_COUNT, sizeof *origin_def);
	for (i = 0; i < MCINIT_F_COUNT; i++)
		origin_def[i] = MCINIT_NOSTR;
	for (i = 0; i < nmro; i++) {
		int g = mcinit_field_lookup_key(vstrs + mro[i].section, vstrs + mro[i].name, NULL);

		if (g >= 0) {
			origin_of[g] = (signed char)mro[i].origin;
			origin_def[g] = mro[i].origin_def;
		}
	}
}

const char *
mcinit_field_nested_default(enum mcinit_field f, int pos)
{
	if (pos < 0)
		return NULL;
	pthread_once(&origins_once, find_origins);
	return origin_of[f] >= pos ? mcinit_vstr(origin_def[f]) : NULL;
}

bool
mcinit_field_in_nested(enum mcinit_field f, int pos)
{
	if (pos < 0)
		return false;
	pthread_once(&origins_once, find_origins);
	return origin_of[f] >= pos;
}

const struct mcinit_vclass *
mcinit_vclass_with_key(const char *section, const char *key, const struct mcinit_vfield **vf)
{
	size_t i;

	for (i = 0; i < nvfields; i++) {
		const struct mcinit_vclass *k = &classes[vfields[i].cls];

		if (strcmp(vstrs + vfields[i].name, key) == 0 && strcmp(k->section, section) == 0) {
			if (vf)
				*vf = &vfields[i];
			return k;
		}
	}
	return NULL;
}

void
mcinit_vfield_each(const char *section, void *arg, void (*fn)(const char *, void *))
{
	size_t i;

	for (i = 0; i < nvfields; i++)
		if (strcmp(classes[vfields[i].cls].section, section) == 0)
			fn(vstrs + vfields[i].name, arg);
}

/* ---- recipes ---- */

/* The recipes' strings: the rows hold offsets into it (rstr), so that no
 * pointer in them is relocated when the program starts. */
static const char rstrs[] =
#define MCINIT_RSTR(s) s
#include "config/recipes.inc"
#undef MCINIT_RSTR
    ;

static const char *
rstr(uint32_t off)
{
	return off == MCINIT_NOSTR ? NULL : rstrs + off;
}

/* One recipe as the releases of `releases` (bits of mcinit_bversion_*)
 * have it: a recipe whose values changed between releases has a row each. */
static const struct recipe {
	uint32_t name, provider, hf_model;       /* rstr */
	int tp, pp, cp, ep, seq, dseq, gbs, mbs; /* -1: not a literal */
	uint32_t dataset, peft;                  /* rstr */
	int ckpt; /* checkpoint.pretrained_checkpoint: -1 not known, 0 None, 1 ckpt_path */
	uint32_t ckpt_path; /* rstr */
	unsigned releases;
} recipes[] = {
#define MCINIT_RECIPE(name, prov, hf, tp, pp, cp, ep, seq, dseq, gbs, mbs, ds, peft, ck, ckp, rel) \
	{name, prov, hf, tp, pp, cp, ep, seq, dseq, gbs, mbs, ds, peft, ck, ckp, rel},
#include "config/recipes.inc"
#undef MCINIT_RECIPE
};
static const size_t nrecipes = sizeof recipes / sizeof recipes[0];

static void
recipe_int(struct mcinit_config *c, enum mcinit_field f, long long v, const struct mcinit_loc *l,
           struct mcinit_diags *d)
{
	json_t *j;

	if (v < 0)
		return;
	j = json_integer(v);
	mcinit_config_set_json(c, f, j, MCINIT_ORIG_FILE, l, d);
	json_decref(j);
}

static void
recipe_target(struct mcinit_config *c, const char *sec, const char *cls)
{
	json_t *s;

	if (cls == NULL)
		return;
	/* "none": the recipe writes None there (an SFT recipe's peft), which
	 * is no class: an optional section stays None */
	if (strcmp(cls, "none") == 0) {
		if (c->sections != NULL && mcinit_section_find(sec) != NULL &&
		    mcinit_section_find(sec)->kind == MCINIT_SK_OPTIONAL)
			json_object_set_new(c->sections, sec, json_string("null"));
		return;
	}
	s = json_object_get(c->extras, sec);
	if (s == NULL) {
		s = json_object();
		json_object_set_new(c->extras, sec, s);
	}
	json_object_set_new(s, "_target_", json_string(cls));
	/* An optional section the recipe constructs (a PEFT recipe's LoRA) is
	 * no longer None: Bridge's checks on its presence apply.  A required
	 * section stays unwritten: the recipe's code sets values the facts do
	 * not hold, so its checks are not run on mcinit's defaults. */
	if (c->sections != NULL && mcinit_section_find(sec) != NULL &&
	    mcinit_section_find(sec)->kind == MCINIT_SK_OPTIONAL)
		json_object_set_new(c->sections, sec, json_string("object"));
}

/* checkpoint.pretrained_checkpoint as the recipe leaves it (a PEFT recipe
 * writes None: ConfigContainer.validate then asks for a path).  A value the
 * recipe writes is known even though the rest of its checkpoint section is
 * not (rules-bcheck.c reads a field an input set). */
static void
recipe_checkpoint(struct mcinit_config *c, const struct recipe *r, const struct mcinit_loc *l,
                  struct mcinit_diags *d)
{
	json_t *j;

	if (r->ckpt < 0)
		return;
	j = r->ckpt == 0 ? json_null() : json_string(rstr(r->ckpt_path));
	mcinit_config_set_json(c, MCINIT_F_pretrained_checkpoint, j, MCINIT_ORIG_FILE, l, d);
	json_decref(j);
}

/*
 * The model's shape, which the recipe supplies and the facts do not hold
 * as literals: read from the Hugging Face config of r->hf_model when the
 * recipe runs (AutoBridge), or set by the recipe's code.  The model's
 * fields no literal or input has set (num_layers, num_moe_experts, ...)
 * are known only at run time: set, not checked (never "required field not
 * set", nor a rule on a default the recipe replaces), until a later input
 * gives a value (mcinit_config_set_json clears the mark);
 * mcinit_config_finish names the required ones left.
 */
static void
recipe_shape(struct mcinit_config *c, const struct recipe *r, const struct mcinit_loc *l)
{
	const char *hf = rstr(r->hf_model);
	int f;

	for (f = 0; f < MCINIT_F_COUNT; f++) {
		/* ETP and VPP among them: the rank groups wait for the run too
		 * (plan.c, runtime_sizes) */
		if (strcmp(mcinit_field_s(f, section), "model") != 0 ||
		    c->origin[f] != MCINIT_ORIG_DEFAULT || c->runtime[f])
			continue;
		c->runtime[f] = c->invalid[f] = true;
		c->pyval[f] = false;
		mcinit_cfg_drop_pending(c, f);
		c->origin[f] = MCINIT_ORIG_FILE;
		c->loc[f] = *l;
	}
	c->recipe_shape = true;
	c->recipe_hf = hf != NULL && *hf != '\0' ? hf : NULL;
	c->recipe_provider = rstr(r->provider);
	c->recipe_loc = *l;
}

int
mcinit_config_apply_recipe(struct mcinit_config *c, const char *name, struct mcinit_diags *d)
{
	char src[256];
	struct mcinit_loc l;
	const struct recipe *r = NULL;
	size_t i;

	snprintf(src, sizeof src, "bridge-recipe %s", name);
	l = mcinit_config_source(c, src);
	/* the config's Bridge release's own recipe of that name */
	for (i = 0; i < nrecipes && r == NULL; i++)
		if ((recipes[i].releases & c->bversion) != 0 &&
		    strcmp(rstr(recipes[i].name), name) == 0)
			r = &recipes[i];
	if (r == NULL) {
		for (i = 0; i < nrecipes; i++)
			if (strcmp(rstr(recipes[i].name), name) == 0)
				break;
		if (i < nrecipes) {
			mcinit_diag_hint(
			    mcinit_diag_add(d, MCINIT_ERROR, "MC003", &l,
			                    "Megatron-Bridge %s has no recipe named '%s'",
			                    mcinit_bversion_name(c->bversion), name),
			    "another release has it: name that release with --bridge-version");
			return -1;
		}
	}
	if (r == NULL) {
		const char **names = mcx_xcalloc(nrecipes, sizeof *names);
		const char *pick;
		struct mcinit_diag *g;

		for (i = 0; i < nrecipes; i++)
			names[i] = rstr(recipes[i].name);
		pick = mcinit_suggest(name, names, nrecipes);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC003", &l,
		                    "no Megatron-Bridge recipe is named '%s'", name);
		if (pick != NULL)
			mcinit_diag_hint(g, "did you mean `%s`?", pick);
		free(names);
		return -1;
	}
	/* A recipe function returns a ConfigContainer: what follows merges over
	 * it as Bridge's example scripts merge --config-file and overrides */
	mcinit_config_bridge_container(c);
	recipe_int(c, MCINIT_F_tensor_model_parallel_size, r->tp, &l, d);
	recipe_int(c, MCINIT_F_pipeline_model_parallel_size, r->pp, &l, d);
	recipe_int(c, MCINIT_F_context_parallel_size, r->cp, &l, d);
	recipe_int(c, MCINIT_F_expert_model_parallel_size, r->ep, &l, d);
	recipe_int(c, MCINIT_F_seq_length, r->seq, &l, d);
	recipe_int(c, MCINIT_F_dataset_seq_length, r->dseq, &l, d);
	recipe_int(c, MCINIT_F_global_batch_size, r->gbs, &l, d);
	recipe_int(c, MCINIT_F_micro_batch_size, r->mbs, &l, d);
	recipe_target(c, "model", rstr(r->provider));
	recipe_target(c, "dataset", rstr(r->dataset));
	recipe_target(c, "peft", rstr(r->peft));
	recipe_checkpoint(c, r, &l, d);
	recipe_shape(c, r, &l);
	return 0;
}

/* ---- the loader's rules on names ---- */

enum bl_rule {
	MCINIT_BL_ALLOW_PREFIX,
	MCINIT_BL_ALLOW_EXACT,
	MCINIT_BL_ALLOW_PRIVATE,
	MCINIT_BL_DENY_TARGET,
	MCINIT_BL_DENY_FIELD,
	MCINIT_BL_KEEPS_UNKNOWN_KEYS,
	MCINIT_BL_ETP_ONE_WITH_EP,
};

static const struct {
	enum bl_rule rule;
	const char *value;
	unsigned releases;
} loader[] = {
#define MCINIT_BLOADER(rule, value, rel) {rule, value, rel},
#include "config/bloader.inc"
#undef MCINIT_BLOADER
};
static const size_t nloader = sizeof loader / sizeof loader[0];

/* Whether release v has a rule `rule` for s: equal to its value, or, for
 * prefixes, starting with it; s NULL: any row of the rule. */
static bool
bl_has(enum bl_rule rule, const char *s, unsigned v)
{
	size_t i;

	for (i = 0; i < nloader; i++) {
		const char *x = loader[i].value;

		if (loader[i].rule != rule || (loader[i].releases & v) == 0)
			continue;
		if (s == NULL || (rule == MCINIT_BL_ALLOW_PREFIX ? strncmp(s, x, strlen(x)) == 0
		                                                 : strcmp(s, x) == 0))
			return true;
	}
	return false;
}

bool
mcinit_bridge_keeps_unknown_keys(const char *target, unsigned v)
{
	return bl_has(MCINIT_BL_KEEPS_UNKNOWN_KEYS, target, v);
}

bool
mcinit_bridge_etp_one_with_ep(unsigned v)
{
	return bl_has(MCINIT_BL_ETP_ONE_WITH_EP, NULL, v);
}

/* "megatron., torch., ..." of release v into b. */
static void
bl_prefixes(struct mcx_buf *b, unsigned v)
{
	size_t i, k;

	for (i = 0; i < nloader; i++) {
		if (loader[i].rule != MCINIT_BL_ALLOW_PREFIX || (loader[i].releases & v) == 0)
			continue;
		for (k = 0; k < i; k++) /* two modules may list one prefix */
			if (loader[k].rule == MCINIT_BL_ALLOW_PREFIX &&
			    (loader[k].releases & v) != 0 &&
			    strcmp(loader[k].value, loader[i].value) == 0)
				break;
		if (k == i)
			mcx_buf_printf(b, "%s%s", b->len ? ", " : "", loader[i].value);
	}
}

/* The checks of Bridge's _validate_target_prefix, in its order. */
char *
mcinit_bridge_target_refusal(const char *target, const char *key, unsigned v)
{
	struct mcx_buf b = {0};
	const char *seg;
	char *why;

	if (key != NULL && bl_has(MCINIT_BL_DENY_FIELD, key, v))
		return mcx_xasprintf("Bridge instantiates no _target_ for the callable "
		                     "field `%s`",
		                     key);
	if (bl_has(MCINIT_BL_DENY_TARGET, target, v))
		return mcx_xasprintf("Bridge refuses to instantiate it: it could bypass "
		                     "the target checks");
	for (seg = target; seg != NULL; seg = strchr(seg, '.'), seg = seg ? seg + 1 : NULL)
		if (*seg == '_' && !bl_has(MCINIT_BL_ALLOW_PRIVATE, target, v))
			return mcx_xasprintf("Bridge refuses a private path segment (one "
			                     "starting with `_`)");
	if (bl_has(MCINIT_BL_ALLOW_PREFIX, target, v) || bl_has(MCINIT_BL_ALLOW_EXACT, target, v))
		return NULL;
	bl_prefixes(&b, v);
	why = mcx_xasprintf("it is not in Bridge's allow-list: a target must start with "
	                    "one of %s",
	                    mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return why;
}

/* ---- mixed precision (runtime_config_update) ---- */

static const struct {
	const char *preset, *field, *value;
	unsigned releases;
} presets[] = {
#define MCINIT_BPRECISION(preset, field, value, rel) {preset, field, value, rel},
#include "config/bprecision.inc"
#undef MCINIT_BPRECISION
};
static const size_t npresets = sizeof presets / sizeof presets[0];

/* Sets field f to the JSON text value as Python reads it, at loc; false
 * when mcinit's type for f does not take it. */
static bool
set_py(struct mcinit_config *c, int f, json_t *j, const struct mcinit_loc *loc)
{
	struct mcinit_value v;
	const char *code;
	char *why = NULL, *note = NULL;
	bool ok = mcinit_value_from_json_py(f, j, true, &v, &code, &why, &note) == 0;

	free(why);
	free(note);
	if (!ok)
		return false;
	mcinit_value_clear(&c->val[f]);
	c->val[f] = v;
	c->origin[f] = MCINIT_ORIG_REPAIR;
	c->loc[f] = *loc;
	c->invalid[f] = c->pyval[f] = false;
	/* Bridge's assignment replaces a str an input gave: no TypeError */
	mcinit_cfg_drop_pending(c, f);
	return true;
}

/* The preset named by mixed_precision onto its fields: 0, or -1 when the
 * release has no such preset. */
static int
load_preset(struct mcinit_config *c, const char *name)
{
	char *want = mcx_xstrdup(name), *p;
	bool found = false;
	size_t i;

	for (p = want; *p; p++) /* get_mixed_precision_config: hyphens are underscores */
		if (*p == '-')
			*p = '_';
	for (i = 0; i < npresets; i++) {
		json_t *j;
		int f;

		if ((presets[i].releases & c->bversion) == 0 ||
		    strcmp(presets[i].preset, want) != 0)
			continue;
		found = true;
		f = mcinit_field_lookup_key("mixed_precision", presets[i].field, NULL);
		j = json_loads(presets[i].value, JSON_DECODE_ANY, NULL);
		if (f >= 0 && j != NULL)
			set_py(c, f, j, &c->preset_loc);
		json_decref(j);
	}
	free(want);
	return found ? 0 : -1;
}

/* The presets of the config's release, "a, b, c", into b. */
static void
preset_names(const struct mcinit_config *c, struct mcx_buf *b)
{
	size_t i, k;

	for (i = 0; i < npresets; i++) {
		if ((presets[i].releases & c->bversion) == 0)
			continue;
		for (k = 0; k < i && ((presets[k].releases & c->bversion) == 0 ||
		                      strcmp(presets[k].preset, presets[i].preset) != 0);
		     k++)
			;
		if (k == i)
			mcx_buf_printf(b, "%s%s", b->len ? ", " : "", presets[i].preset);
	}
}

void
mcinit_config_bridge_precision(struct mcinit_config *c, struct mcinit_diags *d)
{
	static const char *const targets[] = {"model", "optimizer", "ddp"};
	json_t *name = json_object_get(c->extras, "mixed_precision");
	int f, g, h;
	size_t t;

	/* any config file that writes the section: an override file merged onto
	 * a recipe too, not only a whole ConfigContainer */
	if (!mcinit_config_section_set(c, "mixed_precision"))
		return;
	if (json_is_string(name)) {
		if (load_preset(c, json_string_value(name)) < 0) {
			struct mcx_buf b = {0};

			preset_names(c, &b);
			mcinit_diag_hint(mcinit_diag_add(d, MCINIT_ERROR, "MC005", &c->preset_loc,
			                                 "unknown mixed-precision recipe '%s' "
			                                 "(Megatron-Bridge %s)",
			                                 json_string_value(name),
			                                 mcinit_bversion_name(c->bversion)),
			                 "use one of %s", mcx_buf_cstr(&b));
			mcx_buf_free(&b);
			return;
		}
		c->preset_known = true;
	}
	/* finalize: fp8_param / fp4_param follow the param-gather switches */
	for (t = 0; t < 2; t++) {
		f = mcinit_field_lookup_key("mixed_precision", t ? "fp4_param" : "fp8_param", NULL);
		g = mcinit_field_lookup_key("mixed_precision",
		                            t ? "fp4_param_gather" : "fp8_param_gather", NULL);
		if (f >= 0 && g >= 0 && mcinit_cfg_null(c, f) && !c->invalid[g]) {
			json_t *j = mcinit_value_to_json(&c->val[g]);
			struct mcinit_loc l = c->loc[g];

			set_py(c, f, j, &l);
			json_decref(j);
		}
	}
	/* setup: every field onto model, optimizer and ddp */
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const struct mcinit_loc *loc;

		if (strcmp(mcinit_field_s(f, section), "mixed_precision") != 0 || c->invalid[f] ||
		    !mcinit_field_in_bridge(f, c->bversion))
			continue;
		loc = c->origin[f] == MCINIT_ORIG_DEFAULT ? &c->preset_loc : &c->loc[f];
		for (t = 0; t < sizeof targets / sizeof targets[0]; t++) {
			json_t *j, *old;

			h = mcinit_field_lookup_key(targets[t], mcinit_field_s(f, name), NULL);
			if (h < 0 || !mcinit_field_in_bridge(h, c->bversion))
				continue;
			j = mcinit_value_to_json(&c->val[f]);
			old = mcinit_value_to_json(&c->val[h]);
			/* (a field whose str waits to be refused holds its former
			 * value meanwhile: Bridge's setattr replaces the str) */
			if (!json_equal(j, old) || c->pending[h] != NULL)
				set_py(c, h, j, loc);
			json_decref(j);
			json_decref(old);
		}
	}
}
