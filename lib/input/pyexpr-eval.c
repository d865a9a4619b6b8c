/*
 * pyexpr-eval.c — the evaluator of the Python subset in pyexpr.h.
 *
 * It walks the tree pyexpr-parse.c built with Python's semantics for the
 * operations Megatron's checks use (short-circuit `and`/`or` returning an
 * operand, numeric comparison across int/float/bool, `in` on lists and
 * strings).  Whatever Python would raise on (None > 1, an unknown name)
 * becomes an ERR value, so a check that cannot be decided is skipped
 * rather than guessed.  It also lists the names a tree reads
 * (mcinit_pyexpr_names).
 */
#include "input/pyexpr-impl.h"

#include <ctype.h>
#include <math.h> /* isinf, isnan: macros, no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/versions.h"

static struct mcinit_pv eval(struct mcinit_pyexpr *e, const struct node *n);

#define PROPAGATE(v)                                                                               \
	do {                                                                                       \
		if ((v).kind == MCINIT_PV_ERR)                                                     \
			return (v);                                                                \
	} while (0)

/* The most items a list repetition makes. */
#define LIST_MAX (1 << 20)

/* Python's name of a value's type, for its TypeError messages. */
static const char *
py_type(const struct mcinit_pv *v)
{
	switch (v->kind) {
	case MCINIT_PV_STR:
		return "str";
	case MCINIT_PV_INT:
		return "int";
	case MCINIT_PV_FLOAT:
		return "float";
	case MCINIT_PV_BOOL:
		return "bool";
	case MCINIT_PV_NONE:
		return "NoneType";
	case MCINIT_PV_LIST:
		return "list";
	default:
		return NULL;
	}
}

/* Whether a is a str and b a number (int, float, bool), or the reverse. */
static bool
str_and_num(const struct mcinit_pv *a, const struct mcinit_pv *b)
{
	return (a->kind == MCINIT_PV_STR && mcinit_pyx_is_num(b)) ||
	       (b->kind == MCINIT_PV_STR && mcinit_pyx_is_num(a));
}

