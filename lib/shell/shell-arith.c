/* shell-arith.c — $((...)) and (( )) arithmetic, as bash evaluates it (64-bit,
 * wrapping). */
#include "shell/shell-impl.h"

/* ---- $((...)) arithmetic, as bash evaluates it (64-bit, wrapping) ---- */

static long long arith_deeper(struct arith *a, int prec, int unary);

static const char arith_deep_msg[] = "arithmetic nested too deeply (more than 256 levels)";

/* Enters one level of the evaluator: 0, or 1 (why set, and the scan told
 * so it fails at the expression's place) past MAX_ARITH_DEPTH. */
static int
arith_enter(struct arith *a)
{
	if (++a->nest <= MAX_ARITH_DEPTH)
		return 0;
	a->why = arith_deep_msg;
	a->x->too_deep = arith_deep_msg;
	return 1;
}

void
mcinit_sh_arith_ws(struct arith *a)
{
	while (a->i < a->n && strchr(" \t\n\r", a->s[a->i]) != NULL)
		a->i++;
}

int
mcinit_sh_arith_peek(struct arith *a, const char *op)
{
	size_t n = strlen(op);

	mcinit_sh_arith_ws(a);
	return a->n - a->i >= n && memcmp(a->s + a->i, op, n) == 0;
}

/* A number: decimal, 0x hex, 0 octal, BASE#digits. */
static long long
arith_number(struct arith *a)
{
	unsigned long long v = 0;
	int base = 10;
	size_t st = a->i;

	while (a->i < a->n &&
	       (mcinit_sh_is_ident((unsigned char)a->s[a->i], 0) || a->s[a->i] == '#'))
		a->i++;
	{
		char *t = mcx_xasprintf("%.*s", (int)(a->i - st), a->s + st),
		     *hash = strchr(t, '#'), *d = t, *end;

		if (hash != NULL) {
			*hash = '\0';
			base = atoi(t);
			d = hash + 1;
		} else if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
			base = 16;
			d = t + 2;
		} else if (t[0] == '0' && t[1] != '\0') {
			base = 8;
			d = t + 1;
		}
		if (base < 2 || base > 36) {
			a->why = "invalid arithmetic base";
		} else {
			errno = 0;
			v = strtoull(d, &end, base);
			if (*end != '\0' || end == d)
				a->why = "invalid number in arithmetic";
		}
		free(t);
	}
	return (long long)v;
}

static long long
arith_var(struct arith *a, const char *name, size_t len)
{
	int vi = mcinit_sh_var_find(a->x, name, len);
	const struct var *v = vi >= 0 ? &a->x->vars[vi] : NULL;
	struct arith sub = {0};
	long long r;
	char *t;

	if (v == NULL || !v->defined) {
		a->why = "a variable not assigned in this script";
		return 0;
	}
	if (v->val.n == 0 || mcinit_sh_ps_opaque(&v->val.v[0])) {
		a->why = "a variable known only at run time";
		return 0;
	}
	if (a->depth > 16) {
		a->why = "arithmetic variables refer to each other too deeply";
		return 0;
	}
	t = mcinit_sh_ps_text(&v->val.v[0]);
	sub.x = a->x;
	sub.s = t;
	sub.n = strlen(t);
	sub.depth = a->depth + 1;
	sub.nest = a->nest;
	r = sub.n == 0 ? 0 : mcinit_sh_arith_expr(&sub, 0); /* bash: an empty value is 0 */
	mcinit_sh_arith_ws(&sub);
	if (sub.why == NULL && sub.i < sub.n)
		sub.why = "a variable whose value is not a number";
	if (sub.why != NULL)
		a->why = sub.why;
	free(t);
	return r;
}

static long long
arith_unary(struct arith *a)
{
	char c;

	mcinit_sh_arith_ws(a);
	if (a->i >= a->n) {
		a->why = "arithmetic syntax error";
		return 0;
	}
	c = a->s[a->i];
	if (mcinit_sh_arith_peek(a, "++") || mcinit_sh_arith_peek(a, "--")) {
		a->why = "++/-- in arithmetic";
		return 0;
	}
	if (strchr("+-!~", c)) {
		long long v;

		a->i++;
		v = arith_deeper(a, 0, 1);
		return c == '-'   ? (long long)(0 - (unsigned long long)v)
		       : c == '!' ? !v
		       : c == '~' ? ~v
		                  : v;
	}
	if (c == '(') {
		long long v;

		a->i++;
		v = arith_deeper(a, 0, 0);
		if (!mcinit_sh_arith_peek(a, ")"))
			a->why = "arithmetic syntax error";
		else
			a->i++;
		return v;
	}
	if (c == '$') { /* $V and ${V} inside $((...)) */
		size_t st;

		a->i++;
		if (a->i < a->n && a->s[a->i] == '{') {
			st = ++a->i;
			while (a->i < a->n &&
			       mcinit_sh_is_ident((unsigned char)a->s[a->i], a->i == st))
				a->i++;
			if (a->i >= a->n || a->s[a->i] != '}' || a->i == st) {
				a->why = "a parameter expansion mcinit does not evaluate";
				return 0;
			}
			a->i++;
			return arith_var(a, a->s + st, a->i - 1 - st);
		}
		st = a->i;
		while (a->i < a->n && mcinit_sh_is_ident((unsigned char)a->s[a->i], a->i == st))
			a->i++;
		if (a->i == st) {
			a->why = "a script argument or special parameter";
			return 0;
		}
		return arith_var(a, a->s + st, a->i - st);
	}
	if (mcinit_sh_is_digit(c))
		return arith_number(a);
	if (mcinit_sh_is_ident(c, 1)) {
		size_t st = a->i;

		while (a->i < a->n && mcinit_sh_is_ident((unsigned char)a->s[a->i], 0))
			a->i++;
		return arith_var(a, a->s + st, a->i - st);
	}
	a->why = "arithmetic mcinit does not evaluate";
	return 0;
}

