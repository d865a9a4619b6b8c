/*
 * cmd-complete.c — `mcinit complete -- WORD...`: the candidates for the last
 * WORD of a partial mcinit command line, one per line.  The shell scripts
 * in completions/ are thin wrappers around it, so what they offer comes
 * from the same tables as everything else: the command table and its argp
 * options, schema.def (section.field= overrides), the Megatron-LM flag table
 * (words after `--`), the group kinds and the diagnostic codes.
 *
 * A line ":files" asks the shell to offer file names as well; ":files json
 * sh" only names ending in .json or .sh (and directories, to walk into).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cli.h"
#include "rules-doc.h"
#include "commands.h"
#include "topo/topology.h"

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

/* `prefix` + each `sep`-separated word of list that completes cur. */
static void
offer_words(const char *prefix, const char *list, char sep, const char *cur)
{
	char buf[256];

	while (list && *list) {
		size_t n = strcspn(list, (char[]){sep, '\0'});

		snprintf(buf, sizeof buf, "%s%.*s", prefix, (int)n, list);
		offer(buf, cur);
		list += n + (list[n] == sep);
	}
}

/* ":files" restricted to what an INPUT may be (cli.c's loaders). */
static void
offer_input_files(void)
{
	const char *const *s;

	fputs(":files", stdout);
	for (s = mcinit_input_suffixes; *s; s++)
		printf(" %s", *s + 1);
	putchar('\n');
}

/* Every Megatron-LM version of the version table. */
static void
offer_versions(const char *prefix, const char *cur)
{
	char buf[64];
	unsigned bit, v;

	for (v = 0; v < 32; v++) {
		const char *name = mcinit_mversion_name(1u << v);

		if (strcmp(name, "?") == 0 || mcinit_mversion_parse(name, &bit) < 0)
			continue;
		snprintf(buf, sizeof buf, "%s%s", prefix, name);
		offer(buf, cur);
	}
}

/* Values of options whose arguments come from a fixed set; prefix is
 * "--opt=" when the value is being typed in the same word. */
static void
offer_values(const char *cmd, const char *opt, const char *prefix, const char *cur)
{
	char buf[64];
	int k;

	if (strcmp(opt, "format") == 0) {
		offer_words(prefix, strcmp(cmd, "topology") == 0 ? "text|json|svg" : "text|json",
		            '|', cur);
	} else if (strcmp(opt, "memory-model") == 0) {
		/* the names plan.c's memory_opts accepts */
		offer_words(prefix, "megatron|bridge|none", '|', cur);
	} else if (strcmp(opt, "megatron-version") == 0) {
		offer_versions(prefix, cur);
	} else if (strcmp(opt, "entry-point") == 0) {
		for (k = 0; k < MCINIT_ME_COUNT; k++) {
			snprintf(buf, sizeof buf, "%s%s", prefix, mcinit_mentry_name(1u << k));
			offer(buf, cur);
		}
	} else if (strcmp(opt, "group") == 0) {
		for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
			snprintf(buf, sizeof buf, "%s%s", prefix, mcinit_group_kind_name(k));
			offer(buf, cur);
		}
	} else if (strcmp(opt, "hwloc-xml") == 0) {
		puts(":files xml");
	}
}

/* `section.field=VALUE` while VALUE is typed: the values the field's type
 * has a name for (true/false, null, its choices, the canonical dtypes).
 * False when cur names no field. */
