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
