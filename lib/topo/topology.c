/* topology.c — see topology.h. */
#include "topo/topology.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TP     MCINIT_DIM_TP
#define GTP    MCINIT_DIM_GTP
#define CP     MCINIT_DIM_CP
#define EP     MCINIT_DIM_EP
#define DP     MCINIT_DIM_DP
#define PP     MCINIT_DIM_PP
#define NDIM   MCINIT_DIM_COUNT
#define BIT(d) (1u << (d))
#define ALL    ((1u << NDIM) - 1u)

/* How a cut family picks its members from a unit of parent groups. */
enum pick { PICK_ALL, PICK_FIRST_LAST, PICK_FIRST, PICK_HIER };

static const struct kind_info {
	const char *name;
	const char *token;
	int expert;
	unsigned mask; /* for the kinds that come from a grid */
} kinds[MCINIT_GROUP_COUNT] = {
    [MCINIT_GROUP_GTP_REMAT] = {"gtp_remat", "gtp_remat", 0, BIT(GTP)},
    [MCINIT_GROUP_DP_CP] = {"dp_cp", "dp-cp", 0, BIT(DP) | BIT(CP)},
    [MCINIT_GROUP_DP_CP_AG] = {"dp_cp_ag", "dp_cp: same ranks", 0, 0},
    [MCINIT_GROUP_INTRA_DP_CP] = {"intra_dp_cp", "dp_cp: one slice per instance", 0, 0},
    [MCINIT_GROUP_DP] = {"dp", "dp", 0, BIT(DP)},
    [MCINIT_GROUP_GTP_REMAT_DP] = {"gtp_remat_dp", "gtp_remat-dp", 0, BIT(GTP) | BIT(DP)},
    [MCINIT_GROUP_GTP_REMAT_DP_CP] = {"gtp_remat_dp_cp", "gtp_remat-dp-cp", 0,
                                      BIT(GTP) | BIT(DP) | BIT(CP)},
    [MCINIT_GROUP_CP] = {"cp", "cp", 0, BIT(CP)},
    [MCINIT_GROUP_HCP] = {"hcp", "cp: one level per size", 0, 0},
    [MCINIT_GROUP_MP] = {"mp", "tp-pp", 0, BIT(TP) | BIT(GTP) | BIT(PP)},
    [MCINIT_GROUP_TP] = {"tp", "tp", 0, BIT(TP)},
    [MCINIT_GROUP_PP] = {"pp", "pp", 0, BIT(PP)},
    [MCINIT_GROUP_EMBD] = {"embd", "pp: first, last", 0, 0},
    [MCINIT_GROUP_POS_EMBD] = {"pos_embd", "pp: first", 0, 0},
    [MCINIT_GROUP_TP_DP_CP] = {"tp_dp_cp", "tp-dp-cp", 0, BIT(TP) | BIT(GTP) | BIT(DP) | BIT(CP)},
    [MCINIT_GROUP_TP_DP] = {"tp_dp", "tp-dp", 0, BIT(TP) | BIT(GTP) | BIT(DP)},
    [MCINIT_GROUP_TP_CP] = {"tp_cp", "tp-cp", 0, BIT(TP) | BIT(CP)},
    [MCINIT_GROUP_EXPT_GTP_REMAT] = {"expt_gtp_remat", "gtp_remat", 1, BIT(GTP)},
    [MCINIT_GROUP_EP] = {"ep", "ep", 1, BIT(EP)},
    [MCINIT_GROUP_EP_TP] = {"ep_tp", "tp", 1, BIT(TP)},
    [MCINIT_GROUP_TP_EP_MP] = {"tp_ep_mp", "tp-ep", 1, BIT(TP) | BIT(EP)},
    [MCINIT_GROUP_TP_EP_PP] = {"tp_ep_pp", "tp-ep-pp", 1, BIT(TP) | BIT(EP) | BIT(PP)},
    [MCINIT_GROUP_TP_EP_GTP_REMAT_PP] = {"tp_ep_gtp_remat_pp", "tp-ep-gtp_remat-pp", 1,
                                         BIT(TP) | BIT(EP) | BIT(GTP) | BIT(PP)},
    [MCINIT_GROUP_EP_DP] = {"ep_dp", "dp", 1, BIT(DP)},
    [MCINIT_GROUP_INTRA_EP_DP] = {"intra_ep_dp", "ep_dp: one slice per instance", 1, 0},
    [MCINIT_GROUP_INTER_EP_DP] = {"inter_ep_dp", "ep_dp: across instances", 1, 0},
    [MCINIT_GROUP_EP_GTP_REMAT_DP] = {"ep_gtp_remat_dp", "gtp_remat-dp", 1, BIT(GTP) | BIT(DP)},
    [MCINIT_GROUP_INTRA_DIST_OPT_INSTANCE] = {"intra_dist_opt_instance",
                                              "tp_ep_pp: one instance's groups", 1, 0},
};

/* Where gtp_remat goes: after tp in the dense order, after ep in the expert
 * order (Megatron's _inject_gtp_remat_axis).  Before r0.19 its size is 1,
 * so its place changes nothing. */
static const int order_dense[2][NDIM] = {{TP, GTP, CP, EP, DP, PP}, {TP, GTP, CP, EP, PP, DP}};
static const int order_expert[2][NDIM] = {{TP, CP, EP, GTP, DP, PP}, {TP, CP, EP, GTP, PP, DP}};

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

