/* bridge.c — Megatron-Bridge's section classes.  See bridge.h. */
#include "config/bridge.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const struct mcinit_vclass classes[] = {
#define MCINIT_VCLASS(sec, name, pos) {sec, name, pos},
#include "config/variants.inc"
#undef MCINIT_VCLASS
};
static const size_t nclasses = sizeof classes / sizeof classes[0];

static const struct mcinit_vfield vfields[] = {
#define MCINIT_VFIELD(cls, name, type, choices, def) {cls, name, type, choices, def},
#include "config/variants.inc"
#undef MCINIT_VFIELD
};
static const size_t nvfields = sizeof vfields / sizeof vfields[0];

static const struct {
	const char *section, *name;
	int pos;
} mro[] = {
#define MCINIT_VMRO(sec, name, pos) {sec, name, pos},
#include "config/variants.inc"
#undef MCINIT_VMRO
};
static const size_t nmro = sizeof mro / sizeof mro[0];

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

const struct mcinit_vclass *
mcinit_vclass_default(const char *section)
{
	size_t i;

	/* The generator lists each section's default class first. */
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

const struct mcinit_vfield *
mcinit_vclass_field(const struct mcinit_vclass *k, const char *key)
{
	int ci = (int)(k - classes);
	size_t i;

	for (i = 0; i < nvfields; i++)
		if (vfields[i].cls == ci && strcmp(vfields[i].name, key) == 0)
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
		pos = mcinit_xcalloc(MCINIT_F_COUNT, 1);
		memset(pos, -1, MCINIT_F_COUNT);
		for (i = 0; i < nmro; i++) {
			int g = mcinit_field_lookup_key(mro[i].section, mro[i].name, NULL);

			if (g >= 0)
				pos[g] = (signed char)mro[i].pos;
		}
	}
	return pos[f];
}

bool
mcinit_vclass_has_std(const struct mcinit_vclass *k, enum mcinit_field f)
{
	int p = mro_pos(f);

	if (mcinit_vclass_field(k, mcinit_fields[f].name) != NULL)
		return true;
	/* A field mcinit adds to the section (schema.def) belongs to every
	 * class that extends the default's chain. */
	if (p < 0)
		return k->base_pos >= 0;
	return k->base_pos >= 0 && p >= k->base_pos;
}

