/* test-gpu-plan.c — the GPU phases' decisions that need no GPU (gpu-plan.h):
 * built and run in every configuration, CUDA or not. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu-plan.h"

/* ---- nccl_communicator_config_path ---- */

static int
parse(const char *yaml, struct mcinit_nccl_cfgs *c, struct mcx_buf *w, struct mcinit_err *e)
{
	return mcinit_nccl_cfgs_parse(yaml, strlen(yaml), "comm.yaml", c, w, e);
}

Test(nccl_cfgs, megatron_keys_map_to_config_fields)
{
	const char *y = "tp:\n"
	                "  cga_cluster_size: 2\n"
	                "  max_ctas: 32\n"
	                "  min_ctas: 4\n"
	                "  net_name: socket\n"
	                "  is_high_priority_stream: true\n"
	                "dp_cp:\n"
	                "  net_name: ib\n";
	struct mcinit_nccl_cfgs c;
	struct mcx_buf w = {0};
	struct mcinit_err e = {0};
	const struct mcinit_nccl_opts *tp, *dp;

	cr_assert_eq(parse(y, &c, &w, &e), 0, "%s", e.msg);
	cr_expect_eq(c.n, 2);
	tp = mcinit_nccl_cfgs_find(&c, "tp");
	dp = mcinit_nccl_cfgs_find(&c, "dp_cp");
	cr_assert(tp && dp);
	cr_expect_eq(tp->cga_cluster_size, 2);
	cr_expect_eq(tp->max_ctas, 32);
	cr_expect_eq(tp->min_ctas, 4);
	cr_expect_str_eq(tp->net_name, "Socket"); /* NCCL's plugin name */
	cr_expect_eq(tp->high_priority, 1);
	/* what is not given stays NCCL's default */
	cr_expect_str_eq(dp->net_name, "IB");
	cr_expect_eq(dp->cga_cluster_size, MCINIT_NCCL_UNSET);
	cr_expect_eq(dp->min_ctas, MCINIT_NCCL_UNSET);
	cr_expect_eq(dp->max_ctas, MCINIT_NCCL_UNSET);
	cr_expect_eq(dp->high_priority, 0);
	cr_expect_null(mcinit_nccl_cfgs_find(&c, "pp"));
	cr_expect_eq(w.len, 0, "%s", mcx_buf_cstr(&w));
	mcinit_nccl_cfgs_destroy(&c);
	mcx_buf_free(&w);
}

Test(nccl_cfgs, unknown_keys_and_groups_are_located_warnings)
{
	const char *y = "tp:\n"
	                "  max_cta: 8\n"
	                "tensor:\n"
	                "  min_ctas: 2\n";
	struct mcinit_nccl_cfgs c;
	struct mcx_buf w = {0};
	struct mcinit_err e = {0};

	cr_assert_eq(parse(y, &c, &w, &e), 0, "%s", e.msg);
	cr_expect(strstr(mcx_buf_cstr(&w), "comm.yaml:2:3: tp.max_cta: not an option"), "%s",
	          mcx_buf_cstr(&w));
	cr_expect(strstr(mcx_buf_cstr(&w), "comm.yaml:3:1: tensor: not a group name"), "%s",
	          mcx_buf_cstr(&w));
	mcinit_nccl_cfgs_destroy(&c);
	mcx_buf_free(&w);
}

Test(nccl_cfgs, bad_values_are_located_errors)
{
	static const struct {
		const char *yaml, *want;
	} t[] = {
	    {"tp:\n  net_name: tcp\n", "comm.yaml:2:3: tp.net_name must be IB or socket"},
	    {"tp:\n  max_ctas: 0\n", "comm.yaml:2:3: tp.max_ctas is 0; NCCL takes 1 or more"},
	    {"tp:\n  min_ctas: many\n", "tp.min_ctas must be an integer"},
	    {"tp:\n  min_ctas: true\n", "tp.min_ctas must be an integer"},
	    {"tp:\n  cga_cluster_size: -1\n", "cga_cluster_size is -1; NCCL takes 0 or more"},
	    {"tp:\n  min_ctas: 8\n  max_ctas: 4\n", "tp: min_ctas 8 is above max_ctas 4"},
	    {"tp:\n  is_high_priority_stream: 1\n", "must be true or false"},
	    {"tp: 3\n", "group tp: expected a mapping"},
	    {"- tp\n", "expected a mapping of group names"},
	    {"tp: [\n", "comm.yaml:"},
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof *t; i++) {
		struct mcinit_nccl_cfgs c;
		struct mcinit_err e = {0};

		cr_expect_eq(parse(t[i].yaml, &c, NULL, &e), -1, "%s", t[i].yaml);
		cr_expect_eq(e.code, MCINIT_E_PARSE, "%s", t[i].yaml);
		cr_expect(strstr(e.msg, t[i].want), "%s: got %s", t[i].yaml, e.msg);
		cr_expect_eq(c.n, 0);
	}
}

