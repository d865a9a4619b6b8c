/*
 * cmd-doctor.c — `mcinit doctor`: this node's readiness for a GPU job in
 * one screen or as JSON.  A thin client of the library: mcinit_doctor does
 * the work (lib/run/doctor.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "commands.h"

static const char doc[] =
    "Report this node's readiness for a GPU job: the NVIDIA driver and CUDA runtime, which "
    "libcudart and libnccl load, from where and why (as the trainer's Python would find "
    "them), whether torch's NCCL is the same, each GPU's compute mode and ECC, the "
    "open-file and locked-memory limits and net.core.somaxconn against the world size, "
    "/dev/shm's size, and each problem with its fix.  Works without a GPU.\v"
    "Exit status: 0 no problem found; 69 a problem found (each is printed with its fix); "
    "64 bad usage; 74 the output could not be written; 3 out of memory.";

enum { OPT_FORMAT = 256, OPT_WORLD };

static const struct argp_option options[] = {
    {"format", OPT_FORMAT, "FORMAT", 0, "text (default) or json", 0},
    {"world", OPT_WORLD, "N", 0,
     "the job's world size, to check the open-file limit and somaxconn against", 0},
    {0}};

struct args {
	int json;
	long world;
};

static error_t
parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case OPT_FORMAT:
		if (strcmp(arg, "json") == 0)
			a->json = 1;
		else if (strcmp(arg, "text") == 0)
			a->json = 0;
		else
			argp_error(state, "--format: text or json, not '%s'", arg);
		return 0;
	case OPT_WORLD:
		a->world = mcinit_opt_long(state, "--world", arg, 1, 1L << 30);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "no argument expected: '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp mcinit_doctor_argp = {options, parse, NULL, doc, NULL, NULL, NULL};

int
mcinit_cmd_doctor(int argc, char **argv, int argi0)
{
	struct args a = {0, 0};
	char *json = NULL;
	int n;

	(void)argi0;
	argv[0] = "mcinit doctor";
	argp_parse(&mcinit_doctor_argp, argc, argv, 0, NULL, &a);
	n = mcinit_doctor(a.world, a.json ? NULL : stdout, a.json ? &json : NULL);
	if (n < 0)
		return mcinit_exit_status(MCINIT_E_NOMEM);
	if (json && (fputs(json, stdout) < 0 || putchar('\n') == EOF)) {
		free(json);
		return EX_IOERR;
	}
	free(json);
	return n > 0 ? EX_UNAVAILABLE : 0;
}
