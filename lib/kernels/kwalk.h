/* kwalk.h — how one thread of a grid-stride kernel walks a tensor: a scalar
 * head up to the first 16-byte boundary, 16-byte vectors, a scalar tail.
 * kbody.h's second half.
 *
 * No include guard: it is included once per index type km_idx (the
 * includer's typedef): 64 bits on the host, 32 and 64 bits in
 * gpu-kernels.cu (two namespaces), where the launcher takes 32 when every
 * byte offset fits (km_plan_idx32).  `fast' chooses the formulas (kbody.h)
 * and how many vectors a thread loads before it computes (km_unroll); in a
 * kernel it is a constant and the other branch is compiled away.  The
 * loops over a step's vectors and a vector's elements are unrolled
 * (KM_UNROLL), so that their arrays are registers, not local memory. */

/* ---- flat operations: gelu forward/backward, dropout-add ---- */

/* One output element from x = in + bias, a = grad or residual, and word,
 * dropout's Philox word for element i. */
KM_FN float
km_flat_elem(int op, int dt, int fast, const struct km_plan *p, km_idx i, float x, float a,
             uint32_t word)
{
	int keep;

	if (op == MCINIT_KOP_BIAS_GELU_FWD)
		return km_gelu_dt(dt, fast, x);
	if (op == MCINIT_KOP_BIAS_GELU_BWD)
		return km_gelu_grad_dt(dt, fast, x) * a;
	keep = word < p->thresh;
	if (p->mask)
		p->mask[i] = (uint8_t)keep;
	return a + (keep ? x * p->scale : 0.0f);
}

KM_FN void
km_flat_scalar(int op, int dt, int fast, const struct km_plan *p, km_idx i)
{
	uint32_t rnd[4] = {0, 0, 0, 0};
	float x = km_ld(dt, p->in, i) + km_ld(dt, p->bias, i % (km_idx)p->cols);
	float a = p->aux ? km_ld(dt, p->aux, i) : 0.0f;

	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD)
		km_philox_block(p->seed, p->offset, i >> 2, rnd);
	km_st(dt, p->out, i,
	      km_flat_elem(op, dt, fast, p, i, x, a, km_pick(rnd, (unsigned)i & 3u)));
}

/* The vector at element i0, whose first column is c, from its input x and
 * grad or residual a (already loaded).  Elements go two by two, each pair
 * stored into the output vector as soon as it is computed. */
KM_FN void
km_flat_vec(int op, int dt, int fast, const struct km_plan *p, km_idx i0, km_idx c,
            const struct km_v16 *x, const struct km_v16 *a)
{
	unsigned V = 16u / km_size(dt), sz = km_size(dt), j, k;
	km_idx cols = (km_idx)p->cols;
	struct km_v16 b = {{0, 0, 0, 0}}, ov = {{0, 0, 0, 0}};
	uint32_t w[4] = {0, 0, 0, 0};
	/* Dropout's words by constant index once the loops are unrolled: a
	 * vector that starts a Philox block takes one block per 4 elements. */
	int whole = op == MCINIT_KOP_BIAS_DROPOUT_ADD && (i0 & 3u) == 0;

	if (op == MCINIT_KOP_BIAS_DROPOUT_ADD && !whole) {
		/* Misaligned for Philox (never with the allocator's tensors):
		 * element by element, out of the unrolled code's way. */
		for (j = 0; j < V; j++)
			km_flat_scalar(op, dt, fast, p, i0 + j);
		return;
	}
	if (p->bias_vec)
		b = KM_LD16(p->bias + c * sz);
	KM_UNROLL
	for (j = 0; j < V; j += 2) {
		float o[2];

		KM_UNROLL
		for (k = 0; k < 2; k++) {
			km_idx i = i0 + j + k;
			float bj = p->bias_vec ? km_vget(dt, &b, j + k) : km_ld(dt, p->bias, c);
			uint32_t word = 0;

			if (whole) {
				if (((j + k) & 3u) == 0)
					km_philox_block(p->seed, p->offset, (uint64_t)i >> 2, w);
				word = w[(j + k) & 3u];
			}
			o[k] = km_flat_elem(op, dt, fast, p, i, km_vget(dt, x, j + k) + bj,
			                    km_vget(dt, a, j + k), word);
			if (++c == cols)
				c = 0;
		}
		km_vput2(dt, fast, &ov, j, o[0], o[1]);
	}
	KM_ST16(p->out + i0 * sz, ov);
}

