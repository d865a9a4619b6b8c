/* config-schema.c — the configuration as JSON Schema (draft 2020-12),
 * from the same field tables the loaders use (schema.def over data/):
 * what `mcinit schema` prints, for editors and other tools to check job
 * files with (mcinit_config_schema, mcinit.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config/config.h"

/* `|`-separated words as a JSON array of strings. */
static json_t *
bar_list(const char *s)
{
	json_t *arr = json_array();

	while (s && *s) {
		size_t n = strcspn(s, "|");

		json_array_append_new(arr, json_stringn(s, n));
		s += n + (s[n] == '|');
	}
	return arr;
}

static json_t *
scalar_schema(enum mcinit_field f, enum mcinit_base b)
{
	const struct mcinit_field_info *fi = &mcinit_fields[f];
	json_t *o = json_object();

	switch (b) {
	case MCINIT_B_NULL:
		json_object_set_new(o, "type", json_string("null"));
		break;
	case MCINIT_B_BOOL:
		json_object_set_new(o, "type", json_string("boolean"));
		break;
	case MCINIT_B_INT:
		json_object_set_new(o, "type", json_string("integer"));
		if (fi->lo != MCINIT_NOLIM)
			json_object_set_new(o, "minimum", json_integer(fi->lo));
		if (fi->hi != MCINIT_NOLIM)
			json_object_set_new(o, "maximum", json_integer(fi->hi));
		break;
	case MCINIT_B_FLOAT:
		json_object_set_new(o, "type", json_string("number"));
		break;
	case MCINIT_B_ANY:
		break; /* {} accepts anything */
	case MCINIT_B_STR:
	case MCINIT_B_ENUM:
		json_object_set_new(o, "type", json_string("string"));
		if (mcinit_field_str(fi->choices))
			json_object_set_new(o, "enum", bar_list(mcinit_field_str(fi->choices)));
		break;
	case MCINIT_B_SIGNAL:
		json_object_set_new(o, "type", bar_list("string|integer"));
		json_object_set_new(o, "description",
		                    json_string("a signal name (SIGTERM, usr1, ...) or number"));
		break;
	case MCINIT_B_LAYOUT:
		json_object_set_new(o, "type", bar_list("string|array"));
		json_object_set_new(
		    o, "description",
		    json_string("a pipeline layout: Megatron's string (\"Et|tt|tL\") "
		                "or a list of stages of layer names"));
		break;
	case MCINIT_B_DTYPE:
		json_object_set_new(o, "type", bar_list("string|integer"));
		json_object_set_new(o, "description",
		                    json_string("fp32, fp16 or bf16 (also float32, bfloat16, "
		                                "bf16-mixed, 16-mixed, torch.bfloat16, 32, 16)"));
		break;
	}
	return o;
}

static json_t *
field_schema(enum mcinit_field f)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	json_t *any = json_array(), *o;
	int i;

	for (i = 0; i < t->nalt; i++) {
		const struct mcinit_alt *a = &t->alt[i];
		json_t *s = scalar_schema(f, a->base);

		if (a->list) {
			json_t *arr = json_object();

			json_object_set_new(arr, "type", json_string("array"));
			json_object_set_new(arr, "items", s);
			if (a->fixed) {
				json_object_set_new(arr, "minItems", json_integer(a->fixed));
				json_object_set_new(arr, "maxItems", json_integer(a->fixed));
			}
			s = arr;
		}
		json_array_append_new(any, s);
	}
	if (json_array_size(any) == 1) {
		o = json_incref(json_array_get(any, 0));
		json_decref(any);
	} else {
		o = json_object();
		json_object_set_new(o, "anyOf", any);
	}
	json_object_set_new(o, "description", json_string(mcinit_field_s(f, help)));
	if (mcinit_field_s(f, def))
		json_object_set_new(o, "default",
		                    json_loads(mcinit_field_s(f, def), JSON_DECODE_ANY, NULL));
	if (mcinit_field_s(f, flags))
		json_object_set_new(o, "x-megatron-flags", bar_list(mcinit_field_s(f, flags)));
	return o;
}

