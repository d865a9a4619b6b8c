/* test-kernels.c — the fused kernels' CPU side: conversions, Philox, the
 * activations against closed forms and finite differences, dropout's mask,
 * the kernels' indexing (kbody.h, run here on a pretend grid) against the
 * reference, and the warm-up phase on the CPU path. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/khost.h"

/* ---- helpers ---------------------------------------------------------- */

/* ulps between a float and the double it approximates, in fp32 */
static double
ulps_f32(float got, double want)
{
	float w = (float)want;
	double ulp = nextafterf(fabsf(w), INFINITY) - fabsf(w);

	if (w == 0 || ulp == 0)
		ulp = 1.401298464324817e-45;
	return fabs((double)got - want) / ulp;
}

static double
gelu_d(double x)
{
	return x * 0.5 * (1.0 + tanh(0.79788456 * x * (1 + 0.044715 * x * x)));
}

/* The same function without 1 + tanh's cancellation, which in double loses
 * everything below x = -6: 0.5 (1 + tanh z) = 1 / (1 + e^-2z). */
static double
gelu_sig_d(double x)
{
	return x / (1.0 + exp(-2.0 * 0.79788456 * x * (1 + 0.044715 * x * x)));
}

/* Its derivative, from the same identity: s (1 - s) = e / (1 + e)^2. */
static double
gelu_back_sig_d(double x)
{
	double e = exp(-2.0 * 0.79788456 * x * (1 + 0.044715 * x * x)), s = 1 / (1 + e);

	return 2 * x * (e * s * s) * (0.79788456 + 0.1070322243 * x * x) + s;
}

static double
gelu_back_d(double x)
{
	double t = tanh(0.79788456 * x * (1 + 0.044715 * x * x));

	return 0.5 * x * ((1 - t * t) * (0.79788456 + 0.1070322243 * x * x)) + 0.5 * (1 + t);
}

static double
silu_d(double a)
{
	return a / (1.0 + exp(-a));
}

/* ---- Philox4x32-10: Random123's known-answer vectors ---------------------- */

Test(kernels, philox_known_answers)
{
	static const uint32_t v[3][10] = {
	    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
	    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
	     0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
	    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
	     0x94fdcceb, 0x5001e420, 0x24126ea1},
	};
	uint32_t out[4];
	int i, k;

	for (i = 0; i < 3; i++) {
		mcinit_philox4x32_10(v[i], v[i] + 4, out);
		for (k = 0; k < 4; k++)
			cr_expect_eq(out[k], v[i][6 + k], "vector %d word %d: %08x", i, k, out[k]);
	}
}

/* ---- bf16 and fp16 ------------------------------------------------------ */

Test(kernels, bf16_round_to_nearest_even)
{
	uint32_t h;

	cr_expect_eq(mcinit_f32_to_bf16(1.0f), 0x3f80);
	cr_expect_eq(mcinit_f32_to_bf16(km_u2f(0x3f808000)), 0x3f80); /* tie, even below */
	cr_expect_eq(mcinit_f32_to_bf16(km_u2f(0x3f818000)), 0x3f82); /* tie, even above */
	cr_expect_eq(mcinit_f32_to_bf16(km_u2f(0x3f808001)), 0x3f81);
	cr_expect_eq(mcinit_f32_to_bf16(km_u2f(0x7f7fffff)), 0x7f80); /* FLT_MAX -> inf */
	cr_expect_eq(mcinit_f32_to_bf16(-INFINITY), 0xff80);
	cr_expect(isnan(mcinit_bf16_to_f32(mcinit_f32_to_bf16(NAN))));
	cr_expect(isnan(mcinit_bf16_to_f32(mcinit_f32_to_bf16(km_u2f(0x7f800001)))),
	          "a NaN whose payload is in the low bits stays NaN");
	for (h = 0; h < 0x10000; h++) {
		float f = mcinit_bf16_to_f32((uint16_t)h), mid;
		uint32_t u = km_f2u(f);

		if (isnan(f))
			continue;
		cr_assert_eq(mcinit_f32_to_bf16(f), h, "round trip %04x", h);
		if ((h & 0x7fff) >= 0x7f80)
			continue;
		/* The midpoint to the next value away from zero, and its neighbours. */
		mid = km_u2f(u + 0x8000);
		cr_assert_eq(mcinit_f32_to_bf16(mid), (h & 1) ? h + 1 : h, "tie above %04x", h);
		cr_assert_eq(mcinit_f32_to_bf16(km_u2f(u + 0x7fff)), h);
		cr_assert_eq(mcinit_f32_to_bf16(km_u2f(u + 0x8001)), h + 1);
	}
}

