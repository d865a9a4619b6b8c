/*
 * load-args.c — inputs made of words: `section.field=value` overrides,
 * Megatron-LM flags after `--`, and the flags found in launch scripts.
 *
 * How many words a flag takes, its type and its choices are per-version
 * facts from the Megatron-LM flag table (mflags.c), checked as argparse
 * checks them; the fields its dest sets come from the field universe
 * (config.h).
 */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "shell/shell.h"
#include "config/bridge.h"
#include "input/hydra.h"
#include "input/yamltree.h"

/* ---- overrides ---- */

/* Every field's "section.name" and its suggestion key, made once per
 * process: a suggestion for an unknown key compares it with all of them. */
static char *all_keys[MCINIT_F_COUNT];
static struct mcinit_suggest_key all_key_keys[MCINIT_F_COUNT];
static pthread_once_t all_keys_once = PTHREAD_ONCE_INIT;

static void
make_keys(void)
{
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		all_keys[i] =
		    mcx_xasprintf("%s.%s", mcinit_field_s(i, section), mcinit_field_s(i, name));
		mcinit_suggest_key_of(all_keys[i], &all_key_keys[i]);
	}
}

static const char *
suggest_key(const char *key, char *buf, size_t len)
{
	const char *pick;

	pthread_once(&all_keys_once, make_keys);
	pick =
	    mcinit_suggest_keyed(key, (const char *const *)all_keys, all_key_keys, MCINIT_F_COUNT);
	if (pick != NULL)
		snprintf(buf, len, "%s", pick);
	return pick ? buf : NULL;
}

/* JSON when it parses (8, true, null, [1,2], "x"), else a bare string,
 * its OmegaConf interpolations resolved against the config as Bridge
 * resolves an override's (`${model.seq_length}`).  NULL after a diagnostic:
 * not UTF-8, an unknown reference, or a resolver only Bridge evaluates
 * (the value is then not checked). */
static json_t *
override_json(struct mcinit_config *c, const char *text, const struct mcinit_loc *l,
              struct mcinit_diags *d)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL), *res = NULL;
	char *why = NULL;
	int r;

	if (j == NULL)
		j = json_string(text);
	if (j == NULL) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC004", l, "%s: value is not valid UTF-8", text);
		return NULL;
	}
	if (!json_is_string(j) || strstr(json_string_value(j), "${") == NULL)
		return j;
	r = mcinit_yaml_interpolate(json_string_value(j), mcinit_config_ref, c, &res, &why);
	if (r == 0)
		mcinit_diag_add(d, MCINIT_NOTE, "MC009", l, "%s; not checked", why);
	else if (r < 0)
		mcinit_diag_add(d, MCINIT_ERROR, "MC003", l, "%s", why);
	free(why);
	json_decref(j);
	return res;
}

/* ---- Hydra overrides, as Megatron-Bridge applies them ---- */

static bool parse_ll(const char *w, long long *out);

/* A parsed value as JSON (a new reference); NULL with *sweep set when it
 * holds a sweep or a glob anywhere, which OmegaConf cannot hold. */
static json_t *
hydra_json(const struct mcinit_hy_value *v, bool *sweep)
{
	json_t *j;
	char f[40];

	switch (v->type) {
	case MCINIT_HY_NULL:
		return json_null();
	case MCINIT_HY_BOOL:
		return json_boolean(v->b);
	case MCINIT_HY_INT: {
		long long i;

		if (parse_ll(v->text, &i))
			return json_integer(i);
		return json_real(strtod(v->text, NULL));
	}
	case MCINIT_HY_FLOAT:
		/* JSON has no inf or nan: the tagged float (jpos.h), which a
		 * reader tells from the string 'inf' */
		return mcinit_json_pyfloat(v->f);
	case MCINIT_HY_STR:
		return json_stringn(v->text, v->len);
	case MCINIT_HY_LIST:
		j = json_array();
		for (size_t k = 0; k < v->n; k++) {
			json_t *e = hydra_json(&v->items[k], sweep);

			if (e == NULL) {
				json_decref(j);
				return NULL;
			}
			json_array_append_new(j, e);
		}
		return j;
	case MCINIT_HY_DICT:
		j = json_object();
		for (size_t k = 0; k < v->n; k++) {
			const struct mcinit_hy_value *key = &v->keys[k];
			json_t *e = hydra_json(&v->items[k], sweep);
			char *ks;

			if (e == NULL) {
				json_decref(j);
				return NULL;
			}
			/* OmegaConf keeps int, float, bool and None keys; mcinit's
			 * sections are keyed by name: their str() */
			if (key->type == MCINIT_HY_STR)
				ks = mcx_xstrdup(key->text);
			else if (key->type == MCINIT_HY_INT)
				ks = mcx_xstrdup(key->text);
			else if (key->type == MCINIT_HY_FLOAT)
				mcinit_hy_float_repr(key->f, f, sizeof f), ks = mcx_xstrdup(f);
			else if (key->type == MCINIT_HY_BOOL)
				ks = mcx_xstrdup(key->b ? "True" : "False");
			else
				ks = mcx_xstrdup("None");
			json_object_set_new(j, ks, e);
			free(ks);
		}
		return j;
	case MCINIT_HY_SWEEP:
		*sweep = true;
		return NULL;
	}
	return NULL;
}

/* Python's == between an override's value and a field's (numbers by value). */
static bool
hydra_same(json_t *a, json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_boolean(a) && json_is_number(b))
		return (json_is_true(a) ? 1.0 : 0.0) == json_number_value(b);
	if (json_is_number(a) && json_is_boolean(b))
		return hydra_same(b, a);
	return json_equal(a, b) != 0;
}

/* Whether section sec was written as how ("object", "null", "string"). */
static bool
section_is(const struct mcinit_config *c, const char *sec, const char *how)
{
	const char *w = json_string_value(json_object_get(c->sections, sec));

	return w != NULL && strcmp(w, how) == 0;
}

/*
 * An override word as Bridge's parse_hydra_overrides applies it to the
 * ConfigContainer's OmegaConf in struct mode (hydra's
 * ConfigLoaderImpl._apply_overrides_to_config): `k=v` changes a key that
 * exists, `+k=v` adds one (or merges a list or dict), `++k=v` adds or
 * changes, `~k` and `~k=v` delete.  What Bridge then applies back to the
 * dataclasses is read as the same key of a config file would be.  Returns
 * after reporting; the word's errors are Hydra's (OverridesError in Bridge).
 * mcinit's own sections (launch, env_vars: no Bridge class) keep their
 * section.field=JSON reading: false then, the caller reads the word.
 */
