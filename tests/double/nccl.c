/* nccl.c — the test double of NCCL, libnccl.so.2: the calls mcinit makes,
 * over processes on one machine.  A communicator is a shared-memory
 * segment (/dev/shm/mcd-TAG-ID...), one slot per rank; a collective is an
 * exchange through the slots, run on the caller's stream (the double's
 * libcudart) when every rank has posted.
 *
 * Faithful where bugs hide:
 *   - a non-blocking communicator (config.blocking = 0) returns
 *     ncclInProgress from init, split, finalize and every collective; a
 *     worker thread finishes the call later (for a collective: puts it on
 *     the stream ~1 ms later, as NCCL's group thread does), and
 *     ncclCommGetAsyncError says when;
 *   - no new call while the communicator is in progress, and no call on a
 *     communicator after ncclCommDestroy or ncclCommAbort: reported as a
 *     misuse, the process fails;
 *   - two ranks of one communicator on one GPU of one host (NCCL_HOSTID, or
 *     the host name) fail with ncclInvalidUsage, as NCCL's duplicate-GPU
 *     check does;
 *   - ncclCommSplit with NCCL_SPLIT_NOCOLOR gives NULL; a split that fails
 *     still writes its child (NCCL 2.28.9's init.cc does), which the caller
 *     must abort, and a child never ended is reported at exit;
 *   - ncclCommAbort ends what waits for peers; it and ncclCommDestroy free
 *     the communicator's device memory, so they synchronize the device
 *     (cudaFree): they wait for a collective stuck on another communicator;
 *   - a peer that has exited makes the communicator fail with
 *     ncclRemoteError;
 *   - NCCL's launch thread waits for the device to drain its work FIFO: a
 *     group of more than MCDOUBLE_FIFO (8) operations reaches the stream
 *     only as the stream runs the earlier ones.
 * Not faithful: at most 64 KiB of each rank's buffer is exchanged (larger
 * collectives move their first 64 KiB: enough for mcinit's checks, cheap
 * for its bandwidth sweep); send/receive pairs in a group exchange as one
 * collective of every rank of the communicator; only ncclSum.
 *
 * Faults (MCDOUBLE_FAULT, for the process whose $RANK is R):
 *   nojoin@R      its ncclCommInitRank* never joins (stays in progress);
 *   hang@R:N      its N-th collective never completes (until abort);
 *   splithang@R   its ncclCommSplit never completes (until abort);
 *   destroy@R     ncclCommDestroy fails (after freeing, as NCCL may). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "double.h"

#define API __attribute__((visibility("default")))

/* The release this build plays (Makefile.am's personalities): what
 * ncclGetVersion says, and which calls of later releases exist.  Only the
 * calls mcinit may look up differ: ncclCommInitRankScalable came in 2.23,
 * ncclCommShrink and ncclCommWindowRegister in 2.27. */
#ifndef MCD_NCCL_VERSION
#define MCD_NCCL_VERSION NCCL_VERSION_CODE
#endif
#define MAXR   64
#define SLOT   (64 * 1024)
#define MAGIC  "MCDOUBLE"
#define JOINED 0x6a6f696e6564ULL

struct slot {
	uint64_t joined, posted, done;
	uint64_t nbytes[2];
	int dev;
	int pid; /* for peer death: ncclRemoteError */
	char host[64];
	char data[2][SLOT];
};

struct seg {
	uint64_t nranks;
	struct slot s[MAXR];
};

struct ncclComm {
	uint64_t magic; /* JOINED while alive */
	struct seg *seg;
	char name[200];
	int rank, nranks, nonblocking, nsplit, dev;
	uint64_t cseq; /* collectives issued */
	int state;     /* ncclResult_t, atomic */
	int abort;     /* atomic */
	int has_worker;
	int failed_split; /* written by a failed split: must be aborted */
	void *devmem;     /* NCCL's own device memory: freed by abort/destroy */
	pthread_t worker;
	struct ncclComm *next; /* every communicator ever made */
};

static pthread_mutex_t G = PTHREAD_MUTEX_INITIALIZER;
static struct ncclComm *comms;
static char last_err[512]; /* NCCL's is per communicator and thread; one here */
static int ncoll;          /* this process's collectives, for hang@ */

/* ---- faults ---- */

static int
fault(const char *kind, int *arg)
{
	const char *f = getenv("MCDOUBLE_FAULT"), *r = getenv("RANK");
	char want[64];
	size_t n;

	if (!f || !r)
		return 0;
	n = (size_t)snprintf(want, sizeof want, "%s@%s", kind, r);
	for (; (f = strstr(f, want)) != NULL; f += n)
		if (f[n] == '\0' || f[n] == ',' || f[n] == ':') {
			if (arg)
				*arg = f[n] == ':' ? atoi(f + n + 1) : 1;
			return 1;
		}
	return 0;
}

