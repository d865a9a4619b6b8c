/*
 * pyexpr-parse.c — the parser of the Python subset in pyexpr.h: the
 * expression's arena, the tokens and the syntax tree, which a
 * recursive-descent parser builds in the arena; and the API that parses,
 * shares and frees a tree (pyexpr-eval.c walks it).
 */
#include "input/pyexpr-impl.h"

#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *
mcinit_pyx_arena(struct mcinit_pyexpr *e, size_t n)
{
	const size_t align = _Alignof(max_align_t);
	struct chunk *c = e->mem, *b;
	size_t size;
	char *p;

	/* one byte more than asked, as a NUL after a string copied in */
	n = (n + 1 + align - 1) / align * align;
	if (c->size - c->used >= n) {
		p = (char *)c->data + c->used;
		c->used += n;
		return memset(p, 0, n);
	}
	size = c->size < ARENA_MAX ? 2 * c->size : ARENA_MAX;
	if (n > size / 2) {
		/* a block of its own, behind the current one (which goes on) */
		b = mcx_xcalloc(1, sizeof *b + n);
		b->size = b->used = n;
		b->next = c->next;
		c->next = b;
		return b->data;
	}
	b = mcx_xmalloc(sizeof *b + size);
	b->size = size;
	b->used = n;
	b->next = c;
	e->mem = b;
	return memset(b->data, 0, n);
}

/* A zeroed expression with a first arena block of `first` bytes. */
static struct mcinit_pyexpr *
new_expr(size_t first)
{
	const size_t align = _Alignof(struct chunk);
	size_t head = (sizeof(struct mcinit_pyexpr) + align - 1) / align * align;
	struct mcinit_pyexpr *e = mcx_xmalloc(head + sizeof(struct chunk) + first);

	memset(e, 0, sizeof *e);
	e->first = e->mem = (struct chunk *)((char *)e + head);
	e->mem->next = NULL;
	e->mem->size = first;
	e->mem->used = 0;
	return e;
}

const char *
mcinit_pyexpr_strdup(struct mcinit_pyexpr *e, const char *s)
{
	size_t n = strlen(s);
	char *d = mcinit_pyx_arena(e, n + 1);

	memcpy(d, s, n + 1);
	return d;
}

struct mcinit_pv *
mcinit_pyexpr_alloc_list(struct mcinit_pyexpr *e, size_t n)
{
	return mcinit_pyx_arena(e, (n ? n : 1) * sizeof(struct mcinit_pv));
}

static void
fail(struct mcinit_pyexpr *e, const char *fmt, ...)
{
	va_list ap;

	if (e->err != NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(&e->err, fmt, ap) < 0)
		e->err = mcx_xstrdup("parse error");
	va_end(ap);
}

/* ---- tokens ---- */

/* The character classes of <ctype.h> in the C locale (the program never
 * sets another), without a call per character: a validate tokenizes 239
 * expressions at start. */
static inline bool
c_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool
c_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool
c_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool
c_alnum(char c)
{
	return c_alpha(c) || c_digit(c);
}

/* The operator of two or three characters at p ("//=", "**=", "...", "&&",
 * "==", "!=", "<=", ">=", "//", "**"), or NULL; its length in *len. */
static const char *
long_op(const char *p, size_t *len)
{
	*len = 2;
	switch (p[0]) {
	case '/':
	case '*':
		if (p[1] != p[0])
			return NULL;
		if (p[2] == '=') {
			*len = 3;
			return p[0] == '/' ? "//=" : "**=";
		}
		return p[0] == '/' ? "//" : "**";
	case '.':
		*len = 3;
		return p[1] == '.' && p[2] == '.' ? "..." : NULL;
	case '&':
		return p[1] == '&' ? "&&" : NULL;
	case '=':
		return p[1] == '=' ? "==" : NULL;
	case '!':
		return p[1] == '=' ? "!=" : NULL;
	case '<':
		return p[1] == '=' ? "<=" : NULL;
	case '>':
		return p[1] == '=' ? ">=" : NULL;
	default:
		return NULL;
	}
}
/* The text of each one-character token (ASCII). */
#define OP1(c)                                                                                     \
	{                                                                                          \
		(char)(c), '\0'                                                                    \
	}
