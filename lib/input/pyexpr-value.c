/*
 * pyexpr-value.c — the values of the Python subset in pyexpr.h: Python's
 * truth value, equality, str and repr of them, and the floor and power the
 * arithmetic in pyexpr-eval.c needs.
 */
#include "input/pyexpr-impl.h"

#include <math.h> /* isinf, isnan: macros, no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error value with its message; type_error marks Python's TypeError. */
static struct mcinit_pv __attribute__((format(printf, 3, 0)))
verr(struct mcinit_pyexpr *e, long long type_error, const char *fmt, va_list ap)
{
	struct mcinit_pv v = {.kind = MCINIT_PV_ERR, .i = type_error};
	char buf[256];

	vsnprintf(buf, sizeof buf, fmt, ap);
	v.s = mcinit_pyexpr_strdup(e, buf);
	return v;
}

struct mcinit_pv
mcinit_pyx_type_err(struct mcinit_pyexpr *e, const char *fmt, ...)
{
	struct mcinit_pv v;
	va_list ap;

	va_start(ap, fmt);
	v = verr(e, 1, fmt, ap);
	va_end(ap);
	return v;
}

struct mcinit_pv
mcinit_pyx_err(struct mcinit_pyexpr *e, const char *fmt, ...)
{
	struct mcinit_pv v;
	va_list ap;

	va_start(ap, fmt);
	v = verr(e, 0, fmt, ap);
	va_end(ap);
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
float_str(struct mcx_buf *b, double f)
{
	char t[40];
	int p;

	if (isinf(f)) {
		mcx_buf_adds(b, f > 0 ? "inf" : "-inf");
		return;
	}
	if (isnan(f)) {
		mcx_buf_adds(b, "nan");
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
	mcx_buf_adds(b, t);
}

void
mcinit_pyx_str_in(struct mcx_buf *b, const struct mcinit_pv *v, bool repr)
{
	size_t i;

	switch (v->kind) {
	case MCINIT_PV_NONE:
		mcx_buf_adds(b, "None");
		break;
	case MCINIT_PV_BOOL:
		mcx_buf_adds(b, v->i ? "True" : "False");
		break;
	case MCINIT_PV_INT:
		mcx_buf_printf(b, "%lld", v->i);
		break;
	case MCINIT_PV_FLOAT:
		float_str(b, v->f);
		break;
	case MCINIT_PV_STR:
		mcx_buf_printf(b, repr ? "'%s'" : "%s", v->s);
		break;
	case MCINIT_PV_LIST:
		mcx_buf_addc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				mcx_buf_adds(b, ", ");
			mcinit_pyx_str_in(b, &v->items[i], true);
		}
		mcx_buf_addc(b, ']');
		break;
	case MCINIT_PV_ERR:
		mcx_buf_printf(b, "<%s>", v->s);
		break;
	}
}

void
mcinit_pv_str(struct mcx_buf *b, const struct mcinit_pv *v)
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
