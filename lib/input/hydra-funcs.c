/*
 * hydra-funcs.c — the functions of Hydra's override grammar: the casts
 * (int, float, str, bool), the sweeps (choice, range, interval, glob) and
 * tag, sort and shuffle, with the signatures Hydra checks (hydra-impl.h).
 */
#include "input/hydra-impl.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
mcinit_hy_kind(const val *v)
{
	switch (v->type) {
	case MCINIT_HY_NULL:
		return K_NONE;
	case MCINIT_HY_BOOL:
		return K_BOOL;
	case MCINIT_HY_INT:
		return K_INT;
	case MCINIT_HY_FLOAT:
		return K_FLOAT;
	case MCINIT_HY_STR:
		return K_STR;
	case MCINIT_HY_LIST:
		return K_LIST;
	case MCINIT_HY_DICT:
		return K_DICT;
	case MCINIT_HY_SWEEP:
		return v->sweep == MCINIT_HY_CHOICE     ? K_CHOICE
		       : v->sweep == MCINIT_HY_RANGE    ? K_RANGE
		       : v->sweep == MCINIT_HY_INTERVAL ? K_INTERVAL
		                                        : K_GLOB;
	}
	return 0;
}

/* Matches a Union: a bool is also an int. */
static int
is(const val *v, int mask)
{
	int k = mcinit_hy_kind(v);

	return (k & mask) != 0 || (k == K_BOOL && (mask & K_INT));
}

struct fn {
	const char *name;
	int varargs; /* *args, whose type is vmask */
	int vmask;
	const char *params[4]; /* named parameters, keyword-only after *args */
	int masks[4];
	int required; /* how many of the first params are required */
};

static const struct fn fns[] = {
    {"int", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"float", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"str", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"bool", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"choice", 1, K_ELEM | K_CHOICE, {NULL}, {0}, 0},
    {"range", 0, 0, {"start", "stop", "step"}, {K_NUM, K_NUM | K_NONE, K_NUM}, 1},
    {"interval", 0, 0, {"start", "end"}, {K_NUM, K_NUM}, 2},
    {"tag", 1, K_STR | K_SWEEP, {"sweep"}, {K_NONE | K_SWEEP}, 0},
    {"sort",
     1,
     K_ELEM | K_CHOICE | K_RANGE,
     {"sweep", "list", "reverse"},
     {K_NONE | K_CHOICE | K_RANGE, K_NONE | K_LIST, -1},
     0},
    {"shuffle",
     1,
     K_ELEM | K_CHOICE | K_RANGE,
     {"sweep", "list"},
     {K_NONE | K_CHOICE | K_RANGE, K_NONE | K_LIST},
     0},
    {"glob", 0, 0, {"include", "exclude"}, {K_LIST | K_STR, K_NONE | K_LIST | K_STR}, 1},
};

void
mcinit_hy_args_free(struct args *a)
{
	for (size_t k = 0; k < a->npos; k++)
		mcinit_hy_value_free(&a->pos[k]);
	for (size_t k = 0; k < a->nkw; k++) {
		mcinit_hy_value_free(&a->kw[k]);
		free(a->names[k]);
	}
	free(a->pos);
	free(a->kw);
	free(a->names);
}

static int
ffail(struct px *p, size_t off, const char *fname, const char *msg)
{
	return mcinit_hy_fail_at(p, off, "function", "while evaluating '%s(...)': %s", fname, msg);
}

/* What Python's float() and int() skip of a string: the whitespace around
 * it ([*a, *b) is left) and then one sign; returns where the number starts. */
static size_t
py_number_span(const char *s, size_t n, size_t *a, size_t *b)
{
	size_t k;

	*a = 0;
	*b = n;
	while (*a < *b && isspace((unsigned char)s[*a]))
		(*a)++;
	while (*b > *a && isspace((unsigned char)s[*b - 1]))
		(*b)--;
	k = *a;
	if (k < *b && (s[k] == '+' || s[k] == '-'))
		k++;
	return k;
}

