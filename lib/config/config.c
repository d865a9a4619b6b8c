/* config.c — the configuration model: schema, types, values.  See config.h. */
#include "config/config.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/versions.h"

const struct mcinit_field_info mcinit_fields[MCINIT_F_COUNT] = {
#define MCINIT_FIELD_ROW(id, sec, name, type, def, flags, lo, hi, choices, help, aliases, dest,    \
                         origin)                                                                   \
	{#sec, #name, type, def, flags, lo, hi, choices, help, aliases, dest, origin},
#include "config/fields.inc"
#undef MCINIT_FIELD_ROW
};

/* "section.name" (and alias keys) -> field, sorted bytewise; hashed. */
static const struct {
	const char *key;
	enum mcinit_field f;
	bool alias;
} keys[] = {
#define MCINIT_FIELD_KEY(key, id, alias) {key, MCINIT_F_##id, alias},
#include "config/fields.inc"
#undef MCINIT_FIELD_KEY
};
static const unsigned short key_hash[] = {
#define MCINIT_FIELD_KEY_HASH(i) i,
#include "config/fields.inc"
#undef MCINIT_FIELD_KEY_HASH
};

/* Bare name -> the first field of that name in table order, sorted; hashed. */
static const struct {
	const char *name;
	enum mcinit_field f;
} names[] = {
#define MCINIT_FIELD_NAME(name, id) {name, MCINIT_F_##id},
#include "config/fields.inc"
#undef MCINIT_FIELD_NAME
};
static const unsigned short name_hash[] = {
#define MCINIT_FIELD_NAME_HASH(i) i,
#include "config/fields.inc"
#undef MCINIT_FIELD_NAME_HASH
};

/* Megatron-LM dest -> the fields a flag sets, sorted by dest, home first;
 * dest -> the first of them, hashed. */
static const struct {
	const char *dest;
	enum mcinit_field f;
} dests[] = {
#define MCINIT_FIELD_DEST(dest, id) {dest, MCINIT_F_##id},
#include "config/fields.inc"
#undef MCINIT_FIELD_DEST
};
static const size_t ndests = sizeof dests / sizeof dests[0];
static const unsigned short dest_hash[] = {
#define MCINIT_FIELD_DEST_HASH(i) i,
#include "config/fields.inc"
#undef MCINIT_FIELD_DEST_HASH
};

/* The dest column of mcinit_fields -> the first field that has it, sorted;
 * hashed. */
static const struct {
	const char *dest;
	enum mcinit_field f;
} dest_column[] = {
#define MCINIT_FIELD_DEST_COLUMN(dest, id) {dest, MCINIT_F_##id},
#include "config/fields.inc"
#undef MCINIT_FIELD_DEST_COLUMN
};
static const unsigned short dest_column_hash[] = {
#define MCINIT_FIELD_DEST_COLUMN_HASH(i) i,
#include "config/fields.inc"
#undef MCINIT_FIELD_DEST_COLUMN_HASH
};

const struct mcinit_section_info mcinit_sections[] = {
#define MCINIT_SECTION(name, kind, str_ok, ty) {name, kind, str_ok, ty},
#include "config/fields.inc"
#undef MCINIT_SECTION
};
const size_t mcinit_nsections = sizeof mcinit_sections / sizeof mcinit_sections[0];

const struct mcinit_section_info *
mcinit_section_find(const char *name)
{
	size_t i;

	/* (the first letter inline: the rules ask at every name they resolve) */
	for (i = 0; i < mcinit_nsections; i++)
		if (mcinit_sections[i].name[0] == name[0] &&
		    strcmp(mcinit_sections[i].name, name) == 0)
			return &mcinit_sections[i];
	return NULL;
}

/* ---- types ---- */

static const struct {
	const char *word;
	enum mcinit_base base;
} base_names[] = {
    {"null", MCINIT_B_NULL},     {"bool", MCINIT_B_BOOL},   {"int", MCINIT_B_INT},
    {"float", MCINIT_B_FLOAT},   {"str", MCINIT_B_STR},     {"enum", MCINIT_B_ENUM},
    {"signal", MCINIT_B_SIGNAL}, {"dtype", MCINIT_B_DTYPE}, {"any", MCINIT_B_ANY},
    {"layout", MCINIT_B_LAYOUT},
};

static int
parse_base(const char *s, size_t n, enum mcinit_base *out)
{
	size_t i;

	for (i = 0; i < sizeof base_names / sizeof base_names[0]; i++) {
		if (strlen(base_names[i].word) == n && strncmp(base_names[i].word, s, n) == 0) {
			*out = base_names[i].base;
			return 0;
		}
	}
	return -1;
}

/* One alternative: "int", "list[str]", "list[int]{3}". */
static int
parse_alt(const char *s, size_t n, struct mcinit_alt *a)
{
	memset(a, 0, sizeof *a);
	if (n > 6 && strncmp(s, "list[", 5) == 0) {
		const char *close = memchr(s, ']', n);

		if (close == NULL)
			return -1;
		a->list = true;
		if (close + 1 < s + n && sscanf(close + 1, "{%d}", &a->fixed) != 1)
			return -1;
		return parse_base(s + 5, (size_t)(close - s - 5), &a->base);
	}
	return parse_base(s, n, &a->base);
}

/* Schema types are constants: a bad one is a programming error.  It is left
 * with no alternative (it accepts nothing), and the unit test that parses
 * every row (test-config: every_schema_row_parses_and_defaults_convert)
 * fails on it; the library has no one to tell at run time. */
static void
parse_type(const char *text, struct mcinit_type *t)
{
	const char *p = text;

	memset(t, 0, sizeof *t);
	while (*p && t->nalt < (int)(sizeof t->alt / sizeof t->alt[0])) {
		size_t n = strcspn(p, "|");

		if (parse_alt(p, n, &t->alt[t->nalt]) < 0) {
			memset(t, 0, sizeof *t);
			return;
		}
		t->nalt++;
		p += n + (p[n] == '|');
	}
}

/* Parsed once per process, whichever thread asks first. */
static struct mcinit_type field_types[MCINIT_F_COUNT];
static pthread_once_t field_types_once = PTHREAD_ONCE_INIT;

/* The ~1250 fields have ~100 distinct type texts, and the compiler stores
 * each distinct literal once: a text is parsed the first time its pointer
 * is seen (a slot per pointer hash; a collision only parses again). */
static void
parse_field_types(void)
{
	static struct {
		const char *text;
		int f;
	} seen[256];
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		const char *text = mcinit_fields[i].type_text;
		size_t h = ((uintptr_t)text >> 3) % (sizeof seen / sizeof seen[0]);

		if (seen[h].text == text) {
			field_types[i] = field_types[seen[h].f];
			continue;
		}
		parse_type(text, &field_types[i]);
		seen[h].text = text;
		seen[h].f = i;
	}
}

const struct mcinit_type *
mcinit_field_type(enum mcinit_field f)
{
	pthread_once(&field_types_once, parse_field_types);
	return &field_types[f];
}

const char *
mcinit_field_key(enum mcinit_field f, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s", mcinit_fields[f].section, mcinit_fields[f].name);
	return buf;
}

