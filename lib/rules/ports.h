/*
 * ports.h — the engine of the ported check tables: a source's own
 * configuration checks (Megatron-LM's, mchecks.h; Megatron-Bridge's,
 * bchecks.h), each one row with its guard and condition as Python, which
 * mcinit evaluates (pyexpr.h) against the config.
 *
 * One engine, one table per source.  A source is a struct mcinit_port_table
 * (its rows, the locals of its functions, the rows each code runs, where
 * its expressions are kept, and the few functions that differ: the names it
 * resolves, a row's code and place) and, for running its rows on a config,
 * a struct mcinit_port_eval (its resolver and the hooks around a row's
 * verdict).  The engine does the rest alike for every source: the
 * expressions parsed once per process, each row's status (its code, or why
 * not), the ledger and coverage `mcinit explain` prints, a row's verdict,
 * the field its finding points at, and the finding itself.  A new source is
 * its generated table, a descriptor and its resolver.
 *
 * Ownership: the tables are static.  A row's status and parsed expressions
 * are computed the first time they are asked for and kept for the life of
 * the process (shared by threads, never freed).
 */
#ifndef MCINIT_PORTS_H
#define MCINIT_PORTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mcinit_pyexpr;
struct mcinit_pv;
struct mcinit_rule_ctx;

/* One check of a source, as ported. */
struct mcinit_port {
	const char *id;       /* file:line in the source (see the table) */
	const char *function; /* the source's function: Class.method, a function */
	const char *kind;     /* assert, raise, warn */
	const char *guard;    /* Python; "" = always; levels joined by && */
	const char *cond;     /* Python: must hold (assert) / fails (raise, warn) */
	const char *when;     /* port override: the whole failure condition, or NULL */
	const char *message;  /* Python source of the message */
	const char *note;
	const char *rule; /* implemented by this hand-written rule, or NULL */
	const char *dup;  /* implied by the check of this id, run first, or NULL */
	const char *no;   /* mcinit's reason it is not ported, or NULL */
	const char *sev;  /* "warning" / "note" / "error" override, or NULL */
	const char *code; /* the code it reports under, or NULL: the table's code() */
	/* the rest in one word: the start-up's relocations walk every word of
	 * the tables */
	unsigned releases;    /* the table's bits of the releases that have it */
	unsigned short gsame; /* with share_guards: the first row with its guard */
	bool offline;         /* the facts table's verdict */
	bool vetted;          /* the ledger names its code: evaluated */
};

/* A local of a checked function: name as the resolver asks for it ("%x",
 * "a.b" an attribute, "(call)" the condition the function runs under),
 * value as Python over the function's names. */
struct mcinit_port_local {
	const char *function, *name, *value;
	unsigned releases;
};

/* The expressions of a row. */
enum mcinit_port_expr {
	MCINIT_PX_WHEN,
	MCINIT_PX_GUARD,
	MCINIT_PX_COND,
	MCINIT_PX_MESSAGE,
	MCINIT_PX_COUNT,
};

/* A table's rows by the code they report under (generated with the
 * table, sorted by code, each code's rows in table order). */
struct mcinit_port_run_row {
	const char *code;
	unsigned short row;
};

struct mcinit_port_status;
struct mcinit_port_eval;

/* A source: its table and what differs from one source to another. */
struct mcinit_port_table {
	const char *source; /* "Megatron-LM": the findings' and hints' prefix */
	const char *vetter; /* "... not vetted against VETTER yet" */
	const struct mcinit_port *rows;
	size_t nrows;
	const struct mcinit_port_local *locals;
	const struct mcinit_port_run_row *runs; /* and the same rows, one array */
	const unsigned short *run_rows;
	size_t nruns;
	/* storage for what is kept per process, zeroed, one slot per row or
	 * local */
	_Atomic(const struct mcinit_pyexpr *) (*exprs)[MCINIT_PX_COUNT];
	_Atomic(const struct mcinit_pyexpr *) *local_exprs;
	_Atomic(struct mcinit_port_status *) *status;
	bool share_guards;       /* rows with one guard text share its tree (gsame) */
	bool locals_see_through; /* a "%local" of a status check is known when
	                          * the names of its value are */
	/* the coverage's function column */
	const char *coverage_title;
	int coverage_width;
	/* the local `name` of row's function in a release of mask v, or NULL */
	const struct mcinit_port_local *(*local)(const struct mcinit_port *row, const char *name,
	                                         unsigned v);
	/* whether the resolver knows name in row */
	bool (*known)(const struct mcinit_port *row, const char *name);
	/* the code of a row whose table gives none */
	const char *(*code)(const struct mcinit_port *row);
	/* the row's file:line in release v (NULL: its id) */
	const char *(*where)(const struct mcinit_port *row, unsigned v);
	/* the release v's name, for the hint (NULL: the hint names none) */
	const char *(*release_name)(unsigned v);
	/* a finding's text when the message is empty: this, then the
	 * condition */
	const char *bare_assert;
	bool one_line; /* a message's newlines become spaces */
	int no_field;  /* where a finding points when the row reads no field */
};

/* The code a row reports under. */
const char *mcinit_port_code(const struct mcinit_port_table *t, const struct mcinit_port *row);
/* The syntax tree of expression x of row, shared (read only: evaluate it
 * through mcinit_pyexpr_share); NULL when the text is empty or not in the
 * subset pyexpr parses. */