/* Python's float(text) on a string: whitespace around, a sign, digits with
 * single '_' between them, a point, an exponent, or inf/infinity/nan. */
static int
str_to_float(const char *s, size_t n, double *f)
{
	size_t a, b, k = py_number_span(s, n, &a, &b);

	if ((b - k == 3 &&
	     (strncasecmp(s + k, "inf", 3) == 0 || strncasecmp(s + k, "nan", 3) == 0)) ||
	    (b - k == 8 && strncasecmp(s + k, "infinity", 8) == 0)) {
		int neg = s[a] == '-';

		*f = tolower((unsigned char)s[k]) == 'n' ? NAN : neg ? -INFINITY : INFINITY;
		return 0;
	}
	{
		size_t il = mcinit_hy_m_digits(s, b, k), fl = 0;
		size_t j = k + il;

		if (j < b && s[j] == '.') {
			fl = mcinit_hy_m_digits(s, b, j + 1);
			j += 1 + fl;
		}
		if (il == 0 && fl == 0)
			return -1;
		if (j < b && (s[j] == 'e' || s[j] == 'E')) {
			size_t e = j + 1, el;

			if (e < b && (s[e] == '+' || s[e] == '-'))
				e++;
			el = mcinit_hy_m_digits(s, b, e);
			if (el == 0)
				return -1;
			j = e + el;
		}
		if (j != b)
			return -1;
	}
	*f = mcinit_hy_py_float(s + a, b - a);
	return 0;
}

/* Python's int(text) on a string. */
static int
str_to_int(const char *s, size_t n, val *out)
{
	size_t a, b, k = py_number_span(s, n, &a, &b);

	if (mcinit_hy_m_digits(s, b, k) != b - k || b == k)
		return -1;
	mcinit_hy_vint(out, s + a, b - a);
	return 0;
}

static int cast(struct px *p, size_t off, const char *fn, const val *in, val *out);

static int
cast_items(struct px *p, size_t off, const char *fn, const val *in, val *out)
{
	mcinit_hy_vcopy(out, in);
	for (size_t k = 0; k < out->n; k++) {
		val r;

		if (cast(p, off, fn, &in->items[k], &r) < 0) {
			mcinit_hy_value_free(out);
			return -1;
		}
		mcinit_hy_value_free(&out->items[k]);
		out->items[k] = r;
		/* cast_choice asserts that each choice cast is an element */
		if (in->type == MCINIT_HY_SWEEP && in->sweep == MCINIT_HY_CHOICE &&
		    r.type == MCINIT_HY_SWEEP) {
			mcinit_hy_value_free(out);
			return ffail(p, off, fn, "AssertionError");
		}
	}
	return 0;
}

