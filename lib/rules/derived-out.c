/*
 * derived-out.c — the derived values as validate reports them: a JSON
 * object, a short table, and their documentation, all from the rows of
 * derived.def, so a new derived value is one row (and, when it is not a
 * plain integer, its two printers here).
 */
#include "rules/rules.h"
#include "core/util.h"

#include <stddef.h>
#include <string.h>

struct drow {
	const char *name;  /* JSON key */
	const char *label; /* table name; NULL: JSON only */
	const char *help;
	size_t val, ok; /* INT rows: offsets into struct mcinit_derived */
	json_t *(*json)(const struct mcinit_derived *dv);
	bool (*text)(const struct mcinit_derived *dv, struct mcx_buf *b);
};

static json_t *
opt_int(bool ok, long long v)
{
	return ok ? json_integer(v) : json_null();
}

/* ---- the rows that are not a plain integer ---- */

static json_t *
world_json(const struct mcinit_derived *dv)
{
	return opt_int(dv->world_ok, dv->world_size);
}

static bool
world_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	if (dv->world_ok)
		mcx_buf_printf(b, "%lld (%s)", dv->world_size, dv->world_size_source);
	return dv->world_ok;
}

static json_t *
world_source_json(const struct mcinit_derived *dv)
{
	return dv->world_ok ? json_string(dv->world_size_source) : json_null();
}

/* The weight shards are reported only where they change something. */
static bool
gtp_on(const struct mcinit_derived *dv)
{
	return dv->gtp > 1 || dv->egtp > 1;
}

static json_t *
gtp_json(const struct mcinit_derived *dv)
{
	return gtp_on(dv) ? json_integer(dv->gtp) : NULL;
}

static json_t *
egtp_json(const struct mcinit_derived *dv)
{
	return gtp_on(dv) ? json_integer(dv->egtp) : NULL;
}

static bool
gtp_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	if (gtp_on(dv))
		mcx_buf_printf(b, "%lld (expert %lld)", dv->gtp, dv->egtp);
	return gtp_on(dv);
}

/* Megatron's None, which a virtual size of 1 is folded into, is JSON null. */
static json_t *
vpp_json(const struct mcinit_derived *dv)
{
	return opt_int(dv->vpp_ok && dv->vpp > 0, dv->vpp);
}

static bool
vpp_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	if (dv->vpp_ok && dv->vpp)
		mcx_buf_printf(b, "%lld (from %s)", dv->vpp, dv->vpp_source);
	else if (dv->vpp_ok)
		mcx_buf_adds(b, "none");
	return dv->vpp_ok;
}

static json_t *
gbs_json(const struct mcinit_derived *dv)
{
	return opt_int(dv->gbs_ok, dv->gbs);
}

/* Megatron's get_current_running_global_batch_size: below GBS only with
 * decrease_batch_size_if_needed; the table says so on GBS's line. */
static json_t *
running_gbs_json(const struct mcinit_derived *dv)
{
	return opt_int(dv->gbs_ok, dv->running_gbs);
}

static bool
gbs_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	if (dv->gbs_ok && dv->running_gbs != dv->gbs)
		mcx_buf_printf(b, "%lld (runs as %lld)", dv->gbs, dv->running_gbs);
	else if (dv->gbs_ok)
		mcx_buf_printf(b, "%lld", dv->gbs);
	return dv->gbs_ok;
}

static json_t *
sp_json(const struct mcinit_derived *dv)
{
	return dv->sp_ok ? json_boolean(dv->sequence_parallel) : json_null();
}

static bool
sp_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	if (dv->sp_ok)
		mcx_buf_adds(b, dv->sequence_parallel ? "true" : "false");
	return dv->sp_ok;
}

/* One number per stage, or one array per stage of its chunks' numbers. */
static json_t *
layers_json(const struct mcinit_derived *dv)
{
	json_t *a;
	long long p, v;

	if (!dv->layers_ok)
		return json_null();
	a = json_array();
	for (p = 0; p < dv->pp; p++) {
		json_t *s = dv->vpp ? json_array() : NULL;

		for (v = 0; v < dv->chunks_per_stage && s; v++)
			json_array_append_new(
			    s, json_integer(dv->layers[p * dv->chunks_per_stage + v]));
		json_array_append_new(a, s ? s : json_integer(dv->layers[p]));
	}
	return a;
}

