/*
 * rules-pipeline.c — the rules about the pipeline: how the layers split over stages and virtual
 * stages, layouts and uneven first and last stages. Each rule is its function with its table row
 * beside it; rules.c lists the rows in the order they run.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

/* A suggestion for an uneven split of L layers over PP stages: equal middle
 * stages, the remainder shared by the first and last. */
static bool
suggest_uneven(long long l, long long pp, long long *first, long long *last, long long *mid)
{
	long long rest;

	if (pp < 2 || l < 2)
		return false;
	*mid = pp > 2 ? l / pp : 0;
	rest = l - *mid * (pp - 2);
	*first = rest / 2;
	*last = rest - *first;
	return *first > 0 && *last > 0;
}

static void
mc020(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long pp = I(pipeline_model_parallel_size), l = split_layers(x),
	          extra = l - I(num_layers), parts, f, la, m;
	struct mcx_buf b = {0}, c = {0};
	struct mcinit_diag *g;

	if (!dv->vpp_ok || !NUL(num_layers_in_first_pipeline_stage) ||
	    !NUL(num_layers_in_last_pipeline_stage) || !NUL(pipeline_model_parallel_layout) ||
	    !NUL(num_layers_per_virtual_pipeline_stage))
		return;
	parts = pp * (dv->vpp ? dv->vpp : 1);
	if (l % parts == 0)
		return;
	if (dv->vpp)
		g = mcinit_rule_report(
		    x, mcinit_rule_written(x, F(num_layers), F(pipeline_model_parallel_size)),
		    "%lld layers%s do not split evenly into PP x VPP = %lld x %lld = %lld "
		    "chunks: Megatron would silently drop %lld layers",
		    l, extra ? " (with embedding/loss)" : "", pp, dv->vpp, parts, l % parts);
	else
		g = mcinit_rule_report(
		    x, mcinit_rule_written(x, F(num_layers), F(pipeline_model_parallel_size)),
		    "%lld layers%s are not divisible by pipeline_model_parallel_size %lld "
		    "(Megatron-LM PR #823: layers would be dropped)",
		    l, extra ? " (with embedding/loss)" : "", pp);
	if (!dv->vpp && suggest_uneven(I(num_layers), pp, &f, &la, &m) && extra == 0)
		mcinit_diag_hint(g,
		                 "nearest valid num_layers: %s; a pipeline size that divides %lld: "
		                 "%s; or split unevenly with --decoder-first-pipeline-num-layers "
		                 "%lld --decoder-last-pipeline-num-layers %lld (%lld per middle "
		                 "stage)",
		                 mcinit_rule_near_values(&b, I(num_layers), parts, extra), l,
		                 mcinit_rule_near_divisors(&c, l, pp), f, la, m);
	else
		mcinit_diag_hint(g,
		                 "nearest valid num_layers: %s; or a pipeline size that divides "
		                 "%lld: %s",
		                 mcinit_rule_near_values(&b, I(num_layers), parts, extra), l,
		                 mcinit_rule_near_divisors(&c, l, pp));
	mcx_buf_free(&b);
	mcx_buf_free(&c);
}

const struct mcinit_rule mcinit_rule_mc020 = {
    "MC020",
    MCINIT_ERROR,
    "without an uneven split or a layout, the layers (plus embedding/loss when accounted "
    "for) split evenly over the pipeline (and virtual) stages; Megatron drops the rest "
    "silently (Megatron-LM PR #823)",
    "--num-layers 30 --pipeline-model-parallel-size 4",
    "use a suggested layer count or pipeline size, or an uneven first/last split",
    READS(NL, PP, ACC, UNEVEN, VPPIN),
    mc020};