#define OPS8(c)                                                                                    \
	OP1(c), OP1(c + 1), OP1(c + 2), OP1(c + 3), OP1(c + 4), OP1(c + 5), OP1(c + 6), OP1(c + 7)
static const char ops1[128][2] = {OPS8(0),  OPS8(8),   OPS8(16),  OPS8(24), OPS8(32), OPS8(40),
                                  OPS8(48), OPS8(56),  OPS8(64),  OPS8(72), OPS8(80), OPS8(88),
                                  OPS8(96), OPS8(104), OPS8(112), OPS8(120)};
#undef OPS8
#undef OP1

static int
lex_string(struct mcinit_pyexpr *e, const char *q)
{
	char quote = *q;
	bool triple = q[1] == quote && q[2] == quote;
	const char *s = q + (triple ? 3 : 1), *p = s;
	struct mcx_buf b = {0};

	for (;;) {
		if (*p == '\0') {
			mcx_buf_free(&b);
			fail(e, "unterminated string");
			return -1;
		}
		if (*p == '\\' && p[1] != '\0') {
			char c = p[1];

			mcx_buf_addc(&b, c == 'n' ? '\n' : c == 't' ? '\t' : c);
			p += 2;
			continue;
		}
		if (*p == quote && (!triple || (p[1] == quote && p[2] == quote)))
			break;
		mcx_buf_addc(&b, *p++);
	}
	e->tok_s = (char *)mcinit_pyexpr_strdup(e, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	e->p = p + (triple ? 3 : 1);
	return 0;
}

static void
next(struct mcinit_pyexpr *e)
{
	const char *p = e->p;
	const char *op;
	size_t i;

	while (c_space(*p) || (*p == '\\' && p[1] == '\n'))
		p += *p == '\\' ? 2 : 1;
	e->p = p;
	if (*p == '\0') {
		e->tok = T_END;
		return;
	}
	if ((*p == 'f' || *p == 'F' || *p == 'r' || *p == 'R') && (p[1] == '"' || p[1] == '\'')) {
		bool f = *p == 'f' || *p == 'F';

		e->tok = f ? T_FSTR : T_STR;
		if (lex_string(e, p + 1) < 0)
			e->tok = T_END;
		return;
	}
	if (*p == '"' || *p == '\'') {
		e->tok = T_STR;
		if (lex_string(e, p) < 0)
			e->tok = T_END;
		return;
	}
	if (c_alpha(*p) || *p == '_') {
		const char *s = p;

		while (c_alnum(*p) || *p == '_')
			p++;
		e->tok = T_NAME;
		e->tok_s = mcinit_pyx_arena(e, (size_t)(p - s) + 1);
		memcpy(e->tok_s, s, (size_t)(p - s));
		e->p = p;
		return;
	}
	if (c_digit(*p) || (*p == '.' && c_digit(p[1]))) {
		const char *s = p;
		bool fl = false;

		while (c_alnum(*p) || *p == '.' || *p == '_' ||
		       ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E') &&
		        !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))) {
			if (*p == '.' || *p == 'e' || *p == 'E')
				fl = fl || !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
			p++;
		}
		e->tok = fl ? T_FLOAT : T_INT;
		e->tok_s = mcinit_pyx_arena(e, (size_t)(p - s) + 1);
		for (i = 0; s < p; s++)
			if (*s != '_')
				e->tok_s[i++] = *s;
		e->p = p;
		return;
	}
	e->tok = T_OP;
	if ((op = long_op(p, &i)) != NULL) {
		e->tok_s = (char *)op;
		e->p = p + i;
		return;
	}
	if ((unsigned char)*p < 128) {
		/* a one-character operator: its text from a table, read only */
		e->tok_s = (char *)ops1[(unsigned char)*p];
	} else {
		e->tok_s = mcinit_pyx_arena(e, 2);
		e->tok_s[0] = *p;
	}
	e->p = p + 1;
}

