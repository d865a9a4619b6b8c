/* test-init-gpu.c — the CUDA/NCCL phases (init-gpu.c) on a fake backend
 * (gpu.h's table), so that the phase logic runs in every build, GPU or
 * not: a one-rank world through the store, every split in creation order,
 * the verification sums, the bandwidth sweep, a communicator that times out
 * (aborted, the rank named), a wrong sum (named by group and ranks), a
 * library older than its headers, the teardown order, and two ranks on one
 * GPU (the rendezvous names them). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "run/init-impl.h"

/* ---- the fake backend ---- */

struct fcomm {
	int id, color;
};

static struct {
	int created;    /* communicators made so far (the world is 0) */
	int timeout_id; /* this communicator never finishes (-1: none) */
	int bad_sum_id; /* this one's all-reduce is off by one (-1: none) */
	int nccl;       /* ncclGetVersion (0: the header's, 22809) */
	int blocking;   /* creations asked blocking (o->blocking) */
	int creations;  /* init_start and split_start calls */
	int destroyed[64], aborted[64], nd;
	int abort_first[64], na; /* MCINIT_END_ABORT calls, before any free */
	int timed;
} F;

static int
f_count(char *why, size_t cap)
{
	snprintf(why, cap, "fake");
	return 1;
}

static void
f_versions(struct mcinit_gpu_versions *v)
{
	v->nccl_header = 22809;
	v->nccl_runtime = F.nccl ? F.nccl : 22809;
	v->cuda_header = v->cuda_runtime = v->cuda_driver = 13000;
}

static int
f_select(int device, char *busid, size_t cap, char *name, size_t ncap, struct mcinit_err *err)
{
	(void)device, (void)err;
	snprintf(busid, cap, "0000:00:00.0");
	snprintf(name, ncap, "Fake GPU");
	return 0;
}

static int
f_busid(int device, char *busid, size_t cap)
{
	(void)device;
	snprintf(busid, cap, "0000:00:00.0");
	return 0;
}

static int
f_unique_id(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err)
{
	(void)err;
	memset(id, 7, MCINIT_NCCL_ID_BYTES);
	return 0;
}

static struct fcomm *
fnew(int color)
{
	struct fcomm *c = calloc(1, sizeof *c);

	c->id = F.created++;
	c->color = color;
	return c;
}

static int
f_init_start(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
             const struct mcinit_nccl_opts *o, struct mcinit_err *err)
{
	(void)nranks, (void)rank, (void)nid, (void)err;
	cr_expect_eq(ids[0], 7, "the id went through the store");
	F.creations++;
	F.blocking += o && o->blocking;
	*comm = fnew(0);
	return 0;
}

static int
f_split_start(void *parent, int color, int key, const struct mcinit_nccl_opts *o, void **child,
              struct mcinit_err *err)
{
	(void)parent, (void)key, (void)err;
	F.creations++;
	F.blocking += o && o->blocking;
	*child = fnew(color);
	return 0;
}

static int
f_wait(void *comm, double deadline, struct mcinit_err *err)
{
	(void)deadline;
	if (((struct fcomm *)comm)->id == F.timeout_id)
		return mcinit_err_set(err, MCINIT_E_TIMEOUT, "fake: in progress");
	return 0;
}

static void *
f_handle(void *comm)
{
	return comm && ((struct fcomm *)comm)->color >= 0 ? comm : NULL;
}

static int
f_info(void *comm, int *size, int *rank, struct mcinit_err *err)
{
	(void)comm, (void)err;
	*size = 1;
	*rank = 0;
	return 0;
}

static int
f_allreduce(void *comm, long long value, long long *sum, double deadline, struct mcinit_err *err)
{
	(void)deadline, (void)err;
	*sum = value + (((struct fcomm *)comm)->id == F.bad_sum_id);
	return 0;
}

static int
f_time(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline, double *seconds,
       struct mcinit_err *err)
{
	(void)comm, (void)c, (void)iters, (void)deadline, (void)err;
	*seconds = (double)bytes / 1e11; /* 100 GB/s */
	F.timed++;
	return 0;
}

static int
f_buffers(void *comm, size_t bytes, double deadline, struct mcinit_err *err)
{
	(void)comm, (void)bytes, (void)deadline, (void)err;
	return 0;
}

