/* gpu-kernels.cu — the CUDA kernels: grid-stride kernels per operation,
 * type, path (bit-exact or fast) and index width, running the bodies of
 * kbody.h and kwalk.h, and their C launchers.
 *
 * Built only when configure finds CUDA (automake conditional), with
 * -fmad=false and IEEE division so that the arithmetic is the reference's
 * (kmath.h); the fast path asks for its fmas and approximations by name. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "kgpu.h"

#define KM_FN static __host__ __device__ __forceinline__

/* The fast path's hardware approximations (kmath.h says where; kops.c
 * bounds their effect).  The host side is compiled, never run. */
enum { KM_MUFU_EX2, KM_MUFU_RCP };
template <int F>
KM_FN float
km_mufu(float x)
{
#ifdef __CUDA_ARCH__
	float r;

	if (F == KM_MUFU_EX2)
		asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	else
		asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return r;
#else
	return F == KM_MUFU_EX2 ? exp2f(x) : 1.0f / x;
#endif
}

#define KM_EX2(t) km_mufu<KM_MUFU_EX2>(t)
#define KM_RCP(d) km_mufu<KM_MUFU_RCP>(d)
#include "kmath.h"

/* The __CUDA_ARCH__ tests below choose between the device's read-only vector
 * load and the host's memcpy inside host-and-device helpers (the host side
 * is compiled but only km_plan_make runs there). */
KM_FN struct km_v16
km_cuda_ld16(const void *p)
{
	struct km_v16 v;
#ifdef __CUDA_ARCH__
	uint4 u = __ldg((const uint4 *)p);

	v.w[0] = u.x;
	v.w[1] = u.y;
	v.w[2] = u.z;
	v.w[3] = u.w;
#else
	memcpy(&v, p, sizeof v);
#endif
	return v;
}

KM_FN void
km_cuda_st16(void *p, struct km_v16 v)
{
#ifdef __CUDA_ARCH__
	*(uint4 *)p = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
#else
	memcpy(p, &v, sizeof v);
#endif
}

KM_FN float
km_cuda_h2f(uint16_t h)
{
	return __half2float(__ushort_as_half(h));
}

KM_FN uint16_t
km_cuda_f2h(float f)
{
	return __half_as_ushort(__float2half_rn(f));
}

/* Two floats rounded to nearest even into two bf16 or fp16 (one cvt). */
KM_FN uint32_t
km_cuda_pack2(int dt, float lo, float hi)
{
#ifdef __CUDA_ARCH__
	union {
		__nv_bfloat162 b;
		__half2 h;
		uint32_t u;
	} v;

	if (dt == MCINIT_DTYPE_BF16)
		v.b = __floats2bfloat162_rn(lo, hi);
	else
		v.h = __floats2half2_rn(lo, hi);
	return v.u;
#else
	(void)dt;
	(void)lo;
	(void)hi;
	return 0;
#endif
}

#define KM_LD16(p)           km_cuda_ld16(p)
#define KM_ST16(p, v)        km_cuda_st16((p), (v))
#define KM_H2F(h)            km_cuda_h2f(h)
#define KM_F2H(f)            km_cuda_f2h(f)
#define KM_PACK2(dt, lo, hi) km_cuda_pack2((dt), (lo), (hi))
#define KM_RESTRICT          __restrict__
#ifdef __CUDA_ARCH__
#define KM_UNROLL _Pragma("unroll")
#else
#define KM_UNROLL
#endif
#define KM_NO_WALK
#include "kbody.h"

/* The walk twice: with 32-bit indices (tensors under 2 GiB) and 64-bit. */
namespace km32
{
typedef uint32_t km_idx;
#include "kwalk.h"
} // namespace km32
namespace km64
{
typedef uint64_t km_idx;
#include "kwalk.h"
} // namespace km64

/* 256 threads, at least 4 blocks per SM: at most 64 registers, so that
 * enough loads are in flight to cover HBM latency. */
enum { THREADS = 256 };

/* FAST: the fast path; I32: 32-bit indices.  The plan is read in place
 * (__grid_constant__), never copied to local memory. */
template <int OP, int DT, int FAST, int I32>
__global__ void __launch_bounds__(THREADS, 4) km_kernel(const __grid_constant__ struct km_plan p)
{
	if (I32)
		km32::km_body(OP, DT, FAST, &p, blockIdx.x * blockDim.x + threadIdx.x,
			      gridDim.x * blockDim.x);
	else
		km64::km_body(OP, DT, FAST, &p, blockIdx.x * (uint64_t)blockDim.x + threadIdx.x,
			      (uint64_t)gridDim.x * blockDim.x);
}

template <int DT>
__global__ void __launch_bounds__(THREADS)
    km_fill_kernel(char *dst, uint64_t n, uint64_t seed, uint32_t tensor)
{
	uint64_t nth = (uint64_t)gridDim.x * blockDim.x, i;

	for (i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += nth)
		km_st(DT, dst, i, km_input(DT, seed, tensor, i));
}

template <int DT>
__global__ void km_gather_kernel(const char *src, const uint64_t *idx, uint64_t k, float *dst)
{
	uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;

	if (j < k)
		dst[j] = km_ld(DT, src, idx[j]);
}