Test(nccl_cfgs, empty_file_and_missing_file)
{
	struct mcinit_nccl_cfgs c;
	struct mcinit_err e = {0};

	cr_expect_eq(parse("", &c, NULL, &e), 0);
	cr_expect_eq(c.n, 0);
	cr_expect_eq(mcinit_nccl_cfgs_load("/nonexistent/comm.yaml", &c, NULL, &e), -1);
	cr_expect_eq(e.code, MCINIT_E_NOINPUT);
}

Test(nccl_cfgs, caps_are_warnings)
{
	struct mcinit_nccl_cfgs c;
	struct mcx_buf w = {0};
	struct mcinit_err e = {0};

	cr_assert_eq(parse("tp:\n  cga_cluster_size: 16\n  max_ctas: 128\n", &c, &w, &e), 0);
	cr_expect(strstr(mcx_buf_cstr(&w), "NCCL caps it at 8"));
	cr_expect(strstr(mcx_buf_cstr(&w), "NCCL caps it at 64 channels"));
	mcinit_nccl_cfgs_destroy(&c);
	mcx_buf_free(&w);
}

Test(nccl_cfgs, high_priority_stream_groups)
{
	struct mcinit_nccl_cfgs c;
	struct mcx_buf w = {0};
	struct mcinit_err e = {0};

	cr_assert_eq(parse("tp:\n  max_ctas: 8\n", &c, &w, &e), 0);
	mcinit_nccl_cfgs_high_priority(&c, "tp", &w);
	mcinit_nccl_cfgs_high_priority(&c, "ep", &w);
	mcinit_nccl_cfgs_high_priority(&c, "tensor", &w);
	cr_expect_eq(mcinit_nccl_cfgs_find(&c, "tp")->high_priority, 1);
	cr_expect_eq(mcinit_nccl_cfgs_find(&c, "tp")->max_ctas, 8);
	cr_expect_eq(mcinit_nccl_cfgs_find(&c, "ep")->high_priority, 1);
	cr_expect_eq(mcinit_nccl_cfgs_find(&c, "ep")->max_ctas, MCINIT_NCCL_UNSET);
	cr_expect(strstr(mcx_buf_cstr(&w), "tensor is not a group name"));
	mcinit_nccl_cfgs_destroy(&c);
	mcx_buf_free(&w);
}

/* ---- the environment variables NCCL lets win ---- */

Test(nccl_env, blocking_overrides_the_world)
{
	const char *on[] = {"NCCL_COMM_BLOCKING=1", NULL};
	const char *off[] = {"NCCL_COMM_BLOCKING=0", NULL};
	const char *none[] = {"PATH=/bin", NULL};
	struct mcx_buf w = {0};

	cr_expect_eq(mcinit_nccl_env_overrides(on, NULL, &w), 1);
	cr_expect(strstr(mcx_buf_cstr(&w), "NCCL_COMM_BLOCKING=1 overrides"));
	cr_expect(strstr(mcx_buf_cstr(&w), "cannot time out"));
	cr_expect_eq(mcinit_nccl_env_overrides(off, NULL, &w), 0);
	cr_expect_eq(mcinit_nccl_env_overrides(none, NULL, &w), 0);
	mcx_buf_free(&w);
}

