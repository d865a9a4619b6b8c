/*
 * mchecks.c — the table of Megatron-LM's configuration checks (generated
 * from data/megatron-checks.tsv and data/megatron-checks-port.tsv by
 * build-aux/gen-tables.py mchecks, with the code each row reports under and
 * the rows each code's rule may evaluate), whether mcinit can evaluate a
 * row and its expressions parsed (both once per process), and the ledger
 * and coverage printed by `mcinit explain`.  Evaluation itself is in
 * rules-mcheck.c, inside the rules module.
 */
#include "rules/mchecks.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "core/util.h"
#include "input/pyexpr.h"
#include "rules/ledger.h"

const struct mcinit_mcheck mcinit_mchecks[] = {
#define MCINIT_MCHECK(id, fn, kind, guard, cond, when, msg, off, note, rule, no, sev, ver, vet,    \
                      code, gsame)                                                                 \
	{id, fn, kind, guard, cond, when, msg, off, note, rule, no, sev, ver, vet, code, gsame},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK
};
const size_t mcinit_nmchecks = sizeof mcinit_mchecks / sizeof mcinit_mchecks[0];

/* The locals, grouped by function; a sentinel keeps the array non-empty. */
static const struct mcinit_mlocal mlocals[] = {
#define MCINIT_MLOCAL(fn, name, value, ver) {fn, name, value, ver},
#include "rules/mchecks.inc"
#undef MCINIT_MLOCAL
    {NULL, NULL, NULL, 0},
};
#define NLOCALS (sizeof mlocals / sizeof mlocals[0] - 1)

/* code -> the rows it may evaluate (ledger.h), and the same rows in one array. */
static const struct mcinit_ledger_run runs[] = {
#define MCINIT_MCHECK_RUN(code, row) {code, row},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK_RUN
};
static const unsigned short run_rows[] = {
#define MCINIT_MCHECK_RUN(code, row) row,
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK_RUN
};

bool
mcinit_mcheck_in(const struct mcinit_mcheck *m, unsigned v)
{
	return (m->versions & v) != 0;
}

const char *
mcinit_mcheck_code(const struct mcinit_mcheck *m)
{
	return m->code;
}

const unsigned short *
mcinit_mcheck_runs(const char *code, size_t *n)
{
	return mcinit_ledger_runs(runs, sizeof runs / sizeof runs[0], run_rows, code, n);
}

/* A scan: the table holds a handful of locals, and only the rows that read
 * one ask. */
const struct mcinit_mlocal *
mcinit_mlocal_find(const char *fn, const char *name, unsigned v)
{
	size_t i;

	for (i = 0; i < NLOCALS; i++)
		if ((mlocals[i].versions & v) != 0 && strcmp(mlocals[i].name, name) == 0 &&
		    strcmp(mlocals[i].function, fn) == 0)
			return &mlocals[i];
	return NULL;
}

static _Atomic(const struct mcinit_pyexpr *) local_exprs[NLOCALS + 1];

const struct mcinit_pyexpr *
mcinit_mlocal_expr(const struct mcinit_mlocal *l)
{
	return mcinit_pyexpr_parse_once(&local_exprs[l - mlocals], l->value);
}

/* ---- what is computed once per row and process ---- */

/* A row's expressions: evaluation needs them parsed, every time. */
#define NROWS (sizeof mcinit_mchecks / sizeof mcinit_mchecks[0])
static _Atomic(const struct mcinit_pyexpr *) exprs[NROWS][MCINIT_MX_MESSAGE + 1];

const struct mcinit_pyexpr *
mcinit_mcheck_expr(const struct mcinit_mcheck *m, enum mcinit_mcheck_expr x)
{
	const char *src[] = {m->when, m->guard, m->cond, m->message};
	/* rows with one guard share its tree (544 rows, 256 guards) */
	size_t row = x == MCINIT_MX_GUARD ? m->gsame : (size_t)(m - mcinit_mchecks);

	return mcinit_pyexpr_parse_once(&exprs[row][x], src[x]);
}

static struct mcinit_mcheck_memo memos[MCINIT_MV_COUNT][NROWS];

struct mcinit_mcheck_memo *
mcinit_mcheck_memo(const struct mcinit_mcheck *m, int vi)
{
	return &memos[vi][m - mcinit_mchecks];
}

/* A row's status: only the ledger asks for it (explain --ledger, and the
 * tests that hold the ledger to it); a rule evaluates the rows of
 * mcinit_mcheck_runs, which are vetted, so their names resolve. */
struct status {
	const char *code, *why; /* what the status is */
	char buf[256];          /* *why when it is made here */
};
static _Atomic(struct status *) statuses[NROWS];

