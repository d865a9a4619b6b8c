/*
 * launcher.h — what the launcher of a training command says about the job:
 * `torchrun` / `python -m torch.distributed.run|launch`, `srun`, `mpirun`
 * (and `mpiexec`), possibly nested (`srun torchrun ...`), behind wrappers
 * such as `env V=1`, `exec`, `nohup`, `uv run` or a profiler; `deepspeed`
 * (its --num_nodes, --num_gpus, --hostfile, --include and --exclude, as
 * deepspeed/launcher/runner.py reads them); and `#SBATCH` directives, which
 * give srun its defaults.
 *
 * Options are read as each tool reads them: torchrun's argparse (`--opt v`,
 * `--opt=v`, `_` and `-` alike, the first other word is the script), Slurm's
 * (`-N 2`, `-N2`, `--nodes=2`, `--nodes 2`, a MIN-MAX range), Open MPI's and
 * MPICH's (`-np 16`, `-N 8` per node, `-x V=1` and `-genv V 1` export).
 *
 * World size: torchrun nnodes (MAX of MIN:MAX) x nproc_per_node (defaults
 * 1:1 and 1); srun alone: --ntasks, else nodes x --ntasks-per-node, else one
 * task per node; mpirun: -np, else nodes x per-node.  A value known only at
 * run time (`$1`, `$(...)`, `--nproc_per_node gpu`) leaves it unknown, with
 * a note saying which.
 */
#ifndef MCINIT_LAUNCHER_H
#define MCINIT_LAUNCHER_H

#include <stddef.h>

#include "shell/shell.h"

struct mcinit_lword {
	const char *text;
	int line, col;
	int opaque;  /* only known at run time */
	int assumed; /* a default taken for a Slurm variable the job's
	              * allocation sets (${SLURM_NNODES:-1}, no #SBATCH) */
};

struct mcinit_launch_sink {
	void *ctx;
	/* a note about the launch (msg owned by the callee) */
	void (*note)(void *ctx, int line, int col, char *msg);
	/* an environment variable the job gets: remote 1 when the launcher
	 * passes it to the processes it starts (mpirun -x), 0 for `env V=1` */
	void (*env)(void *ctx, const char *name, const char *value, int line, int col, int remote);
	/* the text of the file name (a deepspeed --hostfile), found as the
	 * script finds the files it runs (malloc'd, *len its size); NULL with
	 * *why when it cannot be read.  NULL: no file is read */
	char *(*read)(void *ctx, const char *name, size_t *len, const char **why);
};

/*
 * w[0..n): the words of the command before its `*.py` script; sbatch[0..ns):
 * the words of the script's #SBATCH directives.  Fills *out (its strings are
 * owned by it: free with mcinit_launch_clear).
 */
void mcinit_launch_parse(const struct mcinit_lword *w, size_t n, const struct mcinit_lword *sbatch,
                         size_t ns, const struct mcinit_launch_sink *sink,
                         struct mcinit_shlaunch *out);
void mcinit_launch_clear(struct mcinit_shlaunch *l);

/* When w[k] names a wrapper (numactl, nsys profile, singularity exec IMAGE,
 * env A=B ..., lib/shell/wrappers.def): the index of the command it runs
 * (n when none); k otherwise. */
size_t mcinit_launch_unwrap(const char *const *w, size_t n, size_t k);

/* The variables Slurm sets in the job's environment that sbatch[0..ns)
 * (the #SBATCH directives) determine: SLURM_NNODES, SLURM_JOB_NUM_NODES,
 * SLURM_NTASKS, SLURM_NPROCS, SLURM_NTASKS_PER_NODE, SLURM_GPUS_ON_NODE,
 * SLURM_GPUS_PER_NODE; set() gets each with the directive's place. */
void mcinit_sbatch_env(const struct mcinit_lword *sbatch, size_t ns,
                       void (*set)(void *ctx, const char *name, const char *value, int line,
                                   int col),
                       void *ctx);

#endif
