/*
 * svg.h — a picture of where ranks land: nodes x GPUs, each GPU box labelled
 * with its rank(s) and coloured by tensor-parallel group, pipeline stages as
 * rows inside each node, NUMA domains outlined, NICs marked, with a title and
 * a legend (`mcinit topology --format=svg`).
 *
 * The input is plain data so the picture does not depend on the topology
 * engine: the caller fills it and keeps ownership of everything it points
 * to; mcinit_svg_render() only reads it.  The output is a standalone SVG 1.1
 * document appended to a struct mcx_buf (caller frees the buffer).
 *
 * Up to MCINIT_SVG_MAX_NODES nodes are drawn in full; beyond that the first
 * MCINIT_SVG_SUMMARY_NODES are drawn and a note says how many were left
 * out.  Likewise at most MCINIT_SVG_MAX_GPUS GPU slots per node are drawn.
 */
#ifndef MCINIT_SVG_H
#define MCINIT_SVG_H

#include <stddef.h>

#include "core/util.h"

#define MCINIT_SVG_MAX_NODES     32
#define MCINIT_SVG_SUMMARY_NODES 8
#define MCINIT_SVG_MAX_GPUS      32

struct mcinit_svg_rank {
	long rank;    /* global rank */
	int tp_group; /* index of its tensor-parallel group; < 0: none */
	int pp_stage; /* its pipeline stage; < 0: none */
};

struct mcinit_svg_slot {
	const struct mcinit_svg_rank *ranks; /* ranks placed on this GPU (may be 0) */
	size_t nranks;
	int numa;                /* NUMA node of the GPU; < 0: unknown */
	const char *const *nics; /* NICs near the GPU ("mlx5_0") */
	size_t nnics;
	const char *label; /* column heading; NULL: "GPU g" */
};

struct mcinit_svg_input {
	const char *title;    /* NULL: "mcinit topology" */
	const char *subtitle; /* optional, e.g. "TP=8 PP=4 DP=2, 64 ranks" */
	size_t nnodes;
	size_t gpus_per_node;
	/* Node-major slots: slot (n, g) is at slots[n * gpus_per_node + g].
	 * Only the drawn nodes' slots are read (all nnodes up to
	 * MCINIT_SVG_MAX_NODES, else the first MCINIT_SVG_SUMMARY_NODES): a huge
	 * cluster needs no array beyond those. */
	const struct mcinit_svg_slot *slots;
};

/* Appends the SVG document to out.  -1 + err (MCINIT_E_USAGE) on malformed input
 * (no nodes or GPUs, NULL arrays with non-zero counts); out is then left
 * as it was. */
int mcinit_svg_render(const struct mcinit_svg_input *in, struct mcx_buf *out,
                      struct mcinit_err *err);

#endif
