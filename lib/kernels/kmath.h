/* kmath.h — the arithmetic of the fused kernels, shared by the CPU reference
 * and the CUDA kernels so that both compute the same bits.
 *
 * Not a public header.  The includer defines KM_FN first: `static inline' for
 * C, `static __host__ __device__ __forceinline__' for nvcc.  (The includer
 * chooses, so this header has no compiler #ifdefs.)
 *
 * Why our own exp: a CPU libm expf and CUDA's expf differ in the last bit on
 * some inputs, and the point of the reference is that a GPU result can be
 * compared bit for bit.  Everything below uses only IEEE-754 operations that
 * are correctly rounded on both sides (+ - * /, fmaf, integer bit tricks), so
 * it must be built without contraction of a*b+c (gcc -ffp-contract=off, nvcc
 * -fmad=false) and without fast-math; fused multiply-adds are written out as
 * fmaf where they are wanted.
 */
#ifndef MCINIT_KMATH_H
#define MCINIT_KMATH_H

#include <stdint.h>

/* 16 bytes: the unit of the kernels' loads and stores. */
struct km_v16 {
	uint32_t w[4];
};

KM_FN uint32_t
km_f2u(float f)
{
	union {
		float f;
		uint32_t u;
	} v;

	v.f = f;
	return v.u;
}

KM_FN float
km_u2f(uint32_t u)
{
	union {
		float f;
		uint32_t u;
	} v;

	v.u = u;
	return v.f;
}

/* ---- bf16 and fp16: round to nearest, ties to even ---- */

KM_FN float
km_bf16_to_f32(uint16_t h)
{
	return km_u2f((uint32_t)h << 16);
}

KM_FN uint16_t
km_f32_to_bf16(float f)
{
	uint32_t x = km_f2u(f);

	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u); /* NaN stays a (quiet) NaN */
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

KM_FN float
km_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;

	if (e == 0x1f)
		return km_u2f(sign | 0x7f800000u | (m << 13));
	if (e != 0)
		return km_u2f(sign | ((e + 112u) << 23) | (m << 13));
	/* Subnormal (or zero): m * 2^-24, exact in fp32. */
	return sign ? -(float)m * 5.9604644775390625e-8f : (float)m * 5.9604644775390625e-8f;
}

