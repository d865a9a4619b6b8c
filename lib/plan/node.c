/*
 * node.c — the node the ranks run on: its GPUs, CPUs, NUMA nodes and NICs
 * from hwloc (read in a thread beside the caller's output when it can), which
 * GPU each local rank drives, and the placement warnings MC050-MC054.
 */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

static void *
loader_run(void *arg)
{
	struct loader *l = arg;

	l->a = mcinit_affinity_load(&l->opts, &l->err);
	return NULL;
}

/* Reading this machine takes tens of milliseconds (hwloc scans PCI), as
 * long as writing 65,536 ranks of JSON, so it may run in a thread.  An XML
 * file is quick, and a bad one must fail before any output: it loads here. */
int
mcinit_node_start(struct mcinit_job *job, bool async, struct mcinit_err *err)
{
	struct loader *l = &job->topo.ld;
	const char *env = mcinit_env_get((const char *const *)job->opts.envp, "HWLOC_XMLFILE");

	if (job->topo.started)
		return 0;
	job->topo.started = true;
	memset(l, 0, sizeof *l);
	l->opts.xml_path = job->hwloc_xml;
	if (l->opts.xml_path == NULL && env != NULL && *env != '\0')
		l->opts.xml_path = env;
	l->opts.ignore_xml_env = 1;
	l->file = l->opts.xml_path != NULL;
	if (async && !l->file && pthread_create(&l->th, NULL, loader_run, l) == 0) {
		l->running = true;
		return 0;
	}
	loader_run(l);
	if (l->file && l->a == NULL) {
		*err = l->err;
		return -1;
	}
	return 0;
}

static void
loader_wait(struct loader *l)
{
	if (l->running)
		pthread_join(l->th, NULL);
	l->running = false;
}

int
mcinit_node_gpu(const struct node *nd, long l)
{
	if (nd->a == NULL || l < 0 || l >= nd->nlocal)
		return -1;
	return (size_t)nd->rank_gpu[l] < mcinit_affinity_ngpus(nd->a) ? nd->rank_gpu[l] : -1;
}

long
mcinit_plan_npn(const struct mcinit_topology *t)
{
	return t->pl.npn > 0 ? t->pl.npn : t->nd.nlocal;
}

/* Tensor-parallel groups that lie inside one node, as local GPU indexes,
 * each layout once.  Under block placement node n holds node 0's ranks
 * plus n x npn, and TP is the fastest dimension, so the layouts repeat
 * every TP / gcd(npn, TP) nodes: those few nodes are enough. */
struct tp_layouts {
	size_t n, tp;
	int *gpus;       /* [n][tp] */
	const int **ptr; /* [n] into gpus */
	size_t *len;     /* [n], all tp */
	long *ids;       /* [n] Megatron's index of the first group seen */
};

static bool
layout_seen(const struct tp_layouts *L, const int *g)
{
	size_t i;

	for (i = 0; i < L->n; i++)
		if (memcmp(L->gpus + i * L->tp, g, L->tp * sizeof *g) == 0)
			return true;
	return false;
}

/* Adds the group whose TP-rank-0 member is r, when it stays on node n. */
static void
layout_add(const struct mcinit_topology *j, struct tp_layouts *L, long r, long n, long npn,
           size_t cap)
{
	struct mcinit_coords co;
	long color, key, t;
	int *g = L->gpus + L->n * L->tp;

	mcinit_topo_coords(&j->t, r, &co);
	if (co.tp != 0 || L->n == cap)
		return;
	for (t = 0; t < j->t.s.tp; t++) {
		long m = mcinit_topo_dense_rank(&j->t, t, co.cp, co.dp, co.pp);

		if (m < 0 || m / npn != n || m % npn >= j->nd.nlocal)
			return;
		g[t] = j->nd.rank_gpu[m % npn];
	}
	if (layout_seen(L, g) || mcinit_topo_group_of(&j->t, MCINIT_GROUP_TP, r, &color, &key) != 0)
		return;
	L->ids[L->n++] = color;
}