static bool
apply_hydra(struct mcinit_config *c, const char *kv, struct mcinit_loc *l, struct mcinit_diags *d)
{
	struct mcinit_hy_override o;
	struct mcinit_hy_error e;
	const struct mcinit_section_info *si;
	const char *key, *dot;
	char sec[64] = "", name[128] = "";
	bool sweep = false, alias = false, exists, is_null;
	json_t *j = NULL, *cur = NULL;
	int f = -1, nest = -1;

	if (mcinit_hydra_parse(kv, strlen(kv), &o, &e) < 0) {
		l->col = e.col;
		mcinit_diag_hint(
		    mcinit_diag_add(d, MCINIT_ERROR, "MC003", l,
		                    "'%s' is not a Hydra override (column %d: %s); "
		                    "Bridge's parse_hydra_overrides refuses it",
		                    kv, e.col, e.msg),
		    "the grammar: https://hydra.cc/docs/advanced/override_grammar/basic/");
		return true;
	}
	key = o.key;
	dot = strchr(key, '.');
	if (dot == NULL ? strlen(key) >= sizeof sec
	                : (size_t)(dot - key) >= sizeof sec || strlen(dot + 1) >= sizeof name)
		si = NULL;
	else {
		snprintf(sec, sizeof sec, "%.*s", dot ? (int)(dot - key) : (int)strlen(key), key);
		si = mcinit_section_find(sec);
	}
	if (o.package == NULL && si != NULL &&
	    (si->bridge_ty == NULL || si->kind == MCINIT_SK_MAP)) {
		/* mcinit's own sections are no part of Bridge's OmegaConf */
		if (o.kind == MCINIT_HY_CHANGE) {
			mcinit_hydra_free(&o);
			return false;
		}
		mcinit_diag_add(d, MCINIT_ERROR, "MC003", l,
		                "'%s': Hydra's +, ++ and ~ apply to Megatron-Bridge's sections; "
		                "'%s' is mcinit's: write %s.field=value",
		                kv, sec, sec);
		mcinit_hydra_free(&o);
		return true;
	}
	if (o.package != NULL) {
		mcinit_diag_add(
		    d, MCINIT_ERROR, "MC003", l,
		    "override '%s' looks like a config group override, but config group "
		    "'%s' does not exist (Hydra, in Bridge's parse_hydra_overrides)",
		    kv, key);
		goto out;
	}
	if (o.has_value) {
		j = hydra_json(&o.value, &sweep);
		if (j == NULL) {
			mcinit_diag_add(
			    d, MCINIT_ERROR, "MC003", l,
			    "'%s' is a sweep (a,b,c or a sweep function): Bridge applies one "
			    "run's overrides, and OmegaConf cannot hold a sweep",
			    kv);
			goto out;
		}
	}
	if (si != NULL && dot != NULL) {
		snprintf(name, sizeof name, "%s", dot + 1);
		if (strchr(name, '.') == NULL)
			f = mcinit_field_lookup_key(sec, name, &alias);
	}
	/* Does the key exist in the ConfigContainer, and is it None there? */
	if (si == NULL || si->kind == MCINIT_SK_MAP) {
		exists = false;
		is_null = true;
	} else if (dot == NULL) {
		const char *how = json_string_value(json_object_get(c->sections, sec));

		exists = true;
		is_null = how != NULL && strcmp(how, "null") == 0;
	} else if (section_is(c, sec, "string") || section_is(c, sec, "null")) {
		/* a key under a section that is a preset's name or None: not there */
		if (o.kind == MCINIT_HY_ADD || o.kind == MCINIT_HY_FORCE_ADD) {
			/* OmegaConf replaces the name (or None) by {key: value}: Bridge
			 * then holds a plain dict where its class belongs */
			mcinit_diag_add(
			    d, MCINIT_ERROR, "MC003", l,
			    "'%s' turns section '%s' (%s) into a plain mapping: Bridge's "
			    "apply_overrides then sets a dict where its class belongs, "
			    "which Bridge does not expect",
			    kv, sec, section_is(c, sec, "null") ? "None" : "a preset's name");
			goto out;
		}
		exists = false;
		is_null = true;
	} else if ((nest = mcinit_config_builder_nest(c, sec)) >= 0 &&
	           strncmp(name, "transformer.", 12) == 0 && strchr(name + 12, '.') == NULL) {
		/* model.transformer.X of a builder-style model config: in the
		 * OmegaConf when the nested TransformerConfig has the field */
		int g = mcinit_field_lookup_key(sec, name + 12, &alias);

		exists = g >= 0 && !alias && mcinit_field_in_nested(g, nest) &&
		         mcinit_field_in_bridge(g, c->bversion);
		is_null = !exists || mcinit_cfg_val(c, g)->kind == MCINIT_V_NULL;
		cur = exists && !is_null ? mcinit_value_to_json(mcinit_cfg_val(c, g)) : NULL;
		if (!exists && o.kind != MCINIT_HY_CHANGE && o.kind != MCINIT_HY_DELETE) {
			/* added to the OmegaConf; apply_overrides skips what the
			 * TransformerConfig lacks, with a log warning */
			mcinit_diag_add(
			    d, MCINIT_WARNING, "MC003", l,
			    "unknown key '%s': Bridge adds it to its OmegaConf, then its "
			    "apply_overrides logs \"not found in config object "
			    "TransformerConfig. Skipping\"",
			    key);
			goto out;
		}
	} else if (f >= 0 && !alias && nest >= 0 &&
	           !mcinit_vclass_has_std(
	               mcinit_vclass_find(sec, json_string_value(json_object_get(
	                                           json_object_get(c->extras, sec), "_target_"))),
	               f)) {
		/* model.num_layers beside a builder-style config: not in its
		 * OmegaConf (the field is its transformer's); +/++ add it, and
		 * apply_overrides sets it, which the class hands to transformer */
		exists = false;
		is_null = true;
	} else if (f >= 0 && !alias && !mcinit_field_in_bridge(f, c->bversion)) {
		/* a field of another Bridge release: the loader says which */
		mcinit_config_override_key(c, sec, name, j ? j : json_null(), l, d);
		goto out;
	} else if (f >= 0 && !alias && mcinit_field_in_bridge(f, c->bversion)) {
		exists = true;
		is_null = mcinit_cfg_val(c, f)->kind == MCINIT_V_NULL;
		cur = is_null ? json_null() : mcinit_value_to_json(mcinit_cfg_val(c, f));
	} else if (json_object_get(json_object_get(c->extras, sec), name) != NULL ||
	           mcinit_vclass_with_key(sec, name, NULL) != NULL) {
		/* a field of the section's class beyond the standard ones (a
		 * provider's, a dataset config's): its value when the file gave it;
		 * when not, None is assumed, so that nothing is refused for it */
		exists = true;
		cur = json_incref(json_object_get(json_object_get(c->extras, sec), name));
		is_null = cur != NULL ? json_is_null(cur) : o.kind != MCINIT_HY_DELETE;
	} else if (f < 0 && strchr(name, '.') != NULL) {
		/* a key inside a field (model.a.b): there when the field holds a
		 * mapping, which mcinit does not follow */
		char head[128];
		int hf;

		snprintf(head, sizeof head, "%.*s", (int)(strchr(name, '.') - name), name);
		hf = mcinit_field_lookup_key(sec, head, &alias);
		if (hf >= 0 && mcinit_cfg_val(c, hf)->kind != MCINIT_V_JSON &&
		    (o.kind == MCINIT_HY_CHANGE || o.kind == MCINIT_HY_DELETE)) {
			exists = false;
			is_null = true;
		} else {
			mcinit_diag_add(d, MCINIT_NOTE, "MC009", l,
			                "'%s' sets a key inside a field; not checked", kv);
			goto out;
		}
	} else {
		exists = false;
		is_null = true;
	}

	switch (o.kind) {
	case MCINIT_HY_DELETE:
		if (!exists || is_null) {
			mcinit_diag_add(
			    d, MCINIT_ERROR, "MC003", l,
			    "could not delete from config: '%s' does not exist (Hydra, in "
			    "Bridge's parse_hydra_overrides)",
			    key);
		} else if (j != NULL && cur != NULL && !hydra_same(j, cur)) {
			char *now = json_dumps(cur, JSON_ENCODE_ANY);

			mcinit_diag_add(
			    d, MCINIT_ERROR, "MC003", l,
			    "could not delete from config: the value of '%s' is %s and not "
			    "the one given (Hydra, in Bridge's parse_hydra_overrides)",
			    key, now ? now : "?");
			free(now);
		}
		/* Bridge applies back only the keys left: the field keeps its value */
		goto out;
	case MCINIT_HY_ADD:
		if (exists && !is_null && !json_is_array(j) && !json_is_object(j)) {
			mcinit_diag_hint(
			    mcinit_diag_add(
			        d, MCINIT_ERROR, "MC003", l,
			        "could not append to config: an item is already at '%s' "
			        "(Hydra, in Bridge's parse_hydra_overrides)",
			        key),
			    "remove the + prefix: `%s`, or add a second + to add or override: "
			    "`+%s`",
			    kv + 1, kv);
			goto out;
		}
		break;
	case MCINIT_HY_CHANGE:
		if (!exists) {
			mcinit_diag_hint(
			    mcinit_diag_add(d, MCINIT_ERROR, "MC003", l,
			                    "could not override '%s': the key does not exist "
			                    "(Hydra in struct mode, in Bridge's "
			                    "parse_hydra_overrides)",
			                    key),
			    "to append to your config use `+%s`", kv);
			goto out;
		}
		break;
	case MCINIT_HY_FORCE_ADD:
		break;
	}
	if (!exists && (si == NULL || dot == NULL || strchr(name, '.') != NULL)) {
		/* added to the OmegaConf, then skipped by Bridge's apply_overrides */
		mcinit_diag_add(d, MCINIT_WARNING, "MC003", l,
		                "unknown key '%s': Bridge adds it to its OmegaConf, then its "
		                "apply_overrides logs \"not found in config object ... Skipping\"",
		                key);
		goto out;
	}
	if (dot == NULL) {
		/* a whole section (`mixed_precision=bf16_mixed`, `ddp={...}`): as
		 * the same section of a config file */
		json_t *root = json_object();

		json_object_set(root, sec, j);
		mcinit_config_load_tree(c, *l, root, NULL, d);
		json_decref(root);
		goto out;
	}
	if (json_is_string(j) && strstr(json_string_value(j), "${") != NULL) {
		json_t *r = override_json(c, json_string_value(j), l, d);

		json_decref(j);
		j = r;
		if (j == NULL)
			goto out;
	}
	/* an added key of a section that its class does not have: as the
	 * same key in the file, which the loader drops with a warning, or
	 * refuses for a class whose constructor takes **kwargs */
	mcinit_config_override_key(c, sec, name, j, l, d);
out:
	json_decref(j);
	json_decref(cur);
	mcinit_hydra_free(&o);
	return true;
}

