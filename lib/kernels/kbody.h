/* kbody.h — how one thread of a grid-stride kernel walks a tensor: a scalar
 * head up to the first 16-byte boundary, 16-byte vectors, a scalar tail.
 *
 * Not a public header.  The CUDA kernels run these bodies with
 * tid = blockIdx.x*blockDim.x + threadIdx.x and nth = the grid's threads; the
 * unit tests run them on the host for every tid of a small pretend grid, so
 * the indexing (misaligned heads, odd tails, rows that end inside a vector) is
 * tested without a GPU.  The includer defines, besides KM_FN (kmath.h):
 *   KM_LD16(ptr)      16 aligned bytes at ptr as struct km_v16
 *   KM_ST16(ptr, v)   store them
 *   KM_H2F(u16), KM_F2H(f)   fp16 <-> fp32, round to nearest even
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

/* ---- flat operations: gelu forward/backward, dropout-add ---- */

/* One output element from x = in + bias and a = grad or residual. */
KM_FN float
km_flat_op(int op, const struct km_plan *p, uint64_t i, float x, float a, const uint32_t rnd[4])
{
	int keep;

	if (op == MCINIT_KOP_BIAS_GELU_FWD)
		return km_gelu(x);
	if (op == MCINIT_KOP_BIAS_GELU_BWD)
		return km_gelu_grad(x) * a;
	keep = km_pick(rnd, (unsigned)i & 3u) < p->thresh;
	if (p->mask)
		p->mask[i] = (uint8_t)keep;
	return a + (keep ? x * p->scale : 0.0f);
}

KM_FN void
km_flat_scalar(int op, int dt, const struct km_plan *p, uint64_t i)
{
	uint32_t rnd[4] = {0, 0, 0, 0};
	float x = km_ld(dt, p->in, i) + km_ld(dt, p->bias, i % p->cols);
	float a = p->aux ? km_ld(dt, p->aux, i) : 0.0f;

	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD)
		km_philox_block(p->seed, p->offset, i >> 2, rnd);
	km_st(dt, p->out, i, km_flat_op(op, p, i, x, a, rnd));
}

/* The vector at element i0 = head + v*V, whose first column is c. */
KM_FN void
km_flat_vec(int op, int dt, const struct km_plan *p, uint64_t i0, uint64_t c)
{
	unsigned V = 16u / km_size(dt), j;
	uint64_t off = i0 * km_size(dt);
	struct km_v16 x = KM_LD16(p->in + off), a = {{0, 0, 0, 0}}, b = {{0, 0, 0, 0}};
	struct km_v16 o = {{0, 0, 0, 0}};
	uint32_t rnd[4] = {0, 0, 0, 0};

	if (p->aux)
		a = KM_LD16(p->aux + off);
	if (p->bias_vec)
		b = KM_LD16(p->bias + c * km_size(dt));
	for (j = 0; j < V; j++) {
		uint64_t i = i0 + j;
		float bj = p->bias_vec ? km_vget(dt, &b, j) : km_ld(dt, p->bias, c);

		if (op == MCINIT_KOP_BIAS_DROPOUT_ADD && (j == 0 || (i & 3u) == 0))
			km_philox_block(p->seed, p->offset, i >> 2, rnd);
		km_vset(dt, &o, j,
		        km_flat_op(op, p, i, km_vget(dt, &x, j) + bj, km_vget(dt, &a, j), rnd));
		if (++c == p->cols)
			c = 0;
	}
	KM_ST16(p->out + off, o);
}

KM_FN void
km_flat_body(int op, int dt, const struct km_plan *p, uint64_t tid, uint64_t nth)
{
	uint64_t V = 16u / km_size(dt), i, v, c, step;

	for (i = tid; i < p->head; i += nth)
		km_flat_scalar(op, dt, p, i);
	/* The column advances by the grid's stride each step: no division in
	 * the loop. */
	c = (p->head + tid * V) % p->cols;
	step = (nth * V) % p->cols;
	for (v = tid; v < p->nvec; v += nth) {
		km_flat_vec(op, dt, p, p->head + v * V, c);
		c += step;
		if (c >= p->cols)
			c -= p->cols;
	}
	for (i = p->head + p->nvec * V + tid; i < p->n; i += nth)
		km_flat_scalar(op, dt, p, i);
}