static int
key_cmp(const char *section, const char *name, const char *key)
{
	size_t n = strlen(section);
	int r = strncmp(section, key, n);

	if (r != 0)
		return r;
	if (key[n] != '.')
		return (unsigned char)'.' - (unsigned char)key[n];
	return strcmp(name, key + n + 1);
}

int
mcinit_field_lookup_key(const char *section, const char *name, bool *alias)
{
	size_t mask = sizeof key_hash / sizeof key_hash[0] - 1;
	size_t h = mcinit_fnv1a(mcinit_fnv1a(mcinit_fnv1a(MCINIT_FNV1A_INIT, section), "."), name);

	/* the key "section.name", hashed without writing it */
	for (h &= mask; key_hash[h] != MCINIT_HASH_EMPTY; h = (h + 1) & mask) {
		if (key_cmp(section, name, keys[key_hash[h]].key) != 0)
			continue;
		if (alias)
			*alias = keys[key_hash[h]].alias;
		return keys[key_hash[h]].f;
	}
	return -1;
}

int
mcinit_field_lookup(const char *section, const char *name)
{
	long i;

	if (section != NULL)
		return mcinit_field_lookup_key(section, name, NULL);
	i = mcinit_hash_find(name_hash, sizeof name_hash / sizeof name_hash[0], names,
	                     sizeof names[0], offsetof(__typeof__(names[0]), name), name);
	return i < 0 ? -1 : (int)names[i].f;
}

int
mcinit_fields_by_dest(const char *dest, enum mcinit_field *out, int max)
{
	long i = mcinit_hash_find(dest_hash, sizeof dest_hash / sizeof dest_hash[0], dests,
	                          sizeof dests[0], offsetof(__typeof__(dests[0]), dest), dest);
	size_t lo = i < 0 ? ndests : (size_t)i;
	int n = 0;

	for (; lo < ndests && strcmp(dests[lo].dest, dest) == 0 && n < max; lo++)
		out[n++] = dests[lo].f;
	return n;
}

int
mcinit_field_by_dest_column(const char *dest)
{
	size_t nslots = sizeof dest_column_hash / sizeof dest_column_hash[0];
	long i = mcinit_hash_find(dest_column_hash, nslots, dest_column, sizeof dest_column[0],
	                          offsetof(__typeof__(dest_column[0]), dest), dest);

	return i < 0 ? -1 : (int)dest_column[i].f;
}

/* Whole-word match of flag inside a `|`-separated list. */
static bool
in_bar_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p && *p) {
		size_t m = strcspn(p, "|");

		if (m == n && strncmp(p, word, n) == 0)
			return true;
		p += m + (p[m] == '|');
	}
	return false;
}

int
mcinit_field_by_flag(const char *flag, bool *is_false)
{
	const struct mcinit_mflag *m = mcinit_mflag_find_any(flag);
	enum mcinit_field f;
	int neg = 0;

	if (m == NULL)
		return -1;
	mcinit_mflag_find(flag, m->versions, &neg);
	if (is_false)
		*is_false = m->kind == MCINIT_MK_STORE_FALSE || neg;
	return mcinit_fields_by_dest(m->dest, &f, 1) == 1 ? (int)f : -1;
}

/* ---- values ---- */

void
mcinit_value_clear(struct mcinit_value *v)
{
	size_t i;

	free(v->s);
	json_decref(v->j);
	for (i = 0; i < v->n; i++)
		mcinit_value_clear(&v->items[i]);
	free(v->items);
	memset(v, 0, sizeof *v);
}

int
mcinit_bool_word(const char *w)
{
	static const char *const yes[] = {"true", "1", "yes", "y", "on", "t"};
	static const char *const no[] = {"false", "0", "no", "n", "off", "f", ""};
	size_t i;

	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (strcasecmp(w, yes[i]) == 0)
			return 1;
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		if (strcasecmp(w, no[i]) == 0)
			return 0;
	return -1;
}

/* Signal name -> number: "SIGTERM", "term", "usr1", "SIGRTMIN+2", "15". */
static int
signal_from_name(const char *s)
{
	char *end;
	long n;
	int i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	n = strtol(s, &end, 10);
	if (*s && *end == '\0')
		return n > 0 && n < NSIG ? (int)n : -1;
	if (strncasecmp(s, "RTMIN", 5) == 0 || strncasecmp(s, "RTMAX", 5) == 0) {
		int base = toupper((unsigned char)s[3]) == 'I' ? SIGRTMIN : SIGRTMAX;

		n = s[5] ? strtol(s + 5, &end, 10) : 0;
		if (s[5] && *end != '\0')
			return -1;
		n += base;
		return n >= SIGRTMIN && n <= SIGRTMAX ? (int)n : -1;
	}
	for (i = 1; i < NSIG; i++) {
		const char *abbr = sigabbrev_np(i);

		if (abbr != NULL && strcasecmp(abbr, s) == 0)
			return i;
	}
	return -1;
}

static char *
signal_name(int sig)
{
	const char *abbr = sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbr != NULL)
		return mcinit_xasprintf("SIG%s", abbr);
	if (sig == SIGRTMIN)
		return mcinit_xstrdup("SIGRTMIN");
	return mcinit_xasprintf("SIGRTMIN+%d", sig - SIGRTMIN);
}

static char *
signal_list(void)
{
	struct mcinit_buf b = {0};
	int i;

	for (i = 1; i < SIGRTMIN; i++) {
		const char *abbr = sigabbrev_np(i);

		if (abbr != NULL)
			mcinit_buf_printf(&b, "%sSIG%s", b.len ? ", " : "", abbr);
	}
	mcinit_buf_adds(&b, ", SIGRTMIN..SIGRTMAX (as SIGRTMIN+n), or a number 1-");
	mcinit_buf_add_long(&b, NSIG - 1);
	mcinit_buf_cstr(&b);
	return b.data;
}

/* Megatron-Bridge accepts many spellings of a dtype; canonical fp32/fp16/bf16. */
static const char *
dtype_canonical(const char *s)
{
	static const struct {
		const char *spelling, *canon;
	} map[] = {
	    {"fp32", "fp32"},           {"float32", "fp32"},       {"32", "fp32"},
	    {"32-true", "fp32"},        {"torch.float32", "fp32"}, {"float", "fp32"},
	    {"fp16", "fp16"},           {"float16", "fp16"},       {"16", "fp16"},
	    {"16-mixed", "fp16"},       {"half", "fp16"},          {"torch.float16", "fp16"},
	    {"bf16", "bf16"},           {"bfloat16", "bf16"},      {"bf16-mixed", "bf16"},
	    {"torch.bfloat16", "bf16"},
	};
	size_t i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcasecmp(map[i].spelling, s) == 0)
			return map[i].canon;
	return NULL;
}

