/*
 * mcinit.h — libmcinit, the public C API of mcinit: load, check and plan a
 * Megatron-style model-parallel training job (the C analogue of
 * Megatron-Bridge's initialize_megatron, up to the point where processes
 * and GPUs are touched).
 *
 *   pkg-config --cflags --libs mcinit
 *
 * The job plan.  One call sequence, used by every mcinit command and meant
 * for `mcinit run` and for C/C++ trainers:
 *
 *   struct mcinit_job_desc desc = {0};          (inputs, overrides, flags,
 *   desc.inputs = paths; desc.ninputs = n;       environment, world and
 *   ...                                          placement options)
 *   struct mcinit_diags *d = mcinit_diags_new();
 *   mcinit_error_t err;
 *   struct mcinit_job *job = mcinit_job_new(&desc, d, &err);
 *       load every input, overrides, Megatron flags; check every rule;
 *       derive Megatron's values; lay out the rank groups (topology) and
 *       the block placement.  NULL only when an input cannot be used at all
 *       (missing, unparseable) or on an internal failure: err says why, d
 *       holds what was found before.  An invalid job is still returned:
 *       mcinit_job_valid() is 0 and d holds the errors.
 *   mcinit_job_plan_node(job, &err);
 *       the node: its GPUs, CPUs, NUMA nodes and NICs (hwloc: desc.hwloc_xml,
 *       else $HWLOC_XMLFILE from desc.envp, else this machine), which GPU
 *       each local rank drives, and the placement diagnostics MC050-MC054.
 *   mcinit_job_local_rank(job, l, &lr);  ... each local rank's GPU and CPUs
 *   mcinit_job_free(job); mcinit_diags_free(d);
 *
 * Words after `--` on a command line are not interpreted here: a caller
 * that reads them as Megatron-LM flags (validate, topology) passes them as
 * desc.megatron_flags; `mcinit run` hands them over as a command instead.
 *
 * Conventions.
 *   - Handles are opaque and come in _new/_free pairs; _free(NULL) is a no-op.
 *   - Every function states who owns what it returns.  "Borrowed" pointers
 *     stay valid until the handle they come from is freed; strings passed
 *     in are copied (the job keeps no pointer into the description).
 *   - Errors that stop a call come back in a caller-provided mcinit_error_t
 *     (jansson's json_error_t style: fixed-size, no allocation, may be NULL).
 *     Problems in the job itself are diagnostics, never errors.
 *   - The library never ends the process and writes to no stream but a
 *     FILE * it is handed, except out of memory (mcinit_set_alloc_failure).
 *   - Thread safety: distinct handles may be used from distinct threads;
 *     one handle from one thread at a time.  Process-wide tables are
 *     initialised once (pthread_once); nothing touches the environment.
 *   - Symbols not declared in this header are private, whatever their
 *     prefix, and may change in any release.
 *
 * Nothing here depends on the configuration schema: a new schema row
 * changes no type or function of this header.
 */
#ifndef MCINIT_H
#define MCINIT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version and visibility ---- */

/* The version of this header; mcinit_version() says which library runs.
 * MCINIT_VERSION_HEX is 0xMMmmpp, for compile-time comparisons. */
#define MCINIT_VERSION_MAJOR 0
#define MCINIT_VERSION_MINOR 2
#define MCINIT_VERSION_PATCH 0
#define MCINIT_VERSION_HEX                                                                         \
	((MCINIT_VERSION_MAJOR << 16) | (MCINIT_VERSION_MINOR << 8) | MCINIT_VERSION_PATCH)

/* What libmcinit.so exports: the functions below and nothing else (the
 * library is built with -fvisibility=hidden). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define MCINIT_API __attribute__((visibility("default")))
#else
#define MCINIT_API
#endif

/* ---- errors ---- */

/* What went wrong, as a kind.  The mcinit program maps each kind to its
 * process status (mcinit.c, from its one table of statuses); the library
 * never chooses one. */
enum mcinit_code {
	MCINIT_OK = 0,
	MCINIT_E_INVALID,     /* the job description is invalid (see the diagnostics) */
	MCINIT_E_USAGE,       /* a bad argument or option value from the caller */
	MCINIT_E_PARSE,       /* an input could not be parsed */
	MCINIT_E_NOINPUT,     /* an input file is missing or unreadable */
	MCINIT_E_UNAVAILABLE, /* a required resource is absent (GPU, CUDA, NCCL) */
	MCINIT_E_INTERNAL,    /* a bug in mcinit */
	MCINIT_E_OS,          /* a system call failed */
	MCINIT_E_IO,          /* output could not be written */
	MCINIT_E_NOMEM,       /* out of memory */
	MCINIT_E_TIMEOUT,     /* a peer did not arrive or a step timed out (mcinit run) */
	/* New codes go here, at the end. */
	MCINIT_E_COUNT
};

#define MCINIT_ERROR_SOURCE_LENGTH 256
#define MCINIT_ERROR_TEXT_LENGTH   512