void
mcinit_config_apply_override(struct mcinit_config *c, const char *kv, int argi,
                             struct mcinit_diags *d)
{
	struct mcinit_loc l = mcinit_config_source(c, "override");
	const char *eq = strchr(kv, '='), *dot;
	char sec[64], name[128], buf[256];
	bool alias = false;
	json_t *j;
	int f;

	l.line = argi;
	if (c->bridge && apply_hydra(c, kv, &l, d))
		return;
	dot = memchr(kv, '.', eq ? (size_t)(eq - kv) : 0);
	if (eq == NULL || dot == NULL || dot - kv >= (long)sizeof sec ||
	    eq - dot - 1 >= (long)sizeof name) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC003", &l,
		                "'%s' is not an override: write section.field=value", kv);
		return;
	}
	snprintf(sec, sizeof sec, "%.*s", (int)(dot - kv), kv);
	snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
	if (c->bridge && mcinit_section_find(sec) != NULL &&
	    mcinit_section_find(sec)->bridge_ty != NULL &&
	    mcinit_section_find(sec)->kind != MCINIT_SK_MAP) {
		/* a ConfigContainer's section: read as its file's keys are */
		j = override_json(c, eq + 1, &l, d);
		if (j != NULL)
			mcinit_config_override_key(c, sec, name, j, &l, d);
		json_decref(j);
		return;
	}
	f = mcinit_field_lookup_key(sec, name, &alias);
	if (f >= 0 && alias)
		mcinit_diag_add(d, MCINIT_NOTE, "MC007", &l,
		                "%s.%s is another name of %s.%s; read as that", sec, name,
		                mcinit_field_s(f, section), mcinit_field_s(f, name));
	if (f < 0 && strcmp(sec, "env_vars") == 0) {
		json_object_set_new(c->env_vars, name, json_string(eq + 1));
		return;
	}
	if (f < 0) {
		/* a section a ConfigContainer does not have: its from_yaml drops
		 * it without a word */
		bool dropped = c->bridge && mcinit_section_find(sec) == NULL;
		struct mcinit_diag *g;

		snprintf(buf, sizeof buf, "%s.%s", sec, name);
		g = mcinit_diag_add(d, dropped ? MCINIT_WARNING : MCINIT_ERROR, "MC003", &l,
		                    "unknown key '%s'%s", buf,
		                    dropped
		                        ? "; Megatron-Bridge's ConfigContainer drops it without "
		                          "a word, so it never applies"
		                        : "");
		if (suggest_key(buf, buf, sizeof buf))
			mcinit_diag_hint(g, "did you mean `%s`?", buf);
		return;
	}
	j = override_json(c, eq + 1, &l, d);
	if (j == NULL)
		return;
	mcinit_config_set_json(c, f, j, MCINIT_ORIG_OVERRIDE, &l, d);
	json_decref(j);
}

/* ---- Megatron-LM flags ---- */

static bool
is_flag_word(const char *w)
{
	/* "-1" is a value; "--x" and "-x" are options, as argparse sees them. */
	return w[0] == '-' && w[1] != '\0' && !(w[1] >= '0' && w[1] <= '9') && w[1] != '.';
}

static bool
parse_ll(const char *w, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(w, &end, 10);
	return *w != '\0' && *end == '\0' && errno == 0;
}

/* A word as JSON, typed by what the field accepts: "8" is an int only
 * where an int is wanted, so "--pipeline-model-parallel-layout 12" stays a
 * string. */
static json_t *
word_json(enum mcinit_field f, const char *w)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	long long v;
	int i;

	for (i = 0; i < t->nalt; i++) {
		enum mcinit_base b = t->alt[i].base;

		if ((b == MCINIT_B_INT || b == MCINIT_B_SIGNAL || b == MCINIT_B_DTYPE) &&
		    parse_ll(w, &v))
			return json_integer(v);
	}
	return json_string(w);
}

struct fctx {
	struct mcinit_config *c;
	struct mcinit_diags *d;
	char *const *w;
	const struct mcinit_loc *locs;
	const unsigned char *opaque; /* per word: kept as written, value unknown */
	size_t n, i;
	int suggested;  /* did-you-means looked for so far (MAX_SUGGESTIONS) */
	int fork_noted; /* the Megatron-DeepSpeed note was given */
};

