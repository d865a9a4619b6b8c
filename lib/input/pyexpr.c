/*
 * pyexpr.c — parser and evaluator of the Python subset in pyexpr.h.
 *
 * A recursive-descent parser builds a tree in the expression's arena; the
 * evaluator walks it with Python's semantics for the operations Megatron's
 * checks use (short-circuit `and`/`or` returning an operand, numeric
 * comparison across int/float/bool, `in` on lists and strings).  Whatever
 * Python would raise on (None > 1, an unknown name) becomes an ERR value, so
 * a check that cannot be decided is skipped rather than guessed.
 */
#include "input/pyexpr.h"

#include <ctype.h>
#include <limits.h>
#include <math.h> /* isinf, isnan: macros, no libm */
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok {
	T_END,
	T_NAME,
	T_INT,
	T_FLOAT,
	T_STR,
	T_FSTR,
	T_OP, /* punctuation and operators, text in tok_s */
};

enum node_kind {
	N_CONST,
	N_NAME,   /* s: resolver name */
	N_FSTR,   /* s: the f-string body */
	N_LIST,   /* kids */
	N_NOT,    /* kids[0] */
	N_NEG,    /* kids[0] */
	N_AND,    /* kids[0], kids[1] */
	N_OR,     /* kids[0], kids[1] */
	N_BIN,    /* op, kids[0..1] */
	N_CMP,    /* chained: kids[0] op[0] kids[1] op[1] kids[2] ... in ops */
	N_IFELSE, /* kids: body, test, orelse */
	N_CALL,   /* s: function name, kids: arguments */
	N_METHOD, /* s: method name, kids[0]: object, rest: arguments */
	N_INDEX,  /* kids[0][kids[1]] */
	N_COMP,   /* [kids[0] for s in kids[1] if kids[2]]; kids[2] optional */
};

struct node {
	enum node_kind kind;
	const char *s;
	char op[4];
	char (*ops)[8];
	struct mcinit_pv val;
	struct node **kids;
	size_t nkids;
};

/* The arena: blocks handed out front to back, each allocation rounded up
 * to the alignment of max_align_t and zeroed.  The first block is part of
 * the expression's own allocation (for a parse, ARENA_PER_BYTE bytes a
 * byte of source and ARENA_PARSE more, enough for 231 of the 239 parses of
 * a validate; ARENA_SHARE for an evaluation); the next ones double up to
 * ARENA_MAX; an allocation of more than half a new block gets a block of
 * its own.  A fixed 2 KB first block each was 620 KB of fresh heap for
 * those parses, now 400 KB. */
#define ARENA_PARSE    128
#define ARENA_PER_BYTE 24
#define ARENA_SHARE    256
#define ARENA_MAX      16384

struct chunk {
	struct chunk *next;
	size_t size, used; /* bytes of data */
	max_align_t data[];
};

struct mcinit_pyexpr {
	struct chunk *mem;
	struct chunk *first; /* in this allocation: not freed on its own */
	struct node *root;
	/* parser state */
	const char *src, *p;
	enum tok tok;
	char *tok_s;
	size_t tok_len;
	char *err;
	int depth; /* of the recursive descent: expr, factor, not_test */
	/* evaluator state */
	mcinit_pyexpr_resolve fn;
	void *ctx;
	/* the loop variables of the comprehensions being evaluated, innermost
	 * last: a bare name is looked up here before the resolver */
	struct binding {
		const char *name;
		struct mcinit_pv v;
	} binds[8];
	size_t nbinds;
};

static void *
arena(struct mcinit_pyexpr *e, size_t n)
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
		b = mcinit_xcalloc(1, sizeof *b + n);
		b->size = b->used = n;
		b->next = c->next;
		c->next = b;
		return b->data;
	}
	b = mcinit_xmalloc(sizeof *b + size);
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
	struct mcinit_pyexpr *e = mcinit_xmalloc(head + sizeof(struct chunk) + first);

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
	char *d = arena(e, n + 1);

	memcpy(d, s, n + 1);
	return d;
}

struct mcinit_pv *
mcinit_pyexpr_alloc_list(struct mcinit_pyexpr *e, size_t n)
{
	return arena(e, (n ? n : 1) * sizeof(struct mcinit_pv));
}

