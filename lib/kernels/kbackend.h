/* kbackend.h — where the phase runs the kernels: the CPU references or a
 * CUDA device.  Not a public header.  One backend is open at a time; `ctx'
 * is the backend's own state, from open, released by close. */
#ifndef MCINIT_KBACKEND_H
#define MCINIT_KBACKEND_H

#include "mcinit_kernels.h"

struct mcinit_kb {
	const char *name; /* "cpu" or "gpu" */
	/* Opens device `gpu': its name (into name[namesz]) and peak memory
	 * bandwidth (0 when unknown); a message into msg on failure. */
	int (*open)(void **ctx, int gpu, char *name, size_t namesz, double *peak_gbps, char *msg,
	            size_t msgsz);
	void (*close)(void *ctx);
	int (*alloc)(void *ctx, void **p, size_t bytes);
	void (*free)(void *ctx, void *p);
	/* p[i] = mcinit_kernels_input(dt, seed, tensor, i), i < n */
	int (*fill)(void *ctx, enum mcinit_dtype dt, void *p, size_t n, uint64_t seed,
	            uint32_t tensor);
	/* One call of op, finished; its duration in *secs. */
	int (*run_timed)(void *ctx, enum mcinit_kop op, const struct mcinit_kargs *a, double *secs);
	/* out[j] = element idx[j] of the dt tensor p, j < k (host idx and out) */
	int (*gather)(void *ctx, enum mcinit_dtype dt, const void *p, const uint64_t *idx, size_t k,
	              float *out);
	/* calls of op (a->offset 0 .. calls-1, left at the last) and a copy
	 * of as many bytes, timed as struct mcinit_kbench says */
	int (*bench)(void *ctx, enum mcinit_kop op, struct mcinit_kargs *a, int calls,
	             struct mcinit_kbench *t);
};

extern const struct mcinit_kb mcinit_kb_cpu;
/* The CUDA backend, or NULL in a build without CUDA or where it does not
 * load (gpu-load.c, which opens the module gpu-backend.c is built into, or
 * nogpu.c, chosen by configure). */
const struct mcinit_kb *mcinit_kb_gpu(void);
/* The CUDA kernels module's entry (gpu-backend.c); linked in only by
 * programs that take the module's objects themselves. */
const struct mcinit_kb *mcinit_kb_gpu_module(void);
/* Why the module's backend cannot run: "" when the driver loads (once per
 * process), else why not (gpu-backend.c). */
const char *mcinit_kb_gpu_module_why(void);
/* Why mcinit_kb_gpu is NULL ("" when it is not). */
const char *mcinit_kb_gpu_why(void);

#endif