/* Where and why a call failed.  source is a file path, "argv" (a word of
 * the command line: argv_index says which) or "" (no place).  line and
 * column are 1-based, 0 when unknown; argv_index is -1 unless the error is
 * about a command-line word.  text never repeats the location. */
typedef struct mcinit_error {
	int code; /* enum mcinit_code */
	int line;
	int column;
	int argv_index;
	char source[MCINIT_ERROR_SOURCE_LENGTH];
	char text[MCINIT_ERROR_TEXT_LENGTH];
} mcinit_error_t;

/* The code of err, as jansson's json_error_code(). */
static inline enum mcinit_code
mcinit_error_code(const mcinit_error_t *err)
{
	return (enum mcinit_code)err->code;
}

/* A short name of a code ("parse", "noinput", ...): static, never NULL. */
MCINIT_API const char *mcinit_code_name(enum mcinit_code code);

/* Out of memory.  libmcinit's data is small and its internal allocations
 * are not checked one by one: when one fails, the handler installed here is
 * called with the size asked for, and it must not return (print and end
 * the process, or longjmp out of the library).  Without a handler the
 * library raises SIGABRT: the one way it ever ends a process.  The mcinit
 * program installs a handler that prints one line and ends with its
 * status for MCINIT_E_NOMEM.  NULL removes the handler.  Not thread-safe:
 * call it before using the library. */
typedef void (*mcinit_alloc_failure_fn)(size_t size);
MCINIT_API void mcinit_set_alloc_failure(mcinit_alloc_failure_fn fn);

/* "0.2.0": the running library's package version (static); compare with
 * MCINIT_VERSION_* to tell a header from the library it runs with. */
MCINIT_API const char *mcinit_version(void);

/* ---- diagnostics ---- */

enum mcinit_severity { MCINIT_NOTE, MCINIT_WARNING, MCINIT_ERROR };

struct mcinit_diags; /* opaque: a list of diagnostics */

/*
 * Structures the library fills in the caller's memory (mcinit_diagnostic,
 * mcinit_sizes, mcinit_rank, mcinit_local_rank) begin with their size, which
 * the caller sets:
 *
 *     struct mcinit_rank r = {.size = sizeof r};
 *
 * The library writes no more than that many bytes, so members a later
 * release adds (always at the end) never write past a caller built with an
 * older header, and a caller built with a newer header learns from the size
 * the library leaves in the struct how much of it was filled.  A size
 * smaller than this first sized release's struct is refused (-1).  (Since
 * the library's interface 4.)
 */

/* A view of one diagnostic; every pointer is borrowed from the list and
 * valid until the list is freed or added to.  source as in mcinit_error_t;
 * hint may be NULL; keys are the config keys involved ("model.hidden_size"). */
struct mcinit_diagnostic {
	size_t size; /* in: sizeof the caller's struct; out: the bytes filled */
	enum mcinit_severity severity;
	const char *code; /* "MC010" */
	const char *message;
	const char *hint;
	const char *source; /* NULL: no place (a default or a derived value) */
	int line, column;   /* 0 when unknown */
	int argv_index;     /* -1 unless source is "argv" */
	size_t nkeys;
	const char *const *keys;
};

/* A new, empty list; the caller frees it with mcinit_diags_free. */
MCINIT_API struct mcinit_diags *mcinit_diags_new(void);
MCINIT_API void mcinit_diags_free(struct mcinit_diags *d);
MCINIT_API size_t mcinit_diags_length(const struct mcinit_diags *d);
/* Diagnostic i (0 <= i < length) into *out; -1 when i is out of range or
 * out->size is too small. */
MCINIT_API int mcinit_diags_get(const struct mcinit_diags *d, size_t i,
                                struct mcinit_diagnostic *out);
/* How many diagnostics have this severity. */
MCINIT_API size_t mcinit_diags_count(const struct mcinit_diags *d, enum mcinit_severity sev);
/* Sorts by place (in the order the sources were given), then insertion. */
MCINIT_API void mcinit_diags_sort(struct mcinit_diags *d);
/* gcc style, "SOURCE:LINE:COL: error[MC010]: message" and an indented hint,
 * to out; colour when color is non-zero. */
MCINIT_API void mcinit_diags_print(const struct mcinit_diags *d, FILE *out, int color);
/* The list as a JSON array text (as `mcinit validate --format=json` prints
 * "diagnostics"); the caller frees it with free().  NULL when out of memory. */
MCINIT_API char *mcinit_diags_json(const struct mcinit_diags *d);

/* ---- the job description ---- */

/*
 * What a job is made of, as plain C.  Zero-initialise it, then fill what
 * you have; every pointer is borrowed only for the duration of
 * mcinit_job_new.  Precedence, lowest first: schema defaults, inputs (left
 * to right), overrides, Megatron flags, then the options below.
 */