/* The parser asks these of every token at every level of the grammar:
 * the first character settles most. */
static bool
is_op(struct mcinit_pyexpr *e, const char *op)
{
	return e->tok == T_OP && e->tok_s[0] == op[0] && strcmp(e->tok_s, op) == 0;
}

static bool
is_kw(struct mcinit_pyexpr *e, const char *kw)
{
	return e->tok == T_NAME && e->tok_s[0] == kw[0] && strcmp(e->tok_s, kw) == 0;
}

static bool
accept_op(struct mcinit_pyexpr *e, const char *op)
{
	if (!is_op(e, op))
		return false;
	next(e);
	return true;
}

static void
expect_op(struct mcinit_pyexpr *e, const char *op)
{
	if (!accept_op(e, op))
		fail(e, "expected '%s' near \"%.20s\"", op, e->p);
}

/* ---- syntax tree ---- */

/* The deepest the recursive descent goes (a bracket costs two levels, as
 * Python allows 200 nested brackets): the checks nest a few levels;
 * without a bound, 100,000 parentheses overflow the stack. */
#define MAX_NEST 400

/* One level deeper, or false (and the parse fails) past MAX_NEST. */
static bool
deeper(struct mcinit_pyexpr *e)
{
	if (e->depth >= MAX_NEST) {
		fail(e, "nested more than %d levels deep", MAX_NEST);
		return false;
	}
	e->depth++;
	return true;
}

static struct node *
mk(struct mcinit_pyexpr *e, enum node_kind k, size_t nkids)
{
	/* the node and its kids in one allocation */
	struct node *n = mcinit_pyx_arena(e, sizeof *n + (nkids ? nkids : 1) * sizeof *n->kids);

	n->kind = k;
	n->nkids = nkids;
	n->kids = (struct node **)(n + 1);
	return n;
}

static struct node *
mk2(struct mcinit_pyexpr *e, enum node_kind k, struct node *a, struct node *b)
{
	struct node *n = mk(e, k, 2);

	n->kids[0] = a;
	n->kids[1] = b;
	return n;
}

static void
push(struct mcinit_pyexpr *e, struct node *n, struct node *kid)
{
	struct node **k = mcinit_pyx_arena(e, (n->nkids + 1) * sizeof *k);

	if (n->nkids)
		memcpy(k, n->kids, n->nkids * sizeof *k);
	k[n->nkids++] = kid;
	n->kids = k;
}

static struct node *expr(struct mcinit_pyexpr *e);
static struct node *or_test(struct mcinit_pyexpr *e);

/* `elem for NAME in ITER [if COND]` after elem (at `for`): one loop over a
 * plain name, which is what Megatron's checks write; a list comprehension
 * and a generator expression both make a list here (any(), all(), len()
 * and truth see the same thing). */
static struct node *
comprehension(struct mcinit_pyexpr *e, struct node *elem)
{
	struct node *c = mk(e, N_COMP, 2);

	next(e); /* for */
	if (e->tok != T_NAME || e->p[0] == ',') {
		fail(e, "comprehension over anything but one name");
		return c;
	}
	c->s = e->tok_s;
	next(e);
	if (!is_kw(e, "in")) {
		fail(e, "expected 'in'");
		return c;
	}
	next(e);
	c->kids[0] = elem;
	c->kids[1] = or_test(e);
	if (is_kw(e, "if")) {
		next(e);
		push(e, c, or_test(e));
	}
	if (is_kw(e, "for") || is_kw(e, "if"))
		fail(e, "nested comprehensions are not supported");
	return c;
}

/* Comma-separated expressions up to `close`; true when they were one
 * comprehension (n's only kid). */
