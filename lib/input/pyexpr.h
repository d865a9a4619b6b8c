/*
 * pyexpr.h — a small evaluator for the Python expressions in which
 * Megatron-LM writes its configuration checks (data/megatron-checks.tsv:
 * guards, conditions and f-string messages), so that a check can be ported
 * as one table row instead of one hand-written C function.
 *
 * The language is the subset of Python those expressions use: None, True,
 * False, ints, floats, strings and f-strings, lists and tuples, `and or not`,
 * comparisons (chained, `in`, `not in`, `is`, `is not`), + - * / // % **,
 * the conditional expression, attribute access (`args.x`, `self.x` and
 * `Enum.member` are names for the resolver), subscripts and the calls
 * len, getattr, isinstance, int, float, str, bool, min, max, abs, any, all,
 * math.lcm, math.gcd.
 * `A && B` joins the levels of an enclosing-`if` chain (the facts table's
 * guard column) and binds loosest.
 *
 * Ownership: a struct mcinit_pyexpr owns its syntax tree and everything an
 * evaluation allocates; mcinit_pyexpr_free releases all of it.  Values
 * returned by mcinit_pyexpr_eval live until the next free.  A tree parsed
 * once can be evaluated many times, from several threads at once, through
 * expressions that share it (mcinit_pyexpr_share): each owns only what its
 * evaluations allocate.
 */
#ifndef MCINIT_PYEXPR_H
#define MCINIT_PYEXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util.h"

enum mcinit_pv_kind {
	MCINIT_PV_NONE,
	MCINIT_PV_BOOL,
	MCINIT_PV_INT,
	MCINIT_PV_FLOAT,
	MCINIT_PV_STR,
	MCINIT_PV_LIST,
	MCINIT_PV_ERR, /* evaluation failed: message in s */
};

struct mcinit_pv {
	enum mcinit_pv_kind kind;
	long long i;                   /* BOOL, INT; ERR: 1 for Python's TypeError */
	double f;                      /* FLOAT */
	const char *s;                 /* STR, ERR */
	const struct mcinit_pv *items; /* LIST */
	size_t n;
};

struct mcinit_pyexpr;

/*
 * Resolves a name: the attribute of `args` / `self` / `config` (given
 * without the prefix), a bare identifier (a local or a parameter of the
 * Megatron function, given as "%name"), a dotted name such as
 * `AttnBackend.local` or `self.model.seq_length` (given whole, without
 * self: "model.seq_length"), "$VAR" for os.getenv / os.environ.get, or
 * "name()" for a call without arguments.  getattr(obj, "x", default) asks
 * for what obj.x names; isinstance(obj, Class) with a class other than
 * Python's own types asks for "obj:Class" ("model:GPTModelProvider",
 * "%cfg:Class" for a bare name), whose truth value is the answer.
 * Fills *out and returns 0, or returns -1 when the name is unknown.
 * Strings stored in *out must outlive the evaluation (use
 * mcinit_pyexpr_strdup for temporaries).
 */
typedef int (*mcinit_pyexpr_resolve)(void *ctx, struct mcinit_pyexpr *e, const char *name,
                                     struct mcinit_pv *out);

/* Parses src.  NULL with a message in *why (caller frees) on a syntax the
 * subset does not have. */
struct mcinit_pyexpr *mcinit_pyexpr_parse(const char *src, char **why);
/* The tree of src, parsed the first time it is asked for and kept in *slot
 * for the life of the process (threads may race: one tree is kept); NULL
 * when src is empty or not in the subset.  Evaluate it through
 * mcinit_pyexpr_share. */
const struct mcinit_pyexpr *mcinit_pyexpr_parse_once(_Atomic(const struct mcinit_pyexpr *) *slot,
                                                     const char *src);
/* An expression with the syntax tree of `parsed`, shared, not copied:
 * `parsed` must outlive it, and is never written (neither by evaluating
 * this nor by freeing it).  Its evaluations allocate in it alone. */
struct mcinit_pyexpr *mcinit_pyexpr_share(const struct mcinit_pyexpr *parsed);
/* Makes e an expression of `parsed`'s tree, as mcinit_pyexpr_share does,
 * in e's own memory: what e's evaluations allocated is released (values
 * they returned die), and e's first block is kept.  A loop evaluating many
 * trees shares one this way instead of allocating one per tree. */
void mcinit_pyexpr_reshare(struct mcinit_pyexpr *e, const struct mcinit_pyexpr *parsed);
void mcinit_pyexpr_free(struct mcinit_pyexpr *e);

/* Evaluates e; a MCINIT_PV_ERR value when a name is unknown or an operation
 * is not defined for its operands (Python would raise). */
struct mcinit_pv mcinit_pyexpr_eval(struct mcinit_pyexpr *e, mcinit_pyexpr_resolve fn, void *ctx);

/* Calls fn on every name e reads (as the resolver would be asked). */
void mcinit_pyexpr_names(const struct mcinit_pyexpr *e, void (*fn)(void *ctx, const char *name),
                         void *ctx);

/* Python's truth value of v (ERR: false). */
bool mcinit_pv_truthy(const struct mcinit_pv *v);
/* Python's str(v) appended to b (repr for strings inside lists). */
void mcinit_pv_str(struct mcx_buf *b, const struct mcinit_pv *v);
/* A copy of s owned by e. */
const char *mcinit_pyexpr_strdup(struct mcinit_pyexpr *e, const char *s);
/* A list of n values owned by e (uninitialised). */
struct mcinit_pv *mcinit_pyexpr_alloc_list(struct mcinit_pyexpr *e, size_t n);

#endif
