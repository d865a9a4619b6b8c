/* config.c — the config object: one value per field, with its origin and
 * place (init, set, read, finish, write out as JSON), and the input
 * diagnostic codes.  The fields, their types, values, defaults and Bridge's
 * releases are in config-fields.c, config-types.c, config-values.c,
 * config-defaults.c and bversions.c.  See config.h. */
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

void
mcinit_config_init(struct mcinit_config *c, unsigned mversion)
{
	const struct mcinit_value *d = mcinit_config_defaults(mversion);
	int i;

	memset(c, 0, sizeof *c);
	c->mversion = mversion;
	c->bversion = mcinit_bversion_default();
	c->mentry = mcinit_mentry_default();
	c->env_vars = json_object();
	c->extras = json_object();
	c->sections = json_object();
	for (i = 0; i < MCINIT_F_COUNT; i++)
		mcinit_value_copy(&c->val[i], &d[i]);
}

bool
mcinit_config_section_set(const struct mcinit_config *c, const char *sec)
{
	json_t *s = json_object_get(c->sections, sec);
	const struct mcinit_section_info *si;

	if (s != NULL)
		return strcmp(json_string_value(s), "null") != 0;
	si = mcinit_section_find(sec);
	return si != NULL && si->kind != MCINIT_SK_OPTIONAL;
}

void
mcinit_config_destroy(struct mcinit_config *c)
{
	size_t i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		mcinit_value_clear(&c->val[i]);
		mcinit_cfg_drop_pending(c, i);
	}
	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	json_decref(c->env_vars);
	json_decref(c->extras);
	json_decref(c->sections);
	for (i = 0; i < c->njob_env; i++) {
		free(c->job_env[i].name);
		free(c->job_env[i].value);
	}
	free(c->job_env);
	free(c->launch_source);
	free(c->script_args);
	/* what it owned, forgotten (a second destroy does nothing); not the
	 * whole struct, ~100 KB that a job zeroes again when it starts */
	c->names = NULL;
	c->nnames = 0;
	c->env_vars = c->extras = c->sections = NULL;
	c->job_env = NULL;
	c->njob_env = 0;
	c->launch_source = NULL;
	c->launch_assumed = false;
	c->script_args = NULL;
}

int
mcinit_config_job_env(const struct mcinit_config *c, const char *name, const char **value,
                      const struct mcinit_loc **loc)
{
	for (size_t i = 0; i < c->njob_env; i++) {
		if (strcmp(c->job_env[i].name, name) != 0)
			continue;
		*value = c->job_env[i].value;
		if (loc != NULL)
			*loc = &c->job_env[i].loc;
		return 1;
	}
	return 0;
}

struct mcinit_loc
mcinit_config_source(struct mcinit_config *c, const char *name)
{
	struct mcinit_loc l = {0};
	size_t i;

	for (i = 0; i < c->nnames && strcmp(c->names[i], name) != 0; i++)
		;
	if (i == c->nnames) {
		c->names = mcx_xrealloc(c->names, (c->nnames + 1) * sizeof *c->names);
		c->names[c->nnames++] = mcx_xstrdup(name);
	}
	l.source = c->names[i];
	l.order = ++c->nsources;
	return l;
}

bool
mcinit_cfg_null(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_NULL;
}

long long
mcinit_cfg_int(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].i;
}

double
mcinit_cfg_float(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_INT ? (double)c->val[f].i : c->val[f].d;
}

bool
mcinit_cfg_bool(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_BOOL && c->val[f].i;
}

const char *
mcinit_cfg_str(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_STR ? c->val[f].s : NULL;
}

const struct mcinit_value *
mcinit_cfg_val(const struct mcinit_config *c, enum mcinit_field f)
{
	return &c->val[f];
}

void
mcinit_cfg_drop_pending(struct mcinit_config *c, enum mcinit_field f)
{
	if (c->pending[f] == NULL)
		return;
	free(c->pending[f]->why);
	free(c->pending[f]->str);
	free(c->pending[f]);
	c->pending[f] = NULL;
}

/* Reports field f's refusal: code and why, at loc; str: the string given,
 * or NULL. */
