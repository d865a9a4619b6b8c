/* cmd-validate.c — `mcinit validate`: check a job, report everything at once. */
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

#include "cli.h"
#include "commands.h"
#include "private/mcinit-tool.h"

enum { OPT_PRINT_CONFIG = 0x200, OPT_EACH, OPT_WERROR, OPT_NO_CONFIG };

struct vopts {
	struct mcinit_cli cli;
	bool print_config;
	bool each;
	bool werror;
	bool no_config;
};

static const struct argp_option options[] = {
    {"print-config", OPT_PRINT_CONFIG, NULL, 0,
     "Print the resolved config (defaults and repairs applied) as JSON", 2},
    {"each", OPT_EACH, NULL, 0,
     "Validate every INPUT as a job of its own (with the same overrides and flags) instead of "
     "merging them; the exit status is the worst of all",
     2},
    {"werror", OPT_WERROR, NULL, 0,
     "Warnings count as errors: exit 1 (and \"valid\": false) when there is any, whatever the "
     "input",
     2},
    {"no-config", OPT_NO_CONFIG, NULL, 0,
     "Ignore the repository's settings (the nearest mcinit.toml, or pyproject.toml's "
     "[tool.mcinit], upward from the first INPUT)",
     2},
    {NULL, 0, NULL, 0, NULL, 0},
};

static error_t
parse_opt(int key, char *arg, struct argp_state *state)
{
	struct vopts *o = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->cli;
		break;
	case OPT_PRINT_CONFIG:
		o->print_config = true;
		break;
	case OPT_EACH:
		o->each = true;
		break;
	case OPT_WERROR:
		o->werror = true;
		break;
	case OPT_NO_CONFIG:
		o->no_config = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {{&mcinit_job_argp, 0, NULL, 0}, {NULL, 0, NULL, 0}};

static const char doc[] =
    "Check a Megatron job without GPUs and report every problem at once.\v"
    "INPUT: a .json or .yaml/.yml config (Megatron-Bridge's shape; YAML is read as Bridge's "
    "OmegaConf loader reads it), a .sh/.bash launch script (its Megatron flags are extracted, "
    "with bash's semantics) or a .py file (linted for argparse type=bool; .py files alone are a "
    "lint request: no job is checked).  Inputs merge left to right, "
    "then section.field=VALUE overrides, then the Megatron-LM flags after `--`.\n\n"
    "A launch script's other files are read where it uses them: `source FILE [ARGS]` and "
    "`. FILE [ARGS]` in its own shell (FILE's variables, functions and launches become the "
    "script's; ARGS are its positional parameters while it is read), `bash FILE ARGS`, `sh "
    "FILE`, `./FILE.sh` and `srun ... bash FILE` as a child shell (exported variables only; "
    "ARGS its positional parameters; a launch in it is checked, placed in FILE).  FILE is "
    "looked for as given when absolute, else in the script's directory, then the current one "
    "(bash looks in the current directory, and a bare name on PATH first: scripts are "
    "usually run from their own directory); 8 files deep at most, and a file already being "
    "read is not read again inside itself.  A file that cannot be read is a warning at the "
    "line that names it; the variables a sourced one may set are then known only at run "
    "time (never taken as unset), so their flags are not checked and no required field is "
    "said to be missing.\n\n"
    "Diagnostics go to stderr as FILE:LINE:COL: severity[CODE]: message (argv:N for "
    "command-line words); with --format=json stdout gets {\"valid\", \"diagnostics\", "
    "\"derived\"} (with --each and several inputs, or a launch script that launches several "
    "times, each launch checked on its own: {\"valid\", \"results\": [...]}, one result per "
    "launch in the order bash runs them, each with its own \"derived\"; the top-level "
    "\"valid\" is the worst launch's, false when any fails, as the exit status is, and no "
    "\"derived\" is at the top level); an input that cannot "
    "be used gives {\"valid\": false, \"error\": {\"code\", "
    "\"message\", \"source\", \"line\", \"column\", \"argv_index\"}, \"diagnostics\"}, "
    "and a command-line word is located by \"argv_index\".\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_validate_argp = {
    options, parse_opt, "[INPUT...] [SECTION.FIELD=VALUE...] [-- MEGATRON-FLAGS...]", doc, children,
    NULL,    NULL};

/* Whether the findings fail the job: errors, or warnings under --werror. */
static bool
failed(const struct vopts *o, const struct mcinit_diags *d)
{
	return mcinit_diags_count(d, MCINIT_ERROR) > 0 ||
	       (o->werror && mcinit_diags_count(d, MCINIT_WARNING) > 0);
}

/* The JSON result object of one validation; a lint request (only .py
 * files) has no derived values. */
static json_t *
result_json(const struct vopts *o, const struct mcinit_job *job, const struct mcinit_diags *d)
{
	return mcx_job_result_json(job, d, !failed(o, d), o->print_config);
}