/* Vectors v, v + nth, ... (km_unroll of them): their loads first, all in
 * flight together, then their arithmetic.  *c is vector v's first column;
 * it advances by step (nth vectors' worth of columns) per vector. */
KM_FN void
km_flat_step(int op, int dt, int fast, const struct km_plan *p, km_idx v, km_idx nth, km_idx *c,
             km_idx step)
{
	unsigned U = km_unroll(op, fast), V = 16u / km_size(dt), sz = km_size(dt), u;
	km_idx nvec = (km_idx)p->nvec, head = (km_idx)p->head, cols = (km_idx)p->cols;
	km_idx cu[KM_UMAX];
	struct km_v16 x[KM_UMAX], a[KM_UMAX], z = {{0, 0, 0, 0}};
	const char *KM_RESTRICT in = p->in;
	const char *KM_RESTRICT aux = p->aux;

	KM_UNROLL
	for (u = 0; u < U; u++) {
		km_idx vu = v + u * nth, off = (head + vu * V) * sz;

		cu[u] = *c;
		x[u] = z;
		a[u] = z;
		if (vu < nvec) {
			x[u] = KM_LD16(in + off);
			if (aux)
				a[u] = KM_LD16(aux + off);
		}
		*c += step;
		if (*c >= cols)
			*c -= cols;
	}
	KM_UNROLL
	for (u = 0; u < U; u++) {
		km_idx vu = v + u * nth;

		if (vu < nvec)
			km_flat_vec(op, dt, fast, p, head + vu * V, cu[u], &x[u], &a[u]);
	}
}

KM_FN void
km_flat_body(int op, int dt, int fast, const struct km_plan *p, km_idx tid, km_idx nth)
{
	km_idx V = 16u / km_size(dt), cols = (km_idx)p->cols, head = (km_idx)p->head;
	km_idx nvec = (km_idx)p->nvec, n = (km_idx)p->n, i, v, c, step;

	for (i = tid; i < head; i += nth)
		km_flat_scalar(op, dt, fast, p, i);
	/* The column advances by the grid's stride each vector: no division
	 * in the loop. */
	c = (head + tid * V) % cols;
	step = (nth * V) % cols;
	for (v = tid; v < nvec; v += nth * km_unroll(op, fast))
		km_flat_step(op, dt, fast, p, v, nth, &c, step);
	for (i = head + nvec * V + tid; i < n; i += nth)
		km_flat_scalar(op, dt, fast, p, i);
}

/* ---- SwiGLU: output (r, c), c < h = cols/2, from in (r, c) and (r, h + c) ---- */

KM_FN void
km_swiglu_scalar(int op, int dt, int fast, const struct km_plan *p, km_idx r, km_idx c)
{
	km_idx cols = (km_idx)p->cols, h = cols / 2, ia = r * cols + c, ib = ia + h;
	float a = km_ld(dt, p->in, ia) + km_ld(dt, p->bias, c);
	float b = km_ld(dt, p->in, ib) + km_ld(dt, p->bias, h + c);
	float g;

	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
		km_st(dt, p->out, r * h + c, km_silu_dt(dt, fast, a) * b);
		return;
	}
	g = km_ld(dt, p->aux, r * h + c);
	km_st(dt, p->out, ia, km_swiglu_grad_a_dt(dt, fast, g, a, b));
	km_st(dt, p->out, ib, g * km_silu_dt(dt, fast, a));
}

/* Output vector (r, c) from the halves' inputs va, vb and the gradient g
 * (already loaded). */