static void
refuse(enum mcinit_field f, const char *code, const char *why, const char *str,
       const struct mcinit_loc *loc, struct mcinit_diags *d)
{
	struct mcinit_diag *g;
	char key[128];

	mcinit_field_key(f, key, sizeof key);
	g = mcinit_diag_add(d, MCINIT_ERROR, code, loc, "%s: %s", key, why);
	mcinit_diag_key(g, key);
	if (strcmp(code, "MC004") == 0 && str != NULL &&
	    mcinit_field_type(f)->alt[0].base == MCINIT_B_BOOL) {
		/* The type=bool trap in JSON: a string where a bool belongs. */
		int b = mcinit_bool_word(str);

		mcinit_diag_hint(
		    g,
		    "write %s without quotes; a string is not a boolean (Python's "
		    "bool('%s') is %s, so Megatron-LM <= core_r0.16 would read it as %s)",
		    b == 0 ? "false" : "true", str, *str ? "True" : "False",
		    *str ? "TRUE" : "FALSE");
	}
}

void
mcinit_config_pending_errors(struct mcinit_config *c, struct mcinit_diags *d)
{
	int f;

	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const struct mcinit_pending *p = c->pending[f];

		if (p == NULL)
			continue;
		refuse(f, p->code, p->why, p->str, p->has_loc ? &p->loc : NULL, d);
		mcinit_cfg_drop_pending(c, f);
	}
}

static void
set_where(struct mcinit_config *c, enum mcinit_field f, enum mcinit_origin o,
          const struct mcinit_loc *loc)
{
	/* a value replaces the str a refusal waited on */
	mcinit_cfg_drop_pending(c, f);
	c->origin[f] = o;
	if (loc != NULL)
		c->loc[f] = *loc;
	else
		memset(&c->loc[f], 0, sizeof c->loc[f]);
}

void
mcinit_cfg_set_int(struct mcinit_config *c, enum mcinit_field f, long long v, enum mcinit_origin o,
                   const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_INT;
	c->val[f].i = v;
	set_where(c, f, o, loc);
}

void
mcinit_cfg_set_bool(struct mcinit_config *c, enum mcinit_field f, bool v, enum mcinit_origin o,
                    const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_BOOL;
	c->val[f].i = v;
	set_where(c, f, o, loc);
}

void
mcinit_cfg_set_str(struct mcinit_config *c, enum mcinit_field f, const char *v,
                   enum mcinit_origin o, const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_STR;
	c->val[f].s = mcx_xstrdup(v);
	set_where(c, f, o, loc);
}

void
mcinit_config_set_raw(struct mcinit_config *c, enum mcinit_field f, json_t *j, enum mcinit_origin o,
                      const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_JSON;
	c->val[f].j = json_incref(j);
	set_where(c, f, o, loc);
	c->invalid[f] = c->pyval[f] = false;
}

int
mcinit_config_set_json(struct mcinit_config *c, enum mcinit_field f, json_t *j,
                       enum mcinit_origin o, const struct mcinit_loc *loc, struct mcinit_diags *d)
{
	struct mcinit_value v;
	const char *code;
	char *why, *note, key[128];
	struct mcinit_diag *g;
	int rc;

	if (j == NULL) {
		/* The only way a loader has no JSON for a word: bytes that are
		 * not UTF-8 (jansson refuses them). */
		c->invalid[f] = true;
		c->pyval[f] = false;
		mcinit_field_key(f, key, sizeof key);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC004", loc, "%s: value is not valid UTF-8",
		                    key);
		mcinit_diag_key(g, key);
		return -1;
	}
	rc = c->bridge && (o == MCINIT_ORIG_FILE || o == MCINIT_ORIG_OVERRIDE)
	         ? mcinit_value_from_json_bridge(f, j, &v, &code, &why, &note)
	         : mcinit_value_from_json_py(f, j,
	                                     o == MCINIT_ORIG_FILE || o == MCINIT_ORIG_OVERRIDE, &v,
	                                     &code, &why, &note);
	if (rc == 0 && why != NULL) {
		/* Bridge keeps it, refused unless its finalize replaces it: the
		 * field is as the refusal leaves it (below) until then */
		struct mcinit_pending *p = mcx_xcalloc(1, sizeof *p);

		free(note);
		mcinit_cfg_drop_pending(c, f);
		p->code = code;
		p->why = why;
		p->str = v.kind == MCINIT_V_STR ? mcx_xstrdup(v.s) : NULL;
		if (loc != NULL) {
			p->loc = *loc;
			p->has_loc = true;
		}
		mcinit_value_clear(&v);
		c->pending[f] = p;
		c->invalid[f] = true;
		c->pyval[f] = false;
		return -1;
	}
	if (rc == 0) {
		mcinit_value_clear(&c->val[f]);
		c->val[f] = v;
		set_where(c, f, o, loc);
		/* a scalar of another type that a Bridge dataclass keeps: unknown
		 * to the native rules, which read the field's type only */
		c->pyval[f] = c->invalid[f] = !mcinit_value_fits(f, &c->val[f]);
		c->runtime[f] = false; /* a value replaces one known only at run time */
		if (note != NULL) {
			mcinit_field_key(f, key, sizeof key);
			mcinit_diag_key(
			    mcinit_diag_add(d, MCINIT_WARNING, "MC004", loc, "%s", note), key);
			free(note);
		}
		return 0;
	}
	c->invalid[f] = true;
	c->pyval[f] = false;
	refuse(f, code, why, json_is_string(j) ? json_string_value(j) : NULL, loc, d);
	free(why);
	return -1;
}

