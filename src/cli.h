/*
 * cli.h — what every command shares: the job options (inputs, overrides,
 * Megatron flags after `--`, world size, Megatron version, output format),
 * loading them into a config, and writing JSON output.
 *
 * Ownership: struct mcinit_cli borrows argv strings (they live as long as
 * main) and owns only its arrays; release with mcinit_cli_destroy.
 */
#ifndef MCINIT_CLI_H
#define MCINIT_CLI_H

#include <argp.h>
#include <stdio.h>

#include "config.h"
#include "rules.h"

enum mcinit_format { MCINIT_FMT_TEXT = 1, MCINIT_FMT_JSON = 2, MCINIT_FMT_SVG = 4 };

struct mcinit_cli {
	char **inputs; /* .json, .sh/.bash, .py in command-line order */
	char **overrides;
	int *override_argi;
	size_t ninputs, noverrides;
	char **rest; /* words after `--` (Megatron flags, or run's command) */
	size_t nrest;
	int rest_argi; /* index of rest[0] in mcinit's own argv */
	int argi0;     /* index of the command's argv[0] in mcinit's argv */
	struct mcinit_check_opts check;
	unsigned mversion;
	enum mcinit_format format;
	unsigned formats; /* formats this command accepts */
	char *prog;       /* "mcinit COMMAND", owned: argp's name in messages */
};

/* argp child with the options above; its input is a struct mcinit_cli *. */
extern const struct argp mcinit_job_argp;

void mcinit_cli_init(struct mcinit_cli *cli, int argi0, unsigned formats);
void mcinit_cli_destroy(struct mcinit_cli *cli);

/* Cuts argv at the first "--": returns the argc argp should see and keeps
 * the rest in cli.  Also renames argv[0] to "mcinit COMMAND" so that argp's
 * messages name the whole command. */
int mcinit_cli_split(struct mcinit_cli *cli, int argc, char **argv);

/* Config from defaults, inputs, overrides and flags (in that precedence),
 * then required-field checks.  -1 when an input is unusable (err->code). */
int mcinit_job_load(const struct mcinit_cli *cli, struct mcinit_config *c, struct mcinit_diags *d,
                    struct mcinit_err *err);

/* Pretty JSON to out with a final newline (steals no reference). */
int mcinit_print_json(json_t *j, FILE *out);

/* "1 error, 2 warnings" summary on stderr, when there is anything to say. */
void mcinit_print_summary(const struct mcinit_diags *d, FILE *out);

#endif