static struct mcinit_pv
arith_op(struct mcinit_pyexpr *e, const char *op, struct mcinit_pv a, struct mcinit_pv b)
{
	bool ints = a.kind != MCINIT_PV_FLOAT && b.kind != MCINIT_PV_FLOAT;
	double x, y;

	if (strcmp(op, "+") == 0 && a.kind == MCINIT_PV_STR && b.kind == MCINIT_PV_STR) {
		char *t = mcinit_pyx_arena(e, strlen(a.s) + strlen(b.s) + 1);

		strcat(strcpy(t, a.s), b.s);
		return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
	}
	if (strcmp(op, "+") == 0 && a.kind == MCINIT_PV_LIST && b.kind == MCINIT_PV_LIST) {
		struct mcinit_pv *l = mcinit_pyexpr_alloc_list(e, a.n + b.n);

		memcpy(l, a.items, a.n * sizeof *l);
		memcpy(l + a.n, b.items, b.n * sizeof *l);
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = a.n + b.n};
	}
	/* list * int, int * list: the list repeated (Megatron-LM's layer
	 * patterns, "([1]*3+[0])*2"), bounded so that a pattern cannot eat
	 * memory */
	if (strcmp(op, "*") == 0 && ((a.kind == MCINIT_PV_LIST && b.kind == MCINIT_PV_INT) ||
	                             (a.kind == MCINIT_PV_INT && b.kind == MCINIT_PV_LIST))) {
		struct mcinit_pv l = a.kind == MCINIT_PV_LIST ? a : b, *r;
		long long k = a.kind == MCINIT_PV_LIST ? b.i : a.i, i;

		if (k < 0)
			k = 0;
		if (l.n > 0 && (unsigned long long)k > LIST_MAX / l.n)
			return mcinit_pyx_err(e, "list repeated past %d items", LIST_MAX);
		r = mcinit_pyexpr_alloc_list(e, l.n * (size_t)k);
		for (i = 0; i < k; i++)
			memcpy(r + (size_t)i * l.n, l.items, l.n * sizeof *r);
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = r, .n = l.n * (size_t)k};
	}
	/* A str with a number, which a value of another type than a field's
	 * makes (issue 38: Bridge keeps it): Python's TypeError, except where
	 * Python defines the operation (str * int repeats, str % x formats
	 * what has a % in it), which this evaluator leaves undecided. */
	if (str_and_num(&a, &b) &&
	    (op[0] == '+' || op[0] == '-' || op[0] == '*' || op[0] == '/' || op[0] == '%')) {
		const struct mcinit_pv *s = a.kind == MCINIT_PV_STR ? &a : &b,
		                       *n = s == &a ? &b : &a;

		if (strcmp(op, "**") == 0)
			return mcinit_pyx_type_err(e,
			                           "unsupported operand type(s) for ** or pow(): "
			                           "'%s' and '%s'",
			                           py_type(&a), py_type(&b));
		if (op[0] == '*' && n->kind != MCINIT_PV_FLOAT) {
			/* str * int: the str repeated (Bridge's lr_decay_iters *
			 * global_batch_size on a str it keeps), bounded as lists */
			long long k = n->i, i;
			size_t len = strlen(s->s);
			char *t;

			if (k < 0)
				k = 0;
			if (len > 0 && (unsigned long long)k > LIST_MAX / len)
				return mcinit_pyx_err(e, "str repeated past %d characters",
				                      LIST_MAX);
			t = mcinit_pyx_arena(e, len * (size_t)k + 1);
			t[0] = '\0';
			for (i = 0; i < k; i++)
				memcpy(t + (size_t)i * len, s->s, len + 1);
			return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
		}
		if (op[0] == '*')
			return mcinit_pyx_type_err(e, "can't multiply sequence by non-int of type "
			                              "'float'");
		if (op[0] == '%' && s == &a) {
			if (strchr(a.s, '%') != NULL)
				return mcinit_pyx_err(e, "unsupported operand types for %s", op);
			return mcinit_pyx_type_err(e, "not all arguments converted during string "
			                              "formatting");
		}
		if (op[0] == '+' && s == &a)
			return mcinit_pyx_type_err(
			    e, "can only concatenate str (not \"%s\") to str", py_type(&b));
		return mcinit_pyx_type_err(e, "unsupported operand type(s) for %s: '%s' and '%s'",
		                           op, py_type(&a), py_type(&b));
	}
	if (!mcinit_pyx_is_num(&a) || !mcinit_pyx_is_num(&b))
		return mcinit_pyx_err(e, "unsupported operand types for %s", op);
	x = mcinit_pyx_num(&a);
	y = mcinit_pyx_num(&b);
	if ((op[0] == '/' || op[0] == '%') && y == 0)
		return mcinit_pyx_err(e, "division by zero");
	if (ints && op[0] == '&')
		return a.kind == MCINIT_PV_BOOL && b.kind == MCINIT_PV_BOOL
		           ? mcinit_pyx_mkbool(a.i & b.i)
		           : mcinit_pyx_mkint(a.i & b.i);
	if (ints && op[0] == '|')
		return a.kind == MCINIT_PV_BOOL && b.kind == MCINIT_PV_BOOL
		           ? mcinit_pyx_mkbool(a.i | b.i)
		           : mcinit_pyx_mkint(a.i | b.i);
	if (strcmp(op, "/") == 0)
		return mcinit_pyx_mkfloat(x / y);
	if (ints) {
		long long i = a.i, j = b.i, q, r;

		switch (op[0]) {
		case '+':
			return mcinit_pyx_mkint(i + j);
		case '-':
			return mcinit_pyx_mkint(i - j);
		case '*':
			if (op[1] == '*') {
				long long p = 1;

				if (j < 0)
					return mcinit_pyx_mkfloat(mcinit_pyx_pow(x, y));
				while (j-- > 0)
					p *= i;
				return mcinit_pyx_mkint(p);
			}
			return mcinit_pyx_mkint(i * j);
		case '/':
		case '%':
			/* Python floors */
			q = i / j;
			r = i % j;
			if (r != 0 && ((r < 0) != (j < 0))) {
				q--;
				r += j;
			}
			return mcinit_pyx_mkint(op[0] == '%' ? r : q);
		}
	}
	switch (op[0]) {
	case '+':
		return mcinit_pyx_mkfloat(x + y);
	case '-':
		return mcinit_pyx_mkfloat(x - y);
	case '*':
		return mcinit_pyx_mkfloat(op[1] == '*' ? mcinit_pyx_pow(x, y) : x * y);
	case '/':
		return mcinit_pyx_mkfloat(mcinit_pyx_floor(x / y));
	case '%':
		return mcinit_pyx_mkfloat(x - mcinit_pyx_floor(x / y) * y);
	}
	return mcinit_pyx_err(e, "operator %s", op);
}

static struct mcinit_pv
cmp(struct mcinit_pyexpr *e, const char *op, const struct mcinit_pv *a, const struct mcinit_pv *b)
{
	size_t i;
	int c;

	if (strcmp(op, "==") == 0)
		return mcinit_pyx_mkbool(mcinit_pyx_equal(a, b));
	if (strcmp(op, "!=") == 0)
		return mcinit_pyx_mkbool(!mcinit_pyx_equal(a, b));
	if (strcmp(op, "is") == 0 || strcmp(op, "isn") == 0) {
		bool same =
		    a->kind == b->kind && (a->kind == MCINIT_PV_NONE || mcinit_pyx_equal(a, b));

		return mcinit_pyx_mkbool(op[2] == 'n' ? !same : same);
	}
	if (strcmp(op, "in") == 0 || strcmp(op, "nin") == 0) {
		bool found = false;

		if (b->kind == MCINIT_PV_LIST) {
			for (i = 0; i < b->n && !found; i++)
				found = mcinit_pyx_equal(a, &b->items[i]);
		} else if (b->kind == MCINIT_PV_STR && a->kind == MCINIT_PV_STR) {
			found = strstr(b->s, a->s) != NULL;
		} else {
			return mcinit_pyx_err(e, "argument of type %s is not iterable",
			                      b->kind == MCINIT_PV_NONE ? "NoneType" : "scalar");
		}
		return mcinit_pyx_mkbool(op[0] == 'n' ? !found : found);
	}
	if (mcinit_pyx_is_num(a) && mcinit_pyx_is_num(b)) {
		double x = mcinit_pyx_num(a), y = mcinit_pyx_num(b);

		/* nan is unordered: every ordering is False */
		if (isnan(x) || isnan(y))
			return mcinit_pyx_mkbool(false);
		c = x < y ? -1 : x > y;
	} else if (a->kind == MCINIT_PV_STR && b->kind == MCINIT_PV_STR) {
		c = strcmp(a->s, b->s);
	} else if (str_and_num(a, b)) {
		/* Python 3 orders no str against a number: TypeError (a value
		 * of another type than a field's, which Bridge keeps) */
		return mcinit_pyx_type_err(e,
		                           "'%s' not supported between instances of '%s' and '%s'",
		                           op, py_type(a), py_type(b));
	} else {
		return mcinit_pyx_err(e, "'%s' not supported between these types", op);
	}
	if (op[0] == '<')
		return mcinit_pyx_mkbool(op[1] == '=' ? c <= 0 : c < 0);
	return mcinit_pyx_mkbool(op[1] == '=' ? c >= 0 : c > 0);
}