/* ---- communicators ---- */

static void
check(struct ncclComm *c, const char *api, void *site)
{
	struct ncclComm *k;

	pthread_mutex_lock(&G);
	for (k = comms; k && k != c; k = k->next)
		;
	pthread_mutex_unlock(&G);
	if (!c || !k)
		mcd_misuse(site, "%s(%p): not a communicator", api, (void *)c);
	if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != JOINED)
		mcd_misuse(site, "%s(%p): the communicator was destroyed or aborted", api,
		           (void *)c);
}

static void
busy_check(struct ncclComm *c, const char *api, void *site)
{
	check(c, api, site);
	if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == ncclInProgress)
		mcd_misuse(site,
		           "%s on non-blocking communicator %s while it is still in progress "
		           "(ncclCommGetAsyncError did not say ncclSuccess yet)",
		           api, c->name);
}

static struct ncclComm *
comm_new(const char *name, int rank, int nranks, int nonblocking)
{
	struct ncclComm *c = calloc(1, sizeof *c);

	if (!c)
		abort();
	snprintf(c->name, sizeof c->name, "%s", name);
	c->rank = rank;
	c->nranks = nranks;
	c->nonblocking = nonblocking;
	c->dev = mcd_device(); /* the caller's: a worker thread has none */
	c->state = ncclInProgress;
	c->magic = JOINED;
	/* as NCCL's: ncclCommAbort and ncclCommDestroy free it (a cudaFree,
	 * which synchronizes the device) */
	cudaMalloc(&c->devmem, 256);
	pthread_mutex_lock(&G);
	c->next = comms;
	comms = c;
	pthread_mutex_unlock(&G);
	return c;
}

