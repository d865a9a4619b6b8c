/*
 * gpu.h — what the phase engine asks of the GPU backend.  One backend is
 * built in, chosen by configure through automake conditionals: gpu-none.c
 * (no CUDA/NCCL compiled in: no device, every GPU phase is skipped), or
 * gpu-cuda.c (CUDA runtime: devices, versions, memory) with gpu-nccl.c
 * (NCCL: communicators, collectives).  The decisions that need no GPU are
 * in gpu-plan.h; init-gpu.c runs the phases with both.
 *
 * Communicators are `void *` here (ncclComm_t inside gpu-nccl.c), so that
 * nothing outside the backend includes nccl.h.  Every call that can fail
 * returns 0 or -1 with err (MCINIT_E_* codes: MCINIT_E_UNAVAILABLE without
 * a device or library, MCINIT_E_TIMEOUT past a deadline, MCINIT_E_OS for a
 * CUDA or NCCL error, named with its text).  Deadlines are mcinit_now()
 * seconds.
 *
 * Ownership: a communicator from _init_start or _split_start belongs to
 * the caller until mcinit_nccl_destroy; nothing else here allocates for
 * the caller.
 */
#ifndef MCINIT_GPU_H
#define MCINIT_GPU_H

#include <stddef.h>

#include "gpu/gpu-plan.h"
#include "core/util.h"

/* mcinit_gpu_count (how many CUDA devices this process sees; 0 with why
 * filled: cudaErrorInsufficientDriver, cudaErrorNoDevice, or not compiled
 * in) is public: mcinit.h. */

/* Versions for the report: 0 when unknown / not compiled in.  The headers'
 * are those mcinit was compiled with (NCCL_VERSION_CODE, CUDART_VERSION);
 * the others come from the libraries loaded at run time (ncclGetVersion,
 * cudaRuntimeGetVersion, cudaDriverGetVersion). */
struct mcinit_gpu_versions {
	int nccl_runtime, nccl_header, cuda_runtime, cuda_header, cuda_driver;
	/* the files libnccl and libcudart were loaded from; "" or NULL when
	 * they were not (static strings) */
	const char *nccl_library, *cuda_library;
	/* why libnccl did not load (NULL when it did, or nobody tried) */
	const char *nccl_missing;
	/* why each was taken from there ("VIRTUAL_ENV=...: ...", "the dynamic
	 * loader ..."), and another libnccl, a different file, visible too
	 * (the trainer may load that one); "" or NULL when none (static) */
	const char *nccl_how, *cuda_how, *nccl_other, *nccl_other_how;
	/* an NVIDIA driver is on this node (it answers, or its kernel module
	 * is loaded): "no CUDA device" is then something to fix, not a CPU
	 * node to run --allow-no-cuda on */
	int gpu_node;
};
void mcinit_gpu_versions(struct mcinit_gpu_versions *v);

/* ---- device ---- */

/* Makes `device` this process's current device; its PCI bus id
 * ("0000:1b:00.0") into busid[cap] and its name into name[ncap]. */
int mcinit_gpu_select(int device, char *busid, size_t cap, char *name, size_t ncap,
                      struct mcinit_err *err);
/* The PCI bus id of a device without selecting it (for the rendezvous). */
int mcinit_gpu_busid(int device, char *busid, size_t cap);

/* What `mcinit doctor` reports of a device (cudaDeviceGetAttribute): -1
 * where unknown. */
struct mcinit_gpu_props {
	char name[256], busid[32];
	int compute_mode; /* cudaComputeMode: 0 default, 2 prohibited, 3 exclusive process */
	int ecc;          /* ECC enabled: 1, 0 */
};
/* 0, or -1 (no such device, no runtime, a backend without it). */
int mcinit_gpu_props(int device, struct mcinit_gpu_props *p);

/* What NVML knows of a device (gpu-nvml.c; libnvidia-ml.so.1, the
 * driver's, opened at the first call in every build): -1 where unknown. */
struct mcinit_nvml_props {
	int mig;         /* MIG mode now: 1 on, 0 off (also a GPU without MIG) */
	int mig_pending; /* MIG mode after the next GPU reset */
	int nvlinks;     /* NVLinks active */
};
/* The device of PCI bus id busid ("0000:1b:00.0"): 0, or -1 with why[cap]
 * (no NVML, NVML that cannot start, a device it does not know). */
int mcinit_nvml_props(const char *busid, struct mcinit_nvml_props *p, char *why, size_t cap);
/* The NVML file opened, NULL when none could be. */
const char *mcinit_nvml_library(void);

/* ---- NCCL ---- */

#define MCINIT_NCCL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */

/* ncclGetUniqueId (works without a GPU: it opens the bootstrap socket). */
int mcinit_nccl_unique_id(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err);

