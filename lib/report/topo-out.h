/*
 * topo-out.h — the report module (lib/report/): what the mcinit program
 * writes of a job, behind the tool header's mcx_ entries
 * (include/private/mcinit-tool.h): the topology of `mcinit topology` as
 * text, JSON or an SVG picture, and validate's JSON result (result.c).
 * It is the layer above plan and may use every module up to it (core, topo,
 * config, rules, plan); nothing in the library uses it.
 *
 * The job the emitters describe, the chunked writer they stream through and
 * the node's hardware (topo-out.c), one emitter per output format
 * (topo-json.c, topo-text.c, topo-svg.c, which draws with svg.c).
 *
 * Ownership: struct job borrows everything from the caller's options and
 * the library's plan (struct mcinit_job), which frees it.
 */
#ifndef MCINIT_TOPO_OUT_H
#define MCINIT_TOPO_OUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "topo/affinity.h"
#include "plan/plan.h"
#include "topo/topology.h"
#include "core/util.h"

/* What the emitters read: a view of the library's plan (plan.h), copied
 * once the job is known to be valid; nd is filled by mcinit_report_node. */
struct job {
	const struct mcx_topology_opts *o;
	FILE *out;              /* where the output goes */
	struct mcinit_job *job; /* the plan, which owns everything below */
	const struct mcinit_derived *dv;
	struct mcinit_diags *d;
	struct mcinit_topo t;
	struct placement pl;
	unsigned kinds; /* MCINIT_GROUP_BIT set */
	long long seed;
	int dp_random_init;
	long long vpp;  /* 0 = no virtual pipeline */
	struct node nd; /* valid after mcinit_report_node */
	bool node_file; /* the node came from an XML file, not this machine */
};

/* ---- the chunked writer (topo-out.c): the whole output never sits in memory ---- */

struct out {
	char *start, *p, *end;
	FILE *f;
	int failed;
};

void mcinit_out_open(struct out *w, FILE *f);
void mcinit_out_flush(struct out *w);
/* Flushes and releases; -1 when anything failed to reach the stream. */
int mcinit_out_close(struct out *w);
void mcinit_out_mem(struct out *w, const char *s, size_t n);
void mcinit_out_str(struct out *w, const char *s);
#define OUT_LIT(w, s) mcinit_out_mem((w), (s), sizeof(s) - 1)
/* Lines longer than OUT_LINE (topo-out.c) are cut. */
void mcinit_out_printf(struct out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The width of v in decimal, sign included. */
int mcinit_num_width(long long v);

/* At least n bytes free at w->p (n at most the chunk size). */
static inline void
out_room(struct out *w, size_t n)
{
	if ((size_t)(w->end - w->p) < n)
		mcinit_out_flush(w);
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

/* ---- the node (topo-out.c, over the plan module's node.c) ---- */

/* Waits for the node's hardware: which GPU each local rank drives, and what
 * the node warns about (diagnostics MC050-MC054, added to j->d). */
void mcinit_report_node(struct job *j);
/* Ranks per node for the affinity: the placement's, else one per GPU. */
long mcinit_report_npn(const struct job *j);

/* ---- the emitters, to j->out: 0, -1 when the output cannot be written ---- */

int mcinit_report_json(struct job *j); /* topo-json.c */
int mcinit_report_text(struct job *j); /* topo-text.c */
/* topo-svg.c; also 1 when there is nothing to draw (said on msg). */
int mcinit_report_svg(struct job *j, FILE *msg);

#endif