static const char *const base_desc[] = {
    [MCINIT_B_NULL] = "null",
    [MCINIT_B_BOOL] = "a boolean",
    [MCINIT_B_INT] = "an integer",
    [MCINIT_B_FLOAT] = "a number",
    [MCINIT_B_STR] = "a string",
    [MCINIT_B_ENUM] = "one of",
    [MCINIT_B_SIGNAL] = "a signal name or number",
    [MCINIT_B_DTYPE] = "a dtype (fp32, fp16, bf16)",
    [MCINIT_B_ANY] = "any value",
    [MCINIT_B_LAYOUT] = "a pipeline layout (a string, or a list of stages of layer names)",
};

/* "an integer, a list of strings or null" — the type in words. */
static char *
type_words(enum mcinit_field f)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	struct mcinit_buf b = {0};
	int i;

	for (i = 0; i < t->nalt; i++) {
		const struct mcinit_alt *a = &t->alt[i];

		if (i > 0)
			mcinit_buf_adds(&b, i == t->nalt - 1 ? " or " : ", ");
		if (a->list && a->fixed)
			mcinit_buf_printf(&b, "a list of exactly %d ", a->fixed);
		else if (a->list)
			mcinit_buf_adds(&b, "a list of ");
		if (a->list)
			mcinit_buf_printf(&b, "%ss",
			                  a->base == MCINIT_B_INT     ? "integer"
			                  : a->base == MCINIT_B_FLOAT ? "number"
			                  : a->base == MCINIT_B_BOOL  ? "boolean"
			                  : a->base == MCINIT_B_ANY   ? "value"
			                                              : "string");
		else if (a->base == MCINIT_B_ENUM)
			mcinit_buf_printf(&b, "one of %s", mcinit_fields[f].choices);
		else
			mcinit_buf_adds(&b, base_desc[a->base]);
	}
	mcinit_buf_cstr(&b);
	return b.data;
}