/* What each release's initialize_model_parallel does differently (read off
 * its parallel_state.py; tests/oracle/ replays them). */
static const struct {
	const char *release;
	unsigned features;
} releases[] = {
    {"r0.15", 0}, {"r0.16", MCINIT_TOPO_F_DP_CP_AG}, {"r0.17", MCINIT_TOPO_F_DP_CP_AG},
    {"r0.18", 0}, {"r0.19", MCINIT_TOPO_F_GTP},      {"main", MCINIT_TOPO_F_GTP},
};

unsigned
mcinit_topo_features(const char *release)
{
	size_t i;

	for (i = 0; release != NULL && i < sizeof releases / sizeof releases[0]; i++)
		if (strcmp(releases[i].release, release) == 0)
			return releases[i].features;
	return 0;
}

/* ---- sizes ---- */

/* a·b·c·d divides w, without forming a product that could overflow. */
static int
divides4(long w, long a, long b, long c, long d)
{
	return w % a == 0 && (w / a) % b == 0 && (w / a / b) % c == 0 && (w / a / b / c) % d == 0;
}

static long
one_if_zero(long v)
{
	return v == 0 ? 1 : v;
}

static int
check_basic(const struct mcinit_topo_sizes *s, struct mcinit_err *err)
{
	int i;

	if (s->world < 1 || s->tp < 1 || s->pp < 1 || s->cp < 1 || s->ep < 1 || s->etp < 1 ||
	    s->gtp < 0 || s->egtp < 0 || s->dist_opt_instances < 0)
		return mcinit_err_set(
		    err, MCINIT_E_PARSE,
		    "parallel sizes must be >= 1 (world %ld, tp %ld, pp %ld, cp %ld, "
		    "ep %ld, etp %ld, gtp_remat %ld, expert gtp_remat %ld, instances %ld)",
		    s->world, s->tp, s->pp, s->cp, s->ep, s->etp, s->gtp, s->egtp,
		    s->dist_opt_instances);
	if (!(s->features & MCINIT_TOPO_F_GTP) && (s->gtp > 1 || s->egtp > 1))
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "this release has no gtp_remat axis (r0.19 and main have)");
	if (s->nhcp < 0 || s->nhcp > MCINIT_HCP_MAX)
		return mcinit_err_set(
		    err, MCINIT_E_PARSE,
		    "%d hierarchical context-parallel levels (mcinit supports %d)", s->nhcp,
		    MCINIT_HCP_MAX);
	for (i = 0; i < s->nhcp; i++)
		if (s->hcp[i] < 1)
			return mcinit_err_set(err, MCINIT_E_PARSE,
			                      "hierarchical context-parallel size %ld is not >= 1",
			                      s->hcp[i]);
	return 0;
}

/* Megatron asserts np.prod(hierarchical_context_parallel_sizes) == CP. */
static int
check_hcp(const struct mcinit_topo_sizes *s, struct mcinit_err *err)
{
	long rest = s->cp;
	int i;

	for (i = 0; i < s->nhcp; i++) {
		if (rest % s->hcp[i] != 0)
			break;
		rest /= s->hcp[i];
	}
	if (s->nhcp > 0 && (i < s->nhcp || rest != 1))
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "the hierarchical context-parallel sizes do not multiply to "
		                      "the context-parallel size %ld",
		                      s->cp);
	return 0;
}

static int
check_sizes(const struct mcinit_topo_sizes *s, long gtp, long egtp, long n, struct mcinit_err *err)
{
	long dp, edp;

	if (check_basic(s, err) < 0)
		return -1;
	if (!divides4(s->world, s->tp, s->cp, s->pp, gtp))
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "world size %ld is not divisible by tp*cp*pp*gtp_remat = "
		                      "%ld*%ld*%ld*%ld",
		                      s->world, s->tp, s->cp, s->pp, gtp);
	if (!divides4(s->world, s->etp, s->ep, s->pp, egtp))
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "world size %ld is not divisible by etp*ep*pp*gtp_remat = "
		                      "%ld*%ld*%ld*%ld",
		                      s->world, s->etp, s->ep, s->pp, egtp);
	dp = s->world / s->tp / s->cp / s->pp / gtp;
	edp = s->world / s->etp / s->ep / s->pp / egtp;
	/* With pp before dp in the order, the pp stride is tp*gtp*cp in one grid
	 * and etp*ep*egtp in the other: the pipeline groups agree only when they match. */
	if (s->tp_pp_dp_mapping && s->pp > 1 && edp != dp)
		return mcinit_err_set(
		    err, MCINIT_E_PARSE,
		    "with tp-pp-dp mapping the expert data-parallel size (%ld) must "
		    "equal the data-parallel size (%ld)",
		    edp, dp);
	if ((gtp > 1 || egtp > 1) && n > 1)
		return mcinit_err_set(
		    err, MCINIT_E_PARSE,
		    "GTP_remat with num_distributed_optimizer_instances > 1 is not "
		    "yet supported");
	if ((dp * s->cp) % n != 0)
		return mcinit_err_set(
		    err, MCINIT_E_PARSE,
		    "data-parallel x context-parallel size %ld is not divisible by "
		    "num_distributed_optimizer_instances %ld",
		    dp * s->cp, n);
	if (edp % n != 0)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "expert data-parallel size %ld is not divisible by "
		                      "num_distributed_optimizer_instances %ld",
		                      edp, n);
	return check_hcp(s, err);
}

