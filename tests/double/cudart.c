/* cudart.c — the test double of CUDA's runtime, libcudart.so.13: the calls
 * mcinit makes, with a GPU's ordering rules and none of its arithmetic
 * units (double.h says how).  Eight devices unless MCDOUBLE_DEVICES says
 * otherwise; CUDA_VISIBLE_DEVICES is honoured as the real runtime does
 * (empty: no device).  Test-only: tests/double/README.md. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "double.h"

#define API __attribute__((visibility("default")))

/* The runtime this build plays (Makefile.am's personalities): 13's, or
 * 12's (libcudart.so.12: cudaGetDeviceProperties_v2 beside the plain one,
 * whose struct is CUDA 11's). */
#ifndef MCD_CUDART_VERSION
#define MCD_CUDART_VERSION CUDART_VERSION
#endif

/* The CUDA version the "driver" supports: MCDOUBLE_DRIVER_VERSION, else
 * the runtime's. */
static int
driver_version(void)
{
	const char *d = getenv("MCDOUBLE_DRIVER_VERSION");

	return d && *d ? atoi(d) : MCD_CUDART_VERSION;
}

struct mcd_stream {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct mcd_op *head, *tail; /* queued, not yet run */
	unsigned long seq, done;    /* last queued, last finished */
	int nonblocking, priority, dying;
	pthread_t th;
	struct mcd_stream *next; /* every stream */
};

struct mcd_op {
	struct mcd_stream *s;
	mcd_fn fn;
	void *arg;
	char *dst;
	size_t len;
	const char *api;
	void *site;
	unsigned long seq; /* 0 while announced only */
	int finished;
	struct mcd_op *qnext; /* the stream's queue */
	struct mcd_op *gnext; /* every unobserved operation */
};

struct mcd_event {
	struct mcd_stream *s;
	unsigned long seq; /* the recording operation; 0 never recorded */
	double t;
};

struct mcd_alloc {
	char *p;
	size_t len;
	struct mcd_alloc *next;
};

static pthread_mutex_t G = PTHREAD_MUTEX_INITIALIZER; /* the lists below */
static struct mcd_stream *streams, legacy_stream;
static struct mcd_op *unobserved;
static struct mcd_alloc *allocs;
static __thread int cur_dev;
static __thread cudaError_t last_error;

double
mcd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "file(+0x123)" or "function+0x12" for a code address. */
static void
site_name(void *a, char *out, size_t cap)
{
	Dl_info d;

	if (a && dladdr(a, &d) && d.dli_fname) {
		if (d.dli_sname)
			snprintf(out, cap, "%s+0x%lx (%s)", d.dli_sname,
			         (unsigned long)((char *)a - (char *)d.dli_saddr), d.dli_fname);
		else
			snprintf(out, cap, "%s(+0x%lx)", d.dli_fname,
			         (unsigned long)((char *)a - (char *)d.dli_fbase));
	} else {
		snprintf(out, cap, "%p", a);
	}
}

API void
mcd_misuse(void *callsite, const char *fmt, ...)
{
	char where[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	site_name(callsite, where, sizeof where);
	fprintf(stderr, "mcdouble: %s; called from %s\n", msg, where);
	fflush(stderr);
	_exit(86);
}

/* ---- devices ---- */

static int
visible(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES"), *n = getenv("MCDOUBLE_DEVICES");
	int all = n && *n ? atoi(n) : 8, k = 0;

	if (!v)
		return all;
	for (; *v; v++)
		k += *v == ',';
	return getenv("CUDA_VISIBLE_DEVICES")[0] ? (k + 1 < all ? k + 1 : all) : 0;
}

API int
mcd_device(void)
{
	return cur_dev;
}

static cudaError_t
ret(cudaError_t e)
{
	if (e != cudaSuccess)
		last_error = e;
	return e;
}

API cudaError_t
cudaGetDeviceCount(int *n)
{
	/* as the runtime: a driver of an older CUDA major cannot serve it */
	if (driver_version() / 1000 < MCD_CUDART_VERSION / 1000) {
		*n = 0;
		return ret(cudaErrorInsufficientDriver);
	}
	*n = visible();
	return *n ? cudaSuccess : ret(cudaErrorNoDevice);
}

API const char *
cudaGetErrorName(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return "cudaSuccess";
	case cudaErrorInvalidValue:
		return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation:
		return "cudaErrorMemoryAllocation";
	case cudaErrorNoDevice:
		return "cudaErrorNoDevice";
	case cudaErrorInsufficientDriver:
		return "cudaErrorInsufficientDriver";
	case cudaErrorInvalidDevice:
		return "cudaErrorInvalidDevice";
	case cudaErrorNotReady:
		return "cudaErrorNotReady";
	case cudaErrorInvalidResourceHandle:
		return "cudaErrorInvalidResourceHandle";
	default:
		return "cudaErrorUnknown";
	}
}

