/* test-topology.c — rank-group generation: the worked examples of
 * spec/topology.md exactly, then properties over generated configurations,
 * checked against a direct transliteration of Megatron-Core's
 * generate_masked_orthogonal_rank_groups. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topology.h"

/* ---- helpers ---------------------------------------------------------- */

static struct mcinit_topo
topo(long world, long tp, long pp, long cp, long ep, long etp, int mapping)
{
	struct mcinit_topo_sizes s = {.world = world,
	                              .tp = tp,
	                              .pp = pp,
	                              .cp = cp,
	                              .ep = ep,
	                              .etp = etp,
	                              .tp_pp_dp_mapping = mapping};
	struct mcinit_topo t;
	struct mcinit_err err = {0};

	cr_assert_eq(mcinit_topo_init(&t, &s, &err), 0,
	             "init W=%ld tp=%ld pp=%ld cp=%ld ep=%ld etp=%ld: %s", world, tp, pp, cp, ep,
	             etp, err.msg);
	return t;
}

/* Groups of a kind as "[0,1][2,3]…", compared as text so failures are readable. */
static char *
groups_str(const struct mcinit_topo *t, enum mcinit_group_kind k)
{
	struct mcinit_groups g;
	struct mcx_buf b = {0};
	struct mcinit_err err = {0};
	long i, j;

	cr_assert_eq(mcinit_topo_groups(t, k, &g, &err), 0, "%s", err.msg);
	for (i = 0; i < g.ngroups; i++) {
		mcx_buf_addc(&b, '[');
		for (j = 0; j < g.size; j++) {
			if (j)
				mcx_buf_addc(&b, ',');
			mcx_buf_add_long(&b, g.members[i * g.size + j]);
		}
		mcx_buf_addc(&b, ']');
	}
	mcinit_groups_destroy(&g);
	mcx_buf_cstr(&b);
	return b.data;
}

static void
expect_groups(const struct mcinit_topo *t, enum mcinit_group_kind k, const char *want)
{
	char *got = groups_str(t, k);

	cr_expect_str_eq(got, want, "kind %s", mcinit_group_kind_name(k));
	free(got);
}

/* ---- names ------------------------------------------------------------ */

Test(topology, kind_names_in_creation_order)
{
	static const char *const want[] = {"gtp_remat",
	                                   "dp_cp",
	                                   "dp_cp_ag",
	                                   "intra_dp_cp",
	                                   "dp",
	                                   "gtp_remat_dp",
	                                   "gtp_remat_dp_cp",
	                                   "cp",
	                                   "hcp",
	                                   "mp",
	                                   "tp",
	                                   "pp",
	                                   "embd",
	                                   "pos_embd",
	                                   "tp_dp_cp",
	                                   "tp_dp",
	                                   "tp_cp",
	                                   "expt_gtp_remat",
	                                   "ep",
	                                   "ep_tp",
	                                   "tp_ep_mp",
	                                   "tp_ep_pp",
	                                   "tp_ep_gtp_remat_pp",
	                                   "ep_dp",
	                                   "intra_ep_dp",
	                                   "inter_ep_dp",
	                                   "ep_gtp_remat_dp",
	                                   "intra_dist_opt_instance"};
	int k;

	cr_assert_eq(MCINIT_GROUP_COUNT, sizeof want / sizeof want[0]);
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		cr_expect_str_eq(mcinit_group_kind_name(k), want[k]);
		cr_expect_eq(mcinit_group_kind_from_name(want[k]), k);
	}
	cr_expect_eq(mcinit_group_kind_from_name("dp-cp"), -1);
	cr_expect_eq(mcinit_group_kind_from_name(""), -1);
	cr_expect_null(mcinit_group_kind_name(MCINIT_GROUP_COUNT));
	cr_expect_str_eq(mcinit_group_kind_token(MCINIT_GROUP_TP_EP_PP), "tp-ep-pp");
	cr_expect_str_eq(mcinit_group_kind_token(MCINIT_GROUP_MP), "tp-pp");
	cr_expect(mcinit_group_kind_is_expert(MCINIT_GROUP_EP_DP));
	cr_expect(!mcinit_group_kind_is_expert(MCINIT_GROUP_DP));
}

/* ---- worked examples (spec/topology.md) ------------------------------- */