static void
grid_init(struct mcinit_topo_grid *g, const int *order, const long *size)
{
	long stride = 1;
	int i;

	memcpy(g->size, size, sizeof g->size);
	memcpy(g->order, order, sizeof g->order);
	for (i = 0; i < NDIM; i++) {
		g->stride[order[i]] = stride;
		stride *= g->size[order[i]];
	}
}

/* ---- families ---- */

static const struct mcinit_topo_grid *
fam_grid(const struct mcinit_topo *t, const struct mcinit_topo_fam *f)
{
	return f->expert ? &t->expert : &t->dense;
}

static int
fam_grid_add(struct mcinit_topo *t, enum mcinit_group_kind k, unsigned mask)
{
	struct mcinit_topo_fam *f = &t->fam[t->nfam];
	const struct mcinit_topo_grid *g;
	int d;

	memset(f, 0, sizeof *f);
	f->kind = k;
	f->parent = -1;
	f->expert = kinds[k].expert;
	f->mask = mask;
	f->pick = PICK_ALL;
	f->unit = f->per_unit = 1;
	g = fam_grid(t, f);
	f->size = 1;
	for (d = 0; d < NDIM; d++)
		if (mask & BIT(d))
			f->size *= g->size[d];
	f->ngroups = t->s.world / f->size;
	return t->nfam++;
}

static int
fam_grid_kind(struct mcinit_topo *t, enum mcinit_group_kind k)
{
	return fam_grid_add(t, k, kinds[k].mask);
}

/* A family cut from `unit` consecutive groups of family p: group l*hu+u of
 * each unit takes the unit's members l*hs*hu + j*hu + u, j < hs (einops'
 * "(l s u) -> (l u) s", as create_hierarchical_groups). */
static int
fam_cut(struct mcinit_topo *t, enum mcinit_group_kind k, int level, int p, long unit, int pick,
        long hu, long hs, long hl)
{
	struct mcinit_topo_fam *f = &t->fam[t->nfam];
	const struct mcinit_topo_fam *pf = &t->fam[p];

	memset(f, 0, sizeof *f);
	f->kind = k;
	f->level = level;
	f->parent = p;
	/* Every cut family is created inside its parent's loop, except
	 * intra_dist_opt_instance: its loop is its own, after ep_dp's. */
	f->inside = k != MCINIT_GROUP_INTRA_DIST_OPT_INSTANCE;
	f->expert = pf->expert;
	f->pick = pick;
	f->unit = unit;
	f->hu = hu;
	f->hs = hs;
	f->hl = hl;
	if (pick == PICK_HIER) {
		f->per_unit = hu * hl;
		f->size = hs;
	} else {
		f->per_unit = 1;
		f->size = pick == PICK_FIRST_LAST && pf->size > 1 ? 2 : 1;
	}
	f->ngroups = pf->ngroups / unit * f->per_unit;
	return t->nfam++;
}

static void
fams_dense(struct mcinit_topo *t, long n)
{
	const struct mcinit_topo_sizes *s = &t->s;
	int gtp = (s->features & MCINIT_TOPO_F_GTP) != 0, p, i;
	long below = 1, above = s->cp;

	if (gtp)
		fam_grid_kind(t, MCINIT_GROUP_GTP_REMAT);
	p = fam_grid_kind(t, MCINIT_GROUP_DP_CP);
	if ((s->features & MCINIT_TOPO_F_DP_CP_AG) && s->all_gather_group)
		fam_cut(t, MCINIT_GROUP_DP_CP_AG, 0, p, 1, PICK_HIER, 1, t->fam[p].size, 1);
	if (n > 1)
		fam_cut(t, MCINIT_GROUP_INTRA_DP_CP, 0, p, 1, PICK_HIER, 1, t->fam[p].size / n, n);
	fam_grid_kind(t, MCINIT_GROUP_DP);
	if (gtp && t->dense.size[GTP] > 1) {
		fam_grid_kind(t, MCINIT_GROUP_GTP_REMAT_DP);
		fam_grid_kind(t, MCINIT_GROUP_GTP_REMAT_DP_CP);
	}
	p = fam_grid_kind(t, MCINIT_GROUP_CP);
	for (i = 0; i < s->nhcp; i++) {
		above /= s->hcp[i];
		fam_cut(t, MCINIT_GROUP_HCP, i, p, 1, PICK_HIER, below, s->hcp[i], above);
		below *= s->hcp[i];
	}
	fam_grid_kind(t, MCINIT_GROUP_MP);
	fam_grid_kind(t, MCINIT_GROUP_TP);
	p = fam_grid_kind(t, MCINIT_GROUP_PP);
	fam_cut(t, MCINIT_GROUP_EMBD, 0, p, 1, PICK_FIRST_LAST, 0, 0, 0);
	fam_cut(t, MCINIT_GROUP_POS_EMBD, 0, p, 1, PICK_FIRST, 0, 0, 0);
	fam_grid_kind(t, MCINIT_GROUP_TP_DP_CP);
	fam_grid_kind(t, MCINIT_GROUP_TP_DP);
	fam_grid_kind(t, MCINIT_GROUP_TP_CP);
}

