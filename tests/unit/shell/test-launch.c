/* test-launch.c — what runs the launch (#39 classes 4-7): Slurm's own
 * sizing from #SBATCH, the DeepSpeed launcher, launches behind wrappers
 * (lib/shell/launch-cmdline.c, shell-source.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shell.h"

static struct mcinit_shscan S;

static void
scan_ok(const char *text)
{
	struct mcinit_err err = {0};

	mcinit_shscan_destroy(&S);
	cr_assert_eq(mcinit_shscan_parse(text, strlen(text), &S, &err), 0, "parse failed: %s",
	             err.msg);
}

static void
teardown(void)
{
	mcinit_shscan_destroy(&S);
}

TestSuite(launch, .fini = teardown);

/* The words of the launch joined with '|'. */
static void
words_are(const char *want)
{
	size_t n = 1;
	char *s;

	for (size_t k = 0; k < S.nwords; k++)
		n += strlen(S.words[k].text) + 1;
	s = calloc(n, 1);
	for (size_t k = 0; k < S.nwords; k++) {
		if (k)
			strcat(s, "|");
		strcat(s, S.words[k].text);
	}
	cr_assert_str_eq(s, want);
	free(s);
}

/* Index of the first note containing sub, or -1. */
static long __attribute__((unused)) note_with(const char *sub)
{
	for (size_t k = 0; k < S.nnotes; k++)
		if (strstr(S.notes[k].msg, sub))
			return (long)k;
	return -1;
}

/* ---- 5. Slurm's own sizing ---- */

/* sbatch(1), OUTPUT ENVIRONMENT VARIABLES: SLURM_GPUS_ON_NODE from
 * whichever option asks for GPUs, the others only with their option. */
Test(launch, slurm_gpus_on_node_from_gres)
{
	static const char tail[] =
	    "python train.py --g ${SLURM_GPUS_ON_NODE:-unset} --p ${SLURM_GPUS_PER_NODE:-unset}\n";
	static const struct {
		const char *sbatch, *want;
	} cases[] = {
	    {"#SBATCH --gres=gpu:8\n", "--g|8|--p|unset"},
	    {"#SBATCH --gres=gpu:h100:4\n", "--g|4|--p|unset"},
	    {"#SBATCH --gres=shard:2,gpu:a100:2\n", "--g|2|--p|unset"},
	    {"#SBATCH --gres gpu:6,shard:1\n", "--g|6|--p|unset"},
	    {"#SBATCH --gres=gpu\n", "--g|1|--p|unset"},
	    {"#SBATCH --gres=gpu:h100\n", "--g|1|--p|unset"},
	    {"#SBATCH --gres=shard:4\n", "--g|unset|--p|unset"},
	    {"#SBATCH --gpus-per-node=h100:4\n", "--g|4|--p|unset"},
	    {"#SBATCH --gpus-per-node=4\n#SBATCH --gres=gpu:8\n", "--g|4|--p|4"},
	    {"#SBATCH -N 2 -G 16\n", "--g|8|--p|unset"},
	    {"#SBATCH --gpus=16\n", "--g|unset|--p|unset"}, /* the nodes are not said */
	    {"#SBATCH -N 3 --gpus=16\n", "--g|unset|--p|unset"},
	    {"#SBATCH -N2 --ntasks-per-node=4 --gpus-per-task=2\n", "--g|8|--p|unset"},
	    {"#SBATCH -N 2 -n 16 --gpus-per-task=1\n", "--g|8|--p|unset"},
	    {"#SBATCH --gpus-per-task=1\n", "--g|unset|--p|unset"},
	};

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *text = malloc(strlen(cases[k].sbatch) + sizeof tail);

		strcpy(text, cases[k].sbatch);
		strcat(text, tail);
		scan_ok(text);
		free(text);
		cr_log_info("case %zu: %s", k, cases[k].sbatch);
		words_are(cases[k].want);
	}
}

Test(launch, slurm_counts_of_their_options)
{
	scan_ok("#SBATCH -N 4 -G 32 --gpus-per-task=2 -c 16\n"
	        "python train.py --a ${SLURM_GPUS:-x} --b ${SLURM_GPUS_PER_TASK:-x} "
	        "--c ${SLURM_CPUS_PER_TASK:-x} --d $SLURM_JOB_NUM_NODES\n");
	words_are("--a|32|--b|2|--c|16|--d|4");
	cr_assert_eq(S.words[5].line, 1, "located at the directive");
	scan_ok("#SBATCH --cpus-per-task=8\npython train.py --c ${SLURM_CPUS_PER_TASK:-x}\n");
	words_are("--c|8");
}

/* The world size torchrun gets from them, as in launch-gen.py's shapes. */
Test(launch, slurm_gres_sizes_torchrun)
{
	scan_ok("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --gres=gpu:h100:8\n"
	        "srun --ntasks-per-node=1 torchrun --nproc-per-node=${SLURM_GPUS_ON_NODE} "
	        "--nnodes=${SLURM_NNODES} pretrain_gpt.py --x 1\n");
	cr_assert_eq(S.launch.world_size, 16);
	cr_assert_eq(S.launch.nproc_per_node, 8);
}
