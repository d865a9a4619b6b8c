/* gpu-backend.c — the phase on a CUDA device through the driver API: the
 * kernels of the module's fatbin (kfatbin.c) loaded into the device's
 * primary context with cuModuleLoadData, found by name
 * (cuModuleGetFunction, knames.h) and launched with cuLaunchKernel;
 * streams, events, memory with cu* calls.  libcuda.so.1 is opened at run
 * time (gpu-driver.c), and no CUDA runtime is used, so the module works
 * over CUDA runtime 12 or 13.
 *
 * The primary context is the one the runtime (cudaSetDevice) and NCCL use,
 * so pointers from either are this code's device pointers too.  Which
 * image a driver takes: the cubin for its GPU when the cubin's toolkit is
 * not newer than the driver (a 12.x ptxas's cubins from R525, a 13.x one's
 * from R580: CUDA minor-version compatibility), else it JITs the
 * compute_80 PTX (ISA 7.0 and up, the lowest ptxas accepted:
 * build-aux/kernel-fatbin.sh), else cuModuleLoadData fails
 * (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, CUDA_ERROR_NO_BINARY_FOR_GPU) and
 * the phase says so with the driver's version. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbackend.h"
#include "kdrv.h"
#include "kgpu.h"
#include "khost.h"
#include "knames.h"

/* ---- the kernels' names, by operation, type and path ---- */

#define KM_NAME_OP(op, OP, dt, DT)                                                                 \
	[OP][DT] = {KM_KNAME(op, dt, exact), KM_KNAME(op, dt, fast32), KM_KNAME(op, dt, fast64)},
static const char *const op_names[MCINIT_KOP_COUNT][3][KM_PATHS] = {KM_FOR_OP_DT(KM_NAME_OP)};
#define KM_NAME_FILL(dt, DT)   [DT] = KM_FILLNAME(dt),
#define KM_NAME_GATHER(dt, DT) [DT] = KM_GATHERNAME(dt),
static const char *const fill_names[3] = {KM_FOR_DTYPE(KM_NAME_FILL)};
static const char *const gather_names[3] = {KM_FOR_DTYPE(KM_NAME_GATHER)};

/* ---- the fatbin loaded per context ---- */

/* The module in one context and its functions, looked up at first use.
 * Contexts are the devices' primary ones, retained for the process's life
 * (gpu_open), so an entry never goes stale. */
struct kmod {
	CUcontext ctx;
	CUmodule mod;
	int sms;
	CUfunction op[MCINIT_KOP_COUNT][3][KM_PATHS], fill[3], gather[3];
};

enum { KMOD_MAX = 64 };
static struct kmod kmods[KMOD_MAX];
static int nkmods;
static pthread_mutex_t kmods_lock = PTHREAD_MUTEX_INITIALIZER;

/* The driver's major.minor as "12.2" from 12020. */
static void
cuda_version_text(int v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d.%d", v / 1000, v % 1000 / 10);
}

/* The module of the current context, loaded now if it is not yet; NULL
 * with the reason in msg. */