static void
mc021(struct mcinit_rule_ctx *x)
{
	long long pp = I(pipeline_model_parallel_size), vpp = x->dv->vpp;
	bool overlap = B(overlap_p2p_comm);

	if (!x->dv->vpp_ok || vpp == 0 || pp > (overlap ? 1 : 2))
		return;
	/* PP > 1 is what parallel_state needs; PP > 2 without p2p overlap
	 * only validate_args asks */
	mcinit_diag_hint(
	    (pp > 1 ? mcinit_rule_report_lm : mcinit_rule_report)(
	        x, mcinit_rule_written(x, F(pipeline_model_parallel_size), F(overlap_p2p_comm)),
	        overlap || pp <= 1 ? "a virtual pipeline (VPP = %lld, from %s) needs "
	                             "pipeline_model_parallel_size > 1, got %lld"
	                           : "a virtual pipeline (VPP = %lld, from %s) without "
	                             "overlap_p2p_comm needs pipeline_model_parallel_size > 2, got "
	                             "%lld",
	        vpp, x->dv->vpp_source, pp),
	    overlap ? "use pipeline parallelism (PP >= 2) or drop the virtual pipeline option"
	            : "use PP >= 3, keep p2p overlap on, or drop the virtual pipeline option");
}

const struct mcinit_rule mcinit_rule_mc021 = {
    "MC021",
    MCINIT_ERROR,
    "a virtual pipeline needs PP > 1, and PP > 2 when overlap_p2p_comm is off (the second "
    "only Megatron-LM's validate_args asks: a warning for a Megatron-Bridge ConfigContainer)",
    "--pipeline-model-parallel-size 1 --num-virtual-stages-per-pipeline-rank 2",
    "use pipeline parallelism, or drop the virtual pipeline option",
    READS(PP, F(overlap_p2p_comm)),
    mc021};

static void
mc022(struct mcinit_rule_ctx *x)
{
	long long pp = I(pipeline_model_parallel_size), l = split_layers(x),
	          n = I(num_layers_per_virtual_pipeline_stage), per;
	struct mcx_buf b = {0};

	if (NUL(num_layers_per_virtual_pipeline_stage) || vpp_sources(x) > 1)
		return;
	if (!NUL(num_layers_in_first_pipeline_stage) || !NUL(num_layers_in_last_pipeline_stage)) {
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(num_layers_per_virtual_pipeline_stage),
		                       "num_layers_per_virtual_pipeline_stage cannot be combined "
		                       "with an uneven pipeline (first/last stage layer counts)"),
		    "use --num-virtual-stages-per-pipeline-rank instead");
		return;
	}
	if (l % pp != 0) {
		mcinit_diag_hint(
		    mcinit_rule_report(
		        x, mcinit_rule_written(x, F(num_layers), F(pipeline_model_parallel_size)),
		        "%lld layers are not divisible by pipeline_model_parallel_size "
		        "%lld (needed by num_layers_per_virtual_pipeline_stage)",
		        l, pp),
		    "nearest valid num_layers: %s",
		    mcinit_rule_near_values(&b, I(num_layers), pp, l - I(num_layers)));
		mcx_buf_free(&b);
		return;
	}
	per = l / pp;
	if (per % n == 0)
		return;
	mcinit_diag_hint(mcinit_rule_report(x, F(num_layers_per_virtual_pipeline_stage),
	                                    "%lld layers per pipeline stage are not divisible by "
	                                    "num_layers_per_virtual_pipeline_stage %lld",
	                                    per, n),
	                 "use a divisor of %lld: %s", per, mcinit_rule_near_divisors(&b, per, n));
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc022 = {
    "MC022",
    MCINIT_ERROR,
    "num_layers_per_virtual_pipeline_stage divides the layers per stage and is not used "
    "with first/last stage counts",
    "--num-layers 32 --pipeline-model-parallel-size 4 "
    "--num-layers-per-virtual-pipeline-stage 3",
    "use a divisor of the layers per pipeline stage",
    READS(VPPIN, UNEVEN, NL, PP, ACC),
    mc022};

static void
mc023(struct mcinit_rule_ctx *x)
{
	long long v, direct;
	const char *src;

	if (vpp_sources(x) > 1) {
		mcinit_diag_hint(mcinit_rule_report(
		                     x,
		                     mcinit_rule_written(x, F(pipeline_model_parallel_layout),
		                                         F(num_virtual_stages_per_pipeline_rank),
		                                         F(num_layers_per_virtual_pipeline_stage)),
		                     "at most one of num_layers_per_virtual_pipeline_stage, "
		                     "num_virtual_stages_per_pipeline_rank and "
		                     "pipeline_model_parallel_layout may be set; %d are",
		                     vpp_sources(x)),
		                 "keep one way of describing the virtual pipeline");
		return;
	}
	if (NUL(virtual_pipeline_model_parallel_size))
		return;
	v = mcinit_rules_vpp_from_inputs(x, &src);
	direct = I(virtual_pipeline_model_parallel_size);
	if (src == NULL || v < 0 || direct == (v > 1 ? v : 1))
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(x, F(virtual_pipeline_model_parallel_size),
	                       "virtual_pipeline_model_parallel_size %lld conflicts with %s, "
	                       "which gives %lld",
	                       direct, src, v > 1 ? v : 1),
	    "drop virtual_pipeline_model_parallel_size or make it %lld", v > 1 ? v : 1);
}

