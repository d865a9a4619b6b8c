/*
 * topo-text.c — `mcinit topology` as text: a summary, where each group kind
 * lies, the groups, a per-rank table or one rank in full, and the node's
 * affinity.
 */
#include "topo-out.h"

#include <stdlib.h>
#include <string.h>

/* Above this many ranks the text per-rank table is left out unless --all. */
#define TABLE_MAX_RANKS 64
#define TEXT_WIDTH      100
#define NAME_W          23 /* intra_dist_opt_instance */

/* A family's name: its kind, with the level for hcp ("hcp[1]"). */
static const char *
fam_name(const struct mcinit_topo *t, int f, char *buf)
{
	const struct mcinit_topo_fam *fm = &t->fam[f];

	if (fm->kind != MCINIT_GROUP_HCP)
		return mcinit_group_kind_name(fm->kind);
	snprintf(buf, 40, "hcp[%d]", fm->level);
	return buf;
}

/* One local rank's affinity as text cells: GPU index, bus id, NUMA nodes,
 * CPUs, NICs ("-" when none).  Read back from the JSON entry so that text
 * and JSON cannot disagree.  Caller frees each cell. */
enum { LR_GPU, LR_BUSID, LR_NUMA, LR_CPUS, LR_NICS, LR_NCOL };

static void
join_array(struct mcx_buf *b, json_t *arr)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
	{
		if (i > 0)
			mcx_buf_addc(b, ',');
		if (json_is_integer(v))
			mcx_buf_printf(b, "%lld", (long long)json_integer_value(v));
		else
			mcx_buf_adds(b, json_string_value(v));
	}
	if (json_array_size(arr) == 0)
		mcx_buf_addc(b, '-');
}