struct mcinit_job_desc {
	/* .json configs, .sh/.bash launch scripts (their Megatron flags are
	 * extracted), .py files (linted), in order. */
	const char *const *inputs;
	size_t ninputs;
	/* "section.field=value" overrides; override_argv_index[i] (optional)
	 * is the command-line index of overrides[i], for diagnostics. */
	const char *const *overrides;
	const int *override_argv_index;
	size_t noverrides;
	/* Megatron-LM words ("--tensor-model-parallel-size", "8", ...);
	 * megatron_flags_argv_index is the command-line index of the first,
	 * or 0 when they do not come from a command line. */
	const char *const *megatron_flags;
	size_t nmegatron_flags;
	int megatron_flags_argv_index;
	/* Environment to read (WORLD_SIZE, SLURM_NTASKS, HWLOC_XMLFILE, ...),
	 * NULL-terminated "NAME=value" strings; NULL: this process's. */
	const char *const *envp;
	/* World and placement; 0 = not given (then the config, the
	 * environment, nnodes x nproc_per_node, else 1). */
	long long world_size;
	long long nnodes;
	long long nproc_per_node;
	/* "r0.15" ... "r0.19", "main", or a release number ("0.19.2", "0.19":
	 * the newest 0.19.x known); NULL = main, or, when bridge_version is
	 * given, the Megatron-Core release that Bridge release pins. */
	const char *megatron_version;
	/* Megatron-Bridge's defaults where they differ from Megatron-LM's. */
	int bridge_defaults;
	/* The node's hardware as an hwloc XML file (lstopo node.xml); NULL:
	 * $HWLOC_XMLFILE of envp when set and not empty, else this machine. */
	const char *hwloc_xml;
	/* The Megatron-LM script the flags are for ("pretrain_gpt",
	 * "pretrain_vlm", "gpt_static_inference", "modelopt" ...; also with
	 * ".py"): its extra flags parse and its args_defaults apply.  NULL: the
	 * script a launch script runs, else pretrain_gpt. */
	const char *entry_point;
	/* The Megatron-Bridge release whose fields a config is checked against:
	 * "0.6" (or "0.6.2"), "main"; NULL: the release pinned to
	 * megatron_version when that is given and one is, else the newest
	 * release mcinit knows. */
	const char *bridge_version;
	/* The arguments a .sh/.bash launch script is read as run with, split as
	 * bash splits a command line ("a 'b c'" is two); NULL: none, so "$@"
	 * is nothing and $1 is empty, as bash runs the script alone. */
	const char *script_args;
	/* A launch script that launches two or more training scripts (a loop,
	 * several launcher lines): 1 ... mcinit_job_script_launches() checks
	 * that launch alone; 0: the first, with a note that there are more. */
	int script_launch;
	/* Since 0.1 (interface 4.2): the memory model validate reports the most
	 * loaded rank's bytes per GPU with ("megatron": Megatron-LM's own
	 * estimate, r0.18 and later; "bridge": Megatron-Bridge 0.6.2's
	 * estimate_training_memory, for a ConfigContainer; "mcinit": mcinit's
	 * own, the peak of each kind of rank; "none" or NULL: none), and the
	 * GPU's memory in GiB as a positive integer ("80") or a GPU's name
	 * ("H100-80GB", as launch.gpu takes it; NULL: unknown), against which
	 * the estimate is checked (MC063; the
	 * model is then "bridge" for a ConfigContainer, else "megatron",
	 * unless memory_model says). */
	const char *memory_model;
	const char *gpu_memory;
	/* Since interface 4.2: what messages call the source of world_size
	 * when it is given ("world_size of ./mcinit.toml", as mcinit validate
	 * says of a settings file's); NULL: "--world-size".  Copied. */
	const char *world_source;
	/* Room to grow without changing the size: zero-initialise, never set. */
	void *reserved[2];
};

/* ---- the job ---- */

struct mcinit_job; /* opaque: a loaded, checked and planned job */

/* Loads, checks, derives and lays out the job (see the top of this file).
 * Diagnostics go to d (not NULL; caller-owned).  Returns a job the caller
 * frees with mcinit_job_free, or NULL with err when an input is unusable
 * (MCINIT_E_NOINPUT, MCINIT_E_PARSE, MCINIT_E_USAGE for a bad kind of
 * input or Megatron version) or on an internal failure.  d must outlive
 * the job (the job adds the node's diagnostics to it). */
MCINIT_API struct mcinit_job *mcinit_job_new(const struct mcinit_job_desc *desc,
                                             struct mcinit_diags *d, mcinit_error_t *err);
MCINIT_API void mcinit_job_free(struct mcinit_job *job);

/* 1 when the job has no error diagnostic (warnings allowed) and its rank
 * groups could be laid out; 0 otherwise. */
MCINIT_API int mcinit_job_valid(const struct mcinit_job *job);

/* How many launches the job's launch scripts make that are checked one by
 * one (desc.script_launch); 0 when each makes one at most. */
MCINIT_API size_t mcinit_job_script_launches(const struct mcinit_job *job);

/* The resolved config ({section: {field: value}}, defaults, repairs and
 * derived values applied) and the derived values ({name: value}), as JSON
 * text; the caller frees them with free().  NULL when out of memory. */
