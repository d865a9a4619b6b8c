/* kprobe.cu — one kernel per formula of kmath.h, each computing one element,
 * so that build-aux/kernel-ptxas.sh can count the PTX instructions an
 * element's arithmetic costs.  Never linked into anything. */
#include <cuda_fp16.h>
#include <stdint.h>

#define KM_FN static __host__ __device__ __forceinline__

static __device__ __forceinline__ float
ex2(float t)
{
	float r;

	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
	return r;
}

static __device__ __forceinline__ float
rcp(float d)
{
	float r;

	asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
	return r;
}

/* kmath.h's host side is compiled too; these probes never run there. */
#ifdef __CUDA_ARCH__
#define KM_EX2(t) ex2(t)
#define KM_RCP(d) rcp(d)
#else
#define KM_EX2(t) (t)
#define KM_RCP(d) (d)
#endif
#include "kmath.h"

#define PROBE1(name, expr)                                                                         \
	extern "C" __global__ void name(float *p)                                                  \
	{                                                                                          \
		float x = p[threadIdx.x];                                                          \
		p[threadIdx.x] = (expr);                                                           \
	}

PROBE1(baseline, x)
PROBE1(exact_gelu, km_gelu(x))
PROBE1(exact_gelu_back, km_gelu_grad(x))
PROBE1(exact_silu, km_silu(x))
PROBE1(exact_swiglu_back_a, km_swiglu_grad_a(x, x + 1.0f, x - 1.0f))
PROBE1(exact_bf16_round, km_bf16_to_f32(km_f32_to_bf16(x)))
PROBE1(fast_gelu_fp32, km_fgelu(x, 0, 1))
PROBE1(fast_gelu_16bit, km_fgelu(x, 1, 0))
PROBE1(fast_gelu_back_fp32, km_fgelu_grad(x, 0, 1))
PROBE1(fast_gelu_back_16bit, km_fgelu_grad(x, 1, 0))
PROBE1(fast_silu_fp32, km_fsilu(x, 0, 1))
PROBE1(fast_silu_16bit, km_fsilu(x, 1, 0))
PROBE1(fast_swiglu_back_a_fp32, km_fswiglu_grad_a(x, x + 1.0f, x - 1.0f, 0))
PROBE1(fast_swiglu_back_a_16bit, km_fswiglu_grad_a(x, x + 1.0f, x - 1.0f, 1))