static void
tp_layouts_find(const struct mcinit_topology *j, struct tp_layouts *L)
{
	long npn = mcinit_plan_npn(j), tp = j->t.s.tp, a = npn, b = tp, n, nodes, r;
	size_t i, cap;

	memset(L, 0, sizeof *L);
	if (npn <= 0 || tp > npn)
		return;
	while (b != 0) {
		long c = a % b;

		a = b;
		b = c;
	}
	nodes = (j->t.s.world + npn - 1) / npn;
	if (nodes > tp / a)
		nodes = tp / a;
	cap = (size_t)(nodes * npn / tp + 1);
	L->tp = (size_t)tp;
	L->gpus = mcx_xcalloc(cap * L->tp, sizeof *L->gpus);
	L->ids = mcx_xcalloc(cap, sizeof *L->ids);
	for (n = 0; n < nodes; n++)
		for (r = n * npn; r < (n + 1) * npn && r < j->t.s.world; r++)
			layout_add(j, L, r, n, npn, cap);
	L->ptr = mcx_xcalloc(L->n + 1, sizeof *L->ptr);
	L->len = mcx_xcalloc(L->n + 1, sizeof *L->len);
	for (i = 0; i < L->n; i++) {
		L->ptr[i] = L->gpus + i * L->tp;
		L->len[i] = L->tp;
	}
}

static void
tp_layouts_free(struct tp_layouts *L)
{
	free(L->gpus);
	free(L->ptr);
	free(L->len);
	free(L->ids);
}

/* The affinity module's placement warnings, as coded diagnostics. */
static void
node_warnings(struct mcinit_topology *j)
{
	static const char *const codes[] = {
	    [MCINIT_AFF_WARN_TP_NVLINK] = "MC050",
	    [MCINIT_AFF_WARN_RANKS] = "MC051",
	    [MCINIT_AFF_WARN_FAR_CPUS] = "MC052",
	};
	static const char *const hints[] = {
	    [MCINIT_AFF_WARN_TP_NVLINK] = "tensor-parallel all-reduces then run over PCIe or the "
	                                  "CPU interconnect; keep each group on GPUs joined by "
	                                  "NVLink (NV# in the link matrix) or lower TP",
	    [MCINIT_AFF_WARN_RANKS] = "give --nproc-per-node at most the node's GPU count",
	    [MCINIT_AFF_WARN_FAR_CPUS] = "let the ranks use the CPUs of their GPU's NUMA node "
	                                 "(check the launcher's CPU binding or cgroup)",
	};
	struct mcinit_affinity_placement p = {0};
	struct tp_layouts L;
	enum mcinit_affinity_warn *kinds = NULL;
	char **v = NULL;
	size_t n = 0, i;

	tp_layouts_find(j, &L);
	p.nlocal = (size_t)j->nd.nlocal;
	/* NULL for the identity map: extra ranks then give one warning, not one each. */
	p.rank_gpu = j->nd.external ? j->nd.rank_gpu : NULL;
	p.ngroups = L.n;
	p.group_len = L.len;
	p.groups = L.ptr;
	p.group_ids = L.ids;
	mcinit_affinity_warnings(j->nd.a, &p, &v, &kinds, &n);
	for (i = 0; i < n; i++) {
		struct mcinit_diag *g;

		g = mcinit_diag_add(j->d, MCINIT_WARNING, codes[kinds[i]],
		                    kinds[i] == MCINIT_AFF_WARN_TP_NVLINK ? j->tp_loc : NULL, "%s",
		                    v[i]);
		mcinit_diag_hint(g, "%s", hints[kinds[i]]);
		mcinit_diag_key(g, kinds[i] == MCINIT_AFF_WARN_TP_NVLINK
		                       ? "model.tensor_model_parallel_size"
		                       : "launch.nproc_per_node");
	}
	free(kinds);
	mcinit_affinity_warnings_free(v);
	tp_layouts_free(&L);
}

