/* fuzz-hydra.c — libFuzzer target for Hydra's override grammar (lib/input/hydra.c).
 * Every input is a word: it parses or fails with a column inside it (or just
 * past its end), and a parsed value is no deeper than the nesting limit. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/hydra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t
depth(const struct mcinit_hy_value *v)
{
	size_t d = 0;

	for (size_t k = 0; k < v->n && v->items; k++) {
		size_t c = depth(&v->items[k]);

		if (c > d)
			d = c;
	}
	return d + 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_hy_override o;
	struct mcinit_hy_error e;

	if (mcinit_hydra_parse((const char *)data, size, &o, &e) < 0) {
		if (e.col < 1 || (size_t)e.col > size + 1 || e.what == NULL || e.msg[0] == '\0')
			abort();
		return 0;
	}
	if (o.key == NULL || (o.has_value && depth(&o.value) > MCINIT_HYDRA_MAX_NEST / 2 + 1))
		abort();
	if (o.value.type == MCINIT_HY_STR && memchr(o.value.text, 0, o.value.len) == NULL &&
	    strlen(o.value.text) != o.value.len)
		abort();
	mcinit_hydra_free(&o);
	return 0;
}