KM_FN uint16_t
km_f32_to_f16(float f)
{
	uint32_t x = km_f2u(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
	uint32_t m, r, rem, half, s;

	if (ax > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
	if (ax >= 0x477ff000u) /* 65520 and above round to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (ax >= 0x38800000u) { /* normal half: drop 13 bits */
		r = (ax - 0x38000000u) >> 13;
		rem = ax & 0x1fffu;
		if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
			r++;
		return (uint16_t)(sign | r);
	}
	if (ax <= 0x33000000u) /* at most 2^-25: ties to even zero */
		return (uint16_t)sign;
	/* Subnormal half: the value in units of 2^-24. */
	m = (ax & 0x7fffffu) | 0x800000u;
	s = 126u - (ax >> 23);
	r = m >> s;
	rem = m & ((1u << s) - 1u);
	half = 1u << (s - 1u);
	if (rem > half || (rem == half && (r & 1u)))
		r++;
	return (uint16_t)(sign | r);
}

/* ---- exp ----
 * e^x = 2^k e^r with k = round(x / ln 2), |r| <= ln2/2; e^r by its Taylor
 * polynomial of degree 7 (truncation below 0.15 ulp); 2^k applied as two
 * powers of two so that results near overflow and in the subnormal range are
 * rounded once.  Measured against a double exp: at most 2 ulps (test-kernels).
 */
/* v * 2^k for k in [-150, 128], as two exact scalings so that a result
 * near overflow or in the subnormal range is rounded once. */
KM_FN float
km_ldexp(float v, int k)
{
	int k1 = k / 2;

	v *= km_u2f((uint32_t)(k1 + 127) << 23);
	return v * km_u2f((uint32_t)(k - k1 + 127) << 23);
}

/* x = k ln 2 + r with |r| <= ln2/2 (ln 2 in two parts, so that r is exact
 * to a few ulps); x is not NaN.  Returns 0 (and k = 0) when e^x is below half
 * the smallest subnormal. */
KM_FN int
km_exp_reduce(float x, int *k, float *r)
{
	float kf;

	if (x > 89.0f)
		x = 89.0f;
	if (x < -104.0f) {
		*k = 0;
		*r = 0.0f;
		return 0;
	}
	/* Adding and removing 1.5 * 2^23 rounds to an integer (|x/ln2| < 2^22). */
	kf = x * 1.44269504088896341f;
	kf = (kf + 12582912.0f) - 12582912.0f;
	*k = (int)kf;
	*r = fmaf(kf, -0.693145751953125f, x);
	*r = fmaf(kf, -1.42860682030941723212e-6f, *r);
	return 1;
}

/* e^x = p * 2^k with p in [0.7, 1.42] (p = 0 when e^x is below the
 * subnormals, inf beyond 2^128); x is not NaN. */
KM_FN float
km_exp_parts(float x, int *k)
{
	float r, p;

	if (!km_exp_reduce(x, k, &r))
		return 0.0f;
	p = 1.98412698412698413e-4f;
	p = fmaf(p, r, 1.38888888888888889e-3f);
	p = fmaf(p, r, 8.33333333333333333e-3f);
	p = fmaf(p, r, 4.16666666666666667e-2f);
	p = fmaf(p, r, 1.66666666666666667e-1f);
	p = fmaf(p, r, 0.5f);
	p = fmaf(p, r, 1.0f);
	return fmaf(p, r, 1.0f);
}

KM_FN float
km_expf(float x)
{
	int k;
	float p;

	if (x != x)
		return x;
	p = km_exp_parts(x, &k);
	return km_ldexp(p, k);
}

/* ---- the activations (x already includes the bias) ---- */

/* Megatron's tanh approximation, x*0.5*(1+tanh(z)) with
 * z = 0.79788456*x*(1+0.044715*x*x), evaluated through the identity
 * 0.5*(1+tanh z) = sigmoid(2z) with e = e^(-2|z|) <= 1:
 *   z >= 0: x / (1 + e),   z < 0: x*e / (1 + e)
 * — the same function, without the cancellation of 1 + tanh z for negative
 * x, without overflow of e, and with one exp instead of a tanh. */
KM_FN float
km_gelu_z(float x)
{
	return 0.79788456f * x * (1.0f + 0.044715f * x * x);
}

KM_FN float
km_gelu(float x)
{
	float z = km_gelu_z(x), p, e;
	int k;

	if (z != z)
		return z;
	/* e = p * 2^k; for z < 0 the 2^k is applied last, so that a subnormal
	 * e does not cost the (normal) result its low bits. */
	p = km_exp_parts(-2.0f * (z < 0.0f ? -z : z), &k);
	e = km_ldexp(p, k);
	if (z >= 0.0f)
		return x / (1.0f + e);
	return km_ldexp(x * p / (1.0f + e), k);
}

/* Megatron's bias_gelu_back factor
 * ff = 0.5*x*(1-t^2)*(0.79788456+0.1070322243*x^2) + 0.5*(1+t), t = tanh z,
 * through s = sigmoid(2z) = 0.5*(1+t) and 1-t^2 = 4*s*(1-s) = 4*e/(1+e)^2
 * (e as in km_gelu).  Where that underflows the first term is taken as 0:
 * its limit, where the literal formula gives 0*inf = NaN (|x| > 1.8e19). */
KM_FN float
km_gelu_grad(float x)
{
	float z = km_gelu_z(x), e = km_expf(-2.0f * (z < 0.0f ? -z : z));
	float q = 1.0f / (1.0f + e), s = z >= 0.0f ? q : e * q, ss = e * q * q; /* s*(1-s) */

	if (ss == 0.0f)
		return s;
	return 2.0f * x * ss * (0.79788456f + 0.1070322243f * x * x) + s;
}

KM_FN float
km_sigmoid(float a)
{
	return 1.0f / (1.0f + km_expf(-a));
}

/* torch's F.silu: a / (1 + e^-a) */
KM_FN float
km_silu(float a)
{
	return a / (1.0f + km_expf(-a));
}

/* swiglu_back, first half: g*sigmoid(a)*(1+a*(1-sigmoid(a)))*b, in
 * Megatron's order of operations. */
KM_FN float
km_swiglu_grad_a(float g, float a, float b)
{
	float sg = km_sigmoid(a);

	return g * sg * (1.0f + a * (1.0f - sg)) * b;
}

/* ---- the fast path: the same formulas, two substitutions ----
 * Where a GPU pays most for the reference's bits:
 *   - a / d becomes a * KM_RCP(d), the hardware reciprocal (MUFU), refined
 *     by one Newton step (two fmas) where `refine' says so — in fp32, and for
 *     the sigmoid whose 1 - s the SwiGLU backward takes — instead of IEEE
 *     division (a sequence of some ten instructions with a slow path);
 *   - in bf16 and fp16 (`approx'), e^x comes from the hardware's 2^x,
 *     KM_EX2, instead of the reduction and the degree-7 polynomial.  fp32
 *     keeps the reference's exp: with ex2's 2 ulps beside the reference's
 *     own 2, and the rounding of x log2 e, its bound would be tens of ulps
 *     instead of 4.
 * Everything else — the order of operations, the scaling by 2^k — is the
 * reference's, so the overflow and underflow points are the reference's
 * too.  The includer defines KM_EX2 (2^t; subnormal results may flush to 0)
 * and KM_RCP (1/d for 1 <= d <= 2^64): ex2.approx.ftz.f32 and
 * rcp.approx.ftz.f32 on a GPU; on the host, emulations at the documented
 * worst case (khost.h), so that the CPU tests check the bounds
 * (mcinit_kfast_ulps) without a GPU.  tanh.approx.f32 is not used: its
 * relative error (about 2^-11) becomes an unbounded one in 1 + tanh z for
 * z < 0, where GeLU cancels. */

/* e^x in bf16 and fp16 (approx): KM_EX2 of x log2 e straight away, the
 * rounding of x log2 e (2^-24 |x log2 e|, at most 2^-16.8 relative where
 * the result is not 0 or inf) far below the types' half ulp (2^-9, 2^-12).
 * A negative exponent is raised by 64 and the result scaled back, so that
 * the hardware's flush of subnormal results loses nothing; a positive one
 * overflows at 2^128, where the reference's does.  x NaN gives NaN. */
KM_FN float
km_fexp_approx(float x)
{
	float t = x * 1.44269504088896341f;

	if (t < 0.0f)
		return KM_EX2(t + 64.0f) * 5.42101086242752217e-20f;
	return KM_EX2(t);
}

KM_FN float
km_fexpf(float x, int approx)
{
	return approx ? km_fexp_approx(x) : km_expf(x);
}

/* 1/d for 1 <= d <= 2^64 (NaN stays NaN). */
KM_FN float
km_frcp(float d, int refine)
{
	float q = KM_RCP(d), t;

	if (!refine)
		return q;
	t = fmaf(q, fmaf(-d, q, 1.0f), q);
	return t == t ? t : q;
}

/* n / d for d >= 1, inf included: a d above 2^64 is scaled down first, so
 * that the reciprocal never falls among the subnormals the hardware's
 * flushes, and scaled back after the multiplication (exact, as n/d is
 * normal or zero there); 1/inf is 0. */
KM_FN float
km_fdiv(float n, float d, int refine)
{
	float s = d > 18446744073709551616.0f ? 5.42101086242752217e-20f : 1.0f;

	if (d > 3.4028234663852886e38f)
		return n * 0.0f;
	return n * km_frcp(d * s, refine) * s;
}

/* km_gelu's formula; 1 + e is in [1, 2].  In bf16 and fp16, e = E 2^-64
 * with E = 2^(64 - 2|z| log2 e) (km_fexp_approx), and the negative side
 * takes x E / (1 + e), scaled by 2^-64 last, like the reference's 2^k: a
 * subnormal e costs the result nothing. */
KM_FN float
km_fgelu(float x, int approx, int refine)
{
	float z = km_gelu_z(x), p, e;
	int k;

	if (z != z)
		return z;
	if (approx) {
		p = KM_EX2((z < 0.0f ? z : -z) * 2.88539008177792681f + 64.0f);
		e = p * 5.42101086242752217e-20f;
		if (z >= 0.0f)
			return x * km_frcp(1.0f + e, refine);
		return x * p * km_frcp(1.0f + e, refine) * 5.42101086242752217e-20f;
	}
	p = km_exp_parts(-2.0f * (z < 0.0f ? -z : z), &k);
	e = km_ldexp(p, k);
	if (z >= 0.0f)
		return x * km_frcp(1.0f + e, refine);
	return km_ldexp(x * p * km_frcp(1.0f + e, refine), k);
}

/* km_gelu_grad's formula. */
KM_FN float
km_fgelu_grad(float x, int approx, int refine)
{
	float z = km_gelu_z(x), e = km_fexpf(-2.0f * (z < 0.0f ? -z : z), approx);
	float q = km_frcp(1.0f + e, refine), s = z >= 0.0f ? q : e * q, ss = e * q * q;

	if (ss == 0.0f)
		return s;
	return 2.0f * x * ss * (0.79788456f + 0.1070322243f * x * x) + s;
}

KM_FN float
km_fsilu(float a, int approx, int refine)
{
	return km_fdiv(a, 1.0f + km_fexpf(-a, approx), refine);
}

/* The sigmoid always refined: the backward takes 1 - s, where an unrefined
 * 1/(1 + e) one ulp off 1 would be a relative error of a * 2^-24. */
KM_FN float
km_fswiglu_grad_a(float g, float a, float b, int approx)
{
	float sg = km_fdiv(1.0f, 1.0f + km_fexpf(-a, approx), 1);

	return g * sg * (1.0f + a * (1.0f - sg)) * b;
}

/* ---- Philox4x32-10 (Salmon et al., SC'11), the counter-based generator of
 * curand and of torch's CUDA dropout ---- */

KM_FN void
km_philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1,
          uint32_t out[4])
{
	int i;

	for (i = 0; i < 10; i++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;

		c1 = (uint32_t)p1;
		c3 = (uint32_t)p0;
		c0 = n0;
		c2 = n2;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

/* Element i of the stream (seed, offset): word i%4 of Philox at counter
 * (i/4, offset), key seed.  Dropout keeps element i when it is below the
 * threshold round((1-p)*2^32) (km_keep_threshold), an integer comparison, so
 * the mask is the same bit for bit wherever it is computed. */
KM_FN void
km_philox_block(uint64_t seed, uint64_t offset, uint64_t block, uint32_t out[4])
{
	km_philox((uint32_t)block, (uint32_t)(block >> 32), (uint32_t)offset,
	          (uint32_t)(offset >> 32), (uint32_t)seed, (uint32_t)(seed >> 32), out);
}

/* round((1-p) * 2^32): 2^32 for p = 0 (keep all), 0 for p = 1. */
KM_FN uint64_t
km_keep_threshold(float p)
{
	if (!(p > 0.0f))
		return (uint64_t)1 << 32;
	if (p >= 1.0f)
		return 0;
	return (uint64_t)((1.0 - (double)p) * 4294967296.0 + 0.5);
}

/* A uniform value in [-2, 2) on a 2^-22 grid, from the top 24 bits of a
 * Philox word: the kernels' test inputs, generated identically on the device
 * and on the host so that a sample can be checked without copying tensors. */
KM_FN float
km_uniform_pm2(uint32_t word)
{
	return (float)(word >> 8) * 2.384185791015625e-7f - 2.0f;
}

#endif