const struct mcinit_rule mcinit_rule_mc023 = {
    "MC023",
    MCINIT_ERROR,
    "at most one of num_layers_per_virtual_pipeline_stage, "
    "num_virtual_stages_per_pipeline_rank, pipeline_model_parallel_layout; a "
    "virtual_pipeline_model_parallel_size agrees with them",
    "--num-layers-per-virtual-pipeline-stage 2 --num-virtual-stages-per-pipeline-rank 4",
    "describe the virtual pipeline one way",
    READS(VPPIN, F(virtual_pipeline_model_parallel_size), NL, PP, ACC),
    mc023};

/* Stage s of the unrolled layout is pipeline rank s % pp's virtual stage
 * s / pp (PipelineParallelLayerLayout.__init__).  In each pipeline rank:
 * the MTP layers (m) of its stages, the last stage that holds one, and
 * whether its last stage holds the loss. */
struct mtp_rank {
	long m;
	bool m_early; /* an m in a virtual stage before the rank's last */
	bool loss_in_last;
};

static void
mtp_by_rank(const char *flat, long pp, long nstages, struct mtp_rank *r)
{
	long s = 0;

	for (long k = 0; k < pp; k++)
		r[k] = (struct mtp_rank){0, false, false};
	for (const char *p = flat;; p++) {
		struct mtp_rank *k = &r[s % pp];

		if (*p == '\0' || *p == '|') {
			if (*p == '\0')
				break;
			s++;
			continue;
		}
		if (*p == 'm') {
			k->m++;
			k->m_early |= s / pp != nstages / pp - 1;
		}
		if (*p == 'L' && s / pp == nstages / pp - 1)
			k->loss_in_last = true;
	}
}

/* validate_layer_layout's MTP conditions: as many m as mtp_num_layers, none
 * outside a rank's last virtual stage, all in one stage; r0.15 also wants
 * them on the last rank, beside the loss (later releases allow a rank of
 * their own: mtp_standalone). */
static void
mc024_mtp(struct mcinit_rule_ctx *x, const char *flat)
{
	long pp = (long)I(pipeline_model_parallel_size), nstages = 1, m = 0, k;
	long want = NUL(mtp_num_layers) ? 0 : (long)I(mtp_num_layers);
	struct mtp_rank *r;

	for (const char *p = flat; *p; p++) {
		nstages += *p == '|';
		m += *p == 'm';
	}
	if (m != want) {
		if (NUL(mtp_num_layers))
			mcinit_rule_report(
			    x, F(pipeline_model_parallel_layout),
			    "the layout has %ld MTP layers (m) but mtp_num_layers is not set", m);
		else
			mcinit_rule_report(
			    x,
			    mcinit_rule_written(x, F(pipeline_model_parallel_layout),
			                        F(mtp_num_layers)),
			    "the layout has %ld MTP layers (m) but mtp_num_layers is %ld", m, want);
		return;
	}
	if (m == 0 || pp <= 0 || nstages % pp != 0)
		return;
	r = mcx_xcalloc((size_t)pp, sizeof *r);
	mtp_by_rank(flat, pp, nstages, r);
	for (k = 0; k < pp; k++) {
		if (r[k].m == 0)
			continue;
		if (r[k].m_early)
			mcinit_rule_report(
			    x, F(pipeline_model_parallel_layout),
			    "the layout puts an MTP layer (m) in a virtual stage of pipeline rank "
			    "%ld other than its last; Megatron-Core keeps MTP in a rank's last "
			    "virtual stage",
			    k);
		else if (r[k].m != m)
			mcinit_rule_report(
			    x, F(pipeline_model_parallel_layout),
			    "the layout spreads the %ld MTP layers (m) over several stages; "
			    "they must all be in one",
			    m);
		else if (x->c->mversion == MCINIT_MV_R015 && (k != pp - 1 || !r[k].loss_in_last))
			mcinit_rule_report(
			    x, F(pipeline_model_parallel_layout),
			    "Megatron-LM r0.15 wants the MTP layers (m) in the last stage, "
			    "with the loss (L)");
		break;
	}
	free(r);
}

