/*
 * words.c — the closed sets of names the program's options take and its
 * completion offers (mcx_word and the rest, declared in the tool header):
 * Megatron-LM's releases and entry points, Megatron-Bridge's releases, the
 * rank group kinds, what an input's name ends with and the documented
 * codes; and the completion of an override word and of Megatron-LM's flags,
 * from the field table and the flag table.
 */
#include "doc.h"

#include <limits.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "core/versions.h"
#include "plan/plan.h" /* mcinit_input_suffixes */
#include "topo/topology.h"

/* The i-th release of the version table that its own parser accepts
 * (completion offers nothing --megatron-version would refuse). */
static const char *
megatron_version_at(size_t i)
{
	unsigned v, bit;

	for (v = 0; v < 32; v++) {
		const char *name = mcinit_mversion_name(1u << v);

		if (strcmp(name, "?") == 0 || mcinit_mversion_parse(name, &bit) < 0)
			continue;
		if (i-- == 0)
			return name;
	}
	return NULL;
}

const char *
mcx_word(enum mcx_words set, size_t i)
{
	switch (set) {
	case MCX_WORDS_MEGATRON_VERSION:
		return megatron_version_at(i);
	case MCX_WORDS_ENTRY_POINT:
		return i < MCINIT_ME_COUNT ? mcinit_mentry_name(1u << i) : NULL;
	case MCX_WORDS_BRIDGE_VERSION:
		/* a release pins a core release: the table ends where that does */
		return i < 32 && mcinit_bversion_core(1u << i) != NULL
		           ? mcinit_bversion_name(1u << i)
		           : NULL;
	case MCX_WORDS_GROUP_KIND:
		return i < MCINIT_GROUP_COUNT ? mcinit_group_kind_name((enum mcinit_group_kind)i)
		                              : NULL;
	case MCX_WORDS_INPUT_SUFFIX: {
		size_t k;

		for (k = 0; k < i && mcinit_input_suffixes[k] != NULL; k++)
			;
		return mcinit_input_suffixes[k];
	}
	case MCX_WORDS_CODE:
		return mcinit_doc_code_name(i);
	}
	return NULL;
}

int
mcx_word_parse(enum mcx_words set, const char *s)
{
	unsigned bit;

	switch (set) {
	case MCX_WORDS_MEGATRON_VERSION:
		return mcinit_mversion_parse(s, &bit);
	case MCX_WORDS_ENTRY_POINT:
		return mcinit_mentry_parse(s, &bit);
	case MCX_WORDS_BRIDGE_VERSION:
		return mcinit_bversion_parse(s, &bit);
	default:
		return -1;
	}
}

const char *
mcx_word_list(enum mcx_words set, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	buf[0] = '\0';
	switch (set) {
	case MCX_WORDS_MEGATRON_VERSION:
		mcinit_mversion_list(MCINIT_MV_ALL, buf, len > UINT_MAX ? UINT_MAX : (unsigned)len);
		break;
	case MCX_WORDS_ENTRY_POINT:
		mcinit_mentry_list(MCINIT_ME_ALL, buf, len > UINT_MAX ? UINT_MAX : (unsigned)len);
		break;
	case MCX_WORDS_BRIDGE_VERSION:
		mcinit_bversion_list(buf, len);
		break;
	default:
		break;
	}
	return buf;
}

const char *
mcx_word_names(enum mcx_words set)
{
	switch (set) {
	case MCX_WORDS_MEGATRON_VERSION:
		return MCINIT_MVERSION_NAMES; /* generated beside the version table */
	case MCX_WORDS_ENTRY_POINT:
		return MCINIT_MENTRY_NAMES;
	default:
		return NULL;
	}
}

const char *
mcx_word_default(enum mcx_words set)
{
	switch (set) {
	case MCX_WORDS_MEGATRON_VERSION:
		return MCINIT_MVERSION_DEFAULT_NAME;
	case MCX_WORDS_ENTRY_POINT:
		return mcinit_mentry_name(mcinit_mentry_default());
	case MCX_WORDS_BRIDGE_VERSION:
		return mcinit_bversion_name(mcinit_bversion_default());
	default:
		return NULL;
	}
}

bool
mcx_is_version(const char *s)
{
	int c;

	return mcinit_version_cmp(s, s, &c) >= 0;
}

/* ---- completion ---- */

typedef void offer_fn(const char *cand, const char *cur);

