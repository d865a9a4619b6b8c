/*
 * init.h — the phase engine of `mcinit run` (run.md "Phases"): config, env,
 * rendezvous, device, world, groups, verify, seeds, kernels, tp-comm, ready.
 * Each phase is timed and ends ok, failed, deferred or skipped, with a
 * detail line; a failure names the rank and the phase.
 *
 * A phase is one function of the table in init.c.  The GPU phases (device,
 * world, groups' NCCL splits, verify, seeds' device generator, kernels,
 * tp-comm, teardown) come from the gpu backend (gpu.h), chosen at build time:
 * gpu-none.c reports no device, so those phases are skipped and the CPU path
 * runs — where the ranks still prove that they agree, for real, through the
 * store: each publishes the digest of its validated config and of its own
 * groups (from the topology engine), and rank 0 names any rank that differs.
 *
 * Lazy MPU init (dist.lazy_mpu_init): config and env run, the distributed
 * phases are reported `deferred`, and mcinit_init_run hands back a finish
 * function (the C analogue of Megatron-Bridge's initialize_megatron(...) ->
 * Optional[Callable]) that runs them later.
 *
 * Ownership: struct mcinit_init owns its store client and server, its
 * config and diagnostics; it borrows the options and the cli.  Free with
 * mcinit_init_free (which also tears down whatever was set up).
 */
#ifndef MCINIT_INIT_H
#define MCINIT_INIT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/diag.h"
#include "launch/contract.h"
#include "mcinit.h"
#include "core/util.h"

enum mcinit_phase {
	MCINIT_PH_CONFIG,
	MCINIT_PH_ENV,
	MCINIT_PH_RENDEZVOUS,
	MCINIT_PH_DEVICE,
	MCINIT_PH_WORLD,
	MCINIT_PH_GROUPS,
	MCINIT_PH_VERIFY,
	MCINIT_PH_SEEDS,
	MCINIT_PH_KERNELS,
	MCINIT_PH_TP_COMM,
	MCINIT_PH_READY,
	MCINIT_PH_COUNT
};

enum mcinit_phase_status {
	MCINIT_PS_PENDING, /* not reached */
	MCINIT_PS_OK,
	MCINIT_PS_FAILED,
	MCINIT_PS_DEFERRED,
	MCINIT_PS_SKIPPED,
};

const char *mcinit_phase_name(enum mcinit_phase p);
const char *mcinit_phase_status_name(enum mcinit_phase_status s);

/* Fault injection (MCINIT_FAULT=RANK:PHASE:KIND in the job's environment,
 * opts.envp): when rank RANK begins phase PHASE it fails as KIND says
 * (faults.def), so that the launcher's and the peers' handling of a broken
 * rank can be tested without a broken machine.  The library finds the rank
 * and the phase, and hangs or stalls there itself; a crash, or ending with
 * MCINIT_FAULT_EXIT_STATUS, is the program's to carry out (opts.on_fault):
 * the library never ends the process. */
enum mcinit_fault_kind {
	MCINIT_FAULT_NONE,
#define MCINIT_FAULT_KIND(name, spelling, what) MCINIT_FAULT_##name,
#include "run/faults.def"
#undef MCINIT_FAULT_KIND
	MCINIT_FAULT_NKINDS
};
#define MCINIT_FAULT_EXIT_STATUS MCINIT_FAULT_EXIT_CODE /* mcinit.h */

struct mcinit_fault {
	long rank;
	int phase; /* enum mcinit_phase */
	enum mcinit_fault_kind kind;
};

/* Parses "RANK:PHASE:KIND" (PHASE a name of mcinit_phase_name, KIND a
 * spelling of faults.def).  0, or -1 with err (MCINIT_E_USAGE). */
int mcinit_fault_parse(const char *spec, struct mcinit_fault *f, struct mcinit_err *err);

struct mcinit_phase_rec {
	enum mcinit_phase_status status;
	double start, end; /* unix seconds (wall clock) */
	double seconds;    /* measured on the monotonic clock */
	char detail[400];
};