static int
f_destroy(void *comm, double deadline, int hard, void *ctx)
{
	struct fcomm *c = comm;

	(void)deadline, (void)ctx;
	if (hard == MCINIT_END_ABORT) {
		cr_expect_eq(F.nd, 0, "an abort after a free (it would wait for a stuck kernel)");
		if (F.na < 64)
			F.abort_first[F.na++] = c->id;
		return 0;
	}
	if (F.nd < 64) {
		F.aborted[F.nd] = hard;
		F.destroyed[F.nd++] = c->id;
	}
	free(c);
	return 0;
}

static const struct mcinit_gpu_ops fake = {
    .count = f_count,
    .versions = f_versions,
    .select = f_select,
    .busid = f_busid,
    .unique_id = f_unique_id,
    .init_start = f_init_start,
    .split_start = f_split_start,
    .wait = f_wait,
    .handle = f_handle,
    .info = f_info,
    .allreduce = f_allreduce,
    .time = f_time,
    .buffers = f_buffers,
    .destroy = f_destroy,
};

/* ---- one rank through the engine ---- */

static const char *const no_env[] = {NULL}; /* a single process: no launcher */
static struct mcinit_init_opts opts;
static struct mcinit_init *I;
static struct mcinit_err err;
static int run_rc;

/* The engine with the fake backend, its config phase done. */
static void
start(void)
{
	static char path[4096];
	const char *src = getenv("srcdir"), *inputs[] = {path};
	struct mcinit_job_desc desc = {0};

	snprintf(path, sizeof path, "%s/tests/cli/inputs/topology-model.json", src ? src : ".");
	desc.inputs = inputs;
	desc.ninputs = 1;
	desc.envp = no_env;
	opts.envp = no_env;
	opts.no_bind = true;
	opts.timeout = 5;
	mcinit_gpu_use(&fake);
	I = mcinit_init_new(&opts);
	cr_assert_eq(mcinit_init_config(I, &desc, &err), 0, "%s", err.msg);
}

static void
run(void)
{
	mcinit_finish_fn fin = NULL;

	start();
	run_rc = mcinit_init_run(I, &fin, &err);
}

static void
setup(void)
{
	memset(&F, 0, sizeof F);
	F.timeout_id = F.bad_sum_id = -1;
	memset(&opts, 0, sizeof opts);
	memset(&err, 0, sizeof err);
}

static void
teardown(void)
{
	mcinit_init_free(I);
	I = NULL;
	mcinit_gpu_use(NULL);
}

static const char *
status(enum mcinit_phase p)
{
	return mcinit_phase_status_name(I->ph[p].status);
}

TestSuite(init_gpu, .init = setup, .fini = teardown);

Test(init_gpu, one_rank_world_every_split_verified)
{
	struct mcinit_split sp[MCINIT_FAM_MAX];
	int n;
	size_t i;

	opts.bandwidth = true;
	run();
	cr_expect_str_eq(status(MCINIT_PH_DEVICE), "ok", "%s", I->ph[MCINIT_PH_DEVICE].detail);
	cr_expect(strstr(I->ph[MCINIT_PH_DEVICE].detail, "Fake GPU, 0000:00:00.0"));
	cr_expect_str_eq(status(MCINIT_PH_WORLD), "ok", "%s", I->ph[MCINIT_PH_WORLD].detail);
	cr_expect(
	    strstr(I->ph[MCINIT_PH_WORLD].detail, "ncclCommInitRankConfig, id through the store"));
	cr_expect_str_eq(status(MCINIT_PH_GROUPS), "ok", "%s", I->ph[MCINIT_PH_GROUPS].detail);
	cr_expect_str_eq(status(MCINIT_PH_VERIFY), "ok", "%s", I->ph[MCINIT_PH_VERIFY].detail);
	/* the world, then one communicator per family, in creation order */
	n = mcinit_split_plan(&I->t, sp);
	cr_assert_eq(I->comms.n, (size_t)n + 1);
	cr_expect_str_eq(I->comms.v[0].name, "world");
	for (i = 1; i < I->comms.n; i++) {
		cr_expect_eq(I->comms.v[i].fam, sp[i - 1].fam);
		cr_expect_eq(I->comms.v[i].state, MCINIT_CS_VERIFIED, "%s", I->comms.v[i].name);
		cr_expect_float_eq(I->comms.v[i].algbw, 100.0, 1e-6);
	}
	/* issue 40, defect 6: five sizes, 1 MiB to 1 GiB, each kept */
	cr_expect_eq(F.timed, MCINIT_BW_SIZES * (n + 1), "five sizes per communicator");
	cr_expect_eq(I->comms.v[0].nbw, MCINIT_BW_SIZES);
	cr_expect_float_eq(I->comms.v[0].bw[MCINIT_BW_SIZES - 1].bytes, 1073741824.0, 0.5);
	{
		json_t *r = mcinit_init_report(I);
		json_t *c = json_object_get(r, "communicators");

		cr_expect_eq(json_array_size(c), (size_t)n + 1);
		cr_expect_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "state")),
		                 "verified");
		cr_expect_eq(json_array_size(json_object_get(json_array_get(c, 0), "bandwidth")),
		             (size_t)MCINIT_BW_SIZES);
		cr_expect_eq(
		    json_integer_value(json_object_get(json_object_get(r, "versions"), "nccl")),
		    22809);
		json_decref(r);
	}
	/* teardown: groups in reverse creation order, the world last, no abort
	 * (a CUDA build's seeds phase fails here: no device for the kernels) */
	mcinit_gpu_teardown(I, false);
	cr_assert_eq(F.nd, n + 1);
	for (i = 0; i < (size_t)F.nd; i++)
		cr_expect_eq(F.destroyed[i], n - (int)i);
	cr_expect_eq(F.aborted[0], 0);
	cr_expect_eq(F.aborted[n], 0);
}

