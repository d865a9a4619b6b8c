/*
 * cmd-topology.c — `mcinit topology`: every rank group exactly as
 * Megatron-Core would build it, where each rank lands, and its seeds.
 *
 * Output can be large (2^20 ranks give ~300 MB of JSON), so nothing here
 * builds a tree of the groups or ranks: the groups come from the streaming
 * writer of topology.c and the ranks from the chunked writer below.
 *
 * The node's hardware (GPUs, NUMA nodes, NICs) comes from hwloc, loaded once
 * and described per local rank, never per world rank, so it costs the same
 * for 8 ranks as for a million.  Every node is taken to look like the one
 * described (this machine, or --hwloc-xml FILE).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "affinity.h"
#include "cli.h"
#include "commands.h"
#include "svg.h"
#include "topology.h"

enum { OPT_RANK = 0x300, OPT_GROUP, OPT_ALL, OPT_HWLOC_XML };

/* Above this many ranks the text per-rank table is left out unless --all. */
#define TABLE_MAX_RANKS 64
#define TEXT_WIDTH      100

struct topts {
	struct mcinit_cli cli;
	long rank; /* --rank, -1 = every rank */
	int kind;  /* --group, -1 = every kind */
	bool all;
	const char *hwloc_xml; /* --hwloc-xml, NULL = $HWLOC_XMLFILE or this machine */
};

/* Where ranks land (block placement: node = rank / npn); npn 0 = unknown. */
struct placement {
	long npn, nnodes;
	const char *source;
};

/* The node the ranks run on and which GPU each local rank drives. */
struct node {
	struct mcinit_affinity *a; /* NULL: this machine could not be read (MC054) */
	long nlocal;               /* local ranks described: nproc_per_node (at most
	                              the world), else one per GPU */
	bool guessed;              /* nlocal comes from the GPU count */
	bool external;             /* dist.external_gpu_device_mapping: device 0 */
	int *rank_gpu;             /* [nlocal]; owned */
};

/* Loads the node's topology, in a thread when asked (see loader_start). */
struct loader {
	struct mcinit_affinity_opts opts;
	struct mcinit_affinity *a;
	struct mcinit_err err;
	bool file; /* an XML file, not this machine */
	bool running;
	pthread_t th;
};

/* What the emitters need once the job is known to be valid. */
struct job {
	const struct topts *o;
	const struct mcinit_derived *dv;
	struct mcinit_diags *d;
	struct mcinit_topo t;
	struct placement pl;
	unsigned kinds; /* MCINIT_GROUP_BIT set */
	long long seed;
	int dp_random_init;
	long long vpp;                   /* 0 = no virtual pipeline */
	const struct mcinit_loc *tp_loc; /* where TP was written; NULL: default */
	struct loader ld;
	struct node nd; /* valid after node_setup */
};

/* ---- a chunked writer: the whole output never sits in memory ---- */

#define OUT_CHUNK (1 << 20)
#define OUT_LINE  512 /* room asked for by out_printf: longer lines are cut */

struct out {
	char *start, *p, *end;
	FILE *f;
	int failed;
};

static void
out_open(struct out *w, FILE *f)
{
	w->start = mcinit_xmalloc(OUT_CHUNK);
	w->p = w->start;
	w->end = w->start + OUT_CHUNK;
	w->f = f;
	w->failed = 0;
}

static void
out_flush(struct out *w)
{
	size_t n = (size_t)(w->p - w->start);

	if (!w->failed && n > 0 && fwrite(w->start, 1, n, w->f) != n)
		w->failed = 1;
	w->p = w->start;
}

/* Flushes and releases; -1 when anything failed to reach the stream. */
static int
out_close(struct out *w)
{
	out_flush(w);
	free(w->start);
	w->start = w->p = w->end = NULL;
	return (w->failed || fflush(w->f) != 0 || ferror(w->f)) ? -1 : 0;
}

static inline void
out_room(struct out *w, size_t n)
{
	if ((size_t)(w->end - w->p) < n)
		out_flush(w);
}

static void
out_mem(struct out *w, const char *s, size_t n)
{
	while (n > 0) {
		size_t k;

		out_room(w, 1);
		k = (size_t)(w->end - w->p);
		if (k > n)
			k = n;
		memcpy(w->p, s, k);
		w->p += k;
		s += k;
		n -= k;
	}
}

static void
out_str(struct out *w, const char *s)
{
	out_mem(w, s, strlen(s));
}

#define OUT_LIT(w, s) out_mem((w), (s), sizeof(s) - 1)

