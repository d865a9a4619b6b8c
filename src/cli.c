/* cli.c — the job options every command shares.  See cli.h. */
#include "cli.h"

#include "commands.h" /* mcinit_exit_status */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "private/mcinit-tool.h"

enum {
	OPT_WORLD_SIZE = 0x100,
	OPT_NNODES,
	OPT_NPROC,
	OPT_MVERSION,
	OPT_ENTRY,
	OPT_BRIDGE,
	OPT_RECIPE,
	OPT_FORMAT,
	OPT_BVERSION,
	OPT_SCRIPT_ARGS,
	OPT_TE_VERSION,
	OPT_TORCH_VERSION,
	OPT_MEMORY_MODEL,
	OPT_GPU_MEMORY,
};

static const struct argp_option job_options[] = {
    {NULL, 0, NULL, 0, "Job description:", 1},
    {"world-size", OPT_WORLD_SIZE, "N", 0,
     "World size (else launch.world_size, WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, "
     "nnodes x nproc-per-node, else 1)",
     1},
    {"nnodes", OPT_NNODES, "N", 0, "Number of nodes", 1},
    {"nproc-per-node", OPT_NPROC, "N", 0, "Processes (GPUs) per node", 1},
    {"megatron-version", OPT_MVERSION, "VER", 0,
     /* job_help_filter names the releases */
     "Megatron-LM version whose flags and rules apply: %s (default %s; alone, it also selects "
     "the Megatron-Bridge release pinned to it)",
     1},
    {"entry-point", OPT_ENTRY, "NAME", 0,
     /* job_help_filter names the entry points */
     "Megatron-LM script the flags are for, whose extra flags and defaults "
     "apply: %s (default: the script a launch script runs, else pretrain_gpt)",
     1},
    {"bridge-defaults", OPT_BRIDGE, NULL, 0,
     "Apply Megatron-Bridge's defaults where they differ from Megatron-LM's", 1},
    {"bridge-version", OPT_BVERSION, "VER", 0,
     "Megatron-Bridge release whose config fields apply, e.g. 0.6.2 or main (mcinit --version "
     "lists those known and their pairs; default: the newest release); alone, it also "
     "selects the Megatron-Core release that release pins and installs",
     1},
    {"bridge-recipe", OPT_RECIPE, "NAME", 0,
     "Start from Megatron-Bridge's recipe NAME (the values it writes as literals: parallel "
     "sizes, sequence lengths, batch sizes, classes); inputs override it",
     1},
    {"script-args", OPT_SCRIPT_ARGS, "ARGS", 0,
     "The arguments a .sh/.bash launch script is read as run with, split as bash splits a "
     "command line (\"a 'b c'\" is two; '' for none); without it, they are known only at run "
     "time ($1 and \"$@\" not checked, ${1:-W} is W)",
     1},
    {"te-version", OPT_TE_VERSION, "VER", 0,
     "Transformer Engine version of the job's environment (e.g. 2.14.0; none: not installed): "
     "decides Megatron's checks gated on it (launch.te_version; undeclared, they are noted)",
     1},
    {"torch-version", OPT_TORCH_VERSION, "VER", 0,
     "PyTorch version of the job's environment (e.g. 2.9.1): decides Megatron's checks gated on "
     "it (launch.torch_version; undeclared, they are noted)",
     1},
    {"memory-model", OPT_MEMORY_MODEL, "MODEL", 0,
     "Estimate the most loaded rank's memory per GPU (derived.memory): megatron (Megatron-LM's "
     "own theoretical_memory_usage.py, r0.18 and later, Megatron-LM flags), bridge "
     "(Megatron-Bridge 0.6.2's estimate_training_memory, a ConfigContainer), mcinit (mcinit's "
     "own, r0.19 and main: the peak of each kind of rank, term by term, with the overheads as "
     "modelled ranges), or none (default)",
     1},
    {"gpu-memory", OPT_GPU_MEMORY, "GIB", 0,
     "The GPU's memory in GiB (e.g. 80), or the GPU's name (H100-80GB, H100-94GB, H100-NVL, "
     "H200, B200, GB200, A100-40GB, A100-80GB, L40S): a rank the estimate does not fit is an "
     "error (MC063), one above 90% of it a warning; the model is bridge for a ConfigContainer, "
     "else megatron, unless --memory-model says",
     1},
    {"format", OPT_FORMAT, "FMT", 0, "Output format: text (default), json, or svg (topology)", 1},
    {NULL, 0, NULL, 0, NULL, 0},
};

