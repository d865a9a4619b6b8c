/*
 * initialize.c — a trainer's start-up through libmcinit: mcinit_initialize
 * with lazy MPU init (Megatron's dist.lazy_mpu_init), the trainer's own
 * work in between, then the finish callback, which runs the deferred
 * distributed phases; then the communicators, and the teardown.
 *
 *   cc initialize.c $(pkg-config --cflags --libs mcinit) -o initialize
 *   ./initialize [--allow-no-cuda] [--eager] JOB.json [SECTION.FIELD=VALUE...]
 *
 * Run it alone (a single process) or under a launcher (torchrun, srun,
 * `mcinit run --nproc-per-node N -- ./initialize JOB.json`): it reads the
 * launcher's environment, as mcinit run does.
 *
 * It says which launcher started it and which phase failed, if one did;
 * when ready, mcinit run's summary (rank 0) and the flags Megatron-LM
 * would be given for the job's values that differ from its defaults.
 *
 * Exit status: 0 ready, 1 invalid job, 2 an initialisation error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcinit.h>

/* The job's env_vars (NCCL settings...) go into this process's environment
 * before NCCL starts: the library leaves that to the program. */
static void
set_env(const char *name, const char *value, int overwrite)
{
	if (value == NULL)
		unsetenv(name);
	else
		setenv(name, value, overwrite);
}

static void
print_phases(const struct mcinit_init *init, const char *when)
{
	int i;

	printf("%s:\n", when);
	for (i = 0; i < mcinit_init_phase_count(); i++) {
		const char *name, *status, *detail;

		mcinit_init_phase(init, i, &name, &status, &detail, NULL);
		printf("  %-10s %-8s %s\n", name, status, detail);
	}
}

/* Which phase failed (mcinit_init_failed_phase), if one did. */
static void
print_failed(const struct mcinit_init *init)
{
	const char *name;
	int p = mcinit_init_failed_phase(init);

	if (p < mcinit_init_phase_count() &&
	    mcinit_init_phase(init, p, &name, NULL, NULL, NULL) == 0)
		printf("failed phase: %s\n", name);
}

int
main(int argc, char **argv)
{
	struct mcinit_job_desc desc = {0};
	struct mcinit_init_options o = {0};
	const char *inputs[16], *overrides[16];
	struct mcinit_init *init = NULL;
	mcinit_finish_callback finish = NULL;
	mcinit_error_t err;
	const char *launcher;
	char **margs;
	size_t i, nargs;
	long rank;
	int a, rc = 2;

	o.lazy_mpu_init = 1;
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--allow-no-cuda") == 0)
			o.allow_no_cuda = 1;
		else if (strcmp(argv[a], "--eager") == 0)
			o.lazy_mpu_init = 0;
		else if (strchr(argv[a], '=') && desc.noverrides < 16)
			overrides[desc.noverrides++] = argv[a];
		else if (desc.ninputs < 16)
			inputs[desc.ninputs++] = argv[a];
	}
	desc.inputs = inputs;
	desc.overrides = overrides;
	o.timeout = 60;
	o.set_env = set_env;
	if (mcinit_initialize(&desc, &o, &init, &finish, &err) != 0) {
		printf("error (%s): %s\n", mcinit_code_name(mcinit_error_code(&err)), err.text);
		if (mcinit_error_code(&err) == MCINIT_E_INVALID)
			mcinit_diags_print(mcinit_init_diagnostics(init), stdout, 0);
		rc = mcinit_error_code(&err) == MCINIT_E_INVALID ? 1 : 2;
		print_failed(init);
		goto out;
	}
	mcinit_init_launcher(init, &launcher, &rank, NULL, NULL);
	printf("launcher: %s, rank %ld\n", launcher ? launcher : "none", rank);
	print_phases(init, finish ? "initialized, lazily" : "initialized");
	if (finish) {
		/* ... here Megatron builds the model on the CPU (use_cpu_initialization) ... */
		printf("finish callback: running the deferred phases\n");
		if (finish(init, &err) != 0) {
			printf("error (%s): %s\n", mcinit_code_name(mcinit_error_code(&err)),
			       err.text);
			print_failed(init);
			goto out;
		}
		print_phases(init, "finished");
	}
	printf("world communicator: %s\n", mcinit_init_nccl_comm(init, "world") ? "yes" : "none");
	if (rank == 0)
		mcinit_init_summary(init, stdout);
	margs = mcinit_init_megatron_args(init, &nargs);
	printf("megatron flags:");
	for (i = 0; i < nargs; i++) {
		printf(" %s", margs[i]);
		free(margs[i]);
	}
	printf("\n");
	free(margs);
	rc = 0;
out:
	mcinit_destroy(init);
	return rc;
}