Test(kernels, fp16_round_to_nearest_even)
{
	uint32_t h;

	cr_expect_eq(mcinit_f32_to_f16(1.0f), 0x3c00);
	cr_expect_eq(mcinit_f32_to_f16(65504.0f), 0x7bff);
	cr_expect_eq(mcinit_f32_to_f16(65519.996f), 0x7bff);
	cr_expect_eq(mcinit_f32_to_f16(65520.0f), 0x7c00);
	cr_expect_eq(mcinit_f32_to_f16(5.9604644775390625e-8f), 0x0001);  /* 2^-24 */
	cr_expect_eq(mcinit_f32_to_f16(2.98023223876953125e-8f), 0x0000); /* 2^-25: tie -> 0 */
	cr_expect_eq(mcinit_f32_to_f16(2.9802326e-8f), 0x0001);           /* just above */
	cr_expect_eq(mcinit_f32_to_f16(-0.0f), 0x8000);
	cr_expect(isnan(mcinit_f16_to_f32(mcinit_f32_to_f16(NAN))));
	for (h = 0; h < 0x10000; h++) {
		float f = mcinit_f16_to_f32((uint16_t)h), next, mid;

		if (isnan(f))
			continue;
		cr_assert_eq(mcinit_f32_to_f16(f), h, "round trip %04x", h);
		if ((h & 0x7fff) >= 0x7bff)
			continue;
		next = mcinit_f16_to_f32((uint16_t)(h + 1));
		mid = (float)(((double)f + next) / 2); /* exact: 11-bit values */
		cr_assert_eq(mcinit_f32_to_f16(mid), (h & 1) ? h + 1 : h, "tie above %04x", h);
		cr_assert_eq(mcinit_f32_to_f16(nextafterf(mid, 0)), h, "below the tie %04x", h);
		cr_assert_eq(
		    mcinit_f32_to_f16(nextafterf(mid, (h & 0x8000) ? -INFINITY : INFINITY)), h + 1,
		    "above %04x", h);
#ifdef __FLT16_MAX__
		/* The compiler's own conversion (libgcc), where there is one. */
		{
			_Float16 o = (_Float16)nextafterf(mid, 0);
			uint16_t ob;

			memcpy(&ob, &o, 2);
			cr_assert_eq(ob, mcinit_f32_to_f16(nextafterf(mid, 0)));
		}
#endif
	}
}

/* ---- the arithmetic ------------------------------------------------------ */

Test(kernels, expf_within_2_ulps)
{
	double worst = 0;
	float x;

	for (x = -103.0f; x < 88.7f; x += 0.0137f) {
		double u = ulps_f32(km_expf(x), exp((double)x));

		if (u > worst)
			worst = u;
	}
	cr_expect_leq(worst, 2.0, "km_expf: %.2f ulps", worst);
	cr_expect_eq(km_expf(0.0f), 1.0f);
	cr_expect(isinf(km_expf(89.0f)));
	cr_expect_eq(km_expf(-200.0f), 0.0f);
	cr_expect(isnan(km_expf(NAN)));
	cr_expect_gt(km_expf(-100.0f), 0.0f, "subnormal results are kept");
}

Test(kernels, gelu_closed_form)
{
	double worst = 0;
	float x;

	cr_expect_eq(km_gelu(0.0f), 0.0f);
	cr_expect_eq(km_gelu(20.0f), 20.0f);
	cr_expect(km_gelu(-20.0f) == 0.0f);
	/* gelu(1) = 0.5 (1 + tanh(0.79788456 * 1.044715)) = 0.8411920... */
	cr_expect_leq(fabs(km_gelu(1.0f) - 0.841192), 1e-6);
	cr_expect_leq(fabs(km_gelu(-1.0f) + 0.158808), 1e-6);
	/* Megatron's formula in double: within a few fp32 ulps times the
	 * condition, also far out on the negative side where 1 + tanh cancels. */
	for (x = -3.0f; x < 9.0f; x += 0.00173f)
		cr_assert_leq(fabs(gelu_sig_d(x) - gelu_d(x)), 1e-14 * fmax(1, fabs(x)),
		              "identity at %g", x);
	for (x = -12.0f; x < 9.0f; x += 0.00173f) {
		double want = gelu_sig_d(x), u = ulps_f32(km_gelu(x), want);
		/* The condition number |x g'(x) / g(x)|: far out on the
		 * negative side the rounding of x and z is amplified by ~2z. */
		double cond = fabs(x * gelu_back_sig_d(x) / want);

		if (fabs(want) < 0x1p-126) {
			cr_assert_leq(fabs(km_gelu(x) - want), 0x1p-126, "at %g", x);
			continue;
		}
		u /= 1 + cond;
		if (u > worst)
			worst = u;
	}
	cr_expect_leq(worst, 3.0, "gelu: %.2f ulps per unit of condition", worst);
}