/* Enough blocks to fill the device (per_sm of them per SM), fewer for small
 * tensors; the loops stride over the rest. */
static unsigned
grid_for(uint64_t items, int per_sm)
{
	int dev = 0, sms = 0;
	uint64_t want = (items + THREADS - 1) / THREADS, most;

	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
	    sms <= 0)
		sms = 1;
	most = (uint64_t)sms * (per_sm > 0 ? per_sm : 1);
	if (want > most)
		want = most;
	return want ? (unsigned)want : 1u;
}

/* One wave: as many blocks per SM as the kernel's registers let reside
 * together (a second, partial wave would leave SMs idle at the end of a
 * grid-stride loop).  The bit-exact kernels use 64-bit indices only: they
 * are the reference, not the fast path. */
template <int OP, int DT>
static void
launch_dt(const struct km_plan &p, int fast, int i32, uint64_t items, cudaStream_t s)
{
	void (*k)(const struct km_plan) = !fast  ? km_kernel<OP, DT, 0, 0>
					  : i32 ? km_kernel<OP, DT, 1, 1>
						: km_kernel<OP, DT, 1, 0>;
	int per = 0;

	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, THREADS, 0) != cudaSuccess)
		per = 1;
	k<<<grid_for(items, per), THREADS, 0, s>>>(p);
}

template <int OP>
static void
launch_op(int dt, const struct km_plan &p, int fast, int i32, uint64_t items, cudaStream_t s)
{
	if (dt == MCINIT_DTYPE_F32)
		launch_dt<OP, MCINIT_DTYPE_F32>(p, fast, i32, items, s);
	else if (dt == MCINIT_DTYPE_F16)
		launch_dt<OP, MCINIT_DTYPE_F16>(p, fast, i32, items, s);
	else
		launch_dt<OP, MCINIT_DTYPE_BF16>(p, fast, i32, items, s);
}

static int
launched(void)
{
	return cudaGetLastError() == cudaSuccess ? MCINIT_KERR_OK : MCINIT_KERR_CUDA;
}

extern "C" int
mcinit_kgpu_run(enum mcinit_kop op, const struct mcinit_kargs *a, void *stream)
{
	struct km_plan p;
	cudaStream_t s = (cudaStream_t)stream;
	uint64_t items;
	int err = mcinit_kargs_check(op, a), fast, i32;

	if (err)
		return err;
	if (a->rows == 0)
		return MCINIT_KERR_OK;
	km_plan_make(op, a, &p);
	fast = !a->exact;
	i32 = km_plan_idx32(op, a);
	/* A thread takes km_unroll vectors per step of its loop. */
	items = p.nvec ? (p.nvec + km_unroll(op, fast) - 1) / km_unroll(op, fast) : p.n;
	switch (op) {
	case MCINIT_KOP_BIAS_GELU_FWD:
		launch_op<MCINIT_KOP_BIAS_GELU_FWD>(a->dtype, p, fast, i32, items, s);
		break;
	case MCINIT_KOP_BIAS_GELU_BWD:
		launch_op<MCINIT_KOP_BIAS_GELU_BWD>(a->dtype, p, fast, i32, items, s);
		break;
	case MCINIT_KOP_BIAS_SWIGLU_FWD:
		launch_op<MCINIT_KOP_BIAS_SWIGLU_FWD>(a->dtype, p, fast, i32, items, s);
		break;
	case MCINIT_KOP_BIAS_SWIGLU_BWD:
		launch_op<MCINIT_KOP_BIAS_SWIGLU_BWD>(a->dtype, p, fast, i32, items, s);
		break;
	case MCINIT_KOP_BIAS_DROPOUT_ADD:
		launch_op<MCINIT_KOP_BIAS_DROPOUT_ADD>(a->dtype, p, fast, i32, items, s);
		break;
	}
	return launched();
}

extern "C" int
mcinit_kgpu_fill(enum mcinit_dtype dt, void *dst, size_t n, uint64_t seed, uint32_t tensor,
		 void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	unsigned grid;

	if (n == 0)
		return MCINIT_KERR_OK;
	grid = grid_for(n, 2048 / THREADS);
	if (dt == MCINIT_DTYPE_F32)
		km_fill_kernel<MCINIT_DTYPE_F32><<<grid, THREADS, 0, s>>>((char *)dst, n, seed, tensor);
	else if (dt == MCINIT_DTYPE_F16)
		km_fill_kernel<MCINIT_DTYPE_F16><<<grid, THREADS, 0, s>>>((char *)dst, n, seed, tensor);
	else
		km_fill_kernel<MCINIT_DTYPE_BF16><<<grid, THREADS, 0, s>>>((char *)dst, n, seed,
									   tensor);
	return launched();
}

