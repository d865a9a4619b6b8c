/*
 * test-plan.c — the job plan through the public API (include/mcinit.h):
 * load + check + derive + topology + placement + each local rank's GPU,
 * its errors, and that it reads the environment it is given, not the
 * process's, from several threads at once.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mcinit.h"

#include "plan/plan.h"
#include "core/util.h"

static char *
src_path(const char *rel)
{
	const char *srcdir = getenv("srcdir");

	return mcx_xasprintf("%s/%s", srcdir && *srcdir ? srcdir : ".", rel);
}

/* A job of inputs/overrides; hwloc_env: "HWLOC_XMLFILE=..." for desc.envp or NULL. */
static struct mcinit_job *
job_of(const char *input, const char *override, const char *env, struct mcinit_diags *d,
       mcinit_error_t *err)
{
	struct mcinit_job_desc desc = {0};
	const char *inputs[1] = {input}, *overrides[1] = {override}, *envp[2] = {env, NULL};
	int argi[1] = {7};

	desc.inputs = inputs;
	desc.ninputs = 1;
	if (override != NULL) {
		desc.overrides = overrides;
		desc.override_argv_index = argi;
		desc.noverrides = 1;
	}
	desc.envp = envp;
	return mcinit_job_new(&desc, d, err);
}

/* The structures filled in caller memory grow without breaking callers:
 * a caller built with a newer header (a larger struct) gets this release's
 * bytes and its size back, the rest untouched; one whose size is under the
 * first sized release's is refused and left as it was. */
Test(plan, output_structs_are_filled_up_to_their_size)
{
	char *path = src_path("examples/llama3-70b.json");
	struct mcinit_diags *d = mcinit_diags_new();
	mcinit_error_t err;
	struct mcinit_job *job = job_of(path, NULL, NULL, d, &err);
	const struct mcinit_topology *t;
	struct {
		struct mcinit_rank r;
		unsigned char later[64];
	} big;
	struct {
		struct mcinit_diagnostic g;
		unsigned char later[64];
	} bigd;
	struct mcinit_sizes small;
	struct mcinit_rank r = {.size = sizeof r};
	size_t i;

	cr_assert_not_null(job, "%s", err.text);
	t = mcinit_job_topology(job);
	cr_assert_not_null(t);
	memset(&big, 0xa5, sizeof big);
	big.r.size = sizeof big;
	cr_assert_eq(mcinit_topology_rank(t, 63, &big.r), 0);
	cr_assert_eq(big.r.size, sizeof(struct mcinit_rank));
	cr_assert_eq(big.r.node, 7);
	for (i = 0; i < sizeof big.later; i++)
		cr_assert_eq(big.later[i], 0xa5, "byte %zu past the struct was written", i);
	memset(&small, 0x5a, sizeof small);
	small.size = sizeof small - 1;
	cr_assert_eq(mcinit_topology_sizes(t, &small), -1);
	cr_assert_eq(small.world, (long)0x5a5a5a5a5a5a5a5aL);
	r.size = 0; /* a caller that forgot the size */
	cr_assert_eq(mcinit_topology_rank(t, 0, &r), -1);
	cr_assert_gt(mcinit_diags_length(d), 0);
	memset(&bigd, 0xa5, sizeof bigd);
	bigd.g.size = sizeof bigd;
	cr_assert_eq(mcinit_diags_get(d, 0, &bigd.g), 0);
	cr_assert_eq(bigd.g.size, sizeof(struct mcinit_diagnostic));
	cr_assert_not_null(bigd.g.code);
	for (i = 0; i < sizeof bigd.later; i++)
		cr_assert_eq(bigd.later[i], 0xa5);
	mcinit_job_free(job);
	mcinit_diags_free(d);
	free(path);
}

