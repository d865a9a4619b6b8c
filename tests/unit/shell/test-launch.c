/* test-launch.c — what runs the launch (#39 classes 4-7): Slurm's own
 * sizing from #SBATCH, the DeepSpeed launcher, launches behind wrappers
 * (lib/shell/launch-cmdline.c, shell-source.c). */
#include "shell/launch-cmdline.h"
#include "shell-fixture.h"

TestSuite(launch, .fini = teardown);

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

/* ---- 6. the DeepSpeed launcher ---- */

/* deepspeed/launcher/runner.py: the hosts of the hostfile (this machine
 * alone without one), --include/--exclude, the first --num_nodes, each
 * with --num_gpus slots. */
Test(launch, deepspeed_world_size)
{
	static const char *const files[] = {
	    "hosts", "# the cluster\nw0 slots=8\n\n  w1 slots=8 # big\nw2 slots=4\n", "bad",
	    "w0 slots=8\nw0 slots=8\n", NULL};
	static const struct {
		const char *opts;
		long long world, nnodes, per;
		const char *note;
	} cases[] = {
	    {"--num_gpus 4 --num_nodes 2 --master_port 29501", 8, 2, 4, "taken to have 2"},
	    {"--num_gpus=8", 8, 1, 8, NULL},
	    {"--num_nodes=1 --num_gpus 2", 2, 1, 2, NULL},
	    {"", 0, 0, 0, "one process per GPU of each host"},
	    {"--hostfile hosts", 20, 3, 0, NULL},
	    {"-H hosts --num_nodes 2", 16, 2, 8, NULL},
	    {"--hostfile=hosts --num_gpus 2", 6, 3, 2, NULL},
	    {"--hostfile hosts --include w0:0,1@w2", 6, 2, 0, NULL},
	    {"--hostfile hosts --exclude w1", 12, 2, 0, NULL},
	    {"--hostfile hosts --exclude w0:0,1,2", 17, 3, 0, NULL},
	    {"--hostfile hosts --include w9", 0, 0, 0, "not in the hostfile"},
	    {"--hostfile bad", 0, 0, 0, "a host named twice"},
	    {"--include localhost:0,1,2,3", 4, 1, 4, NULL},
	    {"-i w0:0,1@w1:0,1 --num_gpus 4", 8, 2, 4, NULL},
	    {"--hostfile missing --num_gpus 8", 0, 0, 0, "known only when the script runs"},
	    {"--hostfile missing --num_gpus 8 --num_nodes 3", 24, 3, 8, "`missing` not found"},
	    {"--num_gpus $G", 0, 0, 0, "--num_gpus `$G` is known only when the script runs"},
	    {"--include w0 --exclude w1", 0, 0, 0, "--include and --exclude together"},
	};

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *text = malloc(strlen(cases[k].opts) + 64);

		sprintf(text, "deepspeed %s pretrain_gpt.py --x 1\n", cases[k].opts);
		cr_log_info("case %zu: %s", k, text);
		scan_files_ok(text, files);
		free(text);
		cr_assert_str_eq(S.launch.launcher, "deepspeed");
		cr_assert_eq(S.launch.world_size, cases[k].world, "case %zu: world %lld", k,
		             S.launch.world_size);
		cr_assert_eq(S.launch.nnodes, cases[k].nnodes, "case %zu", k);
		cr_assert_eq(S.launch.nproc_per_node, cases[k].per, "case %zu", k);
		if (cases[k].note)
			cr_assert_geq(note_with(cases[k].note), 0, "case %zu: no note `%s`", k,
			              cases[k].note);
		words_are("--x|1");
	}
	scan_ok("deepspeed --master_addr h0 --master_port=6000 --num_gpus 1 train.py\n");
	cr_assert_str_eq(S.launch.master_addr, "h0");
	cr_assert_eq(S.launch.master_port, 6000);
	cr_assert_eq(S.launch.world_size, 1);
}

/* ---- 4. a launch behind a wrapper ---- */

/* Where each wrapper's own words end (wrappers.def): options that take a
 * value, positionals (subcommand, image, mask), `--`, env's assignments. */
Test(launch, wrapper_grammar)
{
	static const struct {
		const char *words[16];
		size_t k, want;
	} cases[] = {
	    {{"numactl", "-N", "0", "--membind=0", "-l", "python", "x.py"}, 0, 5},
	    {{"nsys", "profile", "-o", "torchrun", "--force-overwrite", "true", "torchrun"}, 0, 6},
	    {{"singularity", "exec", "--nv", "-B", "a:b", "img.sif", "run.sh"}, 0, 6},
	    {{"/usr/bin/apptainer", "run", "img.sif", "python"}, 0, 3},
	    {{"taskset", "-c", "0-7", "python"}, 0, 3},
	    {{"enroot", "start", "--mount", "a:b", "pytorch", "--", "torchrun"}, 0, 6},
	    {{"enroot", "start", "--", "pytorch", "torchrun"}, 0, 4},
	    {{"docker", "run", "--rm", "-v", "a:b", "-e", "X=1", "img", "torchrun"}, 0, 8},
	    {{"env", "-u", "X", "A=1", "B=2", "python"}, 0, 5},
	    {{"srun", "numactl", "-m", "1", "python"}, 1, 4},
	    {{"bind.sh", "python"}, 0, 0},
	    {{"python", "x.py"}, 0, 0},
	    {{"numactl", "-N"}, 0, 2},
	};

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		size_t n = 0;

		while (cases[c].words[n] != NULL)
			n++;
		cr_assert_eq(mcinit_launch_unwrap(cases[c].words, n, cases[c].k), cases[c].want,
		             "case %zu: %zu", c,
		             mcinit_launch_unwrap(cases[c].words, n, cases[c].k));
	}
}

