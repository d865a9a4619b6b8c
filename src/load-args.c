/*
 * load-args.c — inputs made of words: `section.field=value` overrides,
 * Megatron-LM flags after `--`, and the flags found in launch scripts.
 *
 * How many words a flag takes is a per-version fact from the Megatron-LM
 * flag table (mflags.c); which field it sets comes from schema.def.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "shscan.h"

/* ---- overrides ---- */

static const char *
suggest_key(const char *key, char *buf, size_t len)
{
	char *keys[MCINIT_F_COUNT];
	const char *pick;
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++)
		keys[i] =
		    mcinit_xasprintf("%s.%s", mcinit_fields[i].section, mcinit_fields[i].name);
	pick = mcinit_suggest(key, (const char *const *)keys, MCINIT_F_COUNT);
	if (pick != NULL)
		snprintf(buf, len, "%s", pick);
	for (i = 0; i < MCINIT_F_COUNT; i++)
		free(keys[i]);
	return pick ? buf : NULL;
}

void
mcinit_config_apply_override(struct mcinit_config *c, const char *kv, int argi,
                             struct mcinit_diags *d)
{
	struct mcinit_loc l = mcinit_config_source(c, "override");
	const char *eq = strchr(kv, '='), *dot;
	char sec[64], name[128], buf[256];
	json_t *j;
	int f;

	l.line = argi;
	dot = memchr(kv, '.', eq ? (size_t)(eq - kv) : 0);
	if (eq == NULL || dot == NULL || dot - kv >= (long)sizeof sec ||
	    eq - dot - 1 >= (long)sizeof name) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC003", &l,
		                "'%s' is not an override: write section.field=value", kv);
		return;
	}
	snprintf(sec, sizeof sec, "%.*s", (int)(dot - kv), kv);
	snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
	f = mcinit_field_lookup(sec, name);
	if (f < 0 && strcmp(sec, "env_vars") == 0) {
		json_object_set_new(c->env_vars, name, json_string(eq + 1));
		return;
	}
	if (f < 0) {
		struct mcinit_diag *g;

		snprintf(buf, sizeof buf, "%s.%s", sec, name);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC003", &l, "unknown key '%s'", buf);
		if (suggest_key(buf, buf, sizeof buf))
			mcinit_diag_hint(g, "did you mean `%s`?", buf);
		return;
	}
	/* JSON when it parses (8, true, null, [1,2], "x"), else a bare string. */
	j = json_loads(eq + 1, JSON_DECODE_ANY, NULL);
	if (j == NULL)
		j = json_string(eq + 1);
	if (j == NULL) {
		mcinit_diag_add(d, MCINIT_ERROR, "MC004", &l, "%s: value is not valid UTF-8", kv);
		return;
	}
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
};

static bool
is_opaque(const struct fctx *x, size_t i)
{
	return x->opaque != NULL && x->opaque[i];
}

