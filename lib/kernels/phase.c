/* phase.c — the `kernels' phase of `mcinit run': Megatron's warm-up of its
 * fused kernels (megatron/training/initialize.py, _warmup_jit_function),
 * with a sample of every result checked against the CPU reference and the
 * memory bandwidth measured — a slow or faulty GPU found before the job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbackend.h"
#include "khost.h"

/* Megatron's warm-up dropout probability. */
#define WARMUP_P 0.1f
/* Tensors of the phase's inputs (km_input streams). */
enum { T_IN, T_BIAS, T_RES };

void
mcinit_kernels_job_init(struct mcinit_kernels_job *job)
{
	memset(job, 0, sizeof *job);
	job->dtype = MCINIT_DTYPE_F32;
	job->tp = job->cp = 1;
	job->calls = 5;
	job->device = MCINIT_KDEV_AUTO;
	job->sample = 4096;
	job->cpu_max_elems = (size_t)1 << 20;
}

struct run {
	const struct mcinit_kernels_job *job;
	struct mcinit_kernels_result *res;
	const struct mcinit_kb *kb;
	void *ctx;
};

static int
fail(struct mcinit_kernels_result *res, int err, const char *what)
{
	res->error = err;
	res->ok = 0;
	snprintf(res->message, sizeof res->message, "%s", what);
	return err;
}

/* The warm-up shapes, Megatron's integer divisions included. */
static int
shapes(const struct mcinit_kernels_job *j, struct mcinit_kernels_result *res)
{
	long s = j->sequence_parallel ? j->seq_length / j->tp : j->seq_length;
	struct mcinit_kernels_case *act = &res->cases[0], *bda = &res->cases[1];

	if (j->seq_length <= 0 || j->micro_batch_size <= 0 || j->hidden_size <= 0 ||
	    j->ffn_hidden_size <= 0 || j->tp <= 0 || j->cp <= 0 || j->calls <= 0 ||
	    (unsigned)j->dtype > MCINIT_DTYPE_BF16)
		return fail(res, MCINIT_KERR_INVAL,
		            "kernels: shapes, sizes and calls must be positive");
	act->op = j->swiglu ? MCINIT_KOP_BIAS_SWIGLU_FWD : MCINIT_KOP_BIAS_GELU_FWD;
	act->rows = act->rows_megatron = (size_t)(j->seq_length / j->cp) * j->micro_batch_size;
	act->cols = (size_t)(j->ffn_hidden_size / j->tp);
	bda->op = MCINIT_KOP_BIAS_DROPOUT_ADD;
	bda->rows = bda->rows_megatron = (size_t)(s / j->cp) * j->micro_batch_size;
	bda->cols = (size_t)j->hidden_size;
	res->ncases = 2;
	if (act->rows == 0 || act->cols == 0 || bda->rows == 0) {
		snprintf(
		    res->message, sizeof res->message,
		    "kernels: an empty warm-up tensor (seq_length %ld / CP %ld, ffn_hidden_size "
		    "%ld / TP %ld)",
		    j->seq_length, j->cp, j->ffn_hidden_size, j->tp);
		return res->error = MCINIT_KERR_INVAL;
	}
	if (j->swiglu && act->cols % 2) {
		snprintf(res->message, sizeof res->message,
		         "kernels: ffn_hidden_size/TP = %zu is odd: bias_swiglu splits it into two "
		         "halves (Megatron's torch.chunk fails the same way)",
		         act->cols);
		return res->error = MCINIT_KERR_INVAL;
	}
	return MCINIT_KERR_OK;
}

/* What element o of the output of op should be, from the inputs' streams. */
static float
expect(const struct run *r, const struct mcinit_kargs *a, enum mcinit_kop op, uint64_t o)
{
	int dt = a->dtype;
	uint64_t seed = r->job->seed, cols = a->cols, h = cols / 2;

	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
		uint64_t row = o / h, c = o % h, ia = row * cols + c;
		float y1 = km_input(dt, seed, T_IN, ia) + km_input(dt, seed, T_BIAS, c);
		float y2 = km_input(dt, seed, T_IN, ia + h) + km_input(dt, seed, T_BIAS, h + c);

		return km_round(dt, km_silu(y1) * y2);
	}
	{
		float x = km_input(dt, seed, T_IN, o) + km_input(dt, seed, T_BIAS, o % cols);
		float scale = 1.0f / (1.0f - a->p);

		if (op == MCINIT_KOP_BIAS_GELU_FWD)
			return km_round(dt, km_gelu(x));
		return km_round(
		    dt, km_input(dt, seed, T_RES, o) +
		            (mcinit_dropout_keep(seed, a->offset, o, a->p) ? x * scale : 0.0f));
	}
}