/* A wrapper script of the repository behind singularity or numactl is
 * followed with its arguments; a command mcinit cannot read is taken to
 * run its arguments, with a note. */
Test(launch, wrapper_script_followed_or_assumed)
{
	static const char *const files[] = {
	    "tools/w.sh", "#!/bin/bash\nexport NCCL_DEBUG=WARN\nexec python3 -u \"$@\"\n", NULL};
	static const char *const pre[] = {"singularity exec --nv -B a:b img.sif",
	                                  "numactl -N 0 -m 0", "nsys profile -o x",
	                                  "taskset -c 0-7", "srun apptainer exec img.sif"};

	for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
		char text[256];

		snprintf(text, sizeof text, "W=tools/w.sh\n%s \"$W\" pretrain_gpt.py --x 1\n",
		         pre[k]);
		scan_files_ok(text, files);
		words_are("--x|1");
		/* python3 -u of the wrapper runs the script, in the wrapper's file */
		cr_assert_eq(S.launch.file, pre[k][0] == 's' && pre[k][1] == 'r' ? 0 : 1,
		             "%s: the launch (srun's, or python's) is in the wrapper", pre[k]);
		cr_assert(S.argc > 2 && strcmp(S.argv[S.argc - 5], "python3") == 0 &&
		              strcmp(S.argv[S.argc - 4], "-u") == 0,
		          "%s", pre[k]);
		cr_assert(S.nenv > 0 && strcmp(S.env[S.nenv - 1].name, "NCCL_DEBUG") == 0, "%s",
		          pre[k]);
		cr_assert_lt(note_with("taken to run"), 0);
	}
	scan_ok("srun sh -c \"bind.sh --cpu=node python -u pretrain_gpt.py --x 1\"\n");
	words_are("--x|1");
	cr_assert_geq(note_with("`bind.sh` is not a launcher or wrapper mcinit knows and is not "
	                        "read: taken to run the command in its arguments"),
	              0);
}

/* ---- 7. one judgment per script ---- */

/* Each launch is kept, in the order bash runs them, with its own words and
 * launcher (validate judges each, and the script by the worst). */
Test(launch, each_launch_kept_in_bash_order)
{
	scan_ok("for g in 16 12; do\n"
	        "  torchrun --nproc_per_node 8 pretrain_gpt.py --global-batch-size $g\n"
	        "done\n"
	        "deepspeed --num_gpus 4 pretrain_gpt.py --global-batch-size 4\n");
	cr_assert_eq(S.nlaunches, 3);
	cr_assert_str_eq(S.launches[0].words[1].text, "16");
	cr_assert_str_eq(S.launches[1].words[1].text, "12");
	cr_assert_eq(S.launches[1].launch.world_size, 8);
	cr_assert_str_eq(S.launches[2].launch.launcher, "deepspeed");
	cr_assert_eq(S.launches[2].launch.world_size, 4);
}

/* With no #SBATCH line, a Slurm variable is the allocation's when the job
 * runs: a world size from its default is marked (and said once); with
 * #SBATCH, or from a variable of the script's own, it is not. */
Test(launch, slurm_default_is_an_assumption)
{
	scan_ok("NNODES=${SLURM_NNODES:-\"1\"}\nA=(--nnodes $NNODES --nproc_per_node 8)\n"
	        "torchrun ${A[@]} pretrain_gpt.py --x 1\n");
	cr_assert_eq(S.launch.world_size, 8);
	cr_assert(S.launch.world_assumed);
	cr_assert_geq(note_with("torchrun gets `1` from the default the script takes for a Slurm "
	                        "variable"),
	              0);
	scan_ok("srun -N $(echo ${SLURM_JOB_NUM_NODES-2}) python pretrain_gpt.py --x 1\n");
	cr_assert_eq(S.launch.world_size, 2);
	cr_assert(S.launch.world_assumed);
	scan_ok("#SBATCH --ntasks-per-node=1\nNNODES=${SLURM_NNODES:-1}\n"
	        "torchrun --nnodes $NNODES --nproc_per_node 8 pretrain_gpt.py --x 1\n");
	cr_assert_eq(S.launch.world_size, 8);
	cr_assert_not(S.launch.world_assumed, "#SBATCH says what the job is");
	scan_ok(
	    "NNODES=${NODES:-2}\ntorchrun --nnodes $NNODES --nproc_per_node 8 pretrain_gpt.py\n");
	cr_assert_eq(S.launch.world_size, 16);
	cr_assert_not(S.launch.world_assumed, "the script's own default");
	scan_ok(
	    "NNODES=${SLURM_NNODES:-1}\ntorchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py\n");
	cr_assert_not(S.launch.world_assumed, "not used by the launcher");
}
