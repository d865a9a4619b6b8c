/*
 * gpu-nccl.c — the NCCL half of the GPU backend (gpu.h).
 *
 * Every communicator is created non-blocking (blocking = 0), so that no
 * NCCL call can hang past mcinit's deadline: calls return ncclInProgress
 * and ncclCommGetAsyncError says when they are done.  A communicator is a
 * `struct ncomm`: NCCL's handle and the stream its collectives run on (with
 * the priority is_high_priority_stream asks for).
 *
 * libnccl is opened at the first NCCL call (dlopen), not linked: linking
 * it makes the loader relocate it and the libstdc++ it needs at the start
 * of every command, ~2.7 M instructions, while only mcinit run's GPU phases
 * (and --version) call it; and a machine without it still runs the rest.
 * CUDA's runtime likewise (gpu-cudart.h).  NCCL's calls below go through pointers found
 * with dlsym (the #defines after nccl.h), so the code reads as NCCL's.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "build.h" /* MCINIT_BUILD_CUDA_DIR */
#include "core/dlfind.h"
#include "gpu/gpu-cuda.h"
#include "gpu/gpu-cudart.h"
#include "gpu/gpu.h"
#include "store/store.h" /* mcinit_now */

/* ---- libnccl, opened at first use ---- */

/* Every NCCL call this file makes. */
#define NCCL_CALLS(X)                                                                              \
	X(ncclGetVersion)                                                                          \
	X(ncclGetErrorString)                                                                      \
	X(ncclGetLastError)                                                                        \
	X(ncclGetUniqueId)                                                                         \
	X(ncclCommInitRankConfig)                                                                  \
	X(ncclCommSplit)                                                                           \
	X(ncclCommGetAsyncError)                                                                   \
	X(ncclCommCount)                                                                           \
	X(ncclCommUserRank)                                                                        \
	X(ncclCommFinalize)                                                                        \
	X(ncclCommDestroy)                                                                         \
	X(ncclCommAbort)                                                                           \
	X(ncclCommRegister)                                                                        \
	X(ncclCommDeregister)                                                                      \
	X(ncclMemAlloc)                                                                            \
	X(ncclMemFree)                                                                             \
	X(ncclGroupStart)                                                                          \
	X(ncclGroupEnd)                                                                            \
	X(ncclAllReduce)                                                                           \
	X(ncclAllGather)                                                                           \
	X(ncclReduceScatter)                                                                       \
	X(ncclBroadcast)                                                                           \
	X(ncclSend)                                                                                \
	X(ncclRecv)

/* The calls of later releases than the floor (MCINIT_NCCL_MIN, 2.19):
 * NULL when the library lacks them, and the caller falls back (the
 * single-id ncclCommInitRankConfig where ncclCommInitRankScalable, 2.23,
 * is absent: mcinit_nccl_nids asks for one id below 2.23). */
#define NCCL_OPTIONAL(X) X(ncclCommInitRankScalable)

#define NCCL_POINTER(f) static __typeof__(f) *dl_##f;
NCCL_CALLS(NCCL_POINTER)
NCCL_OPTIONAL(NCCL_POINTER)
#undef NCCL_POINTER

/* The library as the headers name it (libnccl.so.2 for NCCL 2), found
 * where the trainer's Python finds it (core/dlfind.h, mcinit_dl_places):
 * $MCINIT_NCCL_LIBRARY, the active environment's nvidia/nccl/lib (torch's
 * nvidia-nccl wheel), conda's lib, the python3 on PATH, $CUDA_HOME, the
 * CUDA toolkit configure found, the loader. */
#define NCCL_STR(x)  #x
#define NCCL_XSTR(x) NCCL_STR(x)
#define NCCL_SONAME  "libnccl.so." NCCL_XSTR(NCCL_MAJOR)
static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;
static char nccl_why[1024]; /* empty once loaded */
static struct mcinit_dl_found nccl_found;
static const char *const nccl_subs[] = {"nccl", NULL};