Test(init_gpu, world_timeout_aborts_and_names_the_rank)
{
	F.timeout_id = 0;
	run();
	cr_expect_eq(run_rc, -1);
	cr_expect_eq(err.code, MCINIT_E_TIMEOUT);
	cr_expect_str_eq(status(MCINIT_PH_WORLD), "failed");
	cr_expect(
	    strstr(err.msg,
	           "NCCL world communicator not created within 5 s (ncclCommAbort): rank 0 did "
	           "not finish"),
	    "%s", err.msg);
	/* aborted at once, and the phases after it never ran */
	cr_expect_eq(F.nd, 1);
	cr_expect_eq(F.aborted[0], 1);
	cr_expect_str_eq(status(MCINIT_PH_GROUPS), "pending");
}

Test(init_gpu, split_timeout_aborts_everything)
{
	F.timeout_id = 3; /* the third split */
	run();
	cr_expect_eq(run_rc, -1);
	cr_expect_str_eq(status(MCINIT_PH_GROUPS), "failed");
	cr_expect(strstr(err.msg, "communicator not created within 5 s (ncclCommAbort)"), "%s",
	          err.msg);
	cr_expect_eq(F.nd, 4);
	cr_expect_eq(F.destroyed[0], 3);
	cr_expect_eq(F.destroyed[3], 0);
	cr_expect_eq(F.aborted[0] && F.aborted[1] && F.aborted[2] && F.aborted[3], 1);
	/* every one aborted before any is freed: the stuck split first, then
	 * parents before children (issue 40, defects 1-3) */
	cr_assert_eq(F.na, 5);
	cr_expect_eq(F.abort_first[0], 3);
	cr_expect_eq(F.abort_first[1], 0);
	cr_expect_eq(F.abort_first[2], 1);
	cr_expect_eq(F.abort_first[4], 3);
	cr_expect_eq(I->comms.v[3].state, MCINIT_CS_FAILED);
	cr_expect_eq(I->comms.v[2].state, MCINIT_CS_READY);
}

Test(init_gpu, wrong_sum_is_named)
{
	F.bad_sum_id = 2;
	run();
	cr_expect_eq(run_rc, -1);
	cr_expect_str_eq(status(MCINIT_PH_VERIFY), "failed");
	cr_expect(strstr(err.msg, "group 0 (ranks 0): all-reduce gave 1, expected 0"), "%s",
	          err.msg);
	cr_expect(strstr(err.msg, I->comms.v[2].name), "%s", err.msg);
	cr_expect_eq(I->comms.v[2].state, MCINIT_CS_FAILED);
	cr_expect_eq(F.aborted[0], 1);
}

Test(init_gpu, nccl_older_than_run_needs_is_refused)
{
	F.nccl = 21805; /* issue 40: the floor is 2.19 (it was 2.23) */
	run();
	cr_expect_eq(run_rc, -1);
	cr_expect_eq(err.code, MCINIT_E_UNAVAILABLE);
	cr_expect_str_eq(status(MCINIT_PH_DEVICE), "failed");
	cr_expect(
	    strstr(err.msg, "NCCL library loaded is 2.18.5; mcinit run needs 2.19.0 or newer"),
	    "%s", err.msg);
	cr_expect_eq(F.created, 0);
}