Test(kernels, gelu_backward_is_the_derivative)
{
	float x;

	for (x = -8.0f; x < 8.0f; x += 0.01f) {
		double h = 1e-5, fd = (gelu_d(x + h) - gelu_d(x - h)) / (2 * h);
		float g = km_gelu_grad(x);

		cr_assert_leq(fabs(g - fd), 2e-6 * fmax(1, fabs(fd)), "x=%g: %g vs %g", x, g, fd);
		cr_assert_leq(fabs(g - gelu_back_d(x)), 1e-6, "x=%g: Megatron's formula", x);
	}
	/* The limits, where Megatron's literal formula gives 0*inf. */
	cr_expect_eq(km_gelu_grad(-1e30f), 0.0f);
	cr_expect_eq(km_gelu_grad(1e30f), 1.0f);
	cr_expect_eq(km_gelu_grad(0.0f), 0.5f);
}

Test(kernels, swiglu_forward_and_backward)
{
	float a, b = 1.75f;

	for (a = -12.0f; a < 12.0f; a += 0.013f) {
		double h = 1e-5;
		double da = (silu_d(a + h) - silu_d(a - h)) / (2 * h) * b;
		float g = 0.5f;

		cr_assert_leq(ulps_f32(km_silu(a), silu_d(a)), 4.0, "silu(%g)", a);
		cr_assert_leq(fabs(km_swiglu_grad_a(1.0f, a, b) - da), 3e-6 * fmax(1, fabs(da)),
		              "d/da at %g", a);
		/* d/db of silu(a) * b is silu(a); the factor g scales both */
		cr_assert_leq(fabs(km_swiglu_grad_a(g, a, b) - g * da), 3e-6 * fmax(1, fabs(da)));
	}
	cr_expect_eq(km_silu(0.0f), 0.0f);
	cr_expect_eq(km_sigmoid(0.0f), 0.5f);
}

/* ---- dropout ----------------------------------------------------------- */

Test(kernels, dropout_mask_reproducible_and_fair)
{
	const uint64_t n = 1 << 20;
	const float p = 0.1f;
	uint64_t i, kept = 0, same = 0, kept2 = 0;
	double rate, sigma = sqrt(p * (1 - p) / n);

	for (i = 0; i < n; i++) {
		int k = mcinit_dropout_keep(1234, 7, i, p);

		cr_assert_eq(k, mcinit_dropout_keep(1234, 7, i, p));
		kept += k;
		same += k == mcinit_dropout_keep(1234, 8, i, p);
		kept2 += mcinit_dropout_keep(1235, 7, i, 0.5f);
	}
	rate = (double)kept / n;
	cr_expect_leq(fabs(rate - 0.9), 5 * sigma, "keep rate %.5f", rate);
	cr_expect_leq(fabs((double)kept2 / n - 0.5), 5 * sqrt(0.25 / n));
	/* Another offset is another mask: agreement 0.9^2 + 0.1^2 = 0.82. */
	cr_expect_leq(fabs((double)same / n - 0.82), 0.005, "agreement %.4f", (double)same / n);
	cr_expect_eq(mcinit_dropout_threshold(0.0f), (uint64_t)1 << 32);
	cr_expect_eq(mcinit_dropout_threshold(1.0f), 0);
	cr_expect_eq(mcinit_dropout_threshold(0.5f), (uint64_t)1 << 31);
}

Test(kernels, dropout_add_scale_and_mask)
{
	enum { R = 37, C = 129 };
	static float in[R * C], bias[C], res[R * C], out[R * C];
	static uint8_t mask[R * C];
	struct mcinit_kargs a = {0};
	size_t i, kept = 0;

	for (i = 0; i < R * C; i++) {
		in[i] = mcinit_kernels_input(MCINIT_DTYPE_F32, 5, 0, i);
		res[i] = mcinit_kernels_input(MCINIT_DTYPE_F32, 5, 2, i);
	}
	for (i = 0; i < C; i++)
		bias[i] = mcinit_kernels_input(MCINIT_DTYPE_F32, 5, 1, i);
	a.dtype = MCINIT_DTYPE_F32;
	a.rows = R;
	a.cols = C;
	a.in = in;
	a.bias = bias;
	a.residual = res;
	a.out = out;
	a.mask = mask;
	a.p = 0.25f;
	a.seed = 99;
	a.offset = 3;
	cr_assert_eq(mcinit_kref_run(MCINIT_KOP_BIAS_DROPOUT_ADD, &a), 0);
	for (i = 0; i < R * C; i++) {
		float x = in[i] + bias[i % C];

		cr_assert_eq(mask[i], mcinit_dropout_keep(99, 3, i, 0.25f));
		cr_assert_eq(out[i], res[i] + (mask[i] ? x * (1.0f / 0.75f) : 0.0f), "element %zu",
		             i);
		kept += mask[i];
	}
	cr_expect_gt(kept, R * C / 2);
	a.p = 0.0f;
	cr_assert_eq(mcinit_kref_run(MCINIT_KOP_BIAS_DROPOUT_ADD, &a), 0);
	for (i = 0; i < R * C; i++)
		cr_assert(mask[i] && out[i] == res[i] + (in[i] + bias[i % C]));
	a.p = 1.0f;
	cr_assert_eq(mcinit_kref_run(MCINIT_KOP_BIAS_DROPOUT_ADD, &a), 0);
	for (i = 0; i < R * C; i++)
		cr_assert(!mask[i] && out[i] == res[i]);
}