Test(plan, llama3_70b_sizes_ranks_and_groups)
{
	char *path = src_path("examples/llama3-70b.json");
	struct mcinit_diags *d = mcinit_diags_new();
	mcinit_error_t err;
	struct mcinit_job *job = job_of(path, NULL, NULL, d, &err);
	const struct mcinit_topology *t;
	struct mcinit_sizes s = {.size = sizeof s};
	struct mcinit_rank r = {.size = sizeof r};
	long members[64], color, key, rank, ngroups, size;
	int k;

	cr_assert_not_null(job, "%s", err.text);
	cr_assert(mcinit_job_valid(job));
	t = mcinit_job_topology(job);
	cr_assert_not_null(t);
	mcinit_topology_sizes(t, &s);
	cr_assert_eq(s.world, 64);
	cr_assert_eq(s.tp, 4);
	cr_assert_eq(s.cp, 2);
	cr_assert_eq(s.pp, 4);
	cr_assert_eq(s.dp, 2);
	cr_assert_eq(s.vpp, 5);
	cr_assert_eq(s.nproc_per_node, 8);
	cr_assert_eq(s.nnodes, 8);
	cr_assert_str_eq(mcinit_topology_order(t), "tp-cp-ep-dp-pp");
	cr_assert_eq(mcinit_topology_rank(t, 63, &r), 0);
	cr_assert_eq(r.node, 7);
	cr_assert_eq(r.local_rank, 7);
	cr_assert_eq(mcinit_topology_rank(t, 64, &r), -1);
	/* Every rank sits at position key of group color, for every kind. */
	for (k = 0; k < mcinit_group_kinds(); k++) {
		cr_assert_eq(mcinit_group_lookup(mcinit_group_name(k)), k);
		cr_assert_eq(mcinit_topology_group_shape(t, k, &ngroups, &size), 0);
		for (rank = 0; rank < s.world; rank++) {
			if (mcinit_topology_group_of(t, k, rank, &color, &key) != 0)
				continue;
			cr_assert_eq(mcinit_topology_group(t, k, color, members), 0);
			cr_assert_eq(members[key], rank, "%s: rank %ld", mcinit_group_name(k),
			             rank);
		}
	}
	cr_assert_eq(mcinit_topology_group_of(t, mcinit_group_kinds(), 0, &color, &key), -1);
	mcinit_job_free(job);
	mcinit_diags_free(d);
	free(path);
}

Test(plan, unusable_inputs_are_structured_errors)
{
	char *bad = src_path("tests/cli/inputs/malformed.json");
	struct mcinit_diags *d = mcinit_diags_new();
	mcinit_error_t err;

	cr_assert_null(job_of("no-such-file.json", NULL, NULL, d, &err));
	cr_assert_eq(mcinit_error_code(&err), MCINIT_E_NOINPUT);
	cr_assert_str_eq(err.source, "no-such-file.json");
	cr_assert_eq(err.line, 0);
	cr_assert_eq(err.argv_index, -1);
	cr_assert_null(strstr(err.text, "no-such-file"), "text repeats the place: %s", err.text);
	cr_assert_null(job_of(bad, NULL, NULL, d, &err));
	cr_assert_eq(mcinit_error_code(&err), MCINIT_E_PARSE);
	cr_assert_str_eq(err.source, bad);
	cr_assert_eq(err.line, 4);
	cr_assert_eq(err.column, 3);
	cr_assert(strncmp(err.text, "malformed JSON: ", 16) == 0, "%s", err.text);
	cr_assert_null(job_of("job.toml", NULL, NULL, d, &err));
	cr_assert_eq(mcinit_error_code(&err), MCINIT_E_USAGE);
	cr_assert_str_eq(mcinit_code_name(MCINIT_E_PARSE), "parse");
	mcinit_diags_free(d);
	free(bad);
}

Test(plan, invalid_job_has_no_topology_and_argv_located_diagnostics)
{
	char *path = src_path("examples/llama3-70b.json");
	struct mcinit_diags *d = mcinit_diags_new();
	struct mcinit_diagnostic g = {.size = sizeof g};
	mcinit_error_t err;
	struct mcinit_job *job = job_of(path, "model.tensor_model_parallel_size=3", NULL, d, &err);
	size_t i;
	int seen = 0;

	cr_assert_not_null(job, "%s", err.text);
	cr_assert_not(mcinit_job_valid(job));
	cr_assert_null(mcinit_job_topology(job));
	cr_assert_gt(mcinit_diags_count(d, MCINIT_ERROR), 0);
	for (i = 0; i < mcinit_diags_length(d); i++) {
		cr_assert_eq(mcinit_diags_get(d, i, &g), 0);
		if (g.source != NULL && strcmp(g.source, "override") == 0) {
			cr_assert_eq(g.argv_index, 7);
			cr_assert_eq(g.line, 0);
			seen = 1;
		}
	}
	cr_assert(seen, "no diagnostic points at the override");
	cr_assert_eq(mcinit_diags_get(d, i, &g), -1);
	cr_assert_eq(mcinit_job_plan_node(job, &err), -1);
	cr_assert_eq(mcinit_error_code(&err), MCINIT_E_USAGE);
	mcinit_job_free(job);
	mcinit_diags_free(d);
	free(path);
}

