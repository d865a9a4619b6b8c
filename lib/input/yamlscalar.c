/* yamlscalar.c — see yamlscalar.h: a scalar's text typed by PyYAML's
 * resolvers and constructors (YAML 1.1) with OmegaConf's float resolver
 * added, and a note where that reading surprises. */
#include "input/yamlscalar.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- notes ---- */

void
mcinit_ynote(struct mcinit_ytyper *ty, enum mcinit_severity sev, const char *code,
             struct mcinit_pos p, const char *hint, const char *fmt, ...)
{
	struct mcinit_yaml *y = ty->out;
	struct mcinit_yaml_note *n;
	va_list ap;

	MCINIT_GROW(y->notes, ty->capnotes, y->nnotes + 1);
	n = &y->notes[y->nnotes++];
	n->sev = sev;
	snprintf(n->code, sizeof n->code, "%s", code);
	n->line = p.line;
	n->col = p.col;
	va_start(ap, fmt);
	n->msg = mcx_xvasprintf(fmt, ap);
	va_end(ap);
	n->hint = hint ? mcx_xstrdup(hint) : NULL;
}

/* ---- typing plain scalars as OmegaConf's loader does ---- */

static bool
in_words(const char *s, const char *const *w)
{
	for (; *w; w++)
		if (strcmp(s, *w) == 0)
			return true;
	return false;
}

