/* kbody.h — what the kernels' threads share: the plan, element access,
 * each operation's formula (the reference's or the fast path's), and the
 * walk over a tensor (kwalk.h).
 *
 * Not a public header.  The CUDA kernels run these bodies with
 * tid = blockIdx.x*blockDim.x + threadIdx.x and nth = the grid's threads; the
 * unit tests run them on the host for every tid of a small pretend grid, so
 * the indexing (misaligned heads, odd tails, rows that end inside a vector) is
 * tested without a GPU.  The includer defines, besides KM_FN (kmath.h):
 *   KM_LD16(ptr)      16 aligned bytes at ptr as struct km_v16
 *   KM_ST16(ptr, v)   store them
 *   KM_H2F(u16), KM_F2H(f)   fp16 <-> fp32, round to nearest even
 *   KM_PACK2(dt, lo, hi)     two floats as two bf16 or fp16 in a word
 *   KM_RESTRICT              restrict, or nothing
 *   KM_UNROLL                unroll the next loop (a pragma), or nothing
 */
#ifndef MCINIT_KBODY_H
#define MCINIT_KBODY_H

#include <stdint.h>

#include "kmath.h"
#include "mcinit_kernels.h"

/* Everything a kernel needs, by value (it is a kernel parameter). */
struct km_plan {
	const char *in, *bias, *aux; /* aux: grad (backward) or residual     */
	char *out;
	uint8_t *mask;
	uint64_t n;      /* elements walked: of in (flat ops), of the    */
	uint64_t cols;   /* SwiGLU output (rows * half); cols of `in'     */
	uint64_t head;   /* scalar elements before the first vector       */
	uint64_t nvec;   /* 16-byte vectors after them                    */
	int bias_vec;    /* bias read as vectors too                      */
	float scale;     /* dropout: 1/(1-p)                              */
	uint64_t thresh; /* dropout: keep when word < thresh              */
	uint64_t seed, offset;
};

KM_FN unsigned
km_size(int dt)
{
	return dt == MCINIT_DTYPE_F32 ? 4u : 2u;
}

KM_FN float
km_ld(int dt, const char *p, uint64_t i)
{
	if (dt == MCINIT_DTYPE_F32)
		return ((const float *)p)[i];
	if (dt == MCINIT_DTYPE_BF16)
		return km_bf16_to_f32(((const uint16_t *)p)[i]);
	return KM_H2F(((const uint16_t *)p)[i]);
}

KM_FN void
km_st(int dt, char *p, uint64_t i, float v)
{
	if (dt == MCINIT_DTYPE_F32)
		((float *)p)[i] = v;
	else if (dt == MCINIT_DTYPE_BF16)
		((uint16_t *)p)[i] = km_f32_to_bf16(v);
	else
		((uint16_t *)p)[i] = KM_F2H(v);
}

/* Element j of a vector (memory order; little-endian halves). */
KM_FN float
km_vget(int dt, const struct km_v16 *v, unsigned j)
{
	uint16_t h;

	if (dt == MCINIT_DTYPE_F32)
		return km_u2f(v->w[j]);
	h = (uint16_t)(v->w[j >> 1] >> ((j & 1u) * 16u));
	return dt == MCINIT_DTYPE_BF16 ? km_bf16_to_f32(h) : KM_H2F(h);
}

KM_FN void
km_vset(int dt, struct km_v16 *v, unsigned j, float f)
{
	uint32_t h, sh;

	if (dt == MCINIT_DTYPE_F32) {
		v->w[j] = km_f2u(f);
		return;
	}
	h = dt == MCINIT_DTYPE_BF16 ? km_f32_to_bf16(f) : KM_F2H(f);
	sh = (j & 1u) * 16u;
	v->w[j >> 1] = (v->w[j >> 1] & ~(0xffffu << sh)) | (h << sh);
}

/* f rounded to dt (and back to float). */
KM_FN float
km_round(int dt, float f)
{
	if (dt == MCINIT_DTYPE_BF16)
		return km_bf16_to_f32(km_f32_to_bf16(f));
	if (dt == MCINIT_DTYPE_F16)
		return KM_H2F(KM_F2H(f));
	return f;
}

/* rnd[k] without indexing an array by a run-time value (which would put the
 * array in a GPU thread's local memory). */
KM_FN uint32_t
km_pick(const uint32_t rnd[4], unsigned k)
{
	return k == 0 ? rnd[0] : k == 1 ? rnd[1] : k == 2 ? rnd[2] : rnd[3];
}

/* The phase's test input: element i of tensor `tensor', uniform in [-2, 2)
 * rounded to dt, from the Philox stream at offset 2^63 + tensor (per-call
 * dropout offsets never get there). */
KM_FN float
km_input(int dt, uint64_t seed, uint32_t tensor, uint64_t i)
{
	uint32_t w[4];
	float v;

	km_philox_block(seed, ((uint64_t)1 << 63) | tensor, i >> 2, w);
	v = km_uniform_pm2(km_pick(w, (unsigned)i & 3u));
	return km_round(dt, v);
}

/* ---- each operation's formula: the reference's, or the fast path's ---- */