/* The flags that the Megatron-DeepSpeed fork (github.com/microsoft/
 * Megatron-DeepSpeed) adds to Megatron's parser: DeepSpeed's own
 * (deepspeed.add_config_arguments) and those of its arguments.py
 * _add_zero_args, _add_memoryopt_args, _add_activation_checkpoint_args
 * and the like.  A script that passes them runs that fork, whose flags
 * mcinit does not check: a note, not one unknown-flag error each. */
static const char deepspeed_fork_flags[] =
    " --deepspeed --deepspeed_config --deepspeed-config --deepscale --deepscale_config "
    "--deepspeed_mpi --zero-stage --zero-reduce-scatter --zero-contigious-gradients "
    "--zero-reduce-bucket-size --zero-allgather-bucket-size --remote-device --use-pin-memory "
    "--scattered-embeddings --split-transformers --memory-centric-tiled-linear --tile-factor "
    "--deepspeed-activation-checkpointing --partition-activations --contigious-checkpointing "
    "--checkpoint-in-cpu --synchronize-each-layer --profile-backward --no-pipeline-parallel "
    "--ds-inference --cpu-optimizer --cpu_torch_adam --ds_fused_adam "
    "--ds-sequence-parallel-size --ds-pipeline-enabled --no-pipeline-enabled "
    "--enable-expert-tensor-parallelism --moe-expert-parallel-size --mlp-type "
    "--topk --expert-interval --hidden-size-teacher --num-layers-teacher "
    "--num-experts-teacher --curriculum-learning-legacy --random-ltd ";

/* A command line's unknown flags get a did-you-mean each up to this many:
 * each compares the word with every flag, and a line of dozens of unknown
 * words (a fuzzer's, a paste gone wrong) is not helped by more.  Later
 * ones are still reported, without a hint. */
#define MAX_SUGGESTIONS 16

static bool
is_opaque(const struct fctx *x, size_t i)
{
	return x->opaque != NULL && (x->opaque[i] & MCINIT_WORD_OPAQUE);
}

/*
 * The type=bool trap (config.md): argparse calls bool(word), so every
 * non-empty word is True on versions that declare the flag type=bool.  We
 * resolve the word to what the user evidently meant and say what Megatron
 * would do.  value == NULL: the flag was given alone.
 */
static bool
legacy_bool(struct fctx *x, const char *flag, const char *value, const struct mcinit_loc *l)
{
	unsigned v = x->c->mversion;
	const struct mcinit_mflag *m =
	    mcinit_mflag_find(flag, MCINIT_MPARSER(v, x->c->mentry), NULL);
	bool legacy_here = m != NULL && m->kind == MCINIT_MK_LEGACY_TYPE_BOOL;
	int b = value ? mcinit_bool_word(value) : 1;
	struct mcinit_diag *g;

	if (value == NULL) {
		if (legacy_here) {
			g = mcinit_diag_add(x->d, MCINIT_WARNING, "MC001", l,
			                    "%s without a value: Megatron-LM %s declares it "
			                    "type=bool and stops with 'expected one argument'",
			                    flag, mcinit_mversion_name(v));
			mcinit_diag_hint(g,
			                 "write `%s True` for %s, or `%s` alone for newer "
			                 "versions (--megatron-version=main)",
			                 flag, mcinit_mversion_name(v), flag);
		}
		return true;
	}
	if (b == 0 && *value != '\0') {
		g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC001", l,
		                    "`%s %s`: Megatron-LM <= core_r0.16 reads this as TRUE "
		                    "(argparse type=bool: bool('%s') is True); newer versions "
		                    "reject it",
		                    flag, value, value);
		mcinit_diag_hint(g, "omit the flag to keep it off");
		return false;
	}
	if (b == 0) {
		g = mcinit_diag_add(x->d, MCINIT_NOTE, "MC001", l,
		                    "`%s ''`: the empty word is the only value type=bool reads as "
		                    "False; newer versions reject it",
		                    flag);
		mcinit_diag_hint(g, "omit the flag to keep it off");
		return false;
	}
	if (!legacy_here) {
		g = mcinit_diag_add(x->d, MCINIT_WARNING, "MC001", l,
		                    "`%s %s` works on Megatron-LM <= core_r0.16 (type=bool) but "
		                    "is rejected by r0.17+ and main",
		                    flag, value);
		mcinit_diag_hint(g, "write `%s` alone", flag);
	}
	return true;
}

/* Words taken by a value/list flag starting at x->i (after the flag). */
static size_t
take_values(struct fctx *x, int nargs)
{
	size_t k = 0;

	while (x->i + k < x->n && !is_flag_word(x->w[x->i + k]) && (nargs < 0 || k < (size_t)nargs))
		k++;
	return k;
}

/* ---- argparse's own conversions, as Python does them ---- */

/* Python's int(word): surrounding blanks, a sign, digits with single
 * underscores between them. */
static bool
py_int(const char *w, long long *out)
{
	char buf[64];
	size_t n = 0;
	const char *p = w;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		buf[n++] = *p++;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; *p && !isspace((unsigned char)*p); p++) {
		if (*p == '_' && isdigit((unsigned char)p[-1]) && isdigit((unsigned char)p[1]))
			continue;
		if (!isdigit((unsigned char)*p) || n + 1 >= sizeof buf)
			return false;
		buf[n++] = *p;
	}
	while (isspace((unsigned char)*p))
		p++;
	buf[n] = '\0';
	return *p == '\0' && parse_ll(buf, out);
}

/* Python's float(word): decimal or exponent notation, inf/infinity/nan in
 * any case, underscores between digits; no hexadecimal (which strtod takes). */
static bool
py_float(const char *w, double *out)
{
	char buf[128], *end;
	size_t n = 0;
	const char *p = w, *q;

	while (isspace((unsigned char)*p))
		p++;
	for (q = p; *q && !isspace((unsigned char)*q); q++) {
		if (*q == '_' && q > p && isdigit((unsigned char)q[-1]) &&
		    isdigit((unsigned char)q[1]))
			continue;
		if (n + 1 >= sizeof buf || *q == '_')
			return false;
		buf[n++] = *q;
	}
	while (isspace((unsigned char)*q))
		q++;
	buf[n] = '\0';
	if (*q != '\0' || n == 0 || strpbrk(buf, "xX(") != NULL)
		return false;
	errno = 0;
	*out = strtod(buf, &end);
	return *end == '\0';
}

static const char *const mtype_name[] = {
    [MCINIT_MT_STR] = "str",   [MCINIT_MT_INT] = "int",   [MCINIT_MT_FLOAT] = "float",
    [MCINIT_MT_BOOL] = "bool", [MCINIT_MT_ENUM] = "enum", [MCINIT_MT_CUSTOM] = "custom",
};

/* Python's repr of a word, as argparse quotes it in messages. */
static char *
py_repr(const char *w)
{
	struct mcx_buf b = {0};
	bool dq = strchr(w, '\'') != NULL && strchr(w, '"') == NULL;

	mcx_buf_addc(&b, dq ? '"' : '\'');
	for (; *w; w++) {
		if (*w == '\\' || (!dq && *w == '\''))
			mcx_buf_addc(&b, '\\');
		mcx_buf_addc(&b, *w);
	}
	mcx_buf_addc(&b, dq ? '"' : '\'');
	mcx_buf_cstr(&b);
	return b.data;
}