/* "4, 8 x 14, 6": runs of equal stages, for a short table line. */
static bool
layers_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	long long p = 0, q, v, cps = dv->chunks_per_stage;
	size_t start = b->len;

	if (!dv->layers_ok)
		return false;
	while (p < dv->pp) {
		for (q = p + 1; q < dv->pp && memcmp(&dv->layers[q * cps], &dv->layers[p * cps],
		                                     (size_t)cps * sizeof(int)) == 0;
		     q++)
			;
		if (b->len > start)
			mcx_buf_adds(b, ", ");
		if (dv->vpp) {
			mcx_buf_adds(b, "[");
			for (v = 0; v < cps; v++)
				mcx_buf_printf(b, "%s%d", v ? " " : "", dv->layers[p * cps + v]);
			mcx_buf_adds(b, "]");
		} else {
			mcx_buf_printf(b, "%d", dv->layers[p]);
		}
		if (q - p > 1)
			mcx_buf_printf(b, " x %lld", q - p);
		p = q;
	}
	return true;
}

static json_t *
seeds_json(const struct mcinit_derived *dv)
{
	if (!dv->seeds_ok)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I}", "rank0", (json_int_t)dv->seed,
	                 "rank0_model_parallel", (json_int_t)dv->seed_model_parallel,
	                 "rank0_expert_parallel", (json_int_t)dv->seed_expert_parallel, "max",
	                 (json_int_t)dv->seed_max);
}

static bool
seeds_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	if (dv->seeds_ok)
		mcx_buf_printf(b, "%lld (model-parallel %lld, expert %lld; max %lld)", dv->seed,
		               dv->seed_model_parallel, dv->seed_expert_parallel, dv->seed_max);
	return dv->seeds_ok;
}

/* The names of enum mcinit_param_kind, in JSON and text. */
static const char *const param_kinds[MCINIT_PK_COUNT] = {"embedding", "attention", "mlp", "experts",
                                                         "norms",     "output",    "mtp"};

/* --memory-model mcinit: {"dtype", "ranks": [one per kind of rank]}; each
 * names its pipeline stages and the decoder layers of each of its chunks. */
static json_t *
params_json(const struct mcinit_derived *dv)
{
	const struct mcinit_memory *m = &dv->mem;
	json_t *ranks = json_array(), *r, *stages, *layers;
	long long p, v;
	size_t k;
	int i;

	for (k = 0; k < m->nkinds; k++) {
		const struct mcinit_rank_params *q = &m->kinds[k];

		stages = json_array();
		layers = json_array();
		for (p = 0; p < dv->pp; p++)
			if (m->stage_kind[p] == (short)k)
				json_array_append_new(stages, json_integer(p));
		for (v = 0; v < dv->chunks_per_stage; v++)
			json_array_append_new(
			    layers,
			    json_integer(dv->layers[q->first_stage * dv->chunks_per_stage + v]));
		r = json_pack("{s:o, s:o, s:I, s:I, s:I, s:{s:I}}", "stages", stages, "layers",
		              layers, "total", (json_int_t)q->total, "dense", (json_int_t)q->dense,
		              "expert", (json_int_t)q->expert, "by_dtype", m->params_dtype,
		              (json_int_t)q->total);
		for (i = 0; i < MCINIT_PK_COUNT; i++)
			json_object_set_new(r, param_kinds[i], json_integer(q->by_kind[i]));
		json_array_append_new(ranks, r);
	}
	return json_pack("{s:s, s:o}", "dtype", m->params_dtype, "ranks", ranks);
}

/* The names of enum mcinit_act_term, in JSON and text. */
static const char *const act_terms[MCINIT_AT_COUNT] = {
    "embedding", "norms", "attention", "mlp", "dropout", "recompute", "logits", "mtp"};

/* The pipeline stages whose index in kinds is k: as a JSON array. */
static json_t *
stages_of(const struct mcinit_derived *dv, const short *kind, size_t k)
{
	json_t *a = json_array();
	long long p;

	for (p = 0; p < dv->pp; p++)
		if (kind[p] == (short)k)
			json_array_append_new(a, json_integer(p));
	return a;
}

