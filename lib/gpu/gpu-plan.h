/*
 * gpu-plan.h — everything about the CUDA/NCCL phases of `mcinit run` that
 * can be decided without a GPU, NCCL or CUDA: built in every configuration
 * and unit-tested there (tests/unit/test-gpu-plan.c), so that the CUDA
 * backend (gpu-cuda.c, gpu-nccl.c) is left with calls only.
 *
 *   - per-group NCCL options from dist.nccl_communicator_config_path (the
 *     YAML file Megatron's get_nccl_options reads) and the NCCL environment
 *     variables that silently override them;
 *   - the splits: one per topology family, in creation order, and each
 *     rank's color and key (NCCL_SPLIT_NOCOLOR outside);
 *   - the scalable-init roots (ncclCommInitRankScalable, NCCL >= 2.23);
 *   - bandwidth as nccl-tests reports it (algbw, busbw);
 *   - the version rules (NCCL and CUDA runtime against the headers);
 *   - the communicator list and its teardown order.
 *
 * Errors use struct mcinit_err with MCINIT_E_* codes.  Ownership: every
 * _destroy frees what its _load or _add allocated; nothing else allocates.
 */
#ifndef MCINIT_GPU_PLAN_H
#define MCINIT_GPU_PLAN_H

#include <limits.h>
#include <stddef.h>

#include "topo/topology.h"
#include "core/util.h"

/* NCCL's NCCL_CONFIG_UNDEF_INT: "not set, NCCL's default". */
#define MCINIT_NCCL_UNSET INT_MIN
/* ncclSplit's NCCL_SPLIT_NOCOLOR. */
#define MCINIT_NCCL_NOCOLOR (-1)

/* ---- per-group options (nccl_communicator_config_path) ---- */

/* One group's options: what Megatron's get_nccl_options maps onto
 * ProcessGroupNCCL.Options, i.e. ncclConfig_t fields and a stream priority. */
struct mcinit_nccl_opts {
	int cga_cluster_size; /* cgaClusterSize, MCINIT_NCCL_UNSET = NCCL's 4 */
	int min_ctas;         /* minCTAs (NCCL's 1) */
	int max_ctas;         /* maxCTAs (NCCL's 64) */
	char net_name[8];     /* netName: "IB", "Socket", or "" = NCCL's choice */
	int high_priority;    /* is_high_priority_stream: a CUDA stream priority */
	int blocking;         /* config.blocking = 1 (default 0: non-blocking) */
};
void mcinit_nccl_opts_default(struct mcinit_nccl_opts *o);

struct mcinit_nccl_group_cfg {
	char *group; /* Megatron's group name ("tp", "dp_cp"...); owned */
	struct mcinit_nccl_opts o;
};
struct mcinit_nccl_cfgs {
	struct mcinit_nccl_group_cfg *v; /* owned */
	size_t n;
};

/* Parses the YAML text of a communicator config ({group: {key: value}}).
 * Keys are Megatron's: cga_cluster_size, max_ctas, min_ctas (integers >= 1;
 * cga_cluster_size >= 0), net_name (IB or socket, any case), and
 * is_high_priority_stream (a boolean).  A group name mcinit does not know
 * and a key Megatron ignores are warnings (appended to warn, one per line,
 * "SOURCE:LINE:COL: text"); a bad value is an error (MCINIT_E_PARSE,
 * located).  source names the file in messages.  0, or -1 with err. */
int mcinit_nccl_cfgs_parse(const char *text, size_t len, const char *source,
                           struct mcinit_nccl_cfgs *out, struct mcx_buf *warn,
                           struct mcinit_err *err);
/* The same from a file (MCINIT_E_NOINPUT when unreadable). */
int mcinit_nccl_cfgs_load(const char *path, struct mcinit_nccl_cfgs *out, struct mcx_buf *warn,
                          struct mcinit_err *err);
void mcinit_nccl_cfgs_destroy(struct mcinit_nccl_cfgs *c);
/* The options of group `name` (borrowed), or NULL: NCCL's defaults. */
const struct mcinit_nccl_opts *mcinit_nccl_cfgs_find(const struct mcinit_nccl_cfgs *c,
                                                     const char *name);

/* Megatron's high_priority_stream_groups: the named groups' streams get
 * the highest CUDA priority (an entry is added for a group the file does
 * not name).  A name that is no group kind is a warning. */
void mcinit_nccl_cfgs_high_priority(struct mcinit_nccl_cfgs *c, const char *group,
                                    struct mcx_buf *warn);