/* ---- the fast path's formulas against the reference's, at their bounds ---- */

/* One output of op, reference or fast, rounded to dt; x the (first) input,
 * b SwiGLU's second half, g the gradient. */
static float
formula(enum mcinit_kop op, int dt, int fast, int second, float x, float b, float g)
{
	switch (op) {
	case MCINIT_KOP_BIAS_GELU_FWD:
		return km_round(dt, km_gelu_dt(dt, fast, x));
	case MCINIT_KOP_BIAS_GELU_BWD:
		return km_round(dt, km_gelu_grad_dt(dt, fast, x) * g);
	case MCINIT_KOP_BIAS_SWIGLU_FWD:
		return km_round(dt, km_silu_dt(dt, fast, x) * b);
	case MCINIT_KOP_BIAS_SWIGLU_BWD:
		return km_round(dt, second ? g * km_silu_dt(dt, fast, x)
		                           : km_swiglu_grad_a_dt(dt, fast, g, x, b));
	default:
		return 0;
	}
}

/* The largest error of the fast formula over inputs: every value of a
 * 16-bit type (fp32: 2^18 values spread over the exponents), the edges,
 * each with b and g from a short list. */
static double
formula_error(enum mcinit_kop op, int dt)
{
	static const float edges[] = {
	    0.0f,      -0.0f,      1e-45f,   -1e-45f,  1e-40f,    -1e-40f,   1.2e-38f,
	    -1.2e-38f, 1e-30f,     -1e-30f,  1.0f,     -1.0f,     -0.7518f,  -1.2785f,
	    9.6f,      -9.6f,      -10.3f,   17.0f,    -17.0f,    88.72283f, -88.72283f,
	    88.72284f, -88.72284f, 100.0f,   -100.0f,  1e4f,      -1e4f,     1e30f,
	    -1e30f,    3.4e38f,    -3.4e38f, INFINITY, -INFINITY, NAN};
	static const float others[] = {1.0f, -0.375f, 3.0f};
	uint32_t k, count = dt == MCINIT_DTYPE_F32 ? 1u << 18 : 1u << 16;
	size_t e, o;
	double worst = 0;

	for (k = 0; k < count + sizeof edges / sizeof edges[0]; k++) {
		float x;

		if (k >= count)
			x = km_round(dt, edges[k - count]);
		else if (dt == MCINIT_DTYPE_F32)
			x = km_u2f(k * 16411u); /* every exponent, both signs */
		else
			x = dt == MCINIT_DTYPE_BF16 ? km_bf16_to_f32((uint16_t)k)
			                            : km_f16_to_f32((uint16_t)k);
		for (o = 0; o < sizeof others / sizeof others[0]; o++)
			for (e = 0; e < 2; e++) {
				float b = km_round(dt, others[o]),
				      g = km_round(dt, others[(o + 1) % 3]);
				int second = (int)e;
				double u;

				if (second && op != MCINIT_KOP_BIAS_SWIGLU_BWD)
					continue;
				u = mcinit_ulps_at(dt, formula(op, dt, 1, second, x, b, g),
				                   formula(op, dt, 0, second, x, b, g),
				                   mcinit_kfast_scale(op, x, b, g, second));
				if (u > worst)
					worst = u;
			}
	}
	return worst;
}

Test(kernels, fast_formulas_within_their_bounds)
{
	static const int modes[] = {1, -1, 2};
	enum mcinit_kop op;
	int dt;
	size_t m;

	for (m = 0; m < 3; m++)
		for (dt = 0; dt <= MCINIT_DTYPE_BF16; dt++)
			for (op = 0; op < MCINIT_KOP_BIAS_DROPOUT_ADD; op++) {
				double w;

				mcinit_km_approx_err = modes[m];
				w = formula_error(op, dt);
				mcinit_km_approx_err = 0;
				fprintf(
				    stderr,
				    "fast %-16s %s, approximations %+d: max %g ulps (bound %g)\n",
				    mcinit_kop_name(op), mcinit_dtype_name(dt), modes[m], w,
				    mcinit_kfast_ulps(op, dt));
				cr_expect_leq(w, mcinit_kfast_ulps(op, dt),
				              "%s %s mode %d: %g ulps", mcinit_kop_name(op),
				              mcinit_dtype_name(dt), modes[m], w);
			}
}