API const char *
cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess ? "no error" : "error in the CUDA test double";
}

API cudaError_t
cudaGetLastError(void)
{
	cudaError_t e = last_error;

	last_error = cudaSuccess;
	return e;
}

API cudaError_t
cudaRuntimeGetVersion(int *v)
{
	*v = MCD_CUDART_VERSION;
	return cudaSuccess;
}

API cudaError_t
cudaDriverGetVersion(int *v)
{
	*v = driver_version();
	return cudaSuccess;
}

API cudaError_t
cudaDeviceGetPCIBusId(char *busid, int len, int dev)
{
	if (dev < 0 || dev >= visible())
		return ret(cudaErrorInvalidDevice);
	snprintf(busid, (size_t)len, "0000:%02x:00.0", 0x10 + dev);
	return cudaSuccess;
}

/* The runtime makes the device's primary context current in the calling
 * thread through the driver, libcuda.so.1, as the real one does: so the
 * driver's calls (the kernels module's) see the runtime's device and take
 * its pointers.  Where the double's driver is not loadable by the loader's
 * search, nothing. */
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static int (*drv_init)(unsigned), (*drv_retain)(void **, int), (*drv_set)(void *);

static void
drv_open(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&drv_init = dlsym(h, "cuInit");
	*(void **)&drv_retain = dlsym(h, "cuDevicePrimaryCtxRetain");
	*(void **)&drv_set = dlsym(h, "cuCtxSetCurrent");
	if (!drv_init || !drv_retain || !drv_set || drv_init(0) != 0)
		drv_set = NULL;
}

static void
primary_current(void)
{
	static __thread int done_dev = -1;
	void *c;

	pthread_once(&drv_once, drv_open);
	if (drv_set && done_dev != cur_dev && drv_retain(&c, cur_dev) == 0 && drv_set(c) == 0)
		done_dev = cur_dev;
}

API cudaError_t
cudaSetDevice(int dev)
{
	if (dev < 0 || dev >= visible())
		return ret(cudaErrorInvalidDevice);
	cur_dev = dev;
	primary_current();
	return cudaSuccess;
}

API cudaError_t
cudaGetDevice(int *dev)
{
	*dev = cur_dev;
	return cudaSuccess;
}

/* Fills `len` bytes of a struct cudaDeviceProp of some runtime: only the
 * name, which opens every layout (11's, 12's, 13's), is set; the rest is
 * zero.  len is what that runtime's struct takes: writing more than the
 * caller's struct would hide an overflow a real runtime makes. */
static cudaError_t
props(void *p, size_t len, int dev)
{
	if (dev < 0 || dev >= visible())
		return ret(cudaErrorInvalidDevice);
	memset(p, 0, len);
	snprintf((char *)p, 256, "mcinit test double GPU %d", dev);
	return cudaSuccess;
}

#if MCD_CUDART_VERSION >= 13000
API cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev)
{
	return props(p, sizeof *p, dev);
}
#else
/* CUDA 12: the _v2 call (what 12's headers name) fills 12's struct,
 * 1,032 bytes on x86-64; the plain call CUDA 11's, written here as large */
API cudaError_t
cudaGetDeviceProperties_v2(void *p, int dev)
{
	return props(p, 1032, dev);
}

API cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev)
{
	return props(p, 1032, dev);
}
#endif

