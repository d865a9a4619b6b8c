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

#include "rules/ports.h"

/* The table (ports.h): a row's releases are enum mcinit_mversion bits (the
 * facts are main's, port rows `versions` say which releases have them),
 * its code MC200-MC256, and rows with one guard share its tree. */
extern const struct mcinit_port_table mcinit_ports_megatron;
extern const struct mcinit_port mcinit_mchecks[];
extern const size_t mcinit_nmchecks;

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
struct mcinit_mcheck_memo *mcinit_mcheck_memo(const struct mcinit_port *m, int vi);

/* Whether the evaluator can resolve `name` in the row `id` (a config field
 * by dest or Megatron-Core attribute name, a field of the Bridge section the
 * row's dataclass is, a derived value, an enum constant, "$VAR" for the
 * environment): rules-mcheck.c. */
bool mcinit_mcheck_name_known(const char *name, const char *id);
/* The i-th name of the evaluator's table of derived and mapped values
 * (sorted bytewise, for bisection), NULL past its end: for tests. */
const char *mcinit_mcheck_special_at(size_t i);

/* The locals of the checked functions that are plain functions of the
 * config (data/megatron-checks-locals.tsv) are the table's locals: read
 * where a row names "%name", their value Python in the function's own
 * terms (self.x, args.x, other locals). */

/* data/megatron-checks-ledger.tsv, computed: id, implemented_by, note. */
int mcinit_mchecks_ledger(FILE *out);
/* Coverage: implemented / offline-decidable / total, per source function. */
int mcinit_mchecks_coverage(FILE *out);

#endif