static bool
seq(struct mcinit_pyexpr *e, struct node *n, const char *close)
{
	bool comp = false;

	while (!is_op(e, close) && e->tok != T_END && e->err == NULL) {
		/* keyword arguments name=value: the value is what counts */
		if (e->tok == T_NAME && e->p[0] == '=' && e->p[1] != '=') {
			next(e);
			next(e);
		}
		push(e, n, expr(e));
		if (is_kw(e, "for") && n->nkids == 1) {
			/* f(x for x in l), [x for x in l]: the comprehension is the
			 * only item */
			n->kids[0] = comprehension(e, n->kids[0]);
			comp = true;
			break;
		}
		if (!accept_op(e, ","))
			break;
	}
	expect_op(e, close);
	return comp;
}

static struct node *
atom(struct mcinit_pyexpr *e)
{
	struct node *n;

	switch (e->tok) {
	case T_INT:
		n = mk(e, N_CONST, 0);
		n->val.kind = MCINIT_PV_INT;
		n->val.i = strtoll(e->tok_s, NULL, 0);
		next(e);
		return n;
	case T_FLOAT:
		n = mk(e, N_CONST, 0);
		n->val.kind = MCINIT_PV_FLOAT;
		n->val.f = strtod(e->tok_s, NULL);
		next(e);
		return n;
	case T_STR:
	case T_FSTR: {
		/* adjacent literals concatenate; one f-part makes the whole an f-string */
		struct mcx_buf b = {0};
		bool f = false;

		while (e->tok == T_STR || e->tok == T_FSTR) {
			if (e->tok == T_FSTR)
				f = true;
			if (e->tok == T_STR && f) {
				const char *s;

				for (s = e->tok_s; *s; s++) {
					if (*s == '{' || *s == '}')
						mcx_buf_addc(&b, *s);
					mcx_buf_addc(&b, *s);
				}
			} else if (e->tok == T_FSTR && !f) {
				mcx_buf_adds(&b, e->tok_s);
			} else {
				mcx_buf_adds(&b, e->tok_s);
			}
			next(e);
		}
		n = mk(e, f ? N_FSTR : N_CONST, 0);
		n->s = mcinit_pyexpr_strdup(e, mcx_buf_cstr(&b));
		n->val.kind = MCINIT_PV_STR;
		n->val.s = n->s;
		mcx_buf_free(&b);
		return n;
	}
	case T_NAME:
		if (is_kw(e, "None") || is_kw(e, "True") || is_kw(e, "False")) {
			n = mk(e, N_CONST, 0);
			n->val.kind = is_kw(e, "None") ? MCINIT_PV_NONE : MCINIT_PV_BOOL;
			n->val.i = is_kw(e, "True");
			next(e);
			return n;
		}
		n = mk(e, N_NAME, 0);
		n->s = e->tok_s;
		n->op[0] = '%'; /* bare: a local or parameter, not an attribute */
		next(e);
		return n;
	case T_OP:
		if (accept_op(e, "(")) {
			if (accept_op(e, ")"))
				return mk(e, N_LIST, 0);
			n = expr(e);
			if (is_kw(e, "for")) {
				n = comprehension(e, n);
				expect_op(e, ")");
				return n;
			}
			if (accept_op(e, ",")) {
				struct node *l = mk(e, N_LIST, 0);

				push(e, l, n);
				seq(e, l, ")");
				return l;
			}
			expect_op(e, ")");
			return n;
		}
		if (is_op(e, "[") || is_op(e, "{")) {
			const char *close = is_op(e, "[") ? "]" : "}";

			next(e);
			n = mk(e, N_LIST, 0);
			if (seq(e, n, close))
				return n->kids[0]; /* [x for x in l] is the comprehension's list */
			return n;
		}
		break;
	case T_END:
		break;
	}
	fail(e, "unexpected \"%.20s\"", e->tok == T_END ? "end" : e->p);
	return mk(e, N_CONST, 0);
}

/* `args.x` and `self.x` name the field x; other dotted names go whole;
 * anything else followed by .name is a method or attribute of a value. */
