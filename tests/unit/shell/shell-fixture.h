/* shell-fixture.h — what the lib/shell unit tests (test-shscan.c,
 * test-launch.c) share: the scan under test, S, and the helpers that scan
 * a text and read its words and notes.  Included by one test file each, so
 * everything is static; a test file uses what it needs (hence unused). */
#ifndef MCINIT_TEST_SHELL_FIXTURE_H
#define MCINIT_TEST_SHELL_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "shell/shell.h"

#define FIXTURE_FN static __attribute__((unused))

static struct mcinit_shscan S;

FIXTURE_FN void
scan_ok(const char *text)
{
	struct mcinit_err err = {0};

	mcinit_shscan_destroy(&S);
	cr_assert_eq(mcinit_shscan_parse(text, strlen(text), &S, &err), 0, "parse failed: %s",
	             err.msg);
}

FIXTURE_FN void
teardown(void)
{
	mcinit_shscan_destroy(&S);
}

/* The texts of all words joined with '|'. */
FIXTURE_FN char *
joined(void)
{
	size_t n = 1;
	char *s;

	for (size_t k = 0; k < S.nwords; k++)
		n += strlen(S.words[k].text) + 1;
	s = calloc(n, 1);
	for (size_t k = 0; k < S.nwords; k++) {
		if (k)
			strcat(s, "|");
		strcat(s, S.words[k].text);
	}
	return s;
}

FIXTURE_FN void
words_are(const char *want)
{
	char *got = joined();

	cr_assert_str_eq(got, want);
	free(got);
}

/* Index of the first note containing sub, or -1. */
FIXTURE_FN long
note_with(const char *sub)
{
	for (size_t k = 0; k < S.nnotes; k++)
		if (strstr(S.notes[k].msg, sub))
			return (long)k;
	return -1;
}

/* Other files (source FILE, bash FILE, a wrapper's script) from memory:
 * mem_files holds name, text pairs, NULL-terminated; any other name is not
 * found. */
static const char *const *mem_files;

FIXTURE_FN char *
read_mem(void *ctx, const char *name, size_t *len, char **path, const char **why)
{
	(void)ctx;
	for (size_t k = 0; mem_files[k] != NULL; k += 2)
		if (strcmp(mem_files[k], name) == 0) {
			*len = strlen(mem_files[k + 1]);
			*path = strdup(name);
			return strdup(mem_files[k + 1]);
		}
	*why = "not found";
	return NULL;
}

/* text as main.sh, with files readable. */
FIXTURE_FN void
scan_files_ok(const char *text, const char *const *files)
{
	struct mcinit_err err = {0};

	mcinit_shscan_destroy(&S);
	mem_files = files;
	cr_assert_eq(
	    mcinit_shscan_parse_with(text, strlen(text), read_mem, NULL, "main.sh", NULL, &S, &err),
	    0, "parse failed: %s", err.msg);
}

#endif