/* NCCL reads some environment variables after the config and lets them win
 * (its envConfigOverride): NCCL_COMM_BLOCKING=1 silently cancels mcinit's
 * non-blocking init (and so its deadline), the others a per-group option.
 * Appends one warning line per variable set in envp (NULL-terminated
 * "NAME=value") that overrides something mcinit sets; o may be NULL (the
 * world: only blocking is mcinit's).  Returns the number of warnings. */
int mcinit_nccl_env_overrides(const char *const *envp, const struct mcinit_nccl_opts *o,
                              struct mcx_buf *warn);

/* ---- splits ---- */

/* One ncclCommSplit of the world: a topology family (a kind, or one hcp
 * level), issued by every rank in the same order. */
struct mcinit_split {
	int fam; /* mcinit_topo_fam_* index */
	enum mcinit_group_kind kind;
	int level; /* hcp level, 0 for other kinds */
};
/* The families in the order their first group is created (topology.md):
 * NCCL needs only that every rank issue the splits in one order; this is
 * the order Megatron creates the groups in.  Fills out[0..n) and returns
 * n (at most MCINIT_FAM_MAX). */
int mcinit_split_plan(const struct mcinit_topo *t, struct mcinit_split out[MCINIT_FAM_MAX]);
/* The color (index of the rank's group) and key (position in it) of rank
 * in family fam; MCINIT_NCCL_NOCOLOR for both when no group holds the rank
 * (embd, pos_embd).  0, or -1 for a bad family or rank, or a value that
 * does not fit NCCL's int. */
int mcinit_split_color_key(const struct mcinit_topo *t, int fam, long rank, int *color, int *key);

/* ---- scalable init (ncclCommInitRankScalable) ---- */

/* NCCL staggers a bootstrap root that serves more ranks than its
 * NCCL_UID_STAGGER_THRESHOLD (256): above that, one root per 256 ranks. */
#define MCINIT_NCCL_RANKS_PER_ROOT 256
/* ncclCommInitRankScalable exists from NCCL 2.23. */
#define MCINIT_NCCL_SCALABLE_VERSION 22300
/* How many unique ids (roots) to create for a world of n ranks with the
 * NCCL runtime version `nccl`: 0 means "one id, ncclCommInitRankConfig"
 * (n at or under the threshold, or an NCCL without scalable init); else
 * ceil(n / 256), which is >= 2 and <= n. */
long mcinit_nccl_nids(long n, int nccl);
/* First rank of root i's block: i*floor(n/nid) + min(i, n mod nid) (the
 * first n mod nid roots lead one rank more); NCCL's own rule. */
long mcinit_nccl_root_first(long i, long n, long nid);
/* The root index whose block holds rank. */
long mcinit_nccl_root_of(long rank, long n, long nid);
/* The root index rank leads (it creates that unique id), or -1. */
long mcinit_nccl_root_led(long rank, long n, long nid);

/* ---- bandwidth (nccl-tests' algbw and busbw) ---- */

enum mcinit_coll {
	MCINIT_COLL_ALL_REDUCE,
	MCINIT_COLL_ALL_GATHER,
	MCINIT_COLL_REDUCE_SCATTER,
	MCINIT_COLL_ALL_TO_ALL,
	MCINIT_COLL_SEND_RECV,
	MCINIT_COLL_BROADCAST,
	MCINIT_COLL_COUNT
};
const char *mcinit_coll_name(enum mcinit_coll c);
/* nccl-tests' bus-bandwidth factor for n ranks: all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter, all-to-all (n-1)/n; send/recv, broadcast 1. */
double mcinit_busbw_factor(enum mcinit_coll c, long n);
/* algbw = bytes / seconds in GB/s (1e9), bytes as nccl-tests counts them
 * (the whole buffer: all-gather's output, reduce-scatter's input);
 * busbw = algbw x factor.  seconds <= 0 gives 0. */
void mcinit_bandwidth(enum mcinit_coll c, long n, double bytes, double seconds, double *algbw,
                      double *busbw);
/* What a communicator of this kind carries in training, measured by the
 * sweep: pp neighbours exchange activations (send/recv), expert-parallel
 * groups dispatch tokens (all-to-all), the others reduce (all-reduce). */
enum mcinit_coll mcinit_kind_coll(enum mcinit_group_kind k);

/* ---- tp-comm ---- */

/* Transformer Engine's userbuffers for tp_comm_overlap: one buffer per
 * overlapped GEMM, of [(seq_length x micro_batch_size) / cp, hidden_size],
 * bf16 (1 byte with fp8 all-gather buffers).  Bytes per GPU, 0 when a size
 * is not positive. */
