/* kprobe.cu — one kernel per formula of kmath.h, each computing one element,
 * so that build-aux/kernel-ptxas.sh can count the PTX instructions an
 * element's arithmetic costs.  Never linked into anything. */
#include <cuda_fp16.h>
#include <stdint.h>

#define KM_FN static __host__ __device__ __forceinline__
#include "kmath.h"

#define PROBE1(name, expr)                                                                         \
	extern "C" __global__ void name(float *p)                                                  \
	{                                                                                          \
		float x = p[threadIdx.x];                                                          \
		p[threadIdx.x] = (expr);                                                           \
	}

PROBE1(exact_gelu, km_gelu(x))
PROBE1(exact_gelu_back, km_gelu_grad(x))
PROBE1(exact_silu, km_silu(x))
PROBE1(exact_swiglu_back_a, km_swiglu_grad_a(x, x + 1.0f, x - 1.0f))
PROBE1(exact_bf16_round, km_bf16_to_f32(km_f32_to_bf16(x)))
