/* topology.c — see topology.h. */
#include "topology.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#define TP     MCINIT_DIM_TP
#define CP     MCINIT_DIM_CP
#define EP     MCINIT_DIM_EP
#define DP     MCINIT_DIM_DP
#define PP     MCINIT_DIM_PP
#define NDIM   MCINIT_DIM_COUNT
#define BIT(d) (1u << (d))

/* embd/pos_embd are not orthogonal groups: they are picked from the pp groups. */
enum pick { PICK_ALL, PICK_FIRST_LAST, PICK_FIRST };

static const struct kind_info {
	const char *name;
	const char *token;
	int expert;
	unsigned mask;
	enum pick pick;
} kinds[MCINIT_GROUP_COUNT] = {
    [MCINIT_GROUP_DP_CP] = {"dp_cp", "dp-cp", 0, BIT(DP) | BIT(CP), PICK_ALL},
    [MCINIT_GROUP_DP] = {"dp", "dp", 0, BIT(DP), PICK_ALL},
    [MCINIT_GROUP_CP] = {"cp", "cp", 0, BIT(CP), PICK_ALL},
    [MCINIT_GROUP_MP] = {"mp", "tp-pp", 0, BIT(TP) | BIT(PP), PICK_ALL},
    [MCINIT_GROUP_TP] = {"tp", "tp", 0, BIT(TP), PICK_ALL},
    [MCINIT_GROUP_PP] = {"pp", "pp", 0, BIT(PP), PICK_ALL},
    [MCINIT_GROUP_EMBD] = {"embd", "pp", 0, BIT(PP), PICK_FIRST_LAST},
    [MCINIT_GROUP_POS_EMBD] = {"pos_embd", "pp", 0, BIT(PP), PICK_FIRST},
    [MCINIT_GROUP_TP_DP_CP] = {"tp_dp_cp", "tp-dp-cp", 0, BIT(TP) | BIT(DP) | BIT(CP), PICK_ALL},
    [MCINIT_GROUP_TP_DP] = {"tp_dp", "tp-dp", 0, BIT(TP) | BIT(DP), PICK_ALL},
    [MCINIT_GROUP_TP_CP] = {"tp_cp", "tp-cp", 0, BIT(TP) | BIT(CP), PICK_ALL},
    [MCINIT_GROUP_EP] = {"ep", "ep", 1, BIT(EP), PICK_ALL},
    [MCINIT_GROUP_EP_TP] = {"ep_tp", "tp", 1, BIT(TP), PICK_ALL},
    [MCINIT_GROUP_TP_EP_MP] = {"tp_ep_mp", "tp-ep", 1, BIT(TP) | BIT(EP), PICK_ALL},
    [MCINIT_GROUP_TP_EP_PP] = {"tp_ep_pp", "tp-ep-pp", 1, BIT(TP) | BIT(EP) | BIT(PP), PICK_ALL},
    [MCINIT_GROUP_EP_DP] = {"ep_dp", "dp", 1, BIT(DP), PICK_ALL},
};

static const int order_default[NDIM] = {TP, CP, EP, DP, PP};
static const int order_tp_pp_dp[NDIM] = {TP, CP, EP, PP, DP};

static int
kind_ok(enum mcinit_group_kind k)
{
	return (int)k >= 0 && k < MCINIT_GROUP_COUNT;
}

const char *
mcinit_group_kind_name(enum mcinit_group_kind k)
{
	return kind_ok(k) ? kinds[k].name : NULL;
}

const char *
mcinit_group_kind_token(enum mcinit_group_kind k)
{
	return kind_ok(k) ? kinds[k].token : NULL;
}

int
mcinit_group_kind_is_expert(enum mcinit_group_kind k)
{
	return kind_ok(k) && kinds[k].expert;
}

int
mcinit_group_kind_from_name(const char *name)
{
	int k;

	for (k = 0; k < MCINIT_GROUP_COUNT; k++)
		if (strcmp(kinds[k].name, name) == 0)
			return k;
	return -1;
}

/* Multiplies the sizes, refusing products above `limit` so that absurd
 * inputs cannot overflow; returns 0 when the product exceeds it. */