Test(nccl_env, only_options_the_config_sets)
{
	const char *env[] = {"NCCL_MIN_CTAS=2", "NCCL_NET=IB", "NCCL_MAX_CTAS=8", NULL};
	struct mcinit_nccl_opts o;
	struct mcx_buf w = {0};

	mcinit_nccl_opts_default(&o);
	cr_expect_eq(mcinit_nccl_env_overrides(env, &o, &w), 0);
	o.min_ctas = 4;
	snprintf(o.net_name, sizeof o.net_name, "Socket");
	cr_expect_eq(mcinit_nccl_env_overrides(env, &o, &w), 2);
	cr_expect(strstr(mcx_buf_cstr(&w), "NCCL_MIN_CTAS=2 overrides the config's min_ctas"));
	cr_expect(strstr(mcx_buf_cstr(&w), "NCCL_NET=IB overrides the config's net_name"));
	cr_expect_null(strstr(mcx_buf_cstr(&w), "MAX_CTAS"));
	mcx_buf_free(&w);
}

/* ---- splits ---- */

static struct mcinit_topo
topo(long world, long tp, long pp, long cp, long ep)
{
	struct mcinit_topo_sizes s = {
	    .world = world, .tp = tp, .pp = pp, .cp = cp, .ep = ep, .etp = 1};
	struct mcinit_topo t;
	struct mcinit_err e = {0};

	cr_assert_eq(mcinit_topo_init(&t, &s, &e), 0, "%s", e.msg);
	return t;
}

Test(splits, one_per_family_in_creation_order)
{
	struct mcinit_topo t = topo(16, 2, 4, 1, 2);
	struct mcinit_split sp[MCINIT_FAM_MAX];
	struct mcinit_topo_iter it;
	int n = mcinit_split_plan(&t, sp), i, fam, seen[MCINIT_FAM_MAX] = {0};
	long g;

	cr_assert_eq(n, t.nfam);
	for (i = 0; i < n; i++) {
		cr_expect_eq(seen[sp[i].fam]++, 0, "family %d twice", sp[i].fam);
		cr_expect_eq(sp[i].kind, t.fam[sp[i].fam].kind);
	}
	/* the plan is the order of each family's first group in the creation order */
	i = 0;
	memset(seen, 0, sizeof seen);
	mcinit_topo_iter_init(&it, &t);
	while (mcinit_topo_iter_next(&it, &fam, &g))
		if (!seen[fam]++) {
			cr_expect_eq(sp[i].fam, fam, "split %d", i);
			i++;
		}
	cr_expect_eq(i, n);
}

Test(splits, color_and_key_name_each_ranks_group)
{
	struct mcinit_topo t = topo(16, 2, 4, 1, 2);
	struct mcinit_split sp[MCINIT_FAM_MAX];
	int n = mcinit_split_plan(&t, sp), i;
	long r;

	for (i = 0; i < n; i++) {
		struct mcinit_groups gr;
		struct mcinit_err e = {0};
		long inside = 0;

		cr_assert_eq(mcinit_topo_fam_groups(&t, sp[i].fam, &gr, &e), 0);
		for (r = 0; r < 16; r++) {
			int color, key;

			cr_assert_eq(mcinit_split_color_key(&t, sp[i].fam, r, &color, &key), 0);
			if (color == MCINIT_NCCL_NOCOLOR) {
				cr_expect_eq(key, MCINIT_NCCL_NOCOLOR);
				continue;
			}
			inside++;
			cr_expect_eq(gr.members[(long)color * gr.size + key], r, "%s rank %ld",
			             mcinit_group_kind_name(sp[i].kind), r);
		}
		cr_expect_eq(inside, gr.ngroups * gr.size, "%s",
		             mcinit_group_kind_name(sp[i].kind));
		mcinit_groups_destroy(&gr);
	}
	cr_expect_eq(mcinit_split_color_key(&t, sp[0].fam, 16, &(int){0}, &(int){0}), -1);
}

Test(splits, embedding_groups_leave_middle_stages_out)
{
	struct mcinit_topo t = topo(8, 1, 4, 1, 1);
	int f = mcinit_topo_fam_find(&t, MCINIT_GROUP_EMBD, 0), color, key;

	cr_assert_geq(f, 0);
	/* pp groups [0,2,4,6], [1,3,5,7]: embd holds the first and last stage */
	cr_expect_eq(mcinit_split_color_key(&t, f, 2, &color, &key), 0);
	cr_expect_eq(color, MCINIT_NCCL_NOCOLOR);
	cr_expect_eq(mcinit_split_color_key(&t, f, 6, &color, &key), 0);
	cr_expect_eq(key, 1);
	f = mcinit_topo_fam_find(&t, MCINIT_GROUP_POS_EMBD, 0);
	cr_expect_eq(mcinit_split_color_key(&t, f, 6, &color, &key), 0);
	cr_expect_eq(color, MCINIT_NCCL_NOCOLOR);
}

