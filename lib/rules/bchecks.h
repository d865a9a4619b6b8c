/*
 * bchecks.h — Megatron-Bridge's own configuration checks, ported as data.
 *
 * Megatron-Bridge refuses, before training, configurations that Megatron-LM's
 * validate_args never sees: ConfigContainer.validate and the helpers it
 * calls, runtime_config_update (the environment variables, the mixed
 * precision), the sections' finalize (TrainingConfig, SchedulerConfig,
 * CheckpointConfig, ...).  Every such check of Bridge main is a row of
 * data/bridge-checks.tsv, every check of a release a row of its
 * data/releases/.../bridge-checks.tsv; a check the same in several releases
 * is one row of the table (build-aux/gen-tables.py bchecks), named by main's
 * file:line and knowing its file:line in each release.  As for Megatron-LM's
 * checks (mchecks.h), mcinit evaluates each row's guard and condition
 * (pyexpr.h) against the config: data/bridge-checks-port.tsv says how a row
 * is ported where the facts alone do not (a rewritten guard, a hand-written
 * rule that implements it, another check that implies it, why it cannot be
 * decided offline),
 * data/bridge-checks-locals.tsv gives the locals of Bridge's functions, and
 * the ledger (data/bridge-checks-ledger.tsv) names the rows vetted against
 * Bridge: only those are evaluated.
 *
 * The rows apply to a Megatron-Bridge ConfigContainer (config->bridge), of
 * the config's Bridge release (config->bversion).  Codes: MC300
 * ConfigContainer.validate and the functions of runtime_config_update,
 * MC301 a section's own finalize or __post_init__; their warnings MC350 and
 * MC351.
 *
 * Ownership: the table is static.  A row's status and parsed expressions
 * are computed the first time they are asked for and kept for the life of
 * the process (shared by threads, never freed).
 */
#ifndef MCINIT_BCHECKS_H
#define MCINIT_BCHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rules/bchecks.inc"

struct mcinit_bcheck {
	const char *id;       /* main's file:line, or RELEASE:file:line for a check main lacks */
	const char *function; /* Bridge's function: Class.method or a module function */
	const char *section;  /* the section `self` is in a section class's method, else "" */
	const char *cls;      /* the class of the function, "" for a module function */
	const char *kind;     /* assert, raise, warn */
	const char *guard;    /* Python; "" = always; levels joined by && */
	const char *cond;     /* Python: must hold (assert) / fails (raise, warn) */
	const char *when;     /* port override: the whole failure condition, or NULL */
	const char *message;  /* Python source of the message */
	bool offline;         /* the facts table's verdict */
	const char *note;
	const char *rule;  /* implemented by this hand-written rule, or NULL */
	const char *dup;   /* implied by the check of this id, which Bridge runs first */
	const char *no;    /* mcinit's reason it is not ported, or NULL */
	const char *sev;   /* "warning" / "note" / "error" override, or NULL */
	unsigned releases; /* bits of mcinit_bversion_*: the releases that have it */
	bool vetted;       /* the ledger names its code: evaluated */
	const char *ids[MCINIT_BCHECK_NREL]; /* its file:line in each release, or NULL */
	unsigned short loc, nloc; /* its function's locals: mcinit_blocals[loc..loc+nloc) */
};

/* A local of a Bridge function: name as the evaluator asks for it ("%x"
 * bare, "a.b" an attribute, "(call)" the condition the function runs
 * under), value as Python over the function's names. */
struct mcinit_blocal {
	const char *function, *name, *value;
	unsigned releases;
};

extern const struct mcinit_bcheck mcinit_bchecks[];
extern const size_t mcinit_nbchecks;
extern const struct mcinit_blocal mcinit_blocals[];
extern const size_t mcinit_nblocals;

/* The local `name` of row b's function in release v (any of the bits of
 * v), or NULL. */
const struct mcinit_blocal *mcinit_blocal_find(const struct mcinit_bcheck *b, const char *name,
                                               unsigned v);

/* The code a row reports under (MC300, MC301, MC350, MC351). */
const char *mcinit_bcheck_code(const struct mcinit_bcheck *b);

/* The row's file:line in release v (the newest release's for a row v lacks). */
const char *mcinit_bcheck_where(const struct mcinit_bcheck *b, unsigned v);

/* Whether class `cls` (a short name) is the class `name` (a full name;
 * NULL: section sec's own class) or one of its ancestors: isinstance. */
bool mcinit_bclass_isa(const char *sec, const char *name, const char *cls);

/* The row named id, or NULL. */
const struct mcinit_bcheck *mcinit_bcheck_find(const char *id);

/* The rows whose status can be the table code `code` (MC300-MC351): no
 * rule, duplicate or reason of their own, decidable offline, vetted, with a
 * condition, in table order; *n set to how many.  Generated with the table:
 * a rule evaluates these, never asking every row's status. */
const unsigned short *mcinit_bcheck_runs(const char *code, size_t *n);

struct mcinit_pyexpr;

/* The expressions of a row, and a local's value, parsed once per process:
 * shared, read only (evaluate through mcinit_pyexpr_share); NULL when the
 * text is empty or not in the subset pyexpr parses. */
enum mcinit_bcheck_expr {
	MCINIT_BX_WHEN,
	MCINIT_BX_GUARD,
	MCINIT_BX_COND,
	MCINIT_BX_MESSAGE,
};
const struct mcinit_pyexpr *mcinit_bcheck_expr(const struct mcinit_bcheck *b,
                                               enum mcinit_bcheck_expr x);
const struct mcinit_pyexpr *mcinit_blocal_expr(const struct mcinit_blocal *l);

/* How row b is implemented: its code (the table's, a hand-written rule's,
 * or that of the row that implies it) and NULL *why; or NULL with the
 * reason in *why. */
const char *mcinit_bcheck_status(const struct mcinit_bcheck *b, const char **why);

/* Whether the evaluator resolves `name` in row b (a section's field, a
 * local of the row's function, a class test, "$VAR"): rules-bcheck.c. */
bool mcinit_bcheck_name_known(const char *name, const struct mcinit_bcheck *b);

/* data/bridge-checks-ledger.tsv, computed: id, implemented_by, note. */
int mcinit_bchecks_ledger(FILE *out);
/* Coverage: implemented / offline-decidable / total, per Bridge function. */
int mcinit_bchecks_coverage(FILE *out);

#endif