/* The node from the description's environment: 8 GPUs of the DGX fixture. */
static void
check_dgx8(struct mcinit_job *job)
{
	struct mcinit_local_rank lr = {.size = sizeof lr};
	long l;

	cr_assert_eq(mcinit_job_local_ranks(job), 8);
	for (l = 0; l < 8; l++) {
		cr_assert_eq(mcinit_job_local_rank(job, l, &lr), 0);
		cr_assert_eq(lr.gpu, l);
		cr_assert_not_null(lr.busid);
		cr_assert_not_null(lr.cpuset);
		cr_assert_eq(lr.numa, l < 4 ? 0 : 1);
	}
	cr_assert_eq(mcinit_job_local_rank(job, 8, &lr), -1);
}

Test(plan, node_from_the_description_environment)
{
	char *path = src_path("examples/llama3-70b.json"),
	     *xml = src_path("tests/fixtures/dgx8-2s.xml");
	char *env = mcx_xasprintf("HWLOC_XMLFILE=%s", xml);
	struct mcinit_diags *d = mcinit_diags_new();
	mcinit_error_t err;
	struct mcinit_job *job = job_of(path, NULL, env, d, &err);

	cr_assert_not_null(job, "%s", err.text);
	cr_assert_eq(mcinit_job_local_ranks(job), 0, "no node before mcinit_job_plan_node");
	cr_assert_eq(mcinit_job_plan_node(job, &err), 0, "%s", err.text);
	check_dgx8(job);
	cr_assert_eq(mcinit_job_plan_node(job, &err), 0, "a second call does nothing");
	mcinit_job_free(job);
	mcinit_diags_free(d);
	free(env);
	free(xml);
	free(path);
}

/* The process's $HWLOC_XMLFILE is not the job's: an empty description
 * environment means this machine, and no variable is changed. */
Test(plan, process_environment_is_not_read_for_the_node)
{
	char *path = src_path("examples/llama3-70b.json"),
	     *xml = src_path("tests/fixtures/dgx8-2s.xml");
	struct mcinit_diags *d = mcinit_diags_new();
	mcinit_error_t err;
	struct mcinit_job *job;

	setenv("HWLOC_XMLFILE", xml, 1);
	job = job_of(path, NULL, NULL, d, &err);
	cr_assert_not_null(job, "%s", err.text);
	cr_assert_eq(mcinit_job_plan_node(job, &err), 0, "%s", err.text);
	cr_assert_not_null(job->topo.nd.a);
	cr_assert_str_eq(mcinit_affinity_source(job->topo.nd.a), "this machine");
	cr_assert_str_eq(getenv("HWLOC_XMLFILE"), xml);
	unsetenv("HWLOC_XMLFILE");
	mcinit_job_free(job);
	mcinit_diags_free(d);
	free(xml);
	free(path);
}

struct worker {
	const char *path, *env;
	int ok;
};

static void *
worker_run(void *arg)
{
	struct worker *w = arg;
	struct mcinit_diags *d = mcinit_diags_new();
	mcinit_error_t err;
	struct mcinit_job *job = job_of(w->path, NULL, w->env, d, &err);
	struct mcinit_local_rank lr = {.size = sizeof lr};

	w->ok = job != NULL && mcinit_job_valid(job) && mcinit_job_plan_node(job, &err) == 0 &&
	        mcinit_job_local_ranks(job) == 8 && mcinit_job_local_rank(job, 5, &lr) == 0 &&
	        lr.gpu == 5;
	mcinit_job_free(job);
	mcinit_diags_free(d);
	return NULL;
}

/* Jobs planned in parallel threads (the schema's type table is filled
 * once, under pthread_once; nothing touches the environment). */
Test(plan, jobs_in_parallel_threads)
{
	char *path = src_path("examples/llama3-70b.json"),
	     *xml = src_path("tests/fixtures/dgx8-2s.xml");
	char *env = mcx_xasprintf("HWLOC_XMLFILE=%s", xml);
	struct worker w[4];
	pthread_t th[4];
	int i;

	for (i = 0; i < 4; i++) {
		w[i].path = path;
		w[i].env = env;
		w[i].ok = 0;
		cr_assert_eq(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_assert(w[i].ok, "thread %d", i);
	}
	free(env);
	free(xml);
	free(path);
}