/* Binary operators by bash's precedence, lowest first. */
static const struct {
	const char *op;
	int prec;
} arith_ops[] = {
    {"||", 1}, {"&&", 2},  {"|", 3},  {"^", 4},  {"&", 5},  {"==", 6}, {"!=", 6},
    {"<=", 7}, {">=", 7},  {"<<", 8}, {">>", 8}, {"<", 7},  {">", 7},  {"+", 9},
    {"-", 9},  {"**", 11}, {"*", 10}, {"/", 10}, {"%", 10},
};

long long
mcinit_sh_arith_apply(struct arith *a, const char *op, long long l, long long r)
{
	unsigned long long ul = (unsigned long long)l, ur = (unsigned long long)r;

	if ((strcmp(op, "/") == 0 || strcmp(op, "%") == 0) && r == 0) {
		a->why = "division by 0 (bash stops the script there)";
		return 0;
	}
	switch (op[0]) {
	case '|':
		return op[1] ? (l || r) : (l | r);
	case '&':
		return op[1] ? (l && r) : (l & r);
	case '^':
		return l ^ r;
	case '=':
		return l == r;
	case '!':
		return l != r;
	case '<':
		return op[1] == '<' ? (long long)(ul << (ur & 63)) : op[1] ? l <= r : l < r;
	case '>':
		return op[1] == '>' ? l >> (r & 63) : op[1] ? l >= r : l > r;
	case '+':
		return (long long)(ul + ur);
	case '-':
		return (long long)(ul - ur);
	case '*':
		if (op[1] == '*') {
			unsigned long long p = 1;

			if (r < 0) {
				a->why = "negative exponent";
				return 0;
			}
			/* by squaring, as bash: one multiplication per unit of
			 * the exponent took minutes for 2 ** 9999999999 (a fuzzing
			 * timeout); the same product modulo 2^64 */
			for (; ur > 0; ur >>= 1, ul *= ul)
				if (ur & 1)
					p *= ul;
			return (long long)p;
		}
		return (long long)(ul * ur);
	case '/':
		return l == LLONG_MIN && r == -1 ? l : l / r;
	default:
		return l == LLONG_MIN && r == -1 ? 0 : l % r;
	}
}

/* mcinit_sh_arith_expr or arith_unary one level deeper: 0 past the bound. */
static long long
arith_deeper(struct arith *a, int prec, int unary)
{
	long long v = 0;

	if (!arith_enter(a))
		v = unary ? arith_unary(a) : mcinit_sh_arith_expr(a, prec);
	a->nest--;
	return v;
}

long long
mcinit_sh_arith_expr(struct arith *a, int prec)
{
	long long l = arith_unary(a);

	while (a->why == NULL) {
		size_t k, nops = sizeof arith_ops / sizeof arith_ops[0];

		if (prec == 0 && mcinit_sh_arith_peek(a, "?")) {
			long long t, f;

			a->i++;
			t = arith_deeper(a, 0, 0);
			if (!mcinit_sh_arith_peek(a, ":")) {
				a->why = "arithmetic syntax error";
				return 0;
			}
			a->i++;
			f = arith_deeper(a, 0, 0);
			return l ? t : f;
		}
		for (k = 0; k < nops; k++)
			if (mcinit_sh_arith_peek(a, arith_ops[k].op))
				break;
		if (k == nops || arith_ops[k].prec <= prec - (arith_ops[k].prec == 11))
			break;
		if (mcinit_sh_arith_peek(a, "=") && !mcinit_sh_arith_peek(a, "==")) {
			a->why = "assignment in arithmetic";
			return 0;
		}
		a->i += strlen(arith_ops[k].op);
		if (a->i < a->n && a->s[a->i] == '=' && arith_ops[k].prec >= 8) {
			a->why = "assignment in arithmetic";
			return 0;
		}
		l = mcinit_sh_arith_apply(a, arith_ops[k].op, l,
		                          arith_deeper(a, arith_ops[k].prec, 0));
	}
	return l;
}