static int
emit_text(const struct vopts *o, const struct mcinit_job *job, const struct mcinit_diags *d)
{
	int rc = 0;

	mcinit_diags_print(d, stderr, mcx_want_color(stderr));
	mcinit_print_summary(d, stderr);
	if (o->werror && mcinit_diags_count(d, MCINIT_WARNING) > 0)
		fprintf(stderr, "mcinit: --werror: warnings count as errors\n");
	if (mcx_job_lint_only(job))
		return 0;
	if (o->print_config) {
		char *cfg = mcinit_job_config_json(job);

		/* the text mcinit_print_json writes: indented, a final newline */
		rc = cfg != NULL && fputs(cfg, stdout) >= 0 && putchar('\n') != EOF ? 0 : -1;
		free(cfg);
	} else if (mcinit_diags_count(d, MCINIT_ERROR) == 0) {
		mcinit_job_derived_print(job, stdout);
	}
	return rc;
}

/* The repository's settings (mcinit_settings_json) under the command
 * line's: what an option or the command line gives wins; the file's
 * overrides come before the command line's.  *werror and the arrays it
 * makes (freed by the caller) are set.  0, or -1 with err. */
struct settings_use {
	json_t *j;
	const char **ov;
	int *ovi;
	char *world_source; /* "world_size of FILE" */
};

static int
apply_settings(const struct vopts *o, const struct mcinit_cli *cli, struct mcinit_job_desc *desc,
               bool *werror, struct settings_use *u, mcinit_error_t *err)
{
	char *text;
	json_t *v, *ov;
	size_t i, n;

	if (o->no_config)
		return 0;
	text = mcinit_settings_json(cli->ninputs ? cli->inputs[0] : ".", err);
	if (text == NULL)
		return -1;
	u->j = json_loads(text, 0, NULL);
	free(text);
	if (u->j == NULL || json_is_null(json_object_get(u->j, "file")))
		return 0;
	if (desc->world_size == 0 && json_is_integer(v = json_object_get(u->j, "world_size"))) {
		desc->world_size = json_integer_value(v);
		/* messages name the file, not an option nobody gave */
		if (asprintf(&u->world_source, "world_size of %s",
		             json_string_value(json_object_get(u->j, "file"))) >= 0)
			desc->world_source = u->world_source;
		else
			u->world_source = NULL;
	}
	if (desc->nnodes == 0 && json_is_integer(v = json_object_get(u->j, "nnodes")))
		desc->nnodes = json_integer_value(v);
	if (desc->nproc_per_node == 0 &&
	    json_is_integer(v = json_object_get(u->j, "nproc_per_node")))
		desc->nproc_per_node = json_integer_value(v);
	if (!desc->megatron_version &&
	    json_is_string(v = json_object_get(u->j, "megatron_version")))
		desc->megatron_version = json_string_value(v);
	if (!desc->bridge_version && json_is_string(v = json_object_get(u->j, "bridge_version")))
		desc->bridge_version = json_string_value(v);
	if (!desc->entry_point && json_is_string(v = json_object_get(u->j, "entry_point")))
		desc->entry_point = json_string_value(v);
	if (json_is_true(json_object_get(u->j, "werror")))
		*werror = true;
	ov = json_object_get(u->j, "overrides");
	n = json_array_size(ov);
	if (n > 0) {
		u->ov = calloc(n + desc->noverrides, sizeof *u->ov);
		u->ovi = calloc(n + desc->noverrides, sizeof *u->ovi);
		if (u->ov == NULL || u->ovi == NULL) {
			mcinit_error_t e = {.code = MCINIT_E_NOMEM, .argv_index = -1};

			*err = e;
			return -1;
		}
		for (i = 0; i < n; i++)
			u->ov[i] = json_string_value(json_array_get(ov, i)); /* ovi 0: no word */
		for (i = 0; i < desc->noverrides; i++) {
			u->ov[n + i] = desc->overrides[i];
			u->ovi[n + i] =
			    desc->override_argv_index ? desc->override_argv_index[i] : 0;
		}
		desc->overrides = u->ov;
		desc->override_argv_index = u->ovi;
		desc->noverrides += n;
	}
	return 0;
}

/*
 * Validates one job made of cli->inputs (all of them, merged) plus the
 * overrides and flags, with launch `launch` of its launch scripts (0: the
 * first).  JSON results are appended to `results` (when not NULL) instead
 * of printed.  Returns the exit status of this job; with launch 0 and
 * scripts that launch several times, prints nothing and sets *nlaunches.
 */