MCINIT_API char *mcinit_job_config_json(const struct mcinit_job *job);
MCINIT_API char *mcinit_job_derived_json(const struct mcinit_job *job);
/* The derived values as an aligned table, to out. */
MCINIT_API void mcinit_job_derived_print(const struct mcinit_job *job, FILE *out);

/* An integer or boolean config value by key ("model.hidden_size"): 0 and
 * *out, or -1 when the key is unknown, the value is null or not a number. */
MCINIT_API int mcinit_job_get_int(const struct mcinit_job *job, const char *key, long long *out);

/* ---- the topology: rank groups, placement, seeds ---- */

struct mcinit_topology; /* opaque: the rank groups and placement of a valid job */

/* Borrowed from the job; NULL when the job is not valid. */
MCINIT_API const struct mcinit_topology *mcinit_job_topology(const struct mcinit_job *job);

/* The parallel sizes Megatron-Core builds its groups from. */
struct mcinit_sizes {
	size_t size; /* in: sizeof the caller's struct; out: the bytes filled */
	long world;
	long tp, pp, cp, ep, etp; /* tensor, pipeline, context, expert, expert-tensor */
	long dp, edp;             /* data parallel, expert data parallel (derived) */
	long vpp;                 /* virtual pipeline stages per rank, 0 = none */
	long nproc_per_node;      /* 0 = unknown (then nnodes is 0 too) */
	long nnodes;
	long gtp, egtp;          /* gtp_remat (r0.19, main: shards / TP), its expert twin; else 1 */
	long dist_opt_instances; /* num_distributed_optimizer_instances */
};
/* 0, or -1 when out->size is too small. */
MCINIT_API int mcinit_topology_sizes(const struct mcinit_topology *t, struct mcinit_sizes *out);
/* Megatron-Core's order string: "tp-cp-ep-dp-pp" or "tp-cp-ep-pp-dp" (static). */
MCINIT_API const char *mcinit_topology_order(const struct mcinit_topology *t);

/* Group kinds, numbered 0 .. mcinit_group_kinds()-1: every communicator
 * some release's initialize_model_parallel creates, in an order each
 * release's creation order is a subsequence of.  A job's topology creates
 * the kinds of its release and features (hierarchical CP: hcp; several
 * optimizer instances: intra_dp_cp, intra_ep_dp, inter_ep_dp; r0.19+:
 * gtp_remat...); a kind it does not create has no groups. */
MCINIT_API int mcinit_group_kinds(void);
/* Megatron-Core's communicator name ("dp_cp", "tp", ...): static; NULL when
 * kind is out of range. */
MCINIT_API const char *mcinit_group_name(int kind);
/* Kind by name; -1 when unknown. */
MCINIT_API int mcinit_group_lookup(const char *name);

/* The group of `kind` holding `rank`: its index (the NCCL split colour) in
 * *color, the rank's position in it in *key.  0; 1 when no group of that
 * kind holds the rank (embd, pos_embd, a kind not created); -1 for a bad
 * kind or rank.  hcp: its first level (mcinit_topology_level_group_of). */
MCINIT_API int mcinit_topology_group_of(const struct mcinit_topology *t, int kind, long rank,
                                        long *color, long *key);
/* Number and size of the groups of `kind` (0 and 0 when it is not created;
 * hcp: its first level); -1 for a bad kind. */
MCINIT_API int mcinit_topology_group_shape(const struct mcinit_topology *t, int kind, long *ngroups,
                                           long *size);
/* The members of group `index` of `kind` into members[0 .. size-1] (the
 * caller's array of at least `size` longs); -1 for a bad kind or index. */
MCINIT_API int mcinit_topology_group(const struct mcinit_topology *t, int kind, long index,
                                     long *members);

/* Levels of a kind: hcp has one per hierarchical context-parallel size
 * (each level its own groups, all under the name "hcp"); other kinds 1 when
 * created, 0 when not; -1 for a bad kind. */
MCINIT_API int mcinit_topology_group_levels(const struct mcinit_topology *t, int kind);
/* As mcinit_topology_group_shape, _group and _group_of, for one level. */
MCINIT_API int mcinit_topology_level_shape(const struct mcinit_topology *t, int kind, int level,
                                           long *ngroups, long *size);
MCINIT_API int mcinit_topology_level_group(const struct mcinit_topology *t, int kind, int level,
                                           long index, long *members);
MCINIT_API int mcinit_topology_level_group_of(const struct mcinit_topology *t, int kind, int level,
                                              long rank, long *color, long *key);

/* Every group in the order the release's initialize_model_parallel creates
 * its communicators, which a launcher must follow (creation is collective;
 * SHARP applies to the first): pp, embd and pos_embd per pipeline group, the
 * hcp levels inside the cp loop, intra_dp_cp inside dp_cp's...  Zero a
 * cursor, then call until it returns 0; each 1 gives the next group's kind,
 * level and index (for mcinit_topology_level_group). */