static struct kmod *
kmod_current(const struct mcinit_kdrv **dp, char *msg, size_t cap)
{
	const struct mcinit_kdrv *d = mcinit_kdrv(msg, cap);
	struct kmod *m = NULL;
	CUcontext ctx = NULL;
	CUdevice dev = 0;
	CUmodule mod;
	CUresult e;
	char err[256], ver[16];
	int i;

	*dp = d;
	if (!d)
		return NULL;
	if ((e = d->CtxGetCurrent(&ctx)) != CUDA_SUCCESS || !ctx) {
		snprintf(msg, cap, "no current CUDA context%s%s", e ? ": " : "",
		         e ? mcinit_kdrv_error(d, e, err, sizeof err) : "");
		return NULL;
	}
	pthread_mutex_lock(&kmods_lock);
	for (i = 0; i < nkmods; i++)
		if (kmods[i].ctx == ctx) {
			m = &kmods[i];
			goto out;
		}
	if (nkmods == KMOD_MAX) {
		snprintf(msg, cap, "more than %d CUDA contexts", KMOD_MAX);
		goto out;
	}
	if ((e = d->ModuleLoadData(&mod, mcinit_kfatbin)) != CUDA_SUCCESS) {
		int major = 0, minor = 0;

		cuda_version_text(d->version, ver, sizeof ver);
		if (d->CtxGetDevice(&dev) == CUDA_SUCCESS) {
			d->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
			                      dev);
			d->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
			                      dev);
		}
		/* what each image needs: cubins of a CUDA N ptxas, a driver of
		 * CUDA N.0 (minor-version compatibility); PTX ISA 7.x, CUDA 11.x's
		 * driver, 8.x 12.x's, 9.x 13.x's */
		snprintf(
		    msg, cap,
		    "cuModuleLoadData: %s (sm_%d%d GPU, driver of CUDA %s; the kernels need sm_80 "
		    "or newer, and a driver of CUDA %d.0 for their cubins, CUDA %d.%c for their "
		    "PTX ISA %s)",
		    mcinit_kdrv_error(d, e, err, sizeof err), major, minor, ver,
		    atoi(mcinit_kfatbin_ptxas), atoi(mcinit_kfatbin_ptx_isa) + 4,
		    mcinit_kfatbin_ptx_isa[2] ? mcinit_kfatbin_ptx_isa[2] : '0',
		    mcinit_kfatbin_ptx_isa);
		goto out;
	}
	m = &kmods[nkmods++];
	memset(m, 0, sizeof *m);
	m->ctx = ctx;
	m->mod = mod;
	if (d->CtxGetDevice(&dev) != CUDA_SUCCESS ||
	    d->DeviceGetAttribute(&m->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) !=
	        CUDA_SUCCESS ||
	    m->sms <= 0)
		m->sms = 1;
out:
	pthread_mutex_unlock(&kmods_lock);
	return m;
}

/* *slot, looked up by name the first time; NULL when the module lacks it. */
static CUfunction
kfunc(const struct mcinit_kdrv *d, struct kmod *m, CUfunction *slot, const char *name)
{
	CUfunction f;

	pthread_mutex_lock(&kmods_lock);
	if (!*slot && d->ModuleGetFunction(&f, m->mod, name) == CUDA_SUCCESS)
		*slot = f;
	f = *slot;
	pthread_mutex_unlock(&kmods_lock);
	return f;
}

const char *
mcinit_kgpu_ready(char *msg, size_t cap)
{
	const struct mcinit_kdrv *d;

	if (!kmod_current(&d, msg, cap))
		return msg;
	msg[0] = '\0';
	return msg;
}

/* Enough blocks to fill the device (per_sm of them per SM), fewer for small
 * tensors; the loops stride over the rest. */
static unsigned
grid_for(const struct kmod *m, uint64_t items, int per_sm)
{
	uint64_t want = (items + KM_THREADS - 1) / KM_THREADS,
	         most = (uint64_t)m->sms * (per_sm > 0 ? per_sm : 1);

	if (want > most)
		want = most;
	return want ? (unsigned)want : 1u;
}

static int
launch(const struct mcinit_kdrv *d, CUfunction f, unsigned grid, void **params, CUstream s)
{
	if (!f)
		return MCINIT_KERR_CUDA;
	return d->LaunchKernel(f, grid, 1, 1, KM_THREADS, 1, 1, 0, s, params, NULL) == CUDA_SUCCESS
	           ? MCINIT_KERR_OK
	           : MCINIT_KERR_CUDA;
}

static int
valid_dtype(enum mcinit_dtype dt)
{
	return dt == MCINIT_DTYPE_F32 || dt == MCINIT_DTYPE_F16 || dt == MCINIT_DTYPE_BF16;
}

/* One wave: as many blocks per SM as the kernel's registers let reside
 * together (a second, partial wave would leave SMs idle at the end of a
 * grid-stride loop).  The bit-exact kernels use 64-bit indices only: they
 * are the reference, not the fast path. */
