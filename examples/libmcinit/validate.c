/*
 * validate.c — a job file validated through libmcinit's public API: its
 * diagnostics, its derived values and a summary of its topology.
 *
 *   cc validate.c $(pkg-config --cflags --libs mcinit) -o validate
 *   ./validate [--hwloc-xml NODE.xml] JOB.json [SECTION.FIELD=VALUE...]
 *
 * Exit status: 0 valid, 1 invalid, 2 the job could not be loaded.
 */
#include <stdio.h>
#include <string.h>

#include <mcinit.h>

static void
print_topology(const struct mcinit_job *job)
{
	const struct mcinit_topology *t = mcinit_job_topology(job);
	struct mcinit_sizes s = {.size = sizeof s};
	struct mcinit_rank r = {.size = sizeof r};
	long l, ngroups, size;
	int k;

	mcinit_topology_sizes(t, &s);
	printf("topology: %ld ranks, order %s: TP %ld, CP %ld, PP %ld (VPP %ld), DP %ld, EP %ld, "
	       "ETP %ld, EDP %ld\n",
	       s.world, mcinit_topology_order(t), s.tp, s.cp, s.pp, s.vpp, s.dp, s.ep, s.etp,
	       s.edp);
	if (s.nproc_per_node > 0)
		printf("placement: %ld nodes x %ld ranks\n", s.nnodes, s.nproc_per_node);
	for (k = 0; k < mcinit_group_kinds(); k++) {
		mcinit_topology_group_shape(t, k, &ngroups, &size);
		printf("  %-8s %ld groups of %ld\n", mcinit_group_name(k), ngroups, size);
	}
	mcinit_topology_rank(t, s.world - 1, &r);
	printf("last rank %ld: tp %ld cp %ld dp %ld pp %ld, node %ld local rank %ld, seed %lld\n",
	       r.rank, r.tp, r.cp, r.dp, r.pp, r.node, r.local_rank, r.seed);
	for (l = 0; l < mcinit_job_local_ranks(job); l++) {
		struct mcinit_local_rank lr = {.size = sizeof lr};

		mcinit_job_local_rank(job, l, &lr);
		printf("  local rank %ld: GPU %d (%s), NUMA %d, CPUs %s, NIC %s\n", l, lr.gpu,
		       lr.busid ? lr.busid : "none", lr.numa, lr.cpuset ? lr.cpuset : "-",
		       lr.nic ? lr.nic : "none");
	}
}

int
main(int argc, char **argv)
{
	struct mcinit_job_desc desc = {0};
	const char *inputs[16], *overrides[16];
	struct mcinit_diags *d = mcinit_diags_new();
	struct mcinit_job *job;
	mcinit_error_t err;
	size_t i;
	int a, rc = 2;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--hwloc-xml") == 0 && a + 1 < argc)
			desc.hwloc_xml = argv[++a];
		else if (strchr(argv[a], '=') != NULL && desc.noverrides < 16)
			overrides[desc.noverrides++] = argv[a];
		else if (desc.ninputs < 16)
			inputs[desc.ninputs++] = argv[a];
	}
	desc.inputs = inputs;
	desc.overrides = overrides;
	printf("libmcinit %s\n", mcinit_version());
	job = mcinit_job_new(&desc, d, &err);
	if (job == NULL) {
		mcinit_diags_print(d, stdout, 0);
		printf("error (%s)%s%s: %s\n", mcinit_code_name(mcinit_error_code(&err)),
		       err.source[0] ? " in " : "", err.source, err.text);
		goto out;
	}
	if (mcinit_job_valid(job) && mcinit_job_plan_node(job, &err) < 0)
		printf("node: %s\n", err.text);
	for (i = 0; i < mcinit_diags_length(d); i++) {
		struct mcinit_diagnostic g = {.size = sizeof g};

		mcinit_diags_get(d, i, &g);
		printf("%s %s at %s:%d:%d: %s\n",
		       g.severity == MCINIT_ERROR     ? "error"
		       : g.severity == MCINIT_WARNING ? "warning"
		                                      : "note",
		       g.code, g.source ? g.source : "-", g.line, g.column, g.message);
	}
	printf("%zu errors, %zu warnings\n", mcinit_diags_count(d, MCINIT_ERROR),
	       mcinit_diags_count(d, MCINIT_WARNING));
	mcinit_job_derived_print(job, stdout);
	if (mcinit_job_valid(job))
		print_topology(job);
	rc = mcinit_job_valid(job) ? 0 : 1;
out:
	mcinit_job_free(job);
	mcinit_diags_free(d);
	return rc;
}
