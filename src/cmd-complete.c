/*
 * cmd-complete.c — `mcinit complete -- WORD...`: the candidates for the last
 * WORD of a partial mcinit command line, one per line.  The shell scripts
 * in completions/ are thin wrappers around it, so what they offer comes
 * from the same tables as everything else: the command table and its argp
 * options here, and the library's (mcx_word, mcx_complete_*): schema.def
 * (section.field= overrides), the Megatron-LM flag table (words after
 * `--`), the releases, the group kinds and the diagnostic codes.
 *
 * A line ":files" asks the shell to offer file names as well; ":files json
 * sh" only names ending in .json or .sh (and directories, to walk into).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cli.h" /* mcinit_job_argp */
#include "commands.h"
#include "private/mcinit-tool.h"

static const char doc[] =
    "List completions for the last WORD of a partial mcinit command line.\v"
    "Used by the bash, zsh and fish scripts in completions/; prints one candidate per "
    "line, and the line :files [SUFFIX...] when file names (ending in .SUFFIX) fit "
    "too.\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_complete_argp = {NULL, NULL, "-- WORD...", doc, NULL, NULL, NULL};

static void
offer(const char *cand, const char *cur)
{
	if (strncmp(cand, cur, strlen(cur)) == 0)
		puts(cand);
}

/* The option (long name) of cmd's argp tree, or NULL. */
static const struct argp_option *
find_option(const struct argp *a, const char *name)
{
	const struct argp_option *o;
	const struct argp_child *ch;

	for (o = a->options; o && (o->name || o->key || o->doc); o++)
		if (o->name && strcmp(o->name, name) == 0)
			return o;
	for (ch = a->children; ch && ch->argp; ch++)
		if ((o = find_option(ch->argp, name)) != NULL)
			return o;
	return NULL;
}

static void
offer_options(const struct argp *a, const char *cur)
{
	const struct argp_option *o;
	const struct argp_child *ch;
	char buf[96];

	for (o = a->options; o && (o->name || o->key || o->doc); o++) {
		if (o->name == NULL || (o->flags & OPTION_HIDDEN))
			continue;
		snprintf(buf, sizeof buf, "--%s", o->name);
		offer(buf, cur);
	}
	for (ch = a->children; ch && ch->argp; ch++)
		offer_options(ch->argp, cur);
}

/* ":files" restricted to what an INPUT may be (cli.c's loaders). */
static void
offer_input_files(void)
{
	const char *s;
	size_t i;

	fputs(":files", stdout);
	for (i = 0; (s = mcx_word(MCX_WORDS_INPUT_SUFFIX, i)) != NULL; i++)
		printf(" %s", s + 1);
	putchar('\n');
}

/* `prefix` + each of words. */
static void
offer_list(const char *prefix, const char *const *words, const char *cur)
{
	char buf[64];

	for (; *words; words++) {
		snprintf(buf, sizeof buf, "%s%s", prefix, *words);
		offer(buf, cur);
	}
}

/* `prefix` + each word of one of the library's sets. */
static void
offer_set(const char *prefix, enum mcx_words set, const char *cur)
{
	char buf[64];
	const char *w;
	size_t i;

	for (i = 0; (w = mcx_word(set, i)) != NULL; i++) {
		snprintf(buf, sizeof buf, "%s%s", prefix, w);
		offer(buf, cur);
	}
}

/* Values of options whose arguments come from a fixed set; prefix is
 * "--opt=" when the value is being typed in the same word. */
static void
offer_values(const char *cmd, const char *opt, const char *prefix, const char *cur)
{
	static const char *const formats[] = {"text", "json", NULL};
	static const char *const topology_formats[] = {"text", "json", "svg", NULL};
	/* the names plan.c's memory_opts accepts */
	static const char *const memory_models[] = {"megatron", "bridge", "none", NULL};

	if (strcmp(opt, "format") == 0) {
		offer_list(prefix, strcmp(cmd, "topology") == 0 ? topology_formats : formats, cur);
	} else if (strcmp(opt, "memory-model") == 0) {
		offer_list(prefix, memory_models, cur);
	} else if (strcmp(opt, "megatron-version") == 0) {
		offer_set(prefix, MCX_WORDS_MEGATRON_VERSION, cur);
	} else if (strcmp(opt, "entry-point") == 0) {
		offer_set(prefix, MCX_WORDS_ENTRY_POINT, cur);
	} else if (strcmp(opt, "group") == 0) {
		offer_set(prefix, MCX_WORDS_GROUP_KIND, cur);
	} else if (strcmp(opt, "hwloc-xml") == 0) {
		puts(":files xml");
	}
}