/* The attributes mcinit doctor reads: the compute mode
 * (MCDOUBLE_COMPUTE_MODE: default, exclusive_process, prohibited) and ECC
 * (on). */
API cudaError_t
cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int dev)
{
	const char *m = getenv("MCDOUBLE_COMPUTE_MODE");

	if (dev < 0 || dev >= visible())
		return ret(cudaErrorInvalidDevice);
	switch (a) {
	case cudaDevAttrComputeMode:
		*v = !m || !*m                             ? cudaComputeModeDefault
		     : strcmp(m, "exclusive_process") == 0 ? cudaComputeModeExclusiveProcess
		     : strcmp(m, "prohibited") == 0        ? cudaComputeModeProhibited
		                                           : cudaComputeModeDefault;
		return cudaSuccess;
	case cudaDevAttrEccEnabled:
		*v = 1;
		return cudaSuccess;
	default:
		*v = 0;
		return ret(cudaErrorInvalidValue);
	}
}

API cudaError_t
cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	*least = 0;
	*greatest = -5;
	return cudaSuccess;
}

/* ---- streams ---- */

static void *
stream_main(void *arg)
{
	struct mcd_stream *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct mcd_op *op;

		while (!s->head && !s->dying)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->head)
			break;
		op = s->head;
		pthread_mutex_unlock(&s->mu);
		if (op->fn && op->fn(op->arg) != 0)
			last_error = cudaErrorLaunchFailure;
		pthread_mutex_lock(&s->mu);
		s->head = op->qnext;
		if (!s->head)
			s->tail = NULL;
		op->finished = 1;
		s->done = op->seq;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void
stream_init(struct mcd_stream *s, int nonblocking, int priority)
{
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->nonblocking = nonblocking;
	s->priority = priority;
	pthread_create(&s->th, NULL, stream_main, s);
	pthread_mutex_lock(&G);
	s->next = streams;
	streams = s;
	pthread_mutex_unlock(&G);
}

static pthread_once_t legacy_once = PTHREAD_ONCE_INIT;

static void
legacy_init(void)
{
	stream_init(&legacy_stream, 0, 0);
}

static struct mcd_stream *
stream_of(cudaStream_t st)
{
	/* 0, cudaStreamLegacy and cudaStreamPerThread: one legacy stream here */
	if ((uintptr_t)st <= 2) {
		pthread_once(&legacy_once, legacy_init);
		return &legacy_stream;
	}
	return (struct mcd_stream *)st;
}

API cudaError_t
cudaStreamCreateWithPriority(cudaStream_t *st, unsigned flags, int priority)
{
	struct mcd_stream *s = calloc(1, sizeof *s);

	if (!s)
		return ret(cudaErrorMemoryAllocation);
	stream_init(s, (flags & cudaStreamNonBlocking) != 0, priority);
	*st = (cudaStream_t)s;
	return cudaSuccess;
}

API cudaError_t
cudaStreamCreateWithFlags(cudaStream_t *st, unsigned flags)
{
	return cudaStreamCreateWithPriority(st, flags, 0);
}

API cudaError_t
cudaStreamCreate(cudaStream_t *st)
{
	return cudaStreamCreateWithPriority(st, 0, 0);
}

/* The host has seen stream s finish everything up to seq: those
 * operations are observed, and forgotten.  G held. */
static void
observe(struct mcd_stream *s, unsigned long upto)
{
	struct mcd_op **pp = &unobserved;

	while (*pp) {
		struct mcd_op *op = *pp;

		if (op->s == s && op->seq && op->seq <= upto && op->finished) {
			*pp = op->gnext;
			free(op);
		} else {
			pp = &op->gnext;
		}
	}
}

/* Waits until s has run everything queued up to seq (0: all queued now). */
static void
drain(struct mcd_stream *s, unsigned long seq)
{
	pthread_mutex_lock(&s->mu);
	if (!seq)
		seq = s->seq;
	while (s->done < seq)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	pthread_mutex_lock(&G);
	observe(s, seq);
	pthread_mutex_unlock(&G);
}