void
mcinit_config_finish(struct mcinit_config *c, struct mcinit_diags *d)
{
	char key[128];
	struct mcx_buf unseen = {0};
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		struct mcinit_diag *g;

		if (mcinit_field_s(i, def) != NULL || !mcinit_cfg_null(c, i) || c->runtime[i])
			continue;
		c->invalid[i] = true;
		if (c->flags_unread || c->flags_partial ||
		    c->flags_args) { /* what was not read may set it */
			mcinit_field_key(i, key, sizeof key);
			mcx_buf_printf(&unseen, "%s%s", unseen.len ? ", " : "", key);
			continue;
		}
		mcinit_field_key(i, key, sizeof key);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC008", NULL, "required field %s is not set",
		                    key);
		mcinit_diag_key(g, key);
		if (mcinit_field_s(i, flags))
			mcinit_diag_hint(g, "set \"%s\" in the \"%s\" section, or pass %s N",
			                 mcinit_field_s(i, name), mcinit_field_s(i, section),
			                 mcinit_field_s(i, flags));
		else
			mcinit_diag_hint(g, "set \"%s\" in the \"%s\" section",
			                 mcinit_field_s(i, name), mcinit_field_s(i, section));
	}
	if (c->recipe_shape) {
		struct mcx_buf names = {0};

		for (i = 0; i < MCINIT_F_COUNT; i++)
			if (c->runtime[i] && mcinit_field_s(i, def) == NULL &&
			    strcmp(mcinit_field_s(i, section), "model") == 0) {
				mcinit_field_key(i, key, sizeof key);
				mcx_buf_printf(&names, "%s%s", names.len ? ", " : "", key);
			}
		if (names.len > 0 && c->recipe_hf != NULL)
			mcinit_diag_add(d, MCINIT_WARNING, "MC009", &c->recipe_loc,
			                "required fields not checked (%s): the recipe reads them "
			                "from the Hugging Face config of %s when it runs, known "
			                "only at run time",
			                mcx_buf_cstr(&names), c->recipe_hf);
		else if (names.len > 0)
			mcinit_diag_add(d, MCINIT_WARNING, "MC009", &c->recipe_loc,
			                "required fields not checked (%s): the recipe's code sets "
			                "them (%s), which mcinit's facts do not hold as values",
			                mcx_buf_cstr(&names),
			                c->recipe_provider != NULL ? c->recipe_provider
			                                           : "its model provider");
		mcx_buf_free(&names);
	}
	if (unseen.len > 0)
		mcinit_diag_add(d, MCINIT_WARNING, "MC009", NULL,
		                "required fields not checked (%s): %s", mcx_buf_cstr(&unseen),
		                c->flags_unread ? "the launch's flags hold words from a sourced "
		                                  "file mcinit could not read"
		                : c->flags_args ? "the launch's flags hold the script's arguments, "
		                                  "known only at run time"
		                                : "mcinit stopped reading the launch script early, "
		                                  "so flags may be missing");
	mcx_buf_free(&unseen);
}

/* Whether any field of sec holds a value that is not its default (a
 * Megatron-LM flag may set a field of an optional section: --bf16). */
static bool
section_written(const struct mcinit_config *c, const char *sec)
{
	int f;

	for (f = 0; f < MCINIT_F_COUNT; f++)
		if (c->origin[f] != MCINIT_ORIG_DEFAULT &&
		    strcmp(mcinit_field_s(f, section), sec) == 0)
			return true;
	return false;
}