static void
fams_expert(struct mcinit_topo *t, long n)
{
	int gtp = (t->s.features & MCINIT_TOPO_F_GTP) != 0, p, q;
	long intra = t->edp / n;

	if (gtp)
		fam_grid_kind(t, MCINIT_GROUP_EXPT_GTP_REMAT);
	fam_grid_kind(t, MCINIT_GROUP_EP);
	fam_grid_kind(t, MCINIT_GROUP_EP_TP);
	fam_grid_kind(t, MCINIT_GROUP_TP_EP_MP);
	q = fam_grid_kind(t, MCINIT_GROUP_TP_EP_PP);
	if (gtp)
		fam_grid_kind(t, MCINIT_GROUP_TP_EP_GTP_REMAT_PP);
	p = fam_grid_kind(t, MCINIT_GROUP_EP_DP);
	if (n > 1) {
		fam_cut(t, MCINIT_GROUP_INTRA_EP_DP, 0, p, 1, PICK_HIER, 1, intra, n);
		fam_cut(t, MCINIT_GROUP_INTER_EP_DP, 0, p, 1, PICK_HIER, intra, n, 1);
	}
	if (gtp && t->expert.size[GTP] > 1)
		fam_grid_kind(t, MCINIT_GROUP_EP_GTP_REMAT_DP);
	/* With gtp_remat, one group of every rank (sorted: the whole grid in
	 * order); without, every `intra` consecutive tp_ep_pp groups. */
	if (gtp && (t->dense.size[GTP] > 1 || t->expert.size[GTP] > 1))
		fam_grid_add(t, MCINIT_GROUP_INTRA_DIST_OPT_INSTANCE, ALL);
	else
		fam_cut(t, MCINIT_GROUP_INTRA_DIST_OPT_INSTANCE, 0, q, intra, PICK_HIER, 1,
		        intra * t->fam[q].size, 1);
}

int
mcinit_topo_init(struct mcinit_topo *t, const struct mcinit_topo_sizes *s, struct mcinit_err *err)
{
	long gtp = one_if_zero(s->gtp), egtp = one_if_zero(s->egtp);
	long n = one_if_zero(s->dist_opt_instances);
	int m = s->tp_pp_dp_mapping != 0;

	if (check_sizes(s, gtp, egtp, n, err) < 0)
		return -1;
	t->s = *s;
	t->s.gtp = gtp;
	t->s.egtp = egtp;
	t->s.dist_opt_instances = n;
	t->dp = s->world / s->tp / s->cp / s->pp / gtp;
	t->edp = s->world / s->etp / s->ep / s->pp / egtp;
	grid_init(
	    &t->dense, order_dense[m],
	    (const long[NDIM]){
	        [TP] = s->tp, [GTP] = gtp, [CP] = s->cp, [EP] = 1, [DP] = t->dp, [PP] = s->pp});
	grid_init(
	    &t->expert, order_expert[m],
	    (const long[NDIM]){
	        [TP] = s->etp, [GTP] = egtp, [CP] = 1, [EP] = s->ep, [DP] = t->edp, [PP] = s->pp});
	t->nfam = 0;
	fams_dense(t, n);
	fams_expert(t, n);
	return 0;
}

const char *
mcinit_topo_order(const struct mcinit_topo *t)
{
	return t->s.tp_pp_dp_mapping ? "tp-cp-ep-pp-dp" : "tp-cp-ep-dp-pp";
}

const char *
mcinit_topo_grid_order(const struct mcinit_topo *t, int expert)
{
	static const char *const names[2][2] = {
	    {"tp-gtp_remat-cp-ep-dp-pp", "tp-gtp_remat-cp-ep-pp-dp"},
	    {"tp-cp-ep-gtp_remat-dp-pp", "tp-cp-ep-gtp_remat-pp-dp"}};

	if (!(t->s.features & MCINIT_TOPO_F_GTP))
		return mcinit_topo_order(t);
	return names[expert != 0][t->s.tp_pp_dp_mapping != 0];
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
	c->gtp = grid_coord(&t->dense, GTP, rank);
	c->cp = grid_coord(&t->dense, CP, rank);
	c->dp = grid_coord(&t->dense, DP, rank);
	c->pp = grid_coord(&t->dense, PP, rank);
	c->etp = grid_coord(&t->expert, TP, rank);
	c->ep = grid_coord(&t->expert, EP, rank);
	c->egtp = grid_coord(&t->expert, GTP, rank);
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
	const long coord[NDIM] = {[TP] = tp, [CP] = cp, [DP] = dp, [PP] = pp};

	return grid_rank(&t->dense, coord);
}

long
mcinit_topo_expert_rank(const struct mcinit_topo *t, long etp, long ep, long edp, long pp)
{
	const long coord[NDIM] = {[TP] = etp, [EP] = ep, [DP] = edp, [PP] = pp};

	return grid_rank(&t->expert, coord);
}

/*
 * A grid family's plan: the masked and unmasked dimensions in order (size-1
 * dimensions dropped, they contribute nothing), with sizes and strides.
 * Group g's base is the mixed-radix value of g over the unmasked dims; its
 * members are base + the mixed-radix walk over the masked dims.
 */