static long long
positive(struct argp_state *state, const char *opt, const char *arg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || v < 1)
		argp_error(state, "--%s: '%s' is not a positive integer", opt, arg);
	return v;
}

static void
push(char ***v, size_t *n, char *s)
{
	*v = mcx_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

/* An override: `section.field=value`, or one of Hydra's forms that a
 * Megatron-Bridge config reads (lib/input/hydra.h): `+key=v`, `++key=v`,
 * `~key`, `~key=v`, and keys of any depth (`mixed_precision=bf16_mixed`).
 * The key: an identifier, then identifier characters, dots, '$', '-' or
 * '@' up to the '='; no '/', so a path is never one. */
static bool
is_override(const char *w)
{
	const char *p = w;
	bool del = *p == '~';

	if (del)
		p++;
	else if (*p == '+')
		p += p[1] == '+' ? 2 : 1;
	if (!isalpha((unsigned char)*p) && *p != '_' && *p != '$')
		return false;
	for (; *p && *p != '='; p++)
		if (!isalnum((unsigned char)*p) && strchr("_.$-@", *p) == NULL)
			return false;
	return *p == '=' || (del && *p == '\0');
}

static void
add_override(struct mcinit_cli *cli, struct argp_state *state, char *o)
{
	cli->override_argi = mcx_xrealloc(cli->override_argi, (cli->noverrides + 1) * sizeof(int));
	cli->override_argi[cli->noverrides] = cli->argi0 + state->next - 1;
	push(&cli->overrides, &cli->noverrides, o);
}

/* --te-version / --torch-version: the override launch.NAME="VER" (quoted:
 * 2.10 is no number), owned by cli. */
static void
version_opt(struct mcinit_cli *cli, struct argp_state *state, const char *name, const char *arg)
{
	if (strcmp(name, "te") == 0 && strcmp(arg, "none") == 0)
		; /* Transformer Engine not installed */
	else if (strpbrk(arg, "\"\\") != NULL || !mcx_is_version(arg))
		argp_error(state, "--%s-version: '%s' is not a version (e.g. 2.14.0)", name, arg);
	push(&cli->owned, &cli->nowned, mcx_xasprintf("launch.%s_version=\"%s\"", name, arg));
	add_override(cli, state, cli->owned[cli->nowned - 1]);
}

static error_t
parse_job_opt(int key, char *arg, struct argp_state *state)
{
	struct mcinit_cli *cli = state->input;

	switch (key) {
	case OPT_WORLD_SIZE:
		cli->check.world_size = positive(state, "world-size", arg);
		break;
	case OPT_NNODES:
		cli->check.nnodes = positive(state, "nnodes", arg);
		break;
	case OPT_NPROC:
		cli->check.nproc_per_node = positive(state, "nproc-per-node", arg);
		break;
	case OPT_MVERSION:
		if (mcx_word_parse(MCX_WORDS_MEGATRON_VERSION, arg) < 0) {
			char names[128];

			argp_error(state, "--megatron-version: '%s' is not one of %s", arg,
			           mcx_word_list(MCX_WORDS_MEGATRON_VERSION, names, sizeof names));
		}
		cli->mversion_name = arg;
		break;
	case OPT_ENTRY:
		if (mcx_word_parse(MCX_WORDS_ENTRY_POINT, arg) < 0) {
			char names[512];

			argp_error(state, "--entry-point: '%s' is not one of %s", arg,
			           mcx_word_list(MCX_WORDS_ENTRY_POINT, names, sizeof names));
		}
		cli->entry_point = arg;
		break;
	case OPT_SCRIPT_ARGS:
		cli->script_args = arg;
		break;
	case OPT_TE_VERSION:
		version_opt(cli, state, "te", arg);
		break;
	case OPT_TORCH_VERSION:
		version_opt(cli, state, "torch", arg);
		break;
	case OPT_BRIDGE:
		cli->check.bridge_defaults = true;
		break;
	case OPT_MEMORY_MODEL:
		cli->memory_model = arg;
		break;
	case OPT_GPU_MEMORY:
		cli->gpu_memory = arg;
		break;
	case OPT_BVERSION: {
		char names[128];

		if (mcx_word_parse(MCX_WORDS_BRIDGE_VERSION, arg) < 0)
			argp_error(state, "--bridge-version: '%s' is not one of %s", arg,
			           mcx_word_list(MCX_WORDS_BRIDGE_VERSION, names, sizeof names));
		cli->bversion_name = arg;
		break;
	}
	case OPT_RECIPE:
		/* An input of its own kind, loaded before every file. */
		if (cli->recipe != NULL)
			argp_error(state, "--bridge-recipe: give one recipe");
		cli->recipe = mcx_xasprintf("bridge-recipe:%s", arg);
		push(&cli->inputs, &cli->ninputs, cli->recipe);
		memmove(cli->inputs + 1, cli->inputs, (cli->ninputs - 1) * sizeof *cli->inputs);
		cli->inputs[0] = cli->recipe;
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "text") == 0 && (cli->formats & MCINIT_FMT_TEXT))
			cli->format = MCINIT_FMT_TEXT;
		else if (strcmp(arg, "json") == 0 && (cli->formats & MCINIT_FMT_JSON))
			cli->format = MCINIT_FMT_JSON;
		else if (strcmp(arg, "svg") == 0 && (cli->formats & MCINIT_FMT_SVG))
			cli->format = MCINIT_FMT_SVG;
		else
			argp_error(state, "--format: '%s' is not one of %s", arg,
			           (cli->formats & MCINIT_FMT_SVG) ? "text, json, svg"
			                                           : "text, json");
		break;
	case ARGP_KEY_ARG:
		if (is_override(arg)) {
			add_override(cli, state, arg);
		} else {
			push(&cli->inputs, &cli->ninputs, arg);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The docs of --megatron-version and --entry-point name the library's
 * releases and entry points (mcx_word_names), which a static string cannot:
 * argp asks this for every option's doc before it shows it (cmd-man.c does
 * the same), and frees what differs from text. */
static char *
fill_doc(const char *text, const char *a, const char *b)
{
	struct mcx_buf out = {0};
	const char *arg[2] = {a, b};
	int k = 0;

	for (; *text; text++) {
		if (text[0] == '%' && text[1] == 's' && k < 2) {
			mcx_buf_adds(&out, arg[k++]);
			text++;
		} else {
			mcx_buf_addc(&out, *text);
		}
	}
	mcx_buf_cstr(&out);
	return out.data; /* argp frees it */
}

static char *
job_help_filter(int key, const char *text, void *input)
{
	(void)input;
	if (key == OPT_MVERSION)
		return fill_doc(text, mcx_word_names(MCX_WORDS_MEGATRON_VERSION),
		                mcx_word_default(MCX_WORDS_MEGATRON_VERSION));
	if (key == OPT_ENTRY)
		return fill_doc(text, mcx_word_names(MCX_WORDS_ENTRY_POINT), NULL);
	return (char *)text;
}

const struct argp mcinit_job_argp = {job_options, parse_job_opt,   NULL, NULL,
                                     NULL,        job_help_filter, NULL};

void
mcinit_cli_init(struct mcinit_cli *cli, int argi0, unsigned formats)
{
	memset(cli, 0, sizeof *cli);
	cli->argi0 = argi0;
	cli->format = MCINIT_FMT_TEXT;
	cli->formats = formats;
}

void
mcinit_cli_destroy(struct mcinit_cli *cli)
{
	free(cli->inputs);
	free(cli->recipe);
	free(cli->overrides);
	free(cli->override_argi);
	while (cli->nowned > 0)
		free(cli->owned[--cli->nowned]);
	free(cli->owned);
	free(cli->prog);
	memset(cli, 0, sizeof *cli);
}

int
mcinit_cli_split(struct mcinit_cli *cli, int argc, char **argv)
{
	int i;

	free(cli->prog);
	cli->prog = mcx_xasprintf("mcinit %s", argv[0]);
	argv[0] = cli->prog;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			cli->rest = argv + i + 1;
			cli->nrest = (size_t)(argc - i - 1);
			cli->rest_argi = cli->argi0 + i + 1;
			return i;
		}
	}
	return argc;
}