static struct node *
attribute(struct mcinit_pyexpr *e, struct node *n, const char *attr)
{
	struct node *m;

	if (n->kind == N_NAME) {
		m = mk(e, N_NAME, 0);
		if (strcmp(n->s, "args") == 0 || strcmp(n->s, "self") == 0 ||
		    strcmp(n->s, "config") == 0) {
			m->s = attr;
		} else {
			size_t a = strlen(n->s), b = strlen(attr);
			char *t = mcinit_pyx_arena(e, a + b + 2); /* zeroed: the NUL is there */

			/* (not sprintf: a dotted name is in most checks) */
			memcpy(t, n->s, a);
			t[a] = '.';
			memcpy(t + a + 1, attr, b);
			m->s = t;
		}
		return m;
	}
	m = mk(e, N_METHOD, 1);
	m->kids[0] = n;
	m->s = attr;
	return m;
}

/* A dotted name called as a function that is no builtin and ends in a str
 * or list method: self.x.strip() read as the method strip of field x. */
static bool
field_method(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot != NULL && !mcinit_pyx_builtin(name) && mcinit_pyx_method_known(dot + 1);
}

static struct node *
trailers(struct mcinit_pyexpr *e, struct node *n)
{
	while (e->err == NULL) {
		if (accept_op(e, ".")) {
			if (e->tok != T_NAME) {
				fail(e, "expected a name after '.'");
				return n;
			}
			n = attribute(e, n, e->tok_s);
			next(e);
		} else if (accept_op(e, "(")) {
			struct node *c;

			if (n->kind == N_NAME && field_method(n->s)) {
				/* self.path.strip(): a method of field path's value */
				const char *dot = strrchr(n->s, '.');
				struct node *o = mk(e, N_NAME, 0);
				char *t = mcinit_pyx_arena(e, (size_t)(dot - n->s) + 1);

				memcpy(t, n->s, (size_t)(dot - n->s));
				o->s = t;
				c = mk(e, N_METHOD, 1);
				c->kids[0] = o;
				c->s = dot + 1;
			} else if (n->kind == N_NAME) {
				c = mk(e, N_CALL, 0);
				c->s = n->s;
			} else if (n->kind == N_METHOD) {
				c = n;
			} else {
				fail(e, "call of an expression");
				return n;
			}
			seq(e, c, ")");
			n = c;
		} else if (accept_op(e, "[")) {
			struct node *i = mk(e, N_INDEX, 2);

			i->kids[0] = n;
			i->kids[1] = expr(e);
			expect_op(e, "]");
			n = i;
		} else {
			return n;
		}
	}
	return n;
}

static struct node *factor(struct mcinit_pyexpr *e);

static struct node *
power(struct mcinit_pyexpr *e)
{
	struct node *n = trailers(e, atom(e));

	if (accept_op(e, "**")) {
		n = mk2(e, N_BIN, n, factor(e));
		strcpy(n->op, "**");
	}
	return n;
}

static struct node *factor_in(struct mcinit_pyexpr *e);

static struct node *
factor(struct mcinit_pyexpr *e)
{
	struct node *n;

	if (!deeper(e))
		return mk(e, N_CONST, 0);
	n = factor_in(e);
	e->depth--;
	return n;
}

static struct node *
factor_in(struct mcinit_pyexpr *e)
{
	if (accept_op(e, "-")) {
		struct node *n = mk(e, N_NEG, 1);

		n->kids[0] = factor(e);
		return n;
	}
	if (accept_op(e, "+"))
		return factor(e);
	return power(e);
}

/* The binding power of the binary operator at the cursor: 3 for * / // %,
 * 2 for + -, 1 for & | (Python's term, arith and and/or-of-bits levels,
 * bitwise & and | at one level as before); 0 for any other token.  "**"
 * is power's, "&&" the guard chain's. */