static struct mcinit_pv
fstring(struct mcinit_pyexpr *e, const char *s)
{
	struct mcx_buf b = {0};
	struct mcinit_pv v;

	while (*s) {
		if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
			mcx_buf_addc(&b, *s);
			s += 2;
			continue;
		}
		if (*s == '{') {
			const char *end = s + 1;
			int depth = 1;
			char *inner, *cut;
			struct mcinit_pyexpr *sub;
			char *why = NULL;
			bool show = false;

			while (*end && depth > 0) {
				depth += *end == '{' || *end == '[' || *end == '(';
				depth -= *end == '}' || *end == ']' || *end == ')';
				if (depth > 0)
					end++;
			}
			inner = mcx_xasprintf("%.*s", (int)(end - s - 1), s + 1);
			/* drop !r / :spec, note a trailing = */
			for (cut = inner, depth = 0; *cut; cut++) {
				depth += *cut == '[' || *cut == '(';
				depth -= *cut == ']' || *cut == ')';
				if (depth == 0 && (*cut == ':' || (*cut == '!' && cut[1] != '='))) {
					*cut = '\0';
					break;
				}
			}
			cut = inner + strlen(inner);
			while (cut > inner && cut[-1] == ' ')
				*--cut = '\0';
			if (cut > inner && cut[-1] == '=' &&
			    (cut - inner < 2 || !strchr("=!<>", cut[-2]))) {
				*--cut = '\0';
				show = true;
				mcx_buf_printf(&b, "%s=", inner);
			}
			sub = mcinit_pyexpr_parse(inner, &why);
			if (sub == NULL) {
				mcx_buf_printf(&b, "{%s}", inner);
				free(why);
			} else {
				v = mcinit_pyexpr_eval(sub, e->fn, e->ctx);
				mcinit_pyx_str_in(&b, &v, show);
				mcinit_pyexpr_free(sub);
			}
			free(inner);
			s = *end ? end + 1 : end;
			continue;
		}
		mcx_buf_addc(&b, *s++);
	}
	v = mcinit_pyx_mkstr(e, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return v;
}

static struct mcinit_pv
type_test(const struct mcinit_pv *v, const char *t)
{
	if (strcmp(t, "list") == 0 || strcmp(t, "tuple") == 0)
		return mcinit_pyx_mkbool(v->kind == MCINIT_PV_LIST);
	if (strcmp(t, "int") == 0)
		return mcinit_pyx_mkbool(v->kind == MCINIT_PV_INT || v->kind == MCINIT_PV_BOOL);
	if (strcmp(t, "float") == 0)
		return mcinit_pyx_mkbool(v->kind == MCINIT_PV_FLOAT);
	if (strcmp(t, "str") == 0)
		return mcinit_pyx_mkbool(v->kind == MCINIT_PV_STR);
	if (strcmp(t, "bool") == 0)
		return mcinit_pyx_mkbool(v->kind == MCINIT_PV_BOOL);
	return mcinit_pyx_mkbool(false);
}

static struct mcinit_pv iterable(struct mcinit_pyexpr *e, struct mcinit_pv v);

/* set(l): the distinct items of l, in first-seen order (Python's set order
 * is its own; only messages could show the difference). */
static struct mcinit_pv
distinct(struct mcinit_pyexpr *e, struct mcinit_pv l)
{
	struct mcinit_pv *d;
	size_t i, j, k = 0;

	PROPAGATE(l);
	d = mcinit_pyexpr_alloc_list(e, l.n);
	for (i = 0; i < l.n; i++) {
		for (j = 0; j < k && !mcinit_pyx_equal(&d[j], &l.items[i]); j++)
			;
		if (j == k)
			d[k++] = l.items[i];
	}
	return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = d, .n = k};
}

/* The name `getattr(obj, "attr")` reads: what `obj.attr` names (attribute()
 * in pyexpr-parse.c): "attr" for args, self and config, "obj.attr" for
 * another name or dotted name.  NULL for an object that is no name (a call, ...). */
static const char *
getattr_name(const struct node *obj, const char *attr, char *buf, size_t len)
{
	if (obj->kind != N_NAME)
		return NULL;
	if (obj->op[0] == '%' && (strcmp(obj->s, "args") == 0 || strcmp(obj->s, "self") == 0 ||
	                          strcmp(obj->s, "config") == 0))
		return attr;
	snprintf(buf, len, "%s.%s", obj->s, attr);
	return buf;
}

/* Python's own type names, which isinstance tests itself; any other class
 * name is the resolver's ("obj:Class"). */
static bool
builtin_type(const char *t)
{
	static const char *const b[] = {"list", "tuple", "int", "float", "str",
	                                "bool", "dict",  "set", NULL};
	size_t i;

	for (i = 0; b[i]; i++)
		if (strcmp(t, b[i]) == 0)
			return true;
	return false;
}

