/*
 * mchecks.c — the table of Megatron-LM's configuration checks (generated
 * from data/megatron-checks.tsv and data/megatron-checks-port.tsv by
 * build-aux/gen-tables.py mchecks), the code each row reports under, whether mcinit
 * can evaluate it, and the ledger and coverage printed by `mcinit explain`.
 * Evaluation itself is in rules-mcheck.c, inside the rules module.
 */
#include "rules/mchecks.h"

#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "input/pyexpr.h"

const struct mcinit_mcheck mcinit_mchecks[] = {
#define MCINIT_MCHECK(id, fn, kind, guard, cond, when, msg, off, note, rule, no, sev, ver, vet)    \
	{id, fn, kind, guard, cond, when, msg, off, note, rule, no, sev, ver, vet},
#include "rules/mchecks.inc"
#undef MCINIT_MCHECK
};
const size_t mcinit_nmchecks = sizeof mcinit_mchecks / sizeof mcinit_mchecks[0];

bool
mcinit_mcheck_in(const struct mcinit_mcheck *m, unsigned v)
{
	return (m->versions & v) != 0;
}

/* The sources of checks, in code order. */
static const char *const sources[] = {
    "megatron/training/arguments.py",
    "megatron/core/transformer/",
    "megatron/core/model_parallel_config.py",
    "megatron/core/optimizer/",
    "megatron/core/distributed/",
    "megatron/core/num_microbatches_calculator.py",
    "megatron/training/config/",
};
static const char *const err_codes[] = {"MC200", "MC201", "MC202", "MC203",
                                        "MC204", "MC205", "MC206"};
static const char *const warn_codes[] = {"MC250", "MC251", "MC252", "MC253",
                                         "MC254", "MC255", "MC256"};

static size_t
source_of(const struct mcinit_mcheck *m)
{
	size_t i;

	for (i = 0; i < sizeof sources / sizeof sources[0]; i++)
		if (strncmp(m->id, sources[i], strlen(sources[i])) == 0)
			return i;
	return 0;
}

const char *
mcinit_mcheck_code(const struct mcinit_mcheck *m)
{
	bool warn = strcmp(m->kind, "warn") == 0;

	if (m->sev != NULL)
		warn = strcmp(m->sev, "error") != 0;
	return (warn ? warn_codes : err_codes)[source_of(m)];
}

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

/* NULL when every name of src resolves; else a reason. */
static const char *
unported(const char *id, const char *src, char *why, size_t len)
{
	struct mcinit_pyexpr *e;
	struct names n = {.id = id};
	char *perr = NULL;

	if (src == NULL || *src == '\0')
		return NULL;
	e = mcinit_pyexpr_parse(src, &perr);
	if (e == NULL) {
		snprintf(why, len, "todo: syntax mcinit does not evaluate (%s)", perr);
		free(perr);
		return why;
	}
	mcinit_pyexpr_names(e, check_name, &n);
	mcinit_pyexpr_free(e);
	if (n.bad == NULL)
		return NULL;
	snprintf(why, len, "todo: reads %s", n.bad);
	return why;
}

const char *
mcinit_mcheck_status(const struct mcinit_mcheck *m, const char **why)
{
	static char buf[256];

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
	if (m->when != NULL) {
		if ((*why = unported(m->id, m->when, buf, sizeof buf)) != NULL)
			return NULL;
	} else if ((*why = unported(m->id, m->guard, buf, sizeof buf)) != NULL ||
	           (*why = unported(m->id, m->cond, buf, sizeof buf)) != NULL) {
		return NULL;
	}
	if (!m->vetted) {
		snprintf(buf, sizeof buf, "todo: evaluable as %s, not vetted against Megatron yet",
		         mcinit_mcheck_code(m));
		*why = buf;
		return NULL;
	}
	return mcinit_mcheck_code(m);
}

int
mcinit_mchecks_ledger(FILE *out)
{
	size_t i;

	fprintf(out, "id\timplemented_by\tnote\n");
	for (i = 0; i < mcinit_nmchecks; i++) {
		const struct mcinit_mcheck *m = &mcinit_mchecks[i];
		const char *why, *code = mcinit_mcheck_status(m, &why);

		if (code != NULL)
			fprintf(out, "%s\t%s\t%s\n", m->id, code,
			        m->rule ? "hand-written rule" : "table row");
		else if (!m->offline || m->no != NULL)
			fprintf(out, "%s\toffline-no: %s\t\n", m->id,
			        m->no ? m->no : "needs what the config does not hold");
		else
			fprintf(out, "%s\t%s\t\n", m->id, why);
	}
	return ferror(out) ? -1 : 0;
}

int
mcinit_mchecks_coverage(FILE *out)
{
	struct row {
		const char *fn;
		int impl, off, total;
	} rows[64];
	size_t n = 0, i, k;
	int ti = 0, to = 0;

	for (i = 0; i < mcinit_nmchecks; i++) {
		const struct mcinit_mcheck *m = &mcinit_mchecks[i];
		const char *why, *code = mcinit_mcheck_status(m, &why);
		bool off = m->offline && m->no == NULL;

		for (k = 0; k < n && strcmp(rows[k].fn, m->function) != 0; k++)
			;
		if (k == n && n < 64)
			rows[n++] = (struct row){m->function, 0, 0, 0};
		if (k == 64)
			continue;
		rows[k].total++;
		rows[k].off += off;
		rows[k].impl += code != NULL;
		to += off;
		ti += code != NULL;
	}
	fprintf(out, "%-55s %11s %8s %5s\n", "function", "implemented", "offline", "total");
	for (k = 0; k < n; k++)
		fprintf(out, "%-55s %11d %8d %5d\n", rows[k].fn, rows[k].impl, rows[k].off,
		        rows[k].total);
	fprintf(out, "%-55s %11d %8d %5zu\n", "all", ti, to, mcinit_nmchecks);
	return ferror(out) ? -1 : 0;
}