Test(topology, example_a)
{
	struct mcinit_topo t = topo(16, 2, 2, 2, 1, 2, 0);

	cr_expect_eq(t.dp, 2);
	cr_expect_eq(t.edp, 4);
	cr_expect_str_eq(mcinit_topo_order(&t), "tp-cp-ep-dp-pp");
	expect_groups(&t, MCINIT_GROUP_TP, "[0,1][2,3][4,5][6,7][8,9][10,11][12,13][14,15]");
	expect_groups(&t, MCINIT_GROUP_CP, "[0,2][1,3][4,6][5,7][8,10][9,11][12,14][13,15]");
	expect_groups(&t, MCINIT_GROUP_DP, "[0,4][1,5][2,6][3,7][8,12][9,13][10,14][11,15]");
	expect_groups(&t, MCINIT_GROUP_DP_CP, "[0,2,4,6][1,3,5,7][8,10,12,14][9,11,13,15]");
	expect_groups(&t, MCINIT_GROUP_PP, "[0,8][1,9][2,10][3,11][4,12][5,13][6,14][7,15]");
	expect_groups(&t, MCINIT_GROUP_MP, "[0,1,8,9][2,3,10,11][4,5,12,13][6,7,14,15]");
	expect_groups(&t, MCINIT_GROUP_TP_CP, "[0,1,2,3][4,5,6,7][8,9,10,11][12,13,14,15]");
	expect_groups(&t, MCINIT_GROUP_TP_DP, "[0,1,4,5][2,3,6,7][8,9,12,13][10,11,14,15]");
	expect_groups(&t, MCINIT_GROUP_TP_DP_CP, "[0,1,2,3,4,5,6,7][8,9,10,11,12,13,14,15]");
	expect_groups(&t, MCINIT_GROUP_EMBD, "[0,8][1,9][2,10][3,11][4,12][5,13][6,14][7,15]");
	expect_groups(&t, MCINIT_GROUP_POS_EMBD, "[0][1][2][3][4][5][6][7]");
	expect_groups(&t, MCINIT_GROUP_EP,
	              "[0][1][2][3][4][5][6][7][8][9][10][11][12][13][14][15]");
	expect_groups(&t, MCINIT_GROUP_EP_DP, "[0,2,4,6][1,3,5,7][8,10,12,14][9,11,13,15]");
	expect_groups(&t, MCINIT_GROUP_TP_EP_PP, "[0,1,8,9][2,3,10,11][4,5,12,13][6,7,14,15]");
	expect_groups(&t, MCINIT_GROUP_EP_TP, "[0,1][2,3][4,5][6,7][8,9][10,11][12,13][14,15]");
	expect_groups(&t, MCINIT_GROUP_TP_EP_MP, "[0,1][2,3][4,5][6,7][8,9][10,11][12,13][14,15]");
}

Test(topology, example_b_is_invalid)
{
	struct mcinit_topo_sizes s = {
	    .world = 16, .tp = 2, .pp = 2, .cp = 2, .ep = 1, .etp = 2, .tp_pp_dp_mapping = 1};
	struct mcinit_topo t;
	struct mcinit_err err = {0};

	cr_assert_eq(mcinit_topo_init(&t, &s, &err), -1);
	cr_expect_eq(err.code, MCINIT_E_PARSE);
	cr_expect(strstr(err.msg, "(4)") && strstr(err.msg, "(2)"), "message: %s", err.msg);
}

Test(topology, example_c)
{
	struct mcinit_topo t = topo(16, 2, 2, 1, 4, 1, 0);

	cr_expect_eq(t.dp, 4);
	cr_expect_eq(t.edp, 2);
	expect_groups(&t, MCINIT_GROUP_TP, "[0,1][2,3][4,5][6,7][8,9][10,11][12,13][14,15]");
	expect_groups(&t, MCINIT_GROUP_DP, "[0,2,4,6][1,3,5,7][8,10,12,14][9,11,13,15]");
	expect_groups(&t, MCINIT_GROUP_PP, "[0,8][1,9][2,10][3,11][4,12][5,13][6,14][7,15]");
	expect_groups(&t, MCINIT_GROUP_EP_TP,
	              "[0][1][2][3][4][5][6][7][8][9][10][11][12][13][14][15]");
	expect_groups(&t, MCINIT_GROUP_EP, "[0,1,2,3][4,5,6,7][8,9,10,11][12,13,14,15]");
	expect_groups(&t, MCINIT_GROUP_EP_DP, "[0,4][1,5][2,6][3,7][8,12][9,13][10,14][11,15]");
	expect_groups(&t, MCINIT_GROUP_TP_EP_PP, "[0,1,2,3,8,9,10,11][4,5,6,7,12,13,14,15]");
	expect_groups(&t, MCINIT_GROUP_TP_EP_MP, "[0,1,2,3][4,5,6,7][8,9,10,11][12,13,14,15]");
}

Test(topology, example_d)
{
	struct mcinit_topo t = topo(8, 2, 2, 1, 1, 2, 0);

	expect_groups(&t, MCINIT_GROUP_TP, "[0,1][2,3][4,5][6,7]");
	expect_groups(&t, MCINIT_GROUP_DP, "[0,2][1,3][4,6][5,7]");
	expect_groups(&t, MCINIT_GROUP_PP, "[0,4][1,5][2,6][3,7]");
	expect_groups(&t, MCINIT_GROUP_MP, "[0,1,4,5][2,3,6,7]");
	expect_groups(&t, MCINIT_GROUP_EMBD, "[0,4][1,5][2,6][3,7]");
	expect_groups(&t, MCINIT_GROUP_DP_CP, "[0,2][1,3][4,6][5,7]");
	expect_groups(&t, MCINIT_GROUP_CP, "[0][1][2][3][4][5][6][7]");
}

/* Example D with use_tp_pp_dp_mapping: pp now varies before dp. */
Test(topology, example_d_tp_pp_dp)
{
	struct mcinit_topo t = topo(8, 2, 2, 1, 1, 2, 1);
	struct mcinit_coords c;

	cr_expect_str_eq(mcinit_topo_order(&t), "tp-cp-ep-pp-dp");
	expect_groups(&t, MCINIT_GROUP_TP, "[0,1][2,3][4,5][6,7]");
	expect_groups(&t, MCINIT_GROUP_PP, "[0,2][1,3][4,6][5,7]");
	expect_groups(&t, MCINIT_GROUP_DP, "[0,4][1,5][2,6][3,7]");
	expect_groups(&t, MCINIT_GROUP_MP, "[0,1,2,3][4,5,6,7]");
	expect_groups(&t, MCINIT_GROUP_EP_DP, "[0,4][1,5][2,6][3,7]");
	expect_groups(&t, MCINIT_GROUP_TP_EP_PP, "[0,1,2,3][4,5,6,7]");
	cr_assert_eq(mcinit_topo_coords(&t, 6, &c), 0);
	cr_expect(c.tp == 0 && c.pp == 1 && c.dp == 1 && c.etp == 0 && c.ep == 0 && c.edp == 1);
}