static void
fail(struct mcinit_pyexpr *e, const char *fmt, ...)
{
	va_list ap;

	if (e->err != NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(&e->err, fmt, ap) < 0)
		e->err = mcinit_xstrdup("parse error");
	va_end(ap);
}

/* ---- tokens ---- */

static const char *const ops3[] = {"//=", "**=", "...", "&&", NULL};
static const char *const ops2[] = {"==", "!=", "<=", ">=", "//", "**", NULL};
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
	struct mcinit_buf b = {0};

	for (;;) {
		if (*p == '\0') {
			mcinit_buf_free(&b);
			fail(e, "unterminated string");
			return -1;
		}
		if (*p == '\\' && p[1] != '\0') {
			char c = p[1];

			mcinit_buf_addc(&b, c == 'n' ? '\n' : c == 't' ? '\t' : c);
			p += 2;
			continue;
		}
		if (*p == quote && (!triple || (p[1] == quote && p[2] == quote)))
			break;
		mcinit_buf_addc(&b, *p++);
	}
	e->tok_s = (char *)mcinit_pyexpr_strdup(e, mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
	e->p = p + (triple ? 3 : 1);
	return 0;
}

static void
next(struct mcinit_pyexpr *e)
{
	const char *p = e->p;
	size_t i;

	while (isspace((unsigned char)*p) || (*p == '\\' && p[1] == '\n'))
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
	if (isalpha((unsigned char)*p) || *p == '_') {
		const char *s = p;

		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		e->tok = T_NAME;
		e->tok_s = arena(e, (size_t)(p - s) + 1);
		memcpy(e->tok_s, s, (size_t)(p - s));
		e->p = p;
		return;
	}
	if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
		const char *s = p;
		bool fl = false;

		while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
		       ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E') &&
		        !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))) {
			if (*p == '.' || *p == 'e' || *p == 'E')
				fl = fl || !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
			p++;
		}
		e->tok = fl ? T_FLOAT : T_INT;
		e->tok_s = arena(e, (size_t)(p - s) + 1);
		for (i = 0; s < p; s++)
			if (*s != '_')
				e->tok_s[i++] = *s;
		e->p = p;
		return;
	}
	e->tok = T_OP;
	for (i = 0; ops3[i]; i++)
		if (p[0] == ops3[i][0] && strncmp(p, ops3[i], strlen(ops3[i])) == 0) {
			e->tok_s = (char *)ops3[i];
			e->p = p + strlen(ops3[i]);
			return;
		}
	for (i = 0; ops2[i]; i++)
		if (p[0] == ops2[i][0] && p[1] == ops2[i][1]) {
			e->tok_s = (char *)ops2[i];
			e->p = p + 2;
			return;
		}
	if ((unsigned char)*p < 128) {
		/* a one-character operator: its text from a table, read only */
		e->tok_s = (char *)ops1[(unsigned char)*p];
	} else {
		e->tok_s = arena(e, 2);
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
	struct node *n = arena(e, sizeof *n + (nkids ? nkids : 1) * sizeof *n->kids);

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
	struct node **k = arena(e, (n->nkids + 1) * sizeof *k);

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
		struct mcinit_buf b = {0};
		bool f = false;

		while (e->tok == T_STR || e->tok == T_FSTR) {
			if (e->tok == T_FSTR)
				f = true;
			if (e->tok == T_STR && f) {
				const char *s;

				for (s = e->tok_s; *s; s++) {
					if (*s == '{' || *s == '}')
						mcinit_buf_addc(&b, *s);
					mcinit_buf_addc(&b, *s);
				}
			} else if (e->tok == T_FSTR && !f) {
				mcinit_buf_adds(&b, e->tok_s);
			} else {
				mcinit_buf_adds(&b, e->tok_s);
			}
			next(e);
		}
		n = mk(e, f ? N_FSTR : N_CONST, 0);
		n->s = mcinit_pyexpr_strdup(e, mcinit_buf_cstr(&b));
		n->val.kind = MCINIT_PV_STR;
		n->val.s = n->s;
		mcinit_buf_free(&b);
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
			char *t = arena(e, a + b + 2); /* zeroed: the NUL is there */

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

static bool builtin(const char *f);

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

static bool method_known(const char *m);

/* A dotted name called as a function that is no builtin and ends in a str
 * or list method: self.x.strip() read as the method strip of field x. */
static bool
field_method(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot != NULL && !builtin(name) && method_known(dot + 1);
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
				char *t = arena(e, (size_t)(dot - n->s) + 1);

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
			c->ops = arena(e, 16 * sizeof *c->ops);
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

/* ---- values ---- */

static struct mcinit_pv err(struct mcinit_pyexpr *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static struct mcinit_pv
err(struct mcinit_pyexpr *e, const char *fmt, ...)
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

static struct mcinit_pv
mkbool(bool b)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = b};
}

static struct mcinit_pv
mkint(long long i)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = i};
}