KM_FN float
km_gelu_dt(int dt, int fast, float x)
{
	return fast ? km_fgelu(x, dt != MCINIT_DTYPE_F32, dt == MCINIT_DTYPE_F32) : km_gelu(x);
}

KM_FN float
km_gelu_grad_dt(int dt, int fast, float x)
{
	return fast ? km_fgelu_grad(x, dt != MCINIT_DTYPE_F32, dt == MCINIT_DTYPE_F32)
	            : km_gelu_grad(x);
}

KM_FN float
km_silu_dt(int dt, int fast, float a)
{
	return fast ? km_fsilu(a, dt != MCINIT_DTYPE_F32, dt == MCINIT_DTYPE_F32) : km_silu(a);
}

KM_FN float
km_swiglu_grad_a_dt(int dt, int fast, float g, float a, float b)
{
	return fast ? km_fswiglu_grad_a(g, a, b, dt != MCINIT_DTYPE_F32)
	            : km_swiglu_grad_a(g, a, b);
}

/* Elements j and j + 1 (j even) of an output vector, from floats: the
 * fast path converts two at a time (KM_PACK2, one instruction on a GPU);
 * the reference's conversions keep NaN payloads. */
KM_FN void
km_vput2(int dt, int fast, struct km_v16 *v, unsigned j, float lo, float hi)
{
	if (dt == MCINIT_DTYPE_F32) {
		v->w[j] = km_f2u(lo);
		v->w[j + 1] = km_f2u(hi);
	} else if (fast) {
		v->w[j >> 1] = KM_PACK2(dt, lo, hi);
	} else {
		km_vset(dt, v, j, lo);
		km_vset(dt, v, j + 1, hi);
	}
}

/* Vectors a thread loads before it computes (several 16-byte loads in
 * flight per thread): 4 of gelu's one input, 2 of two inputs, 1 of
 * SwiGLU backward's three (more would spill at 64 registers). */
#define KM_UMAX 4
KM_FN unsigned
km_unroll(int op, int fast)
{
	if (!fast || op == MCINIT_KOP_BIAS_SWIGLU_BWD)
		return 1;
	return op == MCINIT_KOP_BIAS_GELU_FWD ? 4u : 2u;
}

/* ---- the plan, made on the host from checked arguments ---- */

KM_FN int
km_aligned(const void *ptr)
{
	return ((uintptr_t)ptr & 15u) == 0;
}

KM_FN void
km_plan_make(int op, const struct mcinit_kargs *a, struct km_plan *p)
{
	unsigned sz = km_size(a->dtype), V = 16u / sz;
	uint64_t n = (uint64_t)a->rows * a->cols;
	uintptr_t mis = (uintptr_t)a->in & 15u;
	int swiglu = op == MCINIT_KOP_BIAS_SWIGLU_FWD || op == MCINIT_KOP_BIAS_SWIGLU_BWD;
	const void *aux = op == MCINIT_KOP_BIAS_DROPOUT_ADD ? a->residual : a->grad;

	p->in = (const char *)a->in;
	p->bias = (const char *)a->bias;
	p->aux = (const char *)(op == MCINIT_KOP_BIAS_GELU_FWD || op == MCINIT_KOP_BIAS_SWIGLU_FWD
	                            ? 0
	                            : aux);
	p->out = (char *)a->out;
	p->mask = op == MCINIT_KOP_BIAS_DROPOUT_ADD ? a->mask : 0;
	p->cols = a->cols;
	p->seed = a->seed;
	p->offset = a->offset;
	p->thresh = km_keep_threshold(a->p);
	p->scale = a->p < 1.0f ? 1.0f / (1.0f - a->p) : 0.0f;
	p->head = 0;
	p->nvec = 0;
	if (swiglu) {
		uint64_t h = a->cols / 2;

		p->n = a->rows * h;
		if (h % V == 0 && km_aligned(a->in) && km_aligned(a->out) &&
		    (!p->aux || km_aligned(p->aux)))
			p->nvec = p->n / V;
		p->bias_vec = p->nvec && km_aligned(a->bias);
		return;
	}
	/* Vectors need every tensor at the same distance from a 16-byte
	 * boundary; the head brings them to it. */
	p->n = n;
	if (((uintptr_t)a->out & 15u) == mis && (!p->aux || ((uintptr_t)p->aux & 15u) == mis) &&
	    mis % sz == 0) {
		p->head = ((16u - mis) & 15u) / sz;
		if (p->head > n)
			p->head = n;
		p->nvec = (n - p->head) / V;
	}
	p->bias_vec = p->head == 0 && a->cols % V == 0 && km_aligned(a->bias);
}

/* Whether 32-bit indices reach every element and byte of op's tensors (the
 * launcher then runs the kernels built with them). */
KM_FN int
km_plan_idx32(int op, const struct mcinit_kargs *a)
{
	(void)op;
	return (uint64_t)a->rows * a->cols * km_size(a->dtype) < ((uint64_t)1 << 31);
}

/* The walk itself, over the index type km_idx: 64 bits here (the host
 * runs it so); gpu-kernels.cu includes it twice, with 32 and 64. */
#ifndef KM_NO_WALK
typedef uint64_t km_idx;
#include "kwalk.h"
#endif

#endif
