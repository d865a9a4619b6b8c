/* gpu-kernels.cu — the CUDA kernels: grid-stride kernels per operation,
 * type, path (bit-exact or fast) and index width, running the bodies of
 * kbody.h and kwalk.h.  Device code only: it is compiled to PTX and cubins
 * and packed into a fatbin (Makefile.am, "the fused kernels"), which the
 * module embeds as data and loads with the driver API (gpu-backend.c:
 * cuModuleLoadData, cuModuleGetFunction by the names of knames.h,
 * cuLaunchKernel), so no CUDA runtime registers anything and the module
 * needs no CUDA library to load.
 *
 * Built only when configure finds CUDA (automake conditional), with
 * -fmad=false and IEEE division so that the arithmetic is the reference's
 * (kmath.h); the fast path asks for its fmas and approximations by name. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <string.h>

#include "knames.h"

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

/* The plan is read in place (__grid_constant__), never copied to local
 * memory.  FAST: the fast path; I32: 32-bit indices. */
template <int OP, int DT, int FAST, int I32>
static __device__ __forceinline__ void
km_kernel(const struct km_plan &p)
{
	if (I32)
		km32::km_body(OP, DT, FAST, &p, blockIdx.x * blockDim.x + threadIdx.x,
			      gridDim.x * blockDim.x);
	else
		km64::km_body(OP, DT, FAST, &p, blockIdx.x * (uint64_t)blockDim.x + threadIdx.x,
			      (uint64_t)gridDim.x * blockDim.x);
}

/* Every operation x type x path as an extern "C" kernel with its fixed
 * name (knames.h): 256 threads, at least 4 blocks per SM.  The bit-exact
 * kernels use 64-bit indices only: they are the reference, not the fast
 * path. */
#define KM_DEF_OP(op, OP, dt, DT)                                                                  \
	extern "C" __global__ void __launch_bounds__(KM_THREADS, 4)                                \
	    KM_KSYM(op, dt, exact)(const __grid_constant__ struct km_plan p)                        \
	{                                                                                          \
		km_kernel<OP, DT, 0, 0>(p);                                                        \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(KM_THREADS, 4)                                \
	    KM_KSYM(op, dt, fast32)(const __grid_constant__ struct km_plan p)                       \
	{                                                                                          \
		km_kernel<OP, DT, 1, 1>(p);                                                        \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(KM_THREADS, 4)                                \
	    KM_KSYM(op, dt, fast64)(const __grid_constant__ struct km_plan p)                       \
	{                                                                                          \
		km_kernel<OP, DT, 1, 0>(p);                                                        \
	}
KM_FOR_OP_DT(KM_DEF_OP)

/* The phase's inputs, element i = mcinit_kernels_input(dt, seed, tensor, i). */
#define KM_DEF_FILL(dt, DT)                                                                        \
	extern "C" __global__ void __launch_bounds__(KM_THREADS)                                   \
	    KM_FILLSYM(dt)(char *dst, uint64_t n, uint64_t seed, uint32_t tensor)                   \
	{                                                                                          \
		uint64_t nth = (uint64_t)gridDim.x * blockDim.x, i;                                \
                                                                                                   \
		for (i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += nth)         \
			km_st(DT, dst, i, km_input(DT, seed, tensor, i));                          \
	}
KM_FOR_DTYPE(KM_DEF_FILL)

/* dst[j] = (float)src[idx[j]], j < k: the elements the phase checks. */
#define KM_DEF_GATHER(dt, DT)                                                                      \
	extern "C" __global__ void KM_GATHERSYM(dt)(const char *src, const uint64_t *idx,          \
						    uint64_t k, float *dst)                        \
	{                                                                                          \
		uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;                      \
                                                                                                   \
		if (j < k)                                                                         \
			dst[j] = km_ld(DT, src, idx[j]);                                           \
	}
KM_FOR_DTYPE(KM_DEF_GATHER)
