/*
 * mchecks.c — the table of Megatron-LM's configuration checks (generated
 * from data/megatron-checks.tsv and data/megatron-checks-port.tsv by
 * build-aux/gen-tables.py mchecks, with the code each row reports under and
 * the rows each code's rule may evaluate) and its descriptor for the engine
 * (ports.h), which keeps its expressions and statuses and prints the ledger
 * and coverage of `mcinit explain`.  Evaluation is in rules-mcheck.c.
 */
#include "rules/mchecks.h"

#include <stddef.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "rules/rules-impl.h"

const struct mcinit_port mcinit_mchecks[] = {
#define MCINIT_MCHECK(id, fn, kind, guard, cond, when, msg, off, note, rule, no, sev, ver, vet,    \
                      code, gsame)                                                                 \
	{id,   fn, kind, guard, cond, when,  msg, note, rule,                                      \
	 NULL, no, sev,  code,  ver,  gsame, off, vet},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK
};
const size_t mcinit_nmchecks = sizeof mcinit_mchecks / sizeof mcinit_mchecks[0];
#define NROWS (sizeof mcinit_mchecks / sizeof mcinit_mchecks[0])

/* The locals; a sentinel keeps the array non-empty. */
static const struct mcinit_port_local mlocals[] = {
#define MCINIT_MLOCAL(fn, name, value, ver) {fn, name, value, ver},
#include "rules/mchecks.inc"
#undef MCINIT_MLOCAL
    {NULL, NULL, NULL, 0},
};
#define NLOCALS (sizeof mlocals / sizeof mlocals[0] - 1)

/* code -> the rows it may evaluate, and the same rows in one array. */
static const struct mcinit_port_run_row runs[] = {
#define MCINIT_MCHECK_RUN(code, row) {code, row},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK_RUN
};
static const unsigned short run_rows[] = {
#define MCINIT_MCHECK_RUN(code, row) row,
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK_RUN
};

/* A scan: the table holds a handful of locals, and only the rows that read
 * one ask. */
static const struct mcinit_port_local *
local(const struct mcinit_port *m, const char *name, unsigned v)
{
	size_t i;

	for (i = 0; i < NLOCALS; i++)
		if ((mlocals[i].releases & v) != 0 && strcmp(mlocals[i].name, name) == 0 &&
		    strcmp(mlocals[i].function, m->function) == 0)
			return &mlocals[i];
	return NULL;
}

static bool
known(const struct mcinit_port *m, const char *name)
{
	return mcinit_mcheck_name_known(name, m->id);
}

static _Atomic(const struct mcinit_pyexpr *) exprs[NROWS][MCINIT_PX_COUNT];
static _Atomic(const struct mcinit_pyexpr *) local_exprs[NLOCALS + 1];
static _Atomic(struct mcinit_port_status *) statuses[NROWS];

const struct mcinit_port_table mcinit_ports_megatron = {
    .source = "Megatron-LM",
    .vetter = "Megatron",
    .rows = mcinit_mchecks,
    .nrows = NROWS,
    .locals = mlocals,
    .runs = runs,
    .run_rows = run_rows,
    .nruns = sizeof runs / sizeof runs[0],
    .exprs = exprs,
    .local_exprs = local_exprs,
    .status = statuses,
    .share_guards = true,
    .locals_see_through = true, /* the names resolver knows only mcheck-locals.c's */
    .coverage_title = "function",
    .coverage_width = 55,
    .local = local,
    .known = known,
    .bare_assert = "", /* the condition itself */
    .no_field = F(world_size),
};

static struct mcinit_mcheck_memo memos[MCINIT_MV_COUNT][NROWS];

struct mcinit_mcheck_memo *
mcinit_mcheck_memo(const struct mcinit_port *m, int vi)
{
	return &memos[vi][m - mcinit_mchecks];
}

int
mcinit_mchecks_ledger(FILE *out)
{
	return mcinit_port_ledger(&mcinit_ports_megatron, out);
}

int
mcinit_mchecks_coverage(FILE *out)
{
	return mcinit_port_coverage(&mcinit_ports_megatron, out);
}