int
mcinit_kgpu_run(enum mcinit_kop op, const struct mcinit_kargs *a, void *stream)
{
	const struct mcinit_kdrv *d;
	struct kmod *m;
	struct km_plan p;
	void *params[1] = {&p};
	uint64_t items;
	int err = mcinit_kargs_check(op, a), fast, path, per = 0;
	char msg[512];
	CUfunction f;

	if (err)
		return err;
	if (a->rows == 0)
		return MCINIT_KERR_OK;
	if (!(m = kmod_current(&d, msg, sizeof msg)))
		return d ? MCINIT_KERR_CUDA : MCINIT_KERR_NOGPU;
	km_plan_make(op, a, &p);
	fast = !a->exact;
	path = !fast ? KM_PATH_EXACT : km_plan_idx32(op, a) ? KM_PATH_FAST32 : KM_PATH_FAST64;
	/* A thread takes km_unroll vectors per step of its loop. */
	items = p.nvec ? (p.nvec + km_unroll(op, fast) - 1) / km_unroll(op, fast) : p.n;
	f = kfunc(d, m, &m->op[op][a->dtype][path], op_names[op][a->dtype][path]);
	if (f &&
	    d->OccupancyMaxActiveBlocksPerMultiprocessor(&per, f, KM_THREADS, 0) != CUDA_SUCCESS)
		per = 1;
	return launch(d, f, grid_for(m, items, per), params, (CUstream)stream);
}

int
mcinit_kgpu_fill(enum mcinit_dtype dt, void *dst, size_t n, uint64_t seed, uint32_t tensor,
                 void *stream)
{
	const struct mcinit_kdrv *d;
	struct kmod *m;
	uint64_t n64 = n;
	void *params[4] = {&dst, &n64, &seed, &tensor};
	char msg[512];

	if (n == 0)
		return MCINIT_KERR_OK;
	if (!valid_dtype(dt))
		return MCINIT_KERR_INVAL;
	if (!(m = kmod_current(&d, msg, sizeof msg)))
		return d ? MCINIT_KERR_CUDA : MCINIT_KERR_NOGPU;
	return launch(d, kfunc(d, m, &m->fill[dt], fill_names[dt]),
	              grid_for(m, n, 2048 / KM_THREADS), params, (CUstream)stream);
}

int
mcinit_kgpu_gather(enum mcinit_dtype dt, const void *src, const uint64_t *idx, size_t k, float *dst,
                   void *stream)
{
	const struct mcinit_kdrv *d;
	struct kmod *m;
	uint64_t k64 = k;
	void *params[4] = {&src, &idx, &k64, &dst};
	char msg[512];

	if (k == 0)
		return MCINIT_KERR_OK;
	if (!valid_dtype(dt))
		return MCINIT_KERR_INVAL;
	if (!(m = kmod_current(&d, msg, sizeof msg)))
		return d ? MCINIT_KERR_CUDA : MCINIT_KERR_NOGPU;
	return launch(d, kfunc(d, m, &m->gather[dt], gather_names[dt]),
	              (unsigned)((k + KM_THREADS - 1) / KM_THREADS), params, (CUstream)stream);
}

/* ---- timing that tells the truth (struct mcinit_kbench) ---- */

struct km_timed {
	const struct mcinit_kdrv *d;
	enum mcinit_kop op;
	struct mcinit_kargs *a; /* NULL: the copy */
	CUdeviceptr dst, src;
	size_t bytes;
	CUdeviceptr flush; /* 2x L2 to write before each run; 0: back to back */
	size_t flush_bytes;
	CUstream s;
	CUevent t0, t1;
};

static int
km_enqueue(struct km_timed *w, int c)
{
	if (!w->a)
		return w->d->MemcpyDtoDAsync(w->dst, w->src, w->bytes, w->s) == CUDA_SUCCESS
		           ? MCINIT_KERR_OK
		           : MCINIT_KERR_CUDA;
	w->a->offset = (uint64_t)c; /* a new dropout mask each call */
	return mcinit_kgpu_run(w->op, w->a, w->s);
}

static int
km_elapsed(struct km_timed *w, double *secs)
{
	float ms = 0;

	if (w->d->EventRecord(w->t1, w->s) != CUDA_SUCCESS ||
	    w->d->EventSynchronize(w->t1) != CUDA_SUCCESS ||
	    w->d->EventElapsedTime(&ms, w->t0, w->t1) != CUDA_SUCCESS)
		return MCINIT_KERR_CUDA;
	*secs = ms * 1e-3;
	return MCINIT_KERR_OK;
}