/* Stage p's activations at the schedule's peak: its in-flight count times
 * its bytes per micro-batch (per model chunk with a virtual pipeline). */
static long long
act_peak(const struct mcinit_derived *dv, long long p)
{
	const struct mcinit_memory *m = &dv->mem;

	return m->in_flight[p] * (m->act[m->stage_act[p]].total / dv->chunks_per_stage);
}

/* What the activations' figures describe (memory-act.c read_spec). */
static const char *
act_spec(const struct mcinit_memory *m)
{
	if (strcmp(m->act_spec, "local") == 0)
		return "local (unfused attention, torch norms: as measured on the CPU)";
	return "transformer_engine (fused or flash attention: the local spec's tensors with "
	       "core attention recomputed, plus the softmax's fp32 log-sum-exp; norms: "
	       "Transformer Engine's fused modules' input and fp32 statistics in total, "
	       "torch's as measured on the CPU in total_high)";
}

/* --memory-model mcinit: the activations per micro-batch, {"recompute",
 * "ranks": [one per kind of rank: its stages, total and terms]}. */
static json_t *
act_json(const struct mcinit_derived *dv)
{
	const struct mcinit_memory *m = &dv->mem;
	json_t *ranks = json_array(), *peaks = json_array(), *r;
	long long p;
	size_t k;
	int i;

	for (k = 0; k < m->nact; k++) {
		r = json_pack("{s:o, s:I}", "stages", stages_of(dv, m->stage_act, k), "total",
		              (json_int_t)m->act[k].total);
		if (m->act_spec_range != NULL)
			json_object_set_new(r, "total_high_local_spec",
			                    json_integer(m->act[k].total_hi));
		else if (m->act_te_norms)
			json_object_set_new(r, "total_high", json_integer(m->act[k].total_hi));
		for (i = 0; i < MCINIT_AT_COUNT; i++)
			json_object_set_new(r, act_terms[i], json_integer(m->act[k].by_term[i]));
		json_array_append_new(ranks, r);
	}
	/* the schedule's peak of each stage: in-flight x bytes (per chunk
	 * with a virtual pipeline) */
	for (p = 0; p < dv->pp && m->in_flight[0] > 0; p++)
		json_array_append_new(peaks, json_pack("{s:I, s:I, s:I}", "stage", (json_int_t)p,
		                                       "in_flight", (json_int_t)m->in_flight[p],
		                                       "bytes", (json_int_t)act_peak(dv, p)));
	r = json_pack("{s:s, s:s, s:s, s:o, s:o}", "per", "micro-batch", "spec", act_spec(m),
	              "recompute", m->act_recompute, "ranks", ranks, "schedule_peak", peaks);
	if (m->act_spec_range != NULL)
		json_object_set_new(r, "spec_not_certain", json_string(m->act_spec_range));
	return r;
}

/* The names of enum mcinit_peak_term, in JSON and text. */
static const char *const peak_terms[MCINIT_PT_COUNT] = {
    "parameters",   "gradients", "optimizer",   "fp8_fp4_copies", "activations",
    "cuda_context", "nccl",      "userbuffers", "cuda_graphs",    "fragmentation"};
static const char *const comm_names[MCINIT_COMM_COUNT] = {"tp", "cp",        "dp-cp",    "pp",
                                                          "ep", "expert-dp", "embedding"};

/* --memory-model mcinit: the peak of each kind of rank, {"ranks": [{stages,
 * low, high, terms: {name: {bytes} or {low, high} or {not_counted}}}],
 * "worst_stage", "judged": "high"}. */