static void out_printf(struct out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
out_printf(struct out *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	out_room(w, OUT_LINE);
	va_start(ap, fmt);
	n = vsnprintf(w->p, OUT_LINE, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->p += n < OUT_LINE ? n : OUT_LINE - 1;
}

/* v right-aligned in `width` columns (0: no padding). */
static inline void
out_num_w(struct out *w, long long v, int width)
{
	char tmp[24], *end = tmp + sizeof tmp, *q;
	size_t n;

	q = mcinit_utoa_rev(end, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
	if (v < 0)
		*--q = '-';
	n = (size_t)(end - q);
	out_room(w, n + (size_t)width);
	for (; width > (int)n; width--)
		*w->p++ = ' ';
	memcpy(w->p, q, n);
	w->p += n;
}

static inline void
out_num(struct out *w, long long v)
{
	out_num_w(w, v, 0);
}

static int
num_width(long long v)
{
	char tmp[24];

	return (int)(tmp + sizeof tmp -
	             mcinit_utoa_rev(tmp + sizeof tmp, v < 0 ? 0ULL - (unsigned long long)v
	                                                     : (unsigned long long)v)) +
	       (v < 0);
}

/* ---- options ---- */

static const char *
kind_list(void)
{
	static char buf[256];
	size_t n = 0;
	int k;

	if (buf[0] != '\0')
		return buf;
	for (k = 0; k < MCINIT_GROUP_COUNT; k++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", k ? ", " : "",
		                      mcinit_group_kind_name(k));
	return buf;
}

static const struct argp_option options[] = {
    {NULL, 0, NULL, 0, "Topology:", 2},
    {"rank", OPT_RANK, "R", 0,
     "Show one rank: its coordinates, groups, node, local rank, seeds and GPU/CPU affinity", 2},
    {"group", OPT_GROUP, "KIND", 0,
     "List only this group kind (dp_cp, dp, cp, mp, tp, pp, embd, pos_embd, tp_dp_cp, tp_dp, "
     "tp_cp, ep, ep_tp, tp_ep_mp, tp_ep_pp, ep_dp)",
     2},
    {"all", OPT_ALL, NULL, 0, "Print the per-rank table even for more than 64 ranks", 2},
    {"hwloc-xml", OPT_HWLOC_XML, "FILE", 0,
     "The node's GPUs, NUMA nodes and NICs from this hwloc XML file (lstopo node.xml) "
     "instead of this machine; default $HWLOC_XMLFILE when set",
     2},
    {NULL, 0, NULL, 0, NULL, 0},
};

static error_t
parse_opt(int key, char *arg, struct argp_state *state)
{
	struct topts *o = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->cli;
		break;
	case OPT_RANK:
		errno = 0;
		o->rank = strtol(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || errno != 0 || o->rank < 0)
			argp_error(state, "--rank: '%s' is not a rank (an integer >= 0)", arg);
		break;
	case OPT_GROUP:
		o->kind = mcinit_group_kind_from_name(arg);
		if (o->kind < 0)
			argp_error(state, "--group: '%s' is not a group kind: %s", arg,
			           kind_list());
		break;
	case OPT_ALL:
		o->all = true;
		break;
	case OPT_HWLOC_XML:
		o->hwloc_xml = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {{&mcinit_job_argp, 0, NULL, 0}, {NULL, 0, NULL, 0}};

static const char doc[] =
    "Print the model-parallel topology Megatron-Core would build: the parallel sizes, every "
    "rank group in Megatron's order, where each rank lands and its seeds.\v"
    "Inputs as for `mcinit validate`; an invalid job is reported the same way (exit 1).  "
    "Ranks are placed in blocks, as torchrun and Slurm do: node = rank / nproc-per-node, "
    "local rank = rank % nproc-per-node (from --nproc-per-node, launch.nproc_per_node, or "
    "the world size / --nnodes).\n\n"
    "Local rank i drives GPU i (device 0 with dist.external_gpu_device_mapping); every node "
    "is taken to look like this machine, or the node in --hwloc-xml FILE.\n\n"
    "Text output: a summary, which group kinds stay inside a node, the groups, a per-rank "
    "table (for at most 64 ranks, or with --all), then the node's affinity: its GPUs with "
    "their PCI bus id, NUMA node, CPUs and nearby NICs, the GPU/NIC link matrix (as "
    "nvidia-smi topo -m) and each local rank's GPU, CPUs, NUMA node and NIC.  "
    "--format=json prints {\"world_size\", \"order\", \"sizes\", \"groups\", \"ranks\", "
    "\"affinity\", \"diagnostics\"}; group keys are Megatron-Core's communicator names, in "
    "the order Megatron creates them; \"affinity\" has one entry per local rank.  "
    "--format=svg draws nodes x GPUs: each GPU's ranks, coloured by tensor-parallel "
    "group, pipeline stages as rows, NUMA domains and NICs.\n\n"
    "Placement warnings: MC050 a tensor-parallel group's GPUs are not all joined by "
    "NVLink, MC051 more local ranks than GPUs, MC052 a GPU none of whose CPUs the ranks "
    "may use; MC053 notes a node without NVIDIA GPUs, MC054 warns when this machine's "
    "topology cannot be read.\n\n" MCINIT_EXIT_CODES_DOC;

static const struct argp argp = {
    options, parse_opt, "[INPUT...] [SECTION.FIELD=VALUE...] [-- MEGATRON-FLAGS...]", doc, children,
    NULL,    NULL};

/* ---- the job: sizes, placement, seeds ---- */

/* a·b·c divides w, without forming the product (it may overflow). */
static bool
divides(long w, long a, long b, long c)
{
	return w % a == 0 && (w / a) % b == 0 && (w / a / b) % c == 0;
}

/* The first of `fs` (MCINIT_F_COUNT-terminated) the user wrote, else the first. */
static enum mcinit_field
written(const struct mcinit_config *c, const enum mcinit_field *fs)
{
	const enum mcinit_field *f;

	for (f = fs; *f != MCINIT_F_COUNT; f++)
		if (c->origin[*f] != MCINIT_ORIG_DEFAULT)
			return *f;
	return fs[0];
}

/* The rule a failed mcinit_topo_init corresponds to, for a job the rules
 * let through (so the user still gets a coded, located diagnostic). */
static void
report_topo_error(const struct mcinit_topo_sizes *s, const struct mcinit_config *c,
                  const struct mcinit_err *err, struct mcinit_diags *d)
{
	static const enum mcinit_field dense[] = {MCINIT_F_tensor_model_parallel_size,
	                                          MCINIT_F_pipeline_model_parallel_size,
	                                          MCINIT_F_context_parallel_size, MCINIT_F_COUNT};
	static const enum mcinit_field expert[] = {
	    MCINIT_F_expert_model_parallel_size, MCINIT_F_expert_tensor_parallel_size,
	    MCINIT_F_pipeline_model_parallel_size, MCINIT_F_COUNT};
	static const enum mcinit_field mapping[] = {MCINIT_F_use_tp_pp_dp_mapping, MCINIT_F_COUNT};
	const enum mcinit_field *cands = mapping;
	const char *code = "MC034";
	enum mcinit_field at;
	struct mcinit_diag *g;
	char key[128];

	if (!divides(s->world, s->tp, s->cp, s->pp)) {
		code = "MC010";
		cands = dense;
	} else if (!divides(s->world, s->etp, s->ep, s->pp)) {
		code = "MC011";
		cands = expert;
	}
	if (mcinit_diags_has(d, code))
		return;
	at = written(c, cands);
	g = mcinit_diag_add(d, MCINIT_ERROR, code,
	                    c->origin[at] == MCINIT_ORIG_DEFAULT ? NULL : &c->loc[at], "%s",
	                    err->msg);
	mcinit_diag_key(g, mcinit_field_key(at, key, sizeof key));
	if (cands == mapping)
		mcinit_diag_hint(g, "Megatron fails this only at initialisation; drop "
		                    "use_tp_pp_dp_mapping or choose EP x ETP = TP x CP");
}

/* 0 with j->t ready; 1 when the sizes do not form a grid (a diagnostic says
 * why); -1 with err when the rules passed a job without the derived values
 * the grid needs (a bug). */
static int
job_topo(struct job *j, const struct mcinit_config *c, struct mcinit_diags *d,
         struct mcinit_err *ierr)
{
	struct mcinit_topo_sizes s = {0};
	struct mcinit_err err = {0};

	if (!j->dv->world_ok || !j->dv->etp_ok)
		return mcinit_err_set(ierr, EX_SOFTWARE,
		                      "no error reported, yet the world size or the expert "
		                      "tensor-parallel size was not derived");
	s.world = (long)j->dv->world_size;
	s.tp = (long)mcinit_cfg_int(c, MCINIT_F_tensor_model_parallel_size);
	s.pp = (long)mcinit_cfg_int(c, MCINIT_F_pipeline_model_parallel_size);
	s.cp = (long)mcinit_cfg_int(c, MCINIT_F_context_parallel_size);
	s.ep = (long)mcinit_cfg_int(c, MCINIT_F_expert_model_parallel_size);
	s.etp = (long)j->dv->etp;
	s.tp_pp_dp_mapping = mcinit_cfg_bool(c, MCINIT_F_use_tp_pp_dp_mapping);
	if (mcinit_topo_init(&j->t, &s, &err) < 0) {
		report_topo_error(&s, c, &err, d);
		return 1;
	}
	return 0;
}

static long long
cfg_int_or(const struct mcinit_config *c, enum mcinit_field f, long long dflt)
{
	return mcinit_cfg_null(c, f) ? dflt : mcinit_cfg_int(c, f);
}

static void
job_placement(struct placement *pl, const struct mcinit_cli *cli, const struct mcinit_config *c,
              long world)
{
	long long npn = cli->check.nproc_per_node, nn = cli->check.nnodes;

	pl->source = "--nproc-per-node";
	if (npn == 0) {
		npn = cfg_int_or(c, MCINIT_F_nproc_per_node, 0);
		pl->source = "launch.nproc_per_node";
	}
	if (nn == 0)
		nn = cfg_int_or(c, MCINIT_F_nnodes, 0);
	if (npn == 0 && nn > 0 && world % nn == 0) {
		npn = world / nn;
		pl->source = "world size / nnodes";
	}
	pl->npn = (long)npn;
	pl->nnodes = npn > 0 ? (long)((world + npn - 1) / npn) : 0;
}

/* ---- the node: GPUs, CPUs, NUMA nodes, NICs (hwloc) ---- */

static void *
loader_run(void *arg)
{
	struct loader *l = arg;

	l->a = mcinit_affinity_load(&l->opts, &l->err);
	return NULL;
}

/* Starts loading the node's topology.  Reading this machine takes tens of
 * milliseconds (hwloc scans PCI), as long as writing 65,536 ranks of JSON,
 * so for JSON it runs in a thread beside the rank stream.  An XML file is
 * quick, and a bad one must fail the command before any output: it loads
 * here.  So does any load while $HWLOC_XMLFILE is set, even empty: reading
 * this machine then hides the variable with setenv(), which must not race
 * with the main thread. */
static void
loader_start(struct loader *l, const char *xml, bool async)
{
	const char *env = getenv("HWLOC_XMLFILE");

	memset(l, 0, sizeof *l);
	l->opts.xml_path = xml;
	l->file = xml != NULL || (env != NULL && *env != '\0');
	if (async && !l->file && env == NULL && pthread_create(&l->th, NULL, loader_run, l) == 0) {
		l->running = true;
		return;
	}
	loader_run(l);
}

static void
loader_wait(struct loader *l)
{
	if (l->running)
		pthread_join(l->th, NULL);
	l->running = false;
}

/* GPU of local rank l, or -1 when the node has none for it. */
static int
node_gpu(const struct node *nd, long l)
{
	if (nd->a == NULL || l < 0 || l >= nd->nlocal)
		return -1;
	return (size_t)nd->rank_gpu[l] < mcinit_affinity_ngpus(nd->a) ? nd->rank_gpu[l] : -1;
}

/* Ranks per node for the affinity: the placement's, else one per GPU. */
static long
node_npn(const struct job *j)
{
	return j->pl.npn > 0 ? j->pl.npn : j->nd.nlocal;
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
layout_add(const struct job *j, struct tp_layouts *L, long r, long n, long npn, size_t cap)
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
tp_layouts_find(const struct job *j, struct tp_layouts *L)
{
	long npn = node_npn(j), tp = j->t.s.tp, a = npn, b = tp, n, nodes, r;
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
	L->gpus = mcinit_xcalloc(cap * L->tp, sizeof *L->gpus);
	L->ids = mcinit_xcalloc(cap, sizeof *L->ids);
	for (n = 0; n < nodes; n++)
		for (r = n * npn; r < (n + 1) * npn && r < j->t.s.world; r++)
			layout_add(j, L, r, n, npn, cap);
	L->ptr = mcinit_xcalloc(L->n + 1, sizeof *L->ptr);
	L->len = mcinit_xcalloc(L->n + 1, sizeof *L->len);
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
node_warnings(struct job *j)
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
static void
node_setup(struct job *j)
{
	struct node *nd = &j->nd;
	struct loader *ld = &j->ld;
	struct mcinit_diag *g;
	long l, ngpus;

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
	nd->rank_gpu = mcinit_xcalloc((size_t)nd->nlocal + 1, sizeof *nd->rank_gpu);
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

static void
node_destroy(struct job *j)
{
	loader_wait(&j->ld);
	mcinit_affinity_free(j->ld.a);
	mcinit_affinity_free(j->nd.a);
	free(j->nd.rank_gpu);
}

/* One local rank's affinity as text cells: GPU index, bus id, NUMA nodes,
 * CPUs, NICs ("-" when none).  Read back from the JSON entry so that text
 * and JSON cannot disagree.  Caller frees each cell. */
enum { LR_GPU, LR_BUSID, LR_NUMA, LR_CPUS, LR_NICS, LR_NCOL };

static void
join_array(struct mcinit_buf *b, json_t *arr)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
	{
		if (i > 0)
			mcinit_buf_addc(b, ',');
		if (json_is_integer(v))
			mcinit_buf_printf(b, "%lld", (long long)json_integer_value(v));
		else
			mcinit_buf_adds(b, json_string_value(v));
	}
	if (json_array_size(arr) == 0)
		mcinit_buf_addc(b, '-');
}

static void
local_rank_cells(const struct node *nd, long l, char **cell)
{
	int gpu = node_gpu(nd, l);
	json_t *e = mcinit_affinity_entry_json(nd->a, (size_t)l, gpu);
	const char *busid = json_string_value(json_object_get(e, "gpu"));
	struct mcinit_buf b = {0};

	cell[LR_GPU] = gpu < 0 ? mcinit_xstrdup("-") : mcinit_xasprintf("%d", gpu);
	cell[LR_BUSID] = mcinit_xstrdup(busid ? busid : "-");
	join_array(&b, json_object_get(e, "numa"));
	cell[LR_NUMA] = mcinit_xstrdup(mcinit_buf_cstr(&b));
	b.len = 0;
	cell[LR_CPUS] = mcinit_xstrdup(json_string_value(json_object_get(e, "cpuset")));
	join_array(&b, json_object_get(e, "nics"));
	cell[LR_NICS] = mcinit_xstrdup(mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
	json_decref(e);
}

static void
free_cells(char **cell, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(cell[i]);
}

/* ---- JSON ---- */

/* Unchecked writes for the hot loop: the caller has asked out_room for enough. */
#define PUT_LIT(p, s) ((p) = (char *)memcpy((p), (s), sizeof(s) - 1) + sizeof(s) - 1)

/* v at p, unchecked.  Copies a fixed 24 bytes (a constant-size memcpy is a
 * couple of moves, a variable one a libc call): the caller's room must
 * cover 24 bytes past p, of which only the digits are kept. */
static inline char *
put_num(char *p, long long v)
{
	char tmp[48] = {0}, *end = tmp + 24, *q; /* zeroed: no uninitialised bytes copied */

	q = mcinit_utoa_rev(end, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
	if (v < 0)
		*--q = '-';
	memcpy(p, q, 24);
	return p + (end - q);
}

/* Room for one rank entry: its keys, 13 numbers of at most 20 digits and a
 * sign, put_num's 24-byte copies and the separator after the entry. */
#define RANK_ROOM 512

/* One entry of "ranks", on its own line. */
static void
json_rank(struct out *w, const struct job *j, long r)
{
	struct mcinit_coords co;
	struct mcinit_seeds sd;
	char *p;

	mcinit_topo_coords(&j->t, r, &co);
	mcinit_topo_seeds(&j->t, r, j->seed, j->dp_random_init, &sd);
	out_room(w, RANK_ROOM);
	p = w->p;
	PUT_LIT(p, "{\"rank\":");
	p = put_num(p, r);
	if (j->pl.npn > 0) {
		PUT_LIT(p, ",\"node\":");
		p = put_num(p, r / j->pl.npn);
		PUT_LIT(p, ",\"local_rank\":");
		p = put_num(p, r % j->pl.npn);
	} else {
		PUT_LIT(p, ",\"node\":null,\"local_rank\":null");
	}
	PUT_LIT(p, ",\"tp\":");
	p = put_num(p, co.tp);
	PUT_LIT(p, ",\"cp\":");
	p = put_num(p, co.cp);
	PUT_LIT(p, ",\"dp\":");
	p = put_num(p, co.dp);
	PUT_LIT(p, ",\"pp\":");
	p = put_num(p, co.pp);
	PUT_LIT(p, ",\"ep\":");
	p = put_num(p, co.ep);
	PUT_LIT(p, ",\"etp\":");
	p = put_num(p, co.etp);
	PUT_LIT(p, ",\"edp\":");
	p = put_num(p, co.edp);
	PUT_LIT(p, ",\"seed\":");
	p = put_num(p, sd.base);
	PUT_LIT(p, ",\"model_parallel_seed\":");
	p = put_num(p, sd.model_parallel);
	PUT_LIT(p, ",\"expert_parallel_seed\":");
	p = put_num(p, sd.expert_parallel);
	PUT_LIT(p, "}");
	w->p = p;
}

static void
json_sizes(struct out *w, const struct job *j)
{
	const struct mcinit_topo *t = &j->t;

	out_printf(w,
	           "\"sizes\":{\"tp\":%ld,\"pp\":%ld,\"cp\":%ld,\"dp\":%ld,\"ep\":%ld,"
	           "\"etp\":%ld,\"edp\":%ld,\"vpp\":",
	           t->s.tp, t->s.pp, t->s.cp, t->dp, t->s.ep, t->s.etp, t->edp);
	if (j->vpp > 0)
		out_num(w, j->vpp);
	else
		OUT_LIT(w, "null");
	OUT_LIT(w, "}");
}

/* "affinity": one entry per local rank of a node (--rank: that rank's). */
static void
json_affinity(struct out *w, const struct job *j)
{
	const struct node *nd = &j->nd;
	long l = 0, hi = nd->a != NULL ? nd->nlocal : 0;

	if (j->o->rank >= 0 && hi > 0) {
		l = j->o->rank % node_npn(j);
		hi = l < hi ? l + 1 : l;
	}
	OUT_LIT(w, "\n\"affinity\":[");
	for (; l < hi; l++) {
		json_t *e = mcinit_affinity_entry_json(nd->a, (size_t)l, node_gpu(nd, l));
		char *text = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER);

		OUT_LIT(w, "\n");
		out_str(w, text ? text : "null");
		if (l + 1 < hi)
			OUT_LIT(w, ",");
		free(text);
		json_decref(e);
	}
	OUT_LIT(w, "],");
}

/* The node's topology is read while the ranks stream out (loader_start);
 * its warnings join the diagnostics, which come last. */
static int
emit_json(struct job *j)
{
	struct mcinit_err err = {0};
	struct out w;
	json_t *diags;
	char *dtext;
	long r, lo = 0, hi = j->t.s.world;
	int rc = 0;

	out_open(&w, stdout);
	out_printf(&w, "{\"world_size\":%ld,\"order\":\"%s\",\n", j->t.s.world,
	           mcinit_topo_order(&j->t));
	json_sizes(&w, j);
	OUT_LIT(&w, ",\n\"groups\":");
	out_flush(&w);
	if (mcinit_topo_json_groups_write(&j->t, j->kinds, stdout, &err) < 0)
		rc = -1;
	OUT_LIT(&w, ",\n\"ranks\":[\n");
	if (j->o->rank >= 0) {
		lo = j->o->rank;
		hi = lo + 1;
	}
	for (r = lo; r < hi; r++) {
		json_rank(&w, j, r);
		/* ",\n" between entries, "]," after the last (RANK_ROOM has room). */
		*w.p++ = r + 1 < hi ? ',' : ']';
		*w.p++ = r + 1 < hi ? '\n' : ',';
	}
	if (lo == hi)
		OUT_LIT(&w, "],");
	node_setup(j);
	json_affinity(&w, j);
	mcinit_diags_sort(j->d);
	diags = mcinit_diags_to_json(j->d);
	dtext = json_dumps(diags, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(diags);
	OUT_LIT(&w, "\n\"diagnostics\":");
	out_str(&w, dtext ? dtext : "[]");
	OUT_LIT(&w, "}\n");
	if (dtext == NULL)
		rc = -1;
	free(dtext);
	if (out_close(&w) < 0)
		rc = -1;
	return rc;
}

/* ---- text ---- */

/* The dimensions of one grid in the order string (fastest first). */
static void
text_grid(struct out *w, const struct mcinit_topo *t, int expert)
{
	const struct mcinit_topo_grid *g = expert ? &t->expert : &t->dense;
	static const char *const dense_names[MCINIT_DIM_COUNT] = {"tp", "cp", "ep", "dp", "pp"};
	static const char *const expert_names[MCINIT_DIM_COUNT] = {"etp", "cp", "ep", "edp", "pp"};
	int i, first = 1;

	out_printf(w, "  %-7s", expert ? "expert:" : "dense:");
	for (i = 0; i < MCINIT_DIM_COUNT; i++) {
		int d = t->order[i];

		/* The dense grid has no ep and the expert grid no cp (both 1). */
		if (d == (expert ? MCINIT_DIM_CP : MCINIT_DIM_EP))
			continue;
		out_printf(w, "%s%s %ld", first ? " " : " x ",
		           (expert ? expert_names : dense_names)[d], g->size[d]);
		first = 0;
	}
	OUT_LIT(w, "\n");
}

static void
text_summary(struct out *w, const struct job *j)
{
	const struct mcinit_topo *t = &j->t;

	out_printf(w, "topology: %ld ranks (world size from %s), order %s (first fastest)\n",
	           t->s.world, j->dv->world_size_source, mcinit_topo_order(t));
	text_grid(w, t, 0);
	text_grid(w, t, 1);
	if (j->vpp > 0)
		out_printf(w, "  virtual pipeline: %lld chunks per pipeline rank\n", j->vpp);
	else
		OUT_LIT(w, "  virtual pipeline: none\n");
	out_printf(w, "  seeds: seed %lld, data_parallel_random_init %s\n", j->seed,
	           j->dp_random_init ? "true" : "false");
	out_flush(w);
	mcinit_derived_print(j->dv, stdout);
}

/* How a kind's groups sit on nodes (members of a group ascend, so the nodes
 * a group touches are counted by the changes of node along it). */
struct spread {
	long inside; /* groups within one node */
	long max_nodes;
};

static int
kind_spread(const struct job *j, enum mcinit_group_kind k, struct spread *sp)
{
	struct mcinit_groups g;
	struct mcinit_err err = {0};
	long i, m, npn = j->pl.npn;

	if (mcinit_topo_groups(&j->t, k, &g, &err) < 0)
		return -1;
	sp->inside = 0;
	sp->max_nodes = 0;
	for (i = 0; i < g.ngroups; i++) {
		const long *v = g.members + i * g.size;
		long nodes = 1;

		for (m = 1; m < g.size; m++)
			nodes += v[m] / npn != v[m - 1] / npn;
		sp->inside += nodes == 1;
		if (nodes > sp->max_nodes)
			sp->max_nodes = nodes;
	}
	mcinit_groups_destroy(&g);
	return 0;
}

static int
text_placement(struct out *w, const struct job *j)
{
	struct spread sp;
	long ng, sz;
	int k;

	if (j->pl.npn == 0) {
		OUT_LIT(w, "\nplacement: unknown (give --nproc-per-node, or --nnodes)\n");
		return 0;
	}
	out_printf(w,
	           "\nplacement: %ld node%s x %ld ranks (%s); node = rank / %ld, local rank = "
	           "rank %% %ld\n",
	           j->pl.nnodes, j->pl.nnodes == 1 ? "" : "s", j->pl.npn, j->pl.source, j->pl.npn,
	           j->pl.npn);
	out_printf(w, "  %-9s %8s %6s  %s\n", "kind", "groups", "size", "where");
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		if (!(j->kinds & MCINIT_GROUP_BIT(k)))
			continue;
		if (kind_spread(j, k, &sp) < 0)
			return -1;
		mcinit_topo_group_shape(&j->t, k, &ng, &sz);
		out_printf(w, "  %-9s %8ld %6ld  ", mcinit_group_kind_name(k), ng, sz);
		if (sp.inside == ng)
			OUT_LIT(w, "inside a node\n");
		else if (sp.inside == 0)
			out_printf(w, "spans nodes (up to %ld per group)\n", sp.max_nodes);
		else
			out_printf(w, "%ld of %ld groups span nodes (up to %ld per group)\n",
			           ng - sp.inside, ng, sp.max_nodes);
	}
	return 0;
}

/* A group in text form, "[0..3,8..11]" (runs of three or more consecutive
 * ranks shortened), written to w; returns its width.  w NULL only measures. */
static long
group_text(struct out *w, const long *v, long n)
{
	long i = 0, e, len = 2;

	if (w)
		OUT_LIT(w, "[");
	while (i < n) {
		for (e = i; e + 1 < n && v[e + 1] == v[e] + 1; e++)
			;
		len += (i > 0) + num_width(v[i]);
		if (w) {
			if (i > 0)
				OUT_LIT(w, ",");
			out_num(w, v[i]);
		}
		if (e > i) {
			const char *sep = e - i >= 2 ? ".." : ",";

			len += (long)strlen(sep) + num_width(v[e]);
			if (w) {
				out_str(w, sep);
				out_num(w, v[e]);
			}
		}
		i = e + 1;
	}
	if (w)
		OUT_LIT(w, "]");
	return len;
}

/* Groups separated by spaces, wrapped before TEXT_WIDTH columns. */
static void
text_kind_groups(struct out *w, const struct mcinit_groups *g)
{
	long i, col = 0;

	for (i = 0; i < g->ngroups; i++) {
		const long *v = g->members + i * g->size;
		long len = group_text(NULL, v, g->size);

		if (col > 0 && col + 1 + len > TEXT_WIDTH) {
			OUT_LIT(w, "\n");
			col = 0;
		}
		if (col == 0) {
			OUT_LIT(w, "    ");
			col = 4;
		} else {
			OUT_LIT(w, " ");
			col++;
		}
		group_text(w, v, g->size);
		col += len;
	}
	if (col > 0)
		OUT_LIT(w, "\n");
}

static int
text_groups(struct out *w, const struct job *j)
{
	struct mcinit_err err = {0};
	struct mcinit_groups g;
	int k;

	OUT_LIT(w, "\ngroups (in the order Megatron-Core creates them):\n");
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		if (!(j->kinds & MCINIT_GROUP_BIT(k)))
			continue;
		if (mcinit_topo_groups(&j->t, k, &g, &err) < 0)
			return -1;
		out_printf(w, "  %s: %ld group%s of %ld (%s grid, %s)\n", mcinit_group_kind_name(k),
		           g.ngroups, g.ngroups == 1 ? "" : "s", g.size,
		           mcinit_group_kind_is_expert(k) ? "expert" : "dense",
		           mcinit_group_kind_token(k));
		text_kind_groups(w, &g);
		mcinit_groups_destroy(&g);
	}
	return 0;
}

enum {
	COL_RANK,
	COL_NODE,
	COL_LOCAL,
	COL_TP,
	COL_CP,
	COL_DP,
	COL_PP,
	COL_ETP,
	COL_EP,
	COL_EDP,
	COL_SEED,
	COL_MPSEED,
	COL_EPSEED,
	NCOL
};

static const char *const col_names[NCOL] = {"rank", "node",    "local",  "tp", "cp",
                                            "dp",   "pp",      "etp",    "ep", "edp",
                                            "seed", "tp-seed", "ep-seed"};

/* The row of rank r; node and local rank are -1 when placement is unknown. */
static void
rank_row(const struct job *j, long r, long long *row)
{
	struct mcinit_coords co;
	struct mcinit_seeds sd;

	mcinit_topo_coords(&j->t, r, &co);
	mcinit_topo_seeds(&j->t, r, j->seed, j->dp_random_init, &sd);
	row[COL_RANK] = r;
	row[COL_NODE] = j->pl.npn ? r / j->pl.npn : -1;
	row[COL_LOCAL] = j->pl.npn ? r % j->pl.npn : -1;
	row[COL_TP] = co.tp;
	row[COL_CP] = co.cp;
	row[COL_DP] = co.dp;
	row[COL_PP] = co.pp;
	row[COL_ETP] = co.etp;
	row[COL_EP] = co.ep;
	row[COL_EDP] = co.edp;
	row[COL_SEED] = sd.base;
	row[COL_MPSEED] = sd.model_parallel;
	row[COL_EPSEED] = sd.expert_parallel;
}

static void
text_rank_table(struct out *w, const struct job *j)
{
	long long row[NCOL];
	int width[NCOL], c;
	long r;

	for (c = 0; c < NCOL; c++)
		width[c] = (int)strlen(col_names[c]);
	for (r = 0; r < j->t.s.world; r++) {
		rank_row(j, r, row);
		for (c = 0; c < NCOL; c++)
			if (num_width(row[c]) > width[c])
				width[c] = num_width(row[c]);
	}
	OUT_LIT(w, "\nranks (tp-seed: tensor-parallel CUDA seed, ep-seed: expert-parallel CUDA "
	           "seed):\n ");
	for (c = 0; c < NCOL; c++)
		out_printf(w, " %*s", width[c], col_names[c]);
	OUT_LIT(w, "\n");
	for (r = 0; r < j->t.s.world; r++) {
		rank_row(j, r, row);
		out_room(w, 32);
		*w->p++ = ' ';
		for (c = 0; c < NCOL; c++) {
			OUT_LIT(w, " ");
			if ((c == COL_NODE || c == COL_LOCAL) && row[c] < 0)
				out_printf(w, "%*s", width[c], "-");
			else
				out_num_w(w, row[c], width[c]);
		}
		OUT_LIT(w, "\n");
	}
}

/* A group's members, for one rank: generates the kind (O(W)) and slices it. */
static int
text_rank_group(struct out *w, const struct job *j, enum mcinit_group_kind k)
{
	struct mcinit_err err = {0};
	struct mcinit_groups g;
	long color, key;

	out_printf(w, "    %-9s", mcinit_group_kind_name(k));
	if (mcinit_topo_group_of(&j->t, k, j->o->rank, &color, &key) != 0) {
		OUT_LIT(w, "not a member\n");
		return 0;
	}
	if (mcinit_topo_groups(&j->t, k, &g, &err) < 0)
		return -1;
	out_printf(w, "group %ld of %ld, position %ld: ", color, g.ngroups, key);
	group_text(w, g.members + color * g.size, g.size);
	OUT_LIT(w, "\n");
	mcinit_groups_destroy(&g);
	return 0;
}

static int
text_rank(struct out *w, const struct job *j)
{
	long long row[NCOL];
	int k;

	rank_row(j, j->o->rank, row);
	out_printf(w, "\nrank %ld:", j->o->rank);
	if (j->pl.npn)
		out_printf(w, " node %lld, local rank %lld\n", row[COL_NODE], row[COL_LOCAL]);
	else
		OUT_LIT(w, " node unknown (give --nproc-per-node)\n");
	out_printf(w, "  dense:  tp %lld, cp %lld, dp %lld, pp %lld\n", row[COL_TP], row[COL_CP],
	           row[COL_DP], row[COL_PP]);
	out_printf(w, "  expert: etp %lld, ep %lld, edp %lld, pp %lld\n", row[COL_ETP], row[COL_EP],
	           row[COL_EDP], row[COL_PP]);
	out_printf(w,
	           "  seeds:  %lld (torch, numpy, data-parallel), tensor-parallel %lld, "
	           "expert-parallel %lld\n",
	           row[COL_SEED], row[COL_MPSEED], row[COL_EPSEED]);
	OUT_LIT(w, "  groups (index and position from 0):\n");
	for (k = 0; k < MCINIT_GROUP_COUNT; k++)
		if ((j->kinds & MCINIT_GROUP_BIT(k)) && text_rank_group(w, j, k) < 0)
			return -1;
	return 0;
}

/* text with each non-empty line indented */
static void
out_indented(struct out *w, const char *text, const char *indent)
{
	const char *p = text, *nl;

	while (*p != '\0') {
		nl = strchrnul(p, '\n');
		if (nl > p) {
			out_str(w, indent);
			out_mem(w, p, (size_t)(nl - p));
		}
		if (*nl == '\n') {
			OUT_LIT(w, "\n");
			nl++;
		}
		p = nl;
	}
}

/* How local ranks were matched to GPUs, in words. */
static const char *
node_mapping(const struct node *nd)
{
	if (nd->external)
		return "every rank uses device 0 (dist.external_gpu_device_mapping)";
	return "local rank i drives GPU i";
}

static void
text_local_ranks(struct out *w, const struct job *j)
{
	static const char *const head[LR_NCOL] = {"GPU", "bus id", "NUMA", "CPUs", "NICs"};
	const struct node *nd = &j->nd;
	long n = nd->nlocal, l;
	char **cells;
	int width[LR_NCOL], c, lw = (int)strlen("local");

	if (nd->guessed)
		out_printf(w, "\n  local ranks: placement unknown, so one per GPU (%ld); %s:\n", n,
		           node_mapping(nd));
	else
		out_printf(w, "\n  local ranks (%ld per node; %s):\n", n, node_mapping(nd));
	if (n == 0) {
		OUT_LIT(w, "    none (give --nproc-per-node)\n");
		return;
	}
	if (n > TABLE_MAX_RANKS && !j->o->all) {
		out_printf(w, "    (left out for %ld local ranks; --all prints them)\n", n);
		return;
	}
	cells = mcinit_xcalloc((size_t)n * LR_NCOL, sizeof *cells);
	for (c = 0; c < LR_NCOL; c++)
		width[c] = (int)strlen(head[c]);
	for (l = 0; l < n; l++) {
		local_rank_cells(nd, l, cells + l * LR_NCOL);
		for (c = 0; c < LR_NCOL; c++)
			if ((int)strlen(cells[l * LR_NCOL + c]) > width[c])
				width[c] = (int)strlen(cells[l * LR_NCOL + c]);
	}
	if (num_width(n - 1) > lw)
		lw = num_width(n - 1);
	out_printf(w, "    %*s  %*s  %-*s  %-*s  %-*s  %s\n", lw, "local", width[LR_GPU],
	           head[LR_GPU], width[LR_BUSID], head[LR_BUSID], width[LR_NUMA], head[LR_NUMA],
	           width[LR_CPUS], head[LR_CPUS], head[LR_NICS]);
	for (l = 0; l < n; l++) {
		char **cl = cells + l * LR_NCOL;

		out_printf(w, "    %*ld  %*s  %-*s  %-*s  %-*s  %s\n", lw, l, width[LR_GPU],
		           cl[LR_GPU], width[LR_BUSID], cl[LR_BUSID], width[LR_NUMA], cl[LR_NUMA],
		           width[LR_CPUS], cl[LR_CPUS], cl[LR_NICS]);
		free_cells(cl, LR_NCOL);
	}
	free(cells);
}

/* The node: CPUs and NUMA nodes, GPUs, NICs, the link matrix, and each
 * local rank's share of it. */
static void
text_affinity(struct out *w, const struct job *j)
{
	const struct mcinit_affinity *a = j->nd.a;
	struct mcinit_buf b = {0};

	OUT_LIT(w, "\naffinity (from hwloc; every node is taken to look like this one):\n");
	if (a == NULL) {
		OUT_LIT(w, "  unknown: this machine's topology cannot be read (see MC054)\n");
		return;
	}
	mcinit_affinity_summary_text(a, &b);
	out_indented(w, mcinit_buf_cstr(&b), "  ");
	if (mcinit_affinity_ngpus(a) == 0) {
		out_printf(w, "  no NVIDIA GPUs found %s%s\n", j->ld.file ? "in " : "on ",
		           mcinit_affinity_source(a));
	} else {
		b.len = 0;
		mcinit_affinity_matrix_text(a, &b);
		OUT_LIT(w, "\n");
		out_indented(w, mcinit_buf_cstr(&b), "  ");
		if (!mcinit_affinity_nvlink_known(a))
			OUT_LIT(w,
			        "  (NVLinks unknown: this machine's hwloc has no NVML support, so "
			        "GPU pairs show their PCIe path)\n");
	}
	mcinit_buf_free(&b);
	text_local_ranks(w, j);
}

/* One rank's GPU, CPUs, NUMA node and NICs. */
static void
text_rank_affinity(struct out *w, const struct job *j)
{
	const struct node *nd = &j->nd;
	const struct mcinit_affinity_gpu *g;
	char *cell[LR_NCOL];
	long l;

	OUT_LIT(w, "  affinity: ");
	if (nd->a == NULL || nd->nlocal == 0) {
		out_printf(w, "unknown (%s)\n",
		           nd->a == NULL ? "this machine's topology cannot be read"
		                         : "give --nproc-per-node");
		return;
	}
	l = j->o->rank % node_npn(j);
	local_rank_cells(nd, l, cell);
	g = mcinit_affinity_gpu(nd->a, (size_t)node_gpu(nd, l));
	if (g != NULL)
		out_printf(w, "GPU %s (%s, %s)", cell[LR_GPU], cell[LR_BUSID],
		           g->model ? g->model : "unknown model");
	else
		out_printf(w, "no GPU (%s has %zu)", mcinit_affinity_source(nd->a),
		           mcinit_affinity_ngpus(nd->a));
	out_printf(w, ", NUMA %s, CPUs %s, NICs %s%s\n", cell[LR_NUMA], cell[LR_CPUS],
	           cell[LR_NICS],
	           nd->guessed ? " (placement unknown: one rank per GPU assumed)" : "");
	free_cells(cell, LR_NCOL);
}

static int
emit_text(struct job *j)
{
	const struct topts *o = j->o;
	struct out w;
	int rc = 0;

	node_setup(j);
	mcinit_diags_sort(j->d);
	mcinit_diags_print(j->d, stderr, mcinit_want_color(stderr));
	mcinit_print_summary(j->d, stderr);
	out_open(&w, stdout);
	text_summary(&w, j);
	if (o->rank >= 0) {
		rc = text_rank(&w, j);
		if (rc == 0)
			text_rank_affinity(&w, j);
	} else {
		rc = text_placement(&w, j);
		if (rc == 0)
			rc = text_groups(&w, j);
		if (rc == 0 && (o->all || (o->kind < 0 && j->t.s.world <= TABLE_MAX_RANKS)))
			text_rank_table(&w, j);
		else if (rc == 0 && o->kind < 0)
			out_printf(&w,
			           "\n(per-rank table left out for %ld ranks; --all prints it)\n",
			           j->t.s.world);
		if (rc == 0 && o->kind < 0)
			text_affinity(&w, j);
	}
	if (out_close(&w) < 0)
		rc = -1;
	return rc;
}

/* ---- SVG ---- */

/* Slot of local rank l: its GPU, else (more ranks than GPUs, or none) a
 * slot of its own after the GPUs, labelled "no GPU". */
static long
svg_slot(const struct node *nd, long l)
{
	int g = node_gpu(nd, l);

	return g >= 0 ? g : l;
}

/* Fills the drawn nodes' slots: ranks grouped by slot, with their TP group
 * and pipeline stage; each slot's NUMA node and NICs from its GPU. */
static void
svg_fill(const struct job *j, long npn, long nslots, long ndraw, struct mcinit_svg_slot *slots,
         struct mcinit_svg_rank *ranks)
{
	const struct node *nd = &j->nd;
	long n, s, l, k = 0;

	for (n = 0; n < ndraw; n++)
		for (s = 0; s < nslots; s++) {
			struct mcinit_svg_slot *sl = &slots[n * nslots + s];
			const struct mcinit_affinity_gpu *g =
			    nd->a ? mcinit_affinity_gpu(nd->a, (size_t)s) : NULL;

			sl->ranks = &ranks[k];
			sl->numa = g != NULL && g->nnuma > 0 ? (int)g->numa[0] : -1;
			sl->nics = g != NULL ? (const char *const *)g->nics : NULL;
			sl->nnics = g != NULL ? g->nnics : 0;
			sl->label = g != NULL ? NULL : "no GPU";
			for (l = 0; l < npn && n * npn + l < j->t.s.world; l++) {
				struct mcinit_coords co;
				long r = n * npn + l, color = -1, key;

				if (svg_slot(nd, l) != s)
					continue;
				mcinit_topo_coords(&j->t, r, &co);
				mcinit_topo_group_of(&j->t, MCINIT_GROUP_TP, r, &color, &key);
				ranks[k].rank = r;
				ranks[k].tp_group = color <= INT_MAX ? (int)color : -1;
				ranks[k].pp_stage = co.pp <= INT_MAX ? (int)co.pp : -1;
				k++;
				sl->nranks++;
			}
		}
}

/* A picture for a wiki page names the node file, not where it lay. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

/* 0, -1 when the output cannot be written, 1 when there is nothing to
 * draw (message printed). */
static int
emit_svg(struct job *j)
{
	const struct node *nd;
	struct mcinit_svg_input in = {0};
	struct mcinit_svg_slot *slots;
	struct mcinit_svg_rank *ranks;
	struct mcinit_buf b = {0};
	struct mcinit_err err = {0};
	long npn, nnodes, ndraw, nslots, l;
	char *title, *sub;
	int rc = 0;

	node_setup(j);
	nd = &j->nd;
	mcinit_diags_sort(j->d);
	mcinit_diags_print(j->d, stderr, mcinit_want_color(stderr));
	mcinit_print_summary(j->d, stderr);
	npn = node_npn(j);
	if (npn <= 0) {
		fprintf(stderr,
		        "mcinit topology: --format=svg: the placement is unknown and %s "
		        "has no GPUs to guess it from: give --nproc-per-node\n",
		        nd->a ? mcinit_affinity_source(nd->a) : "this machine");
		return 1;
	}
	nnodes = (j->t.s.world + npn - 1) / npn;
	ndraw = nnodes <= MCINIT_SVG_MAX_NODES ? nnodes : MCINIT_SVG_SUMMARY_NODES;
	nslots = nd->a ? (long)mcinit_affinity_ngpus(nd->a) : 0;
	for (l = 0; l < npn && l < j->t.s.world; l++)
		if (svg_slot(nd, l) + 1 > nslots)
			nslots = svg_slot(nd, l) + 1;
	slots = mcinit_xcalloc((size_t)(ndraw * nslots), sizeof *slots);
	ranks = mcinit_xcalloc((size_t)(ndraw * npn), sizeof *ranks);
	svg_fill(j, npn, nslots, ndraw, slots, ranks);
	title = mcinit_xasprintf("mcinit topology: %ld ranks on %ld node%s", j->t.s.world, nnodes,
	                         nnodes == 1 ? "" : "s");
	sub = mcinit_xasprintf("TP %ld, CP %ld, PP %ld, DP %ld, EP %ld; %ld ranks per node%s; "
	                       "node: %s",
	                       j->t.s.tp, j->t.s.cp, j->t.s.pp, j->t.dp, j->t.s.ep, npn,
	                       j->pl.npn > 0 ? "" : " (one per GPU: placement unknown)",
	                       nd->a ? base_name(mcinit_affinity_source(nd->a)) : "unknown");
	in.title = title;
	in.subtitle = sub;
	in.nnodes = (size_t)nnodes;
	in.gpus_per_node = (size_t)nslots;
	in.slots = slots;
	if (mcinit_svg_render(&in, &b, &err) < 0) {
		fprintf(stderr, "mcinit topology: %s\n", err.msg);
		rc = 1;
	} else if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) {
		rc = -1;
	}
	mcinit_buf_free(&b);
	free(title);
	free(sub);
	free(ranks);
	free(slots);
	return rc;
}

/* ---- the command ---- */

/* Diagnostics of a job that cannot be laid out, as validate reports them. */
static int
emit_invalid(const struct topts *o, const struct mcinit_derived *dv, const struct mcinit_diags *d)
{
	int rc = 0;

	if (o->cli.format == MCINIT_FMT_JSON) {
		json_t *out = json_object();

		json_object_set_new(out, "valid", json_false());
		json_object_set_new(out, "diagnostics", mcinit_diags_to_json(d));
		json_object_set_new(out, "derived", mcinit_derived_to_json(dv));
		rc = mcinit_print_json(out, stdout);
		json_decref(out);
		return rc;
	}
	mcinit_diags_print(d, stderr, mcinit_want_color(stderr));
	mcinit_print_summary(d, stderr);
	return rc;
}

static void
job_fill(struct job *j, const struct mcinit_config *c)
{
	j->kinds = j->o->kind >= 0 ? MCINIT_GROUP_BIT(j->o->kind) : MCINIT_GROUP_ALL;
	j->seed = mcinit_cfg_int(c, MCINIT_F_seed);
	j->dp_random_init = mcinit_cfg_bool(c, MCINIT_F_data_parallel_random_init);
	j->vpp = j->dv->vpp_ok ? j->dv->vpp : 0;
	job_placement(&j->pl, &j->o->cli, c, j->t.s.world);
	j->tp_loc = c->origin[MCINIT_F_tensor_model_parallel_size] == MCINIT_ORIG_DEFAULT
	                ? NULL
	                : &c->loc[MCINIT_F_tensor_model_parallel_size];
	j->nd.external = mcinit_cfg_bool(c, MCINIT_F_external_gpu_device_mapping);
}

int
mcinit_cmd_topology(int argc, char **argv, int argi0)
{
	struct topts o = {.rank = -1, .kind = -1};
	struct mcinit_config c;
	struct mcinit_diags d;
	struct mcinit_derived dv;
	struct mcinit_err err = {0};
	struct job j = {0};
	int status = EX_SOFTWARE, n;

	mcinit_cli_init(&o.cli, argi0, MCINIT_FMT_TEXT | MCINIT_FMT_JSON | MCINIT_FMT_SVG);
	n = mcinit_cli_split(&o.cli, argc, argv);
	argp_parse(&argp, n, argv, 0, NULL, &o);
	mcinit_config_init(&c, o.cli.mversion);
	mcinit_diags_init(&d);
	j.o = &o;
	j.dv = &dv;
	j.d = &d;
	if (mcinit_job_load(&o.cli, &c, &d, &err) < 0 ||
	    mcinit_check(&c, &o.cli.check, &dv, &d, &err) < 0) {
		mcinit_diags_sort(&d);
		mcinit_diags_print(&d, stderr, mcinit_want_color(stderr));
		fprintf(stderr, "mcinit: %s\n", err.msg);
		status = err.code ? err.code : EX_SOFTWARE;
		goto out;
	}
	if (mcinit_diags_count(&d, MCINIT_ERROR) == 0 && job_topo(&j, &c, &d, &err) < 0) {
		fprintf(stderr, "mcinit: %s\n", err.msg);
		status = err.code;
		goto out;
	}
	if (mcinit_diags_count(&d, MCINIT_ERROR) > 0) {
		mcinit_diags_sort(&d);
		status = emit_invalid(&o, &dv, &d) < 0 ? EX_IOERR : 1;
		goto out;
	}
	mcinit_diags_sort(&d);
	if (o.rank >= j.t.s.world) {
		fprintf(stderr, "mcinit topology: --rank %ld: the world has %ld ranks (0 to %ld)\n",
		        o.rank, j.t.s.world, j.t.s.world - 1);
		status = EX_USAGE;
		goto out;
	}
	job_fill(&j, &c);
	loader_start(&j.ld, o.hwloc_xml, o.cli.format == MCINIT_FMT_JSON);
	if (j.ld.file && !j.ld.running && j.ld.a == NULL) {
		fprintf(stderr, "mcinit topology: %s%s\n", j.ld.err.msg,
		        o.hwloc_xml ? "" : " (the file $HWLOC_XMLFILE names)");
		status = j.ld.err.code;
		goto out;
	}
	n = o.cli.format == MCINIT_FMT_JSON  ? emit_json(&j)
	    : o.cli.format == MCINIT_FMT_SVG ? emit_svg(&j)
	                                     : emit_text(&j);
	if (n < 0) {
		fprintf(stderr, "mcinit: cannot write output\n");
		status = EX_IOERR;
		goto out;
	}
	status = n > 0 ? EX_USAGE : 0;
out:
	node_destroy(&j);
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
	mcinit_cli_destroy(&o.cli);
	return status;
}