void
mcinit_cli_desc(const struct mcinit_cli *cli, struct mcinit_job_desc *desc)
{
	memset(desc, 0, sizeof *desc);
	desc->inputs = (const char *const *)cli->inputs;
	desc->ninputs = cli->ninputs;
	desc->overrides = (const char *const *)cli->overrides;
	desc->override_argv_index = cli->override_argi;
	desc->noverrides = cli->noverrides;
	desc->megatron_flags = (const char *const *)cli->rest;
	desc->nmegatron_flags = cli->nrest;
	desc->megatron_flags_argv_index = cli->rest_argi;
	desc->world_size = cli->check.world_size;
	desc->nnodes = cli->check.nnodes;
	desc->nproc_per_node = cli->check.nproc_per_node;
	desc->megatron_version = cli->mversion_name;
	desc->bridge_version = cli->bversion_name;
	desc->entry_point = cli->entry_point;
	desc->script_args = cli->script_args;
	desc->bridge_defaults = cli->check.bridge_defaults;
	desc->memory_model = cli->memory_model;
	desc->gpu_memory = cli->gpu_memory;
}

int
mcinit_cli_fail(struct mcinit_diags *d, const mcinit_error_t *err)
{
	mcinit_diags_sort(d);
	mcinit_diags_print(d, stderr, mcx_want_color(stderr));
	fputs("mcinit: ", stderr);
	if (err->argv_index >= 0)
		fprintf(stderr, "argv:%d: ", err->argv_index);
	else
		mcinit_cli_error_place(err, stderr);
	mcx_fputs_text(err->text, stderr);
	fputc('\n', stderr);
	return mcinit_exit_status(err->code);
}