API cudaError_t
cudaStreamSynchronize(cudaStream_t st)
{
	drain(stream_of(st), 0);
	return cudaSuccess;
}

API cudaError_t
cudaStreamQuery(cudaStream_t st)
{
	struct mcd_stream *s = stream_of(st);
	unsigned long seq;
	int busy;

	pthread_mutex_lock(&s->mu);
	seq = s->seq;
	busy = s->done < seq;
	pthread_mutex_unlock(&s->mu);
	if (busy)
		return cudaErrorNotReady; /* not sticky: no ret() */
	pthread_mutex_lock(&G);
	observe(s, seq);
	pthread_mutex_unlock(&G);
	return cudaSuccess;
}

API cudaError_t
cudaStreamDestroy(cudaStream_t st)
{
	struct mcd_stream *s = stream_of(st);

	if (s == &legacy_stream)
		return ret(cudaErrorInvalidResourceHandle);
	/* the work already queued still runs; the thread then ends */
	pthread_mutex_lock(&s->mu);
	s->dying = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	return cudaSuccess;
}

/* Everything queued on the legacy stream and every blocking stream. */
static void
drain_blocking(void)
{
	struct mcd_stream *s, *v[256];
	int n = 0, i;

	pthread_once(&legacy_once, legacy_init);
	pthread_mutex_lock(&G);
	for (s = streams; s && n < 256; s = s->next)
		if (!s->nonblocking && !s->dying)
			v[n++] = s;
	pthread_mutex_unlock(&G);
	for (i = 0; i < n; i++)
		drain(v[i], 0);
}

API cudaError_t
cudaDeviceSynchronize(void)
{
	struct mcd_stream *s, *v[256];
	int n = 0, i;

	pthread_mutex_lock(&G);
	for (s = streams; s && n < 256; s = s->next)
		if (!s->dying)
			v[n++] = s;
	pthread_mutex_unlock(&G);
	for (i = 0; i < n; i++)
		drain(v[i], 0);
	return cudaSuccess;
}

API struct mcd_op *
mcd_announce(void *st, mcd_fn fn, void *arg, void *dst, size_t len, const char *api, void *callsite)
{
	struct mcd_op *op = calloc(1, sizeof *op);

	if (!op)
		abort();
	op->s = stream_of(st);
	op->fn = fn;
	op->arg = arg;
	op->dst = dst;
	op->len = len;
	op->api = api;
	op->site = callsite;
	pthread_mutex_lock(&G);
	op->gnext = unobserved;
	unobserved = op;
	pthread_mutex_unlock(&G);
	return op;
}

API unsigned long
mcd_queue(struct mcd_op *op)
{
	struct mcd_stream *s = op->s;
	unsigned long seq;

	/* the legacy stream waits for the blocking streams, and they for it:
	 * the host waits here instead (coarser, never looser) */
	if (s == &legacy_stream)
		drain_blocking();
	else if (!s->nonblocking)
		drain(stream_of(NULL), 0);
	pthread_mutex_lock(&s->mu);
	seq = op->seq = ++s->seq;
	if (s->tail)
		s->tail->qnext = op;
	else
		s->head = op;
	s->tail = op;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return seq;
}

API int
mcd_done(void *st, unsigned long seq)
{
	struct mcd_stream *s = stream_of(st);
	int r;

	pthread_mutex_lock(&s->mu);
	r = s->done >= seq;
	pthread_mutex_unlock(&s->mu);
	return r;
}

/* ---- memory ---- */

static struct mcd_alloc *
alloc_of(const void *p)
{
	struct mcd_alloc *a;

	for (a = allocs; a; a = a->next)
		if ((const char *)p >= a->p && (const char *)p < a->p + a->len)
			return a;
	return NULL;
}

static int
is_device(const void *p)
{
	int r;

	pthread_mutex_lock(&G);
	r = alloc_of(p) != NULL;
	pthread_mutex_unlock(&G);
	return r;
}

