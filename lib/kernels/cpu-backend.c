/* cpu-backend.c — the phase on the CPU: host memory and the references. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kbackend.h"
#include "khost.h"

static int
cpu_open(void **ctx, int gpu, char *name, size_t namesz, double *peak, char *msg, size_t msgsz)
{
	(void)gpu;
	(void)msg;
	(void)msgsz;
	*ctx = NULL;
	snprintf(name, namesz, "cpu");
	*peak = 0;
	return MCINIT_KERR_OK;
}

static void
cpu_close(void *ctx)
{
	(void)ctx;
}

static int
cpu_alloc(void *ctx, void **p, size_t bytes)
{
	(void)ctx;
	*p = malloc(bytes ? bytes : 1);
	return *p ? MCINIT_KERR_OK : MCINIT_KERR_NOMEM;
}

static void
cpu_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static int
cpu_fill(void *ctx, enum mcinit_dtype dt, void *p, size_t n, uint64_t seed, uint32_t tensor)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < n; i++)
		km_st(dt, p, i, km_input(dt, seed, tensor, i));
	return MCINIT_KERR_OK;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cpu_run_timed(void *ctx, enum mcinit_kop op, const struct mcinit_kargs *a, double *secs)
{
	double t0 = now();
	int err = mcinit_kref_run(op, a);

	(void)ctx;
	*secs = now() - t0;
	return err;
}

static int
cpu_gather(void *ctx, enum mcinit_dtype dt, const void *p, const uint64_t *idx, size_t k,
           float *out)
{
	size_t j;

	(void)ctx;
	for (j = 0; j < k; j++)
		out[j] = km_ld(dt, p, idx[j]);
	return MCINIT_KERR_OK;
}

/* The reference's calls and a memcpy of as many bytes, each timed alone
 * (no cache to flush that matters at these sizes beside the reference's
 * ~10-25 M elements/s). */
static int
cpu_bench(void *ctx, enum mcinit_kop op, struct mcinit_kargs *a, int calls, struct mcinit_kbench *t)
{
	size_t half = mcinit_kop_bytes(op, a) / 2;
	char *copy = calloc(2 * half + 1, 1);
	double t0, s, total = 0, ctotal = 0;
	int c, err = MCINIT_KERR_OK;

	(void)ctx;
	memset(t, 0, sizeof *t);
	if (!copy)
		return MCINIT_KERR_NOMEM;
	t->best_s = t->copy_best_s = INFINITY;
	for (c = 0; c < calls && !err; c++) {
		a->offset = (uint64_t)c;
		t0 = now();
		err = mcinit_kref_run(op, a);
		s = now() - t0;
		total += s;
		t->best_s = s < t->best_s ? s : t->best_s;
		t0 = now();
		memcpy(copy + half, copy, half);
		s = now() - t0;
		ctotal += s;
		t->copy_best_s = s < t->copy_best_s ? s : t->copy_best_s;
	}
	t->mean_s = total / calls;
	t->copy_mean_s = ctotal / calls;
	free(copy);
	return err;
}

const struct mcinit_kb mcinit_kb_cpu = {"cpu",    cpu_open,      cpu_close,  cpu_alloc, cpu_free,
                                        cpu_fill, cpu_run_timed, cpu_gather, cpu_bench};