/* isinstance(obj, cls) for a class the resolver knows: obj a name (not a
 * comprehension's variable), asked as "obj:Class" ("%local:Class" for a
 * bare name).  0 with *out set, or -1 when the resolver does not know. */
static int
class_test(struct mcinit_pyexpr *e, const struct node *obj, const char *cls, struct mcinit_pv *out)
{
	char buf[200];
	size_t i;

	if (obj->kind != N_NAME || builtin_type(cls))
		return -1;
	for (i = 0; obj->op[0] == '%' && i < e->nbinds; i++)
		if (strcmp(e->binds[i].name, obj->s) == 0)
			return -1;
	snprintf(buf, sizeof buf, "%s%s:%s", obj->op[0] == '%' ? "%" : "", obj->s, cls);
	return e->fn(e->ctx, e, buf, out);
}

/* is_te_min_version(v) / is_torch_min_version(v): the installed version is
 * what the resolver answers for the probe get_te_version() /
 * get_torch_version() (an error, so undecided, when it does not know). */
static struct mcinit_pv
min_version(struct mcinit_pyexpr *e, const char *f, const char *want)
{
	const char *probe =
	    strcmp(f, "is_te_min_version") == 0 ? "get_te_version()" : "get_torch_version()";
	struct mcinit_pv have;
	int c;

	if (e->fn(e->ctx, e, probe, &have) != 0)
		return mcinit_pyx_err(e, "%s is not known", probe);
	if (have.kind != MCINIT_PV_STR || mcinit_version_cmp(have.s, want, &c) < 0)
		return mcinit_pyx_err(e, "%s: not a version", probe);
	return mcinit_pyx_mkbool(c >= 0);
}

