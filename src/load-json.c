/*
 * load-json.c — JSON config files, and the walker over a config tree that
 * YAML files (load-yaml.c) share.  jansson parses; a one-pass position
 * index (jpos.c) maps every key and value back to line:column so that every
 * diagnostic found after parsing can point at what the user wrote.
 */
#include "config.h"

#include <string.h>
#include <sysexits.h>

#include "jpos.h"

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
	struct mcinit_loc base; /* source name and order */
};

/* Position of /a/b (key when want_key, else value). */
static struct mcinit_loc
where(const struct jctx *x, const char *a, const char *b, bool want_key)
{
	struct mcinit_buf ptr = {0};
	struct mcinit_pos kp = {0}, vp = {0};
	struct mcinit_loc l = x->base;

	if (a != NULL)
		mcinit_jpos_append_token(&ptr, a);
	if (b != NULL)
		mcinit_jpos_append_token(&ptr, b);
	if (mcinit_jpos_lookup(x->jp, ptr.len ? mcinit_buf_cstr(&ptr) : "", &kp, &vp) == 0) {
		struct mcinit_pos *p = want_key && kp.line > 0 ? &kp : &vp;

		l.line = p->line;
		l.col = p->col;
	}
	mcinit_buf_free(&ptr);
	return l;
}

static const char *const section_names[] = {"model", "train", "validation", "rng",
                                            "dist",  "ddp",   "launch",     "env_vars"};
#define NSECTIONS (sizeof section_names / sizeof section_names[0])

static void
unknown_key(struct jctx *x, const char *sec, const char *key)
{
	const char *cands[MCINIT_F_COUNT], *pick;
	struct mcinit_loc l = where(x, sec, key, true);
	struct mcinit_diag *g;
	size_t n = 0;
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++)
		if (strcmp(mcinit_fields[i].section, sec) == 0)
			cands[n++] = mcinit_fields[i].name;
	pick = mcinit_suggest(key, cands, n);
	g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", &l, "unknown key '%s' in section '%s'",
	                    key, sec);
	if (pick != NULL) {
		mcinit_diag_hint(g, "did you mean `%s`?", pick);
		return;
	}
	/* Right name, wrong section is a common slip when moving between
	 * Megatron-LM flags (flat) and Bridge configs (sectioned). */
	i = mcinit_field_lookup(NULL, key);
	if (i >= 0)
		mcinit_diag_hint(g, "`%s` belongs in section \"%s\"", key,
		                 mcinit_fields[i].section);
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
		if (json_is_string(v) || json_is_number(v) || json_is_boolean(v)) {
			json_object_set(x->c->env_vars, k, v);
			continue;
		}
		struct mcinit_loc l = where(x, "env_vars", k, false);

		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l,
		                "env_vars.%s: expected a string, number or boolean", k);
	}
}

static void
load_section(struct jctx *x, const char *sec, json_t *obj)
{
	const char *k;
	json_t *v;

	if (!json_is_object(obj)) {
		struct mcinit_loc l = where(x, sec, NULL, false);

		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l, "section '%s': expected an object",
		                sec);
		return;
	}
	json_object_foreach(obj, k, v)
	{
		int f = mcinit_field_lookup(sec, k);
		struct mcinit_loc l = where(x, sec, k, false);

		if (is_meta_key(k))
			continue;
		if (f < 0 && strcmp(sec, "dist") == 0 && strcmp(k, "lazy_init") == 0) {
			struct mcinit_loc kl = where(x, sec, k, true);

			mcinit_diag_add(x->d, MCINIT_NOTE, "MC007", &kl,
			                "dist.lazy_init is Megatron-Bridge's name for "
			                "dist.lazy_mpu_init; read as that");
			f = MCINIT_F_lazy_mpu_init;
		}
		if (f < 0) {
			unknown_key(x, sec, k);
			continue;
		}
		mcinit_config_set_json(x->c, f, v, MCINIT_ORIG_FILE, &l, x->d);
	}
}

static void
load_root(struct jctx *x, json_t *root)
{
	const char *k;
	json_t *v;
	size_t i;

	if (!json_is_object(root)) {
		struct mcinit_loc l = where(x, NULL, NULL, false);

		mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", &l,
		                "expected a JSON object with sections (model, train, dist, ...)");
		return;
	}
	json_object_foreach(root, k, v)
	{
		if (is_meta_key(k))
			continue;
		for (i = 0; i < NSECTIONS && strcmp(section_names[i], k) != 0; i++)
			;
		if (i == NSECTIONS) {
			struct mcinit_loc l = where(x, k, NULL, true);
			const char *pick = mcinit_suggest(k, section_names, NSECTIONS);
			struct mcinit_diag *g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", &l,
			                                        "unknown section '%s'", k);

			if (pick != NULL)
				mcinit_diag_hint(g, "did you mean `%s`?", pick);
			else
				mcinit_diag_hint(g, "sections are model, train, validation, rng, "
				                    "dist, ddp, launch and env_vars");
		} else if (strcmp(k, "env_vars") == 0) {
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

void
mcinit_config_load_tree(struct mcinit_config *c, struct mcinit_loc base, json_t *root,
                        struct mcinit_jpos *jp, struct mcinit_diags *d)
{
	struct jctx x = {c, d, jp, base};

	load_root(&x, root);
}

int
mcinit_config_load_json_text(struct mcinit_config *c, const char *name, const char *text,
                             size_t len, struct mcinit_diags *d, struct mcinit_err *err)
{
	struct jctx x = {c, d, NULL, mcinit_config_source(c, name)};
	json_error_t je;
	json_t *root;
	int rc = -1;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL && strstr(je.text, "duplicate object key") == NULL) {
		mcinit_err_set(err, EX_DATAERR, "%s:%d:%d: malformed JSON: %s", name, je.line,
		               je.column, je.text);
		goto out;
	}
	x.jp = mcinit_jpos_new(text, len, err);
	if (x.jp == NULL)
		goto out;
	if (root == NULL) {
		report_duplicate(&x, &je);
		/* Keep checking the rest: the last copy wins, as in Python. */
		root = json_loadb(text, len, 0, &je);
		if (root == NULL) {
			mcinit_err_set(err, EX_DATAERR, "%s:%d:%d: malformed JSON: %s", name,
			               je.line, je.column, je.text);
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