/* calls runs after an untimed one: best and mean seconds per run. */
static int
km_time(struct km_timed *w, int calls, double *best, double *mean)
{
	double t, total = 0;
	int c, err;

	*best = INFINITY;
	if ((err = km_enqueue(w, calls - 1)))
		return err;
	if (!w->flush) {
		if (w->d->EventRecord(w->t0, w->s) != CUDA_SUCCESS)
			return MCINIT_KERR_CUDA;
		for (c = 0; c < calls; c++)
			if ((err = km_enqueue(w, c)))
				return err;
		if ((err = km_elapsed(w, &t)))
			return err;
		*best = *mean = t / calls;
		return MCINIT_KERR_OK;
	}
	for (c = 0; c < calls; c++) {
		if (w->d->MemsetD8Async(w->flush, (unsigned char)(c & 0xff), w->flush_bytes,
		                        w->s) != CUDA_SUCCESS ||
		    w->d->EventRecord(w->t0, w->s) != CUDA_SUCCESS)
			return MCINIT_KERR_CUDA;
		if ((err = km_enqueue(w, c)) || (err = km_elapsed(w, &t)))
			return err;
		total += t;
		if (t < *best)
			*best = t;
	}
	*mean = total / calls;
	return MCINIT_KERR_OK;
}

int
mcinit_kgpu_bench(enum mcinit_kop op, struct mcinit_kargs *a, int calls, void *stream,
                  struct mcinit_kbench *t)
{
	struct km_timed w;
	size_t moved = mcinit_kop_bytes(op, a);
	CUdeviceptr copy = 0;
	CUdevice dev = 0;
	int l2 = 0, err = mcinit_kargs_check(op, a);
	char msg[512];

	memset(t, 0, sizeof *t);
	memset(&w, 0, sizeof w);
	if (err || calls <= 0)
		return err ? err : MCINIT_KERR_INVAL;
	if (!kmod_current(&w.d, msg, sizeof msg))
		return w.d ? MCINIT_KERR_CUDA : MCINIT_KERR_NOGPU;
	w.op = op;
	w.a = a;
	w.s = (CUstream)stream;
	if (w.d->CtxGetDevice(&dev) != CUDA_SUCCESS ||
	    w.d->DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) != CUDA_SUCCESS)
		return MCINIT_KERR_CUDA;
	t->l2_bytes = (size_t)l2;
	t->flushed = moved < 4 * t->l2_bytes;
	w.flush_bytes = 2 * t->l2_bytes;
	err = MCINIT_KERR_NOMEM;
	if (w.d->MemAlloc(&copy, moved / 2 * 2 + 16) != CUDA_SUCCESS ||
	    (t->flushed && w.d->MemAlloc(&w.flush, w.flush_bytes) != CUDA_SUCCESS))
		goto out;
	err = MCINIT_KERR_CUDA;
	if (w.d->EventCreate(&w.t0, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
	    w.d->EventCreate(&w.t1, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
	    w.d->MemsetD8Async(copy, 0, moved / 2 * 2 + 16, w.s) != CUDA_SUCCESS)
		goto out;
	if ((err = km_time(&w, calls, &t->best_s, &t->mean_s)))
		goto out;
	w.a = NULL;
	w.src = copy;
	w.dst = copy + moved / 2;
	w.bytes = moved / 2;
	err = km_time(&w, calls, &t->copy_best_s, &t->copy_mean_s);
	a->offset = (uint64_t)(calls - 1);
out:
	/* what is still queued finishes before the buffers go */
	w.d->StreamSynchronize(w.s);
	if (w.t1)
		w.d->EventDestroy(w.t1);
	if (w.t0)
		w.d->EventDestroy(w.t0);
	if (w.flush)
		w.d->MemFree(w.flush);
	if (copy)
		w.d->MemFree(copy);
	return err;
}

/* ---- the phase's backend ---- */

struct gpu_ctx {
	const struct mcinit_kdrv *d;
	CUcontext cu;
	CUstream stream;
	CUevent start, stop;
};

static int
cuda_fail(const struct mcinit_kdrv *d, CUresult e, const char *what, char *msg, size_t msgsz)
{
	char err[256];

	if (msg)
		snprintf(msg, msgsz, "%s: %s", what, mcinit_kdrv_error(d, e, err, sizeof err));
	/* No device (100) and no initialised driver (3) mean "no GPU here". */
	return e == CUDA_ERROR_NO_DEVICE || e == CUDA_ERROR_NOT_INITIALIZED ? MCINIT_KERR_NOGPU
	                                                                    : MCINIT_KERR_CUDA;
}

/* The context current in this thread: the backend's calls may come from
 * another thread than open's. */
static int
current(struct gpu_ctx *ctx)
{
	return ctx->d->CtxSetCurrent(ctx->cu) == CUDA_SUCCESS ? MCINIT_KERR_OK : MCINIT_KERR_CUDA;
}

/* Peak DRAM bandwidth from the memory clock (kHz) and bus width (bits),
 * double data rate; 0 when the device does not say. */
static double
peak_gbps(const struct mcinit_kdrv *d, CUdevice dev)
{
	int khz = 0, bits = 0;

	if (d->DeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev) !=
	        CUDA_SUCCESS ||
	    d->DeviceGetAttribute(&bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev) !=
	        CUDA_SUCCESS)
		return 0;
	return 2.0 * khz * 1e3 * (bits / 8.0) / 1e9;
}

