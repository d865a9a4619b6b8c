/*
 * init-impl.h — the phase engine's state, shared by phase.c (bookkeeping),
 * faults.c (MCINIT_FAULT), init.c (the phases and the CPU path), init-gpu.c
 * (the CUDA/NCCL phases) and api-init.c (the public mcinit_initialize).  Not installed; nothing
 * outside those files includes it.
 */
#ifndef MCINIT_INIT_IMPL_H
#define MCINIT_INIT_IMPL_H

#include <stdarg.h>

#include <jansson.h>

#include "gpu/gpu-plan.h"
#include "run/init.h"
#include "plan/plan.h"
#include "topo/topology.h"

struct mcinit_init {
	const struct mcinit_init_opts *o;
	struct mcinit_env env;
	struct mcinit_err env_err;
	bool env_ok;
	struct mcinit_job *job; /* the job plan: config and derived values */
	struct mcinit_diags d;
	bool config_ok;
	struct mcinit_topo t;
	double timeout;
	struct mcinit_phase_rec ph[MCINIT_PH_COUNT];
	double t0[MCINIT_PH_COUNT]; /* monotonic start */
	enum mcinit_phase failed;
	struct mcinit_store_server *srv; /* rank 0 serves when nobody else does */
	struct mcinit_store_client *cl;
	char host[256];
	char cfg_digest[17];
	char world_src[48]; /* "the torchrun environment": the job's world's source */
	struct mcinit_seeds seeds;
	json_t *world;             /* rank 0: every rank's report, after ready */
	struct mcinit_fault fault; /* MCINIT_FAULT; kind NONE when unset */
	struct mcinit_err fault_err;
	bool fault_ok, fault_fired, deferring;
	/* the GPU phases (init-gpu.c) */
	bool gpu;   /* a device was selected: CUDA/NCCL phases run */
	int device; /* CUDA ordinal */
	char busid[32], gpu_name[128];
	struct mcinit_comms comms;    /* the world, then the splits in creation order */
	struct mcinit_nccl_cfgs ncfg; /* nccl_communicator_config_path */
	unsigned long long gen_seed;  /* the device generator's (Philox) seed */
	/* the public API (api-init.c) */
	struct mcinit_init_opts own_opts; /* o points here when the library made I */
	mcinit_finish_fn pending;         /* the lazy finish not yet called */
	/* mcinit_init_options.on_fault and its argument (api-init.c's
	 * trampoline maps the engine's fault kinds to the public actions) */
	void (*pub_on_fault)(void *arg, int action);
	void *pub_arg;
};

/* ---- phase.c: the bookkeeping of init.c and init-gpu.c ---- */

/* The phases' names, by enum mcinit_phase: the one list, for phase.c
 * (mcinit_phase_names) and faults.c (MCINIT_FAULT's spelling). */
#define MCINIT_PHASE_NAMES                                                                         \
	{                                                                                          \
		"config", "env", "rendezvous", "device", "world", "groups", "verify", "seeds",     \
		    "kernels", "tp-comm", "ready"                                                  \
	}

extern const char *const mcinit_phase_names[MCINIT_PH_COUNT];
/* Phase p begins: the launcher's hook, the fault point, the start time and
 * the phase key in the store (for the launcher to name a dead worker's). */
void mcinit_ph_begin(struct mcinit_init *I, enum mcinit_phase p);
/* Phase p ends with status s and a detail; the progress line on rank 0. */
void mcinit_ph_vend(struct mcinit_init *I, enum mcinit_phase p, enum mcinit_phase_status s,
                    const char *fmt, va_list ap);
void mcinit_ph_end(struct mcinit_init *I, enum mcinit_phase p, enum mcinit_phase_status s,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Ends p failed with the text in err (code); returns -1. */
int mcinit_ph_fail(struct mcinit_init *I, enum mcinit_phase p, struct mcinit_err *err, int code,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Ranks whose key mcinit/<name>/<rank> is missing in the store, as "1, 3
 * and 7" into b; how many, or -1 when the store is gone. */
long mcinit_ph_missing(struct mcinit_init *I, const char *name, struct mcx_buf *b);
/* Writes a line to the progress stream (rank 0), if any. */
void mcinit_ph_note(struct mcinit_init *I, const char *text);

/* ---- faults.c ---- */

/* The fault kinds' spellings, by enum mcinit_fault_kind ("" for none). */
extern const char *const mcinit_fault_kinds[MCINIT_FAULT_NKINDS];
/* MCINIT_FAULT's rank and phase reached: fail as its kind says. */
void mcinit_fault_point(struct mcinit_init *I, enum mcinit_phase p);

/* ---- the CUDA/NCCL phases (init-gpu.c), run when a device is there ---- */

/* Reads dist.nccl_communicator_config_path (if set) into I->ncfg, its
 * warnings to the progress stream.  0, or -1 with err (MCINIT_E_NOINPUT,
 * MCINIT_E_PARSE). */
int mcinit_gpu_load_cfgs(struct mcinit_init *I, struct mcinit_err *err);
/* device: versions refused or not, the CUDA device of this local rank,
 * CPU binding.  n is the device count. */
int mcinit_gpu_phase_device(struct mcinit_init *I, int n, struct mcinit_err *err);
/* world, groups, verify (and the --bandwidth sweep). */
int mcinit_gpu_phase_comms(struct mcinit_init *I, struct mcinit_err *err);
/* The seeds phase's device part: the generator seeded and proved. */
int mcinit_gpu_seed_device(struct mcinit_init *I, char *detail, size_t cap, struct mcinit_err *err);
/* kernels: Megatron's warm-up of the fused kernels on this rank's GPU,
 * checked against the CPU reference and timed (kernels/phase.c). */
int mcinit_gpu_phase_kernels(struct mcinit_init *I, struct mcinit_err *err);
/* tp-comm's buffers on the TP communicator: allocate, register, release. */
int mcinit_gpu_tp_buffers(struct mcinit_init *I, size_t bytes, char *detail, size_t cap,
                          struct mcinit_err *err);
/* Every communicator, groups first (reverse creation order), the world
 * last; `hard` (a failure path): ncclCommAbort at once, else finalize within the
 * timeout.  Idempotent. */
void mcinit_gpu_teardown(struct mcinit_init *I, bool hard);
/* The report's "communicators" array (new reference). */
json_t *mcinit_gpu_comms_json(const struct mcinit_init *I);

#endif