static struct mcinit_pv
call(struct mcinit_pyexpr *e, const struct node *n)
{
	struct mcinit_pv a[4];
	size_t i, k = n->nkids;
	const char *f = n->s;
	struct mcx_buf b = {0};

	if (strcmp(f, "getattr") == 0 && k >= 2 && n->kids[1]->kind == N_CONST &&
	    n->kids[1]->val.kind == MCINIT_PV_STR) {
		struct mcinit_pv v;
		char buf[200];
		const char *name = getattr_name(n->kids[0], n->kids[1]->val.s, buf, sizeof buf);

		if (name != NULL && e->fn(e->ctx, e, name, &v) == 0)
			return v;
		return k >= 3 ? eval(e, n->kids[2])
		              : mcinit_pyx_err(e, "unknown name %s", n->kids[1]->val.s);
	}
	if (strcmp(f, "isinstance") == 0 && k == 2) {
		const struct node *cls = n->kids[1];
		struct mcinit_pv c;
		size_t nc = cls->kind == N_LIST ? cls->nkids : 1;

		/* a class the resolver knows: a config section's class */
		for (i = 0; i < nc; i++) {
			const struct node *one = cls->kind == N_LIST ? cls->kids[i] : cls;

			if (one->kind != N_NAME || class_test(e, n->kids[0], one->s, &c) < 0)
				break;
			if (mcinit_pv_truthy(&c))
				return mcinit_pyx_mkbool(true);
			if (i + 1 == nc)
				return mcinit_pyx_mkbool(false);
		}
		a[0] = eval(e, n->kids[0]);
		PROPAGATE(a[0]);
		if (cls->kind == N_NAME)
			return type_test(&a[0], cls->s);
		if (cls->kind == N_LIST) {
			for (i = 0; i < cls->nkids; i++)
				if (cls->kids[i]->kind == N_NAME &&
				    type_test(&a[0], cls->kids[i]->s).i)
					return mcinit_pyx_mkbool(true);
			return mcinit_pyx_mkbool(false);
		}
		return mcinit_pyx_err(e, "isinstance of an expression");
	}
	if ((strcmp(f, "os.getenv") == 0 || strcmp(f, "os.environ.get") == 0) && k >= 1 &&
	    n->kids[0]->kind == N_CONST && n->kids[0]->val.kind == MCINIT_PV_STR) {
		/* the environment is the resolver's: "$NAME" */
		char *var = mcx_xasprintf("$%s", n->kids[0]->val.s);
		struct mcinit_pv v;
		int r = e->fn(e->ctx, e, var, &v);

		free(var);
		if (r == 0)
			return v;
		return k >= 2 ? eval(e, n->kids[1]) : (struct mcinit_pv){.kind = MCINIT_PV_NONE};
	}
	if (k == 0 && (strcmp(f, "set") == 0 || strcmp(f, "list") == 0 || strcmp(f, "tuple") == 0))
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST};
	if (k == 0) {
		/* a probe of the machine, such as get_device_arch_version(): the
		 * resolver may know it as "name()" */
		char *q = mcx_xasprintf("%s()", f);
		struct mcinit_pv v;
		int r = e->fn(e->ctx, e, q, &v);

		free(q);
		if (r == 0)
			return v;
		return mcinit_pyx_err(e, "function %s is not supported", f);
	}
	if (k > 4)
		return mcinit_pyx_err(e, "too many arguments to %s", f);
	for (i = 0; i < k; i++) {
		a[i] = eval(e, n->kids[i]);
		PROPAGATE(a[i]);
	}
	if (strcmp(f, "len") == 0 && k == 1) {
		if (a[0].kind == MCINIT_PV_LIST)
			return mcinit_pyx_mkint((long long)a[0].n);
		if (a[0].kind == MCINIT_PV_STR)
			return mcinit_pyx_mkint((long long)strlen(a[0].s));
		return mcinit_pyx_err(e, "object has no len()");
	}
	if (strcmp(f, "bool") == 0 && k == 1)
		return mcinit_pyx_mkbool(mcinit_pv_truthy(&a[0]));
	if (strcmp(f, "PkgVersion") == 0 && k == 1 && a[0].kind == MCINIT_PV_STR)
		return a[0]; /* compared as text; is_*_min_version order them */
	if ((strcmp(f, "is_te_min_version") == 0 || strcmp(f, "is_torch_min_version") == 0) &&
	    k == 1 && a[0].kind == MCINIT_PV_STR)
		return min_version(e, f, a[0].s);
	if ((strcmp(f, "set") == 0 || strcmp(f, "list") == 0 || strcmp(f, "tuple") == 0) && k == 1)
		return f[0] == 's' ? distinct(e, iterable(e, a[0])) : iterable(e, a[0]);
	if (strcmp(f, "math.isfinite") == 0 && k == 1) {
		if (!mcinit_pyx_is_num(&a[0]))
			return mcinit_pyx_err(e, "must be real number");
		return mcinit_pyx_mkbool(!isinf(mcinit_pyx_num(&a[0])) &&
		                         !isnan(mcinit_pyx_num(&a[0])));
	}
	if (strcmp(f, "int") == 0 && k == 1) {
		if (mcinit_pyx_is_num(&a[0]))
			return mcinit_pyx_mkint((long long)mcinit_pyx_num(&a[0]));
		if (a[0].kind == MCINIT_PV_STR) {
			char *end;
			long long v = strtoll(a[0].s, &end, 10);

			if (*a[0].s && *end == '\0')
				return mcinit_pyx_mkint(v);
		}
		return mcinit_pyx_err(e, "invalid literal for int()");
	}
	if (strcmp(f, "float") == 0 && k == 1) {
		if (mcinit_pyx_is_num(&a[0]))
			return mcinit_pyx_mkfloat(mcinit_pyx_num(&a[0]));
		if (a[0].kind == MCINIT_PV_STR) {
			char *end;
			double v = strtod(a[0].s, &end);

			if (*a[0].s && *end == '\0')
				return mcinit_pyx_mkfloat(v);
		}
		return mcinit_pyx_err(e, "could not convert to float");
	}
	if (strcmp(f, "str") == 0 && k == 1) {
		struct mcinit_pv v;

		mcinit_pv_str(&b, &a[0]);
		v = mcinit_pyx_mkstr(e, mcx_buf_cstr(&b));
		mcx_buf_free(&b);
		return v;
	}
	if ((strcmp(f, "math.lcm") == 0 || strcmp(f, "math.gcd") == 0) && k >= 1) {
		long long r = f[5] == 'l' ? 1 : 0;

		for (i = 0; i < k; i++) {
			long long v, g, t;

			if (a[i].kind != MCINIT_PV_INT && a[i].kind != MCINIT_PV_BOOL)
				return mcinit_pyx_err(
				    e, "'%s' object cannot be interpreted as an integer",
				    a[i].kind == MCINIT_PV_FLOAT ? "float" : "non-int");
			v = a[i].i < 0 ? -a[i].i : a[i].i;
			for (g = r, t = v; t != 0;) { /* gcd(r, v) */
				long long m = g % t;

				g = t;
				t = m;
			}
			if (f[5] == 'g')
				r = g;
			else
				r = r == 0 || v == 0 ? 0 : r / g * v;
		}
		return mcinit_pyx_mkint(r);
	}
	if (strcmp(f, "abs") == 0 && k == 1 && mcinit_pyx_is_num(&a[0]))
		return a[0].kind == MCINIT_PV_FLOAT
		           ? mcinit_pyx_mkfloat(a[0].f < 0 ? -a[0].f : a[0].f)
		           : mcinit_pyx_mkint(a[0].i < 0 ? -a[0].i : a[0].i);
	if ((strcmp(f, "min") == 0 || strcmp(f, "max") == 0 || strcmp(f, "sum") == 0 ||
	     strcmp(f, "any") == 0 || strcmp(f, "all") == 0) &&
	    k >= 1) {
		const struct mcinit_pv *items = a;
		size_t cnt = k, j;
		struct mcinit_pv best;

		if (k == 1) {
			if (a[0].kind != MCINIT_PV_LIST)
				return mcinit_pyx_err(e, "%s() of a non-list", f);
			items = a[0].items;
			cnt = a[0].n;
		}
		if (f[1] == 'n' || f[1] == 'l') { /* any, all */
			bool any = f[1] == 'n';

			for (j = 0; j < cnt; j++)
				if (mcinit_pv_truthy(&items[j]) == any)
					return mcinit_pyx_mkbool(any);
			return mcinit_pyx_mkbool(!any);
		}
		if (f[0] == 's') {
			struct mcinit_pv s = mcinit_pyx_mkint(0);

			for (j = 0; j < cnt; j++) {
				s = arith_op(e, "+", s, items[j]);
				PROPAGATE(s);
			}
			return s;
		}
		if (cnt == 0)
			return mcinit_pyx_err(e, "%s() of an empty list", f);
		best = items[0];
		for (j = 1; j < cnt; j++) {
			struct mcinit_pv c = cmp(e, f[1] == 'i' ? "<" : ">", &items[j], &best);

			PROPAGATE(c);
			if (c.i)
				best = items[j];
		}
		return best;
	}
	return mcinit_pyx_err(e, "function %s is not supported", f);
}