/* ---- scalable init ---- */

Test(scalable, threshold_and_version)
{
	cr_expect_eq(mcinit_nccl_nids(1, 22809), 0);
	cr_expect_eq(mcinit_nccl_nids(256, 22809), 0);
	cr_expect_eq(mcinit_nccl_nids(257, 22809), 2);
	cr_expect_eq(mcinit_nccl_nids(1024, 22809), 4);
	cr_expect_eq(mcinit_nccl_nids(1025, 22809), 5);
	cr_expect_eq(mcinit_nccl_nids(100000, 22300), 391);
	cr_expect_eq(mcinit_nccl_nids(100000, 22205), 0); /* no scalable init before 2.23 */
}

Test(scalable, roots_lead_contiguous_blocks)
{
	static const long cases[][2] = {{10, 3}, {257, 2}, {1025, 5}, {7, 7}, {1000, 1}, {999, 4}};
	size_t c;

	/* n = 10, nid = 3: blocks [0..3], [4..6], [7..9] */
	cr_expect_eq(mcinit_nccl_root_first(0, 10, 3), 0);
	cr_expect_eq(mcinit_nccl_root_first(1, 10, 3), 4);
	cr_expect_eq(mcinit_nccl_root_first(2, 10, 3), 7);
	for (c = 0; c < sizeof cases / sizeof *cases; c++) {
		long n = cases[c][0], nid = cases[c][1], r, roots = 0;

		for (r = 0; r < n; r++) {
			long i = mcinit_nccl_root_of(r, n, nid);
			long first = mcinit_nccl_root_first(i, n, nid);
			long next = i + 1 < nid ? mcinit_nccl_root_first(i + 1, n, nid) : n;

			cr_assert(i >= 0 && i < nid && first <= r && r < next,
			          "n %ld nid %ld rank %ld", n, nid, r);
			if (mcinit_nccl_root_led(r, n, nid) >= 0) {
				cr_expect_eq(mcinit_nccl_root_led(r, n, nid), i);
				cr_expect_eq(r, first);
				roots++;
			}
		}
		cr_expect_eq(roots, nid, "n %ld nid %ld", n, nid);
	}
}

/* ---- bandwidth, as nccl-tests computes it ---- */

Test(bandwidth, bus_factors)
{
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_ALL_REDUCE, 8), 1.75, 1e-12);
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_ALL_REDUCE, 1), 0.0, 1e-12);
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_ALL_GATHER, 4), 0.75, 1e-12);
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_REDUCE_SCATTER, 2), 0.5, 1e-12);
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_ALL_TO_ALL, 8), 0.875, 1e-12);
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_SEND_RECV, 8), 1.0, 1e-12);
	cr_expect_float_eq(mcinit_busbw_factor(MCINIT_COLL_BROADCAST, 8), 1.0, 1e-12);
}

Test(bandwidth, algbw_and_busbw)
{
	double a, b;

	/* 1 GB all-reduce over 8 ranks in 10 ms: 100 GB/s algbw, 175 GB/s busbw */
	mcinit_bandwidth(MCINIT_COLL_ALL_REDUCE, 8, 1e9, 0.01, &a, &b);
	cr_expect_float_eq(a, 100.0, 1e-9);
	cr_expect_float_eq(b, 175.0, 1e-9);
	mcinit_bandwidth(MCINIT_COLL_ALL_GATHER, 4, 1 << 26, 0, &a, &b);
	cr_expect_eq(a, 0);
	cr_expect_eq(b, 0);
	cr_expect_eq(mcinit_kind_coll(MCINIT_GROUP_PP), MCINIT_COLL_SEND_RECV);
	cr_expect_eq(mcinit_kind_coll(MCINIT_GROUP_EP), MCINIT_COLL_ALL_TO_ALL);
	cr_expect_eq(mcinit_kind_coll(MCINIT_GROUP_TP), MCINIT_COLL_ALL_REDUCE);
	cr_expect_str_eq(mcinit_coll_name(MCINIT_COLL_REDUCE_SCATTER), "reduce_scatter");
}