/* Sampled output elements: evenly spread, first and last included. */
static void
sample_indices(uint64_t *idx, size_t k, uint64_t n)
{
	size_t j;

	for (j = 0; j < k; j++)
		idx[j] = k == 1 ? 0 : (uint64_t)((double)j * (double)(n - 1) / (double)(k - 1));
	if (k)
		idx[k - 1] = n - 1;
}

static int
check(struct run *r, struct mcinit_kernels_case *kc, const struct mcinit_kargs *a)
{
	uint64_t n = mcinit_kop_out_elems(kc->op, a);
	size_t k = r->job->sample < n ? r->job->sample : n, j;
	uint64_t *idx = malloc((k ? k : 1) * sizeof *idx);
	float *got = malloc((k ? k : 1) * sizeof *got);
	int err = MCINIT_KERR_NOMEM;

	if (!idx || !got)
		goto out;
	sample_indices(idx, k, n);
	if ((err = r->kb->gather(r->ctx, a->dtype, a->out, idx, k, got)))
		goto out;
	kc->max_ulps = 0;
	for (j = 0; j < k; j++) {
		double u = mcinit_ulps_at(a->dtype, got[j], expect(r, a, kc->op, idx[j]), 0);

		if (u > kc->max_ulps)
			kc->max_ulps = u;
	}
	kc->checked = k;
	kc->ok = kc->max_ulps <= kc->ulps_allowed;
out:
	free(got);
	free(idx);
	return err;
}

static int
run_case(struct run *r, struct mcinit_kernels_case *kc)
{
	const struct mcinit_kernels_job *j = r->job;
	struct mcinit_kargs a = {0};
	void *in = NULL, *bias = NULL, *res = NULL, *out = NULL;
	size_t sz = mcinit_dtype_size(j->dtype), n;
	struct mcinit_kbench t;
	int err;

	if (r->kb == &mcinit_kb_cpu && kc->rows * kc->cols > j->cpu_max_elems)
		kc->rows = j->cpu_max_elems / kc->cols ? j->cpu_max_elems / kc->cols : 1;
	a.dtype = j->dtype;
	a.rows = kc->rows;
	a.cols = kc->cols;
	a.p = WARMUP_P;
	a.seed = j->seed;
	a.exact = r->res->exact;
	n = kc->rows * kc->cols;
	if ((err = r->kb->alloc(r->ctx, &in, n * sz)) ||
	    (err = r->kb->alloc(r->ctx, &bias, kc->cols * sz)) ||
	    (err = r->kb->alloc(r->ctx, &out, mcinit_kop_out_elems(kc->op, &a) * sz)))
		goto out;
	if (kc->op == MCINIT_KOP_BIAS_DROPOUT_ADD &&
	    ((err = r->kb->alloc(r->ctx, &res, n * sz)) ||
	     (err = r->kb->fill(r->ctx, j->dtype, res, n, j->seed, T_RES))))
		goto out;
	if ((err = r->kb->fill(r->ctx, j->dtype, in, n, j->seed, T_IN)) ||
	    (err = r->kb->fill(r->ctx, j->dtype, bias, kc->cols, j->seed, T_BIAS)))
		goto out;
	a.in = in;
	a.bias = bias;
	a.residual = res;
	a.out = out;
	kc->bytes_per_call = mcinit_kop_bytes(kc->op, &a);
	/* each call its own dropout mask; the last call's is checked */
	if ((err = r->kb->bench(r->ctx, kc->op, &a, j->calls, &t)))
		goto out;
	kc->best_s = t.best_s;
	kc->mean_s = t.mean_s;
	kc->flushed = t.flushed;
	r->res->l2_bytes = t.l2_bytes;
	kc->gbps = kc->best_s > 0 ? kc->bytes_per_call / kc->best_s / 1e9 : 0;
	kc->copy_gbps = t.copy_best_s > 0 ? kc->bytes_per_call / t.copy_best_s / 1e9 : 0;
	kc->of_copy = kc->copy_gbps > 0 ? kc->gbps / kc->copy_gbps : 0;
	err = check(r, kc, &a);
out:
	r->kb->free(r->ctx, out);
	r->kb->free(r->ctx, res);
	r->kb->free(r->ctx, bias);
	r->kb->free(r->ctx, in);
	return err;
}

