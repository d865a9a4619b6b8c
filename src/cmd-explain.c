/*
 * cmd-explain.c — `mcinit explain [CODE...]`: what a diagnostic code means,
 * an input that triggers it and the fix, from the same tables that the
 * checks and the man page use.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>

#include "cli.h"
#include "rules-doc.h"
#include "commands.h"
#include "rules/bchecks.h"
#include "rules/mchecks.h"

enum { OPT_ROFF = 0x300, OPT_COVERAGE, OPT_LEDGER, OPT_BRIDGE_LEDGER };

struct eopts {
	char **codes;
	size_t ncodes;
	bool roff, coverage, ledger, bridge_ledger;
};

static const struct argp_option options[] = {
    {"roff", OPT_ROFF, NULL, 0, "Write every code as a man-page (roff) section", 0},
    {"coverage", OPT_COVERAGE, NULL, 0,
     "How many of Megatron-LM's and of Megatron-Bridge's configuration checks mcinit "
     "implements, per function",
     0},
    {"ledger", OPT_LEDGER, NULL, 0,
     "For every Megatron-LM check (data/megatron-checks.tsv), the code that implements it", 0},
    {"bridge-ledger", OPT_BRIDGE_LEDGER, NULL, 0,
     "For every Megatron-Bridge check (data/bridge-checks.tsv and its releases'), the code that "
     "implements it",
     0},
    {NULL, 0, NULL, 0, NULL, 0},
};

static error_t
parse_opt(int key, char *arg, struct argp_state *state)
{
	struct eopts *o = state->input;

	switch (key) {
	case OPT_ROFF:
		o->roff = true;
		break;
	case OPT_COVERAGE:
		o->coverage = true;
		break;
	case OPT_LEDGER:
		o->ledger = true;
		break;
	case OPT_BRIDGE_LEDGER:
		o->bridge_ledger = true;
		break;
	case ARGP_KEY_ARG:
		o->codes = mcx_xrealloc(o->codes, (o->ncodes + 1) * sizeof *o->codes);
		o->codes[o->ncodes++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char doc[] = "Explain diagnostic codes: meaning, an example and the fix.\v"
                          "Without CODE, every code is listed.  Codes may be written MC012, "
                          "mc012 or 12.\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_explain_argp = {options, parse_opt, "[CODE...]", doc, NULL, NULL, NULL};

static const char *const sev_words[] = {"note", "warning", "error"};

/* "12", "mc12", "MC012" -> "MC012". */
static void
normalise(const char *in, char out[8])
{
	const char *digits = strncasecmp(in, "MC", 2) == 0 ? in + 2 : in;
	char *end;
	long n = strtol(digits, &end, 10);

	if (*digits != '\0' && *end == '\0' && n >= 0 && n < 1000)
		snprintf(out, 8, "MC%03ld", n);
	else
		snprintf(out, 8, "%.7s", in);
}

int
mcinit_cmd_explain(int argc, char **argv, int argi0)
{
	struct eopts o = {0};
	struct mcinit_code_doc *all;
	size_t n, i, k;
	int status = 0;

	(void)argi0;
	argv[0] = "mcinit explain";
	argp_parse(&mcinit_explain_argp, argc, argv, 0, NULL, &o);
	if (o.coverage || o.ledger || o.bridge_ledger) {
		int rc;

		free(o.codes);
		if (o.ledger)
			rc = mcinit_mchecks_ledger(stdout);
		else if (o.bridge_ledger)
			rc = mcinit_bchecks_ledger(stdout);
		else
			rc = mcinit_mchecks_coverage(stdout) < 0 || putchar('\n') == EOF ||
			             mcinit_bchecks_coverage(stdout) < 0
			         ? -1
			         : 0;
		return rc < 0 ? EX_IOERR : 0;
	}
	if (o.roff) {
		free(o.codes);
		return mcinit_rules_doc(stdout, MCINIT_DOC_ROFF) < 0 ? EX_IOERR : 0;
	}
	all = mcinit_all_codes(&n);
	for (i = 0; i < n; i++) {
		bool want = o.ncodes == 0;
		char code[8];

		for (k = 0; k < o.ncodes && !want; k++) {
			normalise(o.codes[k], code);
			want = strcmp(code, all[i].code) == 0;
		}
		if (want)
			printf("%s (%s)\n    %s\n    example: %s\n    fix: %s\n\n", all[i].code,
			       sev_words[all[i].sev], all[i].doc, all[i].example, all[i].fix);
	}
	for (k = 0; k < o.ncodes; k++) {
		char code[8];

		normalise(o.codes[k], code);
		for (i = 0; i < n && strcmp(code, all[i].code) != 0; i++)
			;
		if (i == n) {
			fprintf(stderr,
			        "mcinit explain: no diagnostic code '%s' (see `mcinit explain`)\n",
			        o.codes[k]);
			status = EX_USAGE;
		}
	}
	free(all);
	free(o.codes);
	return status;
}