/* ---- versions ---- */

Test(versions, texts)
{
	char b[32];

	mcinit_nccl_version_text(22809, b, sizeof b);
	cr_expect_str_eq(b, "2.28.9");
	mcinit_nccl_version_text(2708, b, sizeof b);
	cr_expect_str_eq(b, "2.7.8");
	mcinit_nccl_version_text(22300, b, sizeof b);
	cr_expect_str_eq(b, "2.23.0");
	mcinit_cuda_version_text(13000, b, sizeof b);
	cr_expect_str_eq(b, "13.0");
	mcinit_cuda_version_text(12080, b, sizeof b);
	cr_expect_str_eq(b, "12.8");
}

Test(versions, refusals_and_warnings)
{
	char why[256];

	cr_expect_eq(mcinit_gpu_version_check(22809, 22809, 13000, 13000, 13000, why, sizeof why),
	             0);
	cr_expect_str_empty(why);
	/* another NCCL than the headers' serves, with a warning (issue 25: an
	 * NGC container's 2.27 with 2.28 headers) */
	cr_expect_eq(mcinit_gpu_version_check(22905, 22809, 13010, 13000, 13020, why, sizeof why),
	             1);
	cr_expect(strstr(why, "NCCL library loaded is 2.29.5, mcinit was built with the 2.28.9"),
	          "%s", why);
	cr_expect_eq(mcinit_gpu_version_check(22703, 22809, 13000, 13000, 13000, why, sizeof why),
	             1);
	cr_expect_eq(mcinit_gpu_version_check(22300, 22809, 13000, 13000, 13000, why, sizeof why),
	             1);
	/* issue 40: from 2.19 (ncclMemAlloc, ncclCommRegister); 2.21 (torch
	 * 2.6's wheel) and 2.22 serve, ncclCommInitRankScalable being optional */
	cr_expect_eq(mcinit_gpu_version_check(22204, 22809, 13000, 13000, 13000, why, sizeof why),
	             1);
	cr_expect_eq(mcinit_gpu_version_check(21903, 22809, 13000, 13000, 13000, why, sizeof why),
	             1);
	cr_expect_eq(mcinit_gpu_version_check(21805, 22809, 13000, 13000, 13000, why, sizeof why),
	             -1);
	cr_expect(strstr(why, "NCCL library loaded is 2.18.5; mcinit run needs 2.19.0 or newer"),
	          "%s", why);
	cr_expect(!strstr(why, "LD_LIBRARY_PATH"), "%s", why);
	/* issue 40: a CUDA 12 runtime under 13's headers is bound; 11 is not */
	cr_expect_eq(mcinit_gpu_version_check(22809, 22809, 12080, 13000, 12080, why, sizeof why),
	             0);
	cr_expect_eq(mcinit_gpu_version_check(22809, 22809, 11080, 13000, 13000, why, sizeof why),
	             -1);
	cr_expect(strstr(why, "CUDA runtime loaded is 11.8; mcinit run needs 12.0 or newer"), "%s",
	          why);
	/* an older driver minor is fine (minor-version compatibility), an older major is not */
	cr_expect_eq(mcinit_gpu_version_check(22809, 22809, 13010, 13000, 13000, why, sizeof why),
	             0);
	cr_expect_eq(mcinit_gpu_version_check(22809, 22809, 13000, 13000, 12080, why, sizeof why),
	             -1);
	cr_expect(strstr(why, "driver supports CUDA 12.8, older than the CUDA 13.0 runtime"), "%s",
	          why);
	cr_expect(strstr(why, "use a CUDA 12 runtime"), "%s", why);
	/* unknown (0: no driver, not compiled in) passes */
	cr_expect_eq(mcinit_gpu_version_check(0, 22809, 13000, 13000, 0, why, sizeof why), 0);
	cr_expect_eq(mcinit_gpu_version_check(0, 0, 0, 0, 0, why, sizeof why), 0);
}

/* ---- tp-comm ---- */