/* issue 25: an NGC container's NCCL 2.27 under 2.28 headers runs, warned */
Test(init_gpu, nccl_older_than_its_headers_runs_with_a_warning)
{
	F.nccl = 22703;
	run();
	/* (a CUDA build's kernels phase fails here: no device for them) */
	cr_expect_str_eq(status(MCINIT_PH_VERIFY), "ok", "%s", err.msg);
	cr_expect_str_eq(status(MCINIT_PH_DEVICE), "ok");
	cr_expect_gt(F.created, 0);
}

/* issue 25: communicators are non-blocking unless the caller asks */
Test(init_gpu, non_blocking_communicators_by_default)
{
	run();
	cr_expect_gt(F.creations, 1);
	cr_expect_eq(F.blocking, 0);
}

Test(init_gpu, blocking_communicators_when_asked)
{
	opts.nccl_blocking = true;
	run();
	cr_expect_str_eq(status(MCINIT_PH_VERIFY), "ok", "%s", err.msg);
	cr_expect_gt(F.creations, 1);
	cr_expect_eq(F.blocking, F.creations);
}

Test(init_gpu, lazy_path_defers_then_finishes)
{
	mcinit_finish_fn fin = NULL;

	opts.lazy = true;
	start();
	cr_assert_eq(mcinit_init_run(I, &fin, &err), 0, "%s", err.msg);
	cr_assert(fin);
	cr_expect_str_eq(status(MCINIT_PH_WORLD), "deferred");
	cr_expect_eq(F.created, 0);
	fin(I, &err);
	cr_expect_str_eq(status(MCINIT_PH_WORLD), "ok", "%s", I->ph[MCINIT_PH_WORLD].detail);
	cr_expect_str_eq(status(MCINIT_PH_VERIFY), "ok", "%s", I->ph[MCINIT_PH_VERIFY].detail);
	cr_expect_gt(F.created, 1);
}

/* ---- two ranks (threads) on one fake GPU: the rendezvous names them ---- */

static int
free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0), port;

	cr_assert_geq(s, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &n), 0);
	port = ntohs(a.sin_port);
	close(s);
	return port;
}

struct rank_run {
	char env[6][64];
	const char *envp[7];
	struct mcinit_init_opts o;
	struct mcinit_init *I;
	struct mcinit_err err;
	int rc;
};

static void *
rank_main(void *arg)
{
	struct rank_run *r = arg;
	static char path[4096];
	const char *src = getenv("srcdir"), *inputs[] = {path};
	struct mcinit_job_desc desc = {0};
	mcinit_finish_fn fin = NULL;

	snprintf(path, sizeof path, "%s/tests/cli/inputs/topology-model.json", src ? src : ".");
	desc.inputs = inputs;
	desc.ninputs = 1;
	desc.envp = r->envp;
	desc.world_size = 2;
	r->I = mcinit_init_new(&r->o);
	r->rc = mcinit_init_config(r->I, &desc, &r->err);
	if (r->rc == 0)
		r->rc = mcinit_init_run(r->I, &fin, &r->err);
	return NULL;
}

Test(init_gpu, two_ranks_on_one_gpu_are_named)
{
	struct rank_run r[2];
	pthread_t t[2];
	int port = free_port(), i, k;

	memset(r, 0, sizeof r);
	mcinit_gpu_use(&fake);
	for (i = 0; i < 2; i++) {
		snprintf(r[i].env[0], sizeof r[i].env[0], "RANK=%d", i);
		snprintf(r[i].env[1], sizeof r[i].env[1], "LOCAL_RANK=%d", i);
		snprintf(r[i].env[2], sizeof r[i].env[2], "WORLD_SIZE=2");
		snprintf(r[i].env[3], sizeof r[i].env[3], "LOCAL_WORLD_SIZE=2");
		snprintf(r[i].env[4], sizeof r[i].env[4], "MASTER_ADDR=127.0.0.1");
		snprintf(r[i].env[5], sizeof r[i].env[5], "MASTER_PORT=%d", port);
		for (k = 0; k < 6; k++)
			r[i].envp[k] = r[i].env[k];
		r[i].o.envp = r[i].envp;
		r[i].o.no_bind = true;
		r[i].o.timeout = 10;
	}
	/* (desc.world_size: the job file gives no world; the launcher's is 2) */
	for (i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, rank_main, &r[i]), 0);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++) {
		cr_expect_neq(r[i].rc, 0, "rank %d", i);
		cr_expect(strstr(r[i].err.msg, "ranks 0 and 1 both use GPU 0000:00:00.0"),
		          "rank %d: %s", i, r[i].err.msg);
		mcinit_init_free(r[i].I);
	}
	cr_expect_eq(F.created, 0, "no communicator before the rendezvous agrees");
}