/* How the process's environment changes: value NULL unsets name; overwrite
 * 0 sets it only when it is unset (Python's setdefault). */
typedef void (*mcinit_setenv_fn)(const char *name, const char *value, int overwrite);

struct mcinit_init_opts {
	bool allow_no_cuda;
	bool skip_mpu; /* library flag skip_mpu_initialization */
	bool lazy;     /* --lazy-mpu-init: sets dist.lazy_mpu_init (mcinit_init_config) */
	bool no_bind;
	bool bandwidth;     /* --bandwidth: time each communicator (GPU path) */
	bool nccl_blocking; /* blocking NCCL communicators (library callers' choice) */
	bool no_warmup;     /* --no-warmup: skip the kernels phase */
	double timeout;     /* seconds; <= 0: dist.distributed_timeout_minutes */
	struct mcinit_env_opts env;
	const char *const *envp; /* NULL: the process's */
	FILE *progress;          /* a progress line per phase (rank 0), or NULL */
	/* Applies the job's env_vars before the GPU phases (NCCL reads them)
	 * and the launcher contract at hand-over.  The library never touches
	 * the environment itself (a trainer may have threads reading it): the
	 * program passes a function that changes it; NULL leaves it alone. */
	mcinit_setenv_fn set_env;
	/* The job checked before any rank starts (the launcher): only the
	 * config phase runs and MCINIT_FAULT fires nowhere; its syntax is
	 * still checked, so a typo fails before the workers start. */
	bool check_only;
	/* Where the job description's world_size came from, as messages name
	 * it (the launcher: "--nnodes x --nproc-per-node"); NULL:
	 * "--world-size".  A launcher's environment names itself instead. */
	const char *world_source;
	/* Called as each phase begins (and with "command" before a hand-over):
	 * the CLI tells its launcher, which names the phase of a rank that
	 * dies without a word.  NULL: nobody is told. */
	void (*on_phase)(void *arg, const char *phase);
	void *on_phase_arg;
	/* Carries out a MCINIT_FAULT of kind CRASH or EXIT when it is due (it
	 * does not return).  NULL: such a fault is refused when the config
	 * phase starts (a usage error). */
	void (*on_fault)(void *arg, enum mcinit_fault_kind kind);
	void *on_fault_arg;
};

struct mcinit_init;

/* The finish function handed back on the lazy path. */
typedef int (*mcinit_finish_fn)(struct mcinit_init *I, struct mcinit_err *err);

struct mcinit_init *mcinit_init_new(const struct mcinit_init_opts *o);
void mcinit_init_free(struct mcinit_init *I);

/* Phase config: loads and checks the job (the library's job plan; its
 * world size is the launcher environment's when the description gives
 * none).  Returns 0, 1 when the job is invalid (diagnostics in
 * mcinit_init_diags), -1 with err otherwise.  desc is borrowed. */
int mcinit_init_config(struct mcinit_init *I, const struct mcinit_job_desc *desc,
                       struct mcinit_err *err);
struct mcinit_diags *mcinit_init_diags(struct mcinit_init *I);

/* Every other phase in order.  *finish is set to the finish function on the
 * lazy path (phases deferred), NULL otherwise.  0, or -1 with err (err->code
 * MCINIT_E_TIMEOUT for a peer that did not arrive, MCINIT_E_UNAVAILABLE without a GPU,
 * 1 for ranks that disagree on the job). */
int mcinit_init_run(struct mcinit_init *I, mcinit_finish_fn *finish, struct mcinit_err *err);

/* The JSON report (run.md "Report"): on rank 0 after the ready barrier the
 * whole world, else this rank's own view.  New reference. */
struct json_t;
struct json_t *mcinit_init_report(const struct mcinit_init *I);
/* The internal view of the launcher's environment (the program's
 * supervisor; callers outside the library use mcinit_init_launcher). */
const struct mcinit_env *mcinit_init_env(const struct mcinit_init *I);

/* mcinit_init_summary, mcinit_init_failed_phase (an enum mcinit_phase as
 * an int), mcinit_init_megatron_args and mcinit_init_handover are public
 * (mcinit.h). */

#endif
