/* bench-kernels.c — throughput of the fused kernels' CPU reference (the CPU
 * path's stand-in): each operation on 2^22 elements (a [4096, 1024] tensor),
 * best of 3, in elements and bytes per second, one thread.  And, when the
 * build has CUDA and the machine a GPU, the warm-up phase on it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels/mcinit_kernels.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
fill(enum mcinit_dtype dt, void *p, size_t n, uint32_t tensor)
{
	size_t i;

	for (i = 0; i < n; i++)
		mcinit_kstore(dt, p, i, mcinit_kernels_input(dt, 1, tensor, i));
}

int
main(void)
{
	const size_t rows = 4096, cols = 1024, n = rows * cols;
	static const enum mcinit_dtype dts[] = {MCINIT_DTYPE_F32, MCINIT_DTYPE_BF16};
	size_t d;
	int op, r;

	printf("CPU reference, one thread, [%zu, %zu], best of 3\n", rows, cols);
	printf("%-18s %-5s %10s %10s\n", "operation", "type", "Melem/s", "GB/s");
	for (d = 0; d < 2; d++) {
		enum mcinit_dtype dt = dts[d];
		size_t sz = mcinit_dtype_size(dt);
		char *in = malloc(n * sz), *bias = malloc(cols * sz), *aux = malloc(n * sz);
		char *out = malloc(n * sz);

		if (!in || !bias || !aux || !out)
			return 1;
		fill(dt, in, n, 0);
		fill(dt, bias, cols, 1);
		fill(dt, aux, n, 2);
		for (op = 0; op < MCINIT_KOP_COUNT; op++) {
			struct mcinit_kargs a = {0};
			double best = INFINITY;

			a.dtype = dt;
			a.rows = rows;
			a.cols = cols;
			a.in = in;
			a.bias = bias;
			a.grad = a.residual = aux;
			a.out = out;
			a.p = 0.1f;
			a.seed = 7;
			for (r = 0; r < 3; r++) {
				double t0 = now();

				a.offset = (uint64_t)r;
				if (mcinit_kref_run(op, &a))
					return 1;
				if (now() - t0 < best)
					best = now() - t0;
			}
			printf("%-18s %-5s %10.1f %10.2f\n", mcinit_kop_name(op),
			       mcinit_dtype_name(dt), n / best / 1e6,
			       mcinit_kop_bytes(op, &a) / best / 1e9);
		}
		free(out);
		free(aux);
		free(bias);
		free(in);
	}
	return 0;
}
