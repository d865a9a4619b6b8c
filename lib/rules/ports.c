/*
 * ports.c — the engine of the ported check tables (ports.h): what is kept
 * per row and process, a row's status, the ledger and coverage, and running
 * a table's rows on a config.  What differs between sources comes through
 * their struct mcinit_port_table and struct mcinit_port_eval (mchecks.c and
 * rules-mcheck.c for Megatron-LM, bchecks.c and rules-bcheck.c for
 * Megatron-Bridge).
 */
#include "rules/ports.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "input/pyexpr.h"
#include "rules/rules-impl.h"

const char *
mcinit_port_code(const struct mcinit_port_table *t, const struct mcinit_port *row)
{
	return row->code != NULL ? row->code : t->code(row);
}

const struct mcinit_pyexpr *
mcinit_port_expr(const struct mcinit_port_table *t, const struct mcinit_port *row,
                 enum mcinit_port_expr x)
{
	const char *src[] = {row->when, row->guard, row->cond, row->message};
	/* rows with one guard share its tree (Megatron-LM: 544 rows, 256 guards) */
	size_t i = x == MCINIT_PX_GUARD && t->share_guards ? row->gsame : (size_t)(row - t->rows);

	return mcinit_pyexpr_parse_once(&t->exprs[i][x], src[x]);
}

const struct mcinit_pyexpr *
mcinit_port_local_expr(const struct mcinit_port_table *t, const struct mcinit_port_local *l)
{
	return mcinit_pyexpr_parse_once(&t->local_exprs[l - t->locals], l->value);
}

const struct mcinit_port *
mcinit_port_find(const struct mcinit_port_table *t, const char *id)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].id, id) == 0)
			return &t->rows[i];
	return NULL;
}

const unsigned short *
mcinit_port_runs(const struct mcinit_port_table *t, const char *code, size_t *n)
{
	size_t lo = mcinit_lower_bound_str(t->runs, t->nruns, sizeof t->runs[0],
	                                   offsetof(struct mcinit_port_run_row, code), code);
	size_t hi;

	for (hi = lo; hi < t->nruns && strcmp(t->runs[hi].code, code) == 0; hi++)
		;
	*n = hi - lo;
	return t->run_rows + lo;
}

/* ---- a row's status, once per row and process ---- */

/* Only the ledger asks for it (explain --ledger, and the tests that hold
 * the ledger to it); a rule evaluates the rows of mcinit_port_runs, which
 * are vetted, so their names resolve. */
struct mcinit_port_status {
	const char *code, *why; /* what the status is */
	char buf[256];          /* *why when it is made here */
};

struct names {
	const struct mcinit_port_table *t;
	const struct mcinit_port *row;
	const char *bad;
	int depth; /* locals inside locals */
	char buf[160];
};

static void
check_name(void *ctx, const char *name)
{
	struct names *n = ctx;
	const struct mcinit_port_local *l;

	if (n->bad != NULL)
		return;
	/* where the resolver does not know locals itself, a local names what
	 * its value reads: those must resolve */
	if (n->t->locals_see_through && name[0] == '%' &&
	    (l = n->t->local(n->row, name, ~0u)) != NULL && n->depth < 8) {
		const struct mcinit_pyexpr *e = mcinit_port_local_expr(n->t, l);

		n->depth++;
		if (e != NULL)
			mcinit_pyexpr_names(e, check_name, n);
		n->depth--;
		if (e != NULL)
			return;
	}
	if (!n->t->known(n->row, name)) {
		snprintf(n->buf, sizeof n->buf, "%s", name);
		n->bad = n->buf;
	}
}

