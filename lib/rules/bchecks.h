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

#include "rules/ports.h"
#include "rules/bchecks.inc"

/* The table (ports.h): a row's releases are bits of mcinit_bversion_*, its
 * code MC300-MC351 (mcinit_bcheck_code), its place the release's. */
extern const struct mcinit_port_table mcinit_ports_bridge;
extern const struct mcinit_port mcinit_bchecks[];
extern const size_t mcinit_nbchecks;
extern const struct mcinit_port_local mcinit_blocals[];

/* What a Bridge row has besides: mcinit_bscopes[i] is row i's. */
struct mcinit_bscope {
	const char *section; /* the section `self` is in a section class's method, else "" */
	const char *cls;     /* the class of the function, "" for a module function */
	const char *ids[MCINIT_BCHECK_NREL]; /* its file:line in each release, or NULL */
	unsigned short loc, nloc; /* its function's locals: mcinit_blocals[loc..loc+nloc) */
};
extern const struct mcinit_bscope mcinit_bscopes[];
static inline const struct mcinit_bscope *
mcinit_bscope(const struct mcinit_port *row)
{
	return &mcinit_bscopes[row - mcinit_bchecks];
}

/* The code a row reports under (MC300, MC301, MC350, MC351). */
const char *mcinit_bcheck_code(const struct mcinit_port *b);

/* Whether class `cls` (a short name) is the class `name` (a full name;
 * NULL: section sec's own class) or one of its ancestors: isinstance. */
bool mcinit_bclass_isa(const char *sec, const char *name, const char *cls);

/* Whether the evaluator resolves `name` in row b (a section's field, a
 * local of the row's function, a class test, "$VAR"): rules-bcheck.c. */
bool mcinit_bcheck_name_known(const struct mcinit_port *b, const char *name);

/* data/bridge-checks-ledger.tsv, computed: id, implemented_by, note. */
int mcinit_bchecks_ledger(FILE *out);
/* Coverage: implemented / offline-decidable / total, per Bridge function. */
int mcinit_bchecks_coverage(FILE *out);

#endif