struct mcinit_group_cursor {
	long state[4];
};
MCINIT_API int mcinit_topology_next_group(const struct mcinit_topology *t,
                                          struct mcinit_group_cursor *c, int *kind, int *level,
                                          long *index);

/* One rank: its coordinates, where it runs and its seeds. */
struct mcinit_rank {
	size_t size; /* in: sizeof the caller's struct; out: the bytes filled */
	long rank;
	long tp, cp, dp, pp; /* dense grid coordinates */
	long etp, ep, edp;   /* expert grid coordinates */
	long node;           /* rank / nproc_per_node; -1 when unknown */
	long local_rank;     /* rank % nproc_per_node; -1 when unknown */
	long long seed;      /* torch/numpy seed, also the data-parallel tracker */
	long long seed_model_parallel;
	long long seed_expert_parallel;
	long gtp, egtp; /* gtp_remat coordinates (dense, expert); 0 before r0.19 */
};
/* 0, or -1 when rank is outside [0, world) or out->size is too small. */
MCINIT_API int mcinit_topology_rank(const struct mcinit_topology *t, long rank,
                                    struct mcinit_rank *out);

/* ---- the node: GPUs and CPU affinity of each local rank ---- */

/* Reads the node's hardware (see mcinit_job_desc.hwloc_xml), assigns each
 * local rank its GPU (local rank i drives GPU i, or device 0 with
 * dist.external_gpu_device_mapping) and adds the placement diagnostics
 * MC050-MC054 to the job's list.  0; -1 with err when the job is not valid
 * (MCINIT_E_USAGE) or a given hwloc XML file is missing (MCINIT_E_NOINPUT)
 * or not a topology (MCINIT_E_PARSE).  When this machine cannot be read,
 * that is a warning (MC054), not an error.  Calling it again does nothing. */
MCINIT_API int mcinit_job_plan_node(struct mcinit_job *job, mcinit_error_t *err);

/* What one local rank uses; strings are borrowed from the job. */
struct mcinit_local_rank {
	size_t size; /* in: sizeof the caller's struct; out: the bytes filled */
	long local_rank;
	int gpu;            /* local GPU index (CUDA order), -1 when none */
	const char *busid;  /* the GPU's PCI bus id, NULL when none */
	const char *cpuset; /* the GPU's local CPUs (a binding intersects them with the
	                       allowed ones), else the CPUs allowed; list form */
	int numa;           /* first NUMA node of the GPU, -1 when unknown */
	const char *nic;    /* nearest NIC ("mlx5_0"), NULL when none */
};
/* Local ranks described (nproc_per_node, at most the world; else one per
 * GPU); 0 before mcinit_job_plan_node or when the node could not be read. */
MCINIT_API long mcinit_job_local_ranks(const struct mcinit_job *job);
/* 0 and *out, or -1 when l is out of range or out->size is too small. */
MCINIT_API int mcinit_job_local_rank(const struct mcinit_job *job, long l,
                                     struct mcinit_local_rank *out);

/* ---- initialisation (mcinit run): the C analogue of initialize_megatron ---- */

/*
 * One rank's initialisation: the phases of `mcinit run` (config, env,
 * rendezvous, device, world, groups, verify, seeds, kernels, tp-comm,
 * ready), each timed and reported, with the NCCL communicators they create.
 * The rank finds its place from the launcher's environment (torchrun,
 * Slurm, Open MPI, or a single process) and meets its peers through a
 * TCPStore-compatible store, as `mcinit run` does.
 *
 *   struct mcinit_init *init;
 *   mcinit_finish_callback finish;
 *   mcinit_error_t err;
 *   struct mcinit_init_options o = {0};
 *   o.lazy_mpu_init = 1;
 *   if (mcinit_initialize(&desc, &o, &init, &finish, &err) != 0) ...
 *   ...                                   (the trainer's own set-up)
 *   if (finish && finish(init, &err) != 0) ...   (the deferred phases)
 *   ncclComm_t tp = mcinit_init_nccl_comm(init, "tp");
 *   mcinit_destroy(init);                 (communicators, store, memory)
 */
struct mcinit_init; /* opaque */

