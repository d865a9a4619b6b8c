/* gpu-kernels-check.c — the fused kernels on a real GPU: every operation and
 * type against the CPU reference (odd shapes, misaligned tensors), then a
 * bandwidth benchmark beside cudaMemcpy device-to-device in the same run, then
 * the `kernels' phase as `mcinit run' calls it.  --bench: the bandwidth
 * table only (make bench).  Exit 0 all correct, 1 a mismatch or CUDA error,
 * 77 no GPU.  See tests/gpu/README.md.
 *
 * The kernels are the module's (lib/libmcinit-kgpu.la, linked in): the
 * fatbin loaded and launched through the driver API, as mcinit does.  Its
 * own buffers and copies go through the runtime (cudaMalloc, cudaMemcpy),
 * so a pass also shows the runtime's pointers and the driver's launches
 * sharing the device's primary context. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kgpu.h"

/* Bit-exact is what the shared arithmetic promises; 1 ulp is the failure
 * line (stated in the README). */
#define MAX_ULPS 1.0

static int failures;

static int
no_gpu(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n == 0) {
		printf("SKIP: no GPU (cudaGetDeviceCount: %s, %d devices)\n",
		       e == cudaSuccess ? "ok" : cudaGetErrorString(e), n);
		return 1;
	}
	return 0;
}

