/* config-defaults.c — the fields' defaults as values: Megatron-LM's by
 * release (the DEFAULT column and the flags' parser defaults), converted
 * once per process, and Megatron-Bridge's, which a ConfigContainer starts
 * from.  See config.h. */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Whether t is a JSON number with a fraction or an exponent (0.1, 1e-05),
 * which jansson reads with strtod as well. */
static bool
is_json_real(const char *t)
{
	bool real = false;

	t += *t == '-';
	if (*t == '0')
		t++;
	else if (isdigit((unsigned char)*t))
		t += strspn(t, "0123456789");
	else
		return false;
	if (*t == '.') {
		if (!isdigit((unsigned char)t[1]))
			return false;
		t += 1 + strspn(t + 1, "0123456789");
		real = true;
	}
	if (*t == 'e' || *t == 'E') {
		t += 1 + (t[1] == '+' || t[1] == '-');
		if (!isdigit((unsigned char)*t))
			return false;
		t += strspn(t, "0123456789");
		real = true;
	}
	return real && *t == '\0';
}

/* A default's JSON text as a value; the common literals without a parser,
 * since a config starts from ~1200 of them. */
static json_t *
default_json(const char *t)
{
	double d;
	char *end;
	long long n;
	size_t len;

	/* (the first letter first: most defaults are numbers) */
	if (t[0] == 'n' && strcmp(t, "null") == 0)
		return json_null();
	if (t[0] == 't' && strcmp(t, "true") == 0)
		return json_true();
	if (t[0] == 'f' && strcmp(t, "false") == 0)
		return json_false();
	errno = 0;
	n = strtoll(t, &end, 10);
	if (end != t && *end == '\0' && errno == 0)
		return json_integer(n);
	if (is_json_real(t) && !isinf(d = strtod(t, NULL)))
		return json_real(d); /* (jansson refuses an overflow) */
	len = strlen(t);
	if (len >= 2 && t[0] == '"' && t[len - 1] == '"' && strpbrk(t + 1, "\\\"") == t + len - 1)
		return json_stringn(t + 1, len - 2);
	return json_loads(t, JSON_DECODE_ANY, NULL);
}

/* The defaults that differ by release from the DEFAULT column: a flag's
 * parser default on the releases where the field's first flag with its
 * dest has another (generated from the flag table), in field order. */
static const struct {
	enum mcinit_field f;
	unsigned versions;
	const char *text;
} vdefs[] = {
#define MCINIT_FIELD_VDEF(id, versions, text) {MCINIT_F_##id, versions, text},
#include "config/fields.inc"
#undef MCINIT_FIELD_VDEF
};

/* Field f's default text in release v, its rows of vdefs from lo on. */
static const char *
vdef_text(size_t lo, enum mcinit_field f, unsigned v)
{
	for (; lo < sizeof vdefs / sizeof vdefs[0] && vdefs[lo].f == f; lo++)
		if (vdefs[lo].versions & v)
			return vdefs[lo].text;
	return mcinit_field_s(f, def);
}

const char *
mcinit_field_default_text(enum mcinit_field f, unsigned v)
{
	size_t lo = 0, hi = sizeof vdefs / sizeof vdefs[0];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vdefs[mid].f < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return vdef_text(lo, f, v);
}

/* The default null, true or false of field f as mcinit_value_from_json
 * makes it, into *out (zeroed before), without a JSON value or a
 * conversion: 790 of the 1,260 defaults are one of these three, and a
 * config's defaults were a sixth of a validate's instructions.  Only where
 * every alternative of f's type is one whose conv_scalar takes the literal
 * exactly when its base is null (for null) or bool (for true and false):
 * then the first such alternative that is no list decides, and with none
 * the conversion fails, which convert_default makes null too.  False (and
 * *out untouched) for any other text or type. */
static bool
literal_default(enum mcinit_field f, const char *def, struct mcinit_value *out)
{
	const struct mcinit_type *t;
	enum mcinit_base want;
	bool match = false;
	int i;

	/* (the first letter first: most defaults are numbers) */
	if (def[0] == 'n' && strcmp(def, "null") == 0)
		want = MCINIT_B_NULL;
	else if ((def[0] == 't' && strcmp(def, "true") == 0) ||
	         (def[0] == 'f' && strcmp(def, "false") == 0))
		want = MCINIT_B_BOOL;
	else
		return false;
	t = mcinit_field_type(f);
	for (i = 0; i < t->nalt; i++) {
		switch (t->alt[i].base) {
		case MCINIT_B_NULL:
		case MCINIT_B_BOOL:
		case MCINIT_B_INT:
		case MCINIT_B_FLOAT:
		case MCINIT_B_STR:
		case MCINIT_B_ENUM:
			break;
		default:
			/* (any takes every literal; the others are not worth
			 * the reasoning) */
			if (!t->alt[i].list)
				return false;
		}
		if (!match && !t->alt[i].list && t->alt[i].base == want)
			match = true;
	}
	if (match && want == MCINIT_B_BOOL) {
		out->kind = MCINIT_V_BOOL;
		out->i = def[0] == 't';
	}
	return true; /* MCINIT_V_NULL is the zeroed value */
}