/* s.replace(from, to) for a non-empty from: every occurrence. */
static struct mcinit_pv
replace(struct mcinit_pyexpr *e, const char *s, const char *from, const char *to)
{
	struct mcx_buf b = {0};
	struct mcinit_pv v;
	size_t lf = strlen(from);
	const char *q;

	while ((q = strstr(s, from)) != NULL) {
		mcx_buf_add(&b, s, (size_t)(q - s));
		mcx_buf_adds(&b, to);
		s = q + lf;
	}
	mcx_buf_adds(&b, s);
	v = mcinit_pyx_mkstr(e, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return v;
}

/* sep.join(l): l's strings with sep between them. */
static struct mcinit_pv
join(struct mcinit_pyexpr *e, const char *sep, struct mcinit_pv l)
{
	struct mcx_buf b = {0};
	struct mcinit_pv v;
	size_t i;

	for (i = 0; i < l.n; i++) {
		if (l.items[i].kind != MCINIT_PV_STR) {
			mcx_buf_free(&b);
			return mcinit_pyx_err(e, "sequence item %zu: expected str instance", i);
		}
		if (i > 0)
			mcx_buf_adds(&b, sep);
		mcx_buf_adds(&b, l.items[i].s);
	}
	v = mcinit_pyx_mkstr(e, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return v;
}

/* str.strip([chars]): without chars, Python's whitespace (ASCII here). */
static struct mcinit_pv
strip(struct mcinit_pyexpr *e, const char *s, const char *chars)
{
	const char *set = chars ? chars : " \t\n\r\v\f";
	size_t b = 0, n = strlen(s);
	char *t;

	while (b < n && s[b] != '\0' && strchr(set, s[b]) != NULL)
		b++;
	while (n > b && strchr(set, s[n - 1]) != NULL)
		n--;
	t = mcinit_pyx_arena(e, n - b + 1);
	memcpy(t, s + b, n - b);
	return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
}

static struct mcinit_pv
method(struct mcinit_pyexpr *e, const struct node *n)
{
	struct mcinit_pv o = eval(e, n->kids[0]), a = {0};
	const char *m = n->s;

	PROPAGATE(o);
	if (n->nkids > 1) {
		a = eval(e, n->kids[1]);
		PROPAGATE(a);
	}
	if (o.kind == MCINIT_PV_STR) {
		size_t lo = strlen(o.s), la;

		if ((strcmp(m, "startswith") == 0 || strcmp(m, "endswith") == 0) &&
		    a.kind == MCINIT_PV_STR) {
			la = strlen(a.s);
			if (la > lo)
				return mcinit_pyx_mkbool(false);
			return mcinit_pyx_mkbool(
			    strncmp(m[0] == 's' ? o.s : o.s + lo - la, a.s, la) == 0);
		}
		if (strcmp(m, "lower") == 0 || strcmp(m, "upper") == 0) {
			char *t = (char *)mcinit_pyexpr_strdup(e, o.s), *p;

			for (p = t; *p; p++)
				*p = (char)(m[0] == 'l' ? tolower((unsigned char)*p)
				                        : toupper((unsigned char)*p));
			return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
		}
		if (strcmp(m, "split") == 0 && a.kind == MCINIT_PV_STR && a.s[0]) {
			size_t cnt = 1, i = 0, la2 = strlen(a.s);
			const char *p = o.s, *q;
			struct mcinit_pv *l;

			for (q = o.s; (q = strstr(q, a.s)) != NULL; q += la2)
				cnt++;
			l = mcinit_pyexpr_alloc_list(e, cnt);
			while ((q = strstr(p, a.s)) != NULL) {
				char *t = mcinit_pyx_arena(e, (size_t)(q - p) + 1);

				memcpy(t, p, (size_t)(q - p));
				l[i++] = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
				p = q + la2;
			}
			l[i++] = mcinit_pyx_mkstr(e, p);
			return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = i};
		}
		if (strcmp(m, "strip") == 0 && (n->nkids == 1 || a.kind == MCINIT_PV_STR))
			return strip(e, o.s, n->nkids == 1 ? NULL : a.s);
		if (strcmp(m, "join") == 0 && a.kind == MCINIT_PV_LIST)
			return join(e, o.s, a);
		if (strcmp(m, "replace") == 0 && n->nkids == 3 && a.kind == MCINIT_PV_STR &&
		    a.s[0]) {
			struct mcinit_pv to = eval(e, n->kids[2]);

			PROPAGATE(to);
			if (to.kind != MCINIT_PV_STR)
				return mcinit_pyx_err(e, "replace() argument 2 must be str");
			return replace(e, o.s, a.s, to.s);
		}
		if (strcmp(m, "count") == 0 && a.kind == MCINIT_PV_STR && a.s[0]) {
			long long c = 0;
			const char *p = o.s;

			while ((p = strstr(p, a.s)) != NULL) {
				c++;
				p += strlen(a.s);
			}
			return mcinit_pyx_mkint(c);
		}
	}
	if (o.kind == MCINIT_PV_LIST && strcmp(m, "count") == 0 && n->nkids > 1) {
		long long c = 0;
		size_t i;

		for (i = 0; i < o.n; i++)
			c += mcinit_pyx_equal(&o.items[i], &a);
		return mcinit_pyx_mkint(c);
	}
	return mcinit_pyx_err(e, "method %s is not supported", m);
}

/* "%name" in buf (cut to fit, as snprintf would). */
static const char *
bare_name(char *buf, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (n > len - 2)
		n = len - 2;
	buf[0] = '%';
	memcpy(buf + 1, name, n);
	buf[n + 1] = '\0';
	return buf;
}

/* Bare names reach the resolver as "%name", unless a comprehension
 * around them binds the name. */
static int
resolve_name(struct mcinit_pyexpr *e, const struct node *n, struct mcinit_pv *out)
{
	char buf[160];
	size_t i;

	for (i = e->nbinds; n->op[0] == '%' && i-- > 0;)
		if (strcmp(e->binds[i].name, n->s) == 0) {
			*out = e->binds[i].v;
			return 0;
		}
	if (n->op[0] != '%')
		return e->fn(e->ctx, e, n->s, out);
	return e->fn(e->ctx, e, bare_name(buf, sizeof buf, n->s), out);
}

/* The items of a list, or the characters of a string, as a list. */
static struct mcinit_pv
iterable(struct mcinit_pyexpr *e, struct mcinit_pv v)
{
	struct mcinit_pv *l;
	size_t i, n;

	if (v.kind == MCINIT_PV_LIST || v.kind == MCINIT_PV_ERR)
		return v;
	if (v.kind != MCINIT_PV_STR)
		return mcinit_pyx_err(e, "object is not iterable");
	n = strlen(v.s);
	l = mcinit_pyexpr_alloc_list(e, n);
	for (i = 0; i < n; i++) {
		char c[2] = {v.s[i], '\0'};

		l[i] = mcinit_pyx_mkstr(e, c);
	}
	return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = n};
}

