/* Unit tests: the engine of the ported check tables (lib/rules/ports.c),
 * driven by a source of its own made here the way mchecks.c and bchecks.c
 * make theirs: rows, locals, the rows a code runs, a resolver.  What it
 * shows is that a source is data plus a small adapter: every status, the
 * ledger, the coverage and a finding come from the engine. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "input/pyexpr.h"
#include "rules/ports.h"
#include "rules/rules-impl.h"

/* A row of the toy table: what differs from row to row; no `when`, sev or
 * shared guard. */
#define ROW(i, fn, k, g, c, msg, off, why, r, d, rel, vet, code_)                                  \
	{                                                                                          \
		.id = i, .function = fn, .kind = k, .guard = g, .cond = c, .message = msg,         \
		.note = why, .rule = r, .dup = d, .code = code_, .releases = rel, .offline = off,  \
		.vetted = vet                                                                      \
	}
static const struct mcinit_port rows[] = {
    ROW("toy.py:1", "f", "assert", "", "self.a < 4", "'a is ' + str(self.a)", true, "", "MC014",
        NULL, 3, true, "MC900"),
    ROW("toy.py:2", "f", "assert", "", "self.a < 4", "", false, "reads the disk", NULL, NULL, 3,
        false, "MC900"),
    ROW("toy.py:3", "f", "assert", "", "self.a < 4", "'a is ' + str(self.a)", true, "", NULL, NULL,
        1, true, "MC900"),
    ROW("toy.py:4", "g", "raise", "self.a > 1", "self.b", "'b'", true, "", NULL, NULL, 3, true,
        "MC900"),
    ROW("toy.py:5", "g", "warn", "", "twice > 10", "", true, "", NULL, NULL, 3, false, "MC950"),
    ROW("toy.py:6", "g", "assert", "", "self.a <", "'x'", true, "", NULL, NULL, 3, true, "MC900"),
    ROW("toy.py:7", "g", "raise", "", "self.a > 2", "'same as 3'", true, "", NULL, "toy.py:3", 3,
        true, "MC900"),
    ROW("toy.py:8", "g", "raise", "", "self.a > 2", "'as 4'", true, "", NULL, "toy.py:4", 3, true,
        "MC900"),
    ROW("toy.py:9", "g", "raise", "", "", "", true, "", NULL, NULL, 3, true, "MC900"),
};
#define NROWS (sizeof rows / sizeof rows[0])

static const struct mcinit_port_local locals[] = {
    {"g", "%twice", "self.a * 2", 3},
    {NULL, NULL, NULL, 0},
};

static const struct mcinit_port_run_row runs[] = {{"MC900", 2}};
static const unsigned short run_rows[] = {2};

static const struct mcinit_port_local *
local(const struct mcinit_port *row, const char *name, unsigned v)
{
	if ((locals[0].releases & v) != 0 && strcmp(row->function, locals[0].function) == 0 &&
	    strcmp(name, locals[0].name) == 0)
		return &locals[0];
	return NULL;
}

static bool
known(const struct mcinit_port *row, const char *name)
{
	(void)row;
	return strcmp(name, "a") == 0;
}

static _Atomic(const struct mcinit_pyexpr *) exprs[NROWS][MCINIT_PX_COUNT];
static _Atomic(const struct mcinit_pyexpr *) local_exprs[1];
static _Atomic(struct mcinit_port_status *) statuses[NROWS];

static const struct mcinit_port_table toy = {
    .source = "Toy",
    .vetter = "Toy",
    .rows = rows,
    .nrows = NROWS,
    .locals = locals,
    .runs = runs,
    .run_rows = run_rows,
    .nruns = 1,
    .exprs = exprs,
    .local_exprs = local_exprs,
    .status = statuses,
    .locals_see_through = true,
    .coverage_title = "function",
    .coverage_width = 10,
    .local = local,
    .known = known,
    .bare_assert = "",
    .no_field = MCINIT_F_world_size,
};

static const char *
status(const char *id)
{
	const char *why, *code = mcinit_port_status(&toy, mcinit_port_find(&toy, id), &why);

	return code != NULL ? code : why;
}