static long
bounded_product(long limit, long a, long b, long c)
{
	if (a > limit || b > limit / a || c > limit / (a * b))
		return 0;
	return a * b * c;
}

static void
grid_init(struct mcinit_topo_grid *g, const int *order, long tp, long cp, long ep, long dp, long pp)
{
	long stride = 1;
	int i;

	g->size[TP] = tp;
	g->size[CP] = cp;
	g->size[EP] = ep;
	g->size[DP] = dp;
	g->size[PP] = pp;
	for (i = 0; i < NDIM; i++) {
		g->stride[order[i]] = stride;
		stride *= g->size[order[i]];
	}
}

int
mcinit_topo_init(struct mcinit_topo *t, const struct mcinit_topo_sizes *s, struct mcinit_err *err)
{
	long dense, expert, dp, edp;

	if (s->world < 1 || s->tp < 1 || s->pp < 1 || s->cp < 1 || s->ep < 1 || s->etp < 1)
		return mcinit_err_set(
		    err, EX_DATAERR,
		    "parallel sizes must be >= 1 (world %ld, tp %ld, pp %ld, cp %ld, "
		    "ep %ld, etp %ld)",
		    s->world, s->tp, s->pp, s->cp, s->ep, s->etp);
	dense = bounded_product(s->world, s->tp, s->cp, s->pp);
	if (dense == 0 || s->world % dense != 0)
		return mcinit_err_set(err, EX_DATAERR,
		                      "world size %ld is not divisible by tp*cp*pp = %ld*%ld*%ld",
		                      s->world, s->tp, s->cp, s->pp);
	expert = bounded_product(s->world, s->etp, s->ep, s->pp);
	if (expert == 0 || s->world % expert != 0)
		return mcinit_err_set(err, EX_DATAERR,
		                      "world size %ld is not divisible by etp*ep*pp = %ld*%ld*%ld",
		                      s->world, s->etp, s->ep, s->pp);
	dp = s->world / dense;
	edp = s->world / expert;
	/* With pp before dp in the order, the pp stride is tp*cp in one grid and
	 * etp*ep in the other: the pipeline groups agree only when they match. */
	if (s->tp_pp_dp_mapping && s->pp > 1 && edp != dp)
		return mcinit_err_set(
		    err, EX_DATAERR,
		    "with tp-pp-dp mapping the expert data-parallel size (%ld) must "
		    "equal the data-parallel size (%ld)",
		    edp, dp);
	t->s = *s;
	t->dp = dp;
	t->edp = edp;
	memcpy(t->order, s->tp_pp_dp_mapping ? order_tp_pp_dp : order_default, sizeof t->order);
	grid_init(&t->dense, t->order, s->tp, s->cp, 1, dp, s->pp);
	grid_init(&t->expert, t->order, s->etp, 1, s->ep, edp, s->pp);
	return 0;
}

const char *
mcinit_topo_order(const struct mcinit_topo *t)
{
	return t->s.tp_pp_dp_mapping ? "tp-cp-ep-pp-dp" : "tp-cp-ep-dp-pp";
}

static long
grid_coord(const struct mcinit_topo_grid *g, int d, long rank)
{
	return rank / g->stride[d] % g->size[d];
}

int
mcinit_topo_coords(const struct mcinit_topo *t, long rank, struct mcinit_coords *c)
{
	if (rank < 0 || rank >= t->s.world)
		return -1;
	c->tp = grid_coord(&t->dense, TP, rank);
	c->cp = grid_coord(&t->dense, CP, rank);
	c->dp = grid_coord(&t->dense, DP, rank);
	c->pp = grid_coord(&t->dense, PP, rank);
	c->etp = grid_coord(&t->expert, TP, rank);
	c->ep = grid_coord(&t->expert, EP, rank);
	c->edp = grid_coord(&t->expert, DP, rank);
	return 0;
}

static long
grid_rank(const struct mcinit_topo_grid *g, const long *coord)
{
	long rank = 0;
	int d;

	for (d = 0; d < NDIM; d++) {
		if (coord[d] < 0 || coord[d] >= g->size[d])
			return -1;
		rank += coord[d] * g->stride[d];
	}
	return rank;
}

