/* ref.c — the CPU reference of the fused kernels: the numerics oracle of the
 * CUDA kernels and the CPU path's stand-in for them.
 *
 * Deliberately plain: one loop over elements, the textbook index arithmetic,
 * no vectors — so that it shares the kernels' arithmetic (kmath.h) but not
 * their indexing (kbody.h), which the tests check against it. */
#include "khost.h"

static void
gelu(enum mcinit_kop op, const struct mcinit_kargs *a)
{
	size_t r, c, i;

	for (r = 0; r < a->rows; r++)
		for (c = 0; c < a->cols; c++) {
			float x;

			i = r * a->cols + c;
			x = km_ld(a->dtype, a->in, i) + km_ld(a->dtype, a->bias, c);
			km_st(a->dtype, a->out, i,
			      op == MCINIT_KOP_BIAS_GELU_FWD
			          ? km_gelu(x)
			          : km_gelu_grad(x) * km_ld(a->dtype, a->grad, i));
		}
}

static void
swiglu(enum mcinit_kop op, const struct mcinit_kargs *a)
{
	size_t h = a->cols / 2, r, c;

	for (r = 0; r < a->rows; r++)
		for (c = 0; c < h; c++) {
			size_t ia = r * a->cols + c, ib = ia + h, io = r * h + c;
			float y1 = km_ld(a->dtype, a->in, ia) + km_ld(a->dtype, a->bias, c);
			float y2 = km_ld(a->dtype, a->in, ib) + km_ld(a->dtype, a->bias, h + c);
			float g;

			if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
				km_st(a->dtype, a->out, io, km_silu(y1) * y2);
				continue;
			}
			g = km_ld(a->dtype, a->grad, io);
			km_st(a->dtype, a->out, ia, km_swiglu_grad_a(g, y1, y2));
			km_st(a->dtype, a->out, ib, g * km_silu(y1));
		}
}

static void
dropout_add(const struct mcinit_kargs *a)
{
	float scale = a->p < 1.0f ? 1.0f / (1.0f - a->p) : 0.0f;
	size_t r, c, i;

	for (r = 0; r < a->rows; r++)
		for (c = 0; c < a->cols; c++) {
			float x;
			int keep;

			i = r * a->cols + c;
			x = km_ld(a->dtype, a->in, i) + km_ld(a->dtype, a->bias, c);
			keep = mcinit_dropout_keep(a->seed, a->offset, i, a->p);
			if (a->mask)
				a->mask[i] = (uint8_t)keep;
			km_st(a->dtype, a->out, i,
			      km_ld(a->dtype, a->residual, i) + (keep ? x * scale : 0.0f));
		}
}

int
mcinit_kref_run(enum mcinit_kop op, const struct mcinit_kargs *a)
{
	int err = mcinit_kargs_check(op, a);

	if (err)
		return err;
	switch (op) {
	case MCINIT_KOP_BIAS_GELU_FWD:
	case MCINIT_KOP_BIAS_GELU_BWD:
		gelu(op, a);
		break;
	case MCINIT_KOP_BIAS_SWIGLU_FWD:
	case MCINIT_KOP_BIAS_SWIGLU_BWD:
		swiglu(op, a);
		break;
	case MCINIT_KOP_BIAS_DROPOUT_ADD:
		dropout_add(a);
		break;
	}
	return MCINIT_KERR_OK;
}