extern "C" int
mcinit_kgpu_gather(enum mcinit_dtype dt, const void *src, const uint64_t *idx, size_t k,
		   float *dst, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	unsigned grid = (unsigned)((k + THREADS - 1) / THREADS);
	const char *c = (const char *)src;

	if (k == 0)
		return MCINIT_KERR_OK;
	if (dt == MCINIT_DTYPE_F32)
		km_gather_kernel<MCINIT_DTYPE_F32><<<grid, THREADS, 0, s>>>(c, idx, k, dst);
	else if (dt == MCINIT_DTYPE_F16)
		km_gather_kernel<MCINIT_DTYPE_F16><<<grid, THREADS, 0, s>>>(c, idx, k, dst);
	else
		km_gather_kernel<MCINIT_DTYPE_BF16><<<grid, THREADS, 0, s>>>(c, idx, k, dst);
	return launched();
}

/* ---- timing that tells the truth (struct mcinit_kbench) ---- */

struct km_timed {
	enum mcinit_kop op;
	struct mcinit_kargs *a; /* NULL: the copy */
	void *dst;
	const void *src;
	size_t bytes;
	void *flush; /* 2x L2 to write before each run; NULL: back to back */
	size_t flush_bytes;
	cudaStream_t s;
	cudaEvent_t t0, t1;
};

static int
km_enqueue(struct km_timed *w, int c)
{
	if (!w->a)
		return cudaMemcpyAsync(w->dst, w->src, w->bytes, cudaMemcpyDeviceToDevice, w->s) ==
		               cudaSuccess
		           ? MCINIT_KERR_OK
		           : MCINIT_KERR_CUDA;
	w->a->offset = (uint64_t)c; /* a new dropout mask each call */
	return mcinit_kgpu_run(w->op, w->a, w->s);
}

static int
km_elapsed(struct km_timed *w, double *secs)
{
	float ms = 0;

	if (cudaEventRecord(w->t1, w->s) != cudaSuccess ||
	    cudaEventSynchronize(w->t1) != cudaSuccess ||
	    cudaEventElapsedTime(&ms, w->t0, w->t1) != cudaSuccess)
		return MCINIT_KERR_CUDA;
	*secs = ms * 1e-3;
	return MCINIT_KERR_OK;
}

/* calls runs after an untimed one: best and mean seconds per run. */
static int
km_time(struct km_timed *w, int calls, double *best, double *mean)
{
	double t, total = 0;
	int c, err;

	*best = INFINITY;
	if ((err = km_enqueue(w, calls - 1)))
		return err;
	if (!w->flush) {
		if (cudaEventRecord(w->t0, w->s) != cudaSuccess)
			return MCINIT_KERR_CUDA;
		for (c = 0; c < calls; c++)
			if ((err = km_enqueue(w, c)))
				return err;
		if ((err = km_elapsed(w, &t)))
			return err;
		*best = *mean = t / calls;
		return MCINIT_KERR_OK;
	}
	for (c = 0; c < calls; c++) {
		if (cudaMemsetAsync(w->flush, c & 0xff, w->flush_bytes, w->s) != cudaSuccess ||
		    cudaEventRecord(w->t0, w->s) != cudaSuccess)
			return MCINIT_KERR_CUDA;
		if ((err = km_enqueue(w, c)) || (err = km_elapsed(w, &t)))
			return err;
		total += t;
		if (t < *best)
			*best = t;
	}
	*mean = total / calls;
	return MCINIT_KERR_OK;
}

extern "C" int
mcinit_kgpu_bench(enum mcinit_kop op, struct mcinit_kargs *a, int calls, void *stream,
		  struct mcinit_kbench *t)
{
	struct km_timed w = {op, a, NULL, NULL, 0, NULL, 0, (cudaStream_t)stream, NULL, NULL};
	size_t moved = mcinit_kop_bytes(op, a);
	char *copy = NULL;
	int dev = 0, l2 = 0, err = mcinit_kargs_check(op, a);

	memset(t, 0, sizeof *t);
	if (err || calls <= 0)
		return err ? err : MCINIT_KERR_INVAL;
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess)
		return MCINIT_KERR_CUDA;
	t->l2_bytes = (size_t)l2;
	t->flushed = moved < 4 * t->l2_bytes;
	w.flush_bytes = 2 * t->l2_bytes;
	err = MCINIT_KERR_NOMEM;
	if (cudaMalloc((void **)&copy, moved / 2 * 2 + 16) != cudaSuccess ||
	    (t->flushed && cudaMalloc(&w.flush, w.flush_bytes) != cudaSuccess))
		goto out;
	err = MCINIT_KERR_CUDA;
	if (cudaEventCreate(&w.t0) != cudaSuccess || cudaEventCreate(&w.t1) != cudaSuccess ||
	    cudaMemsetAsync(copy, 0, moved / 2 * 2 + 16, w.s) != cudaSuccess)
		goto out;
	if ((err = km_time(&w, calls, &t->best_s, &t->mean_s)))
		goto out;
	w.a = NULL;
	w.src = copy;
	w.dst = copy + moved / 2;
	w.bytes = moved / 2;
	err = km_time(&w, calls, &t->copy_best_s, &t->copy_mean_s);
	a->offset = (uint64_t)(calls - 1);
out:
	if (w.t1)
		cudaEventDestroy(w.t1);
	if (w.t0)
		cudaEventDestroy(w.t0);
	cudaFree(w.flush);
	cudaFree(copy);
	return err;
}
