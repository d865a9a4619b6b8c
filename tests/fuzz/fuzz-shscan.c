/* fuzz-shscan.c — libFuzzer target for the launch-script scanner.
 * Build: clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *        tests/fuzz/fuzz-shscan.c src/shscan.c src/util.c -o fuzz-shscan */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "shscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_shscan s;
	struct mcinit_err err = {0};

	if (mcinit_shscan_parse((const char *)data, size, &s, &err) < 0) {
		/* failures are data errors located as LINE:COL */
		if (err.code != EX_DATAERR || err.msg[0] < '1' || err.msg[0] > '9')
			abort();
		if (s.words != NULL || s.nwords != 0)
			abort();
	}
	for (size_t k = 0; k < s.nwords; k++)
		if (s.words[k].text == NULL || s.words[k].line < 0 || s.words[k].col < 0)
			abort();
	for (size_t k = 0; k < s.nnotes; k++)
		if (s.notes[k].msg == NULL)
			abort();
	mcinit_shscan_destroy(&s);
	return 0;
}