/* "'constant', 'linear', 'cosine'": the choices as argparse lists them. */
static char *
choices_words(const struct mcinit_mflag *m)
{
	struct mcx_buf b = {0};
	const char *p = mcinit_mstr(m->choices);

	while (*p) {
		size_t n = strcspn(p, ",");
		char *one = strndup(p, n), *r;

		r = m->type == MCINIT_MT_INT || m->type == MCINIT_MT_FLOAT ? mcx_xstrdup(one)
		                                                           : py_repr(one);
		mcx_buf_printf(&b, "%s%s", b.len ? ", " : "", r);
		free(r);
		free(one);
		p += n + (p[n] == ',');
	}
	mcx_buf_cstr(&b);
	return b.data;
}

static bool
in_comma_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	while (*list) {
		size_t m = strcspn(list, ",");

		if (m == n && strncmp(list, word, n) == 0)
			return true;
		list += m + (list[m] == ',');
	}
	return false;
}

static void
suggest_choice(struct mcinit_diag *g, const char *choices, const char *w)
{
	char *list = mcx_xstrdup(choices), *tok, *save = NULL;
	const char *cands[64], *pick;
	size_t n = 0;

	for (tok = strtok_r(list, ",", &save); tok && n < 64; tok = strtok_r(NULL, ",", &save))
		cands[n++] = tok;
	pick = mcinit_suggest(w, cands, n);
	if (pick != NULL)
		mcinit_diag_hint(g, "did you mean `%s`?", pick);
	free(list);
}

/*
 * One value word as Megatron's argparse converts it: its type= and then its
 * choices.  Returns the JSON value, or NULL after reporting MC004 the way
 * argparse words it ("argument --lr: invalid float value: 'abc'").  A type
 * of Megatron's own (CUSTOM) is not checked: the word is typed by the field.
 */
static json_t *
convert_word(struct fctx *x, const struct mcinit_mflag *m, const char *name, int f, const char *w,
             const struct mcinit_loc *l)
{
	char canon[32];
	long long iv;
	double dv;
	json_t *j;
	struct mcinit_diag *g;
	char *r, *cs;

	switch (m->type) {
	case MCINIT_MT_INT:
		if (!py_int(w, &iv))
			goto bad_type;
		j = json_integer(iv);
		snprintf(canon, sizeof canon, "%lld", iv);
		break;
	case MCINIT_MT_FLOAT:
		if (!py_float(w, &dv))
			goto bad_type;
		j = json_real(dv);
		if (j == NULL) /* jansson has no inf/nan: Megatron takes them, so do we */
			return json_string(w);
		snprintf(canon, sizeof canon, "%.17g", dv);
		break;
	case MCINIT_MT_CUSTOM:
		return f >= 0 ? word_json(f, w) : json_string(w);
	default:
		j = json_string(w);
		if (j == NULL) {
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
			                "argument %s: value is not valid UTF-8", name);
			return NULL;
		}
		snprintf(canon, sizeof canon, "%s", "");
		break;
	}
	if (m->choices == MCINIT_NOSTR ||
	    in_comma_list(mcinit_mstr(m->choices), *canon ? canon : w))
		return j;
	json_decref(j);
	r = py_repr(w);
	cs = choices_words(m);
	g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
	                    "argument %s: invalid choice: %s (choose from %s)", name,
	                    m->type == MCINIT_MT_INT ? canon : r, cs);
	if (m->type != MCINIT_MT_INT && m->type != MCINIT_MT_FLOAT)
		suggest_choice(g, mcinit_mstr(m->choices), w);
	free(r);
	free(cs);
	return NULL;
bad_type:
	r = py_repr(w);
	mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l, "argument %s: invalid %s value: %s", name,
	                mtype_name[m->type], r);
	free(r);
	return NULL;
}

/*
 * Stores j into every field the flag's dest sets: its home reports what the
 * schema refuses (ranges), the Bridge fields set from the same attribute
 * follow silently.  j == NULL: the value was refused; the home is marked
 * invalid so that no rule reasons from a value Megatron never accepts.
 */
static void
set_dest(struct fctx *x, const struct mcinit_mflag *m, json_t *j, const struct mcinit_loc *l)
{
	enum mcinit_field fs[8];
	int n = mcinit_fields_by_dest(mcinit_mstr(m->dest), fs, 8), k;

	for (k = 0; k < n; k++) {
		struct mcinit_value v;
		const char *code;
		char *why = NULL;

		if (j == NULL) {
			x->c->invalid[fs[k]] = true;
			x->c->pyval[fs[k]] = false;
			continue;
		}
		if (k == 0) {
			mcinit_config_set_json(x->c, fs[k], j, MCINIT_ORIG_ARGV, l, x->d);
			continue;
		}
		if (mcinit_value_from_json(fs[k], j, &v, &code, &why) < 0) {
			free(why);
			continue;
		}
		mcinit_value_clear(&x->c->val[fs[k]]);
		x->c->val[fs[k]] = v;
		x->c->origin[fs[k]] = MCINIT_ORIG_ARGV;
		x->c->loc[fs[k]] = *l;
		x->c->invalid[fs[k]] = x->c->pyval[fs[k]] = false;
		mcinit_cfg_drop_pending(x->c, fs[k]);
	}
	json_decref(j);
}

/* The entry points whose parser on `version` has flag (a flag may have
 * one row per definition, each naming some of them). */
static unsigned
entries_with(const char *flag, unsigned version)
{
	unsigned e, all = 0;

	for (e = 1; e & MCINIT_ME_ALL; e <<= 1)
		if (mcinit_mflag_find(flag, MCINIT_MPARSER(version, e), NULL) != NULL)
			all |= e;
	return all;
}

static void
unknown_flag(struct fctx *x, const char *name, const struct mcinit_loc *l)
{
	const struct mcinit_mflag *any = mcinit_mflag_find_any(name);
	const struct mcinit_mflag *here = mcinit_mflag_find(name, x->c->mversion, NULL);
	struct mcinit_diag *g;
	const char *pick;
	char vers[96], entries[256];

	if (here == NULL && any == NULL && strlen(name) < 64) {
		char spaced[68];

		snprintf(spaced, sizeof spaced, " %s ", name);
		if (strstr(deepspeed_fork_flags, spaced) != NULL) {
			if (!x->fork_noted++)
				mcinit_diag_hint(
				    mcinit_diag_add(x->d, MCINIT_NOTE, "MC003", l,
				                    "%s is a flag of the Megatron-DeepSpeed fork "
				                    "(github.com/microsoft/Megatron-DeepSpeed), "
				                    "not of Megatron-LM: "
				                    "the flags that fork adds are not checked",
				                    name),
				    "mcinit checks Megatron-LM's own flags and rules");
			x->i += take_values(x, -1);
			return;
		}
	}
	if (here != NULL) {
		/* a flag another entry point's extra_args_provider adds */
		mcinit_mentry_list(entries_with(name, x->c->mversion), entries, sizeof entries);
		g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", l,
		                    "%s is not a flag of Megatron-LM %s's %s (%s adds it)", name,
		                    mcinit_mversion_name(x->c->mversion),
		                    mcinit_mentry_name(x->c->mentry), entries);
		mcinit_diag_hint(g, "drop it, or pass --entry-point NAME for the script you run");
	} else if (any != NULL) {
		mcinit_mversion_list(any->versions, vers, sizeof vers);
		g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", l,
		                    "%s is not a flag of Megatron-LM %s (it exists in %s)", name,
		                    mcinit_mversion_name(x->c->mversion), vers);
		mcinit_diag_hint(g, "drop it, or check --megatron-version");
	} else {
		g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", l, "unknown Megatron-LM flag %s",
		                    name);
		pick =
		    x->suggested++ < MAX_SUGGESTIONS
		        ? mcinit_mflag_suggest(name, MCINIT_MPARSER(x->c->mversion, x->c->mentry))
		        : NULL;
		if (pick != NULL)
			mcinit_diag_hint(g, "did you mean `%s`?", pick);
	}
	/* Skip its would-be values so they do not pile up as stray words. */
	x->i += take_values(x, -1);
}

