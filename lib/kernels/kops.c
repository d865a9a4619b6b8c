/* kops.c — the small pieces around the kernels: names, sizes, argument
 * checks, conversions, the dropout mask, ulp distances. */
#include <math.h>

#include "khost.h"

size_t
mcinit_dtype_size(enum mcinit_dtype dt)
{
	return km_size(dt);
}

const char *
mcinit_dtype_name(enum mcinit_dtype dt)
{
	switch (dt) {
	case MCINIT_DTYPE_F32:
		return "fp32";
	case MCINIT_DTYPE_F16:
		return "fp16";
	case MCINIT_DTYPE_BF16:
		return "bf16";
	}
	return "?";
}

const char *
mcinit_kop_name(enum mcinit_kop op)
{
	static const char *const names[MCINIT_KOP_COUNT] = {
	    "bias_gelu", "bias_gelu_back", "bias_swiglu", "bias_swiglu_back", "bias_dropout_add"};

	return (unsigned)op < MCINIT_KOP_COUNT ? names[op] : "?";
}

const char *
mcinit_kernels_strerror(int err)
{
	switch (err) {
	case MCINIT_KERR_OK:
		return "success";
	case MCINIT_KERR_INVAL:
		return "invalid kernel arguments";
	case MCINIT_KERR_NOMEM:
		return "out of memory";
	case MCINIT_KERR_NOGPU:
		return "no usable GPU";
	case MCINIT_KERR_CUDA:
		return "CUDA runtime error";
	case MCINIT_KERR_NUMERIC:
		return "kernel results differ from the CPU reference";
	}
	return "unknown error";
}

uint16_t
mcinit_f32_to_bf16(float f)
{
	return km_f32_to_bf16(f);
}

float
mcinit_bf16_to_f32(uint16_t h)
{
	return km_bf16_to_f32(h);
}

uint16_t
mcinit_f32_to_f16(float f)
{
	return km_f32_to_f16(f);
}

float
mcinit_f16_to_f32(uint16_t h)
{
	return km_f16_to_f32(h);
}

float
mcinit_kload(enum mcinit_dtype dt, const void *p, size_t i)
{
	return km_ld(dt, p, i);
}

void
mcinit_kstore(enum mcinit_dtype dt, void *p, size_t i, float v)
{
	km_st(dt, p, i, v);
}

void
mcinit_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	km_philox(ctr[0], ctr[1], ctr[2], ctr[3], key[0], key[1], out);
}

uint64_t
mcinit_dropout_threshold(float p)
{
	return km_keep_threshold(p);
}

int
mcinit_dropout_keep(uint64_t seed, uint64_t offset, uint64_t i, float p)
{
	uint32_t w[4];

	km_philox_block(seed, offset, i >> 2, w);
	return w[i & 3u] < km_keep_threshold(p);
}

static int
is_swiglu(enum mcinit_kop op)
{
	return op == MCINIT_KOP_BIAS_SWIGLU_FWD || op == MCINIT_KOP_BIAS_SWIGLU_BWD;
}

size_t
mcinit_kop_out_elems(enum mcinit_kop op, const struct mcinit_kargs *a)
{
	return op == MCINIT_KOP_BIAS_SWIGLU_FWD ? a->rows * (a->cols / 2) : a->rows * a->cols;
}

size_t
mcinit_kop_bytes(enum mcinit_kop op, const struct mcinit_kargs *a)
{
	size_t n = a->rows * a->cols, sz = km_size(a->dtype), moved;

	switch (op) {
	case MCINIT_KOP_BIAS_GELU_FWD:
		moved = 2 * n; /* in, out */
		break;
	case MCINIT_KOP_BIAS_GELU_BWD:
		moved = 3 * n; /* grad, in, out */
		break;
	case MCINIT_KOP_BIAS_SWIGLU_FWD:
		moved = n + n / 2;
		break;
	case MCINIT_KOP_BIAS_SWIGLU_BWD:
		moved = n / 2 + 2 * n;
		break;
	default:
		moved = 3 * n; /* in, residual, out */
		break;
	}
	moved = (moved + a->cols) * sz; /* and the bias, once */
	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD && a->mask)
		moved += n;
	return moved;
}

static int
elem_aligned(const void *p, size_t sz)
{
	return ((uintptr_t)p % sz) == 0;
}