json_t *
mcinit_config_to_json(const struct mcinit_config *c)
{
	json_t *root = json_object(), *extra, *obj = NULL;
	const char *sec, *last = NULL;
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		/* what the Bridge release checked against would refuse */
		if (!mcinit_field_in_bridge(i, c->bversion))
			continue;
		/* a section's fields mostly follow one another: its object is
		 * looked up when the section changes (the table's names are
		 * ASCII: no UTF-8 check of each key) */
		sec = mcinit_field_s(i, section);
		if (sec != last && (obj = json_object_get(root, sec)) == NULL) {
			obj = json_object();
			json_object_set_new_nocheck(root, sec, obj);
		}
		last = sec;
		json_object_set_new_nocheck(obj, mcinit_field_s(i, name),
		                            mcinit_value_to_json(&c->val[i]));
	}
	json_object_foreach(c->extras, sec, extra)
	{
		json_t *s = json_object_get(root, sec);

		if (json_is_string(extra)) { /* a preset name: mixed_precision */
			json_object_set(root, sec, extra);
			continue;
		}
		if (s == NULL) {
			s = json_object();
			json_object_set_new(root, sec, s);
		}
		json_object_update(s, extra);
	}
	json_object_set(root, "env_vars", c->env_vars);
	/* Bridge's optional sections that are None (peft, profiling, ...) print
	 * as null, not as their fields' defaults: a section that is there is
	 * one Bridge acts on (a peft section asks for a pretrained checkpoint) */
	for (i = 0; i < (int)mcinit_nsections; i++)
		if (mcinit_sections[i].kind == MCINIT_SK_OPTIONAL &&
		    !mcinit_config_section_set(c, mcinit_sections[i].name) &&
		    !section_written(c, mcinit_sections[i].name))
			json_object_set_new(root, mcinit_sections[i].name, json_null());
	/* a ConfigContainer stays one (its defaults are Bridge's): the root's
	 * _target_, as Bridge's to_yaml writes it */
	if (c->bridge)
		json_object_set_new(root, "_target_",
		                    json_string("megatron.bridge.training.config.ConfigContainer"));
	return root;
}

const struct mcinit_code_doc mcinit_input_codes[] = {
    {"MC001", MCINIT_ERROR,
     "a boolean flag that Megatron-LM <= core_r0.16 declares type=bool was given a value: "
     "argparse calls bool(word), so every non-empty word, `False` included, is True (error "
     "for a false-looking word, warning for a true-looking one, note for '')",
     "--lazy-mpu-init False", "omit the flag to keep it off; write it alone to turn it on"},
    {"MC002", MCINIT_WARNING,
     "a Python argparse definition uses type=bool, so `--flag False` sets it to True",
     "parser.add_argument(\"--x\", type=bool)",
     "use action=\"store_true\" or argparse.BooleanOptionalAction"},
    {"MC003", MCINIT_ERROR,
     "unknown section, key, override or Megatron-LM flag (with a did-you-mean suggestion); "
     "a warning in a Megatron-Bridge ConfigContainer where Bridge's loader drops the key "
     "itself (every class but those whose constructor takes **kwargs, such as "
     "GPTDatasetConfig); on a ConfigContainer, an override that Hydra's grammar refuses "
     "(with its column) or that Bridge's parse_hydra_overrides refuses in struct mode (a "
     "key that does not exist without +, + on a key that has a value, ~ on a missing key, "
     "a sweep)",
     "{\"model\": {\"tensor_model_paralel_size\": 2}}",
     "correct the spelling, or check --megatron-version"},
    {"MC004", MCINIT_ERROR,
     "a value of the wrong type (the message lists every accepted form of a union type); for "
     "a Megatron-LM flag, what its argparse type, nargs and choices refuse, worded as argparse "
     "words it",
     "--lr abc", "write the value in one of the accepted forms"},
    {"MC005", MCINIT_ERROR,
     "a value out of range or not one of the allowed choices, or a `_target_` Megatron-Bridge "
     "refuses to instantiate (outside its allow-list, deny-listed, or a private path)",
     "\"tensor_model_parallel_size\": 0", "use a value inside the documented range"},
    {"MC006", MCINIT_ERROR, "a JSON object has the same key twice",
     "{\"num_layers\": 4, \"num_layers\": 8}", "keep one copy"},
    {"MC007", MCINIT_NOTE, "a deprecated or alternative spelling was read as its current name",
     "\"dist\": {\"lazy_init\": true}", "use the current name"},
    {"MC008", MCINIT_ERROR, "a required field is not set", "no num_layers anywhere",
     "set it in the config or with its Megatron-LM flag"},
    {"MC009", MCINIT_NOTE,
     "a launch-script word could not be expanded (a variable the script never sets, a "
     "command substitution that runs a program), what mcinit assumed of a launch script "
     "(no script arguments, which launch is checked, no launch found), or a YAML "
     "interpolation is evaluated only when Bridge runs (`${oc.env:...}`, resolvers) or "
     "was resolved against mcinit's own value; an unknown value is not checked",
     "--num-workers $(nproc)",
     "nothing to fix; check that value by hand, or give the script its arguments with "
     "--script-args"},
};
const size_t mcinit_ninput_codes = sizeof mcinit_input_codes / sizeof mcinit_input_codes[0];