static int
gpu_open(void **ctxp, int gpu, char *name, size_t namesz, double *peak, char *msg, size_t msgsz)
{
	const struct mcinit_kdrv *d = mcinit_kdrv(msg, msgsz);
	struct gpu_ctx *ctx;
	CUdevice dev;
	CUcontext cu;
	CUresult e;
	int n = 0;

	*ctxp = NULL;
	if (!d)
		return MCINIT_KERR_NOGPU;
	if ((e = d->DeviceGetCount(&n)) != CUDA_SUCCESS)
		return cuda_fail(d, e, "cuDeviceGetCount", msg, msgsz);
	if (gpu < 0 || gpu >= n) {
		snprintf(msg, msgsz, "CUDA device %d requested, %d present", gpu, n);
		return MCINIT_KERR_NOGPU;
	}
	if ((e = d->DeviceGet(&dev, gpu)) != CUDA_SUCCESS)
		return cuda_fail(d, e, "cuDeviceGet", msg, msgsz);
	/* The primary context, retained for the process's life: the runtime's
	 * and NCCL's, and the module loaded into it stays valid. */
	if ((e = d->DevicePrimaryCtxRetain(&cu, dev)) != CUDA_SUCCESS)
		return cuda_fail(d, e, "cuDevicePrimaryCtxRetain", msg, msgsz);
	if ((e = d->CtxSetCurrent(cu)) != CUDA_SUCCESS)
		return cuda_fail(d, e, "cuCtxSetCurrent", msg, msgsz);
	if ((e = d->DeviceGetName(name, (int)namesz, dev)) != CUDA_SUCCESS)
		return cuda_fail(d, e, "cuDeviceGetName", msg, msgsz);
	/* the fatbin now, so that a driver too old for it is named here */
	if (*mcinit_kgpu_ready(msg, msgsz))
		return MCINIT_KERR_CUDA;
	*peak = peak_gbps(d, dev);
	if (!(ctx = calloc(1, sizeof *ctx)))
		return MCINIT_KERR_NOMEM;
	ctx->d = d;
	ctx->cu = cu;
	if ((e = d->StreamCreate(&ctx->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		goto fail;
	if ((e = d->EventCreate(&ctx->start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
		goto fail_stream;
	if ((e = d->EventCreate(&ctx->stop, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
		goto fail_start;
	*ctxp = ctx;
	return MCINIT_KERR_OK;
fail_start:
	d->EventDestroy(ctx->start);
fail_stream:
	d->StreamDestroy(ctx->stream);
fail:
	free(ctx);
	return cuda_fail(d, e, "creating a stream and events", msg, msgsz);
}

static void
gpu_close(void *vctx)
{
	struct gpu_ctx *ctx = vctx;

	if (!ctx)
		return;
	current(ctx);
	ctx->d->StreamSynchronize(ctx->stream);
	ctx->d->EventDestroy(ctx->stop);
	ctx->d->EventDestroy(ctx->start);
	ctx->d->StreamDestroy(ctx->stream);
	free(ctx);
}

static int
gpu_alloc(void *vctx, void **p, size_t bytes)
{
	struct gpu_ctx *ctx = vctx;
	CUdeviceptr dp = 0;

	*p = NULL;
	if (current(ctx) || ctx->d->MemAlloc(&dp, bytes ? bytes : 1) != CUDA_SUCCESS)
		return MCINIT_KERR_NOMEM;
	*p = (void *)(uintptr_t)dp;
	return MCINIT_KERR_OK;
}

static void
gpu_free(void *vctx, void *p)
{
	struct gpu_ctx *ctx = vctx;

	if (p && !current(ctx))
		ctx->d->MemFree((CUdeviceptr)(uintptr_t)p);
}

static int
synced(struct gpu_ctx *ctx, int err)
{
	if (err)
		return err;
	return ctx->d->StreamSynchronize(ctx->stream) == CUDA_SUCCESS ? MCINIT_KERR_OK
	                                                              : MCINIT_KERR_CUDA;
}

static int
gpu_fill(void *vctx, enum mcinit_dtype dt, void *p, size_t n, uint64_t seed, uint32_t tensor)
{
	struct gpu_ctx *ctx = vctx;
	int err = current(ctx);

	return synced(ctx, err ? err : mcinit_kgpu_fill(dt, p, n, seed, tensor, ctx->stream));
}

static int
gpu_run_timed(void *vctx, enum mcinit_kop op, const struct mcinit_kargs *a, double *secs)
{
	struct gpu_ctx *ctx = vctx;
	const struct mcinit_kdrv *d = ctx->d;
	float ms = 0;
	int err;

	*secs = 0;
	if ((err = current(ctx)))
		return err;
	if (d->EventRecord(ctx->start, ctx->stream) != CUDA_SUCCESS)
		return MCINIT_KERR_CUDA;
	if ((err = mcinit_kgpu_run(op, a, ctx->stream)))
		return err;
	if (d->EventRecord(ctx->stop, ctx->stream) != CUDA_SUCCESS ||
	    d->EventSynchronize(ctx->stop) != CUDA_SUCCESS ||
	    d->EventElapsedTime(&ms, ctx->start, ctx->stop) != CUDA_SUCCESS)
		return MCINIT_KERR_CUDA;
	*secs = ms * 1e-3;
	return MCINIT_KERR_OK;
}

static int
gpu_gather(void *vctx, enum mcinit_dtype dt, const void *p, const uint64_t *idx, size_t k,
           float *out)
{
	struct gpu_ctx *ctx = vctx;
	const struct mcinit_kdrv *d = ctx->d;
	CUdeviceptr didx = 0, dout = 0;
	int err;

	if ((err = current(ctx)))
		return err;
	err = MCINIT_KERR_NOMEM;
	if (d->MemAlloc(&didx, (k ? k : 1) * sizeof *idx) != CUDA_SUCCESS ||
	    d->MemAlloc(&dout, (k ? k : 1) * sizeof *out) != CUDA_SUCCESS)
		goto out;
	err = MCINIT_KERR_CUDA;
	if (d->MemcpyHtoDAsync(didx, idx, k * sizeof *idx, ctx->stream) != CUDA_SUCCESS)
		goto out;
	if ((err = mcinit_kgpu_gather(dt, p, (const uint64_t *)(uintptr_t)didx, k,
	                              (float *)(uintptr_t)dout, ctx->stream)))
		goto out;
	err = MCINIT_KERR_CUDA;
	if (d->MemcpyDtoHAsync(out, dout, k * sizeof *out, ctx->stream) != CUDA_SUCCESS)
		goto out;
	err = synced(ctx, MCINIT_KERR_OK);
out:
	/* the copies may still be queued after a failure: let them finish */
	d->StreamSynchronize(ctx->stream);
	if (dout)
		d->MemFree(dout);
	if (didx)
		d->MemFree(didx);
	return err;
}

static int
gpu_bench(void *vctx, enum mcinit_kop op, struct mcinit_kargs *a, int calls,
          struct mcinit_kbench *t)
{
	struct gpu_ctx *ctx = vctx;
	int err = current(ctx);

	return err ? err : mcinit_kgpu_bench(op, a, calls, ctx->stream, t);
}

static const struct mcinit_kb gpu_backend = {"gpu",         gpu_open,   gpu_close,
                                             gpu_alloc,     gpu_free,   gpu_fill,
                                             gpu_run_timed, gpu_gather, gpu_bench};

/* The module's entries (gpu-load.c opens it): the backend, and why it
 * cannot run ("" when the driver is there). */
__attribute__((visibility("default"))) const struct mcinit_kb *
mcinit_kb_gpu_module(void)
{
	return &gpu_backend;
}

__attribute__((visibility("default"))) const char *
mcinit_kb_gpu_module_why(void)
{
	static char why[1024];

	return mcinit_kdrv(why, sizeof why) ? "" : why;
}