/* Megatron-Core's validate_layer_layout on the unrolled layout. */
static void
mc024_layers(struct mcinit_rule_ctx *x, const char *flat)
{
	const char *p, *first = NULL, *lastc = NULL, *m = NULL;
	long e = 0, lo = 0, t = 0, late_t = 0;

	for (p = flat; *p; p++) {
		if (*p == '|')
			continue;
		if (first == NULL)
			first = p;
		lastc = p;
		e += *p == 'E';
		lo += *p == 'L';
		t += *p == 't';
		if (*p == 'm' && m == NULL)
			m = p;
		late_t += *p == 't' && m != NULL;
	}
	if (t != I(num_layers))
		mcinit_rule_report(
		    x, F(pipeline_model_parallel_layout),
		    "the layout has %ld transformer layers (t) but num_layers is %lld", t,
		    I(num_layers));
	if (e != 1 || lo != 1 || first == NULL || *first != 'E' || *lastc != 'L')
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(pipeline_model_parallel_layout),
		                       "the layout must start with the embedding E and end with "
		                       "the loss L, each exactly once (found %ld E, %ld L)",
		                       e, lo),
		    "e.g. \"Et*3|(tt|)*29,m|L\"");
	if (late_t > 0)
		mcinit_rule_report(
		    x, F(pipeline_model_parallel_layout),
		    "the layout places %ld transformer layers after an MTP layer (m); MTP "
		    "layers come last",
		    late_t);
	mc024_mtp(x, flat);
}

static void
mc024(struct mcinit_rule_ctx *x)
{
	const char *layout = mcinit_cfg_str(x->c, F(pipeline_model_parallel_layout));
	long long pp = I(pipeline_model_parallel_size);
	struct mcx_buf flat = {0};
	char *why = NULL;
	long n;

	if (layout == NULL)
		return;
	if (mcinit_layout_unroll(layout, &flat, &why) < 0) {
		mcinit_diag_hint(mcinit_rule_report(x, F(pipeline_model_parallel_layout),
		                                    "pipeline_model_parallel_layout \"%s\": %s",
		                                    layout, why),
		                 "write stages of E, L, t, m separated by |, with (...)*n or x*n "
		                 "to repeat");
		goto out;
	}
	n = mcinit_layout_parse(layout, NULL, 0, NULL);
	if (n % pp != 0) {
		struct mcx_buf b = {0}, c = {0};

		mcinit_diag_hint(
		    mcinit_rule_report(
		        x,
		        mcinit_rule_written(x, F(pipeline_model_parallel_layout),
		                            F(pipeline_model_parallel_size)),
		        "pipeline_model_parallel_layout has %ld stages, not a multiple of "
		        "pipeline_model_parallel_size %lld",
		        n, pp),
		    "use %s stages, or a pipeline size that divides %ld (%s)",
		    mcinit_rule_near_values(&b, n, pp, 0), n, mcinit_rule_near_divisors(&c, n, pp));
		mcx_buf_free(&b);
		mcx_buf_free(&c);
		goto out;
	}
	mc024_layers(x, flat.data);
out:
	free(why);
	mcx_buf_free(&flat);
}

const struct mcinit_rule mcinit_rule_mc024 = {
    "MC024",
    MCINIT_ERROR,
    "a pipeline layout uses only E L t m, has a multiple of PP stages, num_layers t "
    "layers, E first and L last",
    "--pipeline-model-parallel-layout \"Ett|tt|tL\" --pipeline-model-parallel-size 2",
    "fix the layout string",
    READS(F(pipeline_model_parallel_layout), PP, NL),
    mc024};

/* The uneven-pipeline conditions of Megatron-Core's TransformerConfig, and
 * the silent loss of layers when no middle stage is left to take them. */
