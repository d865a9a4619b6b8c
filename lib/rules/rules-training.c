/*
 * rules-training.c — the rules about the training schedule and the seeds: iterations, batch-size
 * ramp-up and schedules, every rank's RNG seeds. Each rule is its function with its table row
 * beside it; rules.c lists the rows in the order they run.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

static void
mc040(struct mcinit_rule_ctx *x)
{
	/* A ConfigContainer: Bridge's TrainingConfig.finalize refuses both and
	 * neither, with num_epochs (MC301). */
	if (x->c->bridge)
		return;
	if (!NUL(train_iters) && !NUL(train_samples))
		mcinit_diag_hint(
		    mcinit_rule_report(x, mcinit_rule_written(x, F(train_samples), F(train_iters)),
		                       "train_iters (%lld) and train_samples (%lld) are mutually "
		                       "exclusive",
		                       I(train_iters), I(train_samples)),
		    "keep one: iteration-based or sample-based training");
	else if (NUL(train_iters) && NUL(train_samples))
		mcinit_diag_hint(
		    mcinit_rule_report_sev(x, MCINIT_WARNING, F(train_iters),
		                           "neither train_iters nor train_samples is set"),
		    "add --train-iters N or --train-samples N");
}

const struct mcinit_rule mcinit_rule_mc040 = {
    "MC040",
    MCINIT_ERROR,
    "train_iters and train_samples are exclusive (a warning when neither is set; for a "
    "Megatron-Bridge ConfigContainer, MC301 says what Bridge refuses)",
    "--train-iters 1000 --train-samples 512000",
    "keep one of them",
    READS(F(train_iters), F(train_samples)),
    mc040};

static void
mc041(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *r = mcinit_cfg_val(x->c, F(rampup_batch_size));
	long long start, inc, samples, gbs, diff, step;
	struct mcx_buf b = {0};

	/* A ConfigContainer: Bridge hands the ramp-up to Megatron-Core's
	 * init_num_microbatches_calculator, which (core 0.19) logs a deprecation
	 * and ignores it (MC255 says so); Bridge's own TrainingConfig.finalize
	 * refuses it with train_samples or num_epochs (its ported checks).
	 * Megatron-LM's ramp-up arithmetic does not apply. */
	if (x->c->bridge)
		return;
	if (r->kind != MCINIT_V_LIST || r->n != 3 || !x->dv->gbs_ok)
		return;
	start = r->items[0].i;
	inc = r->items[1].i;
	samples = r->items[2].i;
	gbs = x->dv->gbs;
	if (!NUL(train_iters))
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(rampup_batch_size),
		                       "rampup_batch_size needs sample-based training, but "
		                       "train_iters is set"),
		    "use --train-samples instead of --train-iters");
	if (start <= 0 || inc <= 0 || samples < 0) {
		mcinit_rule_report(
		    x, F(rampup_batch_size),
		    "rampup_batch_size %lld %lld %lld: start and increment must be > 0 and "
		    "ramp-up samples >= 0",
		    start, inc, samples);
		return;
	}
	diff = gbs - start;
	if (diff < 0) {
		mcinit_rule_report(
		    x, F(rampup_batch_size),
		    "rampup start batch size %lld exceeds the global batch size %lld", start, gbs);
		return;
	}
	if (diff == 0 || diff % inc != 0) {
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(rampup_batch_size),
		                       diff == 0
		                           ? "rampup start batch size equals the global batch "
		                             "size %lld: no increment is left (Megatron "
		                             "divides by zero)"
		                           : "global batch size %lld minus the start %lld is not "
		                             "divisible by the increment %lld",
		                       gbs, start, inc),
		    diff == 0 ? "drop --rampup-batch-size"
		              : "choose an increment that divides %lld",
		    diff);
		return;
	}
	step = I(micro_batch_size) * (x->dv->dp_ok ? x->dv->dp : 1);
	if (x->dv->dp_ok && !B(decrease_batch_size_if_needed) && (start % step || inc % step))
		mcinit_diag_hint(
		    mcinit_rule_report(
		        x, F(rampup_batch_size),
		        "rampup batch sizes (start %lld, increment %lld) are not all "
		        "multiples of MBS x DP = %lld",
		        start, inc, step),
		    "use a start and an increment that are multiples of %lld (e.g. "
		    "start %s)",
		    step, start % step ? mcinit_rule_near_values(&b, start, step, 0) : "as is");
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc041 = {
    "MC041",
    MCINIT_ERROR,
    "rampup_batch_size: start > 0, increment > 0, samples >= 0, (GBS - start) a positive "
    "multiple of the increment, batch sizes multiples of MBS x DP, sample-based training",
    "--global-batch-size 1024 --rampup-batch-size 16 24 5000000",
    "choose an increment that divides GBS - start",
    READS(F(rampup_batch_size), F(train_iters), F(micro_batch_size),
          F(decrease_batch_size_if_needed)),
    mc041};

static void
mc042(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long s = I(seed);

	if (s <= 0) {
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(seed), "seed %lld must be a positive integer", s),
		    "use e.g. --seed 1234");
		return;
	}
	if (!dv->seeds_ok || dv->seed_max < (1LL << 32))
		return;
	mcinit_diag_hint(mcinit_rule_report(
	                     x, F(seed),
	                     "seed %lld gives a largest per-rank seed of %lld (seed + 100 x (PP - "
	                     "1)%s), above numpy's limit 2^32 - 1",
	                     s, dv->seed_max,
	                     B(data_parallel_random_init) ? " + 10 x (DP - 1)" : ""),
	                 "use a seed below %lld", (1LL << 32) - (dv->seed_max - s));
}