Test(tp_comm, buffer_bytes)
{
	/* 10 x [(4096 x 1) / 2, 8192] bf16 */
	cr_expect_eq(mcinit_tp_comm_bytes(4096, 1, 2, 8192, 0), (size_t)10 * 2048 * 8192 * 2);
	cr_expect_eq(mcinit_tp_comm_bytes(4096, 2, 1, 4096, 1), (size_t)10 * 8192 * 4096);
	cr_expect_eq(mcinit_tp_comm_bytes(0, 1, 1, 4096, 0), 0);
}

/* ---- teardown: groups in reverse creation order, then the world ---- */

struct rec {
	int order[16], abort[16], n;
	int fail_on;
};

static int
record(void *h, double deadline, int abort, void *ctx)
{
	struct rec *r = ctx;

	(void)deadline;
	r->abort[r->n] = abort;
	r->order[r->n++] = (int)(long)h;
	return (int)(long)h == r->fail_on ? -1 : 0;
}

Test(teardown, reverse_creation_order_world_last)
{
	struct mcinit_comms l = {0};
	struct rec r = {.fail_on = 3};
	int i;

	for (i = 1; i <= 5; i++)
		mcinit_comms_add(&l)->handle = i == 4 ? NULL : (void *)(long)i; /* 4: NOCOLOR */
	cr_expect_eq(mcinit_comms_teardown(&l, record, 0, 0, &r), 1);
	cr_assert_eq(r.n, 4);
	cr_expect_eq(r.order[0], 5);
	cr_expect_eq(r.order[1], 3);
	cr_expect_eq(r.order[2], 2);
	cr_expect_eq(r.order[3], 1); /* the world, l.v[0], last */
	for (i = 0; i < 5; i++)
		cr_expect_null(l.v[i].handle);
	/* again: nothing left to destroy */
	cr_expect_eq(mcinit_comms_teardown(&l, record, 0, 1, &r), 0);
	cr_expect_eq(r.n, 4);
	mcinit_comms_destroy(&l);
}

/* issue 40, defects 1-3: ncclCommAbort and cudaFree synchronize the device,
 * so when hard, every communicator is aborted before anything is freed:
 * the stuck one first, then in creation order (a parent before the child
 * its aborted split job writes), then the frees in reverse */
Test(teardown, hard_aborts_the_stuck_first_then_every_one_before_a_free)
{
	struct mcinit_comms l = {0};
	struct rec r = {.fail_on = -1};
	static const int order[] = {3, 1, 2, 3, 4, 4, 3, 2, 1};
	static const int how[] = {MCINIT_END_ABORT,
	                          MCINIT_END_ABORT,
	                          MCINIT_END_ABORT,
	                          MCINIT_END_ABORT,
	                          MCINIT_END_ABORT,
	                          1,
	                          1,
	                          1,
	                          1};
	int i;

	for (i = 1; i <= 4; i++)
		mcinit_comms_add(&l)->handle = (void *)(long)i;
	l.v[2].stuck = 1;
	cr_expect_eq(mcinit_comms_teardown(&l, record, 0, 1, &r), 0);
	cr_assert_eq(r.n, 9);
	for (i = 0; i < 9; i++) {
		cr_expect_eq(r.order[i], order[i], "call %d", i);
		cr_expect_eq(r.abort[i], how[i], "call %d", i);
	}
	mcinit_comms_destroy(&l);
}

Test(teardown, abort_is_passed_on)
{
	struct mcinit_comms l = {0};
	struct rec r = {.fail_on = -1};

	mcinit_comms_add(&l)->handle = (void *)1L;
	mcinit_comms_add(&l)->handle = (void *)2L;
	cr_expect_eq(mcinit_comms_teardown(&l, record, 0, 1, &r), 0);
	cr_assert_eq(r.n, 4);
	cr_expect_eq(r.abort[0], MCINIT_END_ABORT);
	cr_expect_eq(r.abort[1], MCINIT_END_ABORT);
	cr_expect_eq(r.abort[2], 1);
	cr_expect_eq(r.abort[3], 1);
	cr_expect_eq(l.v[1].color, MCINIT_NCCL_NOCOLOR); /* a new entry is outside until split */
	mcinit_comms_destroy(&l);
}