struct mcinit_init_options {
	/* Without a GPU (or in a build without CUDA and NCCL), skip the
	 * CUDA/NCCL phases and run the CPU path (the ranks still prove, through
	 * the store, that they agree on the config and on every group); else
	 * that is an MCINIT_E_UNAVAILABLE error. */
	int allow_no_cuda;
	/* dist.lazy_mpu_init: config and env run now; rendezvous, device,
	 * world, groups, verify and seeds are deferred into the finish
	 * callback (tp-comm is not done on this path), as Megatron does. */
	int lazy_mpu_init;
	/* skip_mpu_initialization: stop after env, nothing to finish. */
	int skip_mpu_initialization;
	int no_bind;   /* do not bind the process to its GPU's CPUs */
	int bandwidth; /* time each communicator (algbw, busbw) */
	/* Seconds a rank waits for its peers and NCCL for a communicator;
	 * 0 = dist.distributed_timeout_minutes. */
	double timeout;
	/* The launcher environment to read (NULL-terminated "NAME=value"),
	 * NULL: this process's.  Borrowed until mcinit_destroy. */
	const char *const *envp;
	/* A progress line per phase on rank 0, or NULL: silent.  Borrowed. */
	FILE *progress;
	/* The library never changes the process's environment itself (the
	 * trainer's threads may be reading it).  To have the job's env_vars
	 * applied before NCCL starts (as Megatron-Bridge does) and the
	 * launcher contract set for a hand-over, pass a function that does:
	 * value NULL unsets name, overwrite 0 sets it only when unset.  NULL:
	 * the environment is left as it is. */
	void (*set_env)(const char *name, const char *value, int overwrite);
	/* 0 (default): the NCCL communicators are created non-blocking
	 * (ncclConfig_t.blocking = 0), so that no creation can hang past
	 * `timeout`; they stay so, and mcinit_init_nccl_comm says what that
	 * means for the caller.  1: blocking communicators, as NCCL's default
	 * is: collectives return ncclSuccess when enqueued, but a peer that
	 * never arrives hangs creation with no deadline of mcinit's.  (Since
	 * 1.2: took the first reserved word.) */
	int nccl_blocking;
	/* Since interface 4.1 (each took reserved words; the size stays).
	 * MCINIT_INIT_* bits. */
	unsigned flags;
	/* The store's port and address instead of the launcher's MASTER_PORT
	 * and MASTER_ADDR; 0 and NULL: the launcher's (29500 when it names
	 * none).  Borrowed until mcinit_destroy. */
	int master_port;
	const char *master_addr;
	/* What error messages call the source of desc->world_size when the
	 * launcher's environment gives no world (a launcher of your own:
	 * "--nnodes x --nproc-per-node"); NULL: "--world-size".  Borrowed. */
	const char *world_source;
	/* Called with callback_arg as each phase begins (mcinit_init_phase's
	 * name), and with "command" by mcinit_init_handover: a launcher of
	 * your own can name the phase of a rank that dies without a word.
	 * Not called with MCINIT_INIT_CHECK_ONLY.  NULL: nobody is told. */
	void (*on_phase)(void *arg, const char *phase);
	/* Carries out a fault that MCINIT_FAULT=RANK:PHASE:KIND asks for when
	 * it is due, MCINIT_FAULT_ACTION_CRASH or _EXIT (the library neither
	 * raises signals nor exits): it should not return.  NULL: a fault of
	 * those kinds is refused when the config phase starts (MCINIT_E_USAGE). */
	void (*on_fault)(void *arg, int action);
	void *callback_arg;
	/* Room to grow without changing the size: zero-initialise, never set. */
	void *reserved[1];
};

/* mcinit_init_options.flags */
#define MCINIT_INIT_NO_WARMUP 0x1u /* skip the kernels phase */
#define MCINIT_INIT_CHECK_ONLY                                                                     \
	0x2u /* the config phase only: check the job before any rank                               \
	        starts (MCINIT_FAULT's syntax is checked, nothing fires) */

/* on_fault's action: die of SIGSEGV leaving no core file; exit at once with
 * status MCINIT_FAULT_EXIT_CODE, without a word. */
#define MCINIT_FAULT_ACTION_CRASH 1
#define MCINIT_FAULT_ACTION_EXIT  2
#define MCINIT_FAULT_EXIT_CODE    3

/* What mcinit_initialize hands back on the lazy path: call it once, with
 * the init it came with, to run the deferred phases.  0, or -1 with err
 * (the failed phase is in the report). */
typedef int (*mcinit_finish_callback)(struct mcinit_init *init, mcinit_error_t *err);

/* Loads and checks the job (desc, as for mcinit_job_new) and runs the
 * phases in order.  *init is set in every case but out of memory, and the
 * caller frees it with mcinit_destroy, failure included (its diagnostics
 * and report say what happened).  *finish is the finish callback on the
 * lazy path, NULL otherwise.  0, or -1 with err: MCINIT_E_INVALID (the job
 * has errors: see mcinit_init_diagnostics), MCINIT_E_UNAVAILABLE (no GPU
 * without allow_no_cuda; a library too old), MCINIT_E_TIMEOUT (a peer did
 * not arrive, a communicator was not created in time: the ranks are
 * named), or another code.  opts may be NULL (all zero). */
MCINIT_API int mcinit_initialize(const struct mcinit_job_desc *desc,
                                 const struct mcinit_init_options *opts, struct mcinit_init **init,
                                 mcinit_finish_callback *finish, mcinit_error_t *err);
/* Tears down the group communicators in reverse creation order, then the
 * world (ncclCommFinalize within the timeout, ncclCommAbort after it, or at
 * once after a failure), closes the store and frees everything; a finish
 * callback not called is dropped.  NULL is a no-op. */
MCINIT_API void mcinit_destroy(struct mcinit_init *init);