/* ---- SwiGLU: output (r, c), c < h = cols/2, from in (r, c) and (r, h + c) ---- */

KM_FN void
km_swiglu_scalar(int op, int dt, const struct km_plan *p, uint64_t r, uint64_t c)
{
	uint64_t h = p->cols / 2, ia = r * p->cols + c, ib = ia + h;
	float a = km_ld(dt, p->in, ia) + km_ld(dt, p->bias, c);
	float b = km_ld(dt, p->in, ib) + km_ld(dt, p->bias, h + c);
	float g;

	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
		km_st(dt, p->out, r * h + c, km_silu(a) * b);
		return;
	}
	g = km_ld(dt, p->aux, r * h + c);
	km_st(dt, p->out, ia, km_swiglu_grad_a(g, a, b));
	km_st(dt, p->out, ib, g * km_silu(a));
}

KM_FN void
km_swiglu_vec(int op, int dt, const struct km_plan *p, uint64_t r, uint64_t c)
{
	unsigned V = 16u / km_size(dt), j, sz = km_size(dt);
	uint64_t h = p->cols / 2, ia = r * p->cols + c, ib = ia + h;
	struct km_v16 a = KM_LD16(p->in + ia * sz), b = KM_LD16(p->in + ib * sz);
	struct km_v16 ba = {{0, 0, 0, 0}}, bb = {{0, 0, 0, 0}}, g = {{0, 0, 0, 0}};
	struct km_v16 o1 = {{0, 0, 0, 0}}, o2 = {{0, 0, 0, 0}};

	if (p->bias_vec) {
		ba = KM_LD16(p->bias + c * sz);
		bb = KM_LD16(p->bias + (h + c) * sz);
	}
	if (op == MCINIT_KOP_BIAS_SWIGLU_BWD)
		g = KM_LD16(p->aux + (r * h + c) * sz);
	for (j = 0; j < V; j++) {
		float aj = km_vget(dt, &a, j), bj = km_vget(dt, &b, j), gj;

		aj += p->bias_vec ? km_vget(dt, &ba, j) : km_ld(dt, p->bias, c + j);
		bj += p->bias_vec ? km_vget(dt, &bb, j) : km_ld(dt, p->bias, h + c + j);
		if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
			km_vset(dt, &o1, j, km_silu(aj) * bj);
			continue;
		}
		gj = km_vget(dt, &g, j);
		km_vset(dt, &o1, j, km_swiglu_grad_a(gj, aj, bj));
		km_vset(dt, &o2, j, gj * km_silu(aj));
	}
	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
		KM_ST16(p->out + (r * h + c) * sz, o1);
		return;
	}
	KM_ST16(p->out + ia * sz, o1);
	KM_ST16(p->out + ib * sz, o2);
}

/* n = rows * h output elements; nvec != 0 only when h is a multiple of V and
 * the tensors are aligned, so a vector never crosses a row. */
KM_FN void
km_swiglu_body(int op, int dt, const struct km_plan *p, uint64_t tid, uint64_t nth)
{
	uint64_t V = 16u / km_size(dt), h = p->cols / 2, i;

	if (p->nvec) {
		uint64_t hv = h / V, r = tid / hv, c = tid % hv, sr = nth / hv, sc = nth % hv, v;

		for (v = tid; v < p->nvec; v += nth) {
			km_swiglu_vec(op, dt, p, r, c * V);
			c += sc;
			r += sr;
			if (c >= hv) {
				c -= hv;
				r++;
			}
		}
		return;
	}
	for (i = tid; i < p->n; i += nth)
		km_swiglu_scalar(op, dt, p, i / h, i % h);
}

KM_FN void
km_body(int op, int dt, const struct km_plan *p, uint64_t tid, uint64_t nth)
{
	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD || op == MCINIT_KOP_BIAS_SWIGLU_BWD)
		km_swiglu_body(op, dt, p, tid, nth);
	else
		km_flat_body(op, dt, p, tid, nth);
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

#endif