#define MCINIT_TP_COMM_BUFFERS 10
size_t mcinit_tp_comm_bytes(long long seq_length, long long micro_batch_size, long cp,
                            long long hidden_size, int fp8);

/* ---- versions ---- */

/* "2.28.9" from NCCL's code (22809; 2708 before 2.9), "13.0" from CUDA's
 * (13000), into out. */
void mcinit_nccl_version_text(int code, char *out, size_t cap);
void mcinit_cuda_version_text(int code, char *out, size_t cap);
/* Whether the libraries found at run time can serve mcinit run: NCCL older
 * than MCINIT_NCCL_MIN is refused (ncclCommSplit with a config,
 * ncclMemAlloc and ncclCommRegister are what run needs; the later
 * ncclCommInitRankScalable is optional, mcinit_nccl_nids),
 * an NCCL other than the headers' passes with a warning (NCCL keeps its
 * ABI within 2.x; an NGC container's 2.27 serves headers of 2.28); a CUDA
 * runtime older than 12.0 is refused (12 and 13 are bound, gpu-cuda.c),
 * and so is a driver of an older CUDA major than the runtime (the runtime then reports
 * cudaErrorInsufficientDriver; CUDA's minor-version compatibility covers
 * an older minor).  0 is unknown and passes.  0; 1 with a warning in why;
 * -1 with why. */
#define MCINIT_NCCL_MIN   21900 /* 2.19.0: ncclMemAlloc, ncclCommRegister */
#define MCINIT_CUDART_MIN 12000 /* the oldest runtime gpu-cuda.c binds */
int mcinit_gpu_version_check(int nccl_runtime, int nccl_header, int cuda_runtime, int cuda_header,
                             int cuda_driver, char *why, size_t cap);

/* ---- communicators and their teardown ---- */

/* --bandwidth's sizes: 1, 8, 64, 256 MiB and 1 GiB (NVLink's busbw peaks
 * past 64 MiB, as nccl-tests shows up to its -e 1G or more) */
#define MCINIT_BW_SIZES 5

enum mcinit_comm_state {
	MCINIT_CS_NONE,     /* not created (or NOCOLOR: this rank is outside) */
	MCINIT_CS_PENDING,  /* non-blocking creation in progress */
	MCINIT_CS_READY,    /* created */
	MCINIT_CS_VERIFIED, /* all-reduce sum checked */
	MCINIT_CS_FAILED,
};

struct mcinit_comm {
	const char *name; /* "world" or the group kind's name (static) */
	int fam;          /* -1 for the world */
	int level;
	int color, key; /* split color/key; the world: 0 and the global rank */
	int size;       /* ranks in the communicator (0 when outside) */
	void *handle;   /* the backend's ncclComm_t, NULL when none */
	enum mcinit_comm_state state;
	int stuck;           /* a call on it passed its deadline: aborted first */
	double algbw, busbw; /* GB/s at the size of the best busbw, 0 when not measured */
	/* --bandwidth: every size measured (nccl-tests' rows) */
	struct mcinit_bw {
		double bytes, seconds, algbw, busbw;
	} bw[MCINIT_BW_SIZES];
	int nbw;
	enum mcinit_coll coll;
	char detail[160];
};

/* The world first, then the splits in creation order.  Owns v. */
struct mcinit_comms {
	struct mcinit_comm *v;
	size_t n;
};
struct mcinit_comm *mcinit_comms_add(struct mcinit_comms *l);
/* Destroys every communicator that has a handle: the groups in reverse
 * creation order, then the world (run.md "Teardown").  destroy is the
 * backend's (ncclCommFinalize with a deadline and ncclCommAbort after
 * it, or ncclCommAbort at once when `hard`); handles are cleared.
 *
 * When `hard`, nothing is freed before every communicator is aborted:
 * first those marked stuck, then the rest in creation order (a parent
 * before its children: an aborted split job writes the child it made, even
 * a failed one), each with hard = MCINIT_END_ABORT; then the pass above
 * frees.  Device memory is freed with cudaFree, and ncclCommAbort frees
 * NCCL's: both synchronize the device, so either would wait for ever for a
 * collective stuck on a communicator not yet aborted (issue 40, defects 1-3).
 * Returns the number destroy failed on. */
#define MCINIT_END_ABORT 2 /* destroy's `hard`: ncclCommAbort only, free nothing */
typedef int (*mcinit_comm_destroy_fn)(void *handle, double deadline, int hard, void *ctx);
int mcinit_comms_teardown(struct mcinit_comms *l, mcinit_comm_destroy_fn destroy, double deadline,
                          int hard, void *ctx);
void mcinit_comms_destroy(struct mcinit_comms *l);

#endif