static const char *
json_kind_name(json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "a list";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

struct conv {
	const char *code; /* set on failure */
	char *why;
	long long lo, hi;    /* the field's range (MCINIT_NOLIM: none) */
	const char *choices; /* the field's choices, or NULL */
	char *note;          /* py: a warning about a value Python takes as it is */
	bool py;             /* read by Python (a config file, an override) */
};

static int
conv_fail(struct conv *cv, const char *code, char *why)
{
	if (cv->why == NULL || strcmp(code, "MC005") == 0) {
		/* A range/choices complaint says more than "wrong type": keep it. */
		free(cv->why);
		cv->code = code;
		cv->why = why;
	} else {
		free(why);
	}
	return -1;
}

static int
check_range(enum mcinit_field f, long long v, struct conv *cv)
{
	(void)f;
	if (cv->lo != MCINIT_NOLIM && v < cv->lo)
		return conv_fail(cv, "MC005",
		                 mcinit_xasprintf("%lld is below the minimum %lld", v, cv->lo));
	if (cv->hi != MCINIT_NOLIM && v > cv->hi)
		return conv_fail(cv, "MC005",
		                 mcinit_xasprintf("%lld is above the maximum %lld", v, cv->hi));
	return 0;
}

static int
check_choice(enum mcinit_field f, const char *s, struct conv *cv)
{
	if (cv->choices == NULL || in_bar_list(cv->choices, s))
		return 0;
	/* A Megatron-Bridge field's choices are its Literal[...] annotation,
	 * which nothing checks when Bridge reads a config: a warning (a value
	 * Bridge rejects is its checks' to refuse, MC300-MC351) */
	if (cv->py && mcinit_fields[f].origin == MCINIT_FO_BRIDGE) {
		free(cv->note);
		cv->note = mcinit_xasprintf("%s: '%s' is not one of the values Megatron-Bridge "
		                            "declares (%s); Bridge does not check it",
		                            mcinit_fields[f].name, s, cv->choices);
		return 0;
	}
	return conv_fail(cv, "MC005", mcinit_xasprintf("'%s' is not one of %s", s, cv->choices));
}

static int
check_int_choice(enum mcinit_field f, long long v, struct conv *cv)
{
	char buf[24];

	if (cv->choices == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%lld", v);
	return check_choice(f, buf, cv);
}

/* Megatron-Core's LayerType names and the letters of its layout string. */
static const struct {
	const char *name;
	char letter;
} layer_names[] = {{"embedding", 'E'}, {"decoder", 't'}, {"mtp", 'm'}, {"loss", 'L'}};

/*
 * A pipeline layout: Megatron's string as it is, or Megatron-Core's list
 * of stages, each a list of layer names (what Bridge's YAML dumps hold),
 * turned into the equivalent string, stages joined by `|`, so that one
 * parser (mcinit_layout_parse) reads both.
 */
static int
conv_layout(json_t *j, struct mcinit_value *out, struct conv *cv)
{
	struct mcinit_buf b = {0};
	size_t i, k, n;
	json_t *stage, *layer;

	if (json_is_string(j)) {
		out->kind = MCINIT_V_STR;
		out->s = mcinit_xstrdup(json_string_value(j));
		return 0;
	}
	if (!json_is_array(j))
		return -1;
	json_array_foreach(j, i, stage)
	{
		if (!json_is_array(stage))
			goto bad;
		if (i > 0)
			mcinit_buf_addc(&b, '|');
		json_array_foreach(stage, k, layer)
		{
			for (n = 0; n < sizeof layer_names / sizeof layer_names[0]; n++)
				if (json_is_string(layer) &&
				    strcmp(json_string_value(layer), layer_names[n].name) == 0)
					break;
			if (n == sizeof layer_names / sizeof layer_names[0])
				goto bad;
			mcinit_buf_addc(&b, layer_names[n].letter);
		}
	}
	out->kind = MCINIT_V_STR;
	out->s = mcinit_xstrdup(mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
	return 0;
bad:
	mcinit_buf_free(&b);
	return conv_fail(cv, "MC005",
	                 mcinit_xstrdup("a layout list holds one list per stage, of the layer "
	                                "names embedding, decoder, mtp and loss"));
}

/* One scalar against one base type. */
static int
conv_scalar(enum mcinit_field f, enum mcinit_base base, json_t *j, struct mcinit_value *out,
            struct conv *cv)
{
	memset(out, 0, sizeof *out);
	switch (base) {
	case MCINIT_B_NULL:
		if (!json_is_null(j))
			return -1;
		out->kind = MCINIT_V_NULL;
		return 0;
	case MCINIT_B_BOOL:
		if (!json_is_boolean(j))
			return -1;
		out->kind = MCINIT_V_BOOL;
		out->i = json_is_true(j);
		return 0;
	case MCINIT_B_INT:
		if (!json_is_integer(j))
			return -1;
		if (check_range(f, json_integer_value(j), cv) < 0 ||
		    check_int_choice(f, json_integer_value(j), cv) < 0)
			return -1;
		out->kind = MCINIT_V_INT;
		out->i = json_integer_value(j);
		return 0;
	case MCINIT_B_FLOAT:
		if (!json_is_number(j))
			return -1;
		out->kind = MCINIT_V_FLOAT;
		out->d = json_number_value(j);
		return 0;
	case MCINIT_B_ANY:
		out->kind = MCINIT_V_JSON;
		out->j = json_incref(j);
		return 0;
	case MCINIT_B_STR:
	case MCINIT_B_ENUM:
		if (!json_is_string(j) || check_choice(f, json_string_value(j), cv) < 0)
			return -1;
		out->kind = MCINIT_V_STR;
		out->s = mcinit_xstrdup(json_string_value(j));
		return 0;
	case MCINIT_B_SIGNAL: {
		int sig = json_is_integer(j)
		              ? (json_integer_value(j) > 0 && json_integer_value(j) < NSIG
		                     ? (int)json_integer_value(j)
		                     : -1)
		          : json_is_string(j) ? signal_from_name(json_string_value(j))
		                              : -2;
		if (sig == -2)
			return -1;
		if (sig < 0) {
			char *list = signal_list();
			char *bad = json_dumps(j, JSON_ENCODE_ANY);

			conv_fail(cv, "MC005",
			          mcinit_xasprintf("%s is not a signal of this platform; valid: %s",
			                           bad, list));
			free(list);
			free(bad);
			return -1;
		}
		out->kind = MCINIT_V_STR;
		out->s = signal_name(sig);
		return 0;
	}
	case MCINIT_B_LAYOUT:
		return conv_layout(j, out, cv);
	case MCINIT_B_DTYPE: {
		char tmp[24];
		const char *canon;

		/* Bridge's YAML dumps write a torch dtype as an object that
		 * OmegaConf instantiates: {_target_: torch.bfloat16, _call_: false}. */
		if (json_is_object(j) && json_is_string(json_object_get(j, "_target_")))
			j = json_object_get(j, "_target_");
		if (json_is_integer(j))
			snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(j));
		else if (json_is_string(j))
			snprintf(tmp, sizeof tmp, "%s", json_string_value(j));
		else
			return -1;
		canon = dtype_canonical(tmp);
		if (canon == NULL)
			return conv_fail(
			    cv, "MC005",
			    mcinit_xasprintf("'%s' is not a dtype (fp32, fp16, bf16, "
			                     "float32, bfloat16, bf16-mixed, 16-mixed, "
			                     "torch.bfloat16, ...)",
			                     tmp));
		out->kind = MCINIT_V_STR;
		out->s = mcinit_xstrdup(canon);
		return 0;
	}
	}
	return -1;
}

static int
conv_alt(enum mcinit_field f, const struct mcinit_alt *a, json_t *j, struct mcinit_value *out,
         struct conv *cv)
{
	size_t i, n;

	if (!a->list)
		return conv_scalar(f, a->base, j, out, cv);
	if (!json_is_array(j))
		return -1;
	n = json_array_size(j);
	if (a->fixed && n != (size_t)a->fixed)
		return conv_fail(
		    cv, "MC005",
		    mcinit_xasprintf("expected exactly %d values, got %zu", a->fixed, n));
	memset(out, 0, sizeof *out);
	out->kind = MCINIT_V_LIST;
	out->items = mcinit_xcalloc(n, sizeof *out->items);
	for (i = 0; i < n; i++) {
		if (conv_scalar(f, a->base, json_array_get(j, i), &out->items[i], cv) < 0) {
			out->n = i;
			mcinit_value_clear(out);
			return -1;
		}
	}
	out->n = n;
	return 0;
}

/* OmegaConf's special floats, as Bridge's YAML writes them (and Python's
 * float() spellings): +-inf and nan. */
static bool
special_float(const char *s, double *out)
{
	static const struct {
		const char *word;
		double v;
	} words[] = {{".inf", INFINITY},     {"+.inf", INFINITY},
	             {"-.inf", -INFINITY},   {"inf", INFINITY},
	             {"+inf", INFINITY},     {"-inf", -INFINITY},
	             {"infinity", INFINITY}, {"-infinity", -INFINITY},
	             {".nan", NAN},          {"nan", NAN}};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(s, words[i].word) == 0) {
			*out = words[i].v;
			return true;
		}
	return false;
}

static bool
has_base(const struct mcinit_type *t, enum mcinit_base b, bool list)
{
	int i;

	for (i = 0; i < t->nalt; i++)
		if (t->alt[i].base == b && t->alt[i].list == list)
			return true;
	return false;
}

/* The value an instantiation dict of Bridge's YAML stands for, where mcinit
 * models it: a signal.Signals written {_call_: true, _name_: SIGTERM,
 * _args_: [15]} is its name.  NULL when j is no such dict. */
static json_t *
instantiated(json_t *j)
{
	json_t *name = json_object_get(j, "_name_"), *args = json_object_get(j, "_args_");

	if (!json_is_object(j))
		return NULL;
	if (json_is_string(name))
		return json_incref(name);
	if (json_is_array(args) && json_array_size(args) == 1)
		return json_incref(json_array_get(args, 0));
	return NULL;
}

static int try_alts(enum mcinit_field f, const struct mcinit_type *t, json_t *j,
                    struct mcinit_value *out, struct conv *cv);

/*
 * Python's reading of a config file's value (py): Megatron-Bridge hands it
 * to the dataclass unchecked, so what Python then does with it decides, not
 * the annotation.  An integral float is an int, a number stands for a bool
 * by its truth, a bool is the int 0 or 1 (with a warning), OmegaConf's
 * special floats are floats, an instantiation dict is what it names, and a
 * scalar stands where a tuple is annotated.  0 when one applies.
 */
static int
py_coerce(enum mcinit_field f, const struct mcinit_type *t, json_t *j, struct mcinit_value *out,
          struct conv *cv)
{
	double d;
	json_t *k;
	int i, rc;

	if ((k = instantiated(j)) != NULL) {
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		return rc;
	}
	if (json_is_string(j) && has_base(t, MCINIT_B_FLOAT, false) &&
	    special_float(json_string_value(j), &d)) {
		memset(out, 0, sizeof *out);
		out->kind = MCINIT_V_FLOAT;
		out->d = d;
		return 0;
	}
	if (json_is_real(j) && has_base(t, MCINIT_B_INT, false) &&
	    json_real_value(j) == floor(json_real_value(j)) && fabs(json_real_value(j)) < 0x1p62) {
		k = json_integer((json_int_t)json_real_value(j));
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		return rc;
	}
	if (json_is_number(j) && has_base(t, MCINIT_B_BOOL, false)) {
		memset(out, 0, sizeof *out);
		out->kind = MCINIT_V_BOOL;
		out->i = json_number_value(j) != 0;
		return 0;
	}
	if (json_is_boolean(j) && has_base(t, MCINIT_B_INT, false)) {
		k = json_integer(json_is_true(j));
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		if (rc == 0) {
			free(cv->note);
			cv->note = mcinit_xasprintf("%s is a boolean where Megatron expects an "
			                            "integer: Python reads it as %d",
			                            mcinit_fields[f].name, json_is_true(j) ? 1 : 0);
		}
		return rc;
	}
	if (!json_is_array(j) && !json_is_object(j))
		for (i = 0; i < t->nalt; i++)
			if (t->alt[i].list && conv_scalar(f, t->alt[i].base, j, out, cv) == 0)
				return 0;
	return -1;
}

static int
try_alts(enum mcinit_field f, const struct mcinit_type *t, json_t *j, struct mcinit_value *out,
         struct conv *cv)
{
	int i;

	for (i = 0; i < t->nalt; i++)
		if (conv_alt(f, &t->alt[i], j, out, cv) == 0)
			return 0;
	return -1;
}

int
mcinit_value_from_json_py(enum mcinit_field f, json_t *j, bool py, struct mcinit_value *out,
                          const char **code, char **why, char **note)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	struct conv cv = {
	    NULL, NULL, mcinit_fields[f].lo, mcinit_fields[f].hi, mcinit_fields[f].choices,
	    NULL, py};

	*note = NULL;
	if (try_alts(f, t, j, out, &cv) == 0 || (py && py_coerce(f, t, j, out, &cv) == 0)) {
		free(cv.why);
		*note = cv.note;
		return 0;
	}
	free(cv.note);
	if (cv.why == NULL) {
		char *words = type_words(f);

		cv.code = "MC004";
		cv.why = mcinit_xasprintf("expected %s, got %s", words, json_kind_name(j));
		free(words);
	}
	*code = cv.code;
	*why = cv.why;
	return -1;
}