void
mcinit_cli_error_place(const mcinit_error_t *err, FILE *out)
{
	if (err->source[0] == '\0')
		return;
	mcx_fputs_text(err->source, out);
	fputc(':', out);
	if (err->line > 0)
		fprintf(out, "%d:", err->line);
	if (err->line > 0 && err->column > 0)
		fprintf(out, "%d:", err->column);
	fputc(' ', out);
}

/* Any bytes as a JSON string (a file name or message need not be UTF-8). */
static json_t *
any_text(const char *s)
{
	char *clean = mcx_utf8_sanitize(s);
	json_t *j = json_string(clean);

	free(clean);
	return j;
}

json_t *
mcinit_cli_error_json(const mcinit_error_t *err)
{
	json_t *o = json_object();

	json_object_set_new(o, "code", json_string(mcinit_code_name(err->code)));
	json_object_set_new(o, "message", any_text(err->text));
	json_object_set_new(o, "source", err->source[0] ? any_text(err->source) : json_null());
	json_object_set_new(o, "line", err->line > 0 ? json_integer(err->line) : json_null());
	json_object_set_new(o, "column", err->column > 0 ? json_integer(err->column) : json_null());
	json_object_set_new(o, "argv_index",
	                    err->argv_index >= 0 ? json_integer(err->argv_index) : json_null());
	return o;
}

int
mcinit_print_json(json_t *j, FILE *out)
{
	if (json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | MCX_JSON_REALS) < 0)
		return -1;
	fputc('\n', out);
	return 0;
}

void
mcinit_print_summary(const struct mcinit_diags *d, FILE *out)
{
	size_t e = mcinit_diags_count(d, MCINIT_ERROR), w = mcinit_diags_count(d, MCINIT_WARNING);

	if (e == 0 && w == 0)
		return;
	fprintf(out, "mcinit: %zu error%s, %zu warning%s\n", e, e == 1 ? "" : "s", w,
	        w == 1 ? "" : "s");
}

/* The process status of an error code: the one mapping (exitcodes.h). */
int
mcinit_exit_status(int code)
{
	static const int status[MCINIT_E_COUNT] = {
	    [MCINIT_OK] = 0,
	    [MCINIT_E_INVALID] = MCINIT_EX_INVALID,
	    [MCINIT_E_USAGE] = EX_USAGE,
	    [MCINIT_E_PARSE] = EX_DATAERR,
	    [MCINIT_E_NOINPUT] = EX_NOINPUT,
	    [MCINIT_E_UNAVAILABLE] = EX_UNAVAILABLE,
	    [MCINIT_E_INTERNAL] = EX_SOFTWARE,
	    [MCINIT_E_OS] = EX_OSERR,
	    [MCINIT_E_IO] = EX_IOERR,
	    /* Out of memory is the machine's failure, not the job's. */
	    [MCINIT_E_NOMEM] = MCINIT_EX_NOMEM,
	    [MCINIT_E_TIMEOUT] = EX_TEMPFAIL,
	};

	return code >= 0 && code < MCINIT_E_COUNT ? status[code] : EX_SOFTWARE;
}