/* The expert grid swaps pp and dp too: rank = etp + ETP·(ep + EP·(pp + PP·edp)). */
Test(topology, expert_coords_follow_mapping)
{
	struct mcinit_topo t = topo(16, 1, 2, 2, 2, 1, 1);
	struct mcinit_coords c;

	cr_assert_eq(t.edp, t.dp);
	cr_assert_eq(mcinit_topo_coords(&t, 2, &c), 0);
	cr_expect(c.ep == 0 && c.pp == 1 && c.edp == 0, "ep %ld pp %ld edp %ld", c.ep, c.pp, c.edp);
	cr_assert_eq(mcinit_topo_coords(&t, 13, &c), 0);
	cr_expect(c.ep == 1 && c.pp == 0 && c.edp == 3 && c.cp == 1 && c.dp == 3);
	cr_expect_eq(mcinit_topo_expert_rank(&t, 0, 1, 3, 0), 13);
	cr_expect_eq(mcinit_topo_dense_rank(&t, 0, 1, 3, 0), 13);

	t = topo(16, 1, 2, 2, 2, 1, 0);
	cr_assert_eq(mcinit_topo_coords(&t, 2, &c), 0);
	cr_expect(c.ep == 0 && c.pp == 0 && c.edp == 1);
}

Test(topology, embd_with_single_stage)
{
	struct mcinit_topo t = topo(4, 2, 1, 1, 1, 1, 0);
	long color, key;

	expect_groups(&t, MCINIT_GROUP_EMBD, "[0][1][2][3]");
	expect_groups(&t, MCINIT_GROUP_POS_EMBD, "[0][1][2][3]");
	cr_expect_eq(mcinit_topo_group_of(&t, MCINIT_GROUP_EMBD, 3, &color, &key), 0);
	cr_expect(color == 3 && key == 0);
}

Test(topology, embd_middle_stages_are_in_no_group)
{
	struct mcinit_topo t = topo(8, 2, 4, 1, 1, 1, 0);
	long color, key;

	expect_groups(&t, MCINIT_GROUP_EMBD, "[0,6][1,7]");
	expect_groups(&t, MCINIT_GROUP_POS_EMBD, "[0][1]");
	cr_expect_eq(mcinit_topo_group_of(&t, MCINIT_GROUP_EMBD, 3, &color, &key), 1);
	cr_expect(color == -1 && key == -1);
	cr_expect_eq(mcinit_topo_group_of(&t, MCINIT_GROUP_EMBD, 7, &color, &key), 0);
	cr_expect(color == 1 && key == 1);
	cr_expect_eq(mcinit_topo_group_of(&t, MCINIT_GROUP_POS_EMBD, 7, &color, &key), 1);
}

Test(topology, invalid_sizes)
{
	static const struct mcinit_topo_sizes bad[] = {
	    {.world = 0, .tp = 1, .pp = 1, .cp = 1, .ep = 1, .etp = 1, .tp_pp_dp_mapping = 0},
	    {.world = 8, .tp = 0, .pp = 1, .cp = 1, .ep = 1, .etp = 1, .tp_pp_dp_mapping = 0},
	    {.world = 8, .tp = 1, .pp = 1, .cp = 1, .ep = 1, .etp = -2, .tp_pp_dp_mapping = 0},
	    {.world = 8, .tp = 3, .pp = 1, .cp = 1, .ep = 1, .etp = 1, .tp_pp_dp_mapping = 0},
	    {.world = 8, .tp = 2, .pp = 2, .cp = 4, .ep = 1, .etp = 1, .tp_pp_dp_mapping = 0},
	    {.world = 8, .tp = 1, .pp = 1, .cp = 1, .ep = 16, .etp = 1, .tp_pp_dp_mapping = 0},
	    {.world = 8, .tp = 1, .pp = 2, .cp = 1, .ep = 3, .etp = 1, .tp_pp_dp_mapping = 0},
	    {.world = 8,
	     .tp = LONG_MAX,
	     .pp = 1,
	     .cp = 1,
	     .ep = 1,
	     .etp = 1,
	     .tp_pp_dp_mapping = 0},
	    {.world = 1L << 40,
	     .tp = 1L << 30,
	     .pp = 1L << 30,
	     .cp = 1L << 30,
	     .ep = 1,
	     .etp = 1,
	     .tp_pp_dp_mapping = 0},
	    {.world = 8,
	     .tp = 2,
	     .pp = 2,
	     .cp = 1,
	     .ep = 1,
	     .etp = 1,
	     .tp_pp_dp_mapping = 1}, /* mapping: EDP 4 != DP 2 */
	};
	struct mcinit_topo t;
	size_t i;

	memset(&t, 0x5a, sizeof t);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct mcinit_err err = {0};

		cr_expect_eq(mcinit_topo_init(&t, &bad[i], &err), -1, "case %zu", i);
		cr_expect_eq(err.code, MCINIT_E_PARSE, "case %zu", i);
		cr_expect_eq(t.s.world, (long)0x5a5a5a5a5a5a5a5aL, "case %zu left t modified", i);
	}
}