static int
validate_one(const struct vopts *o, const struct mcinit_cli *cli, json_t *results, int launch,
             size_t *nlaunches)
{
	struct mcinit_job_desc desc;
	struct mcinit_diags *d = mcinit_diags_new();
	struct mcinit_job *job = NULL;
	struct settings_use use = {0};
	struct vopts eff = *o; /* o with the settings' werror */
	mcinit_error_t err;
	int status;

	mcinit_cli_desc(cli, &desc);
	desc.script_launch = launch;
	if (apply_settings(o, cli, &desc, &eff.werror, &use, &err) == 0)
		job = mcinit_job_new(&desc, d, &err);
	o = &eff;
	if (job == NULL && results != NULL) {
		/* --format=json always prints JSON: the error, with its place. */
		json_t *r = json_object();

		mcinit_diags_sort(d);
		json_object_set_new(r, "valid", json_false());
		json_object_set_new(r, "error", mcinit_cli_error_json(&err));
		json_object_set_new(r, "diagnostics", mcx_diags_to_json(d));
		if (o->each && cli->ninputs == 1)
			json_object_set_new(r, "input", json_string(cli->inputs[0]));
		json_array_append_new(results, r);
		status = mcinit_exit_status(err.code);
		goto out;
	}
	if (job == NULL) {
		status = mcinit_cli_fail(d, &err);
		goto out;
	}
	status = failed(o, d) ? 1 : 0;
	if (launch == 0 && (*nlaunches = mcinit_job_script_launches(job)) >= 2)
		goto out; /* each launch is checked on its own */
	if (results != NULL) {
		json_t *r = result_json(o, job, d);

		if (o->each && cli->ninputs == 1)
			json_object_set_new(r, "input", json_string(cli->inputs[0]));
		if (launch > 0)
			json_object_set_new(r, "launch", json_integer(launch));
		json_array_append_new(results, r);
	} else if (emit_text(o, job, d) < 0) {
		fprintf(stderr, "mcinit: cannot write output\n");
		status = EX_IOERR;
	}
out:
	mcinit_job_free(job);
	mcinit_diags_free(d);
	free(use.ov);
	free(use.ovi);
	free(use.world_source);
	json_decref(use.j);
	return status;
}

/* With --each: a failure to read an input (64+) outranks an invalid job. */
static int
worse(int a, int b)
{
	if (a >= 64 || b >= 64)
		return a >= 64 ? a : b;
	return a > b ? a : b;
}

/* validate_one, or for a launch script that launches several times (a
 * loop, several launcher lines), each launch on its own. */
static int
validate_job(const struct vopts *o, const struct mcinit_cli *cli, json_t *results)
{
	size_t n = 0;
	int status;

	/* each launch is a job of its own, made again from the inputs; the
	 * script is interpreted once, all its launches together */
	mcx_script_memo(true);
	status = validate_one(o, cli, results, 0, &n);
	if (n < 2) {
		mcx_script_memo(false);
		return status;
	}
	for (size_t k = 1; k <= n; k++) {
		if (results == NULL) {
			printf("%s== launch %zu of %zu\n", k > 1 ? "\n" : "", k, n);
			fflush(stdout);
			fprintf(stderr, "== launch %zu of %zu\n", k, n);
		}
		status = worse(k > 1 ? status : 0, validate_one(o, cli, results, (int)k, NULL));
	}
	mcx_script_memo(false);
	return status;
}

int
mcinit_cmd_validate(int argc, char **argv, int argi0)
{
	struct vopts o = {0};
	json_t *results = NULL;
	int status = 0, n;
	size_t i;

	mcinit_cli_init(&o.cli, argi0, MCINIT_FMT_TEXT | MCINIT_FMT_JSON);
	n = mcinit_cli_split(&o.cli, argc, argv);
	argp_parse(&mcinit_validate_argp, n, argv, 0, NULL, &o);
	if (o.cli.format == MCINIT_FMT_JSON)
		results = json_array();
	if (!o.each || o.cli.ninputs <= 1) {
		status = validate_job(&o, &o.cli, results);
	} else {
		struct mcinit_cli one = o.cli;

		for (i = 0; i < o.cli.ninputs; i++) {
			one.inputs = &o.cli.inputs[i];
			one.ninputs = 1;
			if (results == NULL) {
				printf("%s== ", i ? "\n" : "");
				mcx_fputs_text(o.cli.inputs[i], stdout);
				putchar('\n');
			}
			fflush(stdout);
			if (results == NULL) {
				fputs("== ", stderr);
				mcx_fputs_text(o.cli.inputs[i], stderr);
				fputc('\n', stderr);
			}
			status = worse(status, validate_job(&o, &one, results));
		}
	}
	if (results != NULL && json_array_size(results) > 0) {
		json_t *out = json_incref(json_array_get(results, 0));

		if ((o.each && o.cli.ninputs > 1) || json_array_size(results) > 1) {
			json_decref(out);
			out = json_pack("{s:b,s:O}", "valid", status == 0, "results", results);
		}
		if (mcinit_print_json(out, stdout) < 0)
			status = worse(status, EX_IOERR);
		json_decref(out);
	}
	json_decref(results);
	mcinit_cli_destroy(&o.cli);
	return status;
}