/* A joined peer of c whose process has exited: its rank, else -1. */
static int
dead_peer(struct ncclComm *c)
{
	int r;

	if (!c->seg)
		return -1;
	for (r = 0; r < c->nranks; r++) {
		int pid = __atomic_load_n(&c->seg->s[r].pid, __ATOMIC_ACQUIRE);

		if (r != c->rank && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
			return r;
	}
	return -1;
}

/* Waits for cond(c, arg) until it holds (0), c is aborted (-1), or a peer
 * has exited (-1, and c fails with ncclRemoteError, as NCCL's proxy
 * reports a closed connection). */
static int
wait_for(struct ncclComm *c, int (*cond)(struct ncclComm *, uint64_t), uint64_t arg)
{
	unsigned n = 0;
	int r;

	while (!cond(c, arg)) {
		if (__atomic_load_n(&c->abort, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == ncclRemoteError)
			return -1;
		if (++n % 2000 == 0 && (r = dead_peer(c)) >= 0) {
			snprintf(last_err, sizeof last_err,
			         "peer rank %d of %s (pid %d) exited: connection closed", r,
			         c->name, c->seg->s[r].pid);
			__atomic_store_n(&c->state, (int)ncclRemoteError, __ATOMIC_RELEASE);
			return -1;
		}
		usleep(50);
	}
	return 0;
}

static int
all_joined(struct ncclComm *c, uint64_t unused)
{
	int r;

	(void)unused;
	for (r = 0; r < c->nranks; r++)
		if (__atomic_load_n(&c->seg->s[r].joined, __ATOMIC_ACQUIRE) != JOINED)
			return 0;
	return 1;
}

/* Maps the segment of `name`, posts this rank, waits for the others. */
static ncclResult_t
join(struct ncclComm *c)
{
	char path[256];
	struct slot *me;
	const char *hid = getenv("NCCL_HOSTID");
	int fd, r;

	snprintf(path, sizeof path, "/%s", c->name);
	fd = shm_open(path, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(struct seg)) != 0) {
		snprintf(last_err, sizeof last_err, "shm_open %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ncclSystemError;
	}
	c->seg = mmap(NULL, sizeof(struct seg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (c->seg == MAP_FAILED) {
		c->seg = NULL;
		return ncclSystemError;
	}
	if (fault("nojoin", NULL)) {
		while (!__atomic_load_n(&c->abort, __ATOMIC_ACQUIRE))
			usleep(1000);
		return ncclInternalError;
	}
	me = &c->seg->s[c->rank];
	me->dev = c->dev;
	__atomic_store_n(&me->pid, (int)getpid(), __ATOMIC_RELEASE);
	if (hid && *hid)
		snprintf(me->host, sizeof me->host, "%s", hid);
	else
		gethostname(me->host, sizeof me->host);
	__atomic_store_n(&c->seg->nranks, (uint64_t)c->nranks, __ATOMIC_RELEASE);
	__atomic_store_n(&me->joined, JOINED, __ATOMIC_RELEASE);
	if (wait_for(c, all_joined, 0) != 0)
		return ncclInternalError;
	for (r = 0; r < c->nranks; r++)
		if (r != c->rank && c->seg->s[r].dev == me->dev &&
		    strcmp(c->seg->s[r].host, me->host) == 0) {
			snprintf(last_err, sizeof last_err,
			         "Duplicate GPU detected : rank %d and rank %d both on CUDA device "
			         "%d of host %s",
			         c->rank, r, me->dev, me->host);
			return ncclInvalidUsage;
		}
	if (c->rank == 0)
		shm_unlink(path); /* everyone has it mapped */
	return ncclSuccess;
}

/* ---- non-blocking calls: a worker thread finishes them ---- */

struct work {
	struct ncclComm *c;
	ncclResult_t (*fn)(struct ncclComm *, void *);
	void *arg;
};

static void *
work_main(void *p)
{
	struct work *w = p;
	ncclResult_t r = w->fn(w->c, w->arg);

	/* a peer's death seen meanwhile stays the communicator's error */
	if (r == ncclSuccess && __atomic_load_n(&w->c->state, __ATOMIC_ACQUIRE) == ncclRemoteError)
		r = ncclRemoteError;
	__atomic_store_n(&w->c->state, (int)r, __ATOMIC_RELEASE);
	free(w);
	return NULL;
}

static void
join_worker(struct ncclComm *c)
{
	if (c->has_worker) {
		pthread_join(c->worker, NULL);
		c->has_worker = 0;
	}
}

/* Runs fn now (blocking communicator) or on a worker (ncclInProgress). */
static ncclResult_t
start(struct ncclComm *c, ncclResult_t (*fn)(struct ncclComm *, void *), void *arg)
{
	struct work *w;
	ncclResult_t r;

	join_worker(c); /* done: the communicator was not in progress */
	__atomic_store_n(&c->state, ncclInProgress, __ATOMIC_RELEASE);
	if (!c->nonblocking) {
		r = fn(c, arg);
		__atomic_store_n(&c->state, (int)r, __ATOMIC_RELEASE);
		return r;
	}
	w = calloc(1, sizeof *w);
	w->c = c;
	w->fn = fn;
	w->arg = arg;
	c->has_worker = 1;
	pthread_create(&c->worker, NULL, work_main, w);
	return ncclInProgress;
}

static ncclResult_t
do_join(struct ncclComm *c, void *unused)
{
	(void)unused;
	return join(c);
}

/* ---- the exchange ---- */

static int
own_done(struct ncclComm *c, uint64_t k)
{
	return __atomic_load_n(&c->seg->s[c->rank].done, __ATOMIC_ACQUIRE) >= k;
}

static int
all_done(struct ncclComm *c, uint64_t k)
{
	int r;

	for (r = 0; r < c->nranks; r++)
		if (__atomic_load_n(&c->seg->s[r].done, __ATOMIC_ACQUIRE) < k)
			return 0;
	return 1;
}

static int
all_posted(struct ncclComm *c, uint64_t k)
{
	int r;

	for (r = 0; r < c->nranks; r++)
		if (__atomic_load_n(&c->seg->s[r].posted, __ATOMIC_ACQUIRE) < k)
			return 0;
	return 1;
}

static int
never(struct ncclComm *c, uint64_t k)
{
	(void)c, (void)k;
	return 0;
}

typedef void (*use_fn)(struct ncclComm *c, int b, void *ctx);

/* Collective k of c: posts n bytes (at most SLOT), waits for every rank's,
 * lets use() read them from buffer b.  In issue order within a process. */
static int
exchange(struct ncclComm *c, uint64_t k, const void *mine, size_t n, use_fn use, void *ctx)
{
	struct slot *me = &c->seg->s[c->rank];
	int b = (int)(k % 2);

	if (wait_for(c, own_done, k - 1) != 0 || wait_for(c, all_done, k >= 2 ? k - 2 : 0) != 0)
		return -1;
	if (n > SLOT)
		n = SLOT;
	if (n)
		memcpy(me->data[b], mine, n);
	me->nbytes[b] = n;
	__atomic_store_n(&me->posted, k, __ATOMIC_RELEASE);
	if (wait_for(c, all_posted, k) != 0)
		return -1;
	if (use)
		use(c, b, ctx);
	__atomic_store_n(&me->done, k, __ATOMIC_RELEASE);
	return 0;
}

/* ---- collectives ---- */

enum kind { K_ALLREDUCE, K_ALLGATHER, K_REDUCESCATTER, K_BROADCAST, K_SEND, K_RECV };

struct coll {
	enum kind kind;
	const char *sb;
	char *rb;
	size_t count; /* elements (per rank for all-gather, reduce-scatter) */
	ncclDataType_t dt;
	int peer; /* root, or the peer of a send/receive */
	struct ncclComm *c;
	cudaStream_t s;
	uint64_t k;
	void *site;
	struct coll *more; /* the other sends and receives of one group */
};

static size_t
dt_size(ncclDataType_t dt)
{
	switch (dt) {
	case ncclInt8:
	case ncclUint8:
	case ncclFloat8e4m3:
	case ncclFloat8e5m2:
		return 1;
	case ncclFloat16:
	case ncclBfloat16:
		return 2;
	case ncclInt32:
	case ncclUint32:
	case ncclFloat32:
		return 4;
	default:
		return 8;
	}
}

static size_t
cap(size_t bytes)
{
	return bytes < SLOT ? bytes : SLOT;
}

/* out[i] = sum over the ranks of their element at byte offset off + i */
static void
reduce(struct ncclComm *c, int b, ncclDataType_t dt, size_t off, char *out, size_t bytes)
{
	size_t i, e = dt_size(dt), n = bytes / e;
	int r;

	for (i = 0; i < n; i++) {
		double f = 0;
		int64_t s = 0;

		for (r = 0; r < c->nranks; r++) {
			const char *p = c->seg->s[r].data[b] + off + i * e;

			if (off + (i + 1) * e > c->seg->s[r].nbytes[b])
				continue;
			if (dt == ncclFloat32)
				f += *(const float *)p;
			else if (dt == ncclFloat64)
				f += *(const double *)p;
			else if (dt == ncclInt32 || dt == ncclUint32)
				s += *(const int32_t *)p;
			else if (dt == ncclInt64 || dt == ncclUint64)
				s += *(const int64_t *)p;
		}
		if (dt == ncclFloat32)
			*(float *)(out + i * e) = (float)f;
		else if (dt == ncclFloat64)
			*(double *)(out + i * e) = f;
		else if (dt == ncclInt32 || dt == ncclUint32)
			*(int32_t *)(out + i * e) = (int32_t)s;
		else if (dt == ncclInt64 || dt == ncclUint64)
			*(int64_t *)(out + i * e) = s;
	}
}

static void
use_coll(struct ncclComm *c, int b, void *ctx)
{
	struct coll *x = ctx;
	size_t e = dt_size(x->dt), part = x->count * e;
	int r;

	switch (x->kind) {
	case K_ALLREDUCE:
		reduce(c, b, x->dt, 0, x->rb, cap(part));
		break;
	case K_REDUCESCATTER:
		if ((size_t)c->rank * part < SLOT)
			reduce(c, b, x->dt, (size_t)c->rank * part, x->rb,
			       cap((size_t)c->rank * part + part) - (size_t)c->rank * part);
		break;
	case K_ALLGATHER:
		for (r = 0; r < c->nranks; r++)
			memcpy(x->rb + (size_t)r * part, c->seg->s[r].data[b],
			       c->seg->s[r].nbytes[b]);
		break;
	case K_BROADCAST:
		memcpy(x->rb, c->seg->s[x->peer].data[b], c->seg->s[x->peer].nbytes[b]);
		break;
	default:
		break;
	}
}

/* Sends and receives: each rank posts [peer, bytes, data]... ; a receive
 * from p takes p's next message to this rank. */
static void
use_p2p(struct ncclComm *c, int b, void *ctx)
{
	struct coll *x;
	int seen[MAXR] = {0};

	for (x = ctx; x; x = x->more) {
		const char *p, *end;
		int skip;

		if (x->kind != K_RECV)
			continue;
		p = c->seg->s[x->peer].data[b];
		end = p + c->seg->s[x->peer].nbytes[b];
		skip = seen[x->peer]++;
		while (p + 2 * sizeof(uint64_t) <= end) {
			uint64_t to, n;

			memcpy(&to, p, sizeof to);
			memcpy(&n, p + sizeof to, sizeof n);
			p += 2 * sizeof to;
			if ((int)to == c->rank && skip-- == 0) {
				memcpy(x->rb, p,
				       n < x->count * dt_size(x->dt) ? n
				                                     : x->count * dt_size(x->dt));
				break;
			}
			p += n;
		}
	}
}

static int
run_coll(void *arg)
{
	struct coll *x = arg, *y;
	size_t e = dt_size(x->dt);
	int rc, nth = 0;

	if (fault("hang", &nth) && __atomic_add_fetch(&ncoll, 1, __ATOMIC_ACQ_REL) == nth)
		rc = wait_for(x->c, never, 0);
	else if (x->kind == K_SEND || x->kind == K_RECV) {
		char *buf = malloc(SLOT), *p = buf;

		for (y = x; y; y = y->more) {
			uint64_t to = (uint64_t)y->peer, n = y->count * e;

			if (y->kind != K_SEND)
				continue;
			if (p + 2 * sizeof to + n > buf + SLOT)
				n = p + 2 * sizeof to < buf + SLOT
				        ? (uint64_t)(buf + SLOT - p) - 2 * sizeof to
				        : 0;
			if (p + 2 * sizeof to > buf + SLOT)
				break;
			memcpy(p, &to, sizeof to);
			memcpy(p + sizeof to, &n, sizeof n);
			memcpy(p + 2 * sizeof to, y->sb, n);
			p += 2 * sizeof to + n;
		}
		rc = exchange(x->c, x->k, buf, (size_t)(p - buf), use_p2p, x);
		free(buf);
	} else {
		size_t n =
		    x->kind == K_REDUCESCATTER ? x->count * e * (size_t)x->c->nranks : x->count * e;

		if (x->kind == K_BROADCAST && x->c->rank != x->peer)
			n = 0;
		rc = exchange(x->c, x->k, x->sb, n, use_coll, x);
	}
	while (x) {
		y = x->more;
		free(x);
		x = y;
	}
	return rc;
}

/* ---- groups ---- */

static __thread int depth;
static __thread struct coll *pending; /* issued in this group, in order */

static size_t
writes(const struct coll *x)
{
	size_t e = dt_size(x->dt);

	switch (x->kind) {
	case K_ALLGATHER:
		return x->count * e * (size_t)x->c->nranks;
	case K_SEND:
		return 0;
	default:
		return x->count * e;
	}
}

struct launch {
	struct mcd_op **ops;
	cudaStream_t *st;
	unsigned long *seq;
	int n, cap;
};

static void
add_op(struct launch *l, struct mcd_op *op, cudaStream_t s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->ops = realloc(l->ops, (size_t)l->cap * sizeof *l->ops);
		l->st = realloc(l->st, (size_t)l->cap * sizeof *l->st);
		l->seq = realloc(l->seq, (size_t)l->cap * sizeof *l->seq);
	}
	l->st[l->n] = s;
	l->ops[l->n++] = op;
}

static ncclResult_t
do_launch(struct ncclComm *c, void *arg)
{
	struct launch *l = arg;
	const char *f = getenv("MCDOUBLE_FIFO");
	int i, fifo = f && *f ? atoi(f) : 8;

	/* NCCL's group thread: the stream gets the work later */
	usleep(getenv("MCDOUBLE_LAUNCH_US") ? (useconds_t)atoi(getenv("MCDOUBLE_LAUNCH_US"))
	                                    : 2000);
	for (i = 0; i < l->n; i++) {
		/* the work FIFO holds `fifo` operations: the thread waits for
		 * the device to run the oldest before it writes another (until
		 * an abort, after which what is left fails at once) */
		if (fifo > 0 && i >= fifo)
			while (!mcd_done(l->st[i - fifo], l->seq[i - fifo]) &&
			       !__atomic_load_n(&c->abort, __ATOMIC_ACQUIRE))
				usleep(50);
		l->seq[i] = mcd_queue(l->ops[i]);
	}
	free(l->ops);
	free(l->st);
	free(l->seq);
	free(l);
	return ncclSuccess;
}

static const char *
kind_name(enum kind k)
{
	static const char *const n[] = {"ncclAllReduce", "ncclAllGather", "ncclReduceScatter",
	                                "ncclBroadcast", "ncclSend",      "ncclRecv"};
	return n[k];
}

/* Announces the group's work (its memory is the GPU's from now on) and
 * queues it: now, or from a worker on a non-blocking communicator. */
static ncclResult_t
launch_group(void)
{
	struct coll *x = pending, *p2p = NULL, *next;
	struct launch *l = calloc(1, sizeof *l);
	struct ncclComm *c = x ? x->c : NULL;
	ncclResult_t r;

	pending = NULL;
	for (; x; x = next) {
		next = x->more;
		x->more = NULL;
		if (x->kind == K_SEND || x->kind == K_RECV) {
			/* one exchange for the group's sends and receives */
			if (p2p) {
				struct coll *t = p2p;

				while (t->more)
					t = t->more;
				t->more = x;
				if (writes(x))
					add_op(l,
					       mcd_announce(x->s, NULL, NULL, x->rb, writes(x),
					                    kind_name(x->kind), x->site),
					       x->s);
				continue;
			}
			p2p = x;
		}
		x->k = ++x->c->cseq;
		add_op(l,
		       mcd_announce(x->s, run_coll, x, writes(x) ? x->rb : NULL, writes(x),
		                    kind_name(x->kind), x->site),
		       x->s);
	}
	if (!c) {
		free(l);
		return ncclSuccess;
	}
	r = start(c, do_launch, l);
	return r;
}

API ncclResult_t
ncclGroupStart(void)
{
	depth++;
	return ncclSuccess;
}

API ncclResult_t
ncclGroupEnd(void)
{
	if (depth == 0)
		return ncclInvalidUsage;
	if (--depth > 0)
		return ncclSuccess;
	return launch_group();
}

static ncclResult_t
issue(enum kind kind, const void *sb, void *rb, size_t count, ncclDataType_t dt, int peer,
      ncclComm_t c, cudaStream_t s, void *site)
{
	struct coll *x, **pp;

	busy_check(c, kind_name(kind), site);
	if (peer < 0 || peer >= c->nranks) {
		snprintf(last_err, sizeof last_err, "%s: peer/root %d of %d ranks", kind_name(kind),
		         peer, c->nranks);
		return ncclInvalidArgument;
	}
	x = calloc(1, sizeof *x);
	x->kind = kind;
	x->sb = sb;
	x->rb = rb;
	x->count = count;
	x->dt = dt;
	x->peer = peer;
	x->c = c;
	x->s = s;
	x->site = site;
	for (pp = &pending; *pp; pp = &(*pp)->more)
		;
	*pp = x;
	return depth ? ncclSuccess : launch_group();
}

API ncclResult_t
ncclAllReduce(const void *sb, void *rb, size_t count, ncclDataType_t dt, ncclRedOp_t op,
              ncclComm_t c, cudaStream_t s)
{
	if (op != ncclSum)
		return ncclInvalidArgument;
	return issue(K_ALLREDUCE, sb, rb, count, dt, 0, c, s, __builtin_return_address(0));
}

API ncclResult_t
ncclAllGather(const void *sb, void *rb, size_t count, ncclDataType_t dt, ncclComm_t c,
              cudaStream_t s)
{
	return issue(K_ALLGATHER, sb, rb, count, dt, 0, c, s, __builtin_return_address(0));
}

API ncclResult_t
ncclReduceScatter(const void *sb, void *rb, size_t count, ncclDataType_t dt, ncclRedOp_t op,
                  ncclComm_t c, cudaStream_t s)
{
	if (op != ncclSum)
		return ncclInvalidArgument;
	return issue(K_REDUCESCATTER, sb, rb, count, dt, 0, c, s, __builtin_return_address(0));
}

API ncclResult_t
ncclBroadcast(const void *sb, void *rb, size_t count, ncclDataType_t dt, int root, ncclComm_t c,
              cudaStream_t s)
{
	return issue(K_BROADCAST, sb, rb, count, dt, root, c, s, __builtin_return_address(0));
}

API ncclResult_t
ncclSend(const void *sb, size_t count, ncclDataType_t dt, int peer, ncclComm_t c, cudaStream_t s)
{
	return issue(K_SEND, sb, NULL, count, dt, peer, c, s, __builtin_return_address(0));
}

API ncclResult_t
ncclRecv(void *rb, size_t count, ncclDataType_t dt, int peer, ncclComm_t c, cudaStream_t s)
{
	return issue(K_RECV, NULL, rb, count, dt, peer, c, s, __builtin_return_address(0));
}

/* ---- creation ---- */

API ncclResult_t
ncclGetVersion(int *v)
{
	const char *e = getenv("MCDOUBLE_NCCL_VERSION");

	*v = e && *e ? atoi(e) : MCD_NCCL_VERSION;
	return ncclSuccess;
}

API const char *
ncclGetErrorString(ncclResult_t r)
{
	static const char *const s[] = {"no error",
	                                "unhandled cuda error",
	                                "unhandled system error",
	                                "internal error",
	                                "invalid argument",
	                                "invalid usage",
	                                "remote process exited or there was a network error",
	                                "NCCL operation in progress"};
	return (unsigned)r < sizeof s / sizeof *s ? s[r] : "unknown result code";
}

API const char *
ncclGetLastError(ncclComm_t c)
{
	(void)c;
	return last_err;
}

API ncclResult_t
ncclGetUniqueId(ncclUniqueId *id)
{
	unsigned char r[12];
	int fd = open("/dev/urandom", O_RDONLY), i;

	memset(id, 0, sizeof *id);
	if (fd < 0 || read(fd, r, sizeof r) != (ssize_t)sizeof r) {
		if (fd >= 0)
			close(fd);
		return ncclSystemError;
	}
	close(fd);
	memcpy(id->internal, MAGIC, 8);
	for (i = 0; i < 12; i++)
		snprintf(id->internal + 8 + 2 * i, 3, "%02x", r[i]);
	return ncclSuccess;
}

static ncclResult_t
init(ncclComm_t *out, int nranks, const ncclUniqueId *id, int rank, ncclConfig_t *cfg)
{
	const char *tag = getenv("MCDOUBLE_TAG");
	char name[128];
	struct ncclComm *c;

	*out = NULL;
	if (memcmp(id->internal, MAGIC, 8) != 0) {
		snprintf(last_err, sizeof last_err, "not an id from the double's ncclGetUniqueId");
		return ncclInvalidArgument;
	}
	if (nranks < 1 || nranks > MAXR || rank < 0 || rank >= nranks) {
		snprintf(last_err, sizeof last_err, "rank %d of %d (the double takes %d)", rank,
		         nranks, MAXR);
		return ncclInvalidArgument;
	}
	snprintf(name, sizeof name, "mcd-%s-%.24s", tag && *tag ? tag : "x", id->internal + 8);
	c = comm_new(name, rank, nranks, cfg && cfg->blocking == 0);
	*out = c;
	return start(c, do_join, NULL);
}

API ncclResult_t
ncclCommInitRankConfig(ncclComm_t *c, int nranks, ncclUniqueId id, int rank, ncclConfig_t *cfg)
{
	return init(c, nranks, &id, rank, cfg);
}

API ncclResult_t
ncclCommInitRank(ncclComm_t *c, int nranks, ncclUniqueId id, int rank)
{
	return init(c, nranks, &id, rank, NULL);
}

#if MCD_NCCL_VERSION >= 22300
API ncclResult_t
ncclCommInitRankScalable(ncclComm_t *c, int nranks, int rank, int nid, ncclUniqueId *ids,
                         ncclConfig_t *cfg)
{
	if (nid < 1 || !ids)
		return ncclInvalidArgument;
	return init(c, nranks, &ids[0], rank, cfg);
}
#endif

#if MCD_NCCL_VERSION >= 22700
/* present, as in 2.27 and later; mcinit does not call them */
API ncclResult_t
ncclCommShrink(ncclComm_t c, int *exclude, int n, ncclComm_t *out, ncclConfig_t *cfg, int flags)
{
	(void)c, (void)exclude, (void)n, (void)out, (void)cfg, (void)flags;
	return ncclInvalidUsage;
}

API ncclResult_t
ncclCommWindowRegister(ncclComm_t c, void *p, size_t n, ncclWindow_t *w, int flags)
{
	(void)c, (void)p, (void)n, (void)w, (void)flags;
	return ncclInvalidUsage;
}
#endif

struct split {
	int color, key, nonblocking;
	ncclComm_t *out;
	int got[MAXR][2];
};

static void
use_split(struct ncclComm *c, int b, void *ctx)
{
	struct split *sp = ctx;
	int r;

	for (r = 0; r < c->nranks; r++)
		memcpy(sp->got[r], c->seg->s[r].data[b], sizeof sp->got[r]);
}

static ncclResult_t
do_split(struct ncclComm *p, void *arg)
{
	struct split *sp = arg;
	int mine[2] = {sp->color, sp->key}, r, n = 0, me = 0;
	uint64_t k = ++p->cseq;
	char name[256];
	struct ncclComm *c;

	if (fault("splithang", NULL))
		wait_for(p, never, 0);
	if (__atomic_load_n(&p->abort, __ATOMIC_ACQUIRE) ||
	    exchange(p, k, mine, sizeof mine, use_split, sp) != 0) {
		/* NCCL 2.28.9 (init.cc, ncclCommSplit's job) has allocated the
		 * child and writes it out even when the split fails: the
		 * caller must abort it */
		snprintf(name, sizeof name, "%.150s-s%d-failed", p->name, p->nsplit);
		c = comm_new(name, 0, 1, sp->nonblocking);
		c->state = ncclInternalError;
		c->failed_split = 1;
		*sp->out = c;
		free(sp);
		return ncclInternalError;
	}
	if (sp->color == NCCL_SPLIT_NOCOLOR) {
		*sp->out = NULL;
		free(sp);
		return ncclSuccess;
	}
	/* the new ranks: by key, then by the parent's rank */
	for (r = 0; r < p->nranks; r++) {
		if (sp->got[r][0] != sp->color)
			continue;
		n++;
		if (sp->got[r][1] < sp->key || (sp->got[r][1] == sp->key && r < p->rank))
			me++;
	}
	snprintf(name, sizeof name, "%.150s-s%d-c%d", p->name, p->nsplit, sp->color);
	c = comm_new(name, me, n, sp->nonblocking);
	c->dev = p->dev;
	*sp->out = c;
	free(sp);
	/* the child's own creation goes on after the parent's part is done */
	return start(c, do_join, NULL) == ncclInProgress || c->state == ncclSuccess
	           ? ncclSuccess
	           : (ncclResult_t)c->state;
}

API ncclResult_t
ncclCommSplit(ncclComm_t p, int color, int key, ncclComm_t *out, ncclConfig_t *cfg)
{
	struct split *sp;

	busy_check(p, "ncclCommSplit", __builtin_return_address(0));
	sp = calloc(1, sizeof *sp);
	sp->color = color;
	sp->key = key;
	sp->out = out;
	sp->nonblocking = cfg ? cfg->blocking == 0 : p->nonblocking;
	p->nsplit++;
	if (!p->nonblocking)
		*out = NULL;
	return start(p, do_split, sp);
}

API ncclResult_t
ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *st)
{
	check(c, "ncclCommGetAsyncError", __builtin_return_address(0));
	*st = (ncclResult_t)__atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
	return ncclSuccess;
}

API ncclResult_t
ncclCommCount(ncclComm_t c, int *n)
{
	busy_check(c, "ncclCommCount", __builtin_return_address(0));
	*n = c->nranks;
	return ncclSuccess;
}

API ncclResult_t
ncclCommUserRank(ncclComm_t c, int *r)
{
	busy_check(c, "ncclCommUserRank", __builtin_return_address(0));
	*r = c->rank;
	return ncclSuccess;
}

/* ---- the end ---- */

static ncclResult_t
do_finalize(struct ncclComm *c, void *unused)
{
	(void)unused;
	/* every rank's work done, then a barrier */
	return exchange(c, ++c->cseq, NULL, 0, NULL, NULL) == 0 ? ncclSuccess : ncclInternalError;
}

API ncclResult_t
ncclCommFinalize(ncclComm_t c)
{
	busy_check(c, "ncclCommFinalize", __builtin_return_address(0));
	return start(c, do_finalize, NULL);
}

static void
retire(struct ncclComm *c)
{
	char path[256];

	/* NCCL frees the communicator's device memory: cudaFree synchronizes
	 * the device, so this waits for any kernel still running on it, a
	 * collective stuck on another communicator too */
	cudaFree(c->devmem);
	c->devmem = NULL;

	/* a rank that never joined leaves the name behind: gone with the end */
	snprintf(path, sizeof path, "/%s", c->name);
	shm_unlink(path);
	/* kept, not freed: a later call on it is reported as a misuse, not
	 * a crash; its stream work may still read it */
	__atomic_store_n(&c->magic, 0, __ATOMIC_RELEASE);
}

API ncclResult_t
ncclCommDestroy(ncclComm_t c)
{
	check(c, "ncclCommDestroy", __builtin_return_address(0));
	if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == ncclInProgress)
		mcd_misuse(__builtin_return_address(0),
		           "ncclCommDestroy(%s) while it is in progress", c->name);
	join_worker(c);
	retire(c);
	if (fault("destroy", NULL)) {
		snprintf(last_err, sizeof last_err, "injected: ncclCommDestroy failed");
		return ncclInternalError;
	}
	return ncclSuccess;
}

API ncclResult_t
ncclCommAbort(ncclComm_t c)
{
	check(c, "ncclCommAbort", __builtin_return_address(0));
	__atomic_store_n(&c->abort, 1, __ATOMIC_RELEASE);
	join_worker(c);
	retire(c);
	return ncclSuccess;
}

/* A failed split's child that the program never aborted nor destroyed:
 * its resources leak (and a program that freed its own copy of the handle
 * before the parent's abort let the job write it there). */
__attribute__((destructor)) static void
unended(void)
{
	struct ncclComm *c;

	for (c = comms; c; c = c->next)
		if (c->failed_split && __atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) == JOINED) {
			fprintf(stderr,
			        "mcdouble: %s, the child a failed ncclCommSplit wrote out, was "
			        "never aborted\n",
			        c->name);
			fflush(stderr);
			_exit(88);
		}
}

/* ---- memory ---- */

API ncclResult_t
ncclMemAlloc(void **p, size_t n)
{
	return cudaMalloc(p, n) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

API ncclResult_t
ncclMemFree(void *p)
{
	return cudaFree(p) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

API ncclResult_t
ncclCommRegister(ncclComm_t c, void *p, size_t n, void **h)
{
	(void)n;
	busy_check(c, "ncclCommRegister", __builtin_return_address(0));
	*h = p;
	return ncclSuccess;
}

API ncclResult_t
ncclCommDeregister(ncclComm_t c, void *h)
{
	(void)h;
	busy_check(c, "ncclCommDeregister", __builtin_return_address(0));
	return ncclSuccess;
}
