/* fuzz-settings.c — libFuzzer target for the settings reader (mcinit.toml and
 * pyproject.toml's [tool.mcinit], lib/core/settings.c): any bytes are read or
 * refused with a place, never past the end, and what is read is whole. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the reader gets exactly size bytes, not NUL-terminated */
	char *text = malloc(size ? size : 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	/* both forms: the whole file, and a pyproject table */
	for (int pass = 0; pass < 2; pass++) {
		struct mcinit_settings s = {0};
		struct mcinit_err err = {0};
		int rc = mcinit_settings_parse("fuzz.toml", text, size, pass ? "tool.mcinit" : NULL,
		                               &s, &err);

		if (rc < -1 || rc > 1)
			abort();
		if (rc < 0 && err.msg[0] == '\0')
			abort();
		for (size_t i = 0; i < s.noverrides; i++)
			if (s.overrides[i] == NULL || strchr(s.overrides[i], '=') == NULL)
				abort();
		if (rc == 1 && (s.world_size < 0 || s.nnodes < 0 || s.nproc_per_node < 0))
			abort();
		mcinit_settings_free(&s);
	}
	free(text);
	return 0;
}