static struct mcinit_pv
mkfloat(double f)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_FLOAT, .f = f};
}

static struct mcinit_pv
mkstr(struct mcinit_pyexpr *e, const char *s)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, s)};
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

static bool
is_num(const struct mcinit_pv *v)
{
	return v->kind == MCINIT_PV_BOOL || v->kind == MCINIT_PV_INT || v->kind == MCINIT_PV_FLOAT;
}

static double
num(const struct mcinit_pv *v)
{
	return v->kind == MCINIT_PV_FLOAT ? v->f : (double)v->i;
}

static bool
pv_equal(const struct mcinit_pv *a, const struct mcinit_pv *b)
{
	size_t i;

	if (is_num(a) && is_num(b)) {
		if (a->kind != MCINIT_PV_FLOAT && b->kind != MCINIT_PV_FLOAT)
			return a->i == b->i;
		return num(a) == num(b);
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
			if (!pv_equal(&a->items[i], &b->items[i]))
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

static void
pv_str_in(struct mcinit_buf *b, const struct mcinit_pv *v, bool repr)
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
			pv_str_in(b, &v->items[i], true);
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
	pv_str_in(b, v, false);
}

/* floor and pow without libm: the checks need only integral exponents */
static double
pyfloor(double x)
{
	double t;

	if (x >= 9.2e18 || x <= -9.2e18 || isnan(x))
		return x;
	t = (double)(long long)x;
	return t > x ? t - 1 : t;
}

static double
pypow(double x, double y)
{
	long long k = (long long)y, i;
	double r = 1;

	for (i = 0; i < (k < 0 ? -k : k) && i < 4096; i++)
		r *= x;
	return k < 0 ? 1 / r : r;
}

/* ---- evaluation ---- */

static struct mcinit_pv eval(struct mcinit_pyexpr *e, const struct node *n);

#define PROPAGATE(v)                                                                               \
	do {                                                                                       \
		if ((v).kind == MCINIT_PV_ERR)                                                     \
			return (v);                                                                \
	} while (0)

static struct mcinit_pv
arith_op(struct mcinit_pyexpr *e, const char *op, struct mcinit_pv a, struct mcinit_pv b)
{
	bool ints = a.kind != MCINIT_PV_FLOAT && b.kind != MCINIT_PV_FLOAT;
	double x, y;

	if (strcmp(op, "+") == 0 && a.kind == MCINIT_PV_STR && b.kind == MCINIT_PV_STR) {
		char *t = arena(e, strlen(a.s) + strlen(b.s) + 1);

		strcat(strcpy(t, a.s), b.s);
		return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
	}
	if (strcmp(op, "+") == 0 && a.kind == MCINIT_PV_LIST && b.kind == MCINIT_PV_LIST) {
		struct mcinit_pv *l = mcinit_pyexpr_alloc_list(e, a.n + b.n);

		memcpy(l, a.items, a.n * sizeof *l);
		memcpy(l + a.n, b.items, b.n * sizeof *l);
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = a.n + b.n};
	}
	if (!is_num(&a) || !is_num(&b))
		return err(e, "unsupported operand types for %s", op);
	x = num(&a);
	y = num(&b);
	if ((op[0] == '/' || op[0] == '%') && y == 0)
		return err(e, "division by zero");
	if (ints && op[0] == '&')
		return a.kind == MCINIT_PV_BOOL && b.kind == MCINIT_PV_BOOL ? mkbool(a.i & b.i)
		                                                            : mkint(a.i & b.i);
	if (ints && op[0] == '|')
		return a.kind == MCINIT_PV_BOOL && b.kind == MCINIT_PV_BOOL ? mkbool(a.i | b.i)
		                                                            : mkint(a.i | b.i);
	if (strcmp(op, "/") == 0)
		return mkfloat(x / y);
	if (ints) {
		long long i = a.i, j = b.i, q, r;

		switch (op[0]) {
		case '+':
			return mkint(i + j);
		case '-':
			return mkint(i - j);
		case '*':
			if (op[1] == '*') {
				long long p = 1;

				if (j < 0)
					return mkfloat(pypow(x, y));
				while (j-- > 0)
					p *= i;
				return mkint(p);
			}
			return mkint(i * j);
		case '/':
		case '%':
			/* Python floors */
			q = i / j;
			r = i % j;
			if (r != 0 && ((r < 0) != (j < 0))) {
				q--;
				r += j;
			}
			return mkint(op[0] == '%' ? r : q);
		}
	}
	switch (op[0]) {
	case '+':
		return mkfloat(x + y);
	case '-':
		return mkfloat(x - y);
	case '*':
		return mkfloat(op[1] == '*' ? pypow(x, y) : x * y);
	case '/':
		return mkfloat(pyfloor(x / y));
	case '%':
		return mkfloat(x - pyfloor(x / y) * y);
	}
	return err(e, "operator %s", op);
}