int
mcinit_value_from_json(enum mcinit_field f, json_t *j, struct mcinit_value *out, const char **code,
                       char **why)
{
	char *note;
	int rc = mcinit_value_from_json_py(f, j, false, out, code, why, &note);

	free(note);
	return rc;
}

int
mcinit_type_check(const char *type_text, const char *choices, json_t *j, char **why)
{
	struct conv cv = {NULL, NULL, MCINIT_NOLIM, MCINIT_NOLIM, choices, NULL, false};
	struct mcinit_value v;
	struct mcinit_type t;
	int i;

	parse_type(type_text, &t);
	for (i = 0; i < t.nalt; i++) {
		if (conv_alt(0, &t.alt[i], j, &v, &cv) == 0) {
			mcinit_value_clear(&v);
			free(cv.why);
			return 0;
		}
	}
	if (cv.why == NULL)
		cv.why = mcinit_xasprintf("expected %s, got %s", type_text, json_kind_name(j));
	*why = cv.why;
	return -1;
}

json_t *
mcinit_value_to_json(const struct mcinit_value *v)
{
	json_t *arr;
	size_t i;

	switch (v->kind) {
	case MCINIT_V_BOOL:
		return json_boolean(v->i);
	case MCINIT_V_INT:
		return json_integer(v->i);
	case MCINIT_V_FLOAT:
		/* JSON has no infinity or NaN: Python's spellings, as strings
		 * (which a config file may hold for a float field). */
		if (!isfinite(v->d))
			return json_string(isnan(v->d) ? "nan" : v->d > 0 ? "inf" : "-inf");
		return json_real(v->d);
	case MCINIT_V_JSON:
		return json_incref(v->j);
	case MCINIT_V_STR:
		return json_string(v->s);
	case MCINIT_V_LIST:
		arr = json_array();
		for (i = 0; i < v->n; i++)
			json_array_append_new(arr, mcinit_value_to_json(&v->items[i]));
		return arr;
	default:
		return json_null();
	}
}

/* ---- the config ---- */

/* Whether t is a JSON number with a fraction or an exponent (0.1, 1e-05),
 * which jansson reads with strtod as well. */
static bool
is_json_real(const char *t)
{
	bool real = false;

	t += *t == '-';
	if (*t == '0')
		t++;
	else if (isdigit((unsigned char)*t))
		t += strspn(t, "0123456789");
	else
		return false;
	if (*t == '.') {
		if (!isdigit((unsigned char)t[1]))
			return false;
		t += 1 + strspn(t + 1, "0123456789");
		real = true;
	}
	if (*t == 'e' || *t == 'E') {
		t += 1 + (t[1] == '+' || t[1] == '-');
		if (!isdigit((unsigned char)*t))
			return false;
		t += strspn(t, "0123456789");
		real = true;
	}
	return real && *t == '\0';
}

/* A default's JSON text as a value; the common literals without a parser,
 * since a config starts from ~1200 of them. */
static json_t *
default_json(const char *t)
{
	double d;
	char *end;
	long long n;
	size_t len;

	/* (the first letter first: most defaults are numbers) */
	if (t[0] == 'n' && strcmp(t, "null") == 0)
		return json_null();
	if (t[0] == 't' && strcmp(t, "true") == 0)
		return json_true();
	if (t[0] == 'f' && strcmp(t, "false") == 0)
		return json_false();
	errno = 0;
	n = strtoll(t, &end, 10);
	if (end != t && *end == '\0' && errno == 0)
		return json_integer(n);
	if (is_json_real(t) && !isinf(d = strtod(t, NULL)))
		return json_real(d); /* (jansson refuses an overflow) */
	len = strlen(t);
	if (len >= 2 && t[0] == '"' && t[len - 1] == '"' && strpbrk(t + 1, "\\\"") == t + len - 1)
		return json_stringn(t + 1, len - 2);
	return json_loads(t, JSON_DECODE_ANY, NULL);
}

/* The defaults that differ by release from the DEFAULT column: a flag's
 * parser default on the releases where the field's first flag with its
 * dest has another (generated from the flag table), in field order. */
static const struct {
	enum mcinit_field f;
	unsigned versions;
	const char *text;
} vdefs[] = {
#define MCINIT_FIELD_VDEF(id, versions, text) {MCINIT_F_##id, versions, text},
#include "config/fields.inc"
#undef MCINIT_FIELD_VDEF
};

/* Field f's default text in release v, its rows of vdefs from lo on. */
static const char *
vdef_text(size_t lo, enum mcinit_field f, unsigned v)
{
	for (; lo < sizeof vdefs / sizeof vdefs[0] && vdefs[lo].f == f; lo++)
		if (vdefs[lo].versions & v)
			return vdefs[lo].text;
	return mcinit_fields[f].def;
}

const char *
mcinit_field_default_text(enum mcinit_field f, unsigned v)
{
	size_t lo = 0, hi = sizeof vdefs / sizeof vdefs[0];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vdefs[mid].f < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return vdef_text(lo, f, v);
}

void
mcinit_value_copy(struct mcinit_value *dst, const struct mcinit_value *src)
{
	size_t i;

	*dst = *src;
	if (src->s)
		dst->s = mcinit_xstrdup(src->s);
	if (src->j)
		json_incref(src->j);
	if (src->items) {
		dst->items = mcinit_xcalloc(src->n ? src->n : 1, sizeof *dst->items);
		for (i = 0; i < src->n; i++)
			mcinit_value_copy(&dst->items[i], &src->items[i]);
	}
}

bool
mcinit_value_equal(const struct mcinit_value *a, const struct mcinit_value *b)
{
	size_t i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case MCINIT_V_BOOL:
	case MCINIT_V_INT:
		return a->i == b->i;
	case MCINIT_V_FLOAT:
		/* bit for bit: -0.0 is not 0.0 to a check that prints it */
		return memcmp(&a->d, &b->d, sizeof a->d) == 0;
	case MCINIT_V_STR:
		return a->s == b->s || (a->s != NULL && b->s != NULL && strcmp(a->s, b->s) == 0);
	case MCINIT_V_LIST:
		if (a->n != b->n)
			return false;
		for (i = 0; i < a->n; i++)
			if (!mcinit_value_equal(&a->items[i], &b->items[i]))
				return false;
		return true;
	case MCINIT_V_JSON:
		return json_equal(a->j, b->j) != 0;
	case MCINIT_V_NULL:
	default:
		return true;
	}
}