long
mcinit_topo_dense_rank(const struct mcinit_topo *t, long tp, long cp, long dp, long pp)
{
	const long coord[NDIM] = {[TP] = tp, [CP] = cp, [EP] = 0, [DP] = dp, [PP] = pp};

	return grid_rank(&t->dense, coord);
}

long
mcinit_topo_expert_rank(const struct mcinit_topo *t, long etp, long ep, long edp, long pp)
{
	const long coord[NDIM] = {[TP] = etp, [CP] = 0, [EP] = ep, [DP] = edp, [PP] = pp};

	return grid_rank(&t->expert, coord);
}

/*
 * A kind's plan: the masked and unmasked dimensions in order (size-1
 * dimensions dropped, they contribute nothing), with sizes and strides.
 * Group g's base is the mixed-radix value of g over the unmasked dims; its
 * members are base + the mixed-radix walk over the masked dims.
 */
struct plan {
	int nm, nu;
	long ms[NDIM], mst[NDIM]; /* masked sizes, strides */
	long us[NDIM], ust[NDIM]; /* unmasked sizes, strides */
	long ngroups, size;       /* of the output groups (after picking) */
	enum pick pick;
	long last_off; /* offset of a pp group's last member from its first */
};

static void
plan_init(struct plan *p, const struct mcinit_topo *t, enum mcinit_group_kind k)
{
	const struct kind_info *ki = &kinds[k];
	const struct mcinit_topo_grid *g = ki->expert ? &t->expert : &t->dense;
	long gsize = 1;
	int i;

	memset(p, 0, sizeof *p);
	for (i = 0; i < NDIM; i++) {
		int d = t->order[i];

		if (g->size[d] == 1)
			continue;
		if (ki->mask & BIT(d)) {
			p->ms[p->nm] = g->size[d];
			p->mst[p->nm++] = g->stride[d];
			gsize *= g->size[d];
		} else {
			p->us[p->nu] = g->size[d];
			p->ust[p->nu++] = g->stride[d];
		}
	}
	p->ngroups = t->s.world / gsize;
	p->pick = ki->pick;
	p->last_off = (g->size[PP] - 1) * g->stride[PP];
	if (p->pick == PICK_ALL)
		p->size = gsize;
	else
		p->size = p->pick == PICK_FIRST_LAST && g->size[PP] > 1 ? 2 : 1;
}

/* Steps the mixed-radix counter cnt (first digit fastest) and the value it
 * stands for; returns 0 after wrapping around to all zeros. */
static int
odometer_next(long *cnt, const long *size, const long *stride, int n, long *val)
{
	int j;

	for (j = 0; j < n; j++) {
		if (++cnt[j] < size[j]) {
			*val += stride[j];
			return 1;
		}
		cnt[j] = 0;
		*val -= (size[j] - 1) * stride[j];
	}
	return 0;
}

static long *
fill_group(const struct plan *p, long base, long *out)
{
	long cnt[NDIM] = {0}, v = base, i;

	if (p->pick != PICK_ALL || p->nm == 0) {
		*out++ = base;
		if (p->size == 2)
			*out++ = base + p->last_off;
		return out;
	}
	do {
		for (i = 0; i < p->ms[0]; i++)
			*out++ = v + i * p->mst[0];
	} while (odometer_next(cnt + 1, p->ms + 1, p->mst + 1, p->nm - 1, &v));
	return out;
}

int
mcinit_topo_group_shape(const struct mcinit_topo *t, enum mcinit_group_kind k, long *ngroups,
                        long *size)
{
	struct plan p;

	if (!kind_ok(k))
		return -1;
	plan_init(&p, t, k);
	*ngroups = p.ngroups;
	*size = p.size;
	return 0;
}

int
mcinit_topo_groups(const struct mcinit_topo *t, enum mcinit_group_kind k, struct mcinit_groups *out,
                   struct mcinit_err *err)
{
	long cnt[NDIM] = {0}, base = 0, g, *w;
	struct plan p;

	if (!kind_ok(k))
		return mcinit_err_set(err, EX_SOFTWARE, "unknown group kind %d", (int)k);
	plan_init(&p, t, k);
	out->ngroups = p.ngroups;
	out->size = p.size;
	out->members = mcinit_xmalloc((size_t)(p.ngroups * p.size) * sizeof *out->members);
	w = out->members;
	for (g = 0; g < p.ngroups; g++) {
		w = fill_group(&p, base, w);
		odometer_next(cnt, p.us, p.ust, p.nu, &base);
	}
	return 0;
}