static void
add_unchecked(struct mcinit_config *c, const char *flag, const struct mcinit_loc *l)
{
	size_t k;

	for (k = 0; k < c->nunchecked; k++)
		if (strcmp(c->unchecked[k], flag) == 0)
			return;
	if (c->nunchecked == 0)
		c->unchecked_loc = *l;
	c->unchecked = mcinit_xrealloc(c->unchecked, (c->nunchecked + 1) * sizeof *c->unchecked);
	c->unchecked[c->nunchecked++] = mcinit_xstrdup(flag);
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
	const struct mcinit_mflag *m = mcinit_mflag_find(flag, v, NULL);
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

/* Appends a word to a list value; drops the list (to NULL) when a word
 * cannot be a JSON string. */
static void
list_add(json_t **arr, int f, const char *w)
{
	json_t *j;

	if (*arr == NULL)
		return;
	j = word_json(f, w);
	if (j == NULL) {
		json_decref(*arr);
		*arr = NULL;
		return;
	}
	json_array_append_new(*arr, j);
}

static void
set_field(struct fctx *x, int f, json_t *j, const struct mcinit_loc *l)
{
	if (f >= 0)
		mcinit_config_set_json(x->c, f, j, MCINIT_ORIG_ARGV, l, x->d);
	json_decref(j);
}

static void
unknown_flag(struct fctx *x, const char *name, const struct mcinit_loc *l)
{
	const struct mcinit_mflag *any = mcinit_mflag_find_any(name);
	struct mcinit_diag *g;
	const char *pick;
	char vers[64];

	if (any != NULL) {
		mcinit_mversion_list(any->versions, vers, sizeof vers);
		g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", l,
		                    "%s is not a flag of Megatron-LM %s (it exists in %s)", name,
		                    mcinit_mversion_name(x->c->mversion), vers);
		mcinit_diag_hint(g, "drop it, or check --megatron-version");
	} else {
		g = mcinit_diag_add(x->d, MCINIT_ERROR, "MC003", l, "unknown Megatron-LM flag %s",
		                    name);
		pick = mcinit_mflag_suggest(name, x->c->mversion);
		if (pick != NULL)
			mcinit_diag_hint(g, "did you mean `%s`?", pick);
	}
	/* Skip its would-be values so they do not pile up as stray words. */
	x->i += take_values(x, -1);
}

static void
one_flag(struct fctx *x)
{
	const char *word = x->w[x->i];
	const struct mcinit_loc *l = &x->locs[x->i];
	const char *eq = strchr(word, '=');
	char *name = eq ? strndup(word, (size_t)(eq - word)) : mcinit_xstrdup(word);
	const char *inl = eq ? eq + 1 : NULL;
	int neg, f;
	const struct mcinit_mflag *m;

	x->i++;
	m = mcinit_mflag_find(name, x->c->mversion, &neg);
	if (m == NULL) {
		unknown_flag(x, name, l);
		goto out;
	}
	f = mcinit_field_by_flag(m->flag, NULL);
	if (f < 0)
		add_unchecked(x->c, name, l);
	switch (m->kind) {
	case MCINIT_MK_LEGACY_TYPE_BOOL:
		if (inl == NULL && x->i < x->n && !is_flag_word(x->w[x->i]))
			inl = x->w[x->i++];
		set_field(x, f, json_boolean(legacy_bool(x, name, inl, l)), l);
		break;
	case MCINIT_MK_STORE_TRUE:
	case MCINIT_MK_STORE_FALSE:
	case MCINIT_MK_BOOLEAN_OPTIONAL:
		/* A flag that older versions declared type=bool still gets the
		 * trap's diagnostics when a value follows it. */
		if (inl == NULL && mcinit_mflag_is_legacy_bool(name) && x->i < x->n &&
		    mcinit_bool_word(x->w[x->i]) >= 0)
			inl = x->w[x->i++];
		if (inl != NULL && mcinit_mflag_is_legacy_bool(name)) {
			set_field(x, f, json_boolean(legacy_bool(x, name, inl, l)), l);
			break;
		}
		if (inl != NULL) {
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
			                "%s takes no value (got '%s')", name, inl);
			break;
		}
		set_field(x, f,
		          json_boolean(m->kind == MCINIT_MK_STORE_TRUE ||
		                       (m->kind == MCINIT_MK_BOOLEAN_OPTIONAL && !neg)),
		          l);
		break;
	case MCINIT_MK_VALUE:
		if (inl == NULL && take_values(x, 1) == 1) {
			inl = x->w[x->i++];
			/* A value a script computes at run time ($1, $(...)) is
			 * unknown here: the scanner said so; do not guess. */
			if (is_opaque(x, x->i - 1))
				f = -1;
		} else if (inl != NULL && is_opaque(x, x->i - 1)) {
			f = -1;
		}
		if (inl == NULL) {
			mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l, "%s expects a value", name);
			break;
		}
		if (f >= 0)
			set_field(x, f, word_json(f, inl), l);
		break;
	case MCINIT_MK_LIST: {
		size_t k = inl ? 0 : take_values(x, m->nargs), nwords = k + (inl != NULL), q;
		json_t *arr;

		for (q = 0; q < k; q++)
			if (is_opaque(x, x->i + q))
				f = -1; /* a run-time value: nothing to check */
		if (nwords == 0 && m->nargs != -2) {
			if (m->nargs > 0)
				mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
				                "%s expects exactly %d values", name, m->nargs);
			else
				mcinit_diag_add(x->d, MCINIT_ERROR, "MC004", l,
				                "%s expects at least one value", name);
			break;
		}
		if (f < 0) {
			x->i += k;
			break;
		}
		arr = json_array();
		if (inl != NULL)
			list_add(&arr, f, inl);
		for (q = 0; q < k; q++)
			list_add(&arr, f, x->w[x->i + q]);
		x->i += k;
		set_field(x, f, arr, l);
		break;
	}
	}
