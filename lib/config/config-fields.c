/* config-fields.c — the field universe: mcinit_fields and the sections
 * (generated into fields.inc from schema.def and the facts), and the
 * lookups of a field by key, bare name, Megatron-LM dest or flag.  See
 * config.h. */
#include "config/config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char mcinit_field_text[] =
#define MCINIT_FIELD_TEXT(s) s
#include "config/fields.inc"
#undef MCINIT_FIELD_TEXT
    ;

const struct mcinit_field_info mcinit_fields[MCINIT_F_COUNT] = {
#define MCINIT_FIELD_OFFS(id, sec, name, type, def, flags, lo, hi, choices, help, aliases, dest,   \
                          origin)                                                                  \
	[MCINIT_F_##                                                                               \
	    id] = {sec, name, type, def, flags, lo, hi, choices, help, aliases, dest, origin},
#include "config/fields.inc"
#undef MCINIT_FIELD_OFFS
};

/* The strings of the four lookups below, which hold offsets into it, not
 * pointers: nothing in them is relocated when the program starts, so only
 * the pages a lookup reads are ever touched (gen-tables.py's Blob). */
static const char strs[] =
#define MCINIT_FIELD_STR(s) s
#include "config/fields.inc"
#undef MCINIT_FIELD_STR
    ;
/* (a field's number fits the lookups' unsigned short) */
_Static_assert(MCINIT_F_COUNT <= 0xffff, "more fields than an unsigned short numbers");

/* "section.name" (and alias keys) -> field, sorted bytewise; hashed. */
static const struct {
	uint32_t key; /* in strs */
	unsigned short f;
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
	uint32_t name; /* in strs */
	unsigned short f;
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
	uint32_t dest; /* in strs */
	unsigned short f;
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
	uint32_t dest; /* in strs */
	unsigned short f;
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

const char *
mcinit_field_key(enum mcinit_field f, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s", mcinit_field_s(f, section), mcinit_field_s(f, name));
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
		if (key_cmp(section, name, strs + keys[key_hash[h]].key) != 0)
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
	i = mcinit_hash_find_blob(name_hash, sizeof name_hash / sizeof name_hash[0], names,
	                          sizeof names[0], offsetof(__typeof__(names[0]), name), strs,
	                          name);
	return i < 0 ? -1 : (int)names[i].f;
}

int
mcinit_fields_by_dest(const char *dest, enum mcinit_field *out, int max)
{
	long i = mcinit_hash_find_blob(dest_hash, sizeof dest_hash / sizeof dest_hash[0], dests,
	                               sizeof dests[0], offsetof(__typeof__(dests[0]), dest), strs,
	                               dest);
	size_t lo = i < 0 ? ndests : (size_t)i;
	int n = 0;

	for (; lo < ndests && strcmp(strs + dests[lo].dest, dest) == 0 && n < max; lo++)
		out[n++] = dests[lo].f;
	return n;
}

int
mcinit_field_by_dest_column(const char *dest)
{
	size_t nslots = sizeof dest_column_hash / sizeof dest_column_hash[0];
	long i = mcinit_hash_find_blob(dest_column_hash, nslots, dest_column, sizeof dest_column[0],
	                               offsetof(__typeof__(dest_column[0]), dest), strs, dest);

	return i < 0 ? -1 : (int)dest_column[i].f;
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
	return mcinit_fields_by_dest(mcinit_mstr(m->dest), &f, 1) == 1 ? (int)f : -1;
}