const struct mcinit_vclass *
mcinit_vclass_with_key(const char *section, const char *key, const struct mcinit_vfield **vf)
{
	size_t i;

	for (i = 0; i < nvfields; i++) {
		const struct mcinit_vclass *k = &classes[vfields[i].cls];

		if (strcmp(vfields[i].name, key) == 0 && strcmp(k->section, section) == 0) {
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
			fn(vfields[i].name, arg);
}

/* ---- recipes ---- */

static const struct recipe {
	const char *name, *provider, *hf_model;
	long long tp, pp, cp, ep, seq, dseq, gbs, mbs; /* -1: not a literal */
	const char *dataset, *peft;
} recipes[] = {
#define MCINIT_RECIPE(name, prov, hf, tp, pp, cp, ep, seq, dseq, gbs, mbs, ds, peft)               \
	{name, prov, hf, tp, pp, cp, ep, seq, dseq, gbs, mbs, ds, peft},
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
	s = json_object_get(c->extras, sec);
	if (s == NULL) {
		s = json_object();
		json_object_set_new(c->extras, sec, s);
	}
	json_object_set_new(s, "_target_", json_string(cls));
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
	for (i = 0; i < nrecipes && r == NULL; i++)
		if (strcmp(recipes[i].name, name) == 0)
			r = &recipes[i];
	if (r == NULL) {
		const char **names = mcinit_xcalloc(nrecipes, sizeof *names);
		const char *pick;
		struct mcinit_diag *g;

		for (i = 0; i < nrecipes; i++)
			names[i] = recipes[i].name;
		pick = mcinit_suggest(name, names, nrecipes);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC003", &l,
		                    "no Megatron-Bridge recipe is named '%s'", name);
		if (pick != NULL)
			mcinit_diag_hint(g, "did you mean `%s`?", pick);
		free(names);
		return -1;
	}
	recipe_int(c, MCINIT_F_tensor_model_parallel_size, r->tp, &l, d);
	recipe_int(c, MCINIT_F_pipeline_model_parallel_size, r->pp, &l, d);
	recipe_int(c, MCINIT_F_context_parallel_size, r->cp, &l, d);
	recipe_int(c, MCINIT_F_expert_model_parallel_size, r->ep, &l, d);
	recipe_int(c, MCINIT_F_seq_length, r->seq, &l, d);
	recipe_int(c, MCINIT_F_dataset_seq_length, r->dseq, &l, d);
	recipe_int(c, MCINIT_F_global_batch_size, r->gbs, &l, d);
	recipe_int(c, MCINIT_F_micro_batch_size, r->mbs, &l, d);
	recipe_target(c, "model", r->provider);
	recipe_target(c, "dataset", r->dataset);
	recipe_target(c, "peft", r->peft);
	return 0;
}

/* ---- mixed precision (MixedPrecisionConfig.setup) ---- */

static const struct {
	const char *preset, *field, *value;
} mp_rows[] = {
#define MCINIT_MP_ROW(preset, field, value) {preset, field, value},
#include "config/mixedprec.inc"
#undef MCINIT_MP_ROW
};

/* The first row of recipe `name` (hyphens read as underscores, as
 * get_mixed_precision_config does), or -1. */
static long
mp_find(const char *name)
{
	size_t i, k;

	for (i = 0; i < sizeof mp_rows / sizeof mp_rows[0]; i++) {
		for (k = 0; name[k] != '\0' && mp_rows[i].preset[k] != '\0'; k++)
			if ((name[k] == '-' ? '_' : name[k]) != mp_rows[i].preset[k])
				break;
		if (name[k] == '\0' && mp_rows[i].preset[k] == '\0')
			return (long)i;
	}
	return -1;
}

static void
unknown_preset(const char *name, struct mcinit_diags *d)
{
	struct mcinit_buf b = {0};
	size_t i;

	for (i = 0; i < sizeof mp_rows / sizeof mp_rows[0]; i++)
		if (i == 0 || strcmp(mp_rows[i].preset, mp_rows[i - 1].preset) != 0)
			mcinit_buf_printf(&b, "%s%s", b.len ? ", " : "", mp_rows[i].preset);
	mcinit_diag_hint(mcinit_diag_add(d, MCINIT_ERROR, "MC005", NULL,
	                                 "mixed_precision: '%s' is not a mixed-precision recipe "
	                                 "of Megatron-Bridge",
	                                 name),
	                 "one of %s", mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
}

/* mixed_precision.<name>'s value onto the same field of each section that
 * has it, located where mixed_precision's was. */
static void
mp_copy(struct mcinit_config *c, enum mcinit_field from)
{
	static const char *const to[] = {"model", "optimizer", "ddp"};
	size_t i;
	int f;

	for (i = 0; i < sizeof to / sizeof to[0]; i++) {
		f = mcinit_field_lookup(to[i], mcinit_fields[from].name);
		if (f < 0 || f == (int)from || c->invalid[from])
			continue;
		mcinit_value_clear(&c->val[f]);
		mcinit_value_copy(&c->val[f], &c->val[from]);
		c->origin[f] = MCINIT_ORIG_REPAIR;
		c->loc[f] = c->loc[from];
		c->invalid[f] = false;
	}
}

/* MixedPrecisionConfig.finalize: a param left None takes its gather's value. */
static void
mp_finalize(struct mcinit_config *c, const char *param, const char *gather)
{
	int p = mcinit_field_lookup("mixed_precision", param),
	    g = mcinit_field_lookup("mixed_precision", gather);

	if (p < 0 || g < 0 || !mcinit_cfg_null(c, p))
		return;
	mcinit_value_clear(&c->val[p]);
	mcinit_value_copy(&c->val[p], &c->val[g]);
	c->origin[p] = MCINIT_ORIG_REPAIR;
	c->loc[p] = c->loc[g];
}

void
mcinit_config_mixed_precision(struct mcinit_config *c, struct mcinit_diags *d)
{
	json_t *preset = json_object_get(c->extras, "mixed_precision");
	bool given = json_is_string(preset);
	const char *name;
	long r;
	int f;

	for (f = 0; f < MCINIT_F_COUNT && !given; f++)
		given = strcmp(mcinit_fields[f].section, "mixed_precision") == 0 &&
		        (c->origin[f] == MCINIT_ORIG_FILE || c->origin[f] == MCINIT_ORIG_OVERRIDE);
	if (!given)
		return;
	if (json_is_string(preset)) {
		r = mp_find(json_string_value(preset));
		if (r < 0) {
			unknown_preset(json_string_value(preset), d);
			return;
		}
		for (name = mp_rows[r].preset; (size_t)r < sizeof mp_rows / sizeof mp_rows[0] &&
		                               strcmp(mp_rows[r].preset, name) == 0;
		     r++) {
			json_t *j = json_loads(mp_rows[r].value, JSON_DECODE_ANY, NULL);

			f = mcinit_field_lookup("mixed_precision", mp_rows[r].field);
			if (f >= 0 && j != NULL && c->origin[f] != MCINIT_ORIG_OVERRIDE)
				mcinit_config_set_json(c, f, j, MCINIT_ORIG_REPAIR, NULL, d);
			json_decref(j);
		}
	}
	mp_finalize(c, "fp8_param", "fp8_param_gather");
	mp_finalize(c, "fp4_param", "fp4_param_gather");
	for (f = 0; f < MCINIT_F_COUNT; f++)
		if (strcmp(mcinit_fields[f].section, "mixed_precision") == 0)
			mp_copy(c, (enum mcinit_field)f);
}