/* false when every name of src (parsed: e) resolves; else a reason in r->buf. */
static bool
unported(const struct mcinit_port_table *t, const struct mcinit_port *row, const char *src,
         const struct mcinit_pyexpr *e, struct mcinit_port_status *r)
{
	struct names n = {.t = t, .row = row};
	char *perr = NULL;

	if (src == NULL || src[0] == '\0')
		return false; /* no text */
	if (e == NULL) {
		/* parsed again for the reason, which the kept trees do not hold */
		mcinit_pyexpr_free(mcinit_pyexpr_parse(src, &perr));
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

static bool
unported_expr(const struct mcinit_port_table *t, const struct mcinit_port *row,
              enum mcinit_port_expr x, struct mcinit_port_status *r)
{
	const char *src[] = {row->when, row->guard, row->cond};

	return unported(t, row, src[x], mcinit_port_expr(t, row, x), r);
}

/* The status of a row that no rule, duplicate or reason settles: the
 * table's code when its names resolve and it is vetted. */
static void
status_of(const struct mcinit_port_table *t, const struct mcinit_port *row,
          struct mcinit_port_status *r)
{
	const struct mcinit_port_local *call;
	unsigned v;

	r->code = NULL;
	r->why = r->buf;
	if (row->dup != NULL) {
		const struct mcinit_port *d = mcinit_port_find(t, row->dup);
		const char *why;

		r->code = d && d->dup == NULL ? mcinit_port_status(t, d, &why) : NULL;
		if (r->code == NULL)
			snprintf(r->buf, sizeof r->buf, "todo: implied by %s, which is not ported",
			         row->dup);
		else
			r->why = NULL;
		return;
	}
	/* the condition the function runs under, in each release that has it */
	for (v = 1; v != 0 && v <= row->releases; v <<= 1)
		if ((row->releases & v) != 0 && (call = t->local(row, "(call)", v)) != NULL &&
		    unported(t, row, call->value, mcinit_port_local_expr(t, call), r))
			return;
	if (row->when != NULL) {
		if (unported_expr(t, row, MCINIT_PX_WHEN, r))
			return;
	} else if (unported_expr(t, row, MCINIT_PX_GUARD, r) ||
	           unported_expr(t, row, MCINIT_PX_COND, r)) {
		return;
	}
	if (!row->vetted) {
		snprintf(r->buf, sizeof r->buf, "todo: evaluable as %s, not vetted against %s yet",
		         mcinit_port_code(t, row), t->vetter);
		return;
	}
	r->code = mcinit_port_code(t, row);
	r->why = NULL;
}

static const struct mcinit_port_status *
computed_status(const struct mcinit_port_table *t, const struct mcinit_port *row)
{
	_Atomic(struct mcinit_port_status *) *slot = &t->status[row - t->rows];
	struct mcinit_port_status *r = atomic_load_explicit(slot, memory_order_acquire),
	                          *none = NULL;

	if (r != NULL)
		return r;
	r = mcx_xcalloc(1, sizeof *r);
	status_of(t, row, r);
	if (!atomic_compare_exchange_strong_explicit(slot, &none, r, memory_order_acq_rel,
	                                             memory_order_acquire)) {
		free(r); /* another thread's is the same */
		r = none;
	}
	return r;
}

const char *
mcinit_port_status(const struct mcinit_port_table *t, const struct mcinit_port *row,
                   const char **why)
{
	const struct mcinit_port_status *r;

	*why = NULL;
	if (row->rule != NULL)
		return row->rule;
	if (row->dup == NULL) {
		if (row->no != NULL) {
			*why = row->no;
			return NULL;
		}
		if (!row->offline) {
			*why = row->note;
			return NULL;
		}
		if (row->when == NULL && row->cond[0] == '\0') {
			*why = "todo: no condition of its own (a loop or a helper's body)";
			return NULL;
		}
	}
	r = computed_status(t, row);
	*why = r->why;
	return r->code;
}

/* ---- the ledger and coverage ---- */

int
mcinit_port_ledger(const struct mcinit_port_table *t, FILE *out)
{
	size_t i;

	fprintf(out, "id\timplemented_by\tnote\n");
	for (i = 0; i < t->nrows; i++) {
		const struct mcinit_port *r = &t->rows[i];
		const char *why, *code = mcinit_port_status(t, r, &why);

		if (code != NULL && r->dup != NULL)
			fprintf(out, "%s\t%s\tas %s\n", r->id, code, r->dup);
		else if (code != NULL)
			fprintf(out, "%s\t%s\t%s\n", r->id, code,
			        r->rule ? "hand-written rule" : "table row");
		else if (!r->offline || r->no != NULL)
			fprintf(out, "%s\toffline-no: %s\t\n", r->id,
			        r->no ? r->no : "needs what the config does not hold");
		else
			fprintf(out, "%s\t%s\t\n", r->id, why);
	}
	return ferror(out) ? -1 : 0;
}

int
mcinit_port_coverage(const struct mcinit_port_table *t, FILE *out)
{
	struct {
		const char *fn;
		int impl, off, total;
	} rows[64];
	size_t nrows = 0, i, k;
	int ti = 0, to = 0, w = t->coverage_width;

	for (i = 0; i < t->nrows; i++) {
		const struct mcinit_port *r = &t->rows[i];
		const char *why;
		bool off = r->offline && r->no == NULL,
		     impl = mcinit_port_status(t, r, &why) != NULL;

		for (k = 0; k < nrows && strcmp(rows[k].fn, r->function) != 0; k++)
			;
		if (k == nrows && nrows < 64) {
			rows[nrows].fn = r->function;
			rows[nrows].impl = rows[nrows].off = rows[nrows].total = 0;
			nrows++;
		}
		if (k == 64)
			continue;
		rows[k].total++;
		rows[k].off += off;
		rows[k].impl += impl;
		to += off;
		ti += impl;
	}
	fprintf(out, "%-*s %11s %8s %5s\n", w, t->coverage_title, "implemented", "offline",
	        "total");
	for (k = 0; k < nrows; k++)
		fprintf(out, "%-*s %11d %8d %5d\n", w, rows[k].fn, rows[k].impl, rows[k].off,
		        rows[k].total);
	fprintf(out, "%-*s %11d %8d %5zu\n", w, "all", ti, to, t->nrows);
	return ferror(out) ? -1 : 0;
}

/* ---- evaluation ---- */

int
mcinit_port_eval_expr(struct mcinit_port_run *r, const char *src, const struct mcinit_pyexpr *tree,
                      bool negate)
{
	struct mcinit_pv v;

	if (src == NULL || *src == '\0')
		return negate ? 0 : 1;
	if (tree == NULL)
		return -1; /* not in the subset pyexpr parses */
	if (r->scratch == NULL)
		r->scratch = mcinit_pyexpr_share(tree);
	else
		mcinit_pyexpr_reshare(r->scratch, tree);
	v = mcinit_pyexpr_eval(r->scratch, r->ev->resolve, r);
	if (v.kind == MCINIT_PV_ERR && v.i == 1 && r->type_error[0] == '\0')
		snprintf(r->type_error, sizeof r->type_error, "%s", v.s);
	return v.kind == MCINIT_PV_ERR ? -1 : mcinit_pv_truthy(&v) != negate;
}

int
mcinit_port_verdict(struct mcinit_port_run *r)
{
	const struct mcinit_port *row = r->row;
	int res;

	if (row->when != NULL)
		return mcinit_port_eval_expr(r, row->when,
		                             mcinit_port_expr(r->t, row, MCINIT_PX_WHEN), false);
	res = mcinit_port_eval_expr(r, row->guard, mcinit_port_expr(r->t, row, MCINIT_PX_GUARD),
	                            false);
	if (res == 1)
		res =
		    mcinit_port_eval_expr(r, row->cond, mcinit_port_expr(r->t, row, MCINIT_PX_COND),
		                          strcmp(row->kind, "assert") == 0);
	return res;
}

int
mcinit_port_eval_local(struct mcinit_port_run *r, struct mcinit_pyexpr *outer,
                       const struct mcinit_port_local *l, struct mcinit_pv *out)
{
	const struct mcinit_pyexpr *tree = mcinit_port_local_expr(r->t, l);
	struct mcinit_pyexpr *e;
	struct mcinit_pv v;

	if (r->depth >= (int)(sizeof r->active / sizeof r->active[0]) || tree == NULL)
		return -1;
	e = mcinit_pyexpr_share(tree);
	r->active[r->depth++] = l;
	v = mcinit_pyexpr_eval(e, r->ev->resolve, r);
	r->depth--;
	/* a local's TypeError is the row's: Python raises it there */
	if (v.kind == MCINIT_PV_ERR && v.i == 1 && r->type_error[0] == '\0')
		snprintf(r->type_error, sizeof r->type_error, "%s", v.s);
	if (v.kind != MCINIT_PV_ERR)
		*out = mcinit_rules_pv_keep(outer, v); /* the value outlives e */
	mcinit_pyexpr_free(e);
	return v.kind == MCINIT_PV_ERR ? -1 : 0;
}

void
mcinit_port_point(struct mcinit_port_at *a, int f)
{
	if (f < 0)
		return;
	if (a->first < 0)
		a->first = f;
	if (a->written < 0 && user_wrote(a->r->x->c, f))
		a->written = f;
}

void
mcinit_port_point_tree(struct mcinit_port_at *a, const struct mcinit_pyexpr *tree)
{
	if (tree == NULL || a->depth > 4)
		return;
	a->depth++;
	mcinit_pyexpr_names(tree, a->r->ev->point, a);
	a->depth--;
}

int
mcinit_port_field(struct mcinit_port_run *r)
{
	struct mcinit_port_at a = {r, -1, -1, 0};
	int x;

	for (x = MCINIT_PX_WHEN; x <= MCINIT_PX_COND; x++)
		mcinit_port_point_tree(&a,
		                       mcinit_port_expr(r->t, r->row, (enum mcinit_port_expr)x));
	return a.written >= 0 ? a.written : a.first >= 0 ? a.first : r->t->no_field;
}

static struct mcinit_diag *report_at(struct mcinit_rule_ctx *x, const char *code,
                                     enum mcinit_severity sev, int f, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static struct mcinit_diag *
report_at(struct mcinit_rule_ctx *x, const char *code, enum mcinit_severity sev, int f,
          const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	if (f >= 0)
		g = mcinit_rules_vreport(x, sev, code, f, fmt, ap);
	else
		g = mcinit_rules_vemit(x, sev, code, NULL, NULL, "", fmt, ap);
	va_end(ap);
	return g;
}

/* The finding of a failing row, with the source's own message. */
static void
report_row(struct mcinit_port_run *r)
{
	const struct mcinit_port_table *t = r->t;
	const struct mcinit_port *row = r->row;
	struct mcinit_rule_ctx *x = r->x;
	const struct mcinit_pyexpr *tree = mcinit_port_expr(t, row, MCINIT_PX_MESSAGE);
	const char *where = t->where != NULL ? t->where(row, r->v) : row->id;
	struct mcx_buf m = {0};
	enum mcinit_severity sev = x->rule->sev;
	const struct mcinit_rule *rule;
	struct mcinit_diag *g;
	size_t i;

	if (row->sev != NULL)
		sev = strcmp(row->sev, "note") == 0      ? MCINIT_NOTE
		      : strcmp(row->sev, "warning") == 0 ? MCINIT_WARNING
		                                         : MCINIT_ERROR;
	if (tree != NULL) {
		struct mcinit_pyexpr *e = mcinit_pyexpr_share(tree);
		struct mcinit_pv v = mcinit_pyexpr_eval(e, r->ev->resolve, r);

		if (v.kind == MCINIT_PV_ERR || v.kind == MCINIT_PV_NONE)
			mcx_buf_adds(&m, row->message);
		else
			mcinit_pv_str(&m, &v);
		mcinit_pyexpr_free(e);
	} else if (row->message[0]) {
		mcx_buf_adds(&m, row->message);
	} else {
		/* a bare assert: Python's AssertionError has no message */
		mcx_buf_adds(&m, t->bare_assert);
		mcx_buf_adds(&m, row->cond);
	}
	for (i = 0; t->one_line && i < m.len; i++)
		if (m.data[i] == '\n')
			m.data[i] = ' ';
	/* the row's own field, not the family rule's nominal reads */
	rule = x->rule;
	x->rule = NULL;
	g = report_at(x, rule->code, sev, mcinit_port_field(r), "%s %s (%s): %s", t->source,
	              row->function, where, mcx_buf_cstr(&m));
	if (t->release_name != NULL)
		mcinit_diag_hint(g, "see %s in %s %s", where, t->source, t->release_name(r->v));
	else
		mcinit_diag_hint(g, "see %s in %s", where, t->source);
	x->rule = rule;
	mcx_buf_free(&m);
}

/* A row whose expression raises TypeError on a value of another type than
 * its field's, which Bridge keeps unchecked (issue 38): Bridge's check
 * fails there with that TypeError, so the config is refused; an error. */
static void
report_type_error(struct mcinit_port_run *r)
{
	const struct mcinit_port_table *t = r->t;
	const struct mcinit_port *row = r->row;
	struct mcinit_rule_ctx *x = r->x;
	const char *where = t->where != NULL ? t->where(row, r->v) : row->id;
	const struct mcinit_rule *rule = x->rule;
	struct mcinit_diag *g;

	x->rule = NULL;
	g = report_at(x, rule->code, MCINIT_ERROR, mcinit_port_field(r),
	              "%s %s (%s) raises TypeError: %s (a value of another type than its "
	              "field's, which Bridge keeps unchecked)",
	              t->source, row->function, where, r->type_error);
	if (t->release_name != NULL)
		mcinit_diag_hint(g, "give the field a value of its declared type; see %s in %s %s",
		                 where, t->source, t->release_name(r->v));
	else
		mcinit_diag_hint(g, "give the field a value of its declared type; see %s in %s",
		                 where, t->source);
	x->rule = rule;
}

void
mcinit_port_check(struct mcinit_port_run *r)
{
	const unsigned short *rows;
	size_t i, n;

	/* only the rows whose status can be this rule's code (the others'
	 * status is another code, a hand-written rule, or a reason); they are
	 * vetted, so their names resolve (the ledger's test holds the status
	 * of each to its code): working the status out again here would
	 * resolve every name of every row on every run */
	rows = mcinit_port_runs(r->t, r->x->rule->code, &n);
	for (i = 0; i < n; i++) {
		int res;

		r->index = rows[i];
		r->row = &r->t->rows[rows[i]];
		if ((r->row->releases & r->v) == 0)
			continue; /* not a check of the config's release */
		r->depth = 0;
		r->pyval_read = false;
		r->type_error[0] = '\0';
		if (r->ev->begin != NULL)
			r->ev->begin(r);
		res = r->ev->verdict != NULL ? r->ev->verdict(r) : mcinit_port_verdict(r);
		if (res == 1)
			report_row(r);
		else if (res < 0 && r->pyval_read && r->type_error[0] != '\0')
			report_type_error(r);
		else if (res < 0 && r->ev->undecided != NULL)
			r->ev->undecided(r);
	}
	mcinit_pyexpr_free(r->scratch);
	r->scratch = NULL;
}

const char *
mcinit_port_torch_dtype(int f, const char *s)
{
	static const char *const dtypes[][2] = {
	    {"fp32", "torch.float32"}, {"fp16", "torch.float16"}, {"bf16", "torch.bfloat16"}};
	const struct mcinit_type *t = mcinit_field_type(f);
	size_t i;
	int k;

	for (k = 0; k < t->nalt && t->alt[k].base != MCINIT_B_DTYPE; k++)
		;
	for (i = 0; k < t->nalt && i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (strcmp(s, dtypes[i][0]) == 0)
			return dtypes[i][1];
	return s;
}