Test(kernels, fast_bound_catches_a_worse_approximation)
{
	double w;

	/* ex2 2^-5 off instead of 2^-22: bf16's 1 ulp no longer holds. */
	mcinit_km_approx_err = 1;
	mcinit_km_approx_times = 1 << 17;
	w = formula_error(MCINIT_KOP_BIAS_GELU_FWD, MCINIT_DTYPE_BF16);
	mcinit_km_approx_err = 0;
	mcinit_km_approx_times = 1;
	cr_expect_gt(w, mcinit_kfast_ulps(MCINIT_KOP_BIAS_GELU_FWD, MCINIT_DTYPE_BF16), "%g", w);
}

Test(kernels, ulps_at_a_scale)
{
	/* near a zero of the derivative: judged at the terms' size */
	cr_expect_lt(mcinit_ulps_at(MCINIT_DTYPE_F32, 1e-7f, 2e-7f, 1.0), 1.0);
	cr_expect_gt(mcinit_ulps_at(MCINIT_DTYPE_F32, 1e-7f, 2e-7f, 0), 1e6, "at its own size");
	cr_expect_eq(mcinit_ulps_at(MCINIT_DTYPE_F32, 1.0f, nextafterf(1.0f, 2.0f), 0), 1);
	cr_expect_eq(mcinit_ulps_at(MCINIT_DTYPE_BF16, NAN, NAN, 0), 0);
	cr_expect(isinf(mcinit_ulps_at(MCINIT_DTYPE_BF16, NAN, 1.0f, 0)));
	cr_expect_eq(mcinit_ulps_at(MCINIT_DTYPE_F16, INFINITY, 65504.0f, 0), 1,
	             "overflow's rounding");
	cr_expect_gt(mcinit_ulps_at(MCINIT_DTYPE_F32, INFINITY, 1.0f, 0), 1e9);
	cr_expect_eq(mcinit_kfast_ulps(MCINIT_KOP_BIAS_DROPOUT_ADD, MCINIT_DTYPE_BF16), 0);
	cr_expect_eq(mcinit_kfast_ulps(MCINIT_KOP_BIAS_GELU_FWD, MCINIT_DTYPE_BF16), 1);
}

/* ---- the kernels' indexing on a pretend grid, against the reference ---- */

static void
fill(enum mcinit_dtype dt, char *p, size_t n, uint32_t tensor)
{
	size_t i;

	for (i = 0; i < n; i++)
		km_st(dt, p, i, mcinit_kernels_input(dt, 11, tensor, i));
}

/* 16-byte aligned memory (C11 wants the size a multiple of the alignment). */
static char *
amalloc(size_t bytes)
{
	char *p = aligned_alloc(16, (bytes + 15) / 16 * 16);

	cr_assert(p);
	return p;
}

/* Runs op on rows x cols with every tensor shifted by `shift' elements from
 * a 16-byte boundary (`bshift' for the bias), through the reference and
 * through kbody.h with nth pretend threads; the bit-exact walk must give
 * the reference's bytes, the fast one results within mcinit_kfast_ulps
 * (with the approximations at their worst, by turns) and the same mask. */