void
mcinit_groups_destroy(struct mcinit_groups *g)
{
	free(g->members);
	g->members = NULL;
	g->ngroups = g->size = 0;
}

/* Mixed-radix value of rank's coordinates over the dims in (or out of) mask. */
static long
radix_index(const struct mcinit_topo *t, const struct mcinit_topo_grid *g, unsigned mask,
            int masked, long rank)
{
	long idx = 0, scale = 1;
	int i;

	for (i = 0; i < NDIM; i++) {
		int d = t->order[i];

		if (!(mask & BIT(d)) == !masked) {
			idx += grid_coord(g, d, rank) * scale;
			scale *= g->size[d];
		}
	}
	return idx;
}

int
mcinit_topo_group_of(const struct mcinit_topo *t, enum mcinit_group_kind k, long rank, long *color,
                     long *key)
{
	const struct kind_info *ki;
	const struct mcinit_topo_grid *g;
	long pp;

	if (!kind_ok(k) || rank < 0 || rank >= t->s.world)
		return -1;
	ki = &kinds[k];
	g = ki->expert ? &t->expert : &t->dense;
	*color = radix_index(t, g, ki->mask, 0, rank);
	*key = radix_index(t, g, ki->mask, 1, rank);
	if (ki->pick == PICK_ALL)
		return 0;
	pp = *key;
	if (pp == 0)
		return 0;
	if (ki->pick == PICK_FIRST_LAST && pp == g->size[PP] - 1) {
		*key = 1;
		return 0;
	}
	*color = *key = -1;
	return 1;
}

void
mcinit_topo_seeds_at(const struct mcinit_coords *c, long long seed, int dp_random_init,
                     struct mcinit_seeds *out)
{
	out->base = seed + 100LL * c->pp;
	if (dp_random_init)
		out->base += 10LL * c->dp;
	out->model_parallel = out->base + 2718 + c->tp;
	out->expert_parallel = out->base + 1024 + 100LL * c->ep + c->etp;
}

int
mcinit_topo_seeds(const struct mcinit_topo *t, long rank, long long seed, int dp_random_init,
                  struct mcinit_seeds *out)
{
	struct mcinit_coords c;

	if (mcinit_topo_coords(t, rank, &c) < 0)
		return -1;
	mcinit_topo_seeds_at(&c, seed, dp_random_init, out);
	return 0;
}

/*
 * JSON output.  A writer fills [p, end) and, when short of room, either
 * grows the mcinit_buf it writes into or flushes its chunk to a FILE.  The
 * callers ask for room per number, so a chunk never needs to hold a group.
 */
#define CHUNK    (1 << 20)
#define NUM_ROOM 24 /* a long, a separator and a closing bracket or two */

struct jw {
	char *p, *end, *start;
	struct mcinit_buf *b; /* buffer mode */
	FILE *f;              /* stream mode */
	int failed;
};

static void
jw_slow(struct jw *w, size_t need)
{
	if (w->b != NULL) {
		w->b->len = (size_t)(w->p - w->b->data);
		mcinit_buf_reserve(w->b, need > CHUNK ? need : CHUNK);
		w->p = w->b->data + w->b->len;
		w->end = w->b->data + w->b->cap - 1; /* room for mcinit_buf_cstr's NUL */
		return;
	}
	if (!w->failed &&
	    fwrite(w->start, 1, (size_t)(w->p - w->start), w->f) != (size_t)(w->p - w->start))
		w->failed = 1;
	w->p = w->start;
}

static inline void
jw_room(struct jw *w, size_t need)
{
	if ((size_t)(w->end - w->p) < need)
		jw_slow(w, need);
}

static inline void
jw_str(struct jw *w, const char *s)
{
	size_t n = strlen(s);

	jw_room(w, n);
	memcpy(w->p, s, n);
	w->p += n;
}