static json_t *
section_schema(void)
{
	json_t *o = json_object(), *meta = json_object();

	json_object_set_new(o, "type", json_string("object"));
	json_object_set_new(o, "properties", json_object());
	json_object_set_new(o, "required", json_array());
	json_object_set_new(o, "additionalProperties", json_false());
	json_object_set_new(meta, "^_(target|partial|call)_$", json_object());
	json_object_set_new(o, "patternProperties", meta);
	return o;
}

/* An alias key ("dist.lazy_init") is a property of its own section that
 * takes the same values and says whose name it is. */
static void
add_aliases(json_t *props, enum mcinit_field f)
{
	const char *p = mcinit_field_s(f, aliases);
	char key[128];

	while (p && *p) {
		size_t n = strcspn(p, "|"), dot;
		json_t *s, *o;

		snprintf(key, sizeof key, "%.*s", (int)n, p);
		p += n + (p[n] == '|');
		dot = strcspn(key, ".");
		if (key[dot] != '.')
			continue;
		key[dot] = '\0';
		s = json_object_get(props, key);
		if (s == NULL) {
			s = section_schema();
			json_object_set_new(props, key, s);
		}
		o = field_schema(f);
		json_object_set_new(o, "description",
		                    json_sprintf("alias of %s.%s: %s", mcinit_field_s(f, section),
		                                 mcinit_field_s(f, name), mcinit_field_s(f, help)));
		json_object_set_new(json_object_get(s, "properties"), key + dot + 1, o);
	}
}

/* Bridge's optional sections may be null; mixed_precision may be a preset
 * name. */
static void
wrap_section(json_t *props, const struct mcinit_section_info *si)
{
	json_t *alt;

	if (si->kind != MCINIT_SK_OPTIONAL && !si->str_ok)
		return;
	alt = json_array();
	json_array_append(alt, json_object_get(props, si->name));
	if (si->kind == MCINIT_SK_OPTIONAL)
		json_array_append_new(alt, json_pack("{s:s}", "type", "null"));
	if (si->str_ok)
		json_array_append_new(alt, json_pack("{s:s}", "type", "string"));
	json_object_set_new(props, si->name, json_pack("{s:o}", "anyOf", alt));
}

static json_t *
schema_json(void)
{
	json_t *root = json_object(), *props = json_object(), *env = json_object();
	size_t k;
	int f;

	json_object_set_new(root, "$schema",
	                    json_string("https://json-schema.org/draft/2020-12/schema"));
	json_object_set_new(root, "title", json_string("mcinit job configuration"));
	json_object_set_new(root, "type", json_string("object"));
	for (k = 0; k < mcinit_nsections; k++)
		if (mcinit_sections[k].kind != MCINIT_SK_MAP)
			json_object_set_new(props, mcinit_sections[k].name, section_schema());
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const char *sec = mcinit_field_s(f, section);
		json_t *s = json_object_get(props, sec);

		if (s == NULL) {
			s = section_schema();
			json_object_set_new(props, sec, s);
		}
		json_object_set_new(json_object_get(s, "properties"), mcinit_field_s(f, name),
		                    field_schema(f));
		add_aliases(props, f);
		if (mcinit_field_s(f, def) == NULL)
			json_array_append_new(json_object_get(s, "required"),
			                      json_string(mcinit_field_s(f, name)));
	}
	json_object_set_new(env, "type", json_string("object"));
	json_object_set_new(env, "additionalProperties",
	                    json_pack("{s:[s,s,s]}", "type", "string", "number", "boolean"));
	json_object_set_new(props, "env_vars", env);
	for (k = 0; k < mcinit_nsections; k++)
		wrap_section(props, &mcinit_sections[k]);
	json_object_set_new(root, "properties", props);
	json_object_set_new(root, "additionalProperties", json_false());
	json_object_set_new(root, "patternProperties",
	                    json_pack("{s:{}}", "^_(target|partial|call)_$"));
	return root;
}

char *
mcinit_config_schema(void)
{
	json_t *s = schema_json();
	char *text = json_dumps(s, JSON_INDENT(2) | JSON_PRESERVE_ORDER | MCINIT_JSON_REALS);

	json_decref(s);
	return text;
}