const struct mcinit_pyexpr *mcinit_port_expr(const struct mcinit_port_table *t,
                                             const struct mcinit_port *row,
                                             enum mcinit_port_expr x);
/* A local's value, likewise. */
const struct mcinit_pyexpr *mcinit_port_local_expr(const struct mcinit_port_table *t,
                                                   const struct mcinit_port_local *l);
/* The row named id, or NULL. */
const struct mcinit_port *mcinit_port_find(const struct mcinit_port_table *t, const char *id);
/* The rows whose status can be the table code `code`: those with a
 * condition, decidable offline, vetted, and no rule, duplicate or reason of
 * their own, in table order; *n set to how many.  A rule evaluates these,
 * never asking every row's status. */
const unsigned short *mcinit_port_runs(const struct mcinit_port_table *t, const char *code,
                                       size_t *n);
/* How row is implemented: its code (the table's, a hand-written rule's, or
 * that of the row that implies it) and NULL *why; or NULL with the reason
 * in *why.  Computed once per process, whichever thread asks first. */
const char *mcinit_port_status(const struct mcinit_port_table *t, const struct mcinit_port *row,
                               const char **why);

/* The ledger (id, implemented_by, note: one line a row) and the coverage
 * (per function: implemented, offline-decidable, total, then "all").  0,
 * or -1 on a write error. */
int mcinit_port_ledger(const struct mcinit_port_table *t, FILE *out);
int mcinit_port_coverage(const struct mcinit_port_table *t, FILE *out);

/* ---- running a table's rows on a config (the rules module) ---- */

/* One row being evaluated.  A source's resolver context begins with it. */
struct mcinit_port_run {
	struct mcinit_rule_ctx *x; /* NULL: only whether names are known */
	const struct mcinit_port_table *t;
	const struct mcinit_port_eval *ev;
	const struct mcinit_port *row;
	size_t index; /* row's index in the table */
	unsigned v;   /* the config's release of the source */
	/* the expression the verdict reshares for each row (NULL until the
	 * first); mcinit_port_check frees it */
	struct mcinit_pyexpr *scratch;
	int depth; /* locals being evaluated inside locals */
	/* the locals being evaluated, innermost last */
	const struct mcinit_port_local *active[8];
	/* the row read a field that holds a value of another type than the
	 * field's, which Bridge keeps (config.h: pyval); the resolver says so */
	bool pyval_read;
	/* the TypeError Python raises in the row's expressions (the first),
	 * "" when none: with pyval_read, what Bridge fails with */
	char type_error[160];
};

/* How a source evaluates its rows. */
struct mcinit_port_eval {
	/* the resolver (pyexpr.h); its ctx is the struct mcinit_port_run */
	int (*resolve)(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out);
	/* the field a name of the row points at: mcinit_port_point for each */
	void (*point)(void *ctx, const char *name);
	/* before a row (NULL: nothing) */
	void (*begin)(struct mcinit_port_run *r);
	/* the row's verdict (NULL: mcinit_port_verdict) */
	int (*verdict)(struct mcinit_port_run *r);
	/* a row that could not be decided (NULL: nothing said) */
	void (*undecided)(struct mcinit_port_run *r);
};

/* Runs the rows of r->t whose code is r->x->rule's, in release r->v,
 * reporting those that fail; r's other members start zeroed. */
void mcinit_port_check(struct mcinit_port_run *r);
/* Row r->row's verdict from its expressions: 1: it fails, 0: it holds,
 * -1: it cannot be decided for this config. */
int mcinit_port_verdict(struct mcinit_port_run *r);
/* Expression src (parsed: tree) evaluated: 1: it holds (or fails,
 * negate), 0: not, -1: cannot be decided.  An empty src holds. */
int mcinit_port_eval_expr(struct mcinit_port_run *r, const char *src,
                          const struct mcinit_pyexpr *tree, bool negate);
/* A local's value evaluated in the row's context, kept in outer: 0, or -1
 * when it cannot be. */
int mcinit_port_eval_local(struct mcinit_port_run *r, struct mcinit_pyexpr *outer,
                           const struct mcinit_port_local *l, struct mcinit_pv *out);
/* Whether l is being evaluated (a local inside its own value); inline: the
 * resolver asks at every name. */
static inline bool
mcinit_port_local_active(const struct mcinit_port_run *r, const struct mcinit_port_local *l)
{
	int i;

	for (i = 0; i < r->depth; i++)
		if (r->active[i] == l)
			return true;
	return false;
}

/* The field a finding points at: the first the row reads that the user
 * wrote, else the first it reads, else the table's no_field.  The source's
 * point() is called with each name and a struct mcinit_port_at. */
struct mcinit_port_at {
	struct mcinit_port_run *r;
	int first, written, depth;
};
int mcinit_port_field(struct mcinit_port_run *r);
/* point(): field f (-1: none) is read; the names of tree (a local's value)
 * are read. */
void mcinit_port_point(struct mcinit_port_at *a, int f);
void mcinit_port_point_tree(struct mcinit_port_at *a, const struct mcinit_pyexpr *tree);

/* A string value of dtype field f as the sources compare it: "bf16" is
 * torch.bfloat16 (and fp32, fp16). */
const char *mcinit_port_torch_dtype(int f, const char *s);

#endif