int
mcinit_kargs_check(enum mcinit_kop op, const struct mcinit_kargs *a)
{
	size_t sz;

	if (!a || (unsigned)op >= MCINIT_KOP_COUNT || (unsigned)a->dtype > MCINIT_DTYPE_BF16)
		return MCINIT_KERR_INVAL;
	sz = km_size(a->dtype);
	if (a->cols == 0 || (is_swiglu(op) && a->cols % 2 != 0))
		return MCINIT_KERR_INVAL;
	if (a->rows > SIZE_MAX / a->cols || a->rows * a->cols > SIZE_MAX / (4 * sz))
		return MCINIT_KERR_INVAL;
	if (!a->in || !a->bias || !a->out)
		return MCINIT_KERR_INVAL;
	if (!elem_aligned(a->in, sz) || !elem_aligned(a->bias, sz) || !elem_aligned(a->out, sz))
		return MCINIT_KERR_INVAL;
	if ((op == MCINIT_KOP_BIAS_GELU_BWD || op == MCINIT_KOP_BIAS_SWIGLU_BWD) &&
	    (!a->grad || !elem_aligned(a->grad, sz)))
		return MCINIT_KERR_INVAL;
	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD &&
	    (!a->residual || !elem_aligned(a->residual, sz) || !(a->p >= 0.0f && a->p <= 1.0f)))
		return MCINIT_KERR_INVAL;
	return MCINIT_KERR_OK;
}

float
mcinit_kernels_input(enum mcinit_dtype dt, uint64_t seed, uint32_t tensor, uint64_t i)
{
	return km_input(dt, seed, tensor, i);
}

/* Position of f on the number line of dt: consecutive values differ by 1. */
static int64_t
ordinal(enum mcinit_dtype dt, float f)
{
	int64_t u;

	if (dt == MCINIT_DTYPE_F32)
		u = km_f2u(f);
	else if (dt == MCINIT_DTYPE_BF16)
		u = km_f32_to_bf16(f);
	else
		u = km_f32_to_f16(f);
	{
		int64_t signbit = dt == MCINIT_DTYPE_F32 ? (int64_t)1 << 31 : 1 << 15;

		return (u & signbit) ? -(u & (signbit - 1)) : u;
	}
}

double
mcinit_ulps(enum mcinit_dtype dt, float a, float b)
{
	int64_t d;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0.0 : INFINITY;
	d = ordinal(dt, a) - ordinal(dt, b);
	return (double)(d < 0 ? -d : d);
}

/* ---- the host's stand-ins for the GPU's approximations (khost.h) ---- */

int mcinit_km_approx_err, mcinit_km_approx_times = 1;

/* v moved by `ulps' (times mcinit_km_approx_times) of its ulps in the
 * direction the error mode says. */
static float
km_err_ulps(float v, int ulps)
{
	static unsigned turn;
	int dir = mcinit_km_approx_err;
	double ulp;

	if (dir == 2)
		dir = (turn++ & 1) ? 1 : -1;
	if (!dir || !isfinite(v) || v == 0)
		return v;
	ulp = (double)nextafterf(fabsf(v), INFINITY) - fabsf(v);
	return (float)((double)v + dir * (double)ulps * mcinit_km_approx_times * ulp);
}

/* ex2.approx.ftz: subnormal results flushed to zero. */
float
mcinit_km_ex2(float t)
{
	float r = km_err_ulps((float)exp2((double)t), 2);

	return fabsf(r) < 1.17549435e-38f ? 0.0f * r : r;
}

float
mcinit_km_rcp(float d)
{
	return km_err_ulps((float)(1.0 / (double)d), 1);
}

/* ---- the fast path's bounds ----
 * u = 2^-24, the relative error of one fp32 rounding; a relative difference
 * d between two fp32 numbers is at most d/u ulps.  The documented errors:
 * rcp.approx.ftz.f32 at most 1 ulp (PTX ISA: across the full range), i.e.
 * 2u relative on 1/d in [2^-64, 1]; ex2.approx.ftz.f32 at most 2 ulps (the
 * constant of the CUDA programming guide's 2 + floor(|1.173 x|) ulps for
 * __expf, which is ex2.approx of x log2 e), i.e. 4u on [0.7, 1.42].
 *
 * fp32 keeps the reference's exp, so only the quotients differ: the
 * reference's n/d is within u of n/d, the fast path's n * q with q refined
 * by a Newton step (its error the last fma's rounding, u, plus (2u)^2) and
 * the product rounded: 2u.  One quotient: 3u, 3 ulps; gelu scales it by
 * 2^k afterwards, which in the subnormal range rounds once more: 4.
 * swiglu: silu's 3u, then the product with b rounded on both sides: 5.
 * The backward operations subtract, so they are bounded at the scale of
 * their terms (mcinit_kfast_scale).  gelu_back: q 2u, s = e q 4u,
 * ss = e q q 8u, 2x ss poly 12u (two roundings on each side), the sum and
 * the product with the gradient 2u each: 16.  swiglu_back: sigmoid 2u,
 * a (1 - sg) off by 2u |a| plus 2u of roundings, 1 + that 2u, then three
 * products 2u each, all at the scale |g sg b| (1 + |a|): 14; its second
 * half is swiglu's 5 (g times silu); 16 for both.
 *
 * bf16 and fp16: e^x from ex2 of the rounded x log2 e is within
 * 4u + 2^-16.8 of e^x (|x log2 e| < 150 where it is neither 0 nor inf); the
 * fp32 values before the final rounding stay within 2^-15 of the
 * reference's through the compositions above (the reference's own 2 ulps
 * and the unrefined reciprocal's 2u included), below an ulp of either type
 * (2^-8 and 2^-11 relative at least): the two round to the same value or to
 * neighbours, 1 ulp.
 *
 * dropout-add computes the reference's bits in both paths (no fma: a + x s
 * may cancel). */