struct plan {
	int nm, nu;
	long ms[NDIM], mst[NDIM]; /* masked sizes, strides */
	long us[NDIM], ust[NDIM]; /* unmasked sizes, strides */
};

static void
plan_init(struct plan *p, const struct mcinit_topo *t, const struct mcinit_topo_fam *f)
{
	const struct mcinit_topo_grid *g = fam_grid(t, f);
	int i;

	memset(p, 0, sizeof *p);
	for (i = 0; i < NDIM; i++) {
		int d = g->order[i];

		if (g->size[d] == 1)
			continue;
		if (f->mask & BIT(d)) {
			p->ms[p->nm] = g->size[d];
			p->mst[p->nm++] = g->stride[d];
		} else {
			p->us[p->nu] = g->size[d];
			p->ust[p->nu++] = g->stride[d];
		}
	}
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

/* The value of index i written in the radix (size, stride). */
static long
radix_value(long i, const long *size, const long *stride, int n)
{
	long v = 0;
	int j;

	for (j = 0; j < n; j++) {
		v += i % size[j] * stride[j];
		i /= size[j];
	}
	return v;
}

static long *
fill_group(const struct plan *p, long base, long *out)
{
	long cnt[NDIM] = {0}, v = base, i;

	if (p->nm == 0) {
		*out++ = base;
		return out;
	}
	do {
		for (i = 0; i < p->ms[0]; i++)
			*out++ = v + i * p->mst[0];
	} while (odometer_next(cnt + 1, p->ms + 1, p->mst + 1, p->nm - 1, &v));
	return out;
}

/* Unit u of cut family f: its parent's groups u*unit .. u*unit+unit-1,
 * concatenated.  pp is the parent's plan (plan_init of t->fam[f->parent]),
 * made once by callers that fill every unit. */
static void
fill_unit(const struct plan *pp, const struct mcinit_topo_fam *f, long u, long *out)
{
	long g;

	for (g = u * f->unit; g < (u + 1) * f->unit; g++)
		out = fill_group(pp, radix_value(g, pp->us, pp->ust, pp->nu), out);
}

/* Group r of a cut family from its unit's members (n of them). */
static long *
pick_group(const struct mcinit_topo_fam *f, const long *unit, long n, long r, long *out)
{
	long l, u, j;

	switch (f->pick) {
	case PICK_FIRST_LAST:
		*out++ = unit[0];
		if (f->size == 2)
			*out++ = unit[n - 1];
		return out;
	case PICK_FIRST:
		*out++ = unit[0];
		return out;
	default:
		l = r / f->hu;
		u = r % f->hu;
		for (j = 0; j < f->hs; j++)
			*out++ = unit[l * f->hs * f->hu + j * f->hu + u];
		return out;
	}
}

static int
fam_ok(const struct mcinit_topo *t, int f)
{
	return f >= 0 && f < t->nfam;
}

static long
unit_len(const struct mcinit_topo *t, const struct mcinit_topo_fam *f)
{
	return f->unit * t->fam[f->parent].size;
}

int
mcinit_topo_fam_group(const struct mcinit_topo *t, int fi, long g, long *out)
{
	const struct mcinit_topo_fam *f;
	struct plan p;
	long *unit, n;

	if (!fam_ok(t, fi) || g < 0 || g >= t->fam[fi].ngroups)
		return -1;
	f = &t->fam[fi];
	if (f->parent < 0) {
		plan_init(&p, t, f);
		fill_group(&p, radix_value(g, p.us, p.ust, p.nu), out);
		return 0;
	}
	n = unit_len(t, f);
	unit = mcx_xmalloc((size_t)n * sizeof *unit);
	plan_init(&p, t, &t->fam[f->parent]);
	fill_unit(&p, f, g / f->per_unit, unit);
	pick_group(f, unit, n, g % f->per_unit, out);
	free(unit);
	return 0;
}

/*
 * Every group of a family at once.  A grid family's members, groups laid
 * end to end, are one mixed-radix sequence: the masked dimensions (the
 * members) fastest, then the unmasked ones (the groups).  radix_fill builds
 * such a sequence a dimension at a time, each pass copying what is already
 * there with the dimension's stride added: straight runs of loads, adds and
 * stores instead of an odometer step per member.  Members are 32-bit (half
 * the memory to fault in and write, which is most of the cost).
 */
static void
add_copy(int32_t *restrict dst, const int32_t *restrict src, long n, int32_t add)
{
	long i;

	for (i = 0; i < n; i++)
		dst[i] = src[i] + add;
}

static void
radix_fill(int32_t *out, const long *size, const long *stride, int n, long base)
{
	long len = n > 0 ? size[0] : 1, c, i;
	int j;

	for (i = 0; i < len; i++)
		out[i] = (int32_t)(base + i * (n > 0 ? stride[0] : 0));
	for (j = 1; j < n; j++) {
		for (c = 1; c < size[j]; c++)
			add_copy(out + c * len, out, len, (int32_t)(c * stride[j]));
		len *= size[j];
	}
}

/* Every member of every group of the grid family with plan p, in order. */
static void
grid_fill(const struct plan *p, int32_t *out)
{
	long size[2 * NDIM], stride[2 * NDIM];

	memcpy(size, p->ms, (size_t)p->nm * sizeof *size);
	memcpy(stride, p->mst, (size_t)p->nm * sizeof *stride);
	memcpy(size + p->nm, p->us, (size_t)p->nu * sizeof *size);
	memcpy(stride + p->nm, p->ust, (size_t)p->nu * sizeof *stride);
	radix_fill(out, size, stride, p->nm + p->nu, 0);
}

/* A PICK_HIER family holds its parent's members, each unit of n reordered
 * from (u, j, l), u fastest, to (j, u, l): with hu = 1 that is no change. */
static void
hier_fill(const struct plan *pp, const struct mcinit_topo_fam *f, long n, int32_t *out)
{
	long u, l, k, j, nunits = f->ngroups / f->per_unit;
	int32_t *unit, *w;

	grid_fill(pp, out);
	if (f->hu == 1)
		return;
	unit = mcx_xmalloc((size_t)n * sizeof *unit);
	for (u = 0; u < nunits; u++) {
		w = out + u * n;
		memcpy(unit, w, (size_t)n * sizeof *unit);
		for (l = 0; l < f->hl; l++)
			for (k = 0; k < f->hu; k++)
				for (j = 0; j < f->hs; j++)
					*w++ = unit[l * f->hs * f->hu + j * f->hu + k];
	}
	free(unit);
}

/* The first member of each parent group, and the last too when size is 2:
 * the bases go to the upper half first, then spread out forwards (entry g
 * is read before slots 2g and 2g+1 <= ngroups + g are written). */
static void
ends_fill(const struct plan *pp, const struct mcinit_topo_fam *f, int32_t *out)
{
	int32_t *bases = out + (f->size == 2 ? f->ngroups : 0), last = 0;
	long g;
	int i;

	radix_fill(bases, pp->us, pp->ust, pp->nu, 0);
	if (f->size == 1)
		return;
	for (i = 0; i < pp->nm; i++)
		last += (int32_t)((pp->ms[i] - 1) * pp->mst[i]);
	for (g = 0; g < f->ngroups; g++) {
		int32_t b = bases[g];

		out[2 * g] = b;
		out[2 * g + 1] = b + last;
	}
}

int
mcinit_topo_fam_groups(const struct mcinit_topo *t, int fi, struct mcinit_groups *out,
                       struct mcinit_err *err)
{
	const struct mcinit_topo_fam *f;
	struct plan p;

	if (!fam_ok(t, fi))
		return mcinit_err_set(err, MCINIT_E_INTERNAL, "no group family %d", fi);
	/* Families are cut from grid families only (fams_dense, fams_expert). */
	if (t->fam[fi].parent >= 0 && t->fam[t->fam[fi].parent].parent >= 0)
		return mcinit_err_set(err, MCINIT_E_INTERNAL, "family %d is cut from a cut family",
		                      fi);
	if (t->s.world > INT32_MAX)
		return mcinit_err_set(err, MCINIT_E_INTERNAL,
		                      "%ld ranks do not fit the 32-bit group members", t->s.world);
	f = &t->fam[fi];
	out->ngroups = f->ngroups;
	out->size = f->size;
	out->members = mcx_xmalloc((size_t)(f->ngroups * f->size) * sizeof *out->members);
	plan_init(&p, t, f->parent < 0 ? f : &t->fam[f->parent]);
	if (f->parent < 0)
		grid_fill(&p, out->members);
	else if (f->pick == PICK_HIER)
		hier_fill(&p, f, unit_len(t, f), out->members);
	else
		ends_fill(&p, f, out->members);
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
radix_index(const struct mcinit_topo_grid *g, unsigned mask, int masked, long rank)
{
	long idx = 0, scale = 1;
	int i;

	for (i = 0; i < NDIM; i++) {
		int d = g->order[i];

		if (!(mask & BIT(d)) == !masked) {
			idx += grid_coord(g, d, rank) * scale;
			scale *= g->size[d];
		}
	}
	return idx;
}

int
mcinit_topo_fam_group_of(const struct mcinit_topo *t, int fi, long rank, long *color, long *key)
{
	const struct mcinit_topo_fam *f, *pf;
	long m, n, u;

	if (!fam_ok(t, fi) || rank < 0 || rank >= t->s.world)
		return -1;
	f = &t->fam[fi];
	if (f->parent < 0) {
		*color = radix_index(fam_grid(t, f), f->mask, 0, rank);
		*key = radix_index(fam_grid(t, f), f->mask, 1, rank);
		return 0;
	}
	pf = &t->fam[f->parent];
	mcinit_topo_fam_group_of(t, f->parent, rank, color, key);
	u = *color / f->unit;
	m = *color % f->unit * pf->size + *key; /* the rank's place in its unit */
	n = unit_len(t, f);
	if (f->pick == PICK_HIER) {
		*color = u * f->per_unit + m / (f->hu * f->hs) * f->hu + m % f->hu;
		*key = m / f->hu % f->hs;
		return 0;
	}
	*color = u;
	if (m == 0 || (f->pick == PICK_FIRST_LAST && m == n - 1)) {
		*key = m == 0 ? 0 : 1;
		return 0;
	}
	*color = *key = -1;
	return 1;
}

/* ---- creation order ---- */

void
mcinit_topo_iter_init(struct mcinit_topo_iter *it, const struct mcinit_topo *t)
{
	it->t = t;
	it->step = 0;
	it->child = -1;
	it->g = it->j = 0;
}

/* The next family after `child` that is created inside step's loop, or -1. */
static int
next_inside(const struct mcinit_topo *t, int step, int child)
{
	int c;

	for (c = (child < 0 ? step : child) + 1; c < t->nfam; c++)
		if (t->fam[c].parent == step && t->fam[c].inside)
			return c;
	return -1;
}

int
mcinit_topo_iter_next(struct mcinit_topo_iter *it, int *fam, long *group)
{
	const struct mcinit_topo *t = it->t;

	for (; it->step < t->nfam; it->step++, it->g = 0, it->child = -1, it->j = 0) {
		const struct mcinit_topo_fam *s = &t->fam[it->step];

		if (s->inside)
			continue; /* walked by its parent's loop */
		while (it->g < s->ngroups) {
			if (it->child < 0 && it->j == 0) {
				*fam = it->step;
				*group = it->g;
				it->j = 1;
				return 1;
			}
			if (it->child < 0) {
				it->child = next_inside(t, it->step, -1);
				it->j = 0;
			}
			while (it->child >= 0 && it->j >= t->fam[it->child].per_unit) {
				it->child = next_inside(t, it->step, it->child);
				it->j = 0;
			}
			if (it->child >= 0) {
				*fam = it->child;
				*group = it->g * t->fam[it->child].per_unit + it->j++;
				return 1;
			}
			it->g++;
			it->j = 0;
		}
	}
	return 0;
}

/* ---- kinds ---- */

int
mcinit_topo_fam_find(const struct mcinit_topo *t, enum mcinit_group_kind k, int level)
{
	int f;

	for (f = 0; f < t->nfam; f++)
		if (t->fam[f].kind == k && t->fam[f].level == level)
			return f;
	return -1;
}

int
mcinit_topo_has_kind(const struct mcinit_topo *t, enum mcinit_group_kind k)
{
	return mcinit_topo_fam_find(t, k, 0) >= 0;
}

int
mcinit_topo_group_shape(const struct mcinit_topo *t, enum mcinit_group_kind k, long *ngroups,
                        long *size)
{
	int f = mcinit_topo_fam_find(t, k, 0);

	if (!kind_ok(k))
		return -1;
	*ngroups = f < 0 ? 0 : t->fam[f].ngroups;
	*size = f < 0 ? 0 : t->fam[f].size;
	return 0;
}

int
mcinit_topo_groups(const struct mcinit_topo *t, enum mcinit_group_kind k, struct mcinit_groups *out,
                   struct mcinit_err *err)
{
	int f = mcinit_topo_fam_find(t, k, 0);

	if (!kind_ok(k))
		return mcinit_err_set(err, MCINIT_E_INTERNAL, "unknown group kind %d", (int)k);
	if (f < 0) {
		out->ngroups = out->size = 0;
		out->members = NULL;
		return 0;
	}
	return mcinit_topo_fam_groups(t, f, out, err);
}

int
mcinit_topo_group_of(const struct mcinit_topo *t, enum mcinit_group_kind k, long rank, long *color,
                     long *key)
{
	int f = mcinit_topo_fam_find(t, k, 0);

	if (!kind_ok(k) || rank < 0 || rank >= t->s.world)
		return -1;
	if (f < 0) {
		*color = *key = -1;
		return 1;
	}
	return mcinit_topo_fam_group_of(t, f, rank, color, key);
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
 * grows the mcx_buf it writes into or flushes its chunk to a FILE.  The
 * callers ask for room per number, so a chunk never needs to hold a group.
 */
#define CHUNK    (1 << 20)
#define NUM_ROOM 24 /* a long, a separator and a closing bracket or two */

struct jw {
	char *p, *end, *start;
	struct mcx_buf *b; /* buffer mode */
	FILE *f;           /* stream mode */
	int failed;
};

static void
jw_slow(struct jw *w, size_t need)
{
	if (w->b != NULL) {
		w->b->len = (size_t)(w->p - w->b->data);
		mcx_buf_reserve(w->b, need > CHUNK ? need : CHUNK);
		w->p = w->b->data + w->b->len;
		w->end = w->b->data + w->b->cap - 1; /* room for mcx_buf_cstr's NUL */
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
	return mcinit_put_u(p, v);
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
jw_open(struct jw *w)
{
	jw_room(w, 1);
	*w->p++ = '[';
}

/* A group is never empty: overwrite the trailing comma. */
static void
jw_close(struct jw *w)
{
	w->p[-1] = ']';
	*w->p++ = ',';
}

static void
jw_grid_group(struct jw *w, const struct plan *p, long base)
{
	long cnt[NDIM] = {0}, v = base, i;

	jw_open(w);
	if (p->nm == 0) {
		jw_num(w, base);
	} else if (p->ms[0] <= CHUNK / NUM_ROOM) {
		/* room for a whole run at once, then unchecked writes */
		do {
			char *q;

			jw_room(w, (size_t)p->ms[0] * NUM_ROOM);
			for (q = w->p, i = 0; i < p->ms[0]; i++) {
				q = put_ulong(q, (unsigned long)(v + i * p->mst[0]));
				*q++ = ',';
			}
			w->p = q;
		} while (odometer_next(cnt + 1, p->ms + 1, p->mst + 1, p->nm - 1, &v));
	} else {
		do {
			for (i = 0; i < p->ms[0]; i++)
				jw_num(w, v + i * p->mst[0]);
		} while (odometer_next(cnt + 1, p->ms + 1, p->mst + 1, p->nm - 1, &v));
	}
	jw_close(w);
}

static void
jw_grid_fam(struct jw *w, const struct mcinit_topo *t, const struct mcinit_topo_fam *f)
{
	long cnt[NDIM] = {0}, base = 0, g;
	struct plan p;

	plan_init(&p, t, f);
	for (g = 0; g < f->ngroups; g++) {
		jw_grid_group(w, &p, base);
		odometer_next(cnt, p.us, p.ust, p.nu, &base);
	}
}

/* The families of a cut kind share their parent and unit (hcp's levels):
 * each unit is filled once and every level's groups from it written in
 * creation order. */
static void
jw_cut_kind(struct jw *w, const struct mcinit_topo *t, const int *fams, int nf)
{
	const struct mcinit_topo_fam *f0 = &t->fam[fams[0]];
	long n = unit_len(t, f0), u, r, i, *unit, *grp;
	struct plan pp;
	int k;

	unit = mcx_xmalloc((size_t)n * 2 * sizeof *unit);
	grp = unit + n;
	plan_init(&pp, t, &t->fam[f0->parent]);
	for (u = 0; u < f0->ngroups / f0->per_unit; u++) {
		fill_unit(&pp, f0, u, unit);
		for (k = 0; k < nf; k++) {
			const struct mcinit_topo_fam *f = &t->fam[fams[k]];

			for (r = 0; r < f->per_unit; r++) {
				pick_group(f, unit, n, r, grp);
				jw_open(w);
				if (f->size <= CHUNK / NUM_ROOM) {
					char *q;

					jw_room(w, (size_t)f->size * NUM_ROOM);
					for (q = w->p, i = 0; i < f->size; i++) {
						q = put_ulong(q, (unsigned long)grp[i]);
						*q++ = ',';
					}
					w->p = q;
				} else {
					for (i = 0; i < f->size; i++)
						jw_num(w, grp[i]);
				}
				jw_close(w);
			}
		}
	}
	free(unit);
}

static void
jw_kind(struct jw *w, const struct mcinit_topo *t, enum mcinit_group_kind k, const int *fams,
        int nf)
{
	jw_room(w, 32);
	*w->p++ = '"';
	jw_str(w, kinds[k].name);
	jw_str(w, "\":[");
	if (t->fam[fams[0]].parent < 0)
		jw_grid_fam(w, t, &t->fam[fams[0]]);
	else
		jw_cut_kind(w, t, fams, nf);
	w->p[-1] = ']'; /* ngroups >= 1: replaces the comma after the last group */
}

/* The families of kind k, in creation order; how many. */
static int
kind_fams(const struct mcinit_topo *t, enum mcinit_group_kind k, int *fams)
{
	int f, n = 0;

	for (f = 0; f < t->nfam; f++)
		if (t->fam[f].kind == k)
			fams[n++] = f;
	return n;
}

static void
jw_groups(struct jw *w, const struct mcinit_topo *t, unsigned kinds_set)
{
	int k, nf, first = 1, fams[MCINIT_FAM_MAX];

	jw_room(w, 1);
	*w->p++ = '{';
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		if (!(kinds_set & MCINIT_GROUP_BIT(k)) || (nf = kind_fams(t, k, fams)) == 0)
			continue;
		if (!first) {
			jw_room(w, 1);
			*w->p++ = ',';
		}
		first = 0;
		jw_kind(w, t, k, fams, nf);
	}
	jw_room(w, 1);
	*w->p++ = '}';
}

static size_t
json_upper_bound(const struct mcinit_topo *t, unsigned kinds_set)
{
	size_t total = 64, digits = 1; /* 64: the writer asks for room ahead of need */
	long v;
	int f;

	for (v = t->s.world - 1; v >= 10; v /= 10)
		digits++;
	for (f = 0; f < t->nfam; f++) {
		const struct mcinit_topo_fam *fm = &t->fam[f];

		if (!(kinds_set & MCINIT_GROUP_BIT(fm->kind)))
			continue;
		total += strlen(kinds[fm->kind].name) + 6 +
		         (size_t)fm->ngroups * (3 + (size_t)fm->size * (digits + 1));
	}
	return total;
}

void
mcinit_topo_json_groups(const struct mcinit_topo *t, unsigned kinds_set, struct mcx_buf *b)
{
	struct jw w = {0};

	w.b = b;
	/* One reservation up front instead of a chain of copying reallocs; the
	 * unused tail of an upper bound is never touched, so it costs no RSS. */
	mcx_buf_reserve(b, json_upper_bound(t, kinds_set));
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
	w.start = mcx_xmalloc(CHUNK);
	w.p = w.start;
	w.end = w.start + CHUNK;
	jw_groups(&w, t, kinds_set);
	jw_slow(&w, 0);
	if (w.failed || fflush(f) != 0 || ferror(f))
		rc = mcinit_err_set(err, MCINIT_E_IO, "writing topology JSON: %s", strerror(errno));
	free(w.start);
	return rc;
}