Test(topology, mapping_with_single_stage_allows_any_edp)
{
	struct mcinit_topo t = topo(8, 2, 1, 1, 1, 1, 1);

	cr_expect_eq(t.dp, 4);
	cr_expect_eq(t.edp, 8);
}

/* Group members are stored in 32 bits: a world past INT32_MAX ranks has no
 * mcinit_groups (an error, not wrapped ranks), while one group at a time
 * still gives the ranks beyond 2^31. */
Test(topology, groups_past_32_bit_ranks)
{
	long w = 1L << 32, last[2];
	struct mcinit_topo t = topo(w, 2, 2, 1, 1, 1, 0);
	struct mcinit_groups g = {0};
	struct mcinit_err err = {0};
	int f = mcinit_topo_fam_find(&t, MCINIT_GROUP_TP, 0);

	cr_assert_eq(mcinit_topo_fam_groups(&t, f, &g, &err), -1);
	cr_expect_eq(err.code, MCINIT_E_INTERNAL);
	cr_expect_null(g.members);
	cr_assert_eq(mcinit_topo_fam_group(&t, f, t.fam[f].ngroups - 1, last), 0);
	cr_expect(last[0] == w - 2 && last[1] == w - 1, "last tp group [%ld,%ld]", last[0],
	          last[1]);
}

Test(topology, out_of_range_arguments)
{
	struct mcinit_topo t = topo(8, 2, 2, 1, 1, 1, 0);
	struct mcinit_coords c;
	struct mcinit_seeds sd;
	struct mcinit_groups g;
	struct mcinit_err err = {0};
	long color, key;

	cr_expect_eq(mcinit_topo_coords(&t, 8, &c), -1);
	cr_expect_eq(mcinit_topo_coords(&t, -1, &c), -1);
	cr_expect_eq(mcinit_topo_seeds(&t, 8, 1, 0, &sd), -1);
	cr_expect_eq(mcinit_topo_group_of(&t, MCINIT_GROUP_TP, 8, &color, &key), -1);
	cr_expect_eq(mcinit_topo_group_of(&t, MCINIT_GROUP_COUNT, 0, &color, &key), -1);
	cr_expect_eq(mcinit_topo_groups(&t, MCINIT_GROUP_COUNT, &g, &err), -1);
	cr_expect_eq(err.code, MCINIT_E_INTERNAL);
	cr_expect_eq(mcinit_topo_dense_rank(&t, 2, 0, 0, 0), -1);
	cr_expect_eq(mcinit_topo_dense_rank(&t, 0, 1, 0, 0), -1);
	cr_expect_eq(mcinit_topo_expert_rank(&t, 0, 0, 4, 0), -1);
	cr_expect_eq(mcinit_topo_dense_rank(&t, 1, 0, 1, 1), 7);
}

Test(topology, seeds)
{
	/* W=16, TP=2, PP=2, CP=1, EP=4, ETP=1 (example C): rank 13 is tp 1, dp 2,
	 * pp 1; expert ep 1, etp 0. */
	struct mcinit_topo t = topo(16, 2, 2, 1, 4, 1, 0);
	struct mcinit_seeds s;

	cr_assert_eq(mcinit_topo_seeds(&t, 13, 1234, 0, &s), 0);
	cr_expect_eq(s.base, 1334);
	cr_expect_eq(s.model_parallel, 1334 + 2718 + 1);
	cr_expect_eq(s.expert_parallel, 1334 + 1024 + 100);
	cr_assert_eq(mcinit_topo_seeds(&t, 13, 1234, 1, &s), 0);
	cr_expect_eq(s.base, 1354);
	cr_expect_eq(s.model_parallel, 1354 + 2719);
	cr_expect_eq(s.expert_parallel, 1354 + 1124);
	cr_assert_eq(mcinit_topo_seeds(&t, 0, 42, 1, &s), 0);
	cr_expect(s.base == 42 && s.model_parallel == 2760 && s.expert_parallel == 1066);
}

/* ---- reference: Megatron-Core's algorithm, transliterated ------------- */

/* The test's own copy of the kind table, in Megatron's spelling. */
static const struct {
	const char *name;
	int expert;
	const char *token;
} ref_kinds[MCINIT_GROUP_COUNT] = {
    /* The classic kinds only (name NULL: not modelled here; the oracle test,
     * test-topology-oracle.c, covers every kind of every release). */
    [MCINIT_GROUP_DP_CP] = {"dp_cp", 0, "dp-cp"},
    [MCINIT_GROUP_DP] = {"dp", 0, "dp"},
    [MCINIT_GROUP_CP] = {"cp", 0, "cp"},
    [MCINIT_GROUP_MP] = {"mp", 0, "tp-pp"},
    [MCINIT_GROUP_TP] = {"tp", 0, "tp"},
    [MCINIT_GROUP_PP] = {"pp", 0, "pp"},
    [MCINIT_GROUP_EMBD] = {"embd", 0, "pp"},
    [MCINIT_GROUP_POS_EMBD] = {"pos_embd", 0, "pp"},
    [MCINIT_GROUP_TP_DP_CP] = {"tp_dp_cp", 0, "tp-dp-cp"},
    [MCINIT_GROUP_TP_DP] = {"tp_dp", 0, "tp-dp"},
    [MCINIT_GROUP_TP_CP] = {"tp_cp", 0, "tp-cp"},
    [MCINIT_GROUP_EP] = {"ep", 1, "ep"},
    [MCINIT_GROUP_EP_TP] = {"ep_tp", 1, "tp"},
    [MCINIT_GROUP_TP_EP_MP] = {"tp_ep_mp", 1, "tp-ep"},
    [MCINIT_GROUP_TP_EP_PP] = {"tp_ep_pp", 1, "tp-ep-pp"},
    [MCINIT_GROUP_EP_DP] = {"ep_dp", 1, "dp"},
};