/* Starts the non-blocking creation of the world communicator: config from
 * NCCL_CONFIG_INITIALIZER, blocking = 0, o's fields (may be NULL); nid = 0
 * or 1 is ncclCommInitRankConfig with ids[0], nid > 1 is
 * ncclCommInitRankScalable with ids[0..nid).  *comm is set at once (NCCL
 * allocates it before returning ncclInProgress); poll it with
 * mcinit_nccl_wait. */
int mcinit_nccl_init_start(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
                           const struct mcinit_nccl_opts *o, struct mcinit_err *err);
/* Starts ncclCommSplit(parent, color, key) non-blocking; color may be
 * MCINIT_NCCL_NOCOLOR (then *child stays NULL).  With a non-blocking
 * parent the child pointer is only valid once the parent leaves
 * ncclInProgress: wait on the parent first, then on the child. */
int mcinit_nccl_split_start(void *parent, int color, int key, const struct mcinit_nccl_opts *o,
                            void **child, struct mcinit_err *err);
/* Polls ncclCommGetAsyncError until the communicator leaves ncclInProgress
 * (0), fails (-1, NCCL's text) or the deadline passes (-1,
 * MCINIT_E_TIMEOUT; the caller calls ncclCommAbort through _destroy). */
int mcinit_nccl_wait(void *comm, double deadline, struct mcinit_err *err);
/* The ncclComm_t inside (for the library's callers), NULL for NULL. */
void *mcinit_nccl_handle(void *comm);
/* The number of ranks and this rank's index in comm. */
int mcinit_nccl_info(void *comm, int *size, int *rank, struct mcinit_err *err);

/* One all-reduce (sum, int64) of `value` over comm on the device; the
 * result in *sum.  Waits until the deadline at most. */
int mcinit_nccl_allreduce(void *comm, long long value, long long *sum, double deadline,
                          struct mcinit_err *err);
/* Times `iters` runs of collective c over `bytes` (nccl-tests' counting:
 * see mcinit_bandwidth) after one warm-up; the mean seconds per run. */
int mcinit_nccl_time(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline,
                     double *seconds, struct mcinit_err *err);
/* Frees what mcinit_nccl_time grew for comm (its two buffers, up to 1 GiB
 * each), once comm's sweep is done and its stream idle, so that a sweep of
 * many communicators holds one communicator's buffers at a time. */
void mcinit_nccl_time_done(void *comm);
/* tp-comm: allocates `bytes` with ncclMemAlloc, registers it with comm
 * (ncclCommRegister, waited for until the deadline), deregisters and
 * frees it. */
int mcinit_nccl_buffers(void *comm, size_t bytes, double deadline, struct mcinit_err *err);

/* Finalizes comm within the deadline then destroys it; ncclCommAbort when
 * the deadline passes, or at once when `hard` (peers may be blocked).  A
 * mcinit_comm_destroy_fn (ctx unused).  0, or -1 when ncclCommAbort ended it
 * after a failed finalize.  hard = MCINIT_END_ABORT only aborts (once) and
 * keeps comm and its memory for a later call, which frees them. */
int mcinit_nccl_destroy(void *comm, double deadline, int hard, void *ctx);

/* ---- the backend as a table ----
 * The calls above dispatch to the backend configure built in
 * (mcinit_gpu_builtin); tests put a fake one in its place (mcinit_gpu_use)
 * to run init-gpu.c's phases without a GPU. */
struct mcinit_gpu_ops {
	int (*count)(char *why, size_t cap);
	void (*versions)(struct mcinit_gpu_versions *v);
	int (*select)(int device, char *busid, size_t cap, char *name, size_t ncap,
	              struct mcinit_err *err);
	int (*busid)(int device, char *busid, size_t cap);
	int (*props)(int device, struct mcinit_gpu_props *p); /* may be NULL */
	int (*unique_id)(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err);
	int (*init_start)(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
	                  const struct mcinit_nccl_opts *o, struct mcinit_err *err);
	int (*split_start)(void *parent, int color, int key, const struct mcinit_nccl_opts *o,
	                   void **child, struct mcinit_err *err);
	int (*wait)(void *comm, double deadline, struct mcinit_err *err);
	void *(*handle)(void *comm);
	int (*info)(void *comm, int *size, int *rank, struct mcinit_err *err);
	int (*allreduce)(void *comm, long long value, long long *sum, double deadline,
	                 struct mcinit_err *err);
	int (*time)(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline,
	            double *seconds, struct mcinit_err *err);
	int (*buffers)(void *comm, size_t bytes, double deadline, struct mcinit_err *err);
	void (*time_done)(void *comm); /* may be NULL */
	int (*destroy)(void *comm, double deadline, int hard, void *ctx);
};
extern const struct mcinit_gpu_ops mcinit_gpu_builtin;
/* Replaces the backend (NULL: the built-in one again).  For tests only:
 * process-wide and not thread-safe. */
void mcinit_gpu_use(const struct mcinit_gpu_ops *ops);

#endif
