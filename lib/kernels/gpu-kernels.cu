/* gpu-kernels.cu — the CUDA kernels: one grid-stride kernel per operation
 * and type, running the bodies of kbody.h, and their C launchers.
 *
 * Built only when configure finds CUDA (automake conditional), with
 * -fmad=false and IEEE division so that the arithmetic is the reference's
 * (kmath.h). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <string.h>

#include "kgpu.h"

#define KM_FN static __host__ __device__ __forceinline__
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

#define KM_LD16(p)    km_cuda_ld16(p)
#define KM_ST16(p, v) km_cuda_st16((p), (v))
#define KM_H2F(h)     km_cuda_h2f(h)
#define KM_F2H(f)     km_cuda_f2h(f)
#include "kbody.h"

/* 256 threads, at least 4 blocks per SM: at most 64 registers, so that
 * enough loads are in flight to cover HBM latency. */
enum { THREADS = 256 };

template <int OP, int DT>
__global__ void __launch_bounds__(THREADS, 4) km_kernel(const struct km_plan p)
{
	km_body(OP, DT, &p, blockIdx.x * (uint64_t)blockDim.x + threadIdx.x,
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

/* Enough blocks to fill the device (8 of 256 threads per SM, the most an
 * SM holds), fewer for small tensors; the loops stride over the rest. */
static unsigned
grid_for(uint64_t items)
{
	int dev = 0, sms = 0;
	uint64_t want = (items + THREADS - 1) / THREADS, most;

	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
	    sms <= 0)
		sms = 1;
	most = (uint64_t)sms * (2048 / THREADS);
	if (want > most)
		want = most;
	return want ? (unsigned)want : 1u;
}

template <int OP>
static void
launch_op(int dt, const struct km_plan &p, unsigned grid, cudaStream_t s)
{
	if (dt == MCINIT_DTYPE_F32)
		km_kernel<OP, MCINIT_DTYPE_F32><<<grid, THREADS, 0, s>>>(p);
	else if (dt == MCINIT_DTYPE_F16)
		km_kernel<OP, MCINIT_DTYPE_F16><<<grid, THREADS, 0, s>>>(p);
	else
		km_kernel<OP, MCINIT_DTYPE_BF16><<<grid, THREADS, 0, s>>>(p);
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
	unsigned grid;
	int err = mcinit_kargs_check(op, a);

	if (err)
		return err;
	if (a->rows == 0)
		return MCINIT_KERR_OK;
	km_plan_make(op, a, &p);
	grid = grid_for(p.nvec ? p.nvec : p.n);
	switch (op) {
	case MCINIT_KOP_BIAS_GELU_FWD:
		launch_op<MCINIT_KOP_BIAS_GELU_FWD>(a->dtype, p, grid, s);
		break;
	case MCINIT_KOP_BIAS_GELU_BWD:
		launch_op<MCINIT_KOP_BIAS_GELU_BWD>(a->dtype, p, grid, s);
		break;
	case MCINIT_KOP_BIAS_SWIGLU_FWD:
		launch_op<MCINIT_KOP_BIAS_SWIGLU_FWD>(a->dtype, p, grid, s);
		break;
	case MCINIT_KOP_BIAS_SWIGLU_BWD:
		launch_op<MCINIT_KOP_BIAS_SWIGLU_BWD>(a->dtype, p, grid, s);
		break;
	case MCINIT_KOP_BIAS_DROPOUT_ADD:
		launch_op<MCINIT_KOP_BIAS_DROPOUT_ADD>(a->dtype, p, grid, s);
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
	grid = grid_for(n);
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
