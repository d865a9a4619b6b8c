/*
 * topo-svg.c — `mcinit topology --format=svg`: nodes x GPUs, each GPU's
 * ranks coloured by tensor-parallel group, pipeline stages as rows.
 */
#include "topo-out.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* Slot of local rank l: its GPU, else (more ranks than GPUs, or none) a
 * slot of its own after the GPUs, labelled "no GPU". */
static long
svg_slot(const struct node *nd, long l)
{
	int g = mcinit_node_gpu(nd, l);

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
 * draw (said on msg).  The caller has shown the diagnostics
 * (mcx_topology_node). */
int
mcinit_report_svg(struct job *j, FILE *msg)
{
	const struct node *nd;
	struct mcinit_svg_input in = {0};
	struct mcinit_svg_slot *slots;
	struct mcinit_svg_rank *ranks;
	struct mcx_buf b = {0};
	struct mcinit_err err = {0};
	long npn, nnodes, ndraw, nslots, l;
	char *title, *sub;
	int rc = 0;

	mcinit_report_node(j);
	nd = &j->nd;
	npn = mcinit_report_npn(j);
	if (npn <= 0) {
		fprintf(msg,
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
	slots = mcx_xcalloc((size_t)(ndraw * nslots), sizeof *slots);
	ranks = mcx_xcalloc((size_t)(ndraw * npn), sizeof *ranks);
	svg_fill(j, npn, nslots, ndraw, slots, ranks);
	title = mcx_xasprintf("mcinit topology: %ld ranks on %ld node%s", j->t.s.world, nnodes,
	                      nnodes == 1 ? "" : "s");
	sub = mcx_xasprintf("TP %ld, CP %ld, PP %ld, DP %ld, EP %ld; %ld ranks per node%s; "
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
		fputs("mcinit topology: ", msg);
		mcx_fputs_text(err.msg, msg);
		fputc('\n', msg);
		rc = 1;
	} else if (fwrite(b.data, 1, b.len, j->out) != b.len || fflush(j->out) != 0) {
		rc = -1;
	}
	mcx_buf_free(&b);
	free(title);
	free(sub);
	free(ranks);
	free(slots);
	return rc;
}