static void
same_as_reference(enum mcinit_kop op, enum mcinit_dtype dt, size_t rows, size_t cols, size_t shift,
                  size_t bshift, uint64_t nth, int fast)
{
	size_t sz = mcinit_dtype_size(dt), n = rows * cols, nout;
	char *in = amalloc((n + 16) * sz), *bias = amalloc((cols + 16) * sz);
	char *aux = amalloc((n + 16) * sz), *o1 = amalloc((n + 16) * sz),
	     *o2 = amalloc((n + 16) * sz);
	uint8_t *m1 = calloc(n + 1, 1), *m2 = calloc(n + 1, 1);
	struct mcinit_kargs a = {0};
	struct km_plan pl;
	uint64_t t;

	fill(dt, in + shift * sz, n, 0);
	fill(dt, bias + bshift * sz, cols, 1);
	fill(dt, aux + shift * sz, n, 2);
	a.dtype = dt;
	a.rows = rows;
	a.cols = cols;
	a.in = in + shift * sz;
	a.bias = bias + bshift * sz;
	a.grad = a.residual = aux + shift * sz;
	a.p = 0.1f;
	a.seed = 0x1234567890abcdefULL;
	a.offset = 42;
	nout = op == MCINIT_KOP_BIAS_SWIGLU_FWD ? n / 2 : n;
	memset(o1, 0x5a, (n + 16) * sz);
	memset(o2, 0xa5, (n + 16) * sz);
	a.out = o1 + shift * sz;
	a.mask = m1;
	cr_assert_eq(mcinit_kref_run(op, &a), 0);
	a.out = o2 + shift * sz;
	a.mask = m2;
	km_plan_make(op, &a, &pl);
	mcinit_km_approx_err = 2;
	for (t = 0; t < nth; t++)
		km_body(op, dt, fast, &pl, t, nth);
	mcinit_km_approx_err = 0;
	if (fast) {
		double e;

		a.out = o1 + shift * sz;
		e = mcinit_kfast_error(op, &a, o2 + shift * sz);

		cr_assert_leq(e, mcinit_kfast_ulps(op, dt), "%s %s %zux%zu: %g ulps",
		              mcinit_kop_name(op), mcinit_dtype_name(dt), rows, cols, e);
	} else
		cr_assert(memcmp(o1 + shift * sz, o2 + shift * sz, nout * sz) == 0,
		          "%s %s %zux%zu shift %zu/%zu, %llu threads (head %llu, %llu vectors)",
		          mcinit_kop_name(op), mcinit_dtype_name(dt), rows, cols, shift, bshift,
		          (unsigned long long)nth, (unsigned long long)pl.head,
		          (unsigned long long)pl.nvec);
	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD) {
		cr_assert(memcmp(m1, m2, n) == 0, "mask");
		cr_assert(memcmp(o1 + shift * sz, o2 + shift * sz, nout * sz) == 0,
		          "dropout-add is bit-exact in both paths");
	}
	free(m2);
	free(m1);
	free(o2);
	free(o1);
	free(aux);
	free(bias);
	free(in);
}

Test(kernels, vector_paths_match_reference)
{
	static const size_t shapes[][2] = {{1, 1},  {3, 7},   {5, 8},  {2, 16},  {4, 24},
	                                   {7, 33}, {1, 130}, {9, 64}, {3, 1000}};
	static const uint64_t grids[] = {1, 3, 64};
	enum mcinit_kop op;
	int dt, fast;
	size_t s, sh, g;

	for (fast = 0; fast < 2; fast++)
		for (op = 0; op < MCINIT_KOP_COUNT; op++)
			for (dt = 0; dt <= MCINIT_DTYPE_BF16; dt++)
				for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
					for (sh = 0; sh < 3; sh++)
						for (g = 0; g < 3; g++) {
							size_t cols = shapes[s][1];

							if ((op == MCINIT_KOP_BIAS_SWIGLU_FWD ||
							     op == MCINIT_KOP_BIAS_SWIGLU_BWD) &&
							    cols % 2)
								cols++;
							same_as_reference(op, dt, shapes[s][0],
							                  cols, sh == 2 ? 3 : sh,
							                  sh == 1 ? 1 : 0, grids[g],
							                  fast);
						}
}

Test(kernels, plan_takes_the_vector_path_when_it_can)
{
	static float buf[4096] __attribute__((aligned(16)));
	struct mcinit_kargs a = {0};
	struct km_plan p;

	a.dtype = MCINIT_DTYPE_F32;
	a.rows = 8;
	a.cols = 64;
	a.in = buf;
	a.bias = buf + 1024;
	a.out = buf + 2048;
	km_plan_make(MCINIT_KOP_BIAS_GELU_FWD, &a, &p);
	cr_expect_eq(p.head, 0);
	cr_expect_eq(p.nvec, 8 * 64 / 4);
	cr_expect(p.bias_vec);
	a.in = buf + 1;
	a.out = buf + 2049;
	km_plan_make(MCINIT_KOP_BIAS_GELU_FWD, &a, &p);
	cr_expect_eq(p.head, 3, "three scalars to the boundary");
	cr_expect_eq(p.nvec, (8 * 64 - 3) / 4);
	cr_expect(!p.bias_vec);
	a.out = buf + 2050;
	km_plan_make(MCINIT_KOP_BIAS_GELU_FWD, &a, &p);
	cr_expect_eq(p.nvec, 0, "different misalignments: scalars only");
	cr_expect(km_plan_idx32(MCINIT_KOP_BIAS_GELU_FWD, &a), "32-bit indices for small tensors");
	a.rows = (size_t)1 << 20;
	a.cols = (size_t)1 << 9; /* 2 GiB of fp32 */
	cr_expect(!km_plan_idx32(MCINIT_KOP_BIAS_GELU_FWD, &a), "64-bit from 2 GiB on");
	a.rows--;
	cr_expect(km_plan_idx32(MCINIT_KOP_BIAS_GELU_FWD, &a));
}