/* [elem for name in iter if cond]: the loop variable is bound while elem
 * and cond are evaluated. */
static struct mcinit_pv
comp_eval(struct mcinit_pyexpr *e, const struct node *n)
{
	struct mcinit_pv it = iterable(e, eval(e, n->kids[1])), *l, v = {0};
	size_t i, k = 0;

	PROPAGATE(it);
	if (e->nbinds == sizeof e->binds / sizeof e->binds[0])
		return mcinit_pyx_err(e, "comprehensions nested too deep");
	l = mcinit_pyexpr_alloc_list(e, it.n);
	e->binds[e->nbinds].name = n->s;
	e->nbinds++;
	for (i = 0; i < it.n; i++) {
		e->binds[e->nbinds - 1].v = it.items[i];
		if (n->nkids > 2) {
			v = eval(e, n->kids[2]);
			if (v.kind == MCINIT_PV_ERR)
				break;
			if (!mcinit_pv_truthy(&v))
				continue;
		}
		v = eval(e, n->kids[0]);
		if (v.kind == MCINIT_PV_ERR)
			break;
		l[k++] = v;
	}
	e->nbinds--;
	PROPAGATE(v);
	return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = k};
}

static struct mcinit_pv
eval(struct mcinit_pyexpr *e, const struct node *n)
{
	struct mcinit_pv a, b;
	size_t i;

	switch (n->kind) {
	case N_CONST:
		return n->val;
	case N_FSTR:
		return fstring(e, n->s);
	case N_NAME:
		if (resolve_name(e, n, &a) == 0)
			return a;
		return mcinit_pyx_err(e, "unknown name %s", n->s);
	case N_LIST: {
		struct mcinit_pv *l = mcinit_pyexpr_alloc_list(e, n->nkids);

		for (i = 0; i < n->nkids; i++) {
			l[i] = eval(e, n->kids[i]);
			PROPAGATE(l[i]);
		}
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = n->nkids};
	}
	case N_NOT:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		return mcinit_pyx_mkbool(!mcinit_pv_truthy(&a));
	case N_NEG:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		if (!mcinit_pyx_is_num(&a))
			return mcinit_pyx_err(e, "bad operand type for unary -");
		return a.kind == MCINIT_PV_FLOAT ? mcinit_pyx_mkfloat(-a.f)
		                                 : mcinit_pyx_mkint(-a.i);
	case N_AND:
	case N_OR:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		if (mcinit_pv_truthy(&a) == (n->kind == N_OR))
			return a;
		return eval(e, n->kids[1]);
	case N_BIN:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		b = eval(e, n->kids[1]);
		PROPAGATE(b);
		return arith_op(e, n->op, a, b);
	case N_CMP:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		for (i = 1; i < n->nkids; i++) {
			struct mcinit_pv r;

			b = eval(e, n->kids[i]);
			PROPAGATE(b);
			r = cmp(e, n->ops[i - 1], &a, &b);
			PROPAGATE(r);
			if (!r.i)
				return r;
			a = b;
		}
		return mcinit_pyx_mkbool(true);
	case N_IFELSE:
		a = eval(e, n->kids[1]);
		PROPAGATE(a);
		return eval(e, n->kids[mcinit_pv_truthy(&a) ? 0 : 2]);
	case N_CALL:
		return call(e, n);
	case N_METHOD:
		return method(e, n);
	case N_COMP:
		return comp_eval(e, n);
	case N_INDEX:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		b = eval(e, n->kids[1]);
		PROPAGATE(b);
		if (a.kind == MCINIT_PV_LIST && b.kind == MCINIT_PV_INT) {
			long long k = b.i < 0 ? (long long)a.n + b.i : b.i;

			if (k < 0 || k >= (long long)a.n)
				return mcinit_pyx_err(e, "list index out of range");
			return a.items[k];
		}
		return mcinit_pyx_err(e, "unsupported subscript");
	}
	return mcinit_pyx_err(e, "internal: node kind");
}