/* A flag that takes no value: store_true/_false, BooleanOptionalAction. */
static void
bool_flag(struct fctx *x, const struct mcinit_mflag *m, const char *name, const char *inl, int neg,
          const struct mcinit_loc *l)
{
	/* A flag that older versions declared type=bool still gets the
	 * trap's diagnostics when a value follows it. */
	if (inl == NULL && mcinit_mflag_is_legacy_bool(name) && x->i < x->n &&
	    mcinit_bool_word(x->w[x->i]) >= 0)
		inl = x->w[x->i++];
	if (inl != NULL && mcinit_mflag_is_legacy_bool(name)) {
		set_dest(x, m, json_boolean(legacy_bool(x, name, inl, l)), l);
		return;
	}
	if (inl != NULL) {
		char *r = py_repr(inl);

		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
		                "argument %s: ignored explicit argument %s", name, r);
		free(r);
		set_dest(x, m, NULL, l);
		return;
	}
	set_dest(x, m,
	         json_boolean(m->kind == MCINIT_MK_STORE_TRUE ||
	                      (m->kind == MCINIT_MK_BOOLEAN_OPTIONAL && !neg)),
	         l);
}

/* The flag's fields get a value known only at run time: set, not checked. */
static void
set_runtime(struct fctx *x, const struct mcinit_mflag *m, const struct mcinit_loc *l)
{
	enum mcinit_field fs[8];
	int n = mcinit_fields_by_dest(mcinit_mstr(m->dest), fs, 8), k;

	for (k = 0; k < n; k++) {
		x->c->invalid[fs[k]] = x->c->runtime[fs[k]] = true;
		x->c->pyval[fs[k]] = false;
		mcinit_cfg_drop_pending(x->c, fs[k]);
		x->c->origin[fs[k]] = MCINIT_ORIG_ARGV;
		x->c->loc[fs[k]] = *l;
	}
}

static void
value_flag(struct fctx *x, const struct mcinit_mflag *m, const char *name, const char *inl, int f,
           const struct mcinit_loc *l)
{
	bool opaque = false;

	if (inl == NULL && take_values(x, 1) == 1) {
		inl = x->w[x->i++];
		opaque = is_opaque(x, x->i - 1);
	} else if (inl != NULL) {
		opaque = is_opaque(x, x->i - 1);
	}
	if (inl == NULL) {
		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
		                "argument %s: expected one argument", name);
		set_dest(x, m, NULL, l);
		return;
	}
	/* A value a script computes at run time ($1, $(...)) is unknown here:
	 * the scanner said so; do not guess. */
	if (opaque) {
		set_runtime(x, m, l);
		return;
	}
	set_dest(x, m, convert_word(x, m, name, f, inl, l), l);
}

static void
list_flag(struct fctx *x, const struct mcinit_mflag *m, const char *name, const char *inl, int f,
          const struct mcinit_loc *l)
{
	size_t k = inl ? 0 : take_values(x, m->nargs), nwords = k + (inl != NULL), q;
	bool opaque = false, bad = false;
	json_t *arr;

	for (q = 0; q < k; q++)
		opaque |= is_opaque(x, x->i + q);
	if ((m->nargs == -1 && nwords == 0) || (m->nargs > 0 && nwords != (size_t)m->nargs)) {
		if (m->nargs > 1)
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
			                "argument %s: expected %d arguments", name, m->nargs);
		else if (m->nargs == 1)
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
			                "argument %s: expected 1 argument", name);
		else
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
			                "argument %s: expected at least one argument", name);
		x->i += k;
		set_dest(x, m, NULL, l);
		return;
	}
	if (opaque) {
		x->i += k; /* a run-time value: nothing to check */
		set_runtime(x, m, l);
		return;
	}
	arr = json_array();
	for (q = 0; q < nwords; q++) {
		const char *w = inl != NULL ? inl : x->w[x->i + q];
		json_t *j = convert_word(x, m, name, f, w, inl != NULL ? l : &x->locs[x->i + q]);

		if (j == NULL)
			bad = true;
		else
			json_array_append_new(arr, j);
	}
	x->i += k;
	if (bad) {
		json_decref(arr);
		arr = NULL;
	}
	set_dest(x, m, arr, l);
}

static void
one_flag(struct fctx *x)
{
	const char *word = x->w[x->i];
	const struct mcinit_loc *l = &x->locs[x->i];
	const char *eq = strchr(word, '=');
	char *name = eq ? strndup(word, (size_t)(eq - word)) : mcx_xstrdup(word);
	const char *inl = eq ? eq + 1 : NULL;
	enum mcinit_field home;
	int neg, f;
	const struct mcinit_mflag *m;

	x->i++;
	m = mcinit_mflag_find(name, MCINIT_MPARSER(x->c->mversion, x->c->mentry), &neg);
	if (m == NULL) {
		unknown_flag(x, name, l);
		goto out;
	}
	f = mcinit_fields_by_dest(mcinit_mstr(m->dest), &home, 1) == 1 ? (int)home : -1;
	switch (m->kind) {
	case MCINIT_MK_LEGACY_TYPE_BOOL:
		if (inl == NULL && x->i < x->n && !is_flag_word(x->w[x->i]))
			inl = x->w[x->i++];
		set_dest(x, m, json_boolean(legacy_bool(x, name, inl, l)), l);
		break;
	case MCINIT_MK_STORE_TRUE:
	case MCINIT_MK_STORE_FALSE:
	case MCINIT_MK_BOOLEAN_OPTIONAL:
		bool_flag(x, m, name, inl, neg, l);
		break;
	case MCINIT_MK_VALUE:
		value_flag(x, m, name, inl, f, l);
		break;
	case MCINIT_MK_LIST:
		list_flag(x, m, name, inl, f, l);
		break;
	}
out:
	free(name);
}

/* A word standing where flags would, whose value only the run knows. */
static void
opaque_words(struct mcinit_diags *d, const char *word, const struct mcinit_loc *l, unsigned char fl)
{
	if (fl & MCINIT_WORD_ARGS)
		mcinit_diag_hint(mcinit_diag_add(d, MCINIT_WARNING, "MC009", l,
		                                 "flags from `%s` were not checked: the script's "
		                                 "arguments are known only at run time",
		                                 word),
		                 "mcinit validate --script-args ARGS reads the script as run with "
		                 "ARGS");
	else if (fl & MCINIT_WORD_UNREAD)
		mcinit_diag_hint(mcinit_diag_add(d, MCINIT_WARNING, "MC009", l,
		                                 "flags from `%s` were not checked: a sourced file "
		                                 "mcinit could not read may set it",
		                                 word),
		                 "make that file readable where the script is, or check those "
		                 "flags by passing them after `--`");
	else if (word[0] == '`' || (word[0] == '$' && word[1] == '(' && word[2] != '('))
		mcinit_diag_hint(mcinit_diag_add(d, MCINIT_WARNING, "MC009", l,
		                                 "flags from this command substitution were not "
		                                 "checked: mcinit cannot evaluate `%s` without "
		                                 "running it",
		                                 word),
		                 "check those flags by passing them after `--`");
	else
		mcinit_diag_hint(mcinit_diag_add(d, MCINIT_WARNING, "MC009", l,
		                                 "flags from `%s` were not checked: mcinit cannot "
		                                 "see its value",
		                                 word),
		                 "bash expands a variable the script does not set to nothing; if "
		                 "the environment sets it, check those flags by passing them after "
		                 "`--`");
}

