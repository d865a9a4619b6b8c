/*
 * load-yaml.c — YAML config files (Megatron-Bridge's ConfigContainer shape).
 * yamltree.c turns the file into the same JSON tree and position index a
 * JSON file gives, typed as Bridge's OmegaConf loader types it; the shared
 * walker (load-json.c) then reads it, so every diagnostic is the same.
 */
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

#include "input/yamltree.h"

/* `${section.field}` that the file does not set: the value mcinit holds so
 * far (a default, or an earlier input), as OmegaConf resolves against the
 * config the file is merged onto. */
json_t *
mcinit_config_ref(void *ctx, const char *ref, const char **what)
{
	const struct mcinit_config *c = ctx;
	const char *dot = strchr(ref, '.');
	char sec[64];
	int f;

	if (dot == NULL || dot - ref >= (long)sizeof sec || strchr(dot + 1, '.') != NULL)
		return NULL;
	snprintf(sec, sizeof sec, "%.*s", (int)(dot - ref), ref);
	f = mcinit_field_lookup(sec, dot + 1);
	if (f < 0 || (mcinit_cfg_null(c, f) && mcinit_field_s(f, def) == NULL))
		return NULL;
	*what =
	    c->origin[f] == MCINIT_ORIG_DEFAULT ? "its default" : "the value an earlier input set";
	return mcinit_value_to_json(&c->val[f]);
}

int
mcinit_config_load_yaml_text(struct mcinit_config *c, const char *name, const char *text,
                             size_t len, struct mcinit_diags *d, struct mcinit_err *err)
{
	struct mcinit_yaml y;
	struct mcinit_loc base;
	size_t i;

	/* A file over a ConfigContainer an earlier input made is merged as
	 * Bridge's example scripts merge --config-file, read by OmegaConf's
	 * loader; any other (the container itself: from_yaml) by
	 * yaml.safe_load. */
	if (mcinit_yaml_parse_as(text, len, !c->bridge, mcinit_config_ref, c, &y, err) < 0) {
		mcinit_err_locate(err, name);
		return -1;
	}
	base = mcinit_config_source(c, name);
	for (i = 0; i < y.nnotes; i++) {
		struct mcinit_loc l = base;
		struct mcinit_diag *g;

		l.line = y.notes[i].line;
		l.col = y.notes[i].col;
		g = mcinit_diag_add(d, y.notes[i].sev, y.notes[i].code, &l, "%s", y.notes[i].msg);
		if (y.notes[i].hint != NULL)
			mcinit_diag_hint(g, "%s", y.notes[i].hint);
	}
	mcinit_config_load_tree(c, base, y.root, y.jp, d);
	mcinit_yaml_destroy(&y);
	return 0;
}

int
mcinit_config_load_yaml(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                        struct mcinit_err *err)
{
	return mcinit_config_load_file(c, path, mcinit_config_load_yaml_text, d, err);
}
