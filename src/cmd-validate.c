/* cmd-validate.c — `mcinit validate`: check a job, report everything at once. */
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cli.h"
#include "commands.h"

enum { OPT_PRINT_CONFIG = 0x200 };

struct vopts {
	struct mcinit_cli cli;
	bool print_config;
};

static const struct argp_option options[] = {
    {"print-config", OPT_PRINT_CONFIG, NULL, 0,
     "Print the resolved config (defaults and repairs applied) as JSON", 2},
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
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {{&mcinit_job_argp, 0, NULL, 0}, {NULL, 0, NULL, 0}};

static const char doc[] =
    "Check a Megatron job without GPUs and report every problem at once.\v"
    "INPUT: a .json config, a .sh/.bash launch script (its Megatron flags are extracted, "
    "best effort) or a .py file (linted for argparse type=bool).  Inputs merge left to right, "
    "then section.field=VALUE overrides, then the Megatron-LM flags after `--`.\n\n"
    "Diagnostics go to stderr as FILE:LINE:COL: severity[CODE]: message (argv:N for "
    "command-line words); with --format=json stdout gets {\"valid\", \"diagnostics\", "
    "\"derived\"}.\n\n" MCINIT_EXIT_CODES_DOC;

static const struct argp argp = {
    options, parse_opt, "[INPUT...] [SECTION.FIELD=VALUE...] [-- MEGATRON-FLAGS...]", doc, children,
    NULL,    NULL};

static int
emit(const struct vopts *o, const struct mcinit_config *c, const struct mcinit_derived *dv,
     const struct mcinit_diags *d)
{
	bool valid = mcinit_diags_count(d, MCINIT_ERROR) == 0;
	int rc = 0;

	if (o->cli.format == MCINIT_FMT_JSON) {
		json_t *out = json_object();

		json_object_set_new(out, "valid", json_boolean(valid));
		json_object_set_new(out, "diagnostics", mcinit_diags_to_json(d));
		json_object_set_new(out, "derived", mcinit_derived_to_json(dv));
		if (o->print_config)
			json_object_set_new(out, "config", mcinit_config_to_json(c));
		rc = mcinit_print_json(out, stdout);
		json_decref(out);
		return rc;
	}
	mcinit_diags_print(d, stderr, mcinit_want_color(stderr));
	mcinit_print_summary(d, stderr);
	if (o->print_config) {
		json_t *cfg = mcinit_config_to_json(c);

		rc = mcinit_print_json(cfg, stdout);
		json_decref(cfg);
	} else if (valid) {
		mcinit_derived_print(dv, stdout);
	}
	return rc;
}

int
mcinit_cmd_validate(int argc, char **argv, int argi0)
{
	struct vopts o = {0};
	struct mcinit_config c;
	struct mcinit_diags d;
	struct mcinit_derived dv;
	struct mcinit_err err = {0};
	int status = EX_SOFTWARE, n;

	mcinit_cli_init(&o.cli, argi0, MCINIT_FMT_TEXT | MCINIT_FMT_JSON);
	n = mcinit_cli_split(&o.cli, argc, argv);
	argp_parse(&argp, n, argv, 0, NULL, &o);
	mcinit_config_init(&c, o.cli.mversion);
	mcinit_diags_init(&d);
	if (mcinit_job_load(&o.cli, &c, &d, &err) < 0 ||
	    mcinit_check(&c, &o.cli.check, &dv, &d, &err) < 0) {
		mcinit_diags_sort(&d);
		mcinit_diags_print(&d, stderr, mcinit_want_color(stderr));
		fprintf(stderr, "mcinit: %s\n", err.msg);
		status = err.code ? err.code : EX_SOFTWARE;
		goto out;
	}
	mcinit_diags_sort(&d);
	if (emit(&o, &c, &dv, &d) < 0) {
		fprintf(stderr, "mcinit: cannot write output\n");
		status = EX_IOERR;
		goto out;
	}
	status = mcinit_diags_count(&d, MCINIT_ERROR) ? 1 : 0;
out:
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
	mcinit_cli_destroy(&o.cli);
	return status;
}