const struct mcinit_rule mcinit_rule_mc042 = {
    "MC042",
    MCINIT_ERROR,
    "seed > 0 and every rank's seed (seed + 100 x pp_rank [+ 10 x dp_rank]) < 2^32",
    "--seed 4294967290 --pipeline-model-parallel-size 4",
    "use a smaller seed",
    READS(F(seed), F(data_parallel_random_init), PP),
    mc042};

/* Megatron adds seed + 2718 + tp_rank and seed + 1024 + 100*ep_rank +
 * etp_rank to the same RNG tracker, which refuses a seed it already has. */
static void
mc043(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long tp = I(tensor_model_parallel_size), ep = I(expert_model_parallel_size), period, r,
	          lim;

	if (!dv->edp_ok || !dv->dp_ok || !dv->etp_ok)
		return;
	period = lcm(tp, dv->etp * ep);
	lim = period < dv->world_size ? period : dv->world_size;
	if (lim > (1LL << 24))
		return;
	for (r = 0; r < lim; r++) {
		long long t = r % tp, et = r % dv->etp, e = (r / dv->etp) % ep;

		if (2718 + t != 1024 + 100 * e + et)
			continue;
		mcinit_diag_hint(
		    mcinit_rule_report(x,
		                       mcinit_rule_written(x, F(expert_model_parallel_size),
		                                           F(tensor_model_parallel_size)),
		                       "rank %lld's CUDA RNG seeds collide: model-parallel seed + "
		                       "2718 + tp_rank %lld = expert seed + 1024 + 100 x ep_rank "
		                       "%lld + etp_rank %lld (Megatron raises 'seed already "
		                       "exists' at init)",
		                       r, t, e, et),
		    "this needs EP >= 18 with TP >= 7; use EP <= 17 or TP <= 6");
		return;
	}
}

const struct mcinit_rule mcinit_rule_mc043 = {
    "MC043",
    MCINIT_ERROR,
    "a rank's model-parallel and expert-parallel CUDA RNG seeds differ (they collide for "
    "EP >= 18 with TP >= 7)",
    "--world-size 144 -- --tensor-model-parallel-size 8 --expert-model-parallel-size 18 "
    "--num-experts 36",
    "use EP <= 17 or TP <= 6",
    READS(TP, EP, ETP),
    mc043};

/* ---- step batch-size schedule (MC051) ---- */

static void
mc051(struct mcinit_rule_ctx *x)
{
	long long thr[64], bs[64], step;
	char *why = NULL;
	int n, i;

	/* A ConfigContainer: Bridge (0.5.1, 0.6.2, main) never hands
	 * step_batch_size_schedule to the calculator; the value is unused. */
	if (x->c->bridge || x->c->mversion < MCINIT_MV_R018 || NUL(step_batch_size_schedule))
		return;
	n = mcinit_rules_schedule(x, thr, bs, 64, &why);
	if (n < 0) {
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(step_batch_size_schedule), "%s", why),
		    "write the schedule as space-separated THRESHOLD:BATCH_SIZE pairs, "
		    "e.g. \"0:768 250B:1536\" (thresholds in tokens, K/M/B/T suffixes)");
		free(why);
		return;
	}
	if (n == 0) {
		mcinit_rule_report(x, F(step_batch_size_schedule),
		                   "schedule must have at least one entry");
		return;
	}
	if (thr[0] != 0)
		mcinit_diag_hint(
		    mcinit_rule_report(x, F(step_batch_size_schedule),
		                       "first schedule entry must have threshold 0, got %lld",
		                       thr[0]),
		    "start the schedule with 0:BATCH_SIZE");
	for (i = 1; i < n; i++)
		if (thr[i] <= thr[i - 1])
			mcinit_rule_report(
			    x, F(step_batch_size_schedule),
			    "schedule thresholds must be strictly increasing, got %lld before %lld "
			    "(in samples: thresholds are tokens divided by seq_length)",
			    thr[i - 1], thr[i]);
	for (i = 0; i < n; i++)
		if (bs[i] <= 0)
			mcinit_rule_report(x, F(step_batch_size_schedule),
			                   "batch size must be positive, got %lld", bs[i]);
	if (!x->dv->dp_ok)
		return;
	/* the calculator checks the current batch size once training runs */
	step = I(micro_batch_size) * x->dv->dp * x->dv->gtp;
	for (i = 0; i < n; i++)
		if (bs[i] > 0 && bs[i] % step != 0)
			mcinit_rule_report_sev(
			    x, i == 0 ? MCINIT_ERROR : MCINIT_WARNING, F(step_batch_size_schedule),
			    "schedule batch size %lld (from %lld samples) is not divisible by "
			    "micro_batch_size x data_parallel_size = %lld%s",
			    bs[i], thr[i], step,
			    i == 0 ? ": the first training step fails"
			           : ": training fails when it is reached");
}

const struct mcinit_rule mcinit_rule_mc051 = {
    "MC051",
    MCINIT_ERROR,
    "step_batch_size_schedule (core_r0.18 on) parses as THRESHOLD:BATCH_SIZE pairs, starts "
    "at threshold 0, increases strictly, has positive batch sizes divisible by MBS x DP (a "
    "warning for later steps)",
    "--step-batch-size-schedule \"100:512 0:256\" --micro-batch-size 1",
    "fix the schedule; thresholds are tokens (K/M/B/T suffixes), batch sizes in samples",
    READS(F(step_batch_size_schedule), F(micro_batch_size), F(seq_length)),
    mc051};