/* The kinds ref_kinds models. */
static unsigned
classic_kinds(void)
{
	unsigned m = 0;
	int k;

	for (k = 0; k < MCINIT_GROUP_COUNT; k++)
		if (ref_kinds[k].name != NULL)
			m |= MCINIT_GROUP_BIT(k);
	return m;
}

struct ref_groups {
	long ngroups, size, *m;
};

static int
token_index(const char *order, const char *tok, size_t len)
{
	int i = 0;
	const char *p = order;

	for (;;) {
		size_t n = strcspn(p, "-");

		if (n == len && strncmp(p, tok, len) == 0)
			return i;
		if (p[n] == '\0')
			return -1;
		p += n + 1;
		i++;
	}
}

/* RankGenerator(tp, ep, dp, pp, cp, order).get_ranks(token) */
static struct ref_groups
ref_get_ranks(long world, long tp, long ep, long dp, long pp, long cp, const char *order,
              const char *token)
{
	const char *names[5] = {"tp", "cp", "ep", "dp", "pp"};
	const long sizes[5] = {tp, cp, ep, dp, pp};
	long ordered[5], gstride[6], mshape[5], mstride[5], ushape[5], ustride[5];
	int mask[5] = {0}, nm = 0, nu = 0, i, j;
	struct ref_groups r;
	const char *p = token;
	long gi, ri, gs = 1;

	for (i = 0; i < 5; i++)
		ordered[token_index(order, names[i], 2)] = sizes[i];
	for (;;) {
		size_t n = strcspn(p, "-");

		mask[token_index(order, p, n)] = 1;
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	gstride[0] = 1;
	for (i = 0; i < 5; i++)
		gstride[i + 1] = gstride[i] * ordered[i];
	for (i = 0; i < 5; i++) {
		if (mask[i]) {
			mshape[nm] = ordered[i];
			mstride[nm++] = gstride[i];
			gs *= ordered[i];
		} else {
			ushape[nu] = ordered[i];
			ustride[nu++] = gstride[i];
		}
	}
	r.size = gs;
	r.ngroups = world / gs;
	r.m = malloc((size_t)world * sizeof *r.m);
	for (gi = 0; gi < r.ngroups; gi++) {
		long base = 0, d = 1;

		for (j = 0; j < nu; j++) {
			base += (gi / d) % ushape[j] * ustride[j];
			d *= ushape[j];
		}
		for (ri = 0; ri < gs; ri++) {
			long v = base;

			d = 1;
			for (j = 0; j < nm; j++) {
				v += (ri / d) % mshape[j] * mstride[j];
				d *= mshape[j];
			}
			r.m[gi * gs + ri] = v;
		}
	}
	return r;
}

/* Megatron's default_embedding_ranks / default_position_embedding_ranks. */
static struct ref_groups
ref_embd(struct ref_groups pp, int pos)
{
	struct ref_groups r;
	long g;

	r.ngroups = pp.ngroups;
	r.size = (pos || pp.size == 1) ? 1 : 2;
	r.m = malloc((size_t)(r.ngroups * r.size) * sizeof *r.m);
	for (g = 0; g < pp.ngroups; g++) {
		r.m[g * r.size] = pp.m[g * pp.size];
		if (r.size == 2)
			r.m[g * 2 + 1] = pp.m[g * pp.size + pp.size - 1];
	}
	return r;
}

static struct ref_groups
ref_kind(const struct mcinit_topo *t, int k)
{
	const struct mcinit_topo_sizes *s = &t->s;
	const char *order = s->tp_pp_dp_mapping ? "tp-cp-ep-pp-dp" : "tp-cp-ep-dp-pp";
	long w = s->world;

	if (k == MCINIT_GROUP_EMBD || k == MCINIT_GROUP_POS_EMBD) {
		struct ref_groups pp = ref_kind(t, MCINIT_GROUP_PP), r;

		r = ref_embd(pp, k == MCINIT_GROUP_POS_EMBD);
		free(pp.m);
		return r;
	}
	if (ref_kinds[k].expert)
		return ref_get_ranks(w, s->etp, s->ep, w / (s->etp * s->ep * s->pp), s->pp, 1,
		                     order, ref_kinds[k].token);
	return ref_get_ranks(w, s->tp, 1, w / (s->tp * s->cp * s->pp), s->pp, s->cp, order,
	                     ref_kinds[k].token);
}

/* ---- properties ------------------------------------------------------- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned long
rnd(unsigned long n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned long)(rng_state % n);
}

static long
pick(const long *v, size_t n)
{
	return v[rnd(n)];
}

static long
random_divisor(long n)
{
	long d[64], c = 0, i;

	for (i = 1; i <= n && c < 64; i++)
		if (n % i == 0)
			d[c++] = i;
	return d[rnd((unsigned long)c)];
}

/* A valid configuration with W <= 4096: dense sizes first, then an expert
 * split of W/PP (which must be ETP·EP = TP·CP under the tp-pp-dp mapping). */
static struct mcinit_topo_sizes
random_sizes(int mapping)
{
	static const long tps[] = {1, 1, 2, 3, 4, 8}, pps[] = {1, 2, 3, 4, 8, 16},
	                  cps[] = {1, 1, 2, 4}, dps[] = {1, 2, 3, 4, 5, 8, 16, 32, 64, 128};
	struct mcinit_topo_sizes s = {0};
	long dp, m;

	do {
		s.tp = pick(tps, 6);
		s.pp = pick(pps, 6);
		s.cp = pick(cps, 4);
		dp = pick(dps, 10);
		s.world = s.tp * s.pp * s.cp * dp;
	} while (s.world > 4096);
	s.tp_pp_dp_mapping = mapping;
	m = mapping && s.pp > 1 ? s.tp * s.cp : s.world / s.pp;
	s.etp = random_divisor(m);
	s.ep = mapping && s.pp > 1 ? m / s.etp : random_divisor(m / s.etp);
	return s;
}

static long
masked_size(const struct mcinit_topo *t, int k)
{
	const struct mcinit_topo_sizes *s = &t->s;

	switch (k) {
	case MCINIT_GROUP_DP_CP:
		return t->dp * s->cp;
	case MCINIT_GROUP_DP:
		return t->dp;
	case MCINIT_GROUP_CP:
		return s->cp;
	case MCINIT_GROUP_MP:
		return s->tp * s->pp;
	case MCINIT_GROUP_TP:
		return s->tp;
	case MCINIT_GROUP_PP:
		return s->pp;
	case MCINIT_GROUP_EMBD:
		return s->pp > 1 ? 2 : 1;
	case MCINIT_GROUP_POS_EMBD:
		return 1;
	case MCINIT_GROUP_TP_DP_CP:
		return s->tp * t->dp * s->cp;
	case MCINIT_GROUP_TP_DP:
		return s->tp * t->dp;
	case MCINIT_GROUP_TP_CP:
		return s->tp * s->cp;
	case MCINIT_GROUP_EP:
		return s->ep;
	case MCINIT_GROUP_EP_TP:
		return s->etp;
	case MCINIT_GROUP_TP_EP_MP:
		return s->etp * s->ep;
	case MCINIT_GROUP_TP_EP_PP:
		return s->etp * s->ep * s->pp;
	case MCINIT_GROUP_EP_DP:
		return t->edp;
	}
	return -1;
}

/* The coordinate that equals a rank's position in its group of kind k, or -1. */
static long
coord_for_kind(const struct mcinit_coords *c, int k)
{
	switch (k) {
	case MCINIT_GROUP_TP:
		return c->tp;
	case MCINIT_GROUP_CP:
		return c->cp;
	case MCINIT_GROUP_DP:
		return c->dp;
	case MCINIT_GROUP_PP:
		return c->pp;
	case MCINIT_GROUP_EP:
		return c->ep;
	case MCINIT_GROUP_EP_TP:
		return c->etp;
	case MCINIT_GROUP_EP_DP:
		return c->edp;
	default:
		return -1;
	}
}

static void
check_kind(const struct mcinit_topo *t, int k, const char *cfg)
{
	struct mcinit_groups g;
	struct mcinit_err err = {0};
	struct ref_groups ref = ref_kind(t, k);
	long w = t->s.world, i, n, ng, sz, color, key;
	int picked = k == MCINIT_GROUP_EMBD || k == MCINIT_GROUP_POS_EMBD;
	unsigned char *seen;

	cr_assert_eq(mcinit_topo_groups(t, k, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(mcinit_topo_group_shape(t, k, &ng, &sz), 0);
	cr_assert(ng == g.ngroups && sz == g.size, "%s %s: shape", cfg, ref_kinds[k].name);
	cr_assert_eq(g.size, masked_size(t, k), "%s %s: size %ld", cfg, ref_kinds[k].name, g.size);
	cr_assert(g.ngroups == ref.ngroups && g.size == ref.size, "%s %s", cfg, ref_kinds[k].name);
	n = g.ngroups * g.size;
	for (i = 0; i < n; i++)
		cr_assert_eq(g.members[i], ref.m[i],
		             "%s %s: member %ld differs from Megatron's generator", cfg,
		             ref_kinds[k].name, i);
	cr_assert_eq(picked ? g.ngroups * t->s.pp : n, w, "%s %s: coverage", cfg,
	             ref_kinds[k].name);
	seen = calloc((size_t)w, 1);
	for (i = 0; i < n; i++) {
		long r = g.members[i];

		cr_assert(r >= 0 && r < w && !seen[r], "%s %s: rank %ld twice or out of range", cfg,
		          ref_kinds[k].name, r);
		seen[r] = 1;
		cr_assert_eq(mcinit_topo_group_of(t, k, r, &color, &key), 0);
		cr_assert(color == i / g.size && key == i % g.size,
		          "%s %s: group_of(%ld) = (%ld,%ld), want (%ld,%ld)", cfg,
		          ref_kinds[k].name, r, color, key, i / g.size, i % g.size);
	}
	for (i = 0; i < w; i++) {
		if (seen[i])
			continue;
		cr_assert(picked, "%s %s: rank %ld in no group", cfg, ref_kinds[k].name, i);
		cr_assert_eq(mcinit_topo_group_of(t, k, i, &color, &key), 1);
	}
	free(seen);
	free(ref.m);
	mcinit_groups_destroy(&g);
}

static void
check_coords(const struct mcinit_topo *t, const char *cfg)
{
	struct mcinit_coords c;
	long r, color, key;
	int k;

	for (r = 0; r < t->s.world; r++) {
		cr_assert_eq(mcinit_topo_coords(t, r, &c), 0);
		cr_assert(c.tp < t->s.tp && c.cp < t->s.cp && c.dp < t->dp && c.pp < t->s.pp);
		cr_assert(c.etp < t->s.etp && c.ep < t->s.ep && c.edp < t->edp);
		cr_assert_eq(mcinit_topo_dense_rank(t, c.tp, c.cp, c.dp, c.pp), r, "%s", cfg);
		cr_assert_eq(mcinit_topo_expert_rank(t, c.etp, c.ep, c.edp, c.pp), r, "%s", cfg);
		for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
			long want = coord_for_kind(&c, k);

			if (want < 0)
				continue;
			cr_assert_eq(mcinit_topo_group_of(t, k, r, &color, &key), 0);
			cr_assert_eq(key, want, "%s rank %ld: %s coordinate %ld, position %ld", cfg,
			             r, ref_kinds[k].name, want, key);
		}
	}
}

static void
check_same_pp_groups(const struct mcinit_topo *t, const char *cfg)
{
	const struct mcinit_topo_sizes *s = &t->s;
	struct ref_groups dense = ref_kind(t, MCINIT_GROUP_PP);
	struct ref_groups expert =
	    ref_get_ranks(s->world, s->etp, s->ep, t->edp, s->pp, 1,
	                  s->tp_pp_dp_mapping ? "tp-cp-ep-pp-dp" : "tp-cp-ep-dp-pp", "pp");

	cr_assert_eq(memcmp(dense.m, expert.m, (size_t)s->world * sizeof *dense.m), 0,
	             "%s: dense and expert pp groups differ", cfg);
	free(dense.m);
	free(expert.m);
}

/* Parses the JSON with jansson and compares every kind with the generator. */
static void
check_json(const struct mcinit_topo *t, unsigned kinds, const char *cfg)
{
	struct mcx_buf b = {0};
	char *streamed = NULL;
	size_t slen = 0;
	FILE *f = open_memstream(&streamed, &slen);
	struct mcinit_err err = {0};
	json_error_t jerr;
	json_t *root;
	const char *prev = NULL;
	int k;

	mcinit_topo_json_groups(t, kinds, &b);
	cr_assert_eq(mcinit_topo_json_groups_write(t, kinds, f, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert(slen == b.len && memcmp(streamed, b.data, b.len) == 0, "%s: stream != buffer",
	          cfg);
	root = json_loadb(b.data, b.len, 0, &jerr);
	cr_assert_not_null(root, "%s: JSON error %s at %d", cfg, jerr.text, jerr.position);
	cr_assert_eq(json_object_size(root), (size_t)__builtin_popcount(kinds));
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		struct mcinit_groups g;
		json_t *arr = json_object_get(root, ref_kinds[k].name);
		char key[32];
		const char *at;
		long i, j;

		if (ref_kinds[k].name == NULL)
			continue;
		if (!(kinds & MCINIT_GROUP_BIT(k))) {
			cr_assert_null(arr);
			continue;
		}
		snprintf(key, sizeof key, "\"%s\":", ref_kinds[k].name);
		at = strstr(mcx_buf_cstr(&b), key);
		cr_assert(at != NULL && (prev == NULL || at > prev), "%s: key order", cfg);
		prev = at;
		cr_assert(mcinit_topo_groups(t, k, &g, &err) == 0);
		cr_assert(json_is_array(arr) && (long)json_array_size(arr) == g.ngroups);
		for (i = 0; i < g.ngroups; i++) {
			json_t *grp = json_array_get(arr, (size_t)i);

			cr_assert((long)json_array_size(grp) == g.size, "%s %s", cfg,
			          ref_kinds[k].name);
			for (j = 0; j < g.size; j++)
				cr_assert_eq(json_integer_value(json_array_get(grp, (size_t)j)),
				             g.members[i * g.size + j], "%s %s", cfg,
				             ref_kinds[k].name);
		}
		mcinit_groups_destroy(&g);
	}
	json_decref(root);
	mcx_buf_free(&b);
	free(streamed);
}

Test(topology, properties_over_generated_configs, .timeout = 600)
{
	int i, k;

	for (i = 0; i < 400; i++) {
		struct mcinit_topo_sizes s = random_sizes(i % 2);
		struct mcinit_topo t;
		struct mcinit_err err = {0};
		char cfg[160];

		snprintf(cfg, sizeof cfg, "W=%ld tp=%ld pp=%ld cp=%ld ep=%ld etp=%ld mapping=%d",
		         s.world, s.tp, s.pp, s.cp, s.ep, s.etp, s.tp_pp_dp_mapping);
		cr_assert_eq(mcinit_topo_init(&t, &s, &err), 0, "%s: %s", cfg, err.msg);
		cr_assert_eq(t.dp * s.tp * s.cp * s.pp, s.world);
		cr_assert_eq(t.edp * s.etp * s.ep * s.pp, s.world);
		for (k = 0; k < MCINIT_GROUP_COUNT; k++)
			if (ref_kinds[k].name != NULL)
				check_kind(&t, k, cfg);
		check_coords(&t, cfg);
		check_same_pp_groups(&t, cfg);
		if (i % 8 == 0)
			check_json(&t, classic_kinds(), cfg);
		else if (i % 8 == 1)
			check_json(&t, (unsigned)rnd(MCINIT_GROUP_ALL + 1) & classic_kinds(), cfg);
	}
}

/* Under the tp-pp-dp mapping, any expert split with ETP·EP != TP·CP must be refused. */
Test(topology, mapping_rejects_mismatched_expert_split)
{
	int i, rejected = 0;

	for (i = 0; i < 200; i++) {
		struct mcinit_topo_sizes s = random_sizes(0);
		struct mcinit_topo t;
		int ok;

		s.tp_pp_dp_mapping = 1;
		ok = mcinit_topo_init(&t, &s, NULL) == 0;
		cr_assert_eq(ok, s.pp == 1 || s.etp * s.ep == s.tp * s.cp, "W=%ld tp=%ld pp=%ld",
		             s.world, s.tp, s.pp);
		rejected += !ok;
	}
	cr_expect_gt(rejected, 10);
}

Test(topology, json_exact_and_subsets)
{
	struct mcinit_topo t = topo(8, 2, 2, 1, 1, 1, 0);
	struct mcx_buf b = {0};

	mcinit_topo_json_groups(&t, MCINIT_GROUP_BIT(MCINIT_GROUP_TP), &b);
	cr_expect_str_eq(mcx_buf_cstr(&b), "{\"tp\":[[0,1],[2,3],[4,5],[6,7]]}");
	b.len = 0;
	mcinit_topo_json_groups(
	    &t, MCINIT_GROUP_BIT(MCINIT_GROUP_EMBD) | MCINIT_GROUP_BIT(MCINIT_GROUP_MP), &b);
	cr_expect_str_eq(mcx_buf_cstr(&b),
	                 "{\"mp\":[[0,1,4,5],[2,3,6,7]],\"embd\":[[0,4],[1,5],[2,6],[3,7]]}");
	b.len = 0;
	mcinit_topo_json_groups(&t, 0, &b);
	cr_expect_str_eq(mcx_buf_cstr(&b), "{}");
	/* Appends after existing content. */
	b.len = 0;
	mcx_buf_adds(&b, "x=");
	mcinit_topo_json_groups(&t, MCINIT_GROUP_BIT(MCINIT_GROUP_POS_EMBD), &b);
	cr_expect_str_eq(mcx_buf_cstr(&b), "x={\"pos_embd\":[[0],[1],[2],[3]]}");
	mcx_buf_free(&b);
}

/* Big enough that the stream writer flushes many chunks and the buffer grows. */
Test(topology, json_stream_matches_buffer_at_scale, .timeout = 600)
{
	struct mcinit_topo t = topo(1L << 16, 8, 16, 2, 8, 1, 0);
	struct mcx_buf b = {0};
	char *streamed = NULL;
	size_t slen = 0;
	FILE *f = open_memstream(&streamed, &slen);
	struct mcinit_err err = {0};
	json_t *root;

	mcinit_topo_json_groups(&t, MCINIT_GROUP_ALL, &b);
	cr_assert_eq(mcinit_topo_json_groups_write(&t, MCINIT_GROUP_ALL, f, &err), 0);
	fclose(f);
	cr_assert_gt(slen, (size_t)4 << 20);
	cr_assert(slen == b.len && memcmp(streamed, b.data, slen) == 0);
	root = json_loadb(b.data, b.len, 0, NULL);
	cr_assert_not_null(root);
	cr_expect_eq(json_array_size(json_object_get(root, "tp_dp_cp")), 16);
	cr_expect_eq(json_integer_value(
	                 json_array_get(json_array_get(json_object_get(root, "ep_dp"), 127), 511)),
	             65535);
	json_decref(root);
	mcx_buf_free(&b);
	free(streamed);
}

Test(topology, json_write_error_is_reported)
{
	struct mcinit_topo t = topo(64, 2, 2, 2, 2, 1, 0);
	struct mcinit_err err = {0};
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_expect_eq(mcinit_topo_json_groups_write(&t, MCINIT_GROUP_ALL, f, &err), -1);
	cr_expect_eq(err.code, MCINIT_E_IO);
	fclose(f);
}

Test(topology, seeds_at_agree_with_seeds_by_rank)
{
	struct mcinit_topo_sizes s = {
	    .world = 64, .tp = 2, .pp = 4, .cp = 2, .ep = 2, .etp = 1, .tp_pp_dp_mapping = 0};
	struct mcinit_topo t;
	struct mcinit_coords c;
	struct mcinit_seeds a, b;
	long r;

	cr_assert_eq(mcinit_topo_init(&t, &s, NULL), 0);
	for (r = 0; r < 64; r++) {
		cr_assert_eq(mcinit_topo_seeds(&t, r, 99, r & 1, &a), 0);
		cr_assert_eq(mcinit_topo_coords(&t, r, &c), 0);
		mcinit_topo_seeds_at(&c, 99, r & 1, &b);
		cr_assert(a.base == b.base && a.model_parallel == b.model_parallel &&
		          a.expert_parallel == b.expert_parallel);
	}
}