struct mcinit_pv
mcinit_pyexpr_eval(struct mcinit_pyexpr *e, mcinit_pyexpr_resolve fn, void *ctx)
{
	e->fn = fn;
	e->ctx = ctx;
	return eval(e, e->root);
}

bool
mcinit_pyx_builtin(const char *f)
{
	static const char *const b[] = {"len",
	                                "getattr",
	                                "isinstance",
	                                "int",
	                                "float",
	                                "str",
	                                "bool",
	                                "min",
	                                "max",
	                                "abs",
	                                "any",
	                                "all",
	                                "sum",
	                                "os.getenv",
	                                "os.environ.get",
	                                "set",
	                                "list",
	                                "tuple",
	                                "math.isfinite",
	                                "math.lcm",
	                                "math.gcd",
	                                "PkgVersion",
	                                "is_te_min_version",
	                                "is_torch_min_version",
	                                NULL};
	size_t i;

	for (i = 0; b[i]; i++)
		if (strcmp(f, b[i]) == 0)
			return true;
	return false;
}

bool
mcinit_pyx_method_known(const char *m)
{
	static const char *const b[] = {"startswith", "endswith", "lower", "upper",   "split",
	                                "count",      "join",     "strip", "replace", NULL};
	size_t i;

	for (i = 0; b[i]; i++)
		if (strcmp(m, b[i]) == 0)
			return true;
	return false;
}

/* The loop variables bound where names_in is: a comprehension's own
 * variable is no name for the resolver. */
struct scope {
	const char *name;
	const struct scope *up;
};

static bool
bound(const struct scope *sc, const char *name)
{
	for (; sc != NULL; sc = sc->up)
		if (strcmp(sc->name, name) == 0)
			return true;
	return false;
}

static void
names_in(const struct node *n, void (*fn)(void *, const char *), void *ctx, const struct scope *sc)
{
	size_t i;

	if (n->kind == N_COMP) {
		struct scope in = {n->s, sc};

		names_in(n->kids[1], fn, ctx, sc); /* the iterable is outside the loop */
		names_in(n->kids[0], fn, ctx, &in);
		if (n->nkids > 2)
			names_in(n->kids[2], fn, ctx, &in);
		return;
	}
	if (n->kind == N_NAME && n->op[0] == '%' && bound(sc, n->s))
		return;
	if (n->kind == N_NAME && n->op[0] == '%') {
		char buf[160];

		fn(ctx, bare_name(buf, sizeof buf, n->s));
	} else if (n->kind == N_NAME) {
		fn(ctx, n->s);
	}
	if (n->kind == N_CALL && strcmp(n->s, "getattr") == 0 && n->nkids >= 2 &&
	    n->kids[1]->kind == N_CONST && n->kids[1]->val.kind == MCINIT_PV_STR) {
		char buf[200];
		const char *name = getattr_name(n->kids[0], n->kids[1]->val.s, buf, sizeof buf);

		/* with a default, a name the resolver does not know is no gap */
		if (n->nkids < 3 && name != NULL)
			fn(ctx, name);
		for (i = 2; i < n->nkids; i++)
			names_in(n->kids[i], fn, ctx, sc);
		return;
	}
	if (n->kind == N_CALL && strcmp(n->s, "isinstance") == 0 && n->nkids == 2) {
		const struct node *obj = n->kids[0], *cls = n->kids[1];
		size_t nc = cls->kind == N_LIST ? cls->nkids : 1;

		for (i = 0; i < nc; i++) {
			const struct node *one = cls->kind == N_LIST ? cls->kids[i] : cls;
			char buf[200];

			if (obj->kind == N_NAME && one->kind == N_NAME && !builtin_type(one->s) &&
			    !(obj->op[0] == '%' && bound(sc, obj->s))) {
				snprintf(buf, sizeof buf, "%s%s:%s", obj->op[0] == '%' ? "%" : "",
				         obj->s, one->s);
				fn(ctx, buf);
			}
		}
		names_in(obj, fn, ctx, sc);
		return;
	}
	if (n->kind == N_CALL && strcmp(n->s, "is_te_min_version") == 0)
		fn(ctx, "get_te_version()"); /* the probe min_version asks */
	else if (n->kind == N_CALL && strcmp(n->s, "is_torch_min_version") == 0)
		fn(ctx, "get_torch_version()");
	if (n->kind == N_CALL && n->nkids == 0) {
		char *q = mcx_xasprintf("%s()", n->s);

		fn(ctx, q);
		free(q);
	} else if (n->kind == N_CALL && !mcinit_pyx_builtin(n->s)) {
		char *q = mcx_xasprintf("%s(...)", n->s);

		fn(ctx, q);
		free(q);
	}
	if (n->kind == N_METHOD && !mcinit_pyx_method_known(n->s)) {
		char *q = mcx_xasprintf(".%s()", n->s);

		fn(ctx, q);
		free(q);
	}
	for (i = 0; i < n->nkids; i++)
		names_in(n->kids[i], fn, ctx, sc);
}

void
mcinit_pyexpr_names(const struct mcinit_pyexpr *e, void (*fn)(void *ctx, const char *name),
                    void *ctx)
{
	names_in(e->root, fn, ctx, NULL);
}