static struct mcinit_pv
cmp(struct mcinit_pyexpr *e, const char *op, const struct mcinit_pv *a, const struct mcinit_pv *b)
{
	size_t i;
	int c;

	if (strcmp(op, "==") == 0)
		return mkbool(pv_equal(a, b));
	if (strcmp(op, "!=") == 0)
		return mkbool(!pv_equal(a, b));
	if (strcmp(op, "is") == 0 || strcmp(op, "isn") == 0) {
		bool same = a->kind == b->kind && (a->kind == MCINIT_PV_NONE || pv_equal(a, b));

		return mkbool(op[2] == 'n' ? !same : same);
	}
	if (strcmp(op, "in") == 0 || strcmp(op, "nin") == 0) {
		bool found = false;

		if (b->kind == MCINIT_PV_LIST) {
			for (i = 0; i < b->n && !found; i++)
				found = pv_equal(a, &b->items[i]);
		} else if (b->kind == MCINIT_PV_STR && a->kind == MCINIT_PV_STR) {
			found = strstr(b->s, a->s) != NULL;
		} else {
			return err(e, "argument of type %s is not iterable",
			           b->kind == MCINIT_PV_NONE ? "NoneType" : "scalar");
		}
		return mkbool(op[0] == 'n' ? !found : found);
	}
	if (is_num(a) && is_num(b)) {
		double x = num(a), y = num(b);

		c = x < y ? -1 : x > y;
	} else if (a->kind == MCINIT_PV_STR && b->kind == MCINIT_PV_STR) {
		c = strcmp(a->s, b->s);
	} else {
		return err(e, "'%s' not supported between these types", op);
	}
	if (op[0] == '<')
		return mkbool(op[1] == '=' ? c <= 0 : c < 0);
	return mkbool(op[1] == '=' ? c >= 0 : c > 0);
}

static struct mcinit_pv
fstring(struct mcinit_pyexpr *e, const char *s)
{
	struct mcinit_buf b = {0};
	struct mcinit_pv v;

	while (*s) {
		if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
			mcinit_buf_addc(&b, *s);
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
			inner = mcinit_xasprintf("%.*s", (int)(end - s - 1), s + 1);
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
				mcinit_buf_printf(&b, "%s=", inner);
			}
			sub = mcinit_pyexpr_parse(inner, &why);
			if (sub == NULL) {
				mcinit_buf_printf(&b, "{%s}", inner);
				free(why);
			} else {
				v = mcinit_pyexpr_eval(sub, e->fn, e->ctx);
				pv_str_in(&b, &v, show);
				mcinit_pyexpr_free(sub);
			}
			free(inner);
			s = *end ? end + 1 : end;
			continue;
		}
		mcinit_buf_addc(&b, *s++);
	}
	v = mkstr(e, mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
	return v;
}