out:
	free(name);
}

void
mcinit_config_apply_flags(struct mcinit_config *c, char *const *words,
                          const struct mcinit_loc *locs, const unsigned char *opaque, size_t n,
                          struct mcinit_diags *d)
{
	struct fctx x = {c, d, words, locs, opaque, n, 0};

	while (x.i < x.n) {
		if (is_flag_word(words[x.i])) {
			one_flag(&x);
			continue;
		}
		mcinit_diag_add(d, MCINIT_ERROR, "MC003", &locs[x.i],
		                "unexpected word '%s': not a flag, and no flag before it takes a "
		                "value",
		                words[x.i]);
		x.i++;
	}
}

/* ---- launch scripts ---- */

int
mcinit_config_load_script(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                          struct mcinit_err *err)
{
	struct mcinit_shscan sc = {0};
	struct mcinit_loc base, *locs = NULL;
	unsigned char *opaque = NULL;
	char **words = NULL;
	size_t len, i;
	char *text = mcinit_read_file(path, &len, err);
	int rc = -1;

	if (text == NULL)
		return -1;
	if (mcinit_shscan_parse(text, len, &sc, err) < 0) {
		char msg[sizeof err->msg];

		snprintf(msg, sizeof msg, "%s", err->msg);
		mcinit_err_set(err, EX_DATAERR, "%s:%s", path, msg);
		goto out;
	}
	if (sc.nwords > MCINIT_MAX_SCRIPT_WORDS) {
		mcinit_err_set(err, EX_DATAERR,
		               "%s: %zu words, more than the %d mcinit reads from a launch script: "
		               "not read",
		               path, sc.nwords, MCINIT_MAX_SCRIPT_WORDS);
		goto out;
	}
	base = mcinit_config_source(c, path);
	for (i = 0; i < sc.nnotes; i++) {
		struct mcinit_loc l = base;

		l.line = sc.notes[i].line;
		l.col = sc.notes[i].col;
		mcinit_diag_add(d, MCINIT_NOTE, "MC009", &l, "launch script (best effort): %s",
		                sc.notes[i].msg);
	}
	words = mcinit_xcalloc(sc.nwords, sizeof *words);
	locs = mcinit_xcalloc(sc.nwords, sizeof *locs);
	opaque = mcinit_xcalloc(sc.nwords, 1);
	for (i = 0; i < sc.nwords; i++) {
		words[i] = sc.words[i].text;
		opaque[i] = sc.words[i].opaque != 0;
		locs[i] = base;
		locs[i].line = sc.words[i].line;
		locs[i].col = sc.words[i].col;
	}
	mcinit_config_apply_flags(c, words, locs, opaque, sc.nwords, d);
	rc = 0;
out:
	free(opaque);
	free(words);
	free(locs);
	mcinit_shscan_destroy(&sc);
	free(text);
	return rc;
}