static int
bin_power(const struct mcinit_pyexpr *e)
{
	const char *s = e->tok_s;

	if (e->tok != T_OP)
		return 0;
	switch (s[0]) {
	case '*':
	case '%':
		return s[1] == '\0' ? 3 : 0;
	case '/':
		return s[1] == '\0' || (s[1] == '/' && s[2] == '\0') ? 3 : 0;
	case '+':
	case '-':
		return s[1] == '\0' ? 2 : 0;
	case '&':
	case '|':
		return s[1] == '\0' ? 1 : 0;
	default:
		return 0;
	}
}

/* Left-associative binary operators of power >= min over factors, by
 * precedence climbing: the tree the grammar's levels (term, arith, and the
 * bitwise level) build, without a call per level per operand. */
static struct node *
binary(struct mcinit_pyexpr *e, int min)
{
	struct node *n = factor(e);
	int p;

	while ((p = bin_power(e)) >= min && e->err == NULL) {
		const char *op = e->tok_s;

		next(e);
		n = mk2(e, N_BIN, n, binary(e, p + 1));
		strcpy(n->op, op);
	}
	return n;
}

/* The comparison operator at the cursor ("in", "not in", "is not", ...), or NULL. */
static const char *
cmp_op(struct mcinit_pyexpr *e)
{
	if (e->tok == T_OP) {
		const char *s = e->tok_s, *op = NULL;

		if (s[0] == '=' || s[0] == '!')
			op = s[1] != '=' || s[2] != '\0' ? NULL : s[0] == '=' ? "==" : "!=";
		else if (s[0] == '<' || s[0] == '>')
			op = s[1] == '\0'                  ? (s[0] == '<' ? "<" : ">")
			     : s[1] == '=' && s[2] == '\0' ? (s[0] == '<' ? "<=" : ">=")
			                                   : NULL;
		if (op != NULL)
			next(e);
		return op;
	}
	if (is_kw(e, "in")) {
		next(e);
		return "in";
	}
	if (is_kw(e, "is")) {
		next(e);
		if (is_kw(e, "not")) {
			next(e);
			return "isn";
		}
		return "is";
	}
	if (is_kw(e, "not")) {
		const char *save = e->p;

		next(e);
		if (is_kw(e, "in")) {
			next(e);
			return "nin";
		}
		fail(e, "unexpected 'not' near \"%.20s\"", save);
	}
	return NULL;
}

static struct node *
comparison(struct mcinit_pyexpr *e)
{
	struct node *n = binary(e, 1), *c = NULL;
	const char *op;
	size_t k = 0;

	while ((op = cmp_op(e)) != NULL && e->err == NULL) {
		if (c == NULL) {
			c = mk(e, N_CMP, 0);
			c->ops = mcinit_pyx_arena(e, 16 * sizeof *c->ops);
			push(e, c, n);
		}
		if (k == 16) {
			fail(e, "comparison chain too long");
			break;
		}
		strcpy(c->ops[k++], op);
		push(e, c, binary(e, 1));
	}
	return c ? c : n;
}

static struct node *
not_test(struct mcinit_pyexpr *e)
{
	if (is_kw(e, "not")) {
		struct node *n = mk(e, N_NOT, 1);

		next(e);
		if (!deeper(e)) {
			n->kids[0] = mk(e, N_CONST, 0);
			return n;
		}
		n->kids[0] = not_test(e);
		e->depth--;
		return n;
	}
	return comparison(e);
}

static struct node *
and_test(struct mcinit_pyexpr *e)
{
	struct node *n = not_test(e);

	while (is_kw(e, "and") && e->err == NULL) {
		next(e);
		n = mk2(e, N_AND, n, not_test(e));
	}
	return n;
}

static struct node *
or_test(struct mcinit_pyexpr *e)
{
	struct node *n = and_test(e);

	while (is_kw(e, "or") && e->err == NULL) {
		next(e);
		n = mk2(e, N_OR, n, and_test(e));
	}
	return n;
}

