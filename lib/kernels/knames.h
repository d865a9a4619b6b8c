/* knames.h — the names of the CUDA kernels in the module's fatbin, shared
 * by the kernels (gpu-kernels.cu defines them), the host side that looks
 * them up (gpu-backend.c: cuModuleGetFunction) and the CPU double of the
 * driver (tests/double/cuda.c runs a host build of each).  Not a public
 * header.
 *
 * Each operation x type has three kernels: the bit-exact one (64-bit
 * indices) and the fast path's with 32-bit and 64-bit indices; fill and
 * gather have one per type.  The names are extern "C" and fixed: they are
 * the interface between the blob and the code that launches it. */
#ifndef MCINIT_KNAMES_H
#define MCINIT_KNAMES_H

#include "mcinit_kernels.h"

/* X(op, OPENUM, dt, DTENUM) for every operation and type. */
#define KM_FOR_DT(X, op, OP)                                                                       \
	X(op, OP, f32, MCINIT_DTYPE_F32)                                                           \
	X(op, OP, f16, MCINIT_DTYPE_F16) X(op, OP, bf16, MCINIT_DTYPE_BF16)
#define KM_FOR_OP_DT(X)                                                                            \
	KM_FOR_DT(X, gelu_fwd, MCINIT_KOP_BIAS_GELU_FWD)                                           \
	KM_FOR_DT(X, gelu_bwd, MCINIT_KOP_BIAS_GELU_BWD)                                           \
	KM_FOR_DT(X, swiglu_fwd, MCINIT_KOP_BIAS_SWIGLU_FWD)                                       \
	KM_FOR_DT(X, swiglu_bwd, MCINIT_KOP_BIAS_SWIGLU_BWD)                                       \
	KM_FOR_DT(X, dropout_add, MCINIT_KOP_BIAS_DROPOUT_ADD)
/* X(dt, DTENUM) for every type. */
#define KM_FOR_DTYPE(X) X(f32, MCINIT_DTYPE_F32) X(f16, MCINIT_DTYPE_F16) X(bf16, MCINIT_DTYPE_BF16)

/* The kernels' paths: bit-exact, fast with 32-bit indices, fast with 64. */
enum { KM_PATH_EXACT, KM_PATH_FAST32, KM_PATH_FAST64, KM_PATHS };

/* The symbol of an operation's kernel, and of fill's and gather's; the
 * same as a string. */
#define KM_KSYM(op, dt, path)  mcinit_k_##op##_##dt##_##path
#define KM_KNAME(op, dt, path) "mcinit_k_" #op "_" #dt "_" #path
#define KM_FILLSYM(dt)         mcinit_kfill_##dt
#define KM_FILLNAME(dt)        "mcinit_kfill_" #dt
#define KM_GATHERSYM(dt)       mcinit_kgather_##dt
#define KM_GATHERNAME(dt)      "mcinit_kgather_" #dt

/* Threads per block of every kernel; the operations' kernels also ask for
 * at least 4 resident blocks per SM (__launch_bounds__(256, 4): at most 64
 * registers, so that enough loads are in flight to cover HBM latency). */
#define KM_THREADS 256

#endif