/* The job's diagnostics (borrowed from init). */
MCINIT_API const struct mcinit_diags *mcinit_init_diagnostics(const struct mcinit_init *init);
/* The phases, 0 .. mcinit_init_phase_count()-1 in order: name ("world"),
 * status ("pending", "ok", "failed", "deferred", "skipped"), detail and
 * seconds; strings borrowed from init (static for name and status).  Any
 * out pointer may be NULL.  0, or -1 when i is out of range. */
MCINIT_API int mcinit_init_phase_count(void);
MCINIT_API int mcinit_init_phase(const struct mcinit_init *init, int i, const char **name,
                                 const char **status, const char **detail, double *seconds);
/* The report (as `mcinit run --format=json` prints it: phases, versions,
 * communicators), JSON text the caller frees with free(); NULL when out of
 * memory. */
MCINIT_API char *mcinit_init_report_json(const struct mcinit_init *init);
/* This rank's NCCL communicator of a group kind (mcinit_group_name: "tp",
 * "dp_cp"...; "world" for the world; hcp: its first level), as a
 * `ncclComm_t` (cast it); NULL when the rank is in no such group, the
 * group was not created (CPU path, lazy path before the finish) or after
 * mcinit_destroy.  Borrowed: do not destroy it.
 *
 * Unless mcinit_init_options.nccl_blocking was set, it is a NON-BLOCKING
 * communicator (ncclConfig_t.blocking = 0): every collective and group
 * call on it may return ncclInProgress, which is not an error — the call
 * is accepted and NCCL puts the work on the stream from its own thread
 * afterwards.  Wait until ncclCommGetAsyncError(comm, &st) leaves st ==
 * ncclInProgress before issuing the next call on it, and synchronise the
 * stream (cudaStreamSynchronize) only after that: before, the stream may
 * not hold the work yet, and a read of the result races the collective.
 * A check that treats anything but ncclSuccess as a failure will fail. */
MCINIT_API void *mcinit_init_nccl_comm(const struct mcinit_init *init, const char *group);

/* Since interface 4.1.  The index (mcinit_init_phase) of the phase that
 * failed, mcinit_init_phase_count() if none. */
MCINIT_API int mcinit_init_failed_phase(const struct mcinit_init *init);
/* The launcher contract this process was started under, as the env phase
 * read it: "torchrun" (an mcinit launcher too), "slurm" or "openmpi", or
 * NULL when the environment names none (a single process) or did not parse; this rank,
 * the store's address, and torch's error file (TORCHELASTIC_ERROR_FILE, ""
 * when none was asked for).  Strings borrowed from init; any out pointer
 * may be NULL. */
MCINIT_API void mcinit_init_launcher(const struct mcinit_init *init, const char **launcher,
                                     long *rank, const char **master_addr, const char **error_file);
/* The report as text, as `mcinit run` prints it on rank 0 (the progress
 * lines were printed as the phases went). */
MCINIT_API void mcinit_init_summary(const struct mcinit_init *init, FILE *out);
/* The job's values that differ from the defaults as Megatron-LM flags, in
 * the form each flag's argparse kind reads (`mcinit run
 * --append-megatron-args`): a NULL-terminated array of *n words; the
 * caller frees each and the array with free(). */
MCINIT_API char **mcinit_init_megatron_args(const struct mcinit_init *init, size_t *n);
/* Before exec'ing the training program in this process (a hand-over):
 * tears down the communicators, closes the store (rank 0 stops serving
 * once every rank has left the ready barrier, so the program's rank 0 can
 * bind the port again) and sets the torchrun contract (RANK, WORLD_SIZE,
 * LOCAL_RANK, MASTER_ADDR, ...) through options.set_env.  0, or -1 with err. */
MCINIT_API int mcinit_init_handover(struct mcinit_init *init, mcinit_error_t *err);
/* How many CUDA devices this process sees: what mcinit_initialize's device
 * phase finds, asked before it (without allow_no_cuda, 0 is its
 * MCINIT_E_UNAVAILABLE).  0 with why filled (cap bytes at most): no driver,
 * no device, or a library built without CUDA.  Since interface 4.1. */
MCINIT_API int mcinit_gpu_count(char *why, size_t cap);

/* Torch's error file (TORCHELASTIC_ERROR_FILE, which torchrun names to
 * each worker; mcinit_init_launcher says which): writes
 * {"message": {"message": msg, "extraInfo": {"py_callstack": where,
 * "timestamp": "<unix seconds>"}}}, so that torchrun's root-cause summary
 * shows msg.  0, or -1 when it cannot be written.  Since interface 4.1. */
MCINIT_API int mcinit_write_error_file(const char *path, const char *msg, const char *where);
/* The message of an error file written as above (or by torch), which the
 * caller frees with free(); NULL when absent or unreadable.  Since 4.1. */
MCINIT_API char *mcinit_read_error_file(const char *path);

/* Before serving the store for `world` ranks (a launcher of your own on
 * the first node): whether this process and machine can hold it, one
 * descriptor a rank (RLIMIT_NOFILE, whose soft limit is raised as far as
 * the world needs and the hard limit allows) and a listen backlog for the
 * ranks that connect at once (net.core.somaxconn).  1 when something still
 * falls short, with one line per shortfall on out (each starting with
 * prefix, with the numbers and what to set; out may be NULL), else 0.
 * Since interface 4.1. */