void
mcinit_config_apply_flags(struct mcinit_config *c, char *const *words,
                          const struct mcinit_loc *locs, const unsigned char *opaque, size_t n,
                          struct mcinit_diags *d)
{
	struct fctx x = {c, d, words, locs, opaque, n, 0, 0, 0};

	if (n > 0)
		c->megatron_argv = true;
	while (x.i < x.n) {
		if (is_flag_word(words[x.i])) {
			one_flag(&x);
			continue;
		}
		if (opaque != NULL && (opaque[x.i] & MCINIT_WORD_OPAQUE) &&
		    !(opaque[x.i] & MCINIT_WORD_RESPLIT)) {
			/* a variable the script never assigns (bash: nothing, unless
			 * the environment sets it) or a command's output: words mcinit
			 * cannot see, so never an unexpected word */
			if (opaque[x.i] & MCINIT_WORD_ARGS)
				c->flags_args = true; /* the user's flags at launch */
			opaque_words(d, words[x.i], &locs[x.i], opaque[x.i]);
			x.i++;
			continue;
		}
		struct mcinit_diag *g = mcinit_diag_add(
		    d, MCINIT_ERROR, "MC003", &locs[x.i],
		    "unexpected word '%s': not a flag, and no flag before it takes a "
		    "value (argparse stops with 'unrecognized arguments')",
		    words[x.i]);

		if (opaque != NULL && (opaque[x.i] & MCINIT_WORD_RESPLIT))
			mcinit_diag_hint(g,
			                 "bash split this out of a string that is quoted where it "
			                 "is assigned, because the variable is expanded without "
			                 "double quotes: write \"${NAME[@]}\" (or \"$NAME\")");
		x.i++;
	}
}

/* ---- launch scripts ---- */

/* Where a launch script's positions are: base[0] the script, base[k] the
 * k-th other file it reads or runs (mcinit_shscan.files). */
static struct mcinit_loc
at(const struct mcinit_loc *base, int file, int line, int col)
{
	struct mcinit_loc l = base[file];

	l.line = line;
	l.col = col;
	return l;
}

/* The job's environment the script leaves: later scripts override earlier
 * ones, name by name. */
static void
take_env(struct mcinit_config *c, const struct mcinit_shscan *sc, const struct mcinit_loc *base)
{
	for (size_t i = 0; i < sc->nenv; i++) {
		const struct mcinit_shenv *e = &sc->env[i];
		size_t k;

		for (k = 0; k < c->njob_env && strcmp(c->job_env[k].name, e->name) != 0; k++)
			;
		if (k == c->njob_env) {
			c->job_env = mcx_xrealloc(c->job_env, (k + 1) * sizeof *c->job_env);
			c->job_env[c->njob_env++].name = mcx_xstrdup(e->name);
		} else {
			free(c->job_env[k].value);
		}
		c->job_env[k].value = e->value && !e->opaque ? mcx_xstrdup(e->value) : NULL;
		c->job_env[k].loc = at(base, e->file, e->line, e->col);
	}
}

static void
set_launch_int(struct mcinit_config *c, enum mcinit_field f, long long v, struct mcinit_loc l,
               struct mcinit_diags *d)
{
	json_t *j = json_integer(v);

	mcinit_config_set_json(c, f, j, MCINIT_ORIG_FILE, &l, d);
	json_decref(j);
}

/* What the launcher says: launch.world_size (with how, for derived values),
 * nnodes, nproc_per_node, master_addr and master_port. */
static void
take_launch(struct mcinit_config *c, const struct mcinit_shlaunch *la,
            const struct mcinit_loc *base, struct mcinit_diags *d)
{
	if (la->world_size > 0) {
		struct mcinit_loc l = at(base, la->file, la->line, la->col);

		set_launch_int(c, MCINIT_F_world_size, la->world_size, l, d);
		free(c->launch_source);
		c->launch_source = mcx_xstrdup(la->world_size_source);
		c->launch_source_loc = l;
		c->launch_assumed = la->world_assumed != 0;
	}
	if (la->nnodes > 0 && la->nnodes_line > 0)
		set_launch_int(c, MCINIT_F_nnodes, la->nnodes,
		               at(base, la->nnodes_file, la->nnodes_line, la->nnodes_col), d);
	if (la->nproc_per_node > 0 && la->nproc_line > 0)
		set_launch_int(c, MCINIT_F_nproc_per_node, la->nproc_per_node,
		               at(base, la->nproc_file, la->nproc_line, la->nproc_col), d);
	if (la->master_addr != NULL) {
		struct mcinit_loc l = at(base, la->addr_file, la->addr_line, la->addr_col);
		json_t *j = json_string(la->master_addr);

		if (j != NULL)
			mcinit_config_set_json(c, MCINIT_F_master_addr, j, MCINIT_ORIG_FILE, &l, d);
		json_decref(j);
	}
	if (la->master_port > 0)
		set_launch_int(c, MCINIT_F_master_port, la->master_port,
		               at(base, la->port_file, la->port_line, la->port_col), d);
}

/* '99,1,0' with its quotes: bash does not re-read quotes inside a value. */
static void
warn_quotes(const struct mcinit_shword *w, struct mcinit_loc l, struct mcinit_diags *d)
{
	struct mcinit_diag *g =
	    mcinit_diag_add(d, MCINIT_WARNING, "MC004", &l,
	                    "the word %s keeps its quote characters: they are part of the value "
	                    "of %s, and bash does not read quotes inside a variable's value",
	                    w->text, w->var ? w->var : "a variable");
	mcinit_diag_hint(g, "drop the inner quotes, or make the flag and its value two array "
	                    "elements");
}

/* The entry point of the script the flags follow (`torchrun ...
 * pretrain_bert.py`), before its flags are parsed: Megatron's parser for
 * that script is the one that accepts or rejects them.  --entry-point wins;
 * a script of no known entry point keeps the current one.  Said only when
 * it is not the default, whose flags every script accepts. */
static void
take_entry(struct mcinit_config *c, const struct mcinit_shscan *sc, const struct mcinit_loc *base,
           struct mcinit_diags *d)
{
	unsigned e;
	struct mcinit_loc l;

	if (c->mentry_fixed || sc->script == NULL ||
	    (e = mcinit_mentry_of_script(sc->script, c->mversion)) == 0 || e == c->mentry)
		return;
	c->mentry = e;
	if (e == mcinit_mentry_default())
		return;
	l = at(base, sc->script_file, sc->script_line, sc->script_col);
	mcinit_diag_hint(mcinit_diag_add(d, MCINIT_NOTE, "MC009", &l,
	                                 "launch script: %s is Megatron-LM's %s entry point: its "
	                                 "flags and defaults apply",
	                                 sc->script, mcinit_mentry_name(e)),
	                 "--entry-point NAME chooses another");
}