/* Default text def of field f as a value into *out (zeroed before). */
static void
convert_default(enum mcinit_field f, const char *def, struct mcinit_value *out)
{
	json_t *j = def ? default_json(def) : NULL;
	const char *code;
	char *why = NULL;

	/* A default the type does not take is a bug of the generator or of
	 * schema.def, which test-config's every-default property catches; at
	 * run time the field starts null. */
	if (j != NULL && mcinit_value_from_json(f, j, out, &code, &why) < 0) {
		free(why);
		memset(out, 0, sizeof *out);
	}
	json_decref(j);
}

/* The defaults of one version, converted once per process.  Threads that
 * start jobs at once share the table, hence the lock around its filling. */
static const struct mcinit_value *
defaults_of(unsigned v)
{
	static struct mcinit_value *tmpl[MCINIT_MV_COUNT];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct mcinit_value *t;
	size_t k;
	int vi, i;

	for (vi = 0; vi < MCINIT_MV_COUNT && mcinit_mversion_at(vi) != v; vi++)
		;
	if (vi == MCINIT_MV_COUNT)
		vi = 0;
	pthread_mutex_lock(&lock);
	t = tmpl[vi];
	if (t != NULL)
		goto out;
	t = mcinit_xcalloc(MCINIT_F_COUNT, sizeof *t);
	for (i = 0, k = 0; i < MCINIT_F_COUNT; i++) {
		/* vdefs is in field order: walked beside the fields */
		while (k < sizeof vdefs / sizeof vdefs[0] && vdefs[k].f < (enum mcinit_field)i)
			k++;
		convert_default(i, vdef_text(k, i, v), &t[i]);
	}
	tmpl[vi] = t;
out:
	pthread_mutex_unlock(&lock);
	return t;
}

const struct mcinit_value *
mcinit_config_defaults(unsigned v)
{
	return defaults_of(v);
}

int
mcinit_field_default(enum mcinit_field f, unsigned v, struct mcinit_value *out, char **why)
{
	const char *def = mcinit_field_default_text(f, v);
	json_t *j = def ? default_json(def) : NULL;
	const char *code;
	int rc = 0;

	memset(out, 0, sizeof *out);
	*why = NULL;
	if (j != NULL)
		rc = mcinit_value_from_json(f, j, out, &code, why);
	json_decref(j);
	return rc;
}

/* ---- Megatron-Bridge releases ---- */

static const char *const bridge_releases[] = {
#define MCINIT_BRIDGE_RELEASE(name) name,
#include "config/fields.inc"
#undef MCINIT_BRIDGE_RELEASE
};
#define NBRIDGE (sizeof bridge_releases / sizeof bridge_releases[0])

/* The Bridge fields that some release lacks, with the releases they are in. */
static const struct {
	enum mcinit_field f;
	unsigned mask;
} bridge_only[] = {
#define MCINIT_FIELD_BRIDGE(id, mask) {MCINIT_F_##id, mask},
#include "config/fields.inc"
#undef MCINIT_FIELD_BRIDGE
};

int
mcinit_bversion_parse(const char *s, unsigned *out)
{
	size_t i;

	s = mcinit_version_skip_v(s, NULL);
	for (i = 0; i < NBRIDGE; i++) {
		/* "0.6" is the newest 0.6.x known: 0.6.2 reads as it */
		if (mcinit_version_under(s, bridge_releases[i])) {
			*out = 1u << i;
			return 0;
		}
	}
	return -1;
}

unsigned
mcinit_bversion_default(void)
{
	return NBRIDGE > 1 ? 1u << (NBRIDGE - 2) : 1u;
}

const char *
mcinit_bversion_name(unsigned v)
{
	size_t i;

	for (i = 0; i < NBRIDGE; i++)
		if (v == 1u << i)
			return bridge_releases[i];
	return "?";
}

const char *
mcinit_bversion_list(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < NBRIDGE && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
		                        bridge_releases[i]);
	return buf;
}

/* Each field's Bridge releases (-1: every release has it), set once per
 * process: asked of every field each time a config is written out, and of
 * every field a Bridge check reads. */
static long long bridge_masks[MCINIT_F_COUNT];
static pthread_once_t bridge_masks_once = PTHREAD_ONCE_INIT;

static void
fill_bridge_masks(void)
{
	size_t i;

	for (i = 0; i < MCINIT_F_COUNT; i++)
		bridge_masks[i] = -1;
	/* the first row of a field is the one that counts */
	for (i = sizeof bridge_only / sizeof bridge_only[0]; i-- > 0;)
		bridge_masks[bridge_only[i].f] = bridge_only[i].mask;
}

bool
mcinit_field_in_bridge(enum mcinit_field f, unsigned v)
{
	pthread_once(&bridge_masks_once, fill_bridge_masks);
	return bridge_masks[f] < 0 || (bridge_masks[f] & v) != 0;
}

void
mcinit_config_init(struct mcinit_config *c, unsigned mversion)
{
	const struct mcinit_value *d = defaults_of(mversion);
	int i;

	memset(c, 0, sizeof *c);
	c->mversion = mversion;
	c->bversion = mcinit_bversion_default();
	c->mentry = mcinit_mentry_default();
	c->env_vars = json_object();
	c->extras = json_object();
	c->sections = json_object();
	for (i = 0; i < MCINIT_F_COUNT; i++)
		mcinit_value_copy(&c->val[i], &d[i]);
}

static const struct {
	enum mcinit_field f;
	const char *def;
} bridge_defaults[] = {
#define MCINIT_FIELD_BDEF(id, def) {MCINIT_F_##id, def},
#include "config/fields.inc"
#undef MCINIT_FIELD_BDEF
};

#define NBRIDGE_DEFAULTS (sizeof bridge_defaults / sizeof bridge_defaults[0])

/* Bridge's defaults as values, converted once per process (every Bridge
 * config starts from ~800 of them); ok: the conversion took it (a default
 * mcinit's type or range refuses, num_layers 0, is left as it is: Bridge
 * fails on it too). */
static struct {
	bool ok;
	struct mcinit_value v;
} bridge_values[NBRIDGE_DEFAULTS];
static pthread_once_t bridge_values_once = PTHREAD_ONCE_INIT;

static void
convert_bridge_defaults(void)
{
	size_t i;

	for (i = 0; i < NBRIDGE_DEFAULTS; i++) {
		json_t *j = default_json(bridge_defaults[i].def);
		const char *code;
		char *why = NULL, *note = NULL;

		bridge_values[i].ok =
		    j != NULL &&
		    mcinit_value_from_json_py(bridge_defaults[i].f, j, true, &bridge_values[i].v,
		                              &code, &why, &note) == 0;
		free(why);
		free(note);
		json_decref(j);
	}
}