/* Which GPU each local rank drives, and what the node warns about. */
void
mcinit_node_finish(struct mcinit_job *job)
{
	struct mcinit_topology *j = &job->topo;
	struct node *nd = &j->nd;
	struct loader *ld = &j->ld;
	struct mcinit_diag *g;
	long l, ngpus;

	if (!j->started || j->finished)
		return;
	j->finished = true;
	loader_wait(ld);
	nd->a = ld->a;
	ld->a = NULL;
	if (nd->a == NULL) {
		g = mcinit_diag_add(j->d, MCINIT_WARNING, "MC054", NULL,
		                    "cannot read this machine's topology, so no GPU, CPU or NIC "
		                    "affinity is shown: %s",
		                    ld->err.msg);
		mcinit_diag_hint(g, "give the node's topology with --hwloc-xml FILE");
		return;
	}
	ngpus = (long)mcinit_affinity_ngpus(nd->a);
	nd->nlocal = j->pl.npn > 0 ? j->pl.npn : ngpus;
	nd->guessed = j->pl.npn <= 0;
	if (nd->nlocal > j->t.s.world)
		nd->nlocal = j->t.s.world;
	nd->rank_gpu = mcx_xcalloc((size_t)nd->nlocal + 1, sizeof *nd->rank_gpu);
	for (l = 0; l < nd->nlocal; l++)
		nd->rank_gpu[l] = nd->external ? 0 : (int)l;
	if (ngpus == 0) {
		g = mcinit_diag_add(j->d, MCINIT_NOTE, "MC053", NULL,
		                    "no NVIDIA GPUs found %s%s: the affinity shows only the CPUs "
		                    "and NUMA nodes the ranks may use",
		                    ld->file ? "in " : "on ", mcinit_affinity_source(nd->a));
		mcinit_diag_hint(g, "give the target node's topology with --hwloc-xml FILE "
		                    "(lstopo node.xml on that node)");
		return;
	}
	node_warnings(j);
}

void
mcinit_node_destroy(struct mcinit_topology *j)
{
	loader_wait(&j->ld);
	mcinit_affinity_free(j->ld.a);
	mcinit_affinity_free(j->nd.a);
	free(j->nd.rank_gpu);
}

/* ---- the public node ---- */

int
mcinit_job_plan_node(struct mcinit_job *job, mcinit_error_t *perr)
{
	struct mcinit_err err = {0};

	if (!mcinit_job_ok(job)) {
		mcinit_err_set(&err, MCINIT_E_USAGE,
		               "the job is not valid: it has no placement to plan");
		mcinit_err_export(&err, perr);
		return -1;
	}
	if (mcinit_node_start(job, false, &err) < 0) {
		mcinit_err_export(&err, perr);
		return -1;
	}
	mcinit_node_finish(job);
	mcinit_diags_sort(job->d);
	return 0;
}

long
mcinit_job_local_ranks(const struct mcinit_job *job)
{
	return job->topo.finished && job->topo.nd.a != NULL ? job->topo.nd.nlocal : 0;
}

int
mcinit_job_local_rank(const struct mcinit_job *job, long l, struct mcinit_local_rank *out_)
{
	const struct node *nd = &job->topo.nd;
	const struct mcinit_affinity_gpu *g;
	struct mcinit_local_rank v = {0}, *out = &v;
	const size_t end = MCINIT_OUT_END(struct mcinit_local_rank, nic);
	int gpu;

	if (l < 0 || l >= mcinit_job_local_ranks(job))
		return -1;
	out->local_rank = l;
	out->numa = -1;
	gpu = mcinit_node_gpu(nd, l);
	out->gpu = gpu;
	if (gpu < 0) {
		out->cpuset = mcinit_affinity_allowed_cpuset(nd->a);
		return mcinit_out_copy(out_, &v, sizeof v, end);
	}
	g = mcinit_affinity_gpu(nd->a, (size_t)gpu);
	out->busid = g->busid;
	out->cpuset = g->cpuset;
	out->numa = g->nnuma > 0 ? (int)g->numa[0] : -1;
	out->nic = g->nnics > 0 ? g->nics[0] : NULL;
	return mcinit_out_copy(out_, &v, sizeof v, end);
}
