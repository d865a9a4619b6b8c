/*
 * commands.h — one function per command (cmd-*.c).  Each takes the
 * command's own argc/argv (argv[0] is the command name) plus argi0, the
 * index of argv[0] in mcinit's argv (so diagnostics can say `argv:N`), and
 * returns the process exit status.
 */
#ifndef MCINIT_COMMANDS_H
#define MCINIT_COMMANDS_H

#include <argp.h>
#include <stddef.h>

#include "mcinit.h"

int mcinit_cmd_validate(int argc, char **argv, int argi0);
int mcinit_cmd_topology(int argc, char **argv, int argi0);
int mcinit_cmd_schema(int argc, char **argv, int argi0);
int mcinit_cmd_explain(int argc, char **argv, int argi0);
int mcinit_cmd_complete(int argc, char **argv, int argi0);
int mcinit_cmd_man(int argc, char **argv, int argi0);
int mcinit_cmd_store(int argc, char **argv, int argi0);
int mcinit_cmd_run(int argc, char **argv, int argi0);
int mcinit_cmd_doctor(int argc, char **argv, int argi0);

/* Each command's options (argp), for --help and for shell completion. */
extern const struct argp mcinit_validate_argp, mcinit_topology_argp, mcinit_schema_argp,
    mcinit_explain_argp, mcinit_complete_argp;
extern const struct argp mcinit_man_argp, mcinit_store_argp, mcinit_run_argp, mcinit_doctor_argp;

/* An option's integer value in [lo, hi], or argp_error naming opt. */
long mcinit_opt_long(struct argp_state *state, const char *opt, const char *arg, long lo, long hi);

/* The command table (mcinit.c). */
struct mcinit_command {
	const char *name;
	int (*fn)(int argc, char **argv, int argi0);
	const char *summary;
	const struct argp *argp;
};
extern const struct mcinit_command mcinit_commands[];
extern const size_t mcinit_ncommands;

/* Calls fn(PAGE, arg) for every manual page `mcinit man` writes, file names
 * such as "mcinit-validate.1" (cmd-man.c). */
void mcinit_man_pages(void (*fn)(const char *page, const char *arg), const char *arg);

/* The exit status for a library error code (mcinit.c: the one place that
 * chooses exit statuses). */
int mcinit_exit_status(int code);

/* Shared by every command's --help: MCINIT_EXIT_CODES_DOC. */
#include "exitcodes.h"

#endif
