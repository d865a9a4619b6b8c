/*
 * plan.h — the job plan inside the library (plan.c, node.c): what the
 * public handles struct mcinit_job and struct mcinit_topology of
 * include/mcinit.h hold, for the library's other modules (run) and for the
 * mcinit program's commands (src/cmd-*.c), which need more than the public
 * API shows (the config, the derived values).
 *
 * Order of work (mcinit_job_new): load every input, overrides and Megatron
 * flags (plan.c, in the loaders' precedence); check the rules and derive
 * Megatron's values (mcinit_check); lay out the rank groups and the block
 * placement.  Then, separately because it reads hardware and may run in a
 * thread beside a caller's output, the node (node.c): GPUs, NUMA nodes and
 * NICs from hwloc, each local rank's GPU and the placement warnings
 * MC050-MC054.
 *
 * Ownership: struct mcinit_job owns its config, its copies of the
 * description's strings and the topology with its node; the diagnostics
 * list is the caller's (borrowed for the job's lifetime).
 */
#ifndef MCINIT_PLAN_H
#define MCINIT_PLAN_H

#include <pthread.h>
#include <stdbool.h>

#include "mcinit.h"

#include "topo/affinity.h"
#include "config/config.h"
#include "rules/rules.h"
#include "topo/topology.h"

/* The suffixes of the INPUT kinds the loaders read (".json", ...),
 * NULL-ended: for shell completion. */
extern const char *const mcinit_input_suffixes[];

/* Where ranks land (block placement: node = rank / npn); npn 0 = unknown. */
struct placement {
	long npn, nnodes;
	const char *source; /* "--nproc-per-node", "launch.nproc_per_node", ... */
};

/* The node the ranks run on and which GPU each local rank drives. */
struct node {
	struct mcinit_affinity *a; /* NULL: this machine could not be read (MC054) */
	long nlocal;               /* local ranks described: nproc_per_node (at most
	                              the world), else one per GPU */
	bool guessed;              /* nlocal comes from the GPU count */
	bool external;             /* dist.external_gpu_device_mapping: device 0 */
	int *rank_gpu;             /* [nlocal]; owned */
};

/* Loads the node's topology, in a thread when asked (mcinit_node_start). */
struct loader {
	struct mcinit_affinity_opts opts;
	struct mcinit_affinity *a;
	struct mcinit_err err;
	bool file; /* an XML file, not this machine */
	bool running;
	pthread_t th;
};

/* A valid job's rank groups, placement and seeds, and its node. */
struct mcinit_topology {
	struct mcinit_topo t;
	struct placement pl;
	long long seed;
	int dp_random_init;
	long long vpp;                   /* 0 = no virtual pipeline */
	const struct mcinit_loc *tp_loc; /* where TP was written; NULL: default */
	struct mcinit_diags *d;          /* the job's list: node diagnostics go here */
	struct loader ld;
	struct node nd; /* valid after mcinit_node_finish */
	bool started, finished;
};

struct mcinit_job {
	struct mcinit_config c;
	struct mcinit_derived dv;
	struct mcinit_check_opts opts;
	struct mcinit_diags *d; /* borrowed */
	char **env;             /* owned copy of desc->envp (NULL-terminated), or NULL */
	char *hwloc_xml;        /* owned copy, or NULL */
	char *world_source;     /* owned copy of desc->world_source, or NULL */
	bool laid_out;          /* topo is valid */
	bool lint_only;         /* only .py inputs, nothing else: linted, no job checked */
	struct mcinit_topology topo;
};

/* Loads and checks (no topology yet): the library's start-up sequence up to
 * the derived values.  NULL + err when an input is unusable; d filled.
 * world_source: where desc->world_size came from, as messages name it
 * (NULL: "--world-size"); borrowed for the job's life. */
struct mcinit_job *mcinit_job_load_desc(const struct mcinit_job_desc *desc,
                                        const char *world_source, struct mcinit_diags *d,
                                        struct mcinit_err *err);

/* The grid sizes of a checked job (world, every parallel size, what its
 * release adds), for mcinit_topo_init: one source for validate, topology
 * and run. */
void mcinit_job_topo_sizes(const struct mcinit_job *job, struct mcinit_topo_sizes *s);

/* The resolved config (defaults, repairs and derived values applied) as a
 * new JSON reference: what validate --print-config prints. */
json_t *mcinit_job_resolved_json(const struct mcinit_job *job);

/* Starts reading the node's hardware.  An XML file loads here (a bad one
 * must fail before any output: -1 + err); this machine loads in a thread
 * when async allows, so that it overlaps the caller's output. */
int mcinit_node_start(struct mcinit_job *job, bool async, struct mcinit_err *err);
/* Waits for the loader, assigns each local rank its GPU and adds the
 * placement diagnostics MC050-MC054.  Idempotent. */
void mcinit_node_finish(struct mcinit_job *job);
/* GPU of local rank l, or -1 when the node has none for it. */
int mcinit_node_gpu(const struct node *nd, long l);
/* Ranks per node for the affinity: the placement's, else one per GPU. */
long mcinit_plan_npn(const struct mcinit_topology *t);
void mcinit_node_destroy(struct mcinit_topology *t);

/* mcinit_job_valid's test, for plan.c and node.c alike: laid out, no error. */
static inline bool
mcinit_job_ok(const struct mcinit_job *job)
{
	return job->laid_out && mcinit_diags_count(job->d, MCINIT_ERROR) == 0;
}

#endif
