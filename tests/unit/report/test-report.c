/*
 * test-report.c — the report module through the tool header's contract
 * (include/private/mcinit-tool.h), as the program calls it: the topology
 * writers write only to the streams they are handed, honour the options
 * (one rank, one group kind), keep the node's warnings for the caller until
 * mcx_topology_node, and fail before any output on a node file that cannot
 * be read; validate's result object has the shape validate prints.  Only
 * mcinit.h and the tool header are included: no library internals.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcinit.h"
#include "private/mcinit-tool.h"

static char *
src_path(const char *rel)
{
	const char *srcdir = getenv("srcdir");

	return mcx_xasprintf("%s/%s", srcdir && *srcdir ? srcdir : ".", rel);
}

/* The model of tests/cli/inputs/topology-model.json at world_size ranks,
 * TP tp, npn ranks per node (0: unknown), the node from fixture (NULL: none,
 * then desc.hwloc_xml is xml as given). */
struct fixture {
	char *model, *xml;
	char override[64];
	const char *inputs[1], *overrides[1];
	struct mcinit_job_desc desc;
	struct mcinit_diags *d;
	struct mcinit_job *job;
	mcinit_error_t err;
};

static void
job_make(struct fixture *f, long long world, int tp, long long npn, const char *fixture)
{
	memset(f, 0, sizeof *f);
	f->model = src_path("tests/cli/inputs/topology-model.json");
	f->xml = fixture ? src_path(fixture) : NULL;
	snprintf(f->override, sizeof f->override, "model.tensor_model_parallel_size=%d", tp);
	f->inputs[0] = f->model;
	f->overrides[0] = f->override;
	f->desc.inputs = f->inputs;
	f->desc.ninputs = 1;
	f->desc.overrides = f->overrides;
	f->desc.noverrides = 1;
	f->desc.world_size = world;
	f->desc.nproc_per_node = npn;
	f->desc.hwloc_xml = f->xml;
	f->d = mcinit_diags_new();
	f->job = mcinit_job_new(&f->desc, f->d, &f->err);
	cr_assert_not_null(f->job, "%s", f->err.text);
	cr_assert(mcinit_job_valid(f->job));
}

static void
job_done(struct fixture *f)
{
	mcinit_job_free(f->job);
	mcinit_diags_free(f->d);
	free(f->model);
	free(f->xml);
}

/* What the writers put on out and msg; their status in *rc. */
struct written {
	char *out, *msg;
	size_t nout, nmsg;
	int rc;
};

static void
write_job(struct fixture *f, const struct mcx_topology_opts *o, struct written *w)
{
	FILE *out = open_memstream(&w->out, &w->nout), *msg = open_memstream(&w->msg, &w->nmsg);
	mcinit_error_t err;

	cr_assert(out != NULL && msg != NULL);
	cr_assert_eq(mcx_topology_start(f->job, o, &err), 0, "%s", err.text);
	if (o->format != MCX_TOPOLOGY_JSON)
		mcx_topology_node(f->job);
	w->rc = mcx_topology_write(f->job, o, out, msg);
	fclose(out);
	fclose(msg);
}

static void
written_free(struct written *w)
{
	free(w->out);
	free(w->msg);
}

static json_t *
parse(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	cr_assert_not_null(j, "not JSON: %s (line %d)", je.text, je.line);
	return j;
}

Test(report, json_goes_to_the_stream_it_is_handed)
{
	struct mcx_topology_opts o = {.format = MCX_TOPOLOGY_JSON, .rank = -1, .kind = -1};
	struct fixture f;
	struct written w;
	json_t *j, *ranks, *aff;
	size_t i;

	job_make(&f, 16, 2, 8, "tests/fixtures/dgx8-2s.xml");
	write_job(&f, &o, &w);
	cr_assert_eq(w.rc, 0);
	cr_assert_eq(w.nmsg, 0, "message: %s", w.msg);
	j = parse(w.out);
	cr_assert_eq(json_integer_value(json_object_get(j, "world_size")), 16);
	ranks = json_object_get(j, "ranks");
	cr_assert_eq(json_array_size(ranks), 16);
	for (i = 0; i < 16; i++)
		cr_assert_eq(json_integer_value(json_object_get(json_array_get(ranks, i), "rank")),
		             (json_int_t)i);
	aff = json_object_get(j, "affinity");
	cr_assert_eq(json_array_size(aff), 8, "one entry per local rank");
	cr_assert(json_is_array(json_object_get(j, "diagnostics")));
	json_decref(j);
	written_free(&w);
	job_done(&f);
}