static struct node *expr_in(struct mcinit_pyexpr *e);

static struct node *
expr(struct mcinit_pyexpr *e)
{
	struct node *n;

	if (!deeper(e))
		return mk(e, N_CONST, 0);
	n = expr_in(e);
	e->depth--;
	return n;
}

static struct node *
expr_in(struct mcinit_pyexpr *e)
{
	struct node *n = or_test(e);

	if (is_kw(e, "if")) {
		struct node *c = mk(e, N_IFELSE, 3);

		next(e);
		c->kids[0] = n;
		c->kids[1] = or_test(e);
		if (!is_kw(e, "else"))
			fail(e, "expected 'else'");
		next(e);
		c->kids[2] = expr(e);
		return c;
	}
	if (is_kw(e, "lambda"))
		fail(e, "'%s' is not supported", e->tok_s);
	return n;
}

/* The guard column's `A && B`: all levels of an if chain. */
static struct node *
chain(struct mcinit_pyexpr *e)
{
	struct node *n = expr(e);

	while (accept_op(e, "&&") && e->err == NULL)
		n = mk2(e, N_AND, n, expr(e));
	return n;
}

struct mcinit_pyexpr *
mcinit_pyexpr_parse(const char *src, char **why)
{
	size_t n = strlen(src);
	struct mcinit_pyexpr *e =
	    new_expr(n < ARENA_MAX / ARENA_PER_BYTE ? ARENA_PARSE + ARENA_PER_BYTE * n : ARENA_MAX);

	e->src = e->p = src;
	next(e);
	e->root = chain(e);
	if (e->err == NULL && e->tok != T_END)
		fail(e, "unexpected \"%.20s\"", e->tok_s ? e->tok_s : "");
	if (e->err != NULL) {
		*why = e->err;
		e->err = NULL;
		mcinit_pyexpr_free(e);
		return NULL;
	}
	return e;
}

/* What a slot holds for a text that does not parse: not NULL, so that the
 * text is not parsed again. */
static const struct mcinit_pyexpr unparsable;

const struct mcinit_pyexpr *
mcinit_pyexpr_parse_once(_Atomic(const struct mcinit_pyexpr *) *slot, const char *src)
{
	const struct mcinit_pyexpr *r = atomic_load_explicit(slot, memory_order_acquire), *none;
	struct mcinit_pyexpr *e;
	char *why = NULL;

	if (r == NULL && src != NULL && src[0] != '\0') {
		if ((e = mcinit_pyexpr_parse(src, &why)) == NULL)
			free(why);
		none = NULL;
		r = e != NULL ? e : &unparsable;
		if (!atomic_compare_exchange_strong_explicit(slot, &none, r, memory_order_acq_rel,
		                                             memory_order_acquire)) {
			/* another thread's is the same */
			mcinit_pyexpr_free(e);
			r = none;
		}
	}
	return r == &unparsable ? NULL : r;
}

struct mcinit_pyexpr *
mcinit_pyexpr_share(const struct mcinit_pyexpr *parsed)
{
	struct mcinit_pyexpr *e = new_expr(ARENA_SHARE);

	e->root = parsed->root;
	return e;
}

/* Frees e's blocks but the first, which lives in e's own allocation. */
static void
free_blocks(struct mcinit_pyexpr *e)
{
	struct chunk *c, *n;

	for (c = e->mem; c; c = n) {
		n = c->next;
		if (c != e->first)
			free(c);
	}
}

void
mcinit_pyexpr_reshare(struct mcinit_pyexpr *e, const struct mcinit_pyexpr *parsed)
{
	free_blocks(e);
	free(e->err);
	e->err = NULL;
	e->mem = e->first;
	e->mem->next = NULL;
	e->mem->used = 0;
	e->nbinds = 0;
	e->root = parsed->root;
}

void
mcinit_pyexpr_free(struct mcinit_pyexpr *e)
{
	if (e == NULL)
		return;
	free_blocks(e);
	free(e->err);
	free(e);
}
