/* fuzz-pylint.c — libFuzzer target for the argparse `type=bool` finder.
 * Build: clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *        tests/fuzz/fuzz-pylint.c src/pylint.c src/util.c -o fuzz-pylint */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/pylint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_pybool *v = NULL;
	struct mcinit_err err = {0};
	size_t n = 0;
	int nul = memchr(data, 0, size) != NULL;

	/* only a NUL byte makes the input unusable */
	if (mcinit_pylint_type_bool((const char *)data, size, &v, &n, &err) != (nul ? -1 : 0))
		abort();
	for (size_t k = 0; k < n; k++) {
		if (v[k].flag == NULL || v[k].line < 1 || v[k].col < 1)
			abort();
		if (v[k].call_line > v[k].line)
			abort();
	}
	mcinit_pybool_free(v, n);
	return 0;
}
