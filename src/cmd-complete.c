/*
 * cmd-complete.c — `mcinit complete -- WORD...`: the candidates for the last
 * WORD of a partial mcinit command line, one per line.  The shell scripts
 * in completions/ are thin wrappers around it, so what they offer comes
 * from the same tables as everything else: the command table and its argp
 * options, schema.def (section.field= overrides), the Megatron-LM flag table
 * (words after `--`), the group kinds and the diagnostic codes.
 *
 * A line ":files" asks the shell to offer file names as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cli.h"
#include "commands.h"
#include "topology.h"

static const char doc[] =
    "List completions for the last WORD of a partial mcinit command line.\v"
    "Used by the bash, zsh and fish scripts in completions/; prints one candidate per "
    "line, and the line :files when file names fit too.\n\n" MCINIT_EXIT_CODES_DOC;

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

/* Values of options whose arguments come from a fixed set. */
static void
offer_values(const char *cmd, const char *opt, const char *cur)
{
	int k;

	if (strcmp(opt, "format") == 0) {
		offer("text", cur);
		offer("json", cur);
		if (strcmp(cmd, "topology") == 0)
			offer("svg", cur);
	} else if (strcmp(opt, "megatron-version") == 0) {
		offer("r0.15", cur);
		offer("r0.16", cur);
		offer("main", cur);
	} else if (strcmp(opt, "group") == 0) {
		for (k = 0; k < MCINIT_GROUP_COUNT; k++)
			offer(mcinit_group_kind_name(k), cur);
	} else if (strcmp(opt, "hwloc-xml") == 0) {
		puts(":files");
	}
}

/* `section.field=` for every schema row; sections first while no dot. */
static void
offer_keys(const char *cur)
{
	char buf[160];
	int f;

	for (f = 0; f < MCINIT_F_COUNT; f++) {
		if (f == 0 || strcmp(mcinit_fields[f].section, mcinit_fields[f - 1].section) != 0) {
			snprintf(buf, sizeof buf, "%s.", mcinit_fields[f].section);
			if (strchr(cur, '.') == NULL)
				offer(buf, cur);
		}
		snprintf(buf, sizeof buf, "%s.%s=", mcinit_fields[f].section,
		         mcinit_fields[f].name);
		if (strchr(cur, '.') != NULL)
			offer(buf, cur);
	}
}

/* Megatron-LM flags of the version named earlier on the line (default main). */
static void
offer_megatron_flags(char **w, size_t n, const char *cur)
{
	unsigned v = MCINIT_MV_MAIN, bit;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		const char *val = NULL;

		if (strncmp(w[i], "--megatron-version=", 19) == 0)
			val = w[i] + 19;
		else if (strcmp(w[i], "--megatron-version") == 0 && i + 2 < n)
			val = w[i + 1];
		if (val != NULL && mcinit_mversion_parse(val, &bit) == 0)
			v = bit;
	}
	mcinit_mflag_each(v, cur, offer);
}

static void
complete(char **w, size_t n)
{
	const char *cur = n ? w[n - 1] : "", *prev = n >= 3 ? w[n - 2] : NULL;
	const struct mcinit_command *cmd = NULL;
	const struct argp_option *o;
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
			if (cur[0] == '-')
				offer_megatron_flags(w, n, cur);
			return;
		}
	if (prev != NULL && strncmp(prev, "--", 2) == 0 && strchr(prev, '=') == NULL &&
	    (o = find_option(cmd->argp, prev + 2)) != NULL && o->arg != NULL) {
		offer_values(cmd->name, o->name, cur);
		return;
	}
	if (cur[0] == '-') {
		offer_options(cmd->argp, cur);
		offer("--help", cur);
		return;
	}
	if (strcmp(cmd->name, "explain") == 0) {
		struct mcinit_code_doc *all = mcinit_all_codes(&i);
		size_t k;

		for (k = 0; k < i; k++)
			offer(all[k].code, cur);
		free(all);
		return;
	}
	if (strcmp(cmd->name, "validate") == 0 || strcmp(cmd->name, "topology") == 0) {
		offer_keys(cur);
		puts(":files");
	}
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
