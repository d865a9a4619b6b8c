/* gpu-backend.c — the phase on a CUDA device, through the runtime API
 * (libcudart only: a binary that needs libcuda.so.1 does not start on a
 * machine without a driver). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "kgpu.h"
#include "kbackend.h"

struct gpu_ctx {
	cudaStream_t stream;
	cudaEvent_t start, stop;
};

static int
cuda_fail(cudaError_t e, const char *what, char *msg, size_t msgsz)
{
	if (msg)
		snprintf(msg, msgsz, "%s: %s (CUDA error %d)", what, cudaGetErrorString(e), (int)e);
	/* No driver (35) and no device (100) both mean "no GPU here". */
	return e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice ? MCINIT_KERR_NOGPU
	                                                                  : MCINIT_KERR_CUDA;
}

/* Peak DRAM bandwidth from the memory clock (kHz) and bus width (bits),
 * double data rate; 0 when the device does not say. */
static double
peak_gbps(int dev)
{
	int khz = 0, bits = 0;

	if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess)
		return 0;
	return 2.0 * khz * 1e3 * (bits / 8.0) / 1e9;
}

static int
gpu_open(void **ctxp, int gpu, char *name, size_t namesz, double *peak, char *msg, size_t msgsz)
{
	struct gpu_ctx *ctx;
	struct cudaDeviceProp prop;
	cudaError_t e;
	int n = 0;

	*ctxp = NULL;
	if ((e = cudaGetDeviceCount(&n)) != cudaSuccess)
		return cuda_fail(e, "cudaGetDeviceCount", msg, msgsz);
	if (gpu < 0 || gpu >= n) {
		snprintf(msg, msgsz, "CUDA device %d requested, %d present", gpu, n);
		return MCINIT_KERR_NOGPU;
	}
	if ((e = cudaSetDevice(gpu)) != cudaSuccess)
		return cuda_fail(e, "cudaSetDevice", msg, msgsz);
	if ((e = cudaGetDeviceProperties(&prop, gpu)) != cudaSuccess)
		return cuda_fail(e, "cudaGetDeviceProperties", msg, msgsz);
	snprintf(name, namesz, "%s", prop.name);
	*peak = peak_gbps(gpu);
	if (!(ctx = calloc(1, sizeof *ctx)))
		return MCINIT_KERR_NOMEM;
	if ((e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking)) != cudaSuccess)
		goto fail;
	if ((e = cudaEventCreate(&ctx->start)) != cudaSuccess)
		goto fail_stream;
	if ((e = cudaEventCreate(&ctx->stop)) != cudaSuccess)
		goto fail_start;
	*ctxp = ctx;
	return MCINIT_KERR_OK;
fail_start:
	cudaEventDestroy(ctx->start);
fail_stream:
	cudaStreamDestroy(ctx->stream);
fail:
	free(ctx);
	return cuda_fail(e, "creating a stream and events", msg, msgsz);
}

static void
gpu_close(void *vctx)
{
	struct gpu_ctx *ctx = vctx;

	if (!ctx)
		return;
	cudaEventDestroy(ctx->stop);
	cudaEventDestroy(ctx->start);
	cudaStreamDestroy(ctx->stream);
	free(ctx);
}

static int
gpu_alloc(void *ctx, void **p, size_t bytes)
{
	(void)ctx;
	*p = NULL;
	return cudaMalloc(p, bytes ? bytes : 1) == cudaSuccess ? MCINIT_KERR_OK : MCINIT_KERR_NOMEM;
}

static void
gpu_free(void *ctx, void *p)
{
	(void)ctx;
	cudaFree(p);
}

static int
synced(struct gpu_ctx *ctx, int err)
{
	if (err)
		return err;
	return cudaStreamSynchronize(ctx->stream) == cudaSuccess ? MCINIT_KERR_OK
	                                                         : MCINIT_KERR_CUDA;
}

static int
gpu_fill(void *vctx, enum mcinit_dtype dt, void *p, size_t n, uint64_t seed, uint32_t tensor)
{
	struct gpu_ctx *ctx = vctx;

	return synced(ctx, mcinit_kgpu_fill(dt, p, n, seed, tensor, ctx->stream));
}

static int
gpu_run_timed(void *vctx, enum mcinit_kop op, const struct mcinit_kargs *a, double *secs)
{
	struct gpu_ctx *ctx = vctx;
	float ms = 0;
	int err;

	*secs = 0;
	if (cudaEventRecord(ctx->start, ctx->stream) != cudaSuccess)
		return MCINIT_KERR_CUDA;
	if ((err = mcinit_kgpu_run(op, a, ctx->stream)))
		return err;
	if (cudaEventRecord(ctx->stop, ctx->stream) != cudaSuccess ||
	    cudaEventSynchronize(ctx->stop) != cudaSuccess ||
	    cudaEventElapsedTime(&ms, ctx->start, ctx->stop) != cudaSuccess)
		return MCINIT_KERR_CUDA;
	*secs = ms * 1e-3;
	return MCINIT_KERR_OK;
}

static int
gpu_gather(void *vctx, enum mcinit_dtype dt, const void *p, const uint64_t *idx, size_t k,
           float *out)
{
	struct gpu_ctx *ctx = vctx;
	uint64_t *didx = NULL;
	float *dout = NULL;
	int err = MCINIT_KERR_NOMEM;

	if (cudaMalloc((void **)&didx, k * sizeof *didx) != cudaSuccess ||
	    cudaMalloc((void **)&dout, k * sizeof *dout) != cudaSuccess)
		goto out;
	err = MCINIT_KERR_CUDA;
	if (cudaMemcpyAsync(didx, idx, k * sizeof *didx, cudaMemcpyHostToDevice, ctx->stream) !=
	    cudaSuccess)
		goto out;
	if ((err = mcinit_kgpu_gather(dt, p, didx, k, dout, ctx->stream)))
		goto out;
	err = MCINIT_KERR_CUDA;
	if (cudaMemcpyAsync(out, dout, k * sizeof *dout, cudaMemcpyDeviceToHost, ctx->stream) !=
	    cudaSuccess)
		goto out;
	err = synced(ctx, MCINIT_KERR_OK);
out:
	cudaFree(dout);
	cudaFree(didx);
	return err;
}

static int
gpu_bench(void *vctx, enum mcinit_kop op, struct mcinit_kargs *a, int calls,
          struct mcinit_kbench *t)
{
	struct gpu_ctx *ctx = vctx;

	return mcinit_kgpu_bench(op, a, calls, ctx->stream, t);
}

static const struct mcinit_kb gpu_backend = {"gpu",         gpu_open,   gpu_close,
                                             gpu_alloc,     gpu_free,   gpu_fill,
                                             gpu_run_timed, gpu_gather, gpu_bench};

/* The module's one entry (gpu-load.c opens it). */
__attribute__((visibility("default"))) const struct mcinit_kb *
mcinit_kb_gpu_module(void)
{
	return &gpu_backend;
}
