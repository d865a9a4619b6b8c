/*
 * pyexpr-value.c — the values of the Python subset in pyexpr.h: Python's
 * truth value, equality, str and repr of them, and the floor and power the
 * arithmetic in pyexpr-eval.c needs.
 */
#include "input/pyexpr-impl.h"

#include <ctype.h>
#include <limits.h>
#include <math.h> /* isinf, isnan: macros, no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mcinit_pv
mcinit_pyx_err(struct mcinit_pyexpr *e, const char *fmt, ...)
{
	struct mcinit_pv v = {.kind = MCINIT_PV_ERR};
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	v.s = mcinit_pyexpr_strdup(e, buf);
	return v;
}

bool
mcinit_pv_truthy(const struct mcinit_pv *v)
{
	switch (v->kind) {
	case MCINIT_PV_BOOL:
	case MCINIT_PV_INT:
		return v->i != 0;
	case MCINIT_PV_FLOAT:
		return v->f != 0.0;
	case MCINIT_PV_STR:
		return v->s[0] != '\0';
	case MCINIT_PV_LIST:
		return v->n > 0;
	default:
		return false;
	}
}

bool
mcinit_pyx_equal(const struct mcinit_pv *a, const struct mcinit_pv *b)
{
	size_t i;

	if (mcinit_pyx_is_num(a) && mcinit_pyx_is_num(b)) {
		if (a->kind != MCINIT_PV_FLOAT && b->kind != MCINIT_PV_FLOAT)
			return a->i == b->i;
		return mcinit_pyx_num(a) == mcinit_pyx_num(b);
	}
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case MCINIT_PV_NONE:
		return true;
	case MCINIT_PV_STR:
		return strcmp(a->s, b->s) == 0;
	case MCINIT_PV_LIST:
		if (a->n != b->n)
			return false;
		for (i = 0; i < a->n; i++)
			if (!mcinit_pyx_equal(&a->items[i], &b->items[i]))
				return false;
		return true;
	default:
		return false;
	}
}

static void
float_str(struct mcinit_buf *b, double f)
{
	char t[40];
	int p;

	if (isinf(f)) {
		mcinit_buf_adds(b, f > 0 ? "inf" : "-inf");
		return;
	}
	if (isnan(f)) {
		mcinit_buf_adds(b, "nan");
		return;
	}
	/* Python's repr: the shortest text that reads back as the same double */
	for (p = 1; p <= 17; p++) {
		snprintf(t, sizeof t, "%.*g", p, f);
		if (strtod(t, NULL) == f)
			break;
	}
	if (strpbrk(t, ".eni") == NULL)
		strcat(t, ".0");
	mcinit_buf_adds(b, t);
}

void
mcinit_pyx_str_in(struct mcinit_buf *b, const struct mcinit_pv *v, bool repr)
{
	size_t i;

	switch (v->kind) {
	case MCINIT_PV_NONE:
		mcinit_buf_adds(b, "None");
		break;
	case MCINIT_PV_BOOL:
		mcinit_buf_adds(b, v->i ? "True" : "False");
		break;
	case MCINIT_PV_INT:
		mcinit_buf_printf(b, "%lld", v->i);
		break;
	case MCINIT_PV_FLOAT:
		float_str(b, v->f);
		break;
	case MCINIT_PV_STR:
		mcinit_buf_printf(b, repr ? "'%s'" : "%s", v->s);
		break;
	case MCINIT_PV_LIST:
		mcinit_buf_addc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				mcinit_buf_adds(b, ", ");
			mcinit_pyx_str_in(b, &v->items[i], true);
		}
		mcinit_buf_addc(b, ']');
		break;
	case MCINIT_PV_ERR:
		mcinit_buf_printf(b, "<%s>", v->s);
		break;
	}
}

void
mcinit_pv_str(struct mcinit_buf *b, const struct mcinit_pv *v)
{
	mcinit_pyx_str_in(b, v, false);
}