/* The backend: the GPU when asked for or (AUTO) when one opens. */
static int
open_backend(struct run *r)
{
	const struct mcinit_kb *gpu = mcinit_kb_gpu();
	struct mcinit_kernels_result *res = r->res;
	int err = MCINIT_KERR_NOGPU;

	if (r->job->device != MCINIT_KDEV_CPU && gpu) {
		err = gpu->open(&r->ctx, r->job->gpu, res->device_name, sizeof res->device_name,
		                &res->peak_gbps, res->message, sizeof res->message);
		if (!err) {
			r->kb = gpu;
			return MCINIT_KERR_OK;
		}
	} else if (!gpu) {
		snprintf(res->message, sizeof res->message, "%s", mcinit_kb_gpu_why());
	}
	if (r->job->device == MCINIT_KDEV_GPU)
		return res->error = err;
	r->kb = &mcinit_kb_cpu;
	res->message[0] = '\0';
	return r->kb->open(&r->ctx, 0, res->device_name, sizeof res->device_name, &res->peak_gbps,
	                   res->message, sizeof res->message);
}

int
mcinit_kernels_phase(const struct mcinit_kernels_job *job, struct mcinit_kernels_result *res)
{
	struct run r = {job, res, NULL, NULL};
	int i, err;

	memset(res, 0, sizeof *res);
	res->rank = job->rank;
	res->dtype = job->dtype;
	if ((err = shapes(job, res)))
		return err;
	if ((err = open_backend(&r)))
		return err;
	res->backend = r.kb->name;
	/* The CPU runs the reference; a GPU the fast path, within its bound,
	 * or the bit-exact kernels, with 2 ulps of slack only so that a
	 * compiler's liberty cannot fail a healthy GPU. */
	res->exact = job->exact || r.kb == &mcinit_kb_cpu;
	for (i = 0; i < res->ncases; i++) {
		struct mcinit_kernels_case *kc = &res->cases[i];

		kc->ulps_allowed = res->exact ? 2 : mcinit_kfast_ulps(kc->op, job->dtype);
		if (kc->ulps_allowed > res->max_ulps_allowed)
			res->max_ulps_allowed = kc->ulps_allowed;
	}
	for (i = 0; i < res->ncases; i++) {
		if ((err = run_case(&r, &res->cases[i]))) {
			snprintf(res->message, sizeof res->message, "kernels: %s (%s): %s",
			         mcinit_kop_name(res->cases[i].op), res->backend,
			         mcinit_kernels_strerror(err));
			res->error = err;
			goto out;
		}
	}
	res->ok = res->cases[0].ok && res->cases[1].ok;
	if (!res->ok) {
		res->error = err = MCINIT_KERR_NUMERIC;
		snprintf(res->message, sizeof res->message,
		         "kernels: results differ from the CPU reference by up to %g ulps",
		         fmax(res->cases[0].max_ulps, res->cases[1].max_ulps));
	}
out:
	r.kb->close(r.ctx);
	return err;
}

int
mcinit_kernels_summary(const struct mcinit_kernels_result *r, char *buf, size_t cap)
{
	const struct mcinit_kernels_case *a = &r->cases[0], *b = &r->cases[1];

	return snprintf(buf, cap,
	                "%s: %s %.0f GB/s = %.0f%% of a copy (%.0f GB/s), %s %.0f GB/s = %.0f%% of "
	                "a copy (%.0f GB/s), %s, %s; samples within %.1f ulp (bound %g, %s); "
	                "timed %s; local figures only (the phase sees no peer's)",
	                r->device_name, mcinit_kop_name(a->op), a->gbps, 100 * a->of_copy,
	                a->copy_gbps, mcinit_kop_name(b->op), b->gbps, 100 * b->of_copy,
	                b->copy_gbps, mcinit_dtype_name(r->dtype),
	                r->exact ? "bit-exact kernels" : "fast path",
	                fmax(a->max_ulps, b->max_ulps), r->max_ulps_allowed,
	                r->exact ? "slack" : "mcinit_kfast_ulps",
	                r->l2_bytes == 0           ? "call by call on the CPU"
	                : a->flushed || b->flushed ? "with the L2 flushed before each call"
	                                           : "over back-to-back calls, tensors >= 4x L2");
}

size_t
mcinit_kernels_slowest(const struct mcinit_kernels_result *r, size_t n, double min_frac,
                       size_t *slowest, size_t *fastest)
{
	size_t i, lo = 0, hi = 0, below = 0;

	for (i = 1; i < n; i++) {
		if (r[i].cases[0].gbps < r[lo].cases[0].gbps)
			lo = i;
		if (r[i].cases[0].gbps > r[hi].cases[0].gbps)
			hi = i;
	}
	if (slowest)
		*slowest = lo;
	if (fastest)
		*fastest = hi;
	if (min_frac <= 0 || n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (r[i].cases[0].gbps < min_frac * r[hi].cases[0].gbps)
			below++;
	return below;
}