MCINIT_API int mcinit_store_capacity_check(long world, const char *prefix, FILE *out);

/* The job configuration's schema as JSON Schema (draft 2020-12): every
 * section and field a job file may hold, with its type, bounds, choices,
 * default and aliases, from the same tables the loaders use (what `mcinit
 * schema` prints).  JSON text the caller frees with free(); NULL when out
 * of memory.  Since interface 4.1. */
MCINIT_API char *mcinit_config_schema(void);

/* ---- JSON in, JSON out: for bindings in other languages ---- */

/*
 * Since interface 4.2 (mcinit 0.2: #if MCINIT_VERSION_HEX >= 0x000200).
 * One call each, a JSON request object in and a JSON result object out, so
 * that a caller without this header's structs (Python's ctypes, the mcinit
 * package) gets the library's diagnostics and errors as data.  The request:
 *
 *   {"inputs": ["job.yaml", ...],          paths, as mcinit_job_desc.inputs
 *    "overrides": ["model.x=1", ...],      "megatron_flags": ["--foo", "1"],
 *    "world_size": 8, "nnodes": 1, "nproc_per_node": 8,
 *    "megatron_version": "r0.15", "bridge_version": "0.2",
 *    "bridge_defaults": false, "entry_point": "pretrain_gpt",
 *    "script_args": "a 'b c'", "hwloc_xml": null,
 *    "env": ["WORLD_SIZE=8", ...]          (absent: this process's)
 *    "werror": false,                      (warnings fail "valid")
 *    "memory_model": "megatron"|"bridge"|"mcinit",  (derived.memory;
 *    "gpu_memory": 80 or "H100-80GB",      with GiB or a GPU: MC063)
 *    "rank": 3}                            (topology: that rank only)
 *
 * Every member but "inputs" may be absent or null; an unknown member is an
 * error.  The result of mcinit_json_validate:
 *
 *   {"valid": bool, "diagnostics": [...], "derived": {...} or null,
 *    "launches": N}
 *
 * diagnostics as mcinit_diags_json; derived as mcinit_job_derived_json
 * (null for a lint request, .py inputs only).  mcinit_json_topology adds
 * "sizes", "order", "groups" ({kind: [[ranks]...]}, hcp a list per level),
 * "ranks" (each rank's coordinates, place and seeds; all of them up to
 * 4096, else only "rank") to the same.  A request or input that cannot be
 * used gives {"valid": false, "error": {"code": "usage"|"noinput"|"parse"|
 * ..., "message", "source", "line", "column", "argv_index"},
 * "diagnostics": [...]}.  The caller frees the text with free(); NULL only
 * when out of memory.  Thread-safe as mcinit_job_new is: each call has its
 * own job.
 */
MCINIT_API char *mcinit_json_validate(const char *request);
MCINIT_API char *mcinit_json_topology(const char *request);

/* Since interface 4.2 (mcinit 0.2).  A repository's settings for mcinit:
 * the nearest mcinit.toml, or pyproject.toml with a [tool.mcinit] table,
 * in the directory of path (a file or a directory) or above it (64 levels
 * at most; mcinit.toml first in each).  Keys (TOML, '-' or '_'):
 * world-size, nnodes, nproc-per-node (positive integers), megatron-version,
 * bridge-version, entry-point (strings), overrides (array of
 * "section.field=value"), werror (boolean).  Returns a JSON object text the
 * caller frees with free(): {"file": PATH or null when none was found,
 * "world_size", "nnodes", "nproc_per_node", "megatron_version",
 * "bridge_version", "entry_point", "werror": the value or null when unset,
 * "overrides": [...]}; NULL with err (MCINIT_E_PARSE, FILE:LINE:COL) for a
 * malformed file or an unknown key, MCINIT_E_NOINPUT when it cannot be read.
 * `mcinit validate` applies them under its own options (--no-config: not). */
MCINIT_API char *mcinit_settings_json(const char *path, mcinit_error_t *err);

/* ---- the node's readiness: mcinit doctor (since interface 4.2) ---- */

/* This node's readiness for a GPU job, what `mcinit doctor` prints: the
 * NVIDIA driver and the CUDA runtime, which libcudart and libnccl load,
 * from where and why (as the trainer's Python would find them), whether
 * the torch found there would load the same NCCL, each GPU (compute mode,
 * ECC), the open-file and locked-memory limits and net.core.somaxconn
 * against `world` ranks (0: no world to check against), /dev/shm's size,
 * and each problem found with its fix.  Works without a GPU: it says so and
 * reports the rest.  The report as text on out (may be NULL) and as JSON
 * text in *json (json may be NULL; the caller frees it with free()).  The
 * number of problems, or -1 when out of memory.  Since interface 4.2. */
MCINIT_API int mcinit_doctor(long world, FILE *out, char **json);

#ifdef __cplusplus
}
#endif

#endif