static json_t *
peak_json(const struct mcinit_derived *dv)
{
	const struct mcinit_memory *m = &dv->mem;
	json_t *ranks = json_array(), *r, *terms, *t, *comms = json_array();
	size_t k;
	int i;

	for (i = 0; i < MCINIT_COMM_COUNT; i++)
		if (m->comms & (1u << i))
			json_array_append_new(comms, json_string(comm_names[i]));
	for (k = 0; k < m->npeak; k++) {
		const struct mcinit_rank_peak *q = &m->peak[k];

		terms = json_object();
		for (i = 0; i < MCINIT_PT_COUNT; i++) {
			if (m->not_counted[i] != NULL)
				t = json_pack("{s:s}", "not_counted", m->not_counted[i]);
			else if (i < MCINIT_PT_CONTEXT && q->lo[i] == q->hi[i])
				t = json_pack("{s:f}", "bytes", q->lo[i]);
			else
				t = json_pack("{s:f, s:f}", "low", q->lo[i], "high", q->hi[i]);
			json_object_set_new(terms, peak_terms[i], t);
		}
		t = json_object_get(terms, "parameters");
		if (json_object_get(t, "bytes") != NULL && q->params_lowp > 0)
			json_object_set_new(t, "fp8_bytes", json_real(q->params_lowp));
		t = json_object_get(terms, "gradients");
		if (json_object_get(t, "bytes") != NULL)
			json_object_set_new(t, "dtype", json_string(m->grad_dtype));
		t = json_object_get(terms, "optimizer");
		if (json_object_get(t, "bytes") != NULL) {
			json_object_set_new(t, "name", json_string(m->optimizer));
			json_object_set_new(t, "bytes_per_parameter",
			                    json_real(m->opt_bytes_per_param));
			json_object_set_new(t, "dense_bytes", json_real(q->opt_dense));
			json_object_set_new(t, "dense_shards", json_integer(m->shard_dense));
			json_object_set_new(t, "expert_bytes", json_real(q->opt_expert));
			json_object_set_new(t, "expert_shards", json_integer(m->shard_expert));
			json_object_set_new(t, "cpu_offload_fraction", json_real(m->offload));
		}
		t = json_object_get(terms, "activations");
		if (json_object_get(t, "not_counted") == NULL) {
			json_object_set_new(t, "spec",
			                    json_string(m->act_spec_range != NULL
			                                    ? "transformer_engine..local"
			                                    : m->act_spec));
			json_object_set_new(t, "in_flight", json_integer(q->in_flight));
			/* the last stage's activations already hold them */
			json_object_set_new(t, "logits_and_loss_bytes", json_real(q->logits));
		}
		t = json_object_get(terms, "nccl");
		json_object_set_new(t, "communicators", json_deep_copy(comms));
		/* NCCL_BUFFSIZE x channels x 2 peers, each communicator alike */
		if (json_array_size(comms) > 0) {
			json_object_set_new(
			    t, "per_communicator_low",
			    json_real(q->lo[MCINIT_PT_NCCL] / (double)json_array_size(comms)));
			json_object_set_new(
			    t, "per_communicator_high",
			    json_real(q->hi[MCINIT_PT_NCCL] / (double)json_array_size(comms)));
		}
		json_object_set_new(json_object_get(terms, "fragmentation"), "share_high",
		                    json_real(m->frag_share));
		r = json_pack("{s:o, s:f, s:f, s:f, s:o}", "stages",
		              stages_of(dv, m->stage_peak, k), "low", q->total_lo, "high",
		              q->total_hi, "certain", q->total_certain, "terms", terms);
		json_array_append_new(ranks, r);
	}
	json_decref(comms);
	/* MC063: an error only when the certain part (the low end without the
	 * activations) does not fit, a warning when the high end passes 90% of
	 * the GPU */
	return json_pack("{s:o, s:I, s:b, s:{s:s, s:s}}", "ranks", ranks, "worst_stage",
	                 (json_int_t)m->peak[m->worst].first_stage, "complete", m->complete,
	                 "judged", "error", "certain", "warning", "high");
}

json_t *
mcinit_derived_peak_json(const struct mcinit_derived *dv)
{
	const struct mcinit_memory *m = &dv->mem;

	return m->model != NULL && strcmp(m->model, "mcinit") == 0 && m->peak_ok ? peak_json(dv)
	                                                                         : NULL;
}

/* One of Bridge's MemoryComponentEstimate, with its name. */
static json_t *
component_json(const char *name, const struct mcinit_memory_component *c)
{
	return json_pack("{s:s, s:f, s:f, s:f, s:f}", "name", name, "parameter_count", c->params,
	                 "parameter_count_per_gpu", c->params_per_gpu, "bytes_per_parameter",
	                 c->bytes_per_param, "memory_bytes", c->bytes);
}