API cudaError_t
cudaMalloc(void **p, size_t len)
{
	struct mcd_alloc *a = calloc(1, sizeof *a);

	primary_current();
	*p = NULL;
	if (!a || !(a->p = calloc(1, len ? len : 1))) {
		free(a);
		return ret(cudaErrorMemoryAllocation);
	}
	a->len = len ? len : 1;
	pthread_mutex_lock(&G);
	a->next = allocs;
	allocs = a;
	pthread_mutex_unlock(&G);
	*p = a->p;
	return cudaSuccess;
}

API cudaError_t
cudaFree(void *p)
{
	struct mcd_alloc **pp, *a;

	if (!p)
		return cudaSuccess;
	/* cudaFree synchronises the device: it waits for a stuck kernel too */
	cudaDeviceSynchronize();
	pthread_mutex_lock(&G);
	for (pp = &allocs; *pp && (*pp)->p != p; pp = &(*pp)->next)
		;
	a = *pp;
	if (a)
		*pp = a->next;
	pthread_mutex_unlock(&G);
	if (!a)
		mcd_misuse(__builtin_return_address(0), "cudaFree(%p): not from cudaMalloc", p);
	free(a->p);
	free(a);
	return cudaSuccess;
}

/* A host read of [p, p+len) of device memory on stream `by` (NULL: the
 * legacy stream, after drain_blocking): a race when an operation that the
 * host has not seen finish writes there and is not ordered before the read
 * (another stream, or not yet queued on this one). */
static void
check_read(const void *p, size_t len, struct mcd_stream *by, const char *api, void *site)
{
	struct mcd_op *op, *bad = NULL;
	char here[512], there[512];

	pthread_mutex_lock(&G);
	for (op = unobserved; op && !bad; op = op->gnext) {
		if (!op->dst || op->dst >= (const char *)p + len ||
		    op->dst + op->len <= (const char *)p)
			continue;
		if (op->s == by && op->seq)
			continue; /* ordered before the read on its own stream */
		if (!op->s->nonblocking && op->seq && op->finished)
			continue; /* the legacy stream waited for it */
		bad = op;
	}
	if (bad) {
		site_name(site, here, sizeof here);
		site_name(bad->site, there, sizeof there);
		fprintf(stderr,
		        "mcdouble: race: %s reads %zu byte(s) of device memory at %p, called from "
		        "%s, while %s, called from %s, writes there on %s stream %p and the host "
		        "has not synchronised with it (%s)\n",
		        api, len, p, here, bad->api, there,
		        bad->s->nonblocking ? "non-blocking" : "blocking", (void *)bad->s,
		        bad->seq ? (bad->finished ? "finished, unobserved" : "still running")
		                 : "not yet queued: its communicator is still in progress");
		fflush(stderr);
		_exit(87);
	}
	pthread_mutex_unlock(&G);
}

struct copy {
	void *dst;
	const void *src;
	size_t len;
	int set, value;
};

static int
run_copy(void *arg)
{
	struct copy *c = arg;

	if (c->set)
		memset(c->dst, c->value, c->len);
	else
		memcpy(c->dst, c->src, c->len);
	free(c);
	return 0;
}

static cudaError_t
copy_on(cudaStream_t st, void *dst, const void *src, size_t len, int set, int value,
        const char *api, void *site)
{
	struct copy *c = calloc(1, sizeof *c);

	if (!c)
		return ret(cudaErrorMemoryAllocation);
	c->dst = dst;
	c->src = src;
	c->len = len;
	c->set = set;
	c->value = value;
	mcd_queue(mcd_announce(st, run_copy, c, is_device(dst) ? dst : NULL, len, api, site));
	return cudaSuccess;
}

API cudaError_t
cudaMemcpy(void *dst, const void *src, size_t len, enum cudaMemcpyKind kind)
{
	void *site = __builtin_return_address(0);

	(void)kind;
	/* synchronous, on the legacy stream: ordered after it and the
	 * blocking streams, not after the non-blocking ones */
	drain_blocking();
	if (is_device(src))
		check_read(src, len, NULL, "cudaMemcpy", site);
	memcpy(dst, src, len);
	return cudaSuccess;
}

API cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t len, enum cudaMemcpyKind kind, cudaStream_t st)
{
	void *site = __builtin_return_address(0);

	(void)kind;
	if (is_device(src) && !is_device(dst))
		check_read(src, len, stream_of(st), "cudaMemcpyAsync", site);
	return copy_on(st, dst, src, len, 0, 0, "cudaMemcpyAsync", site);
}

/* On the legacy stream, as cudaMemcpy (tests/gpu/gpu-kernels-check's
 * buffers); the whole length: nothing big is set so. */
API cudaError_t
cudaMemset(void *dst, int value, size_t len)
{
	drain_blocking();
	memset(dst, value, len);
	return cudaSuccess;
}

API cudaError_t
cudaMemsetAsync(void *dst, int value, size_t len, cudaStream_t st)
{
	/* the double's collectives move at most their first 64 KiB: setting
	 * the rest would only cost time (a bandwidth sweep's 64 MiB buffers) */
	return copy_on(st, dst, NULL, len < 65536 ? len : 65536, 1, value, "cudaMemsetAsync",
	               __builtin_return_address(0));
}

struct host_fn {
	cudaHostFn_t fn;
	void *data;
};

static int
run_host_fn(void *arg)
{
	struct host_fn *h = arg;

	h->fn(h->data);
	free(h);
	return 0;
}

API cudaError_t
cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *data)
{
	struct host_fn *h = calloc(1, sizeof *h);

	if (!h)
		return ret(cudaErrorMemoryAllocation);
	h->fn = fn;
	h->data = data;
	mcd_queue(mcd_announce(st, run_host_fn, h, NULL, 0, "cudaLaunchHostFunc",
	                       __builtin_return_address(0)));
	return cudaSuccess;
}

/* ---- events ---- */

static int
stamp(void *arg)
{
	((struct mcd_event *)arg)->t = mcd_now();
	return 0;
}

API cudaError_t
cudaEventCreate(cudaEvent_t *e)
{
	*e = calloc(1, sizeof(struct mcd_event));
	return *e ? cudaSuccess : ret(cudaErrorMemoryAllocation);
}

API cudaError_t
cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
	(void)flags;
	return cudaEventCreate(e);
}

API cudaError_t
cudaEventRecord(cudaEvent_t ev, cudaStream_t st)
{
	struct mcd_event *e = (struct mcd_event *)ev;
	struct mcd_op *op =
	    mcd_announce(st, stamp, e, NULL, 0, "cudaEventRecord", __builtin_return_address(0));

	e->s = op->s;
	e->t = 0;
	e->seq = mcd_queue(op);
	return cudaSuccess;
}

API cudaError_t
cudaEventQuery(cudaEvent_t ev)
{
	struct mcd_event *e = (struct mcd_event *)ev;
	int busy;

	if (!e->s)
		return cudaSuccess;
	pthread_mutex_lock(&e->s->mu);
	busy = e->s->done < e->seq;
	pthread_mutex_unlock(&e->s->mu);
	if (busy)
		return cudaErrorNotReady;
	pthread_mutex_lock(&G);
	observe(e->s, e->seq);
	pthread_mutex_unlock(&G);
	return cudaSuccess;
}

API cudaError_t
cudaEventSynchronize(cudaEvent_t ev)
{
	struct mcd_event *e = (struct mcd_event *)ev;

	if (e->s)
		drain(e->s, e->seq);
	return cudaSuccess;
}

API cudaError_t
cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	struct mcd_event *x = (struct mcd_event *)a, *y = (struct mcd_event *)b;

	/* as CUDA: both must have completed */
	if (!x->s || !y->s || cudaEventQuery(a) != cudaSuccess || cudaEventQuery(b) != cudaSuccess)
		return ret(cudaErrorNotReady);
	*ms = (float)((y->t - x->t) * 1e3);
	return cudaSuccess;
}

API cudaError_t
cudaEventDestroy(cudaEvent_t ev)
{
	struct mcd_event *e = (struct mcd_event *)ev;

	/* as CUDA: returns at once; an event still queued (behind a stuck
	 * kernel) is released when it completes; here, never (it is small) */
	if (e && e->s && !mcd_done(e->s, e->seq))
		return cudaSuccess;
	free(e);
	return cudaSuccess;
}
