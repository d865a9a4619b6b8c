/*
 * launch.h — who am I (run.md phase 2: the torchrun, Slurm and Open MPI
 * environment contracts, Slurm's hostlists).
 *
 * Ownership: struct mcinit_env holds its strings inline (no destroy);
 * mcinit_hostlist_expand's array and strings belong to the caller
 * (mcinit_hostlist_free).
 */
#ifndef MCINIT_LAUNCH_H
#define MCINIT_LAUNCH_H

#include <stdbool.h>
#include <stdio.h>

#include "core/util.h"
#include "store/store.h"

enum mcinit_contract {
	MCINIT_CONTRACT_NONE,     /* a single process, rank 0 of 1 */
	MCINIT_CONTRACT_TORCHRUN, /* torchrun, or an mcinit launcher */
	MCINIT_CONTRACT_SLURM,
	MCINIT_CONTRACT_MPI,
};
const char *mcinit_contract_name(enum mcinit_contract c);

struct mcinit_env {
	enum mcinit_contract contract;
	long rank, world, local_rank, local_world, node_rank, nnodes;
	char master_addr[256];
	int master_port;
	const char *port_source; /* "MASTER_PORT", "SLURM_JOB_ID", "default", "--master-port" */
	long restart_count;      /* TORCHELASTIC_RESTART_COUNT */
	char run_id[128];
	bool agent_store;      /* TORCHELASTIC_USE_AGENT_STORE=True: join, do not serve */
	bool mcinit_launched;  /* started by an mcinit launcher (MCINIT_LAUNCHED=1) */
	char error_file[1024]; /* TORCHELASTIC_ERROR_FILE, "" if none */
	char key_prefix[64];   /* the store prefix: "/" or "//worker/attempt_N/" */
	char token[MCINIT_STORE_TOKEN_MAX + 1]; /* MCINIT_STORE_TOKEN, "" if none */
};

/* Overrides from the command line (NULL / 0 = none). */
struct mcinit_env_opts {
	const char *master_addr;
	int master_port;
};

/* Reads the first contract present in envp (NULL-terminated NAME=value;
 * NULL = this process's environment).  0, or -1 with err (MCINIT_E_USAGE /
 * MCINIT_E_PARSE: a contradiction or a malformed value, named). */
int mcinit_env_detect(struct mcinit_env *e, const char *const *envp,
                      const struct mcinit_env_opts *o, struct mcinit_err *err);

/* Expands a Slurm hostlist ("node[001-004,7],gpu[1-2]x[3-4]"): several
 * bracket groups per name (the leftmost varies slowest), ranges and lists,
 * zero padding kept.  At most max hosts.  0, or -1 with err (MCINIT_E_PARSE). */
int mcinit_hostlist_expand(const char *list, size_t max, char ***hosts, size_t *n,
                           struct mcinit_err *err);
void mcinit_hostlist_free(char **hosts, size_t n);

/* Expands SLURM_TASKS_PER_NODE's compressed form ("4(x2),2" = 4,4,2) into
 * counts[0..*n).  0, or -1 with err (MCINIT_E_PARSE).  Caller frees *counts. */
int mcinit_tasks_per_node(const char *spec, size_t max, long **counts, size_t *n,
                          struct mcinit_err *err);

/* The launcher of `mcinit run --nproc-per-node N`, which also serves the
 * store and reads the phases, is above this module: lib/run/supervisor.c
 * (mcx_launch). */

/* mcinit_write_error_file and mcinit_read_error_file (torchelastic's error
 * file, run.md) are public: mcinit.h. */

#endif