static const char *const null_words[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const true_words[] = {"true", "True", "TRUE", NULL};
static const char *const false_words[] = {"false", "False", "FALSE", NULL};
static const char *const yes_words[] = {"yes", "Yes", "YES", "on", "On", "ON", NULL};
static const char *const no_words[] = {"no", "No", "NO", "off", "Off", "OFF", NULL};

static bool
is_dig(char c, int base)
{
	if (base == 2)
		return c == '0' || c == '1';
	if (base == 8)
		return c >= '0' && c <= '7';
	if (base == 16)
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	return c >= '0' && c <= '9';
}

/* [digits of base, or '_']+ from s; returns the end (s when none). */
static const char *
run_of(const char *s, int base, bool underscores)
{
	while (*s && (is_dig(*s, base) || (underscores && *s == '_')))
		s++;
	return s;
}

static const char *
skip_sign(const char *s)
{
	return *s == '+' || *s == '-' ? s + 1 : s;
}

/* (:[0-5]?[0-9])+ from s; returns the end, or NULL when there is none. */
static const char *
base60_tail(const char *s)
{
	const char *p = s;

	while (*p == ':') {
		const char *q = p + 1;

		if (q[0] >= '0' && q[0] <= '5' && is_dig(q[1], 10))
			q += 2;
		else if (is_dig(q[0], 10))
			q += 1;
		else
			break;
		p = q;
	}
	return p == s ? NULL : p;
}

enum numform { NF_NONE, NF_DEC, NF_BIN, NF_OCT, NF_HEX, NF_B60 };

/* PyYAML's int resolver. */
static enum numform
int_form(const char *s)
{
	const char *p = skip_sign(s), *e;

	if (p[0] == '0' && p[1] == 'b')
		return p[2] && *run_of(p + 2, 2, true) == '\0' ? NF_BIN : NF_NONE;
	if (p[0] == '0' && p[1] == 'x')
		return p[2] && *run_of(p + 2, 16, true) == '\0' ? NF_HEX : NF_NONE;
	if (p[0] == '0' && p[1] == '\0')
		return NF_DEC;
	if (p[0] == '0')
		return *run_of(p + 1, 8, true) == '\0' ? NF_OCT : NF_NONE;
	if (p[0] < '1' || p[0] > '9')
		return NF_NONE;
	e = run_of(p + 1, 10, true);
	if (*e == '\0')
		return NF_DEC;
	e = base60_tail(e);
	return e != NULL && *e == '\0' ? NF_B60 : NF_NONE;
}

/* [eE] sign? digits to the end; sign required when need_sign. */
static bool
exp_tail(const char *p, bool need_sign)
{
	if (*p != 'e' && *p != 'E')
		return false;
	p++;
	if (*p == '+' || *p == '-')
		p++;
	else if (need_sign)
		return false;
	return is_dig(*p, 10) && *run_of(p, 10, false) == '\0';
}

/* [0-9]+(_[0-9]+)* */
static const char *
digits_us(const char *p)
{
	if (!is_dig(*p, 10))
		return NULL;
	for (;;) {
		p = run_of(p, 10, false);
		if (p[0] != '_' || !is_dig(p[1], 10))
			return p;
		p++;
	}
}

/* PyYAML's float resolver. */
static bool
pyyaml_float(const char *s)
{
	const char *p = skip_sign(s), *e;

	if (*p == '.' &&
	    (strcmp(p + 1, "inf") == 0 || strcmp(p + 1, "Inf") == 0 || strcmp(p + 1, "INF") == 0))
		return true;
	if (s[0] == '.' &&
	    (strcmp(s + 1, "nan") == 0 || strcmp(s + 1, "NaN") == 0 || strcmp(s + 1, "NAN") == 0))
		return true;
	if (s[0] == '.') {
		if (!is_dig(s[1], 10))
			return false;
		e = run_of(s + 2, 10, true);
		return *e == '\0' || exp_tail(e, true);
	}
	if (!is_dig(*p, 10))
		return false;
	e = run_of(p + 1, 10, true);
	if (*e == ':') {
		e = base60_tail(e);
		if (e == NULL || *e != '.')
			return false;
		return *run_of(e + 1, 10, true) == '\0';
	}
	if (*e != '.')
		return false;
	e = run_of(e + 1, 10, true);
	return *e == '\0' || exp_tail(e, true);
}

/* The float resolver OmegaConf adds (it takes `1e-4`, `1e5`, `1.5e3`). */
static bool
omegaconf_float(const char *s)
{
	const char *p = skip_sign(s), *e;

	if (s[0] == '.') {
		e = digits_us(s + 1);
		return e != NULL && (*e == '\0' || exp_tail(e, true));
	}
	e = digits_us(p);
	if (e == NULL)
		return false;
	if (*e == '.') {
		e = run_of(e + 1, 10, true);
		return *e == '\0' || exp_tail(e, false);
	}
	return exp_tail(e, false);
}

/* "write S" for s, an OmegaConf float without a dot (`3e-4`, `-1E5`),
 * with PyYAML's float: a ".0" before the exponent. */
static void
dotted_hint(const char *s, char *buf, size_t len)
{
	size_t m = strcspn(s, "eE");

	snprintf(buf, len, "write %.*s.0%.40s", (int)(m < 40 ? m : 40), s, s + m);
}

/* Python's int() of the cleaned text in base b, with overflow check. */
static bool
to_ll(const char *digits, int base, bool neg, long long *out)
{
	char *end;
	unsigned long long u;

	errno = 0;
	u = strtoull(digits, &end, base);
	if (errno != 0 || *end != '\0' || end == digits)
		return false;
	if (!neg && u > (unsigned long long)LLONG_MAX)
		return false;
	if (neg && u > (unsigned long long)LLONG_MAX + 1)
		return false;
	*out = neg ? (long long)(0 - u) : (long long)u;
	return true;
}

/* The text without '_' (what PyYAML's constructors do first). */
static char *
strip_us(const char *s)
{
	char *c = mcx_xmalloc(strlen(s) + 1), *q = c;

	for (; *s; s++)
		if (*s != '_')
			*q++ = *s;
	*q = '\0';
	return c;
}

static bool
build_int(const char *s, enum numform f, long long *out)
{
	char *c = strip_us(s), *p = c;
	bool neg = false, ok = false;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	switch (f) {
	case NF_BIN:
		ok = to_ll(p + 2, 2, neg, out);
		break;
	case NF_HEX:
		ok = to_ll(p + 2, 16, neg, out);
		break;
	case NF_OCT:
		ok = to_ll(p, 8, neg, out);
		break;
	case NF_B60: {
		long long v = 0;
		char *part = p;

		ok = true;
		while (ok && part != NULL) {
			char *colon = strchr(part, ':');
			long long d;

			if (colon)
				*colon = '\0';
			ok = to_ll(part, 10, false, &d) && !__builtin_mul_overflow(v, 60, &v) &&
			     !__builtin_add_overflow(v, d, &v);
			part = colon ? colon + 1 : NULL;
		}
		*out = neg ? -v : v;
		break;
	}
	default:
		ok = to_ll(p, 10, neg, out);
	}
	free(c);
	return ok;
}

static json_t *
build_float(const char *s)
{
	char *c = strip_us(s), *p = c, *end;
	double v, sign = 1;
	json_t *j = NULL;

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	if (strchr(p, ':') != NULL) {
		char *part = p;

		v = 0;
		while (part != NULL) {
			char *colon = strchr(part, ':');

			if (colon)
				*colon = '\0';
			v = v * 60 + strtod(part, NULL);
			part = colon ? colon + 1 : NULL;
		}
	} else if (p[0] == '.' && strcasecmp(p + 1, "inf") == 0) {
		v = INFINITY; /* PyYAML's .inf, .Inf, .INF (pyyaml_float) */
	} else if (p[0] == '.' && strcasecmp(p + 1, "nan") == 0) {
		v = NAN;
	} else {
		v = strtod(p, &end);
		if (*end != '\0')
			goto out;
	}
	/* jansson has no infinity or NaN: those are tagged floats (jpos.h),
	 * which a reader tells from the string 'inf'; a number past the
	 * double range (`1.0e309`) is Python's float('inf') */
	j = mcinit_json_pyfloat(sign * v);
out:
	free(c);
	return j;
}

static void
warn_plain(struct mcinit_ytyper *ty, const char *s, struct mcinit_pos p, enum numform f)
{
	if (in_words(s, yes_words) || in_words(s, no_words)) {
		bool yes = in_words(s, yes_words);

		mcinit_ynote(
		    ty, MCINIT_WARNING, "MC001", p,
		    yes ? "write true (or quote the word if a string is meant)"
		        : "write false (or quote the word if a string is meant)",
		    "`%s` is a YAML 1.1 boolean: Megatron-Bridge's loader (OmegaConf) reads %s, "
		    "a YAML 1.2 reader reads the string \"%s\"",
		    s, yes ? "true" : "false", s);
	} else if (strcmp(s, "y") == 0 || strcmp(s, "Y") == 0 || strcmp(s, "n") == 0 ||
	           strcmp(s, "N") == 0) {
		mcinit_ynote(
		    ty, MCINIT_WARNING, "MC001", p, "write true or false, or quote it",
		    "`%s` is the string \"%s\" to Megatron-Bridge's loader (PyYAML does not read "
		    "YAML 1.1's y/n as booleans), but %s to other YAML 1.1 readers",
		    s, s, (s[0] == 'y' || s[0] == 'Y') ? "true" : "false");
	} else if (f == NF_OCT) {
		mcinit_ynote(
		    ty, MCINIT_WARNING, "MC004", p, "drop the leading zero, or quote it",
		    "`%s` is an octal number in YAML 1.1: Megatron-Bridge reads it in base 8, a "
		    "YAML 1.2 reader in base 10",
		    s);
	} else if (f == NF_B60) {
		mcinit_ynote(
		    ty, MCINIT_WARNING, "MC004", p, "quote it if a string is meant",
		    "`%s` is a base-60 number in YAML 1.1 (1:30 is 90): Megatron-Bridge reads it "
		    "so, a YAML 1.2 reader reads a string",
		    s);
	} else if (strcmp(s, "None") == 0) { /* Python's spelling; `none` is an enum value */
		mcinit_ynote(ty, MCINIT_WARNING, "MC004", p, "write null (or ~) for Python's None",
		             "`%s` is the string \"%s\" in YAML, not null", s, s);
	} else {
		const char *q = skip_sign(s);

		if (q[0] == '0' && is_dig(q[1], 10) && *run_of(q, 10, true) == '\0')
			mcinit_ynote(
			    ty, MCINIT_WARNING, "MC004", p, "drop the leading zero, or quote it",
			    "`%s` is a string to Megatron-Bridge's loader (YAML 1.1 reads a "
			    "leading "
			    "0 as octal, and this is not octal), a number to a YAML 1.2 reader",
			    s);
	}
}

json_t *
mcinit_ytype_plain(struct mcinit_ytyper *ty, const char *s, struct mcinit_pos p, bool quiet)
{
	enum numform f;
	long long v;

	if (in_words(s, null_words))
		return json_null();
	if (in_words(s, true_words) || in_words(s, yes_words)) {
		if (!quiet)
			warn_plain(ty, s, p, NF_NONE);
		return json_true();
	}
	if (in_words(s, false_words) || in_words(s, no_words)) {
		if (!quiet)
			warn_plain(ty, s, p, NF_NONE);
		return json_false();
	}
	if (ty->pyyaml && !pyyaml_float(s) && omegaconf_float(s)) {
		/* yaml.safe_load's YAML 1.1 float needs a dot: `3e-4` is a string
		 * there, and stays one through OmegaConf.create; a float field then
		 * holds '3e-4', which the optimizer's arithmetic fails on */
		if (!quiet) {
			char hint[128];

			dotted_hint(s, hint, sizeof hint);
			mcinit_ynote(
			    ty, MCINIT_WARNING, "MC004", p, hint,
			    "`%s` is the string \"%s\" to PyYAML, which reads this file "
			    "(Megatron-Bridge's ConfigContainer.from_yaml: yaml.safe_load): a "
			    "YAML 1.1 float needs a dot; OmegaConf's loader, which a --config-file "
			    "merge uses, would read a float",
			    s, s);
		}
		return json_string(s);
	}
	if (pyyaml_float(s) || omegaconf_float(s)) {
		json_t *j = build_float(s);

		/* JSON has no infinity or NaN: the word, which a float field
		 * reads as the float (config.c, special_float) */
		return j ? j : json_string(s);
	}
	f = int_form(s);
	if (!quiet)
		warn_plain(ty, s, p, f);
	if (f != NF_NONE) {
		if (build_int(s, f, &v))
			return json_integer(v);
		if (!quiet)
			mcinit_ynote(ty, MCINIT_ERROR, "MC005", p, NULL,
			             "integer `%s` is out of range (64-bit)", s);
	}
	return json_string(s);
}

json_t *
mcinit_ytype_tagged(struct mcinit_ytyper *ty, const char *tag, const char *s, struct mcinit_pos p)
{
	const char *name = strncmp(tag, MCINIT_YAML_TAG, strlen(MCINIT_YAML_TAG)) == 0
	                       ? tag + strlen(MCINIT_YAML_TAG)
	                       : NULL;
	long long v;

	if (strcmp(tag, "!") == 0) /* PyYAML resolves `!` like an untagged plain scalar */
		return mcinit_ytype_plain(ty, s, p, false);
	if (name && strcmp(name, "str") == 0)
		return json_string(s);
	if (name && strcmp(name, "null") == 0)
		return json_null();
	if (name && strcmp(name, "bool") == 0) {
		if (in_words(s, true_words) || in_words(s, yes_words))
			return json_true();
		if (in_words(s, false_words) || in_words(s, no_words))
			return json_false();
	} else if (name && strcmp(name, "int") == 0) {
		enum numform f = int_form(s);

		if (f != NF_NONE && build_int(s, f, &v))
			return json_integer(v);
	} else if (name && strcmp(name, "float") == 0) {
		json_t *j = build_float(s);

		if (j != NULL)
			return j;
	} else {
		mcinit_ynote(
		    ty, MCINIT_ERROR, "MC004", p, "drop the tag",
		    "tag %s%s: Megatron-Bridge's loader (OmegaConf on PyYAML's SafeLoader) "
		    "cannot construct it",
		    name ? "!!" : "", name ? name : tag);
		return json_string(s);
	}
	mcinit_ynote(ty, MCINIT_ERROR, "MC004", p, NULL, "`!!%s %s`: not a valid %s", name, s,
	             name);
	return json_string(s);
}