/* A script that launches several times: the launch c->script_launch asks
 * for (the first when 0), said at its launcher's place. */
static const struct mcinit_shscan *
pick_launch(struct mcinit_config *c, const struct mcinit_shscan *sc, const struct mcinit_loc *base,
            struct mcinit_diags *d)
{
	size_t k = c->script_launch > 0 ? (size_t)c->script_launch : 1;
	const struct mcinit_shscan *s;
	struct mcinit_loc l;

	if (sc->nlaunches < 2)
		return sc;
	if (sc->nlaunches > c->script_nlaunches)
		c->script_nlaunches = sc->nlaunches;
	if (k > sc->nlaunches)
		return sc;
	s = &sc->launches[k - 1];
	l = s->launch.line > 0 ? at(base, s->launch.file, s->launch.line, s->launch.col)
	                       : at(base, s->script_file, s->script_line, s->script_col);
	if (c->script_launch > 0)
		mcinit_diag_add(d, MCINIT_NOTE, "MC009", &l,
		                "launch script: launch %zu of %zu (%s %s), checked on its own", k,
		                sc->nlaunches, s->argc > 0 ? s->argv[0] : "", s->script);
	else
		mcinit_diag_hint(mcinit_diag_add(d, MCINIT_NOTE, "MC009", &l,
		                                 "launch script: it launches %zu times; the first "
		                                 "launch is checked",
		                                 sc->nlaunches),
		                 "mcinit validate checks each launch on its own");
	return s;
}

/* See mcinit_config_script_memo. */
static _Thread_local struct {
	int hold, have;
	char *path, *args; /* args NULL: none */
	struct mcinit_shscan sc;
} memo;

static void
memo_forget(void)
{
	free(memo.path);
	free(memo.args);
	mcinit_shscan_destroy(&memo.sc);
	memo.path = memo.args = NULL;
	memo.have = 0;
}

void
mcinit_config_script_memo(int hold)
{
	memo_forget();
	memo.hold = hold != 0;
}

static int
memo_is(const char *path, const char *args)
{
	return memo.hold && memo.have && strcmp(memo.path, path) == 0 &&
	       (memo.args == NULL ? args == NULL : args != NULL && strcmp(memo.args, args) == 0);
}

int
mcinit_config_load_script(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                          struct mcinit_err *err)
{
	struct mcinit_shscan sc = {0};
	const struct mcinit_shscan *s;
	struct mcinit_loc *base = NULL, last = {0}, *locs = NULL;
	unsigned char *flags = NULL;
	char **words = NULL;
	size_t len, i;
	char *text = NULL;
	int rc = -1;

	int from_memo = memo_is(path, c->script_args);

	if (from_memo) { /* the next launch of the same script: given back at out */
		sc = memo.sc;
		memo.sc = (struct mcinit_shscan){0};
		memo.have = 0;
	} else {
		if ((text = mcinit_read_file(path, &len, err)) == NULL)
			return -1;
		if (mcinit_shscan_parse_file(text, len, path, c->script_args, &sc, err) < 0) {
			mcinit_err_locate(err, path);
			goto out;
		}
	}
	base = mcx_xcalloc(sc.nfiles + 1, sizeof *base);
	base[0] = mcinit_config_source(c, path);
	for (i = 0; i < sc.nfiles; i++) /* the files it reads, after it */
		base[i + 1] = mcinit_config_source(c, sc.files[i]);
	if (sc.script == NULL && sc.nwords == 0) {
		struct mcinit_loc l = at(base, 0, 0, 0);

		c->scripts_unlaunched++;
		/* files not read, bounds that stopped the reading: why none
		 * was found */
		for (i = 0; i < sc.nnotes; i++)
			if (sc.notes[i].warn || sc.notes[i].bound) {
				struct mcinit_loc w =
				    at(base, sc.notes[i].file, sc.notes[i].line, sc.notes[i].col);

				mcinit_diag_add(d, sc.notes[i].warn ? MCINIT_WARNING : MCINIT_NOTE,
				                "MC009", &w, "launch script: %s", sc.notes[i].msg);
			}
		mcinit_diag_hint(
		    mcinit_diag_add(d, MCINIT_WARNING, "MC009", &l,
		                    "launch script: no launch found (no command runs a "
		                    "*.py file, and no array or string holds a --flag): "
		                    "nothing in it was checked"),
		    "a launch in a file mcinit cannot read, or run by a program other than "
		    "bash, is not found: validate the script that launches, or pass the flags "
		    "after `--`");
		rc = 0;
		goto out;
	}
	s = pick_launch(c, &sc, base, d);
	if (s->nwords > MCINIT_MAX_SCRIPT_WORDS) {
		mcinit_err_set(err, MCINIT_E_PARSE,
		               "%s: %zu words, more than the %d mcinit reads from a launch script: "
		               "not read",
		               path, s->nwords, MCINIT_MAX_SCRIPT_WORDS);
		goto out;
	}
	for (i = 0; i < s->nnotes; i++) {
		struct mcinit_loc l = at(base, s->notes[i].file, s->notes[i].line, s->notes[i].col);

		mcinit_diag_add(d, s->notes[i].warn ? MCINIT_WARNING : MCINIT_NOTE, "MC009", &l,
		                "launch script: %s", s->notes[i].msg);
	}
	c->flags_partial |= s->partial != 0;
	take_env(c, s, base);
	take_launch(c, &s->launch, base, d);
	take_entry(c, s, base, d);
	words = mcx_xcalloc(s->nwords, sizeof *words);
	locs = mcx_xcalloc(s->nwords, sizeof *locs);
	flags = mcx_xcalloc(s->nwords, 1);
	for (i = 0; i < s->nwords; i++) {
		words[i] = s->words[i].text;
		flags[i] = (s->words[i].opaque ? MCINIT_WORD_OPAQUE : 0) |
		           (s->words[i].resplit ? MCINIT_WORD_RESPLIT : 0) |
		           (s->words[i].unread ? MCINIT_WORD_UNREAD : 0) |
		           (s->words[i].args ? MCINIT_WORD_ARGS : 0);
		c->flags_unread |= s->words[i].unread != 0;
		locs[i] = at(base, s->words[i].file, s->words[i].line, s->words[i].col);
		/* once per place: "${A[@]}" and ${A[@]} of one array are one mistake */
		if (s->words[i].quotes &&
		    (i == 0 || locs[i].line != last.line || locs[i].col != last.col))
			warn_quotes(&s->words[i], locs[i], d);
		if (s->words[i].quotes)
			last = locs[i];
	}
	mcinit_config_apply_flags(c, words, locs, flags, s->nwords, d);
	rc = 0;
out:
	free(flags);
	free(words);
	free(locs);
	free(base);
	if (memo.hold && sc.nlaunches >= 2) { /* kept for the next launch */
		if (!from_memo) {
			memo_forget();
			memo.path = mcx_xstrdup(path);
			memo.args = c->script_args != NULL ? mcx_xstrdup(c->script_args) : NULL;
		}
		memo.sc = sc;
		memo.have = 1;
	} else {
		mcinit_shscan_destroy(&sc);
	}
	free(text);
	return rc;
}
