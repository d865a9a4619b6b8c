/*
 * pyexpr-impl.h — PRIVATE to the files of the Python-expression evaluator
 * (pyexpr-parse.c, pyexpr-value.c, pyexpr-eval.c): not to be included by
 * any other file, which uses pyexpr.h.  It holds the syntax tree, the
 * expression with its arena, and the internal functions one file provides
 * to another (mcinit_pyx_*: extern only because the evaluator spans three
 * files; the library is built with -fvisibility=hidden, so none is
 * exported).
 *
 * Who does what: pyexpr-parse.c owns the arena, the tokens and the syntax
 * tree (parse, share, free); pyexpr-value.c the values (truth, equality,
 * str and repr, floor and pow); pyexpr-eval.c walks the tree with Python's
 * semantics (operators, f-strings, calls, methods, names).
 */
#ifndef MCINIT_PYEXPR_IMPL_H
#define MCINIT_PYEXPR_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "input/pyexpr.h"
#include "core/util.h"

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

/* ---- pyexpr-parse.c ---- */

/* n zeroed bytes (and one more, as a NUL after a string copied in) owned
 * by e, aligned for any type. */
void *mcinit_pyx_arena(struct mcinit_pyexpr *e, size_t n);

/* ---- pyexpr-eval.c ---- */

/* Whether f is a function the evaluator calls itself (len, getattr, ...,
 * math.gcd): any other call is the resolver's.  The parser asks it too. */
bool mcinit_pyx_builtin(const char *f);
/* Whether m is a str or list method the evaluator knows (strip, join, ...). */
bool mcinit_pyx_method_known(const char *m);

/* ---- pyexpr-value.c ---- */

/* An ERR value whose message, printf's fmt, e owns. */
struct mcinit_pv mcinit_pyx_err(struct mcinit_pyexpr *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same for what Python raises as TypeError whatever the values (its
 * .i is 1; pyexpr.h), with Python's message. */
struct mcinit_pv mcinit_pyx_type_err(struct mcinit_pyexpr *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Python's a == b: numbers across int, float and bool, lists item by item. */
bool mcinit_pyx_equal(const struct mcinit_pv *a, const struct mcinit_pv *b);
/* str(v) appended to b, or repr(v) when repr (lists show their items' repr). */
void mcinit_pyx_str_in(struct mcx_buf *b, const struct mcinit_pv *v, bool repr);
/* floor and pow without libm: the checks need only integral exponents */
double mcinit_pyx_floor(double x);
double mcinit_pyx_pow(double x, double y);

/* The values the evaluator makes at every step: inline, so that the
 * evaluator's files share them without a call per value. */

static inline struct mcinit_pv
mcinit_pyx_mkbool(bool b)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = b};
}

static inline struct mcinit_pv
mcinit_pyx_mkint(long long i)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = i};
}

static inline struct mcinit_pv
mcinit_pyx_mkfloat(double f)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_FLOAT, .f = f};
}

static inline struct mcinit_pv
mcinit_pyx_mkstr(struct mcinit_pyexpr *e, const char *s)
{
	return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, s)};
}

static inline bool
mcinit_pyx_is_num(const struct mcinit_pv *v)
{
	return v->kind == MCINIT_PV_BOOL || v->kind == MCINIT_PV_INT || v->kind == MCINIT_PV_FLOAT;
}

static inline double
mcinit_pyx_num(const struct mcinit_pv *v)
{
	return v->kind == MCINIT_PV_FLOAT ? v->f : (double)v->i;
}

#endif
