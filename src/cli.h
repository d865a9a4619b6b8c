/*
 * cli.h — PRIVATE to the mcinit binary (argp lives here, not in the
 * library): the job options every command shares (inputs, overrides, the
 * words after `--`, world size, Megatron version, output format), turned
 * into the library's plain job description, and writing JSON output.
 *
 * Ownership: struct mcinit_cli borrows argv strings (they live as long as
 * main) and owns only its arrays; release with mcinit_cli_destroy.
 */
#ifndef MCINIT_CLI_H
#define MCINIT_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "mcinit.h"

enum mcinit_format { MCINIT_FMT_TEXT = 1, MCINIT_FMT_JSON = 2, MCINIT_FMT_SVG = 4 };

struct mcinit_cli {
	char **inputs; /* .json, .sh/.bash, .py in command-line order */
	char *recipe;  /* "bridge-recipe:NAME", first of inputs, owned; or NULL */
	char **overrides;
	int *override_argi;
	size_t ninputs, noverrides;
	char **owned; /* overrides the options made (--te-version), owned */
	size_t nowned;
	char **rest; /* words after `--` (Megatron flags, or run's command) */
	size_t nrest;
	int rest_argi; /* index of rest[0] in mcinit's own argv */
	int argi0;     /* index of the command's argv[0] in mcinit's argv */
	struct {
		long long world_size;     /* --world-size, 0 = not given */
		long long nnodes;         /* --nnodes, 0 = not given */
		long long nproc_per_node; /* --nproc-per-node, 0 = not given */
		bool bridge_defaults;     /* --bridge-defaults */
	} check;                   /* what mcinit_cli_desc copies into struct mcinit_job_desc */
	const char *mversion_name; /* --megatron-version as given, NULL = main */
	const char *bversion_name; /* --bridge-version as given, NULL = the newest release */
	const char *entry_point;   /* --entry-point as given, NULL = from the script */
	const char *script_args;   /* --script-args as given, NULL = none */
	const char *memory_model;  /* --memory-model as given, NULL = none */
	const char *gpu_memory;    /* --gpu-memory as given (GiB), NULL = unknown */
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

/* The library's job description of these options, the words after `--`
 * taken as Megatron-LM flags (validate, topology).  desc borrows from cli. */
void mcinit_cli_desc(const struct mcinit_cli *cli, struct mcinit_job_desc *desc);

/* A job that could not be loaded: the diagnostics found before, then the
 * error, on stderr.  Returns the exit status. */
int mcinit_cli_fail(struct mcinit_diags *d, const mcinit_error_t *err);

/* "SOURCE:LINE:COL: " of a located error to out (the parts known), as the
 * library locates it; nothing when it names no source. */
void mcinit_cli_error_place(const mcinit_error_t *err, FILE *out);

/* The error as a JSON object {"code", "message", "source", "line",
 * "column", "argv_index"} (absent parts null); a new reference. */
json_t *mcinit_cli_error_json(const mcinit_error_t *err);

/* Pretty JSON to out with a final newline (steals no reference). */
int mcinit_print_json(json_t *j, FILE *out);

/* "1 error, 2 warnings" summary to out, when there is anything to say. */
void mcinit_print_summary(const struct mcinit_diags *d, FILE *out);

#endif
