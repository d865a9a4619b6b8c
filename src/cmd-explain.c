/*
 * cmd-explain.c — `mcinit explain [CODE...]`: what a diagnostic code means,
 * an input that triggers it and the fix, from the same tables that the
 * checks and the man page use.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>

#include "commands.h"
#include "private/mcinit-tool.h"

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
	const char *name;
	size_t i, k;
	int status = 0;

	(void)argi0;
	argv[0] = "mcinit explain";
	argp_parse(&mcinit_explain_argp, argc, argv, 0, NULL, &o);
	if (o.coverage || o.ledger || o.bridge_ledger) {
		int rc;

		free(o.codes);
		rc = mcx_checks_write(stdout, o.ledger          ? MCX_LEDGER_MEGATRON
		                              : o.bridge_ledger ? MCX_LEDGER_BRIDGE
		                                                : MCX_COVERAGE);
		return rc < 0 ? EX_IOERR : 0;
	}
	if (o.roff) {
		free(o.codes);
		return mcx_codes_roff(stdout) < 0 ? EX_IOERR : 0;
	}
	/* in the catalogue's order, each once; a write error shows at exit */
	for (i = 0; (name = mcx_word(MCX_WORDS_CODE, i)) != NULL; i++) {
		bool want = o.ncodes == 0;
		char code[8];

		for (k = 0; k < o.ncodes && !want; k++) {
			normalise(o.codes[k], code);
			want = strcmp(code, name) == 0;
		}
		if (want)
			mcx_code_explain(stdout, i);
	}
	for (k = 0; k < o.ncodes; k++) {
		char code[8];

		normalise(o.codes[k], code);
		for (i = 0; (name = mcx_word(MCX_WORDS_CODE, i)) != NULL && strcmp(code, name) != 0;
		     i++)
			;
		if (name == NULL) {
			fprintf(stderr,
			        "mcinit explain: no diagnostic code '%s' (see `mcinit explain`)\n",
			        o.codes[k]);
			status = EX_USAGE;
		}
	}
	free(o.codes);
	return status;
}