/* Left out unless asked for (--memory-model, --gpu-memory).  Bridge's
 * estimate adds its components, the model's parameters and the
 * assumptions it states, as estimate_training_memory returns them. */
static json_t *
memory_json(const struct mcinit_derived *dv)
{
	const struct mcinit_memory *m = &dv->mem;
	json_t *o, *parts, *as;
	int i;

	if (m->model == NULL)
		return NULL;
	if (strcmp(m->model, "mcinit") == 0) {
		o = json_pack("{s:s}", "model", m->model);
		if (m->why != NULL)
			json_object_set_new(o, "not_estimated", json_string(m->why));
		if (m->params_ok)
			json_object_set_new(o, "parameters", params_json(dv));
		else
			json_object_set_new(o, "parameters_not_estimated",
			                    json_string(m->params_why));
		if (m->act_ok)
			json_object_set_new(o, "activations", act_json(dv));
		else
			json_object_set_new(o, "activations_not_estimated",
			                    json_string(m->act_why));
		if (m->peak_ok)
			json_object_set_new(o, "peak", peak_json(dv));
		else if (m->peak_why != NULL)
			json_object_set_new(o, "peak_not_estimated", json_string(m->peak_why));
		return o;
	}
	if (!m->ok)
		return json_pack("{s:s, s:s}", "model", m->model, "not_estimated", m->why);
	o = json_pack("{s:s, s:f, s:f, s:f}", "model", m->model, "weights_and_optimizer_bytes",
	              m->weights_and_optimizer, "activation_bytes", m->activations, "total_bytes",
	              m->total);
	if (strncmp(m->model, "bridge", 6) != 0)
		return o;
	parts = json_array();
	json_array_append_new(parts, component_json("dense parameters and optimizer", &m->dense));
	if (m->experts)
		json_array_append_new(
		    parts, component_json("routed expert parameters and optimizer", &m->expert));
	as = json_array();
	for (i = 0; i < MCINIT_MEM_A_COUNT; i++)
		if (m->assumptions & (1u << i))
			json_array_append_new(as, json_string(mcinit_memory_assumption(i)));
	json_object_set_new(o, "components", parts);
	json_object_set_new(o, "total_parameters", json_real(m->total_params));
	json_object_set_new(o, "assumptions", as);
	return o;
}

/* A new line of the memory block: its text starts under the value column. */
#define NL40 "\n                                        "

/* The text's integers with the integer writer: validate prints a few
 * hundred of them under --memory-model mcinit, and printf's two passes
 * made that a tenth of validate's instructions (issue 42's speed bound). */
static void
add_ll(struct mcx_buf *b, long long v)
{
	mcx_buf_add_long(b, (long)v);
}

/* "SEP NAME V", a term of a kind's line. */
static void
add_named(struct mcx_buf *b, const char *sep, const char *name, long long v)
{
	mcx_buf_adds(b, sep);
	mcx_buf_addc(b, ' ');
	mcx_buf_adds(b, name);
	mcx_buf_addc(b, ' ');
	add_ll(b, v);
}

/* One line per kind of rank, under the derived table's label. */
static bool
params_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	const struct mcinit_memory *m = &dv->mem;
	long long p, first, last;
	const char *sep;
	size_t k;
	int i;

	if (!m->params_ok) {
		mcx_buf_printf(b, "parameters not counted (mcinit): %s", m->params_why);
		return true;
	}
	mcx_buf_printf(b, "parameters per rank, %s (mcinit)", m->params_dtype);
	for (k = 0; k < m->nkinds; k++) {
		const struct mcinit_rank_params *q = &m->kinds[k];

		mcx_buf_adds(b, NL40);
		mcx_buf_adds(b, q->nstages > 1 ? "stages" : "stage");
		/* its stages as ranges: 0, 2-5 */
		for (p = 0, first = -1; p <= dv->pp; p++) {
			bool in = p < dv->pp && m->stage_kind[p] == (short)k;

			if (in && first < 0)
				first = p;
			if (!in && first >= 0) {
				last = p - 1;
				mcx_buf_adds(b, first == q->first_stage ? " " : ", ");
				add_ll(b, first);
				if (last > first) {
					mcx_buf_addc(b, '-');
					add_ll(b, last);
				}
				first = -1;
			}
		}
		mcx_buf_adds(b, ": ");
		add_ll(b, q->total);
		if (q->expert > 0) {
			mcx_buf_adds(b, " (");
			add_ll(b, q->dense);
			mcx_buf_adds(b, " dense, ");
			add_ll(b, q->expert);
			mcx_buf_adds(b, " expert)");
		}
		for (i = 0, sep = ";"; i < MCINIT_PK_COUNT; i++)
			if (q->by_kind[i] > 0) {
				add_named(b, sep, param_kinds[i], q->by_kind[i]);
				sep = ",";
			}
	}
	return true;
}