/* cast_int, cast_float, cast_str, cast_bool on one value. */
static int
cast(struct px *p, size_t off, const char *fn, const val *in, val *out)
{
	char c = fn[0];
	char buf[40];

	switch (in->type) {
	case MCINIT_HY_LIST:
	case MCINIT_HY_DICT:
		return cast_items(p, off, fn, in, out);
	case MCINIT_HY_SWEEP:
		if (in->sweep == MCINIT_HY_RANGE && c != 'i' && c != 'f')
			return ffail(p, off, fn, "Range can only be cast to int or float");
		if (in->sweep == MCINIT_HY_INTERVAL && (c == 's' || c == 'b'))
			return ffail(p, off, fn, "Intervals cannot be cast");
		return cast_items(p, off, fn, in, out);
	case MCINIT_HY_NULL:
		if (c == 'b') {
			mcinit_hy_vbool(out, 0);
			return 0;
		}
		return ffail(p, off, fn, "AssertionError");
	default:
		break;
	}
	switch (c) {
	case 'i': /* int */
		if (in->type == MCINIT_HY_INT) {
			mcinit_hy_vcopy(out, in);
		} else if (in->type == MCINIT_HY_BOOL) {
			mcinit_hy_vint(out, in->b ? "1" : "0", 1);
		} else if (in->type == MCINIT_HY_FLOAT) {
			char *t;

			if (isnan(in->f))
				return ffail(p, off, fn,
				             "ValueError: cannot convert float NaN to integer");
			if (isinf(in->f))
				return ffail(
				    p, off, fn,
				    "OverflowError: cannot convert float infinity to integer");
			/* glibc prints a double's exact value: Python's int() of it */
			t = mcx_xasprintf("%.0f", trunc(in->f));
			mcinit_hy_vint(out, t, strlen(t));
			free(t);
		} else if (str_to_int(in->text, in->len, out) < 0) {
			return ffail(p, off, fn,
			             "ValueError: invalid literal for int() with base 10");
		}
		return 0;
	case 'f': /* float */
		if (in->type == MCINIT_HY_FLOAT) {
			mcinit_hy_vcopy(out, in);
		} else if (in->type == MCINIT_HY_BOOL) {
			mcinit_hy_vfloat(out, in->b);
		} else if (in->type == MCINIT_HY_INT) {
			double f = strtod(in->text, NULL);

			if (isinf(f))
				return ffail(p, off, fn,
				             "OverflowError: int too large to convert to float");
			mcinit_hy_vfloat(out, f);
		} else {
			double f;

			if (str_to_float(in->text, in->len, &f) < 0)
				return ffail(p, off, fn,
				             "ValueError: could not convert string to float");
			mcinit_hy_vfloat(out, f);
		}
		return 0;
	case 's': /* str */
		if (in->type == MCINIT_HY_STR)
			mcinit_hy_vstr(out, in->text, in->len, 0);
		else if (in->type == MCINIT_HY_BOOL)
			mcinit_hy_vstr(out, in->b ? "true" : "false", in->b ? 4 : 5, 0);
		else if (in->type == MCINIT_HY_INT)
			mcinit_hy_vstr(out, in->text, strlen(in->text), 0);
		else {
			mcinit_hy_float_repr(in->f, buf, sizeof buf);
			mcinit_hy_vstr(out, buf, strlen(buf), 0);
		}
		return 0;
	default: /* bool */
		if (in->type == MCINIT_HY_STR) {
			if (in->len == 4 && strncasecmp(in->text, "true", 4) == 0)
				mcinit_hy_vbool(out, 1);
			else if (in->len == 5 && strncasecmp(in->text, "false", 5) == 0)
				mcinit_hy_vbool(out, 0);
			else
				return ffail(p, off, fn, "ValueError: Cannot cast to bool");
		} else if (in->type == MCINIT_HY_BOOL) {
			mcinit_hy_vbool(out, in->b);
		} else if (in->type == MCINIT_HY_INT) {
			mcinit_hy_vbool(out, strcmp(in->text, "0") != 0);
		} else {
			mcinit_hy_vbool(out, in->f != 0 || isnan(in->f));
		}
		return 0;
	}
}

/* _list_to_simple_choice asserts that each argument is an element (None
 * included), never a sweep. */
static bool
all_elements(const struct args *a)
{
	for (size_t k = 0; k < a->npos; k++)
		if (a->pos[k].type == MCINIT_HY_SWEEP)
			return false;
	return true;
}

static void
simple_choice(val *out, val *items, size_t n)
{
	memset(out, 0, sizeof *out);
	out->type = MCINIT_HY_SWEEP;
	out->sweep = MCINIT_HY_CHOICE;
	out->simple = 1;
	out->n = n;
	out->items = mcx_xcalloc(n ? n : 1, sizeof *out->items);
	for (size_t k = 0; k < n; k++)
		mcinit_hy_vcopy(&out->items[k], &items[k]);
}

