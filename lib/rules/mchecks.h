/*
 * mchecks.h — Megatron-LM's own configuration checks, ported as data.
 *
 * Every check of Megatron-LM main's configuration validation is one row of
 * data/megatron-checks.tsv (its id is file:line), with its enclosing-if
 * guard and its condition as Python source.  mcinit evaluates those
 * expressions itself (pyexpr.h) against the config, the derived values and
 * the job's environment, so one table row ports one check; where the facts
 * alone do not make a row decidable, data/megatron-checks-port.tsv says how
 * mcinit ports it (a rewritten guard or condition, a hand-written rule that
 * already implements it, or why it cannot be decided offline).  The ledger
 * (data/megatron-checks-ledger.tsv) is what mcinit_mchecks_ledger prints;
 * it is also an input: a row is evaluated only once the ledger names its
 * code (vetted against Megatron), so new fields or resolver names never
 * switch rows on unseen.
 *
 * Codes are per source: MC200 validate_args (training/arguments.py), MC201
 * TransformerConfig, MC202 ModelParallelConfig, MC203 OptimizerConfig, MC204
 * DistributedDataParallelConfig, MC205 the micro-batch calculator, MC206 the
 * training-config dataclasses; the warnings of the same places are
 * MC250-MC256.
 *
 * Ownership: the table is static.  A row's status and parsed expressions
 * are computed the first time they are asked for and kept for the life of
 * the process (shared by threads, never freed).
 */
#ifndef MCINIT_MCHECKS_H
#define MCINIT_MCHECKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mcinit_mcheck {
	const char *id;       /* file:line in Megatron-LM main */
	const char *function; /* Megatron function or __post_init__ */
	const char *kind;     /* assert, raise, warn */
	const char *guard;    /* Python; "" = always; levels joined by && */
	const char *cond;     /* Python: must hold (assert) / fails (raise, warn) */
	const char *when;     /* port override: the whole failure condition, or NULL */
	const char *message;  /* Python source of the message */
	bool offline;         /* the facts table's verdict */
	const char *note;
	const char *rule;     /* implemented by this hand-written rule, or NULL */
	const char *no;       /* mcinit's reason it is not ported, or NULL */
	const char *sev;      /* "warning" / "note" override, or NULL */
	unsigned versions;    /* enum mcinit_mversion bits of the releases that have it */
	bool vetted;          /* the ledger names its code: evaluated */
	const char *code;     /* the table's code for it (see mcinit_mcheck_code) */
	unsigned short gsame; /* the first row with the same guard (this one's, or before) */
};

extern const struct mcinit_mcheck mcinit_mchecks[];
extern const size_t mcinit_nmchecks;

/* Whether row m is a check of Megatron-LM release v (an enum mcinit_mversion
 * bit): the facts are main's, port rows `versions` say which releases
 * have them. */
bool mcinit_mcheck_in(const struct mcinit_mcheck *m, unsigned v);

/* The code a table row reports under (MC200-MC206, MC250-MC256). */
const char *mcinit_mcheck_code(const struct mcinit_mcheck *m);

/* How row m is implemented: its code (the table's or a hand-written
 * rule's) and NULL *why; or NULL with the reason in *why (static text or
 * the row's own).  Computed once per process (the names a row reads are
 * resolved as in the default release), whichever thread asks first. */
const char *mcinit_mcheck_status(const struct mcinit_mcheck *m, const char **why);

/* The rows whose status can be the table code `code` (MC200-MC256): those
 * with a condition, decidable offline, vetted, and no rule or reason of
 * their own, in table order; *n set to how many.  Generated with the table. */
const unsigned short *mcinit_mcheck_runs(const char *code, size_t *n);

struct mcinit_pyexpr;

/* The expressions of a row, parsed once per process. */
enum mcinit_mcheck_expr {
	MCINIT_MX_WHEN,
	MCINIT_MX_GUARD,
	MCINIT_MX_COND,
	MCINIT_MX_MESSAGE,
};
/* The syntax tree of expression x of row m, shared (read only: evaluate
 * it through mcinit_pyexpr_share); NULL when the text is empty or not in
 * the subset pyexpr parses. */
const struct mcinit_pyexpr *mcinit_mcheck_expr(const struct mcinit_mcheck *m,
                                               enum mcinit_mcheck_expr x);

/* A row's verdict remembered where the fields it read were at their
 * defaults (rules-mcheck.c fills and reads it): state is 0 while empty. */
#define MCINIT_MEMO_FIELDS 7
struct mcinit_mcheck_memo {
	_Atomic unsigned char state;
	signed char verdict;
	unsigned char n;
	unsigned short f[MCINIT_MEMO_FIELDS]; /* the fields read */
};
/* Row m's memo for the release of index vi (< MCINIT_MV_COUNT): zeroed
 * storage kept for the process (untouched pages until a release's rows
 * are evaluated). */
struct mcinit_mcheck_memo *mcinit_mcheck_memo(const struct mcinit_mcheck *m, int vi);

/* Whether the evaluator can resolve `name` in the row `id` (a config field
 * by dest or Megatron-Core attribute name, a field of the Bridge section the
 * row's dataclass is, a derived value, an enum constant, "$VAR" for the
 * environment): rules-mcheck.c. */
bool mcinit_mcheck_name_known(const char *name, const char *id);
/* The i-th name of the evaluator's table of derived and mapped values
 * (sorted bytewise, for bisection), NULL past its end: for tests. */
const char *mcinit_mcheck_special_at(size_t i);

/* A local of a checked function that is a plain function of the config
 * (data/megatron-checks-locals.tsv): its value, Python in the function's
 * own terms, read where a row names "%name". */
struct mcinit_mlocal {
	const char *function; /* the checked function's, as its rows name it */
	const char *name;     /* "%name" */
	const char *value;    /* Python: self.x, args.x, other locals */
	unsigned versions;    /* enum mcinit_mversion bits of the releases */
};

/* The local `name` ("%name") of function fn in a release of mask v, or
 * NULL. */
const struct mcinit_mlocal *mcinit_mlocal_find(const char *fn, const char *name, unsigned v);
/* Its value's syntax tree, parsed once per process (shared, read only);
 * NULL when not in the subset pyexpr parses. */
const struct mcinit_pyexpr *mcinit_mlocal_expr(const struct mcinit_mlocal *l);

/* data/megatron-checks-ledger.tsv, computed: id, implemented_by, note. */
int mcinit_mchecks_ledger(FILE *out);
/* Coverage: implemented / offline-decidable / total, per source function. */
int mcinit_mchecks_coverage(FILE *out);

#endif