Test(kernels, bad_arguments)
{
	static float buf[64];
	struct mcinit_kargs a = {0};

	a.dtype = MCINIT_DTYPE_F32;
	a.rows = 2;
	a.cols = 3;
	a.in = buf;
	a.bias = buf + 8;
	a.out = buf + 16;
	a.residual = buf + 32;
	cr_expect_eq(mcinit_kargs_check(MCINIT_KOP_BIAS_GELU_FWD, &a), 0);
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_SWIGLU_FWD, &a), MCINIT_KERR_INVAL, "odd");
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_GELU_BWD, &a), MCINIT_KERR_INVAL, "no grad");
	a.p = 1.5f;
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_DROPOUT_ADD, &a), MCINIT_KERR_INVAL);
	a.p = NAN;
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_DROPOUT_ADD, &a), MCINIT_KERR_INVAL);
	a.p = 0.1f;
	a.in = (const char *)buf + 2;
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_GELU_FWD, &a), MCINIT_KERR_INVAL,
	             "misaligned fp32");
	a.in = buf;
	a.cols = 0;
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_GELU_FWD, &a), MCINIT_KERR_INVAL);
	a.cols = 3;
	a.rows = SIZE_MAX / 2;
	cr_expect_eq(mcinit_kref_run(MCINIT_KOP_BIAS_GELU_FWD, &a), MCINIT_KERR_INVAL, "overflow");
	cr_expect_eq(mcinit_kargs_check(MCINIT_KOP_COUNT, &a), MCINIT_KERR_INVAL);
	cr_expect_str_eq(mcinit_kernels_strerror(MCINIT_KERR_NUMERIC),
	                 "kernel results differ from the CPU reference");
}

Test(kernels, bytes_and_ulps)
{
	struct mcinit_kargs a = {0};

	a.dtype = MCINIT_DTYPE_BF16;
	a.rows = 10;
	a.cols = 4;
	cr_expect_eq(mcinit_kop_bytes(MCINIT_KOP_BIAS_GELU_FWD, &a), (80 + 4) * 2);
	cr_expect_eq(mcinit_kop_bytes(MCINIT_KOP_BIAS_SWIGLU_FWD, &a), (60 + 4) * 2);
	cr_expect_eq(mcinit_kop_bytes(MCINIT_KOP_BIAS_DROPOUT_ADD, &a), (120 + 4) * 2);
	cr_expect_eq(mcinit_kop_out_elems(MCINIT_KOP_BIAS_SWIGLU_FWD, &a), 20);
	cr_expect_eq(mcinit_ulps(MCINIT_DTYPE_BF16, 1.0f, mcinit_bf16_to_f32(0x3f81)), 1.0);
	cr_expect_eq(mcinit_ulps(MCINIT_DTYPE_F16, -0.0f, 0.0f), 0.0);
	cr_expect_eq(
	    mcinit_ulps(MCINIT_DTYPE_F16, mcinit_f16_to_f32(0x8001), mcinit_f16_to_f32(0x0001)),
	    2.0, "across zero");
	cr_expect_eq(mcinit_ulps(MCINIT_DTYPE_F32, 1.0f, nextafterf(1.0f, 2.0f)), 1.0);
	cr_expect(isinf(mcinit_ulps(MCINIT_DTYPE_F32, NAN, 1.0f)));
}

/* ---- the phase on the CPU path ------------------------------------------ */

static struct mcinit_kernels_job
llama8b(enum mcinit_dtype dt)
{
	struct mcinit_kernels_job j;

	mcinit_kernels_job_init(&j);
	j.dtype = dt;
	j.swiglu = 1;
	j.seq_length = 8192;
	j.micro_batch_size = 1;
	j.hidden_size = 4096;
	j.ffn_hidden_size = 14336;
	j.tp = 2;
	j.cp = 2;
	j.sequence_parallel = 1;
	j.seed = 1234;
	j.rank = 3;
	j.device = MCINIT_KDEV_CPU;
	j.cpu_max_elems = 1 << 16;
	return j;
}