/* Python's a < b for the values sort() compares: 1, 0, or -1 with a TypeError. */
static int
lt(const val *a, const val *b)
{
	int ka = mcinit_hy_kind(a), kb = mcinit_hy_kind(b);

	if ((ka & K_NUM) && (kb & K_NUM)) {
		if (ka == K_INT && kb == K_INT) {
			int na = a->text[0] == '-', nb = b->text[0] == '-';
			size_t la = strlen(a->text), lb = strlen(b->text);
			int c;

			if (na != nb)
				return na;
			c = la != lb ? (la < lb ? -1 : 1) : strcmp(a->text, b->text);
			return na ? c > 0 : c < 0;
		}
		{
			double x = ka == K_BOOL ? a->b : ka == K_INT ? strtod(a->text, NULL) : a->f;
			double y = kb == K_BOOL ? b->b : kb == K_INT ? strtod(b->text, NULL) : b->f;

			return x < y;
		}
	}
	if (ka == K_STR && kb == K_STR) {
		size_t m = a->len < b->len ? a->len : b->len;
		int c = memcmp(a->text, b->text, m);

		return c != 0 ? c < 0 : a->len < b->len;
	}
	if (ka == K_LIST && kb == K_LIST) {
		for (size_t k = 0; k < a->n && k < b->n; k++) {
			int x = lt(&a->items[k], &b->items[k]), y;

			if (x != 0)
				return x;
			y = lt(&b->items[k], &a->items[k]);
			if (y != 0)
				return y < 0 ? -1 : 0;
		}
		return a->n < b->n;
	}
	return -1;
}

/* sorted(): CPython's binary insertion sort after its first run (what its
 * timsort does for short lists), so that the comparisons it makes, and the
 * TypeError of an incomparable pair, are the same; reverse as CPython does. */
static int
py_sort(val *a, size_t n, int reverse)
{
	size_t i;

	if (reverse)
		for (size_t k = 0; k < n / 2; k++) {
			val t = a[k];
			a[k] = a[n - 1 - k];
			a[n - 1 - k] = t;
		}
	if (n >= 2) {
		int c = lt(&a[1], &a[0]);

		if (c < 0)
			return -1;
		if (c) {
			for (i = 2; i < n; i++) {
				c = lt(&a[i], &a[i - 1]);
				if (c < 0)
					return -1;
				if (!c)
					break;
			}
			for (size_t k = 0; k < i / 2; k++) {
				val t = a[k];
				a[k] = a[i - 1 - k];
				a[i - 1 - k] = t;
			}
		} else {
			for (i = 2; i < n; i++) {
				c = lt(&a[i], &a[i - 1]);
				if (c < 0)
					return -1;
				if (c)
					break;
			}
		}
		for (; i < n; i++) {
			val pivot = a[i];
			size_t l = 0, r = i;

			while (l < r) {
				size_t m = (l + r) / 2;

				c = lt(&pivot, &a[m]);
				if (c < 0)
					return -1;
				if (c)
					r = m;
				else
					l = m + 1;
			}
			memmove(a + l + 1, a + l, (i - l) * sizeof *a);
			a[l] = pivot;
		}
	}
	if (reverse)
		for (size_t k = 0; k < n / 2; k++) {
			val t = a[k];
			a[k] = a[n - 1 - k];
			a[n - 1 - k] = t;
		}
	return 0;
}

static int
sort_sweep(struct px *p, size_t off, const val *in, int reverse, val *out)
{
	mcinit_hy_vcopy(out, in);
	if (in->sweep == MCINIT_HY_CHOICE && py_sort(out->items, out->n, reverse) < 0) {
		mcinit_hy_value_free(out);
		return ffail(p, off, "sort",
		             "TypeError: '<' not supported between these instances");
	}
	return 0;
}

/* Functions.eval: binds the arguments as Python would, checks their types,
 * then runs the function. */