static bool
offer_field_values(const char *cur)
{
	const char *eq = strchr(cur, '='), *dot = memchr(cur, '.', (size_t)(eq - cur));
	const struct mcinit_type *t;
	char sec[96], name[96], prefix[200];
	int f, a;

	if (dot == NULL || (size_t)(dot - cur) >= sizeof sec || (size_t)(eq - dot) > sizeof name)
		return false;
	snprintf(sec, sizeof sec, "%.*s", (int)(dot - cur), cur);
	snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
	if ((f = mcinit_field_lookup(sec, name)) < 0)
		return false;
	snprintf(prefix, sizeof prefix, "%.*s", (int)(eq + 1 - cur), cur);
	t = mcinit_field_type(f);
	for (a = 0; a < t->nalt; a++) {
		switch (t->alt[a].base) {
		case MCINIT_B_BOOL:
			offer_words(prefix, "true|false", '|', cur);
			break;
		case MCINIT_B_NULL:
			offer_words(prefix, "null", '|', cur);
			break;
		case MCINIT_B_DTYPE:
			offer_words(prefix, "fp32|fp16|bf16", '|', cur);
			break;
		case MCINIT_B_ENUM:
		case MCINIT_B_STR:
			if (!t->alt[a].list)
				offer_words(prefix, mcinit_fields[f].choices, '|', cur);
			break;
		default:
			break;
		}
	}
	return true;
}

/* `section.field=` for every field and alias; sections first while no dot. */
static void
offer_keys(const char *cur)
{
	char buf[160];
	size_t k;
	int f;

	if (strchr(cur, '.') == NULL) {
		for (k = 0; k < mcinit_nsections; k++) {
			if (mcinit_sections[k].kind == MCINIT_SK_MAP)
				continue;
			snprintf(buf, sizeof buf, "%s.", mcinit_sections[k].name);
			offer(buf, cur);
		}
		return;
	}
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const char *p = mcinit_fields[f].aliases;

		snprintf(buf, sizeof buf, "%s.%s=", mcinit_fields[f].section,
		         mcinit_fields[f].name);
		offer(buf, cur);
		while (p && *p) {
			size_t n = strcspn(p, "|");

			snprintf(buf, sizeof buf, "%.*s=", (int)n, p);
			offer(buf, cur);
			p += n + (p[n] == '|');
		}
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

/* The parser named earlier on the line: --megatron-version (default main)
 * and --entry-point (default pretrain_gpt), as an MCINIT_MPARSER key. */
static unsigned
megatron_version(char **w, size_t n)
{
	unsigned v = mcinit_mversion_default(), e = mcinit_mentry_default(), bit;
	const char *val;

	if ((val = option_value(w, n, "--megatron-version")) != NULL &&
	    mcinit_mversion_parse(val, &bit) == 0)
		v = bit;
	if ((val = option_value(w, n, "--entry-point")) != NULL &&
	    mcinit_mentry_parse(val, &bit) == 0)
		e = bit;
	return MCINIT_MPARSER(v, e);
}

/* Megatron-LM flags of that version. */
static void
offer_megatron_flags(char **w, size_t n, const char *cur)
{
	mcinit_mflag_each(megatron_version(w, n), cur, offer);
}

/* The words of a Megatron-LM flag with choices (`--attention-backend f`). */
static void
offer_megatron_values(char **w, size_t n, const char *cur)
{
	const struct mcinit_mflag *m;
	int negated = 0;

	if (n < 2 || (m = mcinit_mflag_find(w[n - 2], megatron_version(w, n), &negated)) == NULL)
		return;
	if (mcinit_mstr(m->choices) != NULL && !negated)
		offer_words("", mcinit_mstr(m->choices), ',', cur);
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
offer_codes(const char *cur)
{
	struct mcinit_code_doc *all;
	size_t n, k;

	all = mcinit_all_codes(&n);
	for (k = 0; k < n; k++)
		offer(all[k].code, cur);
	free(all);
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
		offer_codes(cur);
	} else if (strcmp(cmd->name, "man") == 0) {
		mcinit_man_pages(offer_page, cur);
	} else if (reads_job(cmd->argp)) {
		/* a known key's value is being typed: no file name fits */
		if (strchr(cur, '=') != NULL && offer_field_values(cur))
			return;
		offer_keys(cur);
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
			if (cur[0] == '-')
				offer_megatron_flags(w, n, cur);
			else
				offer_megatron_values(w, n, cur);
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