void
mcinit_config_bridge_container(struct mcinit_config *c)
{
	size_t i;

	if (c->bridge)
		return;
	c->bridge = true;
	pthread_once(&bridge_values_once, convert_bridge_defaults);
	for (i = 0; i < NBRIDGE_DEFAULTS; i++) {
		enum mcinit_field f = bridge_defaults[i].f;

		if (c->origin[f] == MCINIT_ORIG_DEFAULT && bridge_values[i].ok) {
			mcinit_value_clear(&c->val[f]);
			mcinit_value_copy(&c->val[f], &bridge_values[i].v);
		}
	}
}

bool
mcinit_config_section_set(const struct mcinit_config *c, const char *sec)
{
	json_t *s = json_object_get(c->sections, sec);
	const struct mcinit_section_info *si;

	if (s != NULL)
		return strcmp(json_string_value(s), "null") != 0;
	si = mcinit_section_find(sec);
	return si != NULL && si->kind != MCINIT_SK_OPTIONAL;
}

void
mcinit_config_destroy(struct mcinit_config *c)
{
	size_t i;

	for (i = 0; i < MCINIT_F_COUNT; i++)
		mcinit_value_clear(&c->val[i]);
	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	json_decref(c->env_vars);
	json_decref(c->extras);
	json_decref(c->sections);
	for (i = 0; i < c->njob_env; i++) {
		free(c->job_env[i].name);
		free(c->job_env[i].value);
	}
	free(c->job_env);
	free(c->launch_source);
	free(c->script_args);
	/* what it owned, forgotten (a second destroy does nothing); not the
	 * whole struct, ~100 KB that a job zeroes again when it starts */
	c->names = NULL;
	c->nnames = 0;
	c->env_vars = c->extras = c->sections = NULL;
	c->job_env = NULL;
	c->njob_env = 0;
	c->launch_source = NULL;
	c->script_args = NULL;
}

int
mcinit_config_job_env(const struct mcinit_config *c, const char *name, const char **value,
                      const struct mcinit_loc **loc)
{
	for (size_t i = 0; i < c->njob_env; i++) {
		if (strcmp(c->job_env[i].name, name) != 0)
			continue;
		*value = c->job_env[i].value;
		if (loc != NULL)
			*loc = &c->job_env[i].loc;
		return 1;
	}
	return 0;
}

struct mcinit_loc
mcinit_config_source(struct mcinit_config *c, const char *name)
{
	struct mcinit_loc l = {0};
	size_t i;

	for (i = 0; i < c->nnames && strcmp(c->names[i], name) != 0; i++)
		;
	if (i == c->nnames) {
		c->names = mcinit_xrealloc(c->names, (c->nnames + 1) * sizeof *c->names);
		c->names[c->nnames++] = mcinit_xstrdup(name);
	}
	l.source = c->names[i];
	l.order = ++c->nsources;
	return l;
}

bool
mcinit_cfg_null(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_NULL;
}

long long
mcinit_cfg_int(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].i;
}

double
mcinit_cfg_float(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_INT ? (double)c->val[f].i : c->val[f].d;
}

bool
mcinit_cfg_bool(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_BOOL && c->val[f].i;
}

const char *
mcinit_cfg_str(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->val[f].kind == MCINIT_V_STR ? c->val[f].s : NULL;
}

const struct mcinit_value *
mcinit_cfg_val(const struct mcinit_config *c, enum mcinit_field f)
{
	return &c->val[f];
}

static void
set_where(struct mcinit_config *c, enum mcinit_field f, enum mcinit_origin o,
          const struct mcinit_loc *loc)
{
	c->origin[f] = o;
	if (loc != NULL)
		c->loc[f] = *loc;
	else
		memset(&c->loc[f], 0, sizeof c->loc[f]);
}

void
mcinit_cfg_set_int(struct mcinit_config *c, enum mcinit_field f, long long v, enum mcinit_origin o,
                   const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_INT;
	c->val[f].i = v;
	set_where(c, f, o, loc);
}

void
mcinit_cfg_set_bool(struct mcinit_config *c, enum mcinit_field f, bool v, enum mcinit_origin o,
                    const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_BOOL;
	c->val[f].i = v;
	set_where(c, f, o, loc);
}

void
mcinit_cfg_set_str(struct mcinit_config *c, enum mcinit_field f, const char *v,
                   enum mcinit_origin o, const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_STR;
	c->val[f].s = mcinit_xstrdup(v);
	set_where(c, f, o, loc);
}

void
mcinit_config_set_raw(struct mcinit_config *c, enum mcinit_field f, json_t *j, enum mcinit_origin o,
                      const struct mcinit_loc *loc)
{
	mcinit_value_clear(&c->val[f]);
	c->val[f].kind = MCINIT_V_JSON;
	c->val[f].j = json_incref(j);
	set_where(c, f, o, loc);
	c->invalid[f] = false;
}

int
mcinit_config_set_json(struct mcinit_config *c, enum mcinit_field f, json_t *j,
                       enum mcinit_origin o, const struct mcinit_loc *loc, struct mcinit_diags *d)
{
	struct mcinit_value v;
	const char *code;
	char *why, *note, key[128];
	struct mcinit_diag *g;

	if (j == NULL) {
		/* The only way a loader has no JSON for a word: bytes that are
		 * not UTF-8 (jansson refuses them). */
		c->invalid[f] = true;
		mcinit_field_key(f, key, sizeof key);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC004", loc, "%s: value is not valid UTF-8",
		                    key);
		mcinit_diag_key(g, key);
		return -1;
	}
	if (mcinit_value_from_json_py(f, j, o == MCINIT_ORIG_FILE || o == MCINIT_ORIG_OVERRIDE, &v,
	                              &code, &why, &note) == 0) {
		mcinit_value_clear(&c->val[f]);
		c->val[f] = v;
		set_where(c, f, o, loc);
		c->invalid[f] = false;
		if (note != NULL) {
			mcinit_field_key(f, key, sizeof key);
			mcinit_diag_key(
			    mcinit_diag_add(d, MCINIT_WARNING, "MC004", loc, "%s", note), key);
			free(note);
		}
		return 0;
	}
	c->invalid[f] = true;
	mcinit_field_key(f, key, sizeof key);
	g = mcinit_diag_add(d, MCINIT_ERROR, code, loc, "%s: %s", key, why);
	mcinit_diag_key(g, key);
	if (strcmp(code, "MC004") == 0 && json_is_string(j) &&
	    mcinit_field_type(f)->alt[0].base == MCINIT_B_BOOL) {
		/* The type=bool trap in JSON: a string where a bool belongs. */
		int b = mcinit_bool_word(json_string_value(j));

		mcinit_diag_hint(
		    g,
		    "write %s without quotes; a string is not a boolean (Python's "
		    "bool('%s') is %s, so Megatron-LM <= core_r0.16 would read it as %s)",
		    b == 0 ? "false" : "true", json_string_value(j),
		    *json_string_value(j) ? "True" : "False",
		    *json_string_value(j) ? "TRUE" : "FALSE");
	}
	free(why);
	return -1;
}