int
mcinit_hy_call(struct px *p, size_t off, const char *name, size_t nlen, struct args *a, val *out)
{
	const struct fn *f = NULL;
	const val *bound[4] = {NULL};
	size_t nparams = 0;

	for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
		if (strlen(fns[k].name) == nlen && strncmp(fns[k].name, name, nlen) == 0)
			f = &fns[k];
	if (f == NULL)
		return mcinit_hy_fail_at(p, off, "function", "Unknown function '%.*s'", (int)nlen,
		                         name);
	while (nparams < 4 && f->params[nparams])
		nparams++;
	if (!f->varargs) {
		if (a->npos > nparams)
			return ffail(p, off, f->name, "TypeError: too many positional arguments");
		for (size_t k = 0; k < a->npos; k++)
			bound[k] = &a->pos[k];
	}
	for (size_t k = 0; k < a->nkw; k++) {
		size_t j;

		for (j = 0; j < nparams; j++)
			if (strcmp(f->params[j], a->names[k]) == 0)
				break;
		if (j == nparams)
			return ffail(p, off, f->name,
			             "TypeError: got an unexpected keyword argument");
		if (bound[j] != NULL && !f->varargs && j < a->npos)
			return ffail(p, off, f->name, "TypeError: multiple values for argument");
		bound[j] = &a->kw[k];
	}
	for (int k = 0; k < f->required; k++)
		if (bound[k] == NULL)
			return ffail(p, off, f->name, "TypeError: missing a required argument");
	if (f->varargs)
		for (size_t k = 0; k < a->npos; k++)
			if (!is(&a->pos[k], f->vmask))
				return ffail(p, off, f->name, "TypeError: mismatch type argument");
	for (size_t k = 0; k < nparams; k++)
		if (bound[k] != NULL && (f->masks[k] < 0 ? bound[k]->type != MCINIT_HY_BOOL
		                                         : !is(bound[k], f->masks[k])))
			return ffail(p, off, f->name, "TypeError: mismatch type argument");

	switch (f->name[0] == 's' ? f->name[1] : f->name[0]) {
	case 'n': /* int */
	case 'i':
		if (strcmp(f->name, "interval") == 0) {
			memset(out, 0, sizeof *out);
			out->type = MCINIT_HY_SWEEP;
			out->sweep = MCINIT_HY_INTERVAL;
			out->n = 2;
			out->items = mcx_xcalloc(2, sizeof *out->items);
			for (int k = 0; k < 2; k++)
				if (cast(p, off, "float", bound[k], &out->items[k]) < 0) {
					mcinit_hy_value_free(out);
					return -1;
				}
			return 0;
		}
		/* fallthrough */
	case 'f':
	case 't':
	case 'b': {
		const val *v;
		val sc;
		int r;

		if (f->name[0] == 's' && f->name[1] == 't' && f->name[2] == 'r') {
			/* str: below */
		} else if (strcmp(f->name, "tag") == 0) {
			const val *last;

			if (a->npos < 1 && bound[0] == NULL)
				return ffail(p, off, f->name,
				             "ValueError: Not enough arguments to tag");
			last = bound[0] && bound[0]->type != MCINIT_HY_NULL ? bound[0]
			       : a->npos                                    ? &a->pos[a->npos - 1]
			                                                    : bound[0];
			if (a->npos < 1)
				return ffail(p, off, f->name,
				             "ValueError: Not enough arguments to tag");
			if (!is(last, K_SWEEP))
				return ffail(p, off, f->name,
				             "ValueError: Last argument to tag() must be a sweep");
			for (size_t k = 0; k + (last == &a->pos[a->npos - 1]) < a->npos; k++)
				if (a->pos[k].type != MCINIT_HY_STR)
					return ffail(
					    p, off, f->name,
					    "ValueError: tag arguments type must be string");
			mcinit_hy_vcopy(out, last);
			return 0;
		}
		if (a->npos > 0 && bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL)
			return ffail(p, off, f->name,
			             "TypeError: cannot use both position and named arguments");
		if (bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL) {
			v = bound[0];
		} else if (a->npos == 0) {
			return ffail(p, off, f->name,
			             "TypeError: No positional args or value specified");
		} else if (a->npos == 1) {
			v = &a->pos[0];
		} else {
			if (!all_elements(a))
				return ffail(p, off, f->name, "AssertionError");
			simple_choice(&sc, a->pos, a->npos);
			r = cast(p, off, f->name, &sc, out);
			mcinit_hy_value_free(&sc);
			return r;
		}
		return cast(p, off, f->name, v, out);
	}
	case 'c': /* choice */
		if (a->npos == 0)
			return ffail(p, off, f->name, "ValueError: empty choice is not legal");
		if (a->npos == 1 && a->pos[0].type == MCINIT_HY_SWEEP) {
			if (!a->pos[0].simple)
				return ffail(p, off, f->name,
				             "ValueError: nesting choices is not supported");
			mcinit_hy_vcopy(out, &a->pos[0]);
			out->simple = 0;
			return 0;
		}
		simple_choice(out, a->pos, a->npos);
		out->simple = 0;
		return 0;
	case 'r': /* range */
		memset(out, 0, sizeof *out);
		out->type = MCINIT_HY_SWEEP;
		out->sweep = MCINIT_HY_RANGE;
		out->n = 3;
		out->items = mcx_xcalloc(3, sizeof *out->items);
		if (bound[1] == NULL || bound[1]->type == MCINIT_HY_NULL) {
			mcinit_hy_vint(&out->items[0], "0", 1);
			mcinit_hy_vcopy(&out->items[1], bound[0]);
		} else {
			mcinit_hy_vcopy(&out->items[0], bound[0]);
			mcinit_hy_vcopy(&out->items[1], bound[1]);
		}
		if (bound[2])
			mcinit_hy_vcopy(&out->items[2], bound[2]);
		else
			mcinit_hy_vint(&out->items[2], "1", 1);
		return 0;
	case 'g': /* glob */
		memset(out, 0, sizeof *out);
		out->type = MCINIT_HY_SWEEP;
		out->sweep = MCINIT_HY_GLOB;
		return 0;
	case 'o': /* sort */ {
		int reverse = bound[2] != NULL && bound[2]->b;

		if (bound[1] != NULL && bound[1]->type != MCINIT_HY_NULL) {
			mcinit_hy_vcopy(out, bound[1]);
			if (py_sort(out->items, out->n, reverse) < 0) {
				mcinit_hy_value_free(out);
				return ffail(p, off, f->name, "TypeError: '<' not supported");
			}
			return 0;
		}
		if (bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL)
			return sort_sweep(p, off, bound[0], reverse, out);
		if (a->npos == 1) {
			const val *v = &a->pos[0];

			if (v->type == MCINIT_HY_SWEEP)
				return sort_sweep(p, off, v, reverse, out);
			mcinit_hy_vcopy(out, v);
			if (v->type == MCINIT_HY_LIST && py_sort(out->items, out->n, reverse) < 0) {
				mcinit_hy_value_free(out);
				return ffail(p, off, f->name, "TypeError: '<' not supported");
			}
			return 0;
		}
		for (size_t k = 0; k < a->npos; k++)
			if (!is(&a->pos[k], K_PRIM))
				return ffail(p, off, f->name, "TypeError: Invalid arguments");
		if (a->npos == 0)
			return ffail(p, off, f->name, "ValueError: empty sort input");
		{
			val sc;
			int r;

			simple_choice(&sc, a->pos, a->npos);
			r = sort_sweep(p, off, &sc, reverse, out);
			mcinit_hy_value_free(&sc);
			return r;
		}
	}
	case 'h': /* shuffle: the order is random in Hydra; mcinit keeps it */
		if (bound[1] != NULL && bound[1]->type != MCINIT_HY_NULL) {
			mcinit_hy_vcopy(out, bound[1]);
			return 0;
		}
		if (bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL) {
			mcinit_hy_vcopy(out, bound[0]);
			return 0;
		}
		if (a->npos == 1) {
			if (a->pos[0].type == MCINIT_HY_SWEEP || a->pos[0].type == MCINIT_HY_LIST) {
				mcinit_hy_vcopy(out, &a->pos[0]);
			} else {
				size_t cap = 0;

				mcinit_hy_vnew_list(out, MCINIT_HY_LIST);
				val c;
				mcinit_hy_vcopy(&c, &a->pos[0]);
				mcinit_hy_vappend(out, &c, &cap);
			}
			return 0;
		}
		if (!all_elements(a))
			return ffail(p, off, f->name, "AssertionError");
		simple_choice(out, a->pos, a->npos);
		return 0;
	default:
		break;
	}
	return mcinit_hy_fail_at(p, off, "function", "Unknown function '%.*s'", (int)nlen, name);
}