static void
local_rank_cells(const struct node *nd, long l, char **cell)
{
	int gpu = mcinit_node_gpu(nd, l);
	json_t *e = mcinit_affinity_entry_json(nd->a, (size_t)l, gpu);
	const char *busid = json_string_value(json_object_get(e, "gpu"));
	struct mcx_buf b = {0};

	cell[LR_GPU] = gpu < 0 ? mcx_xstrdup("-") : mcx_xasprintf("%d", gpu);
	cell[LR_BUSID] = mcx_xstrdup(busid ? busid : "-");
	join_array(&b, json_object_get(e, "numa"));
	cell[LR_NUMA] = mcx_xstrdup(mcx_buf_cstr(&b));
	b.len = 0;
	cell[LR_CPUS] = mcx_xstrdup(json_string_value(json_object_get(e, "cpuset")));
	join_array(&b, json_object_get(e, "nics"));
	cell[LR_NICS] = mcx_xstrdup(mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	json_decref(e);
}

static void
free_cells(char **cell, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(cell[i]);
}

/* The dimensions of one grid in the order string (fastest first). */
static void
text_grid(struct out *w, const struct mcinit_topo *t, int expert)
{
	const struct mcinit_topo_grid *g = expert ? &t->expert : &t->dense;
	static const char *const dense_names[MCINIT_DIM_COUNT] = {"tp", "gtp_remat", "cp",
	                                                          "ep", "dp",        "pp"};
	static const char *const expert_names[MCINIT_DIM_COUNT] = {"etp", "gtp_remat", "cp",
	                                                           "ep",  "edp",       "pp"};
	int i, first = 1;

	mcinit_out_printf(w, "  %-7s", expert ? "expert:" : "dense:");
	for (i = 0; i < MCINIT_DIM_COUNT; i++) {
		int d = g->order[i];

		/* The dense grid has no ep and the expert grid no cp (both 1); no
		 * release before r0.19 has the gtp_remat axis. */
		if (d == (expert ? MCINIT_DIM_CP : MCINIT_DIM_EP) ||
		    (d == MCINIT_DIM_GTP && !(t->s.features & MCINIT_TOPO_F_GTP)))
			continue;
		mcinit_out_printf(w, "%s%s %ld", first ? " " : " x ",
		                  (expert ? expert_names : dense_names)[d], g->size[d]);
		first = 0;
	}
	OUT_LIT(w, "\n");
}

static void
text_summary(struct out *w, const struct job *j)
{
	const struct mcinit_topo *t = &j->t;

	mcinit_out_printf(w, "topology: %ld ranks (world size from %s), order %s (first fastest)\n",
	                  t->s.world, j->dv->world_size_source, mcinit_topo_grid_order(t, 0));
	if (t->s.features & MCINIT_TOPO_F_GTP)
		mcinit_out_printf(w, "  expert order %s\n", mcinit_topo_grid_order(t, 1));
	text_grid(w, t, 0);
	text_grid(w, t, 1);
	if (j->vpp > 0)
		mcinit_out_printf(w, "  virtual pipeline: %lld chunks per pipeline rank\n", j->vpp);
	else
		OUT_LIT(w, "  virtual pipeline: none\n");
	mcinit_out_printf(w, "  seeds: seed %lld, data_parallel_random_init %s\n", j->seed,
	                  j->dp_random_init ? "true" : "false");
	mcinit_out_flush(w);
	mcinit_derived_print(j->dv, w->f);
}

/* How a family's groups sit on nodes (the nodes a group touches are counted
 * by the changes of node along it: exact when its members ascend, as most
 * do; an upper bound for the others). */
struct spread {
	long inside; /* groups within one node */
	long max_nodes;
};

static int
fam_spread(const struct job *j, int f, struct spread *sp)
{
	struct mcinit_groups g;
	struct mcinit_err err = {0};
	long i, m, npn = j->pl.npn;

	if (mcinit_topo_fam_groups(&j->t, f, &g, &err) < 0)
		return -1;
	sp->inside = 0;
	sp->max_nodes = 0;
	for (i = 0; i < g.ngroups; i++) {
		const int32_t *v = g.members + i * g.size;
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
	char name[40];
	long ng;
	int f;

	if (j->pl.npn == 0) {
		OUT_LIT(w, "\nplacement: unknown (give --nproc-per-node, or --nnodes)\n");
		return 0;
	}
	mcinit_out_printf(
	    w,
	    "\nplacement: %ld node%s x %ld ranks (%s); node = rank / %ld, local rank = "
	    "rank %% %ld\n",
	    j->pl.nnodes, j->pl.nnodes == 1 ? "" : "s", j->pl.npn, j->pl.source, j->pl.npn,
	    j->pl.npn);
	mcinit_out_printf(w, "  %-*s %8s %6s  %s\n", NAME_W, "kind", "groups", "size", "where");
	for (f = 0; f < j->t.nfam; f++) {
		if (!(j->kinds & MCINIT_GROUP_BIT(j->t.fam[f].kind)))
			continue;
		if (fam_spread(j, f, &sp) < 0)
			return -1;
		ng = j->t.fam[f].ngroups;
		mcinit_out_printf(w, "  %-*s %8ld %6ld  ", NAME_W, fam_name(&j->t, f, name), ng,
		                  j->t.fam[f].size);
		if (sp.inside == ng)
			OUT_LIT(w, "inside a node\n");
		else if (sp.inside == 0)
			mcinit_out_printf(w, "spans nodes (up to %ld per group)\n", sp.max_nodes);
		else
			mcinit_out_printf(w, "%ld of %ld groups span nodes (up to %ld per group)\n",
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
		len += (i > 0) + mcinit_num_width(v[i]);
		if (w) {
			if (i > 0)
				OUT_LIT(w, ",");
			out_num(w, v[i]);
		}
		if (e > i) {
			const char *sep = e - i >= 2 ? ".." : ",";

			len += (long)strlen(sep) + mcinit_num_width(v[e]);
			if (w) {
				mcinit_out_str(w, sep);
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
	long i, m, col = 0, *v = mcx_xmalloc((size_t)g->size * sizeof *v);

	for (i = 0; i < g->ngroups; i++) {
		long len;

		for (m = 0; m < g->size; m++) /* group_text also prints a long[] */
			v[m] = g->members[i * g->size + m];
		len = group_text(NULL, v, g->size);

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
	free(v);
}

static int
text_groups(struct out *w, const struct job *j)
{
	struct mcinit_err err = {0};
	struct mcinit_groups g;
	char name[40];
	int f;

	OUT_LIT(w, "\ngroups (kinds in the order Megatron-Core first creates them):\n");
	for (f = 0; f < j->t.nfam; f++) {
		enum mcinit_group_kind k = j->t.fam[f].kind;

		if (!(j->kinds & MCINIT_GROUP_BIT(k)))
			continue;
		if (mcinit_topo_fam_groups(&j->t, f, &g, &err) < 0)
			return -1;
		mcinit_out_printf(w, "  %s: %ld group%s of %ld (%s grid, %s)\n",
		                  fam_name(&j->t, f, name), g.ngroups, g.ngroups == 1 ? "" : "s",
		                  g.size, mcinit_group_kind_is_expert(k) ? "expert" : "dense",
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
	COL_GTP,
	COL_CP,
	COL_DP,
	COL_PP,
	COL_ETP,
	COL_EP,
	COL_EGTP,
	COL_EDP,
	COL_SEED,
	COL_MPSEED,
	COL_EPSEED,
	NCOL
};

static const char *const col_names[NCOL] = {"rank", "node", "local", "tp",      "gtp",
                                            "cp",   "dp",   "pp",    "etp",     "ep",
                                            "egtp", "edp",  "seed",  "tp-seed", "ep-seed"};

/* The row of rank r; node and local rank are -1 when placement is unknown. */
static void
rank_row(const struct job *j, long r, long long *row)
{
	struct mcinit_coords co;
	struct mcinit_seeds sd;

	mcinit_topo_coords(&j->t, r, &co);
	mcinit_topo_seeds_at(&co, j->seed, j->dp_random_init, &sd);
	row[COL_RANK] = r;
	row[COL_NODE] = j->pl.npn ? r / j->pl.npn : -1;
	row[COL_LOCAL] = j->pl.npn ? r % j->pl.npn : -1;
	row[COL_TP] = co.tp;
	row[COL_GTP] = co.gtp;
	row[COL_CP] = co.cp;
	row[COL_DP] = co.dp;
	row[COL_PP] = co.pp;
	row[COL_ETP] = co.etp;
	row[COL_EP] = co.ep;
	row[COL_EGTP] = co.egtp;
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

	/* A width of 0 leaves the column out: the gtp_remat coordinates before r0.19. */
	for (c = 0; c < NCOL; c++)
		width[c] = (int)strlen(col_names[c]);
	if (!(j->t.s.features & MCINIT_TOPO_F_GTP))
		width[COL_GTP] = width[COL_EGTP] = 0;
	for (r = 0; r < j->t.s.world; r++) {
		rank_row(j, r, row);
		for (c = 0; c < NCOL; c++)
			if (width[c] > 0 && mcinit_num_width(row[c]) > width[c])
				width[c] = mcinit_num_width(row[c]);
	}
	OUT_LIT(w, "\nranks (tp-seed: tensor-parallel CUDA seed, ep-seed: expert-parallel CUDA "
	           "seed):\n ");
	for (c = 0; c < NCOL; c++)
		if (width[c] > 0)
			mcinit_out_printf(w, " %*s", width[c], col_names[c]);
	OUT_LIT(w, "\n");
	for (r = 0; r < j->t.s.world; r++) {
		rank_row(j, r, row);
		out_room(w, 32);
		*w->p++ = ' ';
		for (c = 0; c < NCOL; c++) {
			if (width[c] == 0)
				continue;
			OUT_LIT(w, " ");
			if ((c == COL_NODE || c == COL_LOCAL) && row[c] < 0)
				mcinit_out_printf(w, "%*s", width[c], "-");
			else
				out_num_w(w, row[c], width[c]);
		}
		OUT_LIT(w, "\n");
	}
}

/* A group's members, for one rank. */
static int
text_rank_group(struct out *w, const struct job *j, int f)
{
	const struct mcinit_topo_fam *fm = &j->t.fam[f];
	long color, key, *v;
	char name[40];

	mcinit_out_printf(w, "    %-*s ", NAME_W, fam_name(&j->t, f, name));
	if (mcinit_topo_fam_group_of(&j->t, f, j->o->rank, &color, &key) != 0) {
		OUT_LIT(w, "not a member\n");
		return 0;
	}
	v = mcx_xmalloc((size_t)fm->size * sizeof *v);
	mcinit_topo_fam_group(&j->t, f, color, v);
	mcinit_out_printf(w, "group %ld of %ld, position %ld: ", color, fm->ngroups, key);
	group_text(w, v, fm->size);
	OUT_LIT(w, "\n");
	free(v);
	return 0;
}

static int
text_rank(struct out *w, const struct job *j)
{
	long long row[NCOL];
	int f;

	rank_row(j, j->o->rank, row);
	mcinit_out_printf(w, "\nrank %ld:", j->o->rank);
	if (j->pl.npn)
		mcinit_out_printf(w, " node %lld, local rank %lld\n", row[COL_NODE],
		                  row[COL_LOCAL]);
	else
		OUT_LIT(w, " node unknown (give --nproc-per-node)\n");
	if (j->t.s.features & MCINIT_TOPO_F_GTP) {
		mcinit_out_printf(w,
		                  "  dense:  tp %lld, gtp_remat %lld, cp %lld, dp %lld, pp %lld\n",
		                  row[COL_TP], row[COL_GTP], row[COL_CP], row[COL_DP], row[COL_PP]);
		mcinit_out_printf(
		    w, "  expert: etp %lld, ep %lld, gtp_remat %lld, edp %lld, pp %lld\n",
		    row[COL_ETP], row[COL_EP], row[COL_EGTP], row[COL_EDP], row[COL_PP]);
	} else {
		mcinit_out_printf(w, "  dense:  tp %lld, cp %lld, dp %lld, pp %lld\n", row[COL_TP],
		                  row[COL_CP], row[COL_DP], row[COL_PP]);
		mcinit_out_printf(w, "  expert: etp %lld, ep %lld, edp %lld, pp %lld\n",
		                  row[COL_ETP], row[COL_EP], row[COL_EDP], row[COL_PP]);
	}
	mcinit_out_printf(w,
	                  "  seeds:  %lld (torch, numpy, data-parallel), tensor-parallel %lld, "
	                  "expert-parallel %lld\n",
	                  row[COL_SEED], row[COL_MPSEED], row[COL_EPSEED]);
	OUT_LIT(w, "  groups (index and position from 0):\n");
	for (f = 0; f < j->t.nfam; f++)
		if ((j->kinds & MCINIT_GROUP_BIT(j->t.fam[f].kind)) && text_rank_group(w, j, f) < 0)
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
			mcinit_out_str(w, indent);
			mcinit_out_mem(w, p, (size_t)(nl - p));
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
		mcinit_out_printf(w,
		                  "\n  local ranks: placement unknown, so one per GPU (%ld); %s:\n",
		                  n, node_mapping(nd));
	else
		mcinit_out_printf(w, "\n  local ranks (%ld per node; %s):\n", n, node_mapping(nd));
	if (n == 0) {
		OUT_LIT(w, "    none (give --nproc-per-node)\n");
		return;
	}
	if (n > TABLE_MAX_RANKS && !j->o->all) {
		mcinit_out_printf(w, "    (left out for %ld local ranks; --all prints them)\n", n);
		return;
	}
	cells = mcx_xcalloc((size_t)n * LR_NCOL, sizeof *cells);
	for (c = 0; c < LR_NCOL; c++)
		width[c] = (int)strlen(head[c]);
	for (l = 0; l < n; l++) {
		local_rank_cells(nd, l, cells + l * LR_NCOL);
		for (c = 0; c < LR_NCOL; c++)
			if ((int)strlen(cells[l * LR_NCOL + c]) > width[c])
				width[c] = (int)strlen(cells[l * LR_NCOL + c]);
	}
	if (mcinit_num_width(n - 1) > lw)
		lw = mcinit_num_width(n - 1);
	mcinit_out_printf(w, "    %*s  %*s  %-*s  %-*s  %-*s  %s\n", lw, "local", width[LR_GPU],
	                  head[LR_GPU], width[LR_BUSID], head[LR_BUSID], width[LR_NUMA],
	                  head[LR_NUMA], width[LR_CPUS], head[LR_CPUS], head[LR_NICS]);
	for (l = 0; l < n; l++) {
		char **cl = cells + l * LR_NCOL;

		mcinit_out_printf(w, "    %*ld  %*s  %-*s  %-*s  %-*s  %s\n", lw, l, width[LR_GPU],
		                  cl[LR_GPU], width[LR_BUSID], cl[LR_BUSID], width[LR_NUMA],
		                  cl[LR_NUMA], width[LR_CPUS], cl[LR_CPUS], cl[LR_NICS]);
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
	struct mcx_buf b = {0};

	OUT_LIT(w, "\naffinity (from hwloc; every node is taken to look like this one):\n");
	if (a == NULL) {
		OUT_LIT(w, "  unknown: this machine's topology cannot be read (see MC054)\n");
		return;
	}
	mcinit_affinity_summary_text(a, &b);
	out_indented(w, mcx_buf_cstr(&b), "  ");
	if (mcinit_affinity_ngpus(a) == 0) {
		mcinit_out_printf(w, "  no NVIDIA GPUs found %s%s\n", j->node_file ? "in " : "on ",
		                  mcinit_affinity_source(a));
	} else {
		b.len = 0;
		mcinit_affinity_matrix_text(a, &b);
		OUT_LIT(w, "\n");
		out_indented(w, mcx_buf_cstr(&b), "  ");
		if (!mcinit_affinity_nvlink_known(a))
			OUT_LIT(w,
			        "  (NVLinks unknown: this machine's hwloc has no NVML support, so "
			        "GPU pairs show their PCIe path)\n");
	}
	mcx_buf_free(&b);
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
		mcinit_out_printf(w, "unknown (%s)\n",
		                  nd->a == NULL ? "this machine's topology cannot be read"
		                                : "give --nproc-per-node");
		return;
	}
	l = j->o->rank % mcinit_report_npn(j);
	local_rank_cells(nd, l, cell);
	g = mcinit_affinity_gpu(nd->a, (size_t)mcinit_node_gpu(nd, l));
	if (g != NULL)
		mcinit_out_printf(w, "GPU %s (%s, %s)", cell[LR_GPU], cell[LR_BUSID],
		                  g->model ? g->model : "unknown model");
	else
		mcinit_out_printf(w, "no GPU (%s has %zu)", mcinit_affinity_source(nd->a),
		                  mcinit_affinity_ngpus(nd->a));
	mcinit_out_printf(w, ", NUMA %s, CPUs %s, NICs %s%s\n", cell[LR_NUMA], cell[LR_CPUS],
	                  cell[LR_NICS],
	                  nd->guessed ? " (placement unknown: one rank per GPU assumed)" : "");
	free_cells(cell, LR_NCOL);
}

/* The caller has shown the diagnostics (mcx_topology_node): none here. */
int
mcinit_report_text(struct job *j)
{
	const struct mcx_topology_opts *o = j->o;
	struct out w;
	int rc = 0;

	mcinit_report_node(j);
	mcinit_out_open(&w, j->out);
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
			mcinit_out_printf(
			    &w, "\n(per-rank table left out for %ld ranks; --all prints it)\n",
			    j->t.s.world);
		if (rc == 0 && o->kind < 0)
			text_affinity(&w, j);
	}
	if (mcinit_out_close(&w) < 0)
		rc = -1;
	return rc;
}
