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
                      code)                                                                        \
	{id, fn, kind, guard, cond, when, msg, off, note, rule, no, sev, ver, vet, code},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK
};
const size_t mcinit_nmchecks = sizeof mcinit_mchecks / sizeof mcinit_mchecks[0];

/* code -> the rows it may evaluate, sorted by code, each code's in table order. */
static const struct {
	const char *code;
	unsigned short row;
} runs[] = {
#define MCINIT_MCHECK_RUN(code, row) {code, row},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK_RUN
};
static const size_t nruns = sizeof runs / sizeof runs[0];
/* The run rows in one array, for mcinit_mcheck_runs to hand out. */
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
	size_t lo = mcinit_lower_bound_str(runs, nruns, sizeof runs[0],
	                                   offsetof(__typeof__(runs[0]), code), code);
	size_t hi;

	for (hi = lo; hi < nruns && strcmp(runs[hi].code, code) == 0; hi++)
		;
	*n = hi - lo;
	return run_rows + lo;
}

/* ---- what is computed once per row and process ---- */

/* The status of a row and the expressions it reads. */
struct computed {
	struct mcinit_pyexpr *x[MCINIT_MX_COND + 1]; /* NULL: empty or unparsable */
	char *perr[MCINIT_MX_COND + 1];              /* why it did not parse */
	const char *code, *why;                      /* what the status is */
	char buf[256];                               /* *why when it is made here */
};

/* The message of a row (read only to report it). */
struct message {
	struct mcinit_pyexpr *x; /* NULL: empty or unparsable */
};

/* Per row, filled lazily: the first thread to finish one publishes it
 * (another that finished it too frees its own, the same). */
#define NROWS (sizeof mcinit_mchecks / sizeof mcinit_mchecks[0])
static _Atomic(struct computed *) computed[NROWS];
static _Atomic(struct message *) messages[NROWS];

struct names {
	const char *id; /* the row's */
	const char *bad;
	char buf[128];
};

static void
check_name(void *ctx, const char *name)
{
	struct names *n = ctx;

	if (n->bad == NULL && !mcinit_mcheck_name_known(name, n->id)) {
		snprintf(n->buf, sizeof n->buf, "%s", name);
		n->bad = n->buf;
	}
}

/* false when every name of expression x resolves; else a reason in r->buf. */
static bool
unported(const struct mcinit_mcheck *m, struct computed *r, enum mcinit_mcheck_expr x)
{
	struct names n = {.id = m->id};

	if (r->x[x] == NULL && r->perr[x] == NULL)
		return false; /* no text */
	if (r->x[x] == NULL) {
		snprintf(r->buf, sizeof r->buf, "todo: syntax mcinit does not evaluate (%s)",
		         r->perr[x]);
		return true;
	}
	mcinit_pyexpr_names(r->x[x], check_name, &n);
	if (n.bad == NULL)
		return false;
	snprintf(r->buf, sizeof r->buf, "todo: reads %s", n.bad);
	return true;
}

/* The status of a row with a condition, decidable offline and no rule or
 * reason of its own: the table's code when its names resolve and it is
 * vetted. */
static void
status_of(const struct mcinit_mcheck *m, struct computed *r)
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

static struct computed *
computed_of(const struct mcinit_mcheck *m)
{
	size_t i = (size_t)(m - mcinit_mchecks), k;
	struct computed *r = atomic_load_explicit(&computed[i], memory_order_acquire), *none = NULL;
	const char *src[] = {m->when, m->guard, m->cond};

	if (r != NULL)
		return r;
	r = mcinit_xcalloc(1, sizeof *r);
	for (k = 0; k < sizeof src / sizeof src[0]; k++)
		if (src[k] != NULL && src[k][0] != '\0')
			r->x[k] = mcinit_pyexpr_parse(src[k], &r->perr[k]);
	status_of(m, r);
	if (!atomic_compare_exchange_strong_explicit(&computed[i], &none, r, memory_order_acq_rel,
	                                             memory_order_acquire)) {
		/* another thread's is the same */
		for (k = 0; k < sizeof src / sizeof src[0]; k++) {
			mcinit_pyexpr_free(r->x[k]);
			free(r->perr[k]);
		}
		free(r);
		r = none;
	}
	return r;
}

static struct message *
message_of(const struct mcinit_mcheck *m)
{
	size_t i = (size_t)(m - mcinit_mchecks);
	struct message *r = atomic_load_explicit(&messages[i], memory_order_acquire), *none = NULL;
	char *why = NULL;

	if (r != NULL)
		return r;
	r = mcinit_xcalloc(1, sizeof *r);
	if (m->message[0] != '\0' && (r->x = mcinit_pyexpr_parse(m->message, &why)) == NULL)
		free(why);
	if (!atomic_compare_exchange_strong_explicit(&messages[i], &none, r, memory_order_acq_rel,
	                                             memory_order_acquire)) {
		mcinit_pyexpr_free(r->x);
		free(r);
		r = none;
	}
	return r;
}

const struct mcinit_pyexpr *
mcinit_mcheck_expr(const struct mcinit_mcheck *m, enum mcinit_mcheck_expr x)
{
	if (x == MCINIT_MX_MESSAGE)
		return message_of(m)->x;
	return computed_of(m)->x[x];
}

const char *
mcinit_mcheck_status(const struct mcinit_mcheck *m, const char **why)
{
	const struct computed *r;

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
	r = computed_of(m);
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