/* Its stages as ranges, " 0, 2-5", of the kind k in kind[]. */
static void
stage_ranges(const struct mcinit_derived *dv, const short *kind, size_t k, struct mcx_buf *b)
{
	long long p, first;
	const char *sep = " ";

	for (p = 0, first = -1; p <= dv->pp; p++) {
		bool in = p < dv->pp && kind[p] == (short)k;

		if (in && first < 0)
			first = p;
		if (!in && first >= 0) {
			mcx_buf_adds(b, sep);
			add_ll(b, first);
			if (p - 1 > first) {
				mcx_buf_addc(b, '-');
				add_ll(b, p - 1);
			}
			sep = ", ";
			first = -1;
		}
	}
}

/* The activations per micro-batch: one line per kind of rank. */
static void
act_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	const struct mcinit_memory *m = &dv->mem;
	const char *sep;
	long long p, top;
	size_t k;
	int i;

	if (!m->act_ok) {
		mcx_buf_printf(b, "\n%40sactivations not counted (mcinit): %s", "", m->act_why);
		return;
	}
	if (strcmp(m->act_spec, "local") == 0)
		mcx_buf_printf(b,
		               "\n%40sactivations per micro-batch, bytes (mcinit, the local spec: "
		               "unfused attention; recompute %s)",
		               "", m->act_recompute);
	else
		mcx_buf_printf(b,
		               "\n%40sactivations per micro-batch, bytes (mcinit, the "
		               "transformer_engine spec: fused or flash attention, the local "
		               "spec's tensors with core attention recomputed plus the "
		               "log-sum-exp; recompute %s)",
		               "", m->act_recompute);
	if (m->act_spec_range != NULL)
		mcx_buf_printf(b, "\n%40s(%s)", "", m->act_spec_range);
	if (m->act_te_norms)
		mcx_buf_printf(b,
		               "\n%40s(the norms: Transformer Engine's fused modules' input and "
		               "fp32 statistics in the low end, torch's in the high end; the "
		               "terms are the low end's)",
		               "");
	for (p = 0, top = 0; p < dv->pp; p++)
		if (act_peak(dv, p) > act_peak(dv, top))
			top = p;
	for (k = 0; k < m->nact; k++) {
		mcx_buf_adds(b, NL40);
		mcx_buf_adds(b, m->act[k].nstages > 1 ? "stages" : "stage");
		stage_ranges(dv, m->stage_act, k, b);
		mcx_buf_adds(b, ": ");
		add_ll(b, m->act[k].total);
		if (m->act_spec_range != NULL) {
			mcx_buf_adds(b, " (the local spec's ");
			add_ll(b, m->act[k].total_hi);
			mcx_buf_addc(b, ')');
		} else if (m->act_te_norms) {
			mcx_buf_adds(b, "..");
			add_ll(b, m->act[k].total_hi);
		}
		for (i = 0, sep = ";"; i < MCINIT_AT_COUNT; i++)
			if (m->act[k].by_term[i] > 0) {
				add_named(b, sep, act_terms[i], m->act[k].by_term[i]);
				sep = ",";
			}
	}
	if (m->in_flight[0] > 0)
		mcx_buf_printf(b,
		               "\n%40sat the schedule's peak: stage %lld, %lld %s in flight: %lld "
		               "bytes",
		               "", top, m->in_flight[top],
		               dv->chunks_per_stage > 1 ? "model chunks" : "micro-batches",
		               act_peak(dv, top));
}