static double
peak_gbps(int dev)
{
	int khz = 0, bits = 0;

	cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev);
	cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev);
	return 2.0 * khz * 1e3 * (bits / 8.0) / 1e9;
}

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			printf("FAIL: %s: %s\n", #call, cudaGetErrorString(e_));                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static void
host_fill(enum mcinit_dtype dt, void *p, size_t n, uint32_t tensor)
{
	size_t i;

	for (i = 0; i < n; i++)
		mcinit_kstore(dt, p, i, mcinit_kernels_input(dt, 77, tensor, i));
}

/* The edges the fast path must keep: zeros, subnormals of every type,
 * large magnitudes, the exp overflow points, infinities, NaN. */
static const float edge_values[] = {
    0.0f,     -0.0f,    1e-45f,    -1e-45f, 1e-40f, -1e-40f, 6e-8f,    -6e-8f,   1e-30f,    -1e-30f,
    -0.7518f, -1.2785f, 9.6f,      -10.3f,  17.0f,  -17.0f,  88.72f,   -88.72f,  -100.0f,   1e4f,
    -1e4f,    65504.0f, -65504.0f, 1e30f,   -1e30f, 3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN};

/* Every other element an edge value (rounded to dt), the rest as they are. */
static void
put_edges(enum mcinit_dtype dt, void *p, size_t n)
{
	size_t i, ne = sizeof edge_values / sizeof edge_values[0];

	for (i = 0; i < n; i += 2)
		mcinit_kstore(dt, p, i, edge_values[(i / 2) % ne]);
}

/* One operation on rows x cols, tensors `shift' elements past an aligned
 * device address: GPU vs reference over every element.  exact: the
 * bit-exact kernels (within MAX_ULPS), else the fast path (within
 * mcinit_kfast_ulps at each element's scale); edges: the inputs hold
 * edge_values. */
static void
correctness(enum mcinit_kop op, enum mcinit_dtype dt, size_t rows, size_t cols, size_t shift,
            int exact, int edges)
{
	size_t sz = mcinit_dtype_size(dt), n = rows * cols, nout, i, diff = 0;
	size_t bytes = (n + 16) * sz;
	char *h_in = malloc(bytes), *h_bias = malloc((cols + 16) * sz), *h_aux = malloc(bytes);
	char *h_ref = malloc(bytes), *h_got = malloc(bytes);
	uint8_t *m_ref = calloc(n, 1), *m_got = calloc(n, 1), *d_mask;
	char *d_in, *d_bias, *d_aux, *d_out;
	struct mcinit_kargs a = {0}, ha;
	double worst = 0, bound = exact ? MAX_ULPS : mcinit_kfast_ulps(op, dt);
	int err;

	host_fill(dt, h_in, n, 0);
	host_fill(dt, h_bias, cols, 1);
	host_fill(dt, h_aux, n, 2);
	if (edges) {
		put_edges(dt, h_in, n);
		put_edges(dt, h_aux + sz, n - (n > 0));
	}
	CK(cudaMalloc((void **)&d_in, bytes));
	CK(cudaMalloc((void **)&d_bias, (cols + 16) * sz));
	CK(cudaMalloc((void **)&d_aux, bytes));
	CK(cudaMalloc((void **)&d_out, bytes));
	CK(cudaMalloc((void **)&d_mask, n ? n : 1));
	CK(cudaMemcpy(d_in + shift * sz, h_in, n * sz, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_bias, h_bias, cols * sz, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_aux + shift * sz, h_aux, n * sz, cudaMemcpyHostToDevice));
	a.dtype = dt;
	a.rows = rows;
	a.cols = cols;
	a.p = 0.1f;
	a.seed = 0x5eed;
	a.offset = 3;
	a.in = h_in;
	a.bias = h_bias;
	a.grad = a.residual = h_aux;
	a.out = h_ref;
	a.mask = m_ref;
	mcinit_kref_run(op, &a);
	ha = a;
	a.exact = exact;
	a.in = d_in + shift * sz;
	a.bias = d_bias;
	a.grad = a.residual = d_aux + shift * sz;
	a.out = d_out + shift * sz;
	a.mask = d_mask;
	if ((err = mcinit_kgpu_run(op, &a, NULL)) || cudaDeviceSynchronize() != cudaSuccess) {
		printf("FAIL: %s %s: %s\n", mcinit_kop_name(op), mcinit_dtype_name(dt),
		       err ? mcinit_kernels_strerror(err) : cudaGetErrorString(cudaGetLastError()));
		failures++;
		goto out;
	}
	nout = mcinit_kop_out_elems(op, &a);
	CK(cudaMemcpy(h_got, d_out + shift * sz, nout * sz, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(m_got, d_mask, n, cudaMemcpyDeviceToHost));
	for (i = 0; i < nout; i++) {
		double u = mcinit_ulps(dt, mcinit_kload(dt, h_got, i), mcinit_kload(dt, h_ref, i));

		diff += memcmp(h_got + i * sz, h_ref + i * sz, sz) != 0;
		if (u > worst)
			worst = u;
	}
	if (!exact)
		worst = mcinit_kfast_error(op, &ha, h_got);
	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD && memcmp(m_got, m_ref, n) != 0) {
		printf("FAIL: %s %s %zux%zu: the dropout mask differs\n", mcinit_kop_name(op),
		       mcinit_dtype_name(dt), rows, cols);
		failures++;
	}
	printf("%-5s %-5s %-17s %-5s %6zu x %-6zu shift %zu%s: %zu of %zu elements differ, max %g "
	       "ulps (bound %g)\n",
	       worst <= bound ? "ok" : "FAIL", exact ? "exact" : "fast", mcinit_kop_name(op),
	       mcinit_dtype_name(dt), rows, cols, shift, edges ? " edges" : "", diff, nout, worst,
	       bound);
	if (worst > bound)
		failures++;
out:
	cudaFree(d_mask);
	cudaFree(d_out);
	cudaFree(d_aux);
	cudaFree(d_bias);
	cudaFree(d_in);
	free(m_got);
	free(m_ref);
	free(h_got);
	free(h_ref);
	free(h_aux);
	free(h_bias);
	free(h_in);
}

/* Each operation on Llama-3 8B's shapes (and a larger dropout-add), both
 * paths, every type, beside a device-to-device copy of as many bytes timed
 * alike in the same run (mcinit_kgpu_bench: back to back when the bytes are
 * at least 4x the L2, else with the L2 flushed before each call). */
static void
bandwidth(double peak)
{
	/* Llama-3 8B's warm-up shapes at TP 1: [8192, 1, 14336] and [8192, 1, 4096]. */
	static const struct {
		enum mcinit_kop op;
		size_t rows, cols;
	} cases[] = {
	    {MCINIT_KOP_BIAS_GELU_FWD, 8192, 14336},   {MCINIT_KOP_BIAS_SWIGLU_FWD, 8192, 14336},
	    {MCINIT_KOP_BIAS_DROPOUT_ADD, 8192, 4096}, {MCINIT_KOP_BIAS_DROPOUT_ADD, 32768, 8192},
	    {MCINIT_KOP_BIAS_GELU_BWD, 8192, 14336},   {MCINIT_KOP_BIAS_SWIGLU_BWD, 8192, 14336},
	};
	size_t c, cap = (size_t)32768 * 8192 * 4;
	char *x, *y, *z, *w;
	int dt, exact, below = 0;

	CK(cudaMalloc((void **)&x, cap));
	CK(cudaMalloc((void **)&y, cap));
	CK(cudaMalloc((void **)&z, cap));
	CK(cudaMalloc((void **)&w, 1 << 20));
	CK(cudaMemset(x, 0, cap));
	CK(cudaMemset(y, 0, cap));
	CK(cudaMemset(w, 0, 1 << 20));
	printf("\nbandwidth: GB/s of the bytes a call must move, best of 20; the copy is\n"
	       "cudaMemcpyAsync D2D of as many bytes in the same run, timed alike\n");
	printf("%-17s %-5s %-5s %-12s %7s %7s %7s %7s  %s\n", "case", "type", "path", "shape",
	       "GB/s", "copy", "of copy", "of peak", "timed");
	for (dt = 0; dt <= MCINIT_DTYPE_BF16; dt++)
		for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
			for (exact = 0; exact < 2; exact++) {
				struct mcinit_kargs a = {.dtype = dt,
				                         .rows = cases[c].rows,
				                         .cols = cases[c].cols,
				                         .in = x,
				                         .bias = w,
				                         .grad = y,
				                         .residual = y,
				                         .out = z,
				                         .p = 0.1f,
				                         .seed = 1,
				                         .exact = exact};
				struct mcinit_kbench t;
				double gbps, copy;
				char shape[32];
				int err;

				if (a.rows * a.cols * mcinit_dtype_size(dt) > cap / 2 + cap / 4)
					continue;
				if ((err = mcinit_kgpu_bench(cases[c].op, &a, 20, NULL, &t))) {
					printf("FAIL: timing %s: %s\n",
					       mcinit_kop_name(cases[c].op),
					       mcinit_kernels_strerror(err));
					failures++;
					continue;
				}
				gbps = mcinit_kop_bytes(cases[c].op, &a) / t.best_s / 1e9;
				copy = mcinit_kop_bytes(cases[c].op, &a) / t.copy_best_s / 1e9;
				snprintf(shape, sizeof shape, "%zux%zu", a.rows, a.cols);
				below += !exact && dt != MCINIT_DTYPE_F16 && gbps < 0.9 * copy;
				printf("%-17s %-5s %-5s %-12s %7.0f %7.0f %6.1f%% %6.1f%%  %s%s\n",
				       mcinit_kop_name(cases[c].op), mcinit_dtype_name(dt),
				       exact ? "exact" : "fast", shape, gbps, copy,
				       100 * gbps / copy, peak > 0 ? 100 * gbps / peak : 0,
				       t.flushed ? "L2 flushed" : "back to back",
				       exact || gbps >= 0.9 * copy ? "" : "  (below 90% of copy)");
			}
	printf("goal: the fast path at >= 90%% of the copy in bf16 and fp32: %d rows below\n",
	       below);
	cudaFree(w);
	cudaFree(z);
	cudaFree(y);
	cudaFree(x);
}

static void
phase(void)
{
	struct mcinit_kernels_job j;
	struct mcinit_kernels_result r;
	int dt, c;

	printf("\nthe kernels phase (Llama-3 8B, TP 1, MBS 1, seq 8192, 5 calls)\n");
	for (dt = 0; dt <= MCINIT_DTYPE_BF16; dt++) {
		mcinit_kernels_job_init(&j);
		j.dtype = dt;
		j.swiglu = 1;
		j.seq_length = 8192;
		j.micro_batch_size = 1;
		j.hidden_size = 4096;
		j.ffn_hidden_size = 14336;
		j.seed = 1234;
		j.device = MCINIT_KDEV_GPU;
		if (mcinit_kernels_phase(&j, &r)) {
			printf("FAIL: phase %s: %s\n", mcinit_dtype_name(dt), r.message);
			failures++;
			continue;
		}
		for (c = 0; c < r.ncases; c++)
			printf(
			    "%-5s %-17s %-5s %zux%zu: best %.3f ms, %.0f GB/s = %.0f%% of a copy, "
			    "%zu checked, max %g ulps (bound %g)\n",
			    r.cases[c].ok ? "ok" : "FAIL", mcinit_kop_name(r.cases[c].op),
			    mcinit_dtype_name(dt), r.cases[c].rows, r.cases[c].cols,
			    r.cases[c].best_s * 1e3, r.cases[c].gbps, 100 * r.cases[c].of_copy,
			    r.cases[c].checked, r.cases[c].max_ulps, r.cases[c].ulps_allowed);
	}
}

int
main(int argc, char **argv)
{
	static const size_t shapes[][2] = {{1, 2},     {3, 7},     {7, 130},   {33, 1000},
	                                   {64, 4096}, {5, 14336}, {257, 1234}};
	struct cudaDeviceProp prop;
	int dev = 0, op, dt, quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	int bench = argc > 1 && strcmp(argv[1], "--bench") == 0;
	size_t s, shift;
	double peak;

	if (no_gpu())
		return 77;
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	peak = peak_gbps(dev);
	printf("device %d: %s, sm_%d%d, %d SMs, peak %.0f GB/s (memory clock x bus width)\n", dev,
	       prop.name, prop.major, prop.minor, prop.multiProcessorCount, peak);
	if (bench) {
		bandwidth(peak);
		return failures ? 1 : 0;
	}
	printf("\ncorrectness against the CPU reference: the bit-exact kernels (fail above %g "
	       "ulp) and the fast path (fails above its bound, mcinit_kfast_ulps; every other "
	       "shape with edge inputs)\n",
	       MAX_ULPS);
	for (op = 0; op < MCINIT_KOP_COUNT; op++)
		for (dt = 0; dt <= MCINIT_DTYPE_BF16; dt++)
			for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
				for (shift = 0; shift < 2; shift++) {
					int swiglu = op == MCINIT_KOP_BIAS_SWIGLU_FWD ||
					             op == MCINIT_KOP_BIAS_SWIGLU_BWD;
					size_t cols = shapes[s][1] + (swiglu && shapes[s][1] % 2);

					if (quick && s % 2)
						continue;
					correctness(op, dt, shapes[s][0], cols, shift ? 3 : 0, 1,
					            0);
					correctness(op, dt, shapes[s][0], cols, shift ? 3 : 0, 0,
					            (int)(s % 2));
				}
	if (!quick)
		bandwidth(peak);
	phase();
	printf("\n%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
