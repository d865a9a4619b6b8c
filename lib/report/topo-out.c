/*
 * topo-out.c — what the writers of `mcinit topology` share: the chunked
 * writer (output goes through a fixed buffer to the stream, so the whole
 * output, hundreds of MB for a million ranks, never sits in memory), the
 * node's hardware as the writers read it, and the tool header's entries
 * (mcx_topology_*) that choose a writer.
 */
#include "topo-out.h"

#include <stdarg.h>
#include <stdlib.h>

#define OUT_CHUNK (1 << 20)
#define OUT_LINE  512 /* room asked for by mcinit_out_printf: longer lines are cut */

void
mcinit_out_open(struct out *w, FILE *f)
{
	w->start = mcx_xmalloc(OUT_CHUNK);
	w->p = w->start;
	w->end = w->start + OUT_CHUNK;
	w->f = f;
	w->failed = 0;
}

void
mcinit_out_flush(struct out *w)
{
	size_t n = (size_t)(w->p - w->start);

	if (!w->failed && n > 0 && fwrite(w->start, 1, n, w->f) != n)
		w->failed = 1;
	w->p = w->start;
}

int
mcinit_out_close(struct out *w)
{
	mcinit_out_flush(w);
	free(w->start);
	w->start = w->p = w->end = NULL;
	return (w->failed || fflush(w->f) != 0 || ferror(w->f)) ? -1 : 0;
}

void
mcinit_out_mem(struct out *w, const char *s, size_t n)
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

void
mcinit_out_str(struct out *w, const char *s)
{
	mcinit_out_mem(w, s, strlen(s));
}

void
mcinit_out_printf(struct out *w, const char *fmt, ...)
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

int
mcinit_num_width(long long v)
{
	char tmp[24];

	return (int)(tmp + sizeof tmp -
	             mcinit_utoa_rev(tmp + sizeof tmp, v < 0 ? 0ULL - (unsigned long long)v
	                                                     : (unsigned long long)v)) +
	       (v < 0);
}

/* ---- the node ---- */

void
mcinit_report_node(struct job *j)
{
	mcinit_node_finish(j->job);
	j->nd = j->job->topo.nd;
	j->node_file = j->job->topo.ld.file;
}

long
mcinit_report_npn(const struct job *j)
{
	return mcinit_plan_npn(&j->job->topo);
}

/* ---- the tool's entries (private/mcinit-tool.h) ---- */

int
mcx_topology_start(struct mcinit_job *job, const struct mcx_topology_opts *o, mcinit_error_t *err)
{
	struct mcinit_err e = {0};

	/* JSON writes the groups and ranks while this machine is read */
	if (mcinit_node_start(job, o->format == MCX_TOPOLOGY_JSON, &e) < 0) {
		mcinit_err_export(&e, err);
		return -1;
	}
	return 0;
}

void
mcx_topology_node(struct mcinit_job *job)
{
	mcinit_node_finish(job);
	mcinit_diags_sort(job->d);
}

/* The emitters' view of the library's plan. */
static void
job_fill(struct job *j, const struct mcx_topology_opts *o, struct mcinit_job *job, FILE *out)
{
	const struct mcinit_topology *t = &job->topo;

	j->o = o;
	j->out = out;
	j->job = job;
	j->dv = &job->dv;
	j->d = job->d;
	j->kinds = o->kind >= 0 ? MCINIT_GROUP_BIT(o->kind) : MCINIT_GROUP_ALL;
	j->t = t->t;
	j->pl = t->pl;
	j->seed = t->seed;
	j->dp_random_init = t->dp_random_init;
	j->vpp = t->vpp;
}

int
mcx_topology_write(struct mcinit_job *job, const struct mcx_topology_opts *o, FILE *out, FILE *msg)
{
	struct job j = {0};

	job_fill(&j, o, job, out);
	switch (o->format) {
	case MCX_TOPOLOGY_JSON:
		return mcinit_report_json(&j);
	case MCX_TOPOLOGY_SVG:
		return mcinit_report_svg(&j, msg);
	default:
		return mcinit_report_text(&j);
	}
}