static void
nccl_open(void)
{
	void *h =
	    mcinit_dl_find_py(NCCL_SONAME, "MCINIT_NCCL_LIBRARY", nccl_subs,
	                      MCINIT_BUILD_CUDA_DIR[0] ? MCINIT_BUILD_CUDA_DIR "/lib64" : NULL,
	                      &nccl_found, nccl_why, sizeof nccl_why);

	if (h == NULL) {
		if (!nccl_why[0])
			snprintf(nccl_why, sizeof nccl_why, "%s: nowhere to look", NCCL_SONAME);
		memset(&nccl_found, 0, sizeof nccl_found);
		return;
	}
	nccl_why[0] = '\0';
#define NCCL_FIND(f)                                                                               \
	if ((*(void **)&dl_##f = dlsym(h, #f)) == NULL && nccl_why[0] == '\0')                     \
		snprintf(nccl_why, sizeof nccl_why, "%.300s: no %s", nccl_found.used.file, #f);
	NCCL_CALLS(NCCL_FIND)
#undef NCCL_FIND
#define NCCL_FIND_OPTIONAL(f) *(void **)&dl_##f = dlsym(h, #f);
	NCCL_OPTIONAL(NCCL_FIND_OPTIONAL)
#undef NCCL_FIND_OPTIONAL
}

/* 0 once libnccl is open with every call found; else -1 with why in err
 * (MCINIT_E_UNAVAILABLE, as without a device). */
static int
nccl_load(struct mcinit_err *err)
{
	pthread_once(&nccl_once, nccl_open);
	if (nccl_why[0] == '\0')
		return 0;
	return err ? mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "NCCL: %s", nccl_why) : -1;
}

/* From here on, NCCL's names are the pointers: every call of one is made
 * after nccl_load (a communicator exists only after one). */
#define ncclGetVersion           (*dl_ncclGetVersion)
#define ncclGetErrorString       (*dl_ncclGetErrorString)
#define ncclGetLastError         (*dl_ncclGetLastError)
#define ncclGetUniqueId          (*dl_ncclGetUniqueId)
#define ncclCommInitRankConfig   (*dl_ncclCommInitRankConfig)
#define ncclCommInitRankScalable (*dl_ncclCommInitRankScalable)
#define ncclCommSplit            (*dl_ncclCommSplit)
#define ncclCommGetAsyncError    (*dl_ncclCommGetAsyncError)
#define ncclCommCount            (*dl_ncclCommCount)
#define ncclCommUserRank         (*dl_ncclCommUserRank)
#define ncclCommFinalize         (*dl_ncclCommFinalize)
#define ncclCommDestroy          (*dl_ncclCommDestroy)
#define ncclCommAbort            (*dl_ncclCommAbort)
#define ncclCommRegister         (*dl_ncclCommRegister)
#define ncclCommDeregister       (*dl_ncclCommDeregister)
#define ncclMemAlloc             (*dl_ncclMemAlloc)
#define ncclMemFree              (*dl_ncclMemFree)
#define ncclGroupStart           (*dl_ncclGroupStart)
#define ncclGroupEnd             (*dl_ncclGroupEnd)
#define ncclAllReduce            (*dl_ncclAllReduce)
#define ncclAllGather            (*dl_ncclAllGather)
#define ncclReduceScatter        (*dl_ncclReduceScatter)
#define ncclBroadcast            (*dl_ncclBroadcast)
#define ncclSend                 (*dl_ncclSend)
#define ncclRecv                 (*dl_ncclRecv)

int
mcinit_nccl_runtime_version(void)
{
	int x = 0;

	return nccl_load(NULL) == 0 && ncclGetVersion(&x) == ncclSuccess ? x : 0;
}

const char *
mcinit_nccl_path(void)
{
	return nccl_load(NULL) == 0 ? nccl_found.used.file : "";
}

const struct mcinit_dl_found *
mcinit_nccl_found(void)
{
	pthread_once(&nccl_once, nccl_open);
	return &nccl_found;
}

const char *
mcinit_nccl_missing(void)
{
	return nccl_load(NULL) == 0 ? NULL : nccl_why;
}

struct ncomm {
	ncclComm_t c;
	cudaStream_t s; /* created on first use */
	int high;       /* is_high_priority_stream */
	int64_t *word;  /* verify's all-reduce buffer, allocated once */
	float *sb, *rb; /* the bandwidth sweep's buffers, grown to the largest size */
	size_t nb;      /* their size in bytes */
	int ended;      /* ncclCommAbort was called on c */
};

static int
nccl_fail(struct mcinit_err *err, const char *what, ncclResult_t r, ncclComm_t c)
{
	const char *last = c ? ncclGetLastError(c) : ncclGetLastError(NULL);

	return mcinit_err_set(err, MCINIT_E_OS, "%s: %s%s%s", what, ncclGetErrorString(r),
	                      last && *last ? ": " : "", last ? last : "");
}

static int
cuda_fail(struct mcinit_err *err, const char *what, cudaError_t r)
{
	return mcinit_err_set(err, MCINIT_E_OS, "%s: %s: %s", what, cudaGetErrorName(r),
	                      cudaGetErrorString(r));
}

static int
nccl_unique_id(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err)
{
	ncclUniqueId u;
	ncclResult_t r;

	if (nccl_load(err) != 0)
		return -1;
	if ((r = ncclGetUniqueId(&u)) != ncclSuccess)
		return nccl_fail(err, "ncclGetUniqueId", r, NULL);
	memcpy(id, u.internal, MCINIT_NCCL_ID_BYTES);
	return 0;
}

/* NCCL_CONFIG_INITIALIZER, non-blocking unless o asks for blocking, with
 * the group's options. */
static ncclConfig_t
config_of(const struct mcinit_nccl_opts *o)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;

	cfg.blocking = 0;
	if (!o)
		return cfg;
	cfg.blocking = o->blocking ? 1 : 0;
	cfg.cgaClusterSize = o->cga_cluster_size;
	cfg.minCTAs = o->min_ctas;
	cfg.maxCTAs = o->max_ctas;
	/* static strings: NCCL may read netName after the call returns */
	if (strcmp(o->net_name, "IB") == 0)
		cfg.netName = "IB";
	else if (strcmp(o->net_name, "Socket") == 0)
		cfg.netName = "Socket";
	return cfg;
}

static struct ncomm *
ncomm_new(const struct mcinit_nccl_opts *o)
{
	struct ncomm *n = mcx_xcalloc(1, sizeof *n);

	n->high = o && o->high_priority;
	return n;
}

static int
nccl_init_start(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
                const struct mcinit_nccl_opts *o, struct mcinit_err *err)
{
	ncclConfig_t cfg = config_of(o);
	struct ncomm *n;
	ncclResult_t r;

	*comm = NULL;
	if (nccl_load(err) != 0)
		return -1;
	n = ncomm_new(o);
	if (nid <= 1) {
		ncclUniqueId id;

		memcpy(id.internal, ids, sizeof id.internal);
		r = ncclCommInitRankConfig(&n->c, nranks, id, rank, &cfg);
	} else if (!dl_ncclCommInitRankScalable) {
		free(n);
		return mcinit_err_set(err, MCINIT_E_INTERNAL,
		                      "%d NCCL ids, but this NCCL has no ncclCommInitRankScalable",
		                      nid);
	} else {
		ncclUniqueId *v = mcx_xcalloc((size_t)nid, sizeof *v);
		int i;

		for (i = 0; i < nid; i++)
			memcpy(v[i].internal, ids + (size_t)i * MCINIT_NCCL_ID_BYTES,
			       sizeof v[i].internal);
		r = ncclCommInitRankScalable(&n->c, nranks, rank, nid, v, &cfg);
		free(v);
	}
	if (r != ncclSuccess && r != ncclInProgress) {
		if (n->c)
			ncclCommAbort(n->c);
		free(n);
		*comm = NULL;
		return nccl_fail(
		    err, nid > 1 ? "ncclCommInitRankScalable" : "ncclCommInitRankConfig", r, NULL);
	}
	*comm = n;
	return 0;
}

static int
nccl_split_start(void *parent, int color, int key, const struct mcinit_nccl_opts *o, void **child,
                 struct mcinit_err *err)
{
	struct ncomm *p = parent, *n = ncomm_new(o);
	ncclConfig_t cfg = config_of(o);
	ncclResult_t r = ncclCommSplit(p->c, color, key, &n->c, &cfg);

	if (r != ncclSuccess && r != ncclInProgress) {
		/* NCCL may have written the failed child: ncclCommAbort it */
		if (n->c)
			ncclCommAbort(n->c);
		free(n);
		*child = NULL;
		return nccl_fail(err, "ncclCommSplit", r, p->c);
	}
	*child = n; /* n->c may still be NULL: wait on the parent, then the child */
	return 0;
}

static void *
nccl_handle(void *comm)
{
	return comm ? ((struct ncomm *)comm)->c : NULL;
}

static int
wait_comm(ncclComm_t c, double deadline, const char *what, struct mcinit_err *err)
{
	for (;;) {
		ncclResult_t st = ncclInProgress;
		ncclResult_t r = ncclCommGetAsyncError(c, &st);

		if (r != ncclSuccess)
			return nccl_fail(err, "ncclCommGetAsyncError", r, c);
		if (st == ncclSuccess)
			return 0;
		if (st != ncclInProgress)
			return nccl_fail(err, what, st, c);
		if (mcinit_now() > deadline)
			return mcinit_err_set(err, MCINIT_E_TIMEOUT,
			                      "%s: still in progress at the deadline", what);
		usleep(200);
	}
}

static int
nccl_wait(void *comm, double deadline, struct mcinit_err *err)
{
	struct ncomm *n = comm;

	if (!n->c)
		return mcinit_err_set(err, MCINIT_E_INTERNAL, "no NCCL communicator to wait for");
	return wait_comm(n->c, deadline, "communicator creation", err);
}

static int
nccl_info(void *comm, int *size, int *rank, struct mcinit_err *err)
{
	struct ncomm *n = comm;
	ncclResult_t r = ncclCommCount(n->c, size);

	if (r != ncclSuccess)
		return nccl_fail(err, "ncclCommCount", r, n->c);
	r = ncclCommUserRank(n->c, rank);
	return r == ncclSuccess ? 0 : nccl_fail(err, "ncclCommUserRank", r, n->c);
}

static int
stream_of(struct ncomm *n, struct mcinit_err *err)
{
	int least = 0, greatest = 0;
	cudaError_t r;

	if (n->s)
		return 0;
	r = cudaDeviceGetStreamPriorityRange(&least, &greatest);
	if (r == cudaSuccess)
		r = cudaStreamCreateWithPriority(&n->s, cudaStreamNonBlocking,
		                                 n->high ? greatest : least);
	return r == cudaSuccess ? 0 : cuda_fail(err, "cudaStreamCreateWithPriority", r);
}

/* Waits until the stream has run everything issued on it, within the
 * deadline.  The communicator first: a non-blocking communicator puts its
 * work on the stream from NCCL's own thread, once the call has returned
 * ncclInProgress, so the stream can look idle before the work is even on
 * it (and a read of the result then races the collective: issue 25's
 * defect 1).  Then the stream, until cudaStreamQuery says it is done,
 * which is also what orders the host's later reads after it. */
static int
sync_comm(struct ncomm *n, double deadline, const char *what, struct mcinit_err *err)
{
	if (wait_comm(n->c, deadline, what, err) != 0)
		return -1;
	for (;;) {
		cudaError_t q = cudaStreamQuery(n->s);
		ncclResult_t st = ncclSuccess;

		if (q == cudaSuccess) {
			/* done, but done how: a peer that died (ncclRemoteError)
			 * ends the kernel without a result; the buffer then holds
			 * nothing to read */
			if (ncclCommGetAsyncError(n->c, &st) == ncclSuccess && st != ncclSuccess &&
			    st != ncclInProgress)
				return nccl_fail(err, what, st, n->c);
			return 0;
		}
		if (q != cudaErrorNotReady)
			return cuda_fail(err, what, q);
		/* a failure NCCL reports while the kernel waits (a peer's ncclCommAbort) */
		if (ncclCommGetAsyncError(n->c, &st) == ncclSuccess && st != ncclSuccess &&
		    st != ncclInProgress)
			return nccl_fail(err, what, st, n->c);
		if (mcinit_now() > deadline)
			return mcinit_err_set(
			    err, MCINIT_E_TIMEOUT,
			    "%s: not finished at the deadline (a peer is missing?)", what);
		usleep(200);
	}
}

static int
nccl_allreduce(void *comm, long long value, long long *sum, double deadline, struct mcinit_err *err)
{
	struct ncomm *n = comm;
	int64_t v = value;
	cudaError_t cr;
	ncclResult_t r;

	if (stream_of(n, err) != 0)
		return -1;
	/* once per communicator, freed by _destroy: a cudaFree here would wait
	 * for whatever kernel is stuck on the device, with no deadline */
	if (!n->word && (cr = cudaMalloc((void **)&n->word, sizeof *n->word)) != cudaSuccess)
		return cuda_fail(err, "cudaMalloc", cr);
	cr = cudaMemcpyAsync(n->word, &v, sizeof v, cudaMemcpyHostToDevice, n->s);
	if (cr != cudaSuccess)
		return cuda_fail(err, "cudaMemcpyAsync", cr);
	r = ncclAllReduce(n->word, n->word, 1, ncclInt64, ncclSum, n->c, n->s);
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail(err, "ncclAllReduce", r, n->c);
	if (sync_comm(n, deadline, "ncclAllReduce", err) != 0)
		return -1;
	/* the stream is done and the host has seen it: this read is ordered */
	cr = cudaMemcpy(&v, n->word, sizeof v, cudaMemcpyDeviceToHost);
	if (cr != cudaSuccess)
		return cuda_fail(err, "cudaMemcpy", cr);
	*sum = v;
	return 0;
}

/* Ends a group of sends and receives: the first failure wins. */
static ncclResult_t
group_end(ncclResult_t r)
{
	ncclResult_t g = ncclGroupEnd();

	return r == ncclSuccess || r == ncclInProgress ? g : r;
}

/* One run of collective c over count floats (nccl-tests' buffers: `count`
 * is the whole buffer, each rank's share count/size). */
static ncclResult_t
coll_once(struct ncomm *n, enum mcinit_coll c, float *sb, float *rb, size_t count, int size,
          int rank)
{
	size_t part = count / (size_t)size;
	ncclResult_t r = ncclSuccess;
	int p;

	switch (c) {
	case MCINIT_COLL_ALL_GATHER:
		return ncclAllGather(sb, rb, part, ncclFloat, n->c, n->s);
	case MCINIT_COLL_REDUCE_SCATTER:
		return ncclReduceScatter(sb, rb, part, ncclFloat, ncclSum, n->c, n->s);
	case MCINIT_COLL_BROADCAST:
		return ncclBroadcast(sb, rb, count, ncclFloat, 0, n->c, n->s);
	case MCINIT_COLL_ALL_TO_ALL:
		if ((r = ncclGroupStart()) != ncclSuccess)
			return r;
		for (p = 0; p < size && (r == ncclSuccess || r == ncclInProgress); p++) {
			r = ncclSend(sb + (size_t)p * part, part, ncclFloat, p, n->c, n->s);
			if (r == ncclSuccess || r == ncclInProgress)
				r = ncclRecv(rb + (size_t)p * part, part, ncclFloat, p, n->c, n->s);
		}
		return group_end(r);
	case MCINIT_COLL_SEND_RECV:
		/* a ring: every pipeline stage sends to the next, receives from the previous */
		if ((r = ncclGroupStart()) != ncclSuccess)
			return r;
		r = ncclSend(sb, count, ncclFloat, (rank + 1) % size, n->c, n->s);
		if (r == ncclSuccess || r == ncclInProgress)
			r = ncclRecv(rb, count, ncclFloat, (rank + size - 1) % size, n->c, n->s);
		return group_end(r);
	default:
		return ncclAllReduce(sb, rb, count, ncclFloat, ncclSum, n->c, n->s);
	}
}

/* `iters` runs of c in one ncclGroupStart/ncclGroupEnd (nested groups
 * of sends and receives join it), on the stream once this returns 0. */
static int
group_runs(struct ncomm *n, enum mcinit_coll c, size_t count, int iters, double deadline,
           struct mcinit_err *err)
{
	ncclResult_t r, g;
	int size, rank, i;

	if (nccl_info(n, &size, &rank, err) != 0)
		return -1;
	if ((r = ncclGroupStart()) != ncclSuccess)
		return nccl_fail(err, "ncclGroupStart", r, n->c);
	for (i = 0; i < iters && (r == ncclSuccess || r == ncclInProgress); i++)
		r = coll_once(n, c, n->sb, n->rb, count, size, rank);
	g = ncclGroupEnd();
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail(err, mcinit_coll_name(c), r, n->c);
	if (g != ncclSuccess && g != ncclInProgress)
		return nccl_fail(err, "ncclGroupEnd", g, n->c);
	/* non-blocking: the group's work reaches the stream once this is done */
	return wait_comm(n->c, deadline, mcinit_coll_name(c), err);
}

/* nccl-tests' method: one warm-up run, then `iters` runs in one group
 * between two CUDA events on the communicator's stream.  Events only:
 * nothing holds the stream back while NCCL's thread puts the group on it.
 * A host function that gated the stream until the group was issued (so
 * that the host's issuing went untimed) deadlocked until the deadline on
 * large groups, because NCCL's launch thread waits for the device to drain
 * its work FIFO before it writes more (issue 40, defect 4).  The first
 * event may be stamped before the group reaches the stream: the launch is
 * timed, once per `iters` runs, as nccl-tests times it. */
static int
time_runs(struct ncomm *n, enum mcinit_coll c, size_t count, int iters, double deadline,
          double *seconds, struct mcinit_err *err)
{
	cudaEvent_t e0, e1;
	float ms = 0;
	int rc = -1;

	if (group_runs(n, c, count, 1, deadline, err) != 0 ||
	    sync_comm(n, deadline, mcinit_coll_name(c), err) != 0)
		return -1;
	if (cudaEventCreate(&e0) != cudaSuccess)
		return mcinit_err_set(err, MCINIT_E_OS, "cudaEventCreate failed");
	if (cudaEventCreate(&e1) != cudaSuccess) {
		cudaEventDestroy(e0);
		return mcinit_err_set(err, MCINIT_E_OS, "cudaEventCreate failed");
	}
	if (cudaEventRecord(e0, n->s) == cudaSuccess &&
	    group_runs(n, c, count, iters, deadline, err) == 0 &&
	    cudaEventRecord(e1, n->s) == cudaSuccess &&
	    sync_comm(n, deadline, mcinit_coll_name(c), err) == 0 &&
	    cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess) {
		*seconds = (double)ms / 1e3 / (iters > 0 ? iters : 1);
		rc = 0;
	}
	if (rc != 0 && err && !err->msg[0])
		mcinit_err_set(err, MCINIT_E_OS, "%s: CUDA events failed", mcinit_coll_name(c));
	/* after a timeout the stream may still hold a stuck run: destroying
	 * an event waits for nothing (cudaEventDestroy returns at once, the
	 * event is released once it completes) */
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return rc;
}

static int
nccl_time(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline, double *seconds,
          struct mcinit_err *err)
{
	struct ncomm *n = comm;
	size_t count = bytes / sizeof(float);
	cudaError_t cr;

	*seconds = 0;
	if (count == 0 || stream_of(n, err) != 0)
		return count == 0 ? mcinit_err_set(err, MCINIT_E_USAGE, "no bytes to time") : -1;
	if (bytes > n->nb) {
		/* grown between sizes, when the stream is idle (a sweep's sizes
		 * grow: at most once per size, never after a timeout) */
		cudaFree(n->sb);
		cudaFree(n->rb);
		n->sb = n->rb = NULL;
		n->nb = 0;
		cr = cudaMalloc((void **)&n->sb, count * sizeof *n->sb);
		if (cr == cudaSuccess)
			cr = cudaMalloc((void **)&n->rb, count * sizeof *n->rb);
		if (cr != cudaSuccess)
			return cuda_fail(err, "cudaMalloc", cr);
		n->nb = count * sizeof *n->sb;
		cudaMemsetAsync(n->sb, 0, n->nb, n->s);
	}
	return time_runs(n, c, count, iters, deadline, seconds, err);
}

static void
nccl_time_done(void *comm)
{
	struct ncomm *n = comm;

	/* after a sweep that succeeded: the stream is idle, no cudaFree waits */
	cudaFree(n->sb);
	cudaFree(n->rb);
	n->sb = n->rb = NULL;
	n->nb = 0;
}

static int
nccl_buffers(void *comm, size_t bytes, double deadline, struct mcinit_err *err)
{
	struct ncomm *n = comm;
	void *p = NULL, *h = NULL;
	ncclResult_t r = ncclMemAlloc(&p, bytes);
	int rc = 0;

	if (r != ncclSuccess)
		return nccl_fail(err, "ncclMemAlloc", r, n->c);
	r = ncclCommRegister(n->c, p, bytes, &h);
	if (r == ncclInProgress)
		r = wait_comm(n->c, deadline, "ncclCommRegister", err) ? ncclSystemError
		                                                       : ncclSuccess;
	if (r != ncclSuccess)
		rc = nccl_fail(err, "ncclCommRegister", r, n->c);
	else if ((r = ncclCommDeregister(n->c, h)) != ncclSuccess && r != ncclInProgress)
		rc = nccl_fail(err, "ncclCommDeregister", r, n->c);
	ncclMemFree(p);
	return rc;
}

/* The communicator's own device memory: after its end (ncclCommAbort ends
 * its kernels; a stuck one would make cudaFree wait). */
static void
free_buffers(struct ncomm *n)
{
	cudaFree(n->word);
	cudaFree(n->sb);
	cudaFree(n->rb);
}

static int
nccl_destroy(void *comm, double deadline, int hard, void *ctx)
{
	struct ncomm *n = comm;
	struct mcinit_err e;
	int rc = 0;

	(void)ctx;
	if (!n)
		return 0;
	if (hard == MCINIT_END_ABORT || (hard && n->c)) {
		/* a split child's c appears once its parent's job is done: after
		 * the parent's ncclCommAbort at the latest */
		if (n->c && !n->ended)
			ncclCommAbort(n->c);
		n->ended = n->c != NULL;
		if (hard == MCINIT_END_ABORT)
			return 0;
	} else if (n->c && !n->ended) {
		/* finalize needs every peer: bounded, then ncclCommAbort */
		ncclResult_t r = ncclCommFinalize(n->c);

		if ((r == ncclSuccess || r == ncclInProgress) &&
		    wait_comm(n->c, deadline, "ncclCommFinalize", &e) == 0) {
			/* a failed ncclCommDestroy may have freed it: no ncclCommAbort */
			if (ncclCommDestroy(n->c) != ncclSuccess)
				rc = -1;
		} else {
			ncclCommAbort(n->c);
			rc = -1;
		}
	}
	free_buffers(n);
	if (n->s)
		cudaStreamDestroy(n->s);
	free(n);
	return rc;
}

/* The backend (gpu.h). */
const struct mcinit_gpu_ops mcinit_gpu_builtin = {
    .count = mcinit_cuda_count,
    .versions = mcinit_cuda_versions,
    .select = mcinit_cuda_select,
    .busid = mcinit_cuda_busid,
    .props = mcinit_cuda_props,
    .unique_id = nccl_unique_id,
    .init_start = nccl_init_start,
    .split_start = nccl_split_start,
    .wait = nccl_wait,
    .handle = nccl_handle,
    .info = nccl_info,
    .allreduce = nccl_allreduce,
    .time = nccl_time,
    .buffers = nccl_buffers,
    .time_done = nccl_time_done,
    .destroy = nccl_destroy,
};