/* `prefix` + each `sep`-separated word of list. */
static void
offer_words(const char *prefix, const char *list, char sep, const char *cur, offer_fn *offer)
{
	char buf[256];

	while (list && *list) {
		size_t n = strcspn(list, (char[]){sep, '\0'});

		snprintf(buf, sizeof buf, "%s%.*s", prefix, (int)n, list);
		offer(buf, cur);
		list += n + (list[n] == sep);
	}
}

/* `section.field=VALUE` while VALUE is typed: the values the field's type
 * has a name for.  False when cur names no field. */
static bool
offer_field_values(const char *cur, offer_fn *offer)
{
	const char *eq = strchr(cur, '='), *dot = memchr(cur, '.', (size_t)(eq - cur));
	const struct mcinit_type *t;
	char sec[96], name[96], prefix[200];
	int f, a;

	if (dot == NULL || (size_t)(dot - cur) >= sizeof sec || (size_t)(eq - dot) > sizeof name)
		return false;
	snprintf(sec, sizeof sec, "%.*s", (int)(dot - cur), cur);
	snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
	if ((f = mcinit_field_lookup(sec, name)) < 0)
		return false;
	snprintf(prefix, sizeof prefix, "%.*s", (int)(eq + 1 - cur), cur);
	t = mcinit_field_type(f);
	for (a = 0; a < t->nalt; a++) {
		switch (t->alt[a].base) {
		case MCINIT_B_BOOL:
			offer_words(prefix, "true|false", '|', cur, offer);
			break;
		case MCINIT_B_NULL:
			offer_words(prefix, "null", '|', cur, offer);
			break;
		case MCINIT_B_DTYPE:
			offer_words(prefix, "fp32|fp16|bf16", '|', cur, offer);
			break;
		case MCINIT_B_ENUM:
		case MCINIT_B_STR:
			if (!t->alt[a].list)
				offer_words(prefix, mcinit_field_s(f, choices), '|', cur, offer);
			break;
		default:
			break;
		}
	}
	return true;
}

/* `section.field=` for every field and alias; sections first while no dot. */
static void
offer_keys(const char *cur, offer_fn *offer)
{
	char buf[160];
	size_t k;
	int f;

	if (strchr(cur, '.') == NULL) {
		for (k = 0; k < mcinit_nsections; k++) {
			if (mcinit_sections[k].kind == MCINIT_SK_MAP)
				continue;
			snprintf(buf, sizeof buf, "%s.", mcinit_sections[k].name);
			offer(buf, cur);
		}
		return;
	}
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const char *p = mcinit_field_s(f, aliases);

		snprintf(buf, sizeof buf, "%s.%s=", mcinit_field_s(f, section),
		         mcinit_field_s(f, name));
		offer(buf, cur);
		while (p && *p) {
			size_t n = strcspn(p, "|");

			snprintf(buf, sizeof buf, "%.*s=", (int)n, p);
			offer(buf, cur);
			p += n + (p[n] == '|');
		}
	}
}

bool
mcx_complete_override(const char *cur, offer_fn *offer)
{
	/* a known key's value is being typed */
	if (strchr(cur, '=') != NULL && offer_field_values(cur, offer))
		return true;
	offer_keys(cur, offer);
	return false;
}

/* The parser of a release and entry point named as the options name them,
 * as an MCINIT_MPARSER key (the defaults for NULL or an unknown name). */
static unsigned
megatron_parser(const char *version, const char *entry)
{
	unsigned v = mcinit_mversion_default(), e = mcinit_mentry_default(), bit;

	if (version != NULL && mcinit_mversion_parse(version, &bit) == 0)
		v = bit;
	if (entry != NULL && mcinit_mentry_parse(entry, &bit) == 0)
		e = bit;
	return MCINIT_MPARSER(v, e);
}

void
mcx_complete_megatron_flag(const char *version, const char *entry, const char *cur, offer_fn *offer)
{
	mcinit_mflag_each(megatron_parser(version, entry), cur, offer);
}

void
mcx_complete_megatron_value(const char *version, const char *entry, const char *flag,
                            const char *cur, offer_fn *offer)
{
	const struct mcinit_mflag *m;
	int negated = 0;

	if ((m = mcinit_mflag_find(flag, megatron_parser(version, entry), &negated)) == NULL)
		return;
	if (mcinit_mstr(m->choices) != NULL && !negated)
		offer_words("", mcinit_mstr(m->choices), ',', cur, offer);
}