KM_FN void
km_swiglu_vec(int op, int dt, int fast, const struct km_plan *p, km_idx r, km_idx c,
              const struct km_v16 *va, const struct km_v16 *vb, const struct km_v16 *g)
{
	unsigned V = 16u / km_size(dt), sz = km_size(dt), j;
	km_idx cols = (km_idx)p->cols, h = cols / 2, ia = r * cols + c;
	struct km_v16 ba = {{0, 0, 0, 0}}, bb = {{0, 0, 0, 0}}, w1 = {{0, 0, 0, 0}},
	              w2 = {{0, 0, 0, 0}};

	if (p->bias_vec) {
		ba = KM_LD16(p->bias + c * sz);
		bb = KM_LD16(p->bias + (h + c) * sz);
	}
	KM_UNROLL
	for (j = 0; j < V; j += 2) {
		float o1[2], o2[2];
		unsigned k;

		KM_UNROLL
		for (k = 0; k < 2; k++) {
			float aj = km_vget(dt, va, j + k), bj = km_vget(dt, vb, j + k), gj;

			aj += p->bias_vec ? km_vget(dt, &ba, j + k) : km_ld(dt, p->bias, c + j + k);
			bj += p->bias_vec ? km_vget(dt, &bb, j + k)
			                  : km_ld(dt, p->bias, h + c + j + k);
			if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
				o1[k] = km_silu_dt(dt, fast, aj) * bj;
				o2[k] = 0.0f;
				continue;
			}
			gj = km_vget(dt, g, j + k);
			o1[k] = km_swiglu_grad_a_dt(dt, fast, gj, aj, bj);
			o2[k] = gj * km_silu_dt(dt, fast, aj);
		}
		km_vput2(dt, fast, &w1, j, o1[0], o1[1]);
		km_vput2(dt, fast, &w2, j, o2[0], o2[1]);
	}
	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD) {
		KM_ST16(p->out + (r * h + c) * sz, w1);
		return;
	}
	KM_ST16(p->out + ia * sz, w1);
	KM_ST16(p->out + (ia + h) * sz, w2);
}

/* As km_flat_step: output vectors v, v + nth, ..., the first at row *r,
 * vector column *c (in vectors of the half); they advance by (sr, sc). */
KM_FN void
km_swiglu_step(int op, int dt, int fast, const struct km_plan *p, km_idx v, km_idx nth, km_idx *r,
               km_idx *c, km_idx sr, km_idx sc)
{
	unsigned U = km_unroll(op, fast), V = 16u / km_size(dt), sz = km_size(dt), u;
	km_idx cols = (km_idx)p->cols, h = cols / 2, hv = h / V, nvec = (km_idx)p->nvec;
	km_idx ru[KM_UMAX], cu[KM_UMAX];
	struct km_v16 va[KM_UMAX], vb[KM_UMAX], g[KM_UMAX], z = {{0, 0, 0, 0}};
	const char *KM_RESTRICT in = p->in;
	const char *KM_RESTRICT aux = p->aux;

	KM_UNROLL
	for (u = 0; u < U; u++) {
		ru[u] = *r;
		cu[u] = *c * V;
		va[u] = z;
		vb[u] = z;
		g[u] = z;
		if (v + u * nth < nvec) {
			km_idx ia = ru[u] * cols + cu[u];

			va[u] = KM_LD16(in + ia * sz);
			vb[u] = KM_LD16(in + (ia + h) * sz);
			if (op == MCINIT_KOP_BIAS_SWIGLU_BWD)
				g[u] = KM_LD16(aux + (ru[u] * h + cu[u]) * sz);
		}
		*c += sc;
		*r += sr;
		if (*c >= hv) {
			*c -= hv;
			(*r)++;
		}
	}
	KM_UNROLL
	for (u = 0; u < U; u++)
		if (v + u * nth < nvec)
			km_swiglu_vec(op, dt, fast, p, ru[u], cu[u], &va[u], &vb[u], &g[u]);
}

/* n = rows * h output elements; nvec != 0 only when h is a multiple of V and
 * the tensors are aligned, so a vector never crosses a row. */
KM_FN void
km_swiglu_body(int op, int dt, int fast, const struct km_plan *p, km_idx tid, km_idx nth)
{
	km_idx V = 16u / km_size(dt), h = (km_idx)p->cols / 2, n = (km_idx)p->n, i;
	km_idx nvec = (km_idx)p->nvec;

	if (nvec) {
		km_idx hv = h / V, r = tid / hv, c = tid % hv, sr = nth / hv, sc = nth % hv, v;

		for (v = tid; v < nvec; v += nth * km_unroll(op, fast))
			km_swiglu_step(op, dt, fast, p, v, nth, &r, &c, sr, sc);
		return;
	}
	for (i = tid; i < n; i += nth)
		km_swiglu_scalar(op, dt, fast, p, i / h, i % h);
}

KM_FN void
km_body(int op, int dt, int fast, const struct km_plan *p, km_idx tid, km_idx nth)
{
	if (op == MCINIT_KOP_BIAS_SWIGLU_FWD || op == MCINIT_KOP_BIAS_SWIGLU_BWD)
		km_swiglu_body(op, dt, fast, p, tid, nth);
	else
		km_flat_body(op, dt, fast, p, tid, nth);
}