/* The value of option --opt earlier on the line (`--opt V`, `--opt=V`), or
 * NULL. */
static const char *
option_value(char **w, size_t n, const char *opt)
{
	const char *val = NULL;
	size_t i, len = strlen(opt);

	for (i = 0; i + 1 < n; i++) {
		if (strncmp(w[i], opt, len) == 0 && w[i][len] == '=')
			val = w[i] + len + 1;
		else if (strcmp(w[i], opt) == 0 && i + 2 < n)
			val = w[i + 1];
	}
	return val;
}

/* Whether a command reads a job (INPUT..., section.field=, `--` flags). */
static bool
reads_job(const struct argp *a)
{
	const struct argp_child *ch;

	for (ch = a->children; ch && ch->argp; ch++)
		if (ch->argp == &mcinit_job_argp || reads_job(ch->argp))
			return true;
	return false;
}

static void
offer_page(const char *page, const char *cur)
{
	char name[80];

	snprintf(name, sizeof name, "%.*s", (int)strcspn(page, "."), page);
	offer(strcmp(name, "mcinit") == 0 ? name : name + 7, cur);
}

/* A word of cmd's line that is not an option's value. */
static void
complete_operand(const struct mcinit_command *cmd, const char *cur)
{
	if (strcmp(cmd->name, "explain") == 0) {
		offer_set("", MCX_WORDS_CODE, cur);
	} else if (strcmp(cmd->name, "man") == 0) {
		mcinit_man_pages(offer_page, cur);
	} else if (reads_job(cmd->argp)) {
		/* a known key's value is being typed: no file name fits */
		if (mcx_complete_override(cur, offer))
			return;
		offer_input_files();
	}
}

/* The value of an option: `--opt VALUE` (prev is the option) or `--opt=VALUE`. */
static bool
complete_value(const struct mcinit_command *cmd, const char *prev, const char *cur)
{
	const struct argp_option *o;
	const char *eq = strchr(cur, '=');
	char name[64], prefix[80];

	if (strncmp(cur, "--", 2) == 0 && eq != NULL) {
		snprintf(name, sizeof name, "%.*s", (int)(eq - cur - 2), cur + 2);
		snprintf(prefix, sizeof prefix, "--%s=", name);
	} else if (prev != NULL && strncmp(prev, "--", 2) == 0 && strchr(prev, '=') == NULL) {
		snprintf(name, sizeof name, "%s", prev + 2);
		prefix[0] = '\0';
	} else {
		return false;
	}
	if ((o = find_option(cmd->argp, name)) == NULL || o->arg == NULL)
		return eq != NULL && strncmp(cur, "--", 2) == 0;
	offer_values(cmd->name, o->name, prefix, cur);
	return true;
}

static void
complete(char **w, size_t n)
{
	const char *cur = n ? w[n - 1] : "", *prev = n >= 3 ? w[n - 2] : NULL;
	const struct mcinit_command *cmd = NULL;
	size_t i;

	if (n <= 1) {
		for (i = 0; i < mcinit_ncommands; i++)
			offer(mcinit_commands[i].name, cur);
		offer("--help", cur);
		offer("--version", cur);
		return;
	}
	for (i = 0; i < mcinit_ncommands && cmd == NULL; i++)
		if (strcmp(w[0], mcinit_commands[i].name) == 0)
			cmd = &mcinit_commands[i];
	if (cmd == NULL)
		return;
	for (i = 1; i + 1 < n; i++)
		if (strcmp(w[i], "--") == 0) {
			/* the parser named earlier on the line (else the defaults) */
			const char *v = option_value(w, n, "--megatron-version"),
			           *e = option_value(w, n, "--entry-point");

			if (cur[0] == '-')
				mcx_complete_megatron_flag(v, e, cur, offer);
			else if (n >= 2)
				mcx_complete_megatron_value(v, e, w[n - 2], cur, offer);
			return;
		}
	if (complete_value(cmd, prev, cur))
		return;
	if (cur[0] == '-') {
		offer_options(cmd->argp, cur);
		offer("--help", cur);
		return;
	}
	complete_operand(cmd, cur);
}

int
mcinit_cmd_complete(int argc, char **argv, int argi0)
{
	int i, start = 1;

	(void)argi0;
	/* Not argp: the words to complete are mostly options of other commands. */
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "--usage") == 0)) {
		argv[0] = "mcinit complete";
		argp_parse(&mcinit_complete_argp, argc, argv, 0, NULL, NULL);
		return 0;
	}
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			start = i + 1;
			break;
		}
	complete(argv + start, (size_t)(argc - start));
	return fflush(stdout) == 0 ? 0 : EX_IOERR;
}