double
mcinit_kfast_ulps(enum mcinit_kop op, enum mcinit_dtype dt)
{
	static const double f32[MCINIT_KOP_COUNT] = {4, 16, 5, 16, 0};

	if ((unsigned)op >= MCINIT_KOP_COUNT || op == MCINIT_KOP_BIAS_DROPOUT_ADD)
		return 0;
	return dt == MCINIT_DTYPE_F32 ? f32[op] : 1;
}

double
mcinit_kfast_scale(enum mcinit_kop op, float x, float b, float g, int second)
{
	double e, s, ss, sg;
	float z;

	switch (op) {
	case MCINIT_KOP_BIAS_GELU_FWD:
		return fabs((double)km_gelu(x));
	case MCINIT_KOP_BIAS_GELU_BWD:
		z = km_gelu_z(x);
		e = exp(-2.0 * fabs((double)z));
		s = z >= 0 ? 1 / (1 + e) : e / (1 + e);
		ss = e / ((1 + e) * (1 + e));
		return (fabs(2.0 * x * ss * (0.79788456 + 0.1070322243 * x * x)) + s) * fabs(g);
	case MCINIT_KOP_BIAS_SWIGLU_FWD:
		return fabs((double)km_silu(x) * b);
	case MCINIT_KOP_BIAS_SWIGLU_BWD:
		if (second)
			return fabs((double)g * km_silu(x));
		sg = 1 / (1 + exp(-(double)x));
		return fabs((double)g * sg * b) * (1 + fabs((double)x));
	default:
		return 0;
	}
}

/* The spacing of dt's numbers at magnitude v (finite): 2^(e - mantissa
 * bits), e no lower than the type's smallest normal exponent. */
static double
ulp_of(enum mcinit_dtype dt, double v)
{
	int e, bits = dt == MCINIT_DTYPE_F32 ? 23 : dt == MCINIT_DTYPE_BF16 ? 7 : 10;
	int emin = dt == MCINIT_DTYPE_F16 ? -14 : -126;

	frexp(v, &e);
	e--; /* v in [2^e, 2^(e+1)) */
	if (v == 0 || e < emin)
		e = emin;
	return ldexp(1.0, e - bits);
}

double
mcinit_ulps_at(enum mcinit_dtype dt, float got, float want, double scale)
{
	double at = fabs((double)want) > scale ? fabs((double)want) : scale, d;

	if (isnan(got) || isnan(want))
		return isnan(got) && isnan(want) ? 0.0 : INFINITY;
	if (got == want)
		return 0;
	/* the largest finite number and inf are neighbours: a rounding apart */
	if (isinf(got) || isinf(want) || isinf(at))
		return mcinit_ulps(dt, got, want);
	d = fabs((double)got - (double)want) / ulp_of(dt, at);
	return fmin(d, mcinit_ulps(dt, got, want));
}

double
mcinit_kfast_error(enum mcinit_kop op, const struct mcinit_kargs *a, const void *got)
{
	size_t cols = a->cols, h = cols / 2, i, n = mcinit_kop_out_elems(op, a);
	int swiglu = is_swiglu(op), dt = a->dtype;
	double worst = 0;

	for (i = 0; i < n; i++) {
		size_t w = op == MCINIT_KOP_BIAS_SWIGLU_FWD ? h : cols, row = i / w, c = i % w;
		int second = op == MCINIT_KOP_BIAS_SWIGLU_BWD && c >= h;
		size_t ca = second ? c - h : c, ia = row * cols + ca;
		float x = km_ld(dt, a->in, ia) + km_ld(dt, a->bias, ca), b = 0, g = 0;
		double u;

		if (swiglu)
			b = km_ld(dt, a->in, ia + h) + km_ld(dt, a->bias, ca + h);
		if (op == MCINIT_KOP_BIAS_SWIGLU_BWD)
			g = km_ld(dt, a->grad, row * h + ca);
		else if (op == MCINIT_KOP_BIAS_GELU_BWD)
			g = km_ld(dt, a->grad, i);
		u = mcinit_ulps_at(dt, km_ld(dt, got, i), km_ld(dt, a->out, i),
		                   mcinit_kfast_scale(op, x, b, g, second));
		if (u > worst)
			worst = u;
	}
	return worst;
}