/* floor and pow without libm: the checks need only integral exponents */
double
mcinit_pyx_floor(double x)
{
	double t;

	if (x >= 9.2e18 || x <= -9.2e18 || isnan(x))
		return x;
	t = (double)(long long)x;
	return t > x ? t - 1 : t;
}

double
mcinit_pyx_pow(double x, double y)
{
	long long k = (long long)y, i;
	double r = 1;

	for (i = 0; i < (k < 0 ? -k : k) && i < 4096; i++)
		r *= x;
	return k < 0 ? 1 / r : r;
}

/* ---- package versions (PEP 440, the part Megatron's gates use) ---- */

struct version {
	long rel[8];
	int nrel;
	int pre; /* -2: a dev release with no pre, 0 a, 1 b, 2 rc, 3 none */
	long pre_n;
	long post; /* -1: none */
	long dev;  /* LONG_MAX: none */
};

static bool
number(const char **p, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return false;
	*out = strtol(*p, &end, 10);
	*p = end;
	return true;
}

/* What follows the release numbers: [.-_]?(a|b|rc|post|dev)N, in order. */
static bool
version_suffix(const char *p, struct version *v)
{
	static const char *const pre[] = {"a", "b", "rc"};
	size_t i, n;

	while (*p != '\0' && *p != '+') {
		if (*p == '.' || *p == '-' || *p == '_')
			p++;
		for (i = 0; i < 3; i++) {
			n = strlen(pre[i]);
			if (v->pre == 3 && v->post < 0 && v->dev == LONG_MAX &&
			    strncmp(p, pre[i], n) == 0 && isdigit((unsigned char)p[n]))
				break;
		}
		if (i < 3) {
			p += strlen(pre[i]);
			v->pre = (int)i;
			number(&p, &v->pre_n);
		} else if (strncmp(p, "post", 4) == 0 && v->post < 0 && v->dev == LONG_MAX) {
			p += 4;
			if (!number(&p, &v->post))
				v->post = 0;
		} else if (strncmp(p, "dev", 3) == 0 && v->dev == LONG_MAX) {
			p += 3;
			if (!number(&p, &v->dev))
				v->dev = 0;
		} else {
			return false;
		}
	}
	return true;
}

static bool
version_parse(const char *s, struct version *v)
{
	const char *p = s;

	*v = (struct version){.pre = 3, .post = -1, .dev = LONG_MAX};
	if (*p == 'v')
		p++;
	do {
		if (v->nrel == (int)(sizeof v->rel / sizeof v->rel[0]) ||
		    !number(&p, &v->rel[v->nrel]))
			return false;
		v->nrel++;
	} while (*p == '.' && isdigit((unsigned char)p[1]) && p++);
	if (!version_suffix(p, v))
		return false;
	if (v->pre == 3 && v->post < 0 && v->dev != LONG_MAX)
		v->pre = -2; /* 2.7.0.dev0 comes before 2.7.0a0 */
	return true;
}

static int
cmp_long(long a, long b)
{
	return (a > b) - (a < b);
}

int
mcinit_version_cmp(const char *a, const char *b, int *cmp)
{
	struct version x, y;
	int i, c = 0;

	if (!version_parse(a, &x) || !version_parse(b, &y))
		return -1;
	for (i = 0; c == 0 && (i < x.nrel || i < y.nrel); i++)
		c = cmp_long(i < x.nrel ? x.rel[i] : 0, i < y.nrel ? y.rel[i] : 0);
	if (c == 0)
		c = cmp_long(x.pre, y.pre);
	if (c == 0 && x.pre >= 0 && x.pre < 3)
		c = cmp_long(x.pre_n, y.pre_n);
	if (c == 0)
		c = cmp_long(x.post, y.post);
	if (c == 0)
		c = cmp_long(x.dev, y.dev);
	*cmp = c;
	return 0;
}