Test(ports, a_rows_status_is_its_code_or_why_not)
{
	cr_expect_str_eq(status("toy.py:1"), "MC014");
	cr_expect_str_eq(status("toy.py:2"), "reads the disk");
	cr_expect_str_eq(status("toy.py:3"), "MC900");
	cr_expect_str_eq(status("toy.py:4"), "todo: reads b");
	/* the local's value reads only what is known */
	cr_expect_str_eq(status("toy.py:5"),
	                 "todo: evaluable as MC950, not vetted against Toy yet");
	cr_expect(strncmp(status("toy.py:6"), "todo: syntax mcinit does not evaluate (", 39) == 0,
	          "%s", status("toy.py:6"));
	cr_expect_str_eq(status("toy.py:7"), "MC900");
	cr_expect_str_eq(status("toy.py:8"), "todo: implied by toy.py:4, which is not ported");
	cr_expect_str_eq(status("toy.py:9"),
	                 "todo: no condition of its own (a loop or a helper's body)");
	cr_expect_null(mcinit_port_find(&toy, "toy.py:10"));
}

static char *
printed(int (*fn)(const struct mcinit_port_table *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(fn(&toy, f), 0);
	fclose(f);
	return buf;
}

Test(ports, the_ledger_and_coverage_of_a_table)
{
	char *ledger = printed(mcinit_port_ledger), *coverage = printed(mcinit_port_coverage);

	cr_expect(strstr(ledger, "id\timplemented_by\tnote\n"
	                         "toy.py:1\tMC014\thand-written rule\n"
	                         "toy.py:2\toffline-no: needs what the config does not hold\t\n"
	                         "toy.py:3\tMC900\ttable row\n"
	                         "toy.py:4\ttodo: reads b\t\n") == ledger,
	          "%s", ledger);
	cr_expect(strstr(ledger, "toy.py:7\tMC900\tas toy.py:3\n") != NULL, "%s", ledger);
	cr_expect_str_eq(coverage, "function   implemented  offline total\n"
	                           "f                    2        2     3\n"
	                           "g                    1        6     6\n"
	                           "all                  3        8     9\n");
	free(ledger);
	free(coverage);
}

/* The resolver of the toy source: `self.a` is tensor_model_parallel_size. */
static int
resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out)
{
	struct mcinit_port_run *r = ctx;

	(void)e;
	if (strcmp(name, "a") != 0)
		return -1;
	*out =
	    (struct mcinit_pv){.kind = MCINIT_PV_INT,
	                       .i = mcinit_cfg_int(r->x->c, MCINIT_F_tensor_model_parallel_size)};
	return 0;
}

static void
point(void *ctx, const char *name)
{
	if (strcmp(name, "a") == 0)
		mcinit_port_point(ctx, MCINIT_F_tensor_model_parallel_size);
}

static const struct mcinit_port_eval eval = {resolve, point, NULL, NULL, NULL};
static const struct mcinit_rule rule = {"MC900", MCINIT_ERROR, "", "", "", NULL, NULL};

/* Runs the toy rule on a config whose tensor_model_parallel_size is tp. */
static void
run(struct mcinit_config *c, struct mcinit_diags *d, long long tp, unsigned release)
{
	struct mcinit_derived dv = {0};
	struct mcinit_check_opts o = {0};
	struct mcinit_rule_ctx x = {c, &dv, d, &o, &rule, 0};
	struct mcinit_port_run r = {&x, &toy, &eval, .v = release};

	mcinit_config_init(c, MCINIT_MV_MAIN);
	mcinit_diags_init(d);
	c->val[MCINIT_F_tensor_model_parallel_size] =
	    (struct mcinit_value){.kind = MCINIT_V_INT, .i = tp};
	mcinit_port_check(&r);
}

Test(ports, a_failing_row_is_reported_with_its_message)
{
	struct mcinit_config c;
	struct mcinit_diags d;

	run(&c, &d, 8, 1);
	cr_assert_eq(d.n, 1);
	cr_expect_str_eq(d.v[0].code, "MC900");
	cr_expect_eq(d.v[0].sev, MCINIT_ERROR);
	cr_expect_str_eq(d.v[0].message, "Toy f (toy.py:3): a is 8 "
	                                 "(model.tensor_model_parallel_size is the default)");
	cr_expect_str_eq(d.v[0].hint, "see toy.py:3 in Toy");
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);

	run(&c, &d, 2, 1); /* holds */
	cr_expect_eq(d.n, 0);
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);

	run(&c, &d, 8, 2); /* not a check of release 2 */
	cr_expect_eq(d.n, 0);
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
}
