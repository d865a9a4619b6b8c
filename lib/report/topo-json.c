/*
 * topo-json.c — `mcinit topology --format=json`: the sizes, the groups (from
 * topology.c's streaming writer), one line per rank, the node's affinity and
 * the diagnostics, streamed through the chunked writer.
 */
#include "topo-out.h"

#include <stdlib.h>
#include <string.h>

/* Unchecked writes for the hot loop: the caller has asked out_room for enough. */
#define PUT_LIT(p, s) ((p) = (char *)memcpy((p), (s), sizeof(s) - 1) + sizeof(s) - 1)

/* v at p, unchecked. */
static inline char *
put_num(char *p, long long v)
{
	if (v < 0)
		*p++ = '-';
	return mcinit_put_u(p, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

/* Room for one rank entry: its keys, 14 numbers of at most 20 digits and a
 * sign (memory_kind with --memory-model mcinit), and the separator after
 * the entry. */
#define RANK_ROOM 576

/* One entry of "ranks", on its own line. */
static void
json_rank(struct out *w, const struct job *j, long r)
{
	struct mcinit_coords co;
	struct mcinit_seeds sd;
	char *p;

	mcinit_topo_coords(&j->t, r, &co);
	mcinit_topo_seeds_at(&co, j->seed, j->dp_random_init, &sd);
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
	/* each key a literal: a constant-size copy, no libc call */
#define PUT_KV(k, v)                                                                               \
	do {                                                                                       \
		PUT_LIT(p, ",\"" k "\":");                                                         \
		p = put_num(p, (v));                                                               \
	} while (0)
	PUT_KV("tp", co.tp);
	PUT_KV("cp", co.cp);
	PUT_KV("dp", co.dp);
	PUT_KV("pp", co.pp);
	PUT_KV("ep", co.ep);
	PUT_KV("etp", co.etp);
	PUT_KV("edp", co.edp);
	PUT_KV("seed", sd.base);
	PUT_KV("model_parallel_seed", sd.model_parallel);
	PUT_KV("expert_parallel_seed", sd.expert_parallel);
	/* its kind of rank in "memory_peak" (--memory-model mcinit) */
	if (j->dv->mem.peak_ok && co.pp < MCINIT_MAX_CHUNKS)
		PUT_KV("memory_kind", j->dv->mem.stage_peak[co.pp]);
#undef PUT_KV
	if (j->t.s.features & MCINIT_TOPO_F_GTP) {
		PUT_LIT(p, ",\"gtp_remat\":");
		p = put_num(p, co.gtp);
		PUT_LIT(p, ",\"expert_gtp_remat\":");
		p = put_num(p, co.egtp);
	}
	PUT_LIT(p, "}");
	w->p = p;
}

static void
json_sizes(struct out *w, const struct job *j)
{
	const struct mcinit_topo *t = &j->t;
	int i;

	mcinit_out_printf(w,
	                  "\"sizes\":{\"tp\":%ld,\"pp\":%ld,\"cp\":%ld,\"dp\":%ld,\"ep\":%ld,"
	                  "\"etp\":%ld,\"edp\":%ld,\"vpp\":",
	                  t->s.tp, t->s.pp, t->s.cp, t->dp, t->s.ep, t->s.etp, t->edp);
	if (j->vpp > 0)
		out_num(w, j->vpp);
	else
		OUT_LIT(w, "null");
	if (t->s.features & MCINIT_TOPO_F_GTP)
		mcinit_out_printf(w, ",\"gtp_remat\":%ld,\"expert_gtp_remat\":%ld", t->s.gtp,
		                  t->s.egtp);
	if (t->s.dist_opt_instances > 1)
		mcinit_out_printf(w, ",\"num_distributed_optimizer_instances\":%ld",
		                  t->s.dist_opt_instances);
	for (i = 0; i < t->s.nhcp; i++)
		mcinit_out_printf(w, "%s%ld",
		                  i ? "," : ",\"hierarchical_context_parallel_sizes\":[",
		                  t->s.hcp[i]);
	if (t->s.nhcp > 0)
		OUT_LIT(w, "]");
	OUT_LIT(w, "}");
}

/* "affinity": one entry per local rank of a node (--rank: that rank's). */
static void
json_affinity(struct out *w, const struct job *j)
{
	const struct node *nd = &j->nd;
	long l = 0, hi = nd->a != NULL ? nd->nlocal : 0;

	if (j->o->rank >= 0 && hi > 0) {
		l = j->o->rank % mcinit_report_npn(j);
		hi = l < hi ? l + 1 : l;
	}
	OUT_LIT(w, "\n\"affinity\":[");
	for (; l < hi; l++) {
		json_t *e = mcinit_affinity_entry_json(nd->a, (size_t)l, mcinit_node_gpu(nd, l));
		char *text = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER);

		OUT_LIT(w, "\n");
		mcinit_out_str(w, text ? text : "null");
		if (l + 1 < hi)
			OUT_LIT(w, ",");
		free(text);
		json_decref(e);
	}
	OUT_LIT(w, "],");
}

/* The node's topology is read while the ranks stream out (mcinit_loader_start);
 * its warnings join the diagnostics, which come last. */
int
mcinit_report_json(struct job *j)
{
	struct mcinit_err err = {0};
	struct out w;
	json_t *diags, *peak;
	char *dtext, *ptext;
	long r, lo = 0, hi = j->t.s.world;
	int rc = 0;

	mcinit_out_open(&w, j->out);
	mcinit_out_printf(&w, "{\"world_size\":%ld,\"order\":\"%s\",\n", j->t.s.world,
	                  mcinit_topo_order(&j->t));
	json_sizes(&w, j);
	/* --memory-model mcinit: each kind of rank's peak, as validate's
	 * derived.memory.peak; each rank names its kind (memory_kind) */
	peak = mcinit_derived_peak_json(j->dv);
	ptext = peak != NULL
	            ? json_dumps(peak, JSON_COMPACT | JSON_PRESERVE_ORDER | MCINIT_JSON_REALS)
	            : NULL;
	json_decref(peak);
	if (ptext != NULL) {
		OUT_LIT(&w, ",\n\"memory_peak\":");
		mcinit_out_str(&w, ptext);
		free(ptext);
	}
	OUT_LIT(&w, ",\n\"groups\":");
	mcinit_out_flush(&w);
	if (mcinit_topo_json_groups_write(&j->t, j->kinds, j->out, &err) < 0)
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
	mcinit_report_node(j);
	json_affinity(&w, j);
	mcinit_diags_sort(j->d);
	diags = mcinit_diags_to_json(j->d);
	dtext = json_dumps(diags, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(diags);
	OUT_LIT(&w, "\n\"diagnostics\":");
	mcinit_out_str(&w, dtext ? dtext : "[]");
	OUT_LIT(&w, "}\n");
	if (dtext == NULL)
		rc = -1;
	free(dtext);
	if (mcinit_out_close(&w) < 0)
		rc = -1;
	return rc;
}
