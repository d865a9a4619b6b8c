/* fuzz-json.c — libFuzzer target for the whole validate pipeline on a JSON
 * config: jansson + jpos, the loader, then repairs, derived values and every
 * rule.  Besides "no crash, no leak, no hang": a load failure is a located
 * data error, and a loaded job always gets a verdict. */
#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_config c;
	struct mcinit_diags d;
	struct mcinit_derived dv;
	struct mcinit_err err = {0};
	struct mcinit_check_opts o = {.world_size = 64};
	char *env[] = {NULL};

	o.envp = env;
	mcinit_config_init(&c, MCINIT_MV_MAIN);
	mcinit_diags_init(&d);
	if (mcinit_config_load_json_text(&c, "fuzz.json", (const char *)data, size, &d, &err) < 0) {
		if (err.code != MCINIT_E_PARSE)
			abort();
	} else {
		mcinit_config_fill_megatron(&c, &d);
		mcinit_config_finish(&c, &d);
		if (mcinit_check(&c, &o, &dv, &d, &err) < 0)
			abort();
		json_decref(mcinit_config_to_json(&c));
		json_decref(mcinit_derived_to_json(&dv));
	}
	mcinit_diags_sort(&d);
	json_decref(mcinit_diags_to_json(&d));
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
	return 0;
}