Test(report, json_of_one_rank_and_one_kind)
{
	struct mcx_topology_opts o = {.format = MCX_TOPOLOGY_JSON, .rank = 5, .kind = -1};
	struct fixture f;
	struct written w;
	json_t *j, *ranks, *groups;

	o.kind = mcinit_group_lookup("tp");
	cr_assert(o.kind >= 0);
	job_make(&f, 16, 2, 8, "tests/fixtures/dgx8-2s.xml");
	write_job(&f, &o, &w);
	cr_assert_eq(w.rc, 0);
	j = parse(w.out);
	ranks = json_object_get(j, "ranks");
	cr_assert_eq(json_array_size(ranks), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(ranks, 0), "rank")), 5);
	cr_assert_eq(json_array_size(json_object_get(j, "affinity")), 1);
	cr_assert_eq(json_integer_value(json_object_get(
	                 json_array_get(json_object_get(j, "affinity"), 0), "local_rank")),
	             5);
	groups = json_object_get(j, "groups");
	cr_assert_eq(json_object_size(groups), 1);
	cr_assert_not_null(json_object_get(groups, "tp"));
	json_decref(j);
	written_free(&w);
	job_done(&f);
}

/* The node's warnings are the caller's to show: they join the job's list
 * at mcx_topology_node, and the text writer repeats none of them. */
Test(report, node_warnings_join_the_list_at_mcx_topology_node)
{
	struct mcx_topology_opts o = {.format = MCX_TOPOLOGY_TEXT, .rank = -1, .kind = -1};
	struct fixture f;
	struct written w;
	size_t before;
	char *diags;

	/* 6 local ranks on a node of 4 GPUs: MC051 */
	job_make(&f, 12, 2, 6, "tests/fixtures/node4-1s.xml");
	before = mcinit_diags_length(f.d);
	write_job(&f, &o, &w);
	cr_assert_eq(w.rc, 0);
	cr_assert_gt(mcinit_diags_length(f.d), before);
	diags = mcinit_diags_json(f.d);
	cr_assert_not_null(strstr(diags, "MC051"), "%s", diags);
	free(diags);
	cr_assert_eq(strncmp(w.out, "topology: 12 ranks", 18), 0, "%.40s", w.out);
	cr_assert_null(strstr(w.out, "MC051"), "the writer printed a diagnostic");
	cr_assert_not_null(strstr(w.out, "\naffinity (from hwloc"));
	cr_assert_eq(w.nmsg, 0);
	written_free(&w);
	job_done(&f);
}

Test(report, svg_is_a_document_on_out)
{
	struct mcx_topology_opts o = {.format = MCX_TOPOLOGY_SVG, .rank = -1, .kind = -1};
	struct fixture f;
	struct written w;

	job_make(&f, 16, 2, 8, "tests/fixtures/dgx8-2s.xml");
	write_job(&f, &o, &w);
	cr_assert_eq(w.rc, 0);
	cr_assert_not_null(strstr(w.out, "<svg"));
	cr_assert_not_null(strstr(w.out, "16 ranks on 2 nodes"));
	cr_assert_eq(w.nmsg, 0);
	written_free(&w);
	job_done(&f);
}

/* A node file that cannot be read fails at the start, before any output. */
Test(report, a_missing_node_file_fails_at_the_start)
{
	struct mcx_topology_opts o = {.format = MCX_TOPOLOGY_JSON, .rank = -1, .kind = -1};
	struct fixture f;
	mcinit_error_t err;

	job_make(&f, 8, 2, 8, "tests/fixtures/no-such-node.xml");
	cr_assert_eq(mcx_topology_start(f.job, &o, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_NOINPUT);
	cr_assert_not_null(strstr(err.text, "cannot read hwloc XML"), "%s", err.text);
	job_done(&f);
}

Test(report, result_json_has_validates_shape)
{
	struct fixture f;
	char *py = src_path("tests/unit/report/lint-only.py");
	const char *inputs[1] = {py};
	struct mcinit_job_desc desc = {.inputs = inputs, .ninputs = 1};
	struct mcinit_diags *d = mcinit_diags_new();
	struct mcinit_job *lint;
	mcinit_error_t err;
	json_t *r;

	job_make(&f, 8, 2, 8, NULL);
	cr_assert(!mcx_job_lint_only(f.job));
	r = mcx_job_result_json(f.job, f.d, true, true);
	cr_assert(json_is_true(json_object_get(r, "valid")));
	cr_assert(json_is_array(json_object_get(r, "diagnostics")));
	cr_assert(json_is_object(json_object_get(r, "derived")));
	cr_assert(json_is_object(json_object_get(r, "config")));
	json_decref(r);
	r = mcx_job_result_json(f.job, f.d, false, false);
	cr_assert(json_is_false(json_object_get(r, "valid")));
	cr_assert_null(json_object_get(r, "config"));
	json_decref(r);
	job_done(&f);

	/* a lint request: no derived values, no config even when asked */
	lint = mcinit_job_new(&desc, d, &err);
	cr_assert_not_null(lint, "%s", err.text);
	cr_assert(mcx_job_lint_only(lint));
	r = mcx_job_result_json(lint, d, true, true);
	cr_assert(json_is_null(json_object_get(r, "derived")));
	cr_assert_null(json_object_get(r, "config"));
	json_decref(r);
	/* topology's view of it keeps the (empty) derived object */
	r = mcx_job_derived_to_json(lint);
	cr_assert(json_is_object(r));
	json_decref(r);
	mcinit_job_free(lint);
	mcinit_diags_free(d);
	free(py);
}
