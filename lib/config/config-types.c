/* config-types.c — the field types: a schema type text ("int|list[str]")
 * parsed into its alternatives, once per process for every field.  See
 * config.h (struct mcinit_type) and config-impl.h. */
#include "config/config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config-impl.h"

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
void
mcinit_config_parse_type(const char *text, struct mcinit_type *t)
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
		const char *text = mcinit_field_s(i, type_text);
		size_t h = ((uintptr_t)text >> 3) % (sizeof seen / sizeof seen[0]);

		if (seen[h].text == text) {
			field_types[i] = field_types[seen[h].f];
			continue;
		}
		mcinit_config_parse_type(text, &field_types[i]);
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