/* v bytes in GiB with two decimals, rounded: written with the integer
 * writer, since validate's text prints some forty of these per kind of
 * rank and printf's floating-point path costs ten times more (the
 * estimate's share of validate's instructions, issue 42). */
static void
add_gib(struct mcx_buf *b, double v)
{
	long long c = (long long)(v / (1024.0 * 1024.0 * 1024.0) * 100 + 0.5);

	mcx_buf_add_long(b, (long)(c / 100));
	mcx_buf_addc(b, '.');
	mcx_buf_addc(b, (char)('0' + c % 100 / 10));
	mcx_buf_addc(b, (char)('0' + c % 10));
}

static void
add_range(struct mcx_buf *b, double lo, double hi)
{
	add_gib(b, lo);
	mcx_buf_adds(b, "..");
	add_gib(b, hi);
}

/* What the text says of term i of kind q beside its figure. */
static void
peak_detail(const struct mcinit_derived *dv, const struct mcinit_rank_peak *q, int i,
            struct mcx_buf *b)
{
	const struct mcinit_memory *m = &dv->mem;
	const char *sep = "";
	int c;

	switch (i) {
	case MCINIT_PT_PARAMS:
		mcx_buf_adds(b, " (");
		mcx_buf_adds(b, m->params_dtype);
		mcx_buf_adds(b, q->params_lowp > 0 ? ", linear weights in fp8)" : ")");
		break;
	case MCINIT_PT_GRADS:
		mcx_buf_adds(b, " (");
		mcx_buf_adds(b, m->grad_dtype);
		mcx_buf_adds(b, " main grads)");
		break;
	case MCINIT_PT_OPTIMIZER:
		mcx_buf_adds(b, " (");
		mcx_buf_adds(b, m->optimizer);
		mcx_buf_adds(b, ", ");
		add_ll(b, (long long)m->opt_bytes_per_param); /* whole bytes: sums of dtypes */
		mcx_buf_adds(b, " bytes a parameter; dense ");
		add_gib(b, q->opt_dense);
		mcx_buf_adds(b, " in ");
		add_ll(b, m->shard_dense);
		mcx_buf_adds(b, " shards, expert ");
		add_gib(b, q->opt_expert);
		mcx_buf_adds(b, " in ");
		add_ll(b, m->shard_expert);
		mcx_buf_adds(b, m->offload > 0 ? "; part on the CPU)" : ")");
		break;
	case MCINIT_PT_ACTIVATIONS:
		mcx_buf_adds(b, " (");
		add_ll(b, q->in_flight);
		mcx_buf_adds(b, dv->chunks_per_stage > 1 ? " model chunks" : " micro-batches");
		mcx_buf_adds(b, " in flight, ");
		mcx_buf_adds(b,
		             m->act_spec_range != NULL ? "transformer_engine..local" : m->act_spec);
		mcx_buf_adds(b, " spec; the logits and the loss ");
		add_gib(b, q->logits);
		mcx_buf_adds(b, " of them)");
		break;
	case MCINIT_PT_NCCL:
		mcx_buf_adds(b, " (");
		for (c = 0; c < MCINIT_COMM_COUNT; c++)
			if (m->comms & (1u << c)) {
				mcx_buf_adds(b, sep);
				mcx_buf_adds(b, comm_names[c]);
				sep = ", ";
			}
		mcx_buf_adds(b, *sep == '\0' ? "no communicator)" : ")");
		break;
	case MCINIT_PT_FRAGMENTATION:
		mcx_buf_adds(b, " (up to ");
		add_gib(b, m->frag_share * 1024.0 * 1024.0 * 1024.0);
		mcx_buf_adds(b, " of the allocated)");
		break;
	default:
		break;
	}
}

