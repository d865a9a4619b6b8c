/* fuzz-shscan.c — libFuzzer target for the launch-script scanner (lib/shell/).
 * Built by Makefile.am (tests/fuzz/fuzz-shscan, linked with the library). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const char *text;
	size_t len;
};

/* The files the input sources or runs, from memory, never the disk: a
 * name starting with "no" is missing, any other is the input itself
 * (so files source each other, and themselves). */
static char *
read_mem(void *ctx, const char *name, size_t *len, char **path, const char **why)
{
	const struct mem *m = ctx;
	char *t, *p;

	if (strncmp(name, "no", 2) == 0) {
		*why = "not found";
		return NULL;
	}
	t = malloc(m->len + 1);
	p = strdup(name);
	if (t == NULL || p == NULL)
		abort();
	memcpy(t, m->text, m->len);
	*len = m->len;
	*path = p;
	return t;
}

/* Bounds smaller than the tool's, so that each input costs little: under
 * the tool's (10000 commands, 2^19 characters, files 8 deep) mutated loops
 * and trees of files cost 50 ms and more each under ASan, and the fuzzer
 * ran 18 inputs a second; under these, 350-400.  The same code stops at
 * either bound; the tool's own are checked by tests/cli/bounds.sh,
 * tests/cli/shell.sh (8 deep) and tests/unit/shell/test-shscan.c (10000). */
static const struct mcinit_shlimits limits = {200, (size_t)1 << 14, 2};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_shscan s;
	struct mcinit_err err = {0};
	struct mem m = {(const char *)data, size};

	if (mcinit_shscan_parse_limited((const char *)data, size, read_mem, &m, "fuzz.sh", NULL,
	                                &limits, &s, &err) < 0) {
		/* failures are data errors located as LINE:COL */
		if (err.code != MCINIT_E_PARSE || err.msg[0] < '1' || err.msg[0] > '9')
			abort();
		if (s.words != NULL || s.nwords != 0)
			abort();
	}
	for (size_t k = 0; k < s.nwords; k++)
		if (s.words[k].text == NULL || s.words[k].line < 0 || s.words[k].col < 0)
			abort();
	for (size_t k = 0; k < s.nnotes; k++)
		if (s.notes[k].msg == NULL || s.notes[k].file < 0 ||
		    (size_t)s.notes[k].file > s.nfiles)
			abort();
	for (size_t k = 0; k < s.nwords; k++)
		if (s.words[k].file < 0 || (size_t)s.words[k].file > s.nfiles)
			abort();
	/* the chosen command holds the flags at its end; the environment and
	 * the launcher's facts are well-formed */
	if (s.argc > 0 && (s.argc < s.nwords || s.script == NULL))
		abort();
	for (size_t k = 0; k < s.nwords && s.argc > 0; k++)
		if (strcmp(s.argv[s.argc - s.nwords + k], s.words[k].text) != 0)
			abort();
	for (size_t k = 0; k < s.nenv; k++)
		if (s.env[k].name == NULL || s.env[k].name[0] == '\0')
			abort();
	if (s.launch.world_size < 0 || s.launch.nnodes < 0 || s.launch.nproc_per_node < 0 ||
	    (s.launch.world_size > 0 && s.launch.world_size_source == NULL))
		abort();
	mcinit_shscan_destroy(&s);
	return 0;
}