void
mcinit_config_finish(struct mcinit_config *c, struct mcinit_diags *d)
{
	char key[128];
	struct mcinit_buf unseen = {0};
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		struct mcinit_diag *g;

		if (mcinit_fields[i].def != NULL || !mcinit_cfg_null(c, i) || c->runtime[i])
			continue;
		c->invalid[i] = true;
		if (c->flags_unread || c->flags_partial) { /* what was not read may set it */
			mcinit_field_key(i, key, sizeof key);
			mcinit_buf_printf(&unseen, "%s%s", unseen.len ? ", " : "", key);
			continue;
		}
		mcinit_field_key(i, key, sizeof key);
		g = mcinit_diag_add(d, MCINIT_ERROR, "MC008", NULL, "required field %s is not set",
		                    key);
		mcinit_diag_key(g, key);
		if (mcinit_fields[i].flags)
			mcinit_diag_hint(g, "set \"%s\" in the \"%s\" section, or pass %s N",
			                 mcinit_fields[i].name, mcinit_fields[i].section,
			                 mcinit_fields[i].flags);
		else
			mcinit_diag_hint(g, "set \"%s\" in the \"%s\" section",
			                 mcinit_fields[i].name, mcinit_fields[i].section);
	}
	if (unseen.len > 0)
		mcinit_diag_add(d, MCINIT_WARNING, "MC009", NULL,
		                "required fields not checked (%s): %s", mcinit_buf_cstr(&unseen),
		                c->flags_unread ? "the launch's flags hold words from a sourced "
		                                  "file mcinit could not read"
		                                : "mcinit stopped reading the launch script early, "
		                                  "so flags may be missing");
	mcinit_buf_free(&unseen);
}

/* Whether any field of sec holds a value that is not its default (a
 * Megatron-LM flag may set a field of an optional section: --bf16). */
static bool
section_written(const struct mcinit_config *c, const char *sec)
{
	int f;

	for (f = 0; f < MCINIT_F_COUNT; f++)
		if (c->origin[f] != MCINIT_ORIG_DEFAULT &&
		    strcmp(mcinit_fields[f].section, sec) == 0)
			return true;
	return false;
}

json_t *
mcinit_config_to_json(const struct mcinit_config *c)
{
	json_t *root = json_object(), *extra, *obj = NULL;
	const char *sec, *last = NULL;
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		/* what the Bridge release checked against would refuse */
		if (!mcinit_field_in_bridge(i, c->bversion))
			continue;
		/* a section's fields mostly follow one another: its object is
		 * looked up when the section changes (the table's names are
		 * ASCII: no UTF-8 check of each key) */
		sec = mcinit_fields[i].section;
		if (sec != last && (obj = json_object_get(root, sec)) == NULL) {
			obj = json_object();
			json_object_set_new_nocheck(root, sec, obj);
		}
		last = sec;
		json_object_set_new_nocheck(obj, mcinit_fields[i].name,
		                            mcinit_value_to_json(&c->val[i]));
	}
	json_object_foreach(c->extras, sec, extra)
	{
		json_t *s = json_object_get(root, sec);

		if (json_is_string(extra)) { /* a preset name: mixed_precision */
			json_object_set(root, sec, extra);
			continue;
		}
		if (s == NULL) {
			s = json_object();
			json_object_set_new(root, sec, s);
		}
		json_object_update(s, extra);
	}
	json_object_set(root, "env_vars", c->env_vars);
	/* Bridge's optional sections that are None (peft, profiling, ...) print
	 * as null, not as their fields' defaults: a section that is there is
	 * one Bridge acts on (a peft section asks for a pretrained checkpoint) */
	for (i = 0; i < (int)mcinit_nsections; i++)
		if (mcinit_sections[i].kind == MCINIT_SK_OPTIONAL &&
		    !mcinit_config_section_set(c, mcinit_sections[i].name) &&
		    !section_written(c, mcinit_sections[i].name))
			json_object_set_new(root, mcinit_sections[i].name, json_null());
	/* a ConfigContainer stays one (its defaults are Bridge's): the root's
	 * _target_, as Bridge's to_yaml writes it */
	if (c->bridge)
		json_object_set_new(root, "_target_",
		                    json_string("megatron.bridge.training.config.ConfigContainer"));
	return root;
}

const struct mcinit_code_doc mcinit_input_codes[] = {
    {"MC001", MCINIT_ERROR,
     "a boolean flag that Megatron-LM <= core_r0.16 declares type=bool was given a value: "
     "argparse calls bool(word), so every non-empty word, `False` included, is True (error "
     "for a false-looking word, warning for a true-looking one, note for '')",
     "--lazy-mpu-init False", "omit the flag to keep it off; write it alone to turn it on"},
    {"MC002", MCINIT_WARNING,
     "a Python argparse definition uses type=bool, so `--flag False` sets it to True",
     "parser.add_argument(\"--x\", type=bool)",
     "use action=\"store_true\" or argparse.BooleanOptionalAction"},
    {"MC003", MCINIT_ERROR,
     "unknown section, key, override or Megatron-LM flag (with a did-you-mean suggestion); "
     "a warning in a Megatron-Bridge ConfigContainer where Bridge's loader drops the key "
     "itself (every class but those whose constructor takes **kwargs, such as "
     "GPTDatasetConfig)",
     "{\"model\": {\"tensor_model_paralel_size\": 2}}",
     "correct the spelling, or check --megatron-version"},
    {"MC004", MCINIT_ERROR,
     "a value of the wrong type (the message lists every accepted form of a union type); for "
     "a Megatron-LM flag, what its argparse type, nargs and choices refuse, worded as argparse "
     "words it",
     "--lr abc", "write the value in one of the accepted forms"},
    {"MC005", MCINIT_ERROR,
     "a value out of range or not one of the allowed choices, or a `_target_` Megatron-Bridge "
     "refuses to instantiate (outside its allow-list, deny-listed, or a private path)",
     "\"tensor_model_parallel_size\": 0", "use a value inside the documented range"},
    {"MC006", MCINIT_ERROR, "a JSON object has the same key twice",
     "{\"num_layers\": 4, \"num_layers\": 8}", "keep one copy"},
    {"MC007", MCINIT_NOTE, "a deprecated or alternative spelling was read as its current name",
     "\"dist\": {\"lazy_init\": true}", "use the current name"},
    {"MC008", MCINIT_ERROR, "a required field is not set", "no num_layers anywhere",
     "set it in the config or with its Megatron-LM flag"},
    {"MC009", MCINIT_NOTE,
     "a launch-script word could not be expanded (a variable the script never sets, a "
     "command substitution that runs a program), what mcinit assumed of a launch script "
     "(no script arguments, which launch is checked, no launch found), or a YAML "
     "interpolation is evaluated only when Bridge runs (`${oc.env:...}`, resolvers) or "
     "was resolved against mcinit's own value; an unknown value is not checked",
     "--num-workers $(nproc)",
     "nothing to fix; check that value by hand, or give the script its arguments with "
     "--script-args"},
};
const size_t mcinit_ninput_codes = sizeof mcinit_input_codes / sizeof mcinit_input_codes[0];