struct names {
	const char *id, *function; /* the row's */
	const char *bad;
	int depth; /* locals inside locals */
	char buf[128];
};

/* A local of the row's function names what its value reads: those must
 * resolve too. */
static void
check_name(void *ctx, const char *name)
{
	struct names *n = ctx;
	const struct mcinit_mlocal *l;

	if (n->bad != NULL)
		return;
	if (name[0] == '%' && (l = mcinit_mlocal_find(n->function, name, MCINIT_MV_ALL)) != NULL &&
	    n->depth < 8) {
		const struct mcinit_pyexpr *e = mcinit_mlocal_expr(l);

		n->depth++;
		if (e != NULL)
			mcinit_pyexpr_names(e, check_name, n);
		n->depth--;
		if (e != NULL)
			return;
	}
	if (!mcinit_mcheck_name_known(name, n->id)) {
		snprintf(n->buf, sizeof n->buf, "%s", name);
		n->bad = n->buf;
	}
}

/* false when every name of expression x resolves; else a reason in r->buf. */
static bool
unported(const struct mcinit_mcheck *m, struct status *r, enum mcinit_mcheck_expr x)
{
	const char *src[] = {m->when, m->guard, m->cond};
	const struct mcinit_pyexpr *e = mcinit_mcheck_expr(m, x);
	struct names n = {.id = m->id, .function = m->function};
	char *perr = NULL;

	if (src[x] == NULL || src[x][0] == '\0')
		return false; /* no text */
	if (e == NULL) {
		/* parsed again for the reason, which the kept trees do not hold */
		mcinit_pyexpr_free(mcinit_pyexpr_parse(src[x], &perr));
		snprintf(r->buf, sizeof r->buf, "todo: syntax mcinit does not evaluate (%s)", perr);
		free(perr);
		return true;
	}
	mcinit_pyexpr_names(e, check_name, &n);
	if (n.bad == NULL)
		return false;
	snprintf(r->buf, sizeof r->buf, "todo: reads %s", n.bad);
	return true;
}

/* The status of a row with a condition, decidable offline and no rule or
 * reason of its own: the table's code when its names resolve and it is
 * vetted. */
static void
status_of(const struct mcinit_mcheck *m, struct status *r)
{
	r->code = NULL;
	r->why = r->buf;
	if (m->when != NULL) {
		if (unported(m, r, MCINIT_MX_WHEN))
			return;
	} else if (unported(m, r, MCINIT_MX_GUARD) || unported(m, r, MCINIT_MX_COND)) {
		return;
	}
	if (!m->vetted) {
		snprintf(r->buf, sizeof r->buf,
		         "todo: evaluable as %s, not vetted against Megatron yet", m->code);
		return;
	}
	r->code = m->code;
	r->why = NULL;
}

static const struct status *
computed_status(const struct mcinit_mcheck *m)
{
	size_t i = (size_t)(m - mcinit_mchecks);
	struct status *r = atomic_load_explicit(&statuses[i], memory_order_acquire), *none = NULL;

	if (r != NULL)
		return r;
	r = mcinit_xcalloc(1, sizeof *r);
	status_of(m, r);
	if (!atomic_compare_exchange_strong_explicit(&statuses[i], &none, r, memory_order_acq_rel,
	                                             memory_order_acquire)) {
		free(r); /* another thread's is the same */
		r = none;
	}
	return r;
}

const char *
mcinit_mcheck_status(const struct mcinit_mcheck *m, const char **why)
{
	const struct status *r;

	*why = NULL;
	if (m->rule != NULL)
		return m->rule;
	if (m->no != NULL) {
		*why = m->no;
		return NULL;
	}
	if (!m->offline) {
		*why = m->note;
		return NULL;
	}
	if (m->when == NULL && m->cond[0] == '\0') {
		*why = "todo: no condition of its own (a loop or a helper's body)";
		return NULL;
	}
	r = computed_status(m);
	*why = r->why;
	return r->code;
}

/* Row i as the ledger printer reads it (ledger.h). */
static void
ledger_row(size_t i, struct mcinit_ledger_row *out)
{
	const struct mcinit_mcheck *m = &mcinit_mchecks[i];

	out->code = mcinit_mcheck_status(m, &out->why);
	out->id = m->id;
	out->function = m->function;
	out->dup = NULL;
	out->no = m->no;
	out->rule = m->rule != NULL;
	out->offline = m->offline;
}

int
mcinit_mchecks_ledger(FILE *out)
{
	return mcinit_ledger_print(out, mcinit_nmchecks, ledger_row);
}

int
mcinit_mchecks_coverage(FILE *out)
{
	return mcinit_ledger_coverage(out, "function", 55, mcinit_nmchecks, ledger_row);
}