Test(kernels, phase_cpu_path)
{
	int dt;

	for (dt = 0; dt <= MCINIT_DTYPE_BF16; dt++) {
		struct mcinit_kernels_job j = llama8b(dt);
		struct mcinit_kernels_result r;

		cr_assert_eq(mcinit_kernels_phase(&j, &r), 0, "%s", r.message);
		cr_expect(r.ok);
		cr_expect_str_eq(r.backend, "cpu");
		cr_expect_eq(r.rank, 3);
		cr_expect_eq(r.ncases, 2);
		cr_expect_eq(r.cases[0].op, MCINIT_KOP_BIAS_SWIGLU_FWD);
		/* [s/CP, MBS, ffn/TP] and [s/TP/CP, MBS, h] under sequence parallelism */
		cr_expect_eq(r.cases[0].rows_megatron, 4096);
		cr_expect_eq(r.cases[0].cols, 7168);
		cr_expect_eq(r.cases[1].rows_megatron, 2048);
		cr_expect_eq(r.cases[1].cols, 4096);
		cr_expect_leq(r.cases[0].rows * r.cases[0].cols, 1 << 16, "cut on the CPU path");
		cr_expect_eq(r.cases[0].max_ulps, 0.0);
		cr_expect_eq(r.cases[1].max_ulps, 0.0);
		cr_expect_gt(r.cases[0].checked, 1000);
		cr_expect_gt(r.cases[1].gbps, 0.0);
		cr_expect_gt(r.cases[1].copy_gbps, 0.0, "a copy of as many bytes, timed alike");
		cr_expect_gt(r.cases[0].of_copy, 0.0);
		cr_expect(r.exact, "the CPU runs the reference");
	}
}

Test(kernels, phase_summary_line)
{
	struct mcinit_kernels_job j = llama8b(MCINIT_DTYPE_BF16);
	struct mcinit_kernels_result r;
	char line[512];

	cr_assert_eq(mcinit_kernels_phase(&j, &r), 0, "%s", r.message);
	cr_assert_lt(mcinit_kernels_summary(&r, line, sizeof line), (int)sizeof line);
	cr_expect(strstr(line, "% of a copy (") != NULL, "%s", line);
	cr_expect(strstr(line, "bias_swiglu") && strstr(line, "bias_dropout_add"), "%s", line);
	cr_expect(strstr(line, "bf16, bit-exact kernels") != NULL, "%s", line);
	cr_expect(strstr(line, "call by call on the CPU") != NULL, "%s", line);
	cr_expect(strstr(line, "no peer's") != NULL, "says it cannot name a slower peer: %s", line);
}

Test(kernels, phase_gelu_and_errors)
{
	struct mcinit_kernels_job j = llama8b(MCINIT_DTYPE_BF16);
	struct mcinit_kernels_result r;

	j.swiglu = 0;
	j.sequence_parallel = 0;
	cr_assert_eq(mcinit_kernels_phase(&j, &r), 0, "%s", r.message);
	cr_expect_eq(r.cases[0].op, MCINIT_KOP_BIAS_GELU_FWD);
	cr_expect_eq(r.cases[1].rows_megatron, 4096, "no sequence parallelism: s/CP");
	j.swiglu = 1;
	j.ffn_hidden_size = 14338; /* / TP 2 = 7169 */
	cr_expect_eq(mcinit_kernels_phase(&j, &r), MCINIT_KERR_INVAL);
	cr_expect(strstr(r.message, "7169") != NULL && strstr(r.message, "odd") != NULL, "%s",
	          r.message);
	j = llama8b(MCINIT_DTYPE_F32);
	j.seq_length = 1;
	j.cp = 2;
	cr_expect_eq(mcinit_kernels_phase(&j, &r), MCINIT_KERR_INVAL, "empty tensor");
	cr_expect(strstr(r.message, "empty") != NULL, "%s", r.message);
	j = llama8b(MCINIT_DTYPE_F32);
	j.calls = 0;
	cr_expect_eq(mcinit_kernels_phase(&j, &r), MCINIT_KERR_INVAL);
}

Test(kernels, phase_auto_and_gpu_without_a_gpu)
{
	struct mcinit_kernels_job j = llama8b(MCINIT_DTYPE_F16);
	struct mcinit_kernels_result r;
	int err;

	j.device = MCINIT_KDEV_AUTO;
	cr_assert_eq(mcinit_kernels_phase(&j, &r), 0, "%s", r.message);
	if (strcmp(r.backend, "gpu") == 0)
		return; /* a machine with a GPU: the GPU tests cover it */
	j.device = MCINIT_KDEV_GPU;
	err = mcinit_kernels_phase(&j, &r);
	cr_expect_eq(err, MCINIT_KERR_NOGPU, "%s", r.message);
	cr_expect_neq(r.message[0], '\0', "says why");
}

Test(kernels, slowest_rank)
{
	struct mcinit_kernels_result r[4];
	size_t lo, hi;

	memset(r, 0, sizeof r);
	r[0].cases[0].gbps = 4000;
	r[1].cases[0].gbps = 4100;
	r[2].cases[0].gbps = 2000;
	r[3].cases[0].gbps = 3900;
	cr_expect_eq(mcinit_kernels_slowest(r, 4, 0.9, &lo, &hi), 1);
	cr_expect_eq(lo, 2);
	cr_expect_eq(hi, 1);
	cr_expect_eq(mcinit_kernels_slowest(r, 4, 0, &lo, &hi), 0);
	cr_expect_eq(mcinit_kernels_slowest(r, 4, 0.98, NULL, NULL), 3);
}
