/* fuzz-flags.c — libFuzzer target for the Megatron-LM flag parser and the
 * `section.field=value` overrides: the input is words separated by NUL or
 * newline; a word holding '=' and no leading '-' is an override, the others
 * are Megatron words.  Then the rules run, so every value the parsers let
 * through meets every rule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* At most this many words: a longer command line only repeats the same work. */
#define MAXW 64

/* Every value the input wrote, as the config's JSON writes it.  Not the
 * whole config: its 1,187 fields cost two thousand allocations an execution
 * (a third of the harness's work natively, more under ASan), and the ones
 * at their defaults are the same every time; test-config and fuzz-json
 * cover the whole writer. */
static void
serialize_written(const struct mcinit_config *c)
{
	for (int i = 0; i < MCINIT_F_COUNT; i++)
		if (c->origin[i] != MCINIT_ORIG_DEFAULT)
			json_decref(mcinit_value_to_json(&c->val[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *words[MAXW];
	struct mcinit_loc locs[MAXW];
	struct mcinit_config c;
	struct mcinit_diags d;
	struct mcinit_derived dv;
	struct mcinit_err err = {0};
	struct mcinit_check_opts o = {.world_size = 8};
	char *env[] = {NULL};
	size_t n = 0, i = 0;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	o.envp = env;
	mcinit_config_init(&c, MCINIT_MV_MAIN);
	mcinit_diags_init(&d);
	while (i <= size && n < MAXW) {
		size_t j = i;

		while (j < size && text[j] != '\0' && text[j] != '\n')
			j++;
		text[j] = '\0';
		if (text[i] != '-' && strchr(text + i, '=') != NULL) {
			mcinit_config_apply_override(&c, text + i, (int)n + 1, &d);
		} else {
			words[n] = text + i;
			locs[n] = (struct mcinit_loc){.source = "argv", .line = (int)n + 1};
			n++;
		}
		i = j + 1;
	}
	mcinit_config_apply_flags(&c, words, locs, NULL, n, &d);
	mcinit_config_fill_megatron(&c, &d);
	mcinit_config_finish(&c, &d);
	if (mcinit_check(&c, &o, &dv, &d, &err) < 0)
		abort();
	serialize_written(&c);
	mcinit_diags_sort(&d);
	json_decref(mcinit_diags_to_json(&d));
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
	free(text);
	return 0;
}