static struct mcinit_pv
type_test(const struct mcinit_pv *v, const char *t)
{
	if (strcmp(t, "list") == 0 || strcmp(t, "tuple") == 0)
		return mkbool(v->kind == MCINIT_PV_LIST);
	if (strcmp(t, "int") == 0)
		return mkbool(v->kind == MCINIT_PV_INT || v->kind == MCINIT_PV_BOOL);
	if (strcmp(t, "float") == 0)
		return mkbool(v->kind == MCINIT_PV_FLOAT);
	if (strcmp(t, "str") == 0)
		return mkbool(v->kind == MCINIT_PV_STR);
	if (strcmp(t, "bool") == 0)
		return mkbool(v->kind == MCINIT_PV_BOOL);
	return mkbool(false);
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
		for (j = 0; j < k && !pv_equal(&d[j], &l.items[i]); j++)
			;
		if (j == k)
			d[k++] = l.items[i];
	}
	return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = d, .n = k};
}

/* The name `getattr(obj, "attr")` reads: what `obj.attr` names (attribute()
 * above): "attr" for args, self and config, "obj.attr" for another name
 * or dotted name.  NULL for an object that is no name (a call, ...). */
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
		return err(e, "%s is not known", probe);
	if (have.kind != MCINIT_PV_STR || mcinit_version_cmp(have.s, want, &c) < 0)
		return err(e, "%s: not a version", probe);
	return mkbool(c >= 0);
}

