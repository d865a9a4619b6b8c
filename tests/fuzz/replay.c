/* replay.c — runs a fuzz target's LLVMFuzzerTestOneInput on files, without
 * libFuzzer: `make check` replays every committed corpus and crasher
 * (tests/fuzz/corpus/NAME/) with the ordinary compiler, and under ASan in the
 * sanitizer pass, so each input that once crashed stays a regression test.
 * Prints one line per file; exits 1 when a file cannot be read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A target's one-time setup, as libFuzzer calls it, when it has one. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int
main(int argc, char **argv)
{
	int status = 0;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);

	for (int i = 1; i < argc; i++) {
		struct mcinit_err err = {0};
		size_t len;
		char *data = mcinit_read_file(argv[i], &len, &err);

		if (data == NULL) {
			fprintf(stderr, "replay: %s\n", err.msg);
			status = 1;
			continue;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
		printf("replayed %s (%zu bytes)\n", argv[i], len);
		free(data);
	}
	return status;
}