/* Default text def of field f as a value into *out (zeroed before). */
static void
convert_default(enum mcinit_field f, const char *def, struct mcinit_value *out)
{
	json_t *j;
	const char *code;
	char *why = NULL;

	if (def != NULL && literal_default(f, def, out))
		return;
	j = def ? default_json(def) : NULL;
	/* A default the type does not take is a bug of the generator or of
	 * schema.def, which test-config's every-default property catches; at
	 * run time the field starts null. */
	if (j != NULL && mcinit_value_from_json(f, j, out, &code, &why) < 0) {
		free(why);
		memset(out, 0, sizeof *out);
	}
	json_decref(j);
}

/* The defaults of one version, converted once per process.  Threads that
 * start jobs at once share the table, hence the lock around its filling. */
static const struct mcinit_value *
defaults_of(unsigned v)
{
	static struct mcinit_value *tmpl[MCINIT_MV_COUNT];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct mcinit_value *t;
	size_t k;
	int vi, i;

	for (vi = 0; vi < MCINIT_MV_COUNT && mcinit_mversion_at(vi) != v; vi++)
		;
	if (vi == MCINIT_MV_COUNT)
		vi = 0;
	pthread_mutex_lock(&lock);
	t = tmpl[vi];
	if (t != NULL)
		goto out;
	t = mcx_xcalloc(MCINIT_F_COUNT, sizeof *t);
	for (i = 0, k = 0; i < MCINIT_F_COUNT; i++) {
		/* vdefs is in field order: walked beside the fields */
		while (k < sizeof vdefs / sizeof vdefs[0] && vdefs[k].f < (enum mcinit_field)i)
			k++;
		convert_default(i, vdef_text(k, i, v), &t[i]);
	}
	tmpl[vi] = t;
out:
	pthread_mutex_unlock(&lock);
	return t;
}

const struct mcinit_value *
mcinit_config_defaults(unsigned v)
{
	return defaults_of(v);
}

int
mcinit_field_default(enum mcinit_field f, unsigned v, struct mcinit_value *out, char **why)
{
	const char *def = mcinit_field_default_text(f, v);
	json_t *j = def ? default_json(def) : NULL;
	const char *code;
	int rc = 0;

	memset(out, 0, sizeof *out);
	*why = NULL;
	if (j != NULL)
		rc = mcinit_value_from_json(f, j, out, &code, why);
	json_decref(j);
	return rc;
}

static const struct {
	enum mcinit_field f;
	const char *def;
} bridge_defaults[] = {
#define MCINIT_FIELD_BDEF(id, def) {MCINIT_F_##id, def},
#include "config/fields.inc"
#undef MCINIT_FIELD_BDEF
};

#define NBRIDGE_DEFAULTS (sizeof bridge_defaults / sizeof bridge_defaults[0])

/* Bridge's defaults as values, converted once per process (every Bridge
 * config starts from ~800 of them); ok: the conversion took it (a default
 * mcinit's type or range refuses, num_layers 0, is left as it is: Bridge
 * fails on it too). */
static struct {
	bool ok;
	struct mcinit_value v;
} bridge_values[NBRIDGE_DEFAULTS];
static pthread_once_t bridge_values_once = PTHREAD_ONCE_INIT;

static void
convert_bridge_defaults(void)
{
	size_t i;

	for (i = 0; i < NBRIDGE_DEFAULTS; i++) {
		json_t *j = default_json(bridge_defaults[i].def);
		const char *code;
		char *why = NULL, *note = NULL;

		bridge_values[i].ok =
		    j != NULL &&
		    mcinit_value_from_json_py(bridge_defaults[i].f, j, true, &bridge_values[i].v,
		                              &code, &why, &note) == 0;
		free(why);
		free(note);
		json_decref(j);
	}
}

void
mcinit_config_bridge_container(struct mcinit_config *c)
{
	size_t i;

	if (c->bridge)
		return;
	c->bridge = true;
	pthread_once(&bridge_values_once, convert_bridge_defaults);
	for (i = 0; i < NBRIDGE_DEFAULTS; i++) {
		enum mcinit_field f = bridge_defaults[i].f;

		if (c->origin[f] == MCINIT_ORIG_DEFAULT && bridge_values[i].ok) {
			mcinit_value_clear(&c->val[f]);
			mcinit_value_copy(&c->val[f], &bridge_values[i].v);
		}
	}
}

void
mcinit_config_reset_section(struct mcinit_config *c, const char *sec)
{
	const struct mcinit_value *d = mcinit_config_defaults(c->mversion);
	size_t i;
	int f;

	if (c->bridge)
		pthread_once(&bridge_values_once, convert_bridge_defaults);
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		if (strcmp(mcinit_field_s(f, section), sec) != 0)
			continue;
		mcinit_value_clear(&c->val[f]);
		mcinit_value_copy(&c->val[f], &d[f]);
		for (i = 0; c->bridge && i < NBRIDGE_DEFAULTS; i++)
			if (bridge_defaults[i].f == (enum mcinit_field)f && bridge_values[i].ok) {
				mcinit_value_clear(&c->val[f]);
				mcinit_value_copy(&c->val[f], &bridge_values[i].v);
			}
		c->origin[f] = MCINIT_ORIG_DEFAULT;
		c->invalid[f] = c->pyval[f] = false;
		c->runtime[f] = false;
		mcinit_cfg_drop_pending(c, f);
		memset(&c->loc[f], 0, sizeof c->loc[f]);
	}
	json_object_del(c->extras, sec);
}