static struct mcinit_pv
call(struct mcinit_pyexpr *e, const struct node *n)
{
	struct mcinit_pv a[4];
	size_t i, k = n->nkids;
	const char *f = n->s;
	struct mcinit_buf b = {0};

	if (strcmp(f, "getattr") == 0 && k >= 2 && n->kids[1]->kind == N_CONST &&
	    n->kids[1]->val.kind == MCINIT_PV_STR) {
		struct mcinit_pv v;
		char buf[200];
		const char *name = getattr_name(n->kids[0], n->kids[1]->val.s, buf, sizeof buf);

		if (name != NULL && e->fn(e->ctx, e, name, &v) == 0)
			return v;
		return k >= 3 ? eval(e, n->kids[2]) : err(e, "unknown name %s", n->kids[1]->val.s);
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
				return mkbool(true);
			if (i + 1 == nc)
				return mkbool(false);
		}
		a[0] = eval(e, n->kids[0]);
		PROPAGATE(a[0]);
		if (cls->kind == N_NAME)
			return type_test(&a[0], cls->s);
		if (cls->kind == N_LIST) {
			for (i = 0; i < cls->nkids; i++)
				if (cls->kids[i]->kind == N_NAME &&
				    type_test(&a[0], cls->kids[i]->s).i)
					return mkbool(true);
			return mkbool(false);
		}
		return err(e, "isinstance of an expression");
	}
	if ((strcmp(f, "os.getenv") == 0 || strcmp(f, "os.environ.get") == 0) && k >= 1 &&
	    n->kids[0]->kind == N_CONST && n->kids[0]->val.kind == MCINIT_PV_STR) {
		/* the environment is the resolver's: "$NAME" */
		char *var = mcinit_xasprintf("$%s", n->kids[0]->val.s);
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
		char *q = mcinit_xasprintf("%s()", f);
		struct mcinit_pv v;
		int r = e->fn(e->ctx, e, q, &v);

		free(q);
		if (r == 0)
			return v;
		return err(e, "function %s is not supported", f);
	}
	if (k > 4)
		return err(e, "too many arguments to %s", f);
	for (i = 0; i < k; i++) {
		a[i] = eval(e, n->kids[i]);
		PROPAGATE(a[i]);
	}
	if (strcmp(f, "len") == 0 && k == 1) {
		if (a[0].kind == MCINIT_PV_LIST)
			return mkint((long long)a[0].n);
		if (a[0].kind == MCINIT_PV_STR)
			return mkint((long long)strlen(a[0].s));
		return err(e, "object has no len()");
	}
	if (strcmp(f, "bool") == 0 && k == 1)
		return mkbool(mcinit_pv_truthy(&a[0]));
	if (strcmp(f, "PkgVersion") == 0 && k == 1 && a[0].kind == MCINIT_PV_STR)
		return a[0]; /* compared as text; is_*_min_version order them */
	if ((strcmp(f, "is_te_min_version") == 0 || strcmp(f, "is_torch_min_version") == 0) &&
	    k == 1 && a[0].kind == MCINIT_PV_STR)
		return min_version(e, f, a[0].s);
	if ((strcmp(f, "set") == 0 || strcmp(f, "list") == 0 || strcmp(f, "tuple") == 0) && k == 1)
		return f[0] == 's' ? distinct(e, iterable(e, a[0])) : iterable(e, a[0]);
	if (strcmp(f, "math.isfinite") == 0 && k == 1) {
		if (!is_num(&a[0]))
			return err(e, "must be real number");
		return mkbool(!isinf(num(&a[0])) && !isnan(num(&a[0])));
	}
	if (strcmp(f, "int") == 0 && k == 1) {
		if (is_num(&a[0]))
			return mkint((long long)num(&a[0]));
		if (a[0].kind == MCINIT_PV_STR) {
			char *end;
			long long v = strtoll(a[0].s, &end, 10);

			if (*a[0].s && *end == '\0')
				return mkint(v);
		}
		return err(e, "invalid literal for int()");
	}
	if (strcmp(f, "float") == 0 && k == 1) {
		if (is_num(&a[0]))
			return mkfloat(num(&a[0]));
		if (a[0].kind == MCINIT_PV_STR) {
			char *end;
			double v = strtod(a[0].s, &end);

			if (*a[0].s && *end == '\0')
				return mkfloat(v);
		}
		return err(e, "could not convert to float");
	}
	if (strcmp(f, "str") == 0 && k == 1) {
		struct mcinit_pv v;

		mcinit_pv_str(&b, &a[0]);
		v = mkstr(e, mcinit_buf_cstr(&b));
		mcinit_buf_free(&b);
		return v;
	}
	if ((strcmp(f, "math.lcm") == 0 || strcmp(f, "math.gcd") == 0) && k >= 1) {
		long long r = f[5] == 'l' ? 1 : 0;

		for (i = 0; i < k; i++) {
			long long v, g, t;

			if (a[i].kind != MCINIT_PV_INT && a[i].kind != MCINIT_PV_BOOL)
				return err(e, "'%s' object cannot be interpreted as an integer",
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
		return mkint(r);
	}
	if (strcmp(f, "abs") == 0 && k == 1 && is_num(&a[0]))
		return a[0].kind == MCINIT_PV_FLOAT ? mkfloat(a[0].f < 0 ? -a[0].f : a[0].f)
		                                    : mkint(a[0].i < 0 ? -a[0].i : a[0].i);
	if ((strcmp(f, "min") == 0 || strcmp(f, "max") == 0 || strcmp(f, "sum") == 0 ||
	     strcmp(f, "any") == 0 || strcmp(f, "all") == 0) &&
	    k >= 1) {
		const struct mcinit_pv *items = a;
		size_t cnt = k, j;
		struct mcinit_pv best;

		if (k == 1) {
			if (a[0].kind != MCINIT_PV_LIST)
				return err(e, "%s() of a non-list", f);
			items = a[0].items;
			cnt = a[0].n;
		}
		if (f[1] == 'n' || f[1] == 'l') { /* any, all */
			bool any = f[1] == 'n';

			for (j = 0; j < cnt; j++)
				if (mcinit_pv_truthy(&items[j]) == any)
					return mkbool(any);
			return mkbool(!any);
		}
		if (f[0] == 's') {
			struct mcinit_pv s = mkint(0);

			for (j = 0; j < cnt; j++) {
				s = arith_op(e, "+", s, items[j]);
				PROPAGATE(s);
			}
			return s;
		}
		if (cnt == 0)
			return err(e, "%s() of an empty list", f);
		best = items[0];
		for (j = 1; j < cnt; j++) {
			struct mcinit_pv c = cmp(e, f[1] == 'i' ? "<" : ">", &items[j], &best);

			PROPAGATE(c);
			if (c.i)
				best = items[j];
		}
		return best;
	}
	return err(e, "function %s is not supported", f);
}

/* s.replace(from, to) for a non-empty from: every occurrence. */
static struct mcinit_pv
replace(struct mcinit_pyexpr *e, const char *s, const char *from, const char *to)
{
	struct mcinit_buf b = {0};
	struct mcinit_pv v;
	size_t lf = strlen(from);
	const char *q;

	while ((q = strstr(s, from)) != NULL) {
		mcinit_buf_add(&b, s, (size_t)(q - s));
		mcinit_buf_adds(&b, to);
		s = q + lf;
	}
	mcinit_buf_adds(&b, s);
	v = mkstr(e, mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
	return v;
}

/* sep.join(l): l's strings with sep between them. */
static struct mcinit_pv
join(struct mcinit_pyexpr *e, const char *sep, struct mcinit_pv l)
{
	struct mcinit_buf b = {0};
	struct mcinit_pv v;
	size_t i;

	for (i = 0; i < l.n; i++) {
		if (l.items[i].kind != MCINIT_PV_STR) {
			mcinit_buf_free(&b);
			return err(e, "sequence item %zu: expected str instance", i);
		}
		if (i > 0)
			mcinit_buf_adds(&b, sep);
		mcinit_buf_adds(&b, l.items[i].s);
	}
	v = mkstr(e, mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
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
	t = arena(e, n - b + 1);
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
				return mkbool(false);
			return mkbool(strncmp(m[0] == 's' ? o.s : o.s + lo - la, a.s, la) == 0);
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
				char *t = arena(e, (size_t)(q - p) + 1);

				memcpy(t, p, (size_t)(q - p));
				l[i++] = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = t};
				p = q + la2;
			}
			l[i++] = mkstr(e, p);
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
				return err(e, "replace() argument 2 must be str");
			return replace(e, o.s, a.s, to.s);
		}
		if (strcmp(m, "count") == 0 && a.kind == MCINIT_PV_STR && a.s[0]) {
			long long c = 0;
			const char *p = o.s;

			while ((p = strstr(p, a.s)) != NULL) {
				c++;
				p += strlen(a.s);
			}
			return mkint(c);
		}
	}
	if (o.kind == MCINIT_PV_LIST && strcmp(m, "count") == 0 && n->nkids > 1) {
		long long c = 0;
		size_t i;

		for (i = 0; i < o.n; i++)
			c += pv_equal(&o.items[i], &a);
		return mkint(c);
	}
	return err(e, "method %s is not supported", m);
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
		return err(e, "object is not iterable");
	n = strlen(v.s);
	l = mcinit_pyexpr_alloc_list(e, n);
	for (i = 0; i < n; i++) {
		char c[2] = {v.s[i], '\0'};

		l[i] = mkstr(e, c);
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
		return err(e, "comprehensions nested too deep");
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
		return err(e, "unknown name %s", n->s);
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
		return mkbool(!mcinit_pv_truthy(&a));
	case N_NEG:
		a = eval(e, n->kids[0]);
		PROPAGATE(a);
		if (!is_num(&a))
			return err(e, "bad operand type for unary -");
		return a.kind == MCINIT_PV_FLOAT ? mkfloat(-a.f) : mkint(-a.i);
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
		return mkbool(true);
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
				return err(e, "list index out of range");
			return a.items[k];
		}
		return err(e, "unsupported subscript");
	}
	return err(e, "internal: node kind");
}

struct mcinit_pv
mcinit_pyexpr_eval(struct mcinit_pyexpr *e, mcinit_pyexpr_resolve fn, void *ctx)
{
	e->fn = fn;
	e->ctx = ctx;
	return eval(e, e->root);
}

static bool
builtin(const char *f)
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

static bool
method_known(const char *m)
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
		char *q = mcinit_xasprintf("%s()", n->s);

		fn(ctx, q);
		free(q);
	} else if (n->kind == N_CALL && !builtin(n->s)) {
		char *q = mcinit_xasprintf("%s(...)", n->s);

		fn(ctx, q);
		free(q);
	}
	if (n->kind == N_METHOD && !method_known(n->s)) {
		char *q = mcinit_xasprintf(".%s()", n->s);

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