/* The peak of each kind of rank: a line per term, in GiB. */
static void
peak_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	const struct mcinit_memory *m = &dv->mem;
	size_t k;
	int i;

	if (!m->peak_ok) {
		if (m->peak_why != NULL)
			mcx_buf_printf(b, "\n%40speak not estimated (mcinit): %s", "", m->peak_why);
		return;
	}
	mcx_buf_printf(b,
	               "\n%40speak per rank, GiB (mcinit; low..high: the overheads' modelled "
	               "ranges; MC063: an error when the low end without the activations does "
	               "not fit, a warning when the high end passes 90%%)",
	               "");
	for (k = 0; k < m->npeak; k++) {
		const struct mcinit_rank_peak *q = &m->peak[k];

		mcx_buf_adds(b, NL40);
		mcx_buf_adds(b, q->nstages > 1 ? "stages" : "stage");
		stage_ranges(dv, m->stage_peak, k, b);
		mcx_buf_adds(b, ": ");
		add_range(b, q->total_lo, q->total_hi);
		mcx_buf_adds(b, m->complete ? "" : " (not every term counted)");
		for (i = 0; i < MCINIT_PT_COUNT; i++) {
			mcx_buf_adds(b, NL40);
			mcx_buf_adds(b, "  ");
			mcx_buf_adds(b, peak_terms[i]);
			mcx_buf_addc(b, ' ');
			if (m->not_counted[i] != NULL) {
				mcx_buf_adds(b, "not counted: ");
				mcx_buf_adds(b, m->not_counted[i]);
				continue;
			}
			if (i < MCINIT_PT_CONTEXT && q->lo[i] == q->hi[i])
				add_gib(b, q->lo[i]);
			else
				add_range(b, q->lo[i], q->hi[i]);
			peak_detail(dv, q, i, b);
		}
	}
}

static bool
memory_text(const struct mcinit_derived *dv, struct mcx_buf *b)
{
	const struct mcinit_memory *m = &dv->mem;
	const double gib = 1024.0 * 1024.0 * 1024.0;

	if (m->model == NULL)
		return false;
	if (strcmp(m->model, "mcinit") == 0) {
		params_text(dv, b);
		act_text(dv, b);
		peak_text(dv, b);
		return true;
	}
	if (!m->ok)
		mcx_buf_printf(b, "not estimated (%s): %s", m->model, m->why);
	else
		mcx_buf_printf(b, "%.2f GiB (%s: weights and optimizer %.2f, activations %.2f)",
		               m->total / gib, m->model, m->weights_and_optimizer / gib,
		               m->activations / gib);
	return true;
}

/* ---- the table ---- */

static const struct drow rows[] = {
#define INT(name, member, okm, help)                                                               \
	{#name,                                                                                    \
	 #name,                                                                                    \
	 help,                                                                                     \
	 offsetof(struct mcinit_derived, member),                                                  \
	 offsetof(struct mcinit_derived, okm),                                                     \
	 NULL,                                                                                     \
	 NULL},
#define FN(name, label, json, text, help) {#name, label, help, 0, 0, json, text},
#include "rules/derived.def"
#undef INT
#undef FN
};

static long long
int_of(const struct mcinit_derived *dv, const struct drow *r)
{
	long long v;

	memcpy(&v, (const char *)dv + r->val, sizeof v);
	return v;
}

static bool
ok_of(const struct mcinit_derived *dv, const struct drow *r)
{
	bool ok;

	memcpy(&ok, (const char *)dv + r->ok, sizeof ok);
	return ok;
}

json_t *
mcinit_derived_to_json(const struct mcinit_derived *dv)
{
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct drow *r = &rows[i];
		json_t *v = r->json ? r->json(dv) : opt_int(ok_of(dv, r), int_of(dv, r));

		if (v != NULL)
			json_object_set_new(o, r->name, v);
	}
	return o;
}

void
mcinit_derived_print(const struct mcinit_derived *dv, FILE *out)
{
	struct mcx_buf b = {0};

	fprintf(out, "derived values:\n");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct drow *r = &rows[i];
		bool shown;

		if (r->label == NULL)
			continue;
		b.len = 0;
		if (r->text != NULL)
			shown = r->text(dv, &b);
		else if ((shown = ok_of(dv, r)))
			mcx_buf_printf(&b, "%lld", int_of(dv, r));
		if (shown)
			fprintf(out, "  %-37s %s\n", r->label, mcx_buf_cstr(&b));
	}
	mcx_buf_free(&b);
}

size_t
mcinit_derived_count(void)
{
	return sizeof rows / sizeof rows[0];
}

const char *
mcinit_derived_doc(size_t i, const char **help)
{
	if (i >= sizeof rows / sizeof rows[0])
		return NULL;
	*help = rows[i].help;
	return rows[i].name;
}