static void
mc025(struct mcinit_rule_ctx *x)
{
	bool first = !NUL(num_layers_in_first_pipeline_stage),
	     last = !NUL(num_layers_in_last_pipeline_stage);
	long long pp = I(pipeline_model_parallel_size), l = I(num_layers), vpp = x->dv->vpp,
	          fl = first ? I(num_layers_in_first_pipeline_stage) : 0,
	          ll = last ? I(num_layers_in_last_pipeline_stage) : 0, ml, ms, sf, sl, sm;
	enum mcinit_field at =
	    first ? F(num_layers_in_first_pipeline_stage) : F(num_layers_in_last_pipeline_stage);
	struct mcinit_diag *g = NULL;

	if (!first && !last)
		return;
	if (B(account_for_embedding_in_pipeline_split) || B(account_for_loss_in_pipeline_split) ||
	    !NUL(pipeline_model_parallel_layout)) {
		mcinit_diag_hint(
		    mcinit_rule_report(x, at,
		                       "first/last pipeline stage layer counts cannot be combined "
		                       "with %s",
		                       NUL(pipeline_model_parallel_layout)
		                           ? "account_for_embedding/loss_in_pipeline_split"
		                           : "pipeline_model_parallel_layout"),
		    "use one way of splitting the layers");
		return;
	}
	if ((first && fl <= 0) || (last && ll <= 0)) {
		mcinit_rule_report(x,
		                   first && fl <= 0 ? F(num_layers_in_first_pipeline_stage)
		                                    : F(num_layers_in_last_pipeline_stage),
		                   "first/last pipeline stage layer counts must be > 0 (got %lld)",
		                   first && fl <= 0 ? fl : ll);
		return;
	}
	/* No PP >= 2 check: TransformerConfig accepts PP = 1 when the stages
	 * account for every layer (the middle-stage test below). */
	if (vpp > 0 && ((first && fl % vpp) || (last && ll % vpp)))
		mcinit_rule_report(
		    x,
		    first && fl % vpp ? F(num_layers_in_first_pipeline_stage)
		                      : F(num_layers_in_last_pipeline_stage),
		    "%s stage layer count %lld is not divisible by the virtual pipeline size "
		    "%lld",
		    first && fl % vpp ? "first" : "last", first && fl % vpp ? fl : ll, vpp);
	ml = l - fl - ll;
	ms = pp - first - last;
	if (ml < 0)
		g = mcinit_rule_report(
		    x, at, "first + last stage layers (%lld) exceed num_layers %lld", fl + ll, l);
	else if ((ml == 0) != (ms == 0))
		g = mcinit_rule_report(
		    x, at,
		    ms == 0 ? "%lld middle layers but no middle pipeline stage: Megatron "
		              "would silently drop them"
		            : "no layers left for the %lld middle pipeline stages",
		    ms == 0 ? ml : ms);
	else if (ms > 0 && ml % ms != 0)
		g = mcinit_rule_report(
		    x, at,
		    "%lld middle layers are not divisible by the %lld middle pipeline stages", ml,
		    ms);
	else if (ms > 0 && vpp > 0 && (ml / ms) % vpp != 0)
		g = mcinit_rule_report(
		    x, at,
		    "%lld layers per middle stage are not divisible by the virtual pipeline "
		    "size %lld",
		    ml / ms, vpp);
	if (g != NULL && suggest_uneven(l, pp, &sf, &sl, &sm) && (first && last))
		mcinit_diag_hint(g,
		                 "e.g. --decoder-first-pipeline-num-layers %lld "
		                 "--decoder-last-pipeline-num-layers %lld (%lld per middle stage)",
		                 sf, sl, sm);
	else if (g != NULL)
		mcinit_diag_hint(g,
		                 "make num_layers - first - last a multiple of the %lld middle "
		                 "stages",
		                 ms);
}

const struct mcinit_rule mcinit_rule_mc025 = {
    "MC025",
    MCINIT_ERROR,
    "an uneven pipeline has positive first/last counts divisible by VPP, middle layers "
    "that divide over the middle stages, and no layout or account_for_* split",
    "--num-layers 30 --pipeline-model-parallel-size 4 "
    "--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6",
    "use the suggested first/last counts",
    READS(UNEVEN, PP, NL, ACC, F(pipeline_model_parallel_layout)),
    mc025};