/* Ranks are never negative, so only the unsigned path is needed. */
static inline char *
put_ulong(char *p, unsigned long v)
{
	char tmp[24], *end = tmp + sizeof tmp, *q = mcinit_utoa_rev(end, v);
	size_t n = (size_t)(end - q);

	memcpy(p, q, n);
	return p + n;
}

/* Writes "v," — the caller replaces the last separator by the closing bracket. */
static inline void
jw_num(struct jw *w, long v)
{
	jw_room(w, NUM_ROOM);
	w->p = put_ulong(w->p, (unsigned long)v);
	*w->p++ = ',';
}

static void
jw_group(struct jw *w, const struct plan *p, long base)
{
	long cnt[NDIM] = {0}, v = base, i;

	jw_room(w, 1);
	*w->p++ = '[';
	if (p->pick != PICK_ALL || p->nm == 0) {
		jw_num(w, base);
		if (p->size == 2)
			jw_num(w, base + p->last_off);
	} else {
		do {
			for (i = 0; i < p->ms[0]; i++)
				jw_num(w, v + i * p->mst[0]);
		} while (odometer_next(cnt + 1, p->ms + 1, p->mst + 1, p->nm - 1, &v));
	}
	w->p[-1] = ']'; /* a group is never empty: overwrite the trailing comma */
	*w->p++ = ',';
}

static void
jw_kind(struct jw *w, const struct mcinit_topo *t, enum mcinit_group_kind k)
{
	long cnt[NDIM] = {0}, base = 0, g;
	struct plan p;

	plan_init(&p, t, k);
	jw_room(w, 32);
	*w->p++ = '"';
	jw_str(w, kinds[k].name);
	jw_str(w, "\":[");
	for (g = 0; g < p.ngroups; g++) {
		jw_group(w, &p, base);
		odometer_next(cnt, p.us, p.ust, p.nu, &base);
	}
	w->p[-1] = ']'; /* ngroups >= 1: replaces the comma after the last group */
}

static void
jw_groups(struct jw *w, const struct mcinit_topo *t, unsigned kinds_set)
{
	int k, first = 1;

	jw_room(w, 1);
	*w->p++ = '{';
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		if (!(kinds_set & MCINIT_GROUP_BIT(k)))
			continue;
		if (!first) {
			jw_room(w, 1);
			*w->p++ = ',';
		}
		first = 0;
		jw_kind(w, t, k);
	}
	jw_room(w, 1);
	*w->p++ = '}';
}

static size_t
json_upper_bound(const struct mcinit_topo *t, unsigned kinds_set)
{
	size_t total = 64, digits = 1; /* 64: the writer asks for room ahead of need */
	long v, ng, sz;
	int k;

	for (v = t->s.world - 1; v >= 10; v /= 10)
		digits++;
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		if (!(kinds_set & MCINIT_GROUP_BIT(k)))
			continue;
		mcinit_topo_group_shape(t, k, &ng, &sz);
		total += strlen(kinds[k].name) + 6 + (size_t)ng * (3 + (size_t)sz * (digits + 1));
	}
	return total;
}

void
mcinit_topo_json_groups(const struct mcinit_topo *t, unsigned kinds_set, struct mcinit_buf *b)
{
	struct jw w = {0};

	w.b = b;
	/* One reservation up front instead of a chain of copying reallocs; the
	 * unused tail of an upper bound is never touched, so it costs no RSS. */
	mcinit_buf_reserve(b, json_upper_bound(t, kinds_set));
	w.p = b->data + b->len;
	w.end = b->data + b->cap - 1;
	jw_groups(&w, t, kinds_set);
	b->len = (size_t)(w.p - b->data);
}

int
mcinit_topo_json_groups_write(const struct mcinit_topo *t, unsigned kinds_set, FILE *f,
                              struct mcinit_err *err)
{
	struct jw w = {0};
	int rc = 0;

	w.f = f;
	w.start = mcinit_xmalloc(CHUNK);
	w.p = w.start;
	w.end = w.start + CHUNK;
	jw_groups(&w, t, kinds_set);
	jw_slow(&w, 0);
	if (w.failed || fflush(f) != 0 || ferror(f))
		rc = mcinit_err_set(err, EX_IOERR, "writing topology JSON: %s", strerror(errno));
	free(w.start);
	return rc;
}
