/* mflags.c — see mflags.h. */
#include "mflags.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

static const struct mcinit_mflag table[] = {
#define MCINIT_MFLAG(f, d, k, n, v, c) {f, d, k, n, v, c},
#include "mflags.inc"
#undef MCINIT_MFLAG
};
static const size_t ntable = sizeof table / sizeof table[0];

/* First row whose flag is >= key (the table is sorted by flag, bytewise). */
static size_t
lower_bound(const char *key)
{
	size_t lo = 0, hi = ntable;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(table[mid].flag, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct mcinit_mflag *
find_exact(const char *flag, unsigned version)
{
	size_t i;

	for (i = lower_bound(flag); i < ntable && strcmp(table[i].flag, flag) == 0; i++)
		if (table[i].versions & version)
			return &table[i];
	return NULL;
}

const struct mcinit_mflag *
mcinit_mflag_find(const char *flag, unsigned version, int *negated)
{
	const struct mcinit_mflag *m = find_exact(flag, version);
	char buf[256];

	const struct mcinit_mflag *pos;

	if (negated)
		*negated = 0;
	if (strncmp(flag, "--no-", 5) != 0)
		return m;
	/* BooleanOptionalAction: "--no-X" negates "--X" (the table may list the
	 * negative spelling as a row of its own, or not at all). */
	snprintf(buf, sizeof buf, "--%s", flag + 5);
	pos = find_exact(buf, version);
	if (pos == NULL || pos->kind != MCINIT_MK_BOOLEAN_OPTIONAL)
		return m;
	if (negated)
		*negated = 1;
	return pos;
}

const struct mcinit_mflag *
mcinit_mflag_find_any(const char *flag)
{
	return mcinit_mflag_find(flag, MCINIT_MV_R015 | MCINIT_MV_R016 | MCINIT_MV_MAIN, NULL);
}

void
mcinit_mflag_each(unsigned version, const char *arg, void (*fn)(const char *, const char *))
{
	size_t i;

	/* A flag has one row per version set, so one version meets each
	 * spelling once. */
	for (i = 0; i < ntable; i++)
		if (table[i].versions & version)
			fn(table[i].flag, arg);
}

int
mcinit_mflag_is_legacy_bool(const char *flag)
{
	size_t i;

	for (i = lower_bound(flag); i < ntable && strcmp(table[i].flag, flag) == 0; i++)
		if (table[i].kind == MCINIT_MK_LEGACY_TYPE_BOOL)
			return 1;
	return 0;
}

const char *
mcinit_mflag_suggest(const char *flag, unsigned version)
{
	const char *cands[sizeof table / sizeof table[0]];
	size_t i, n = 0;

	for (i = 0; i < ntable; i++)
		if (table[i].versions & version)
			cands[n++] = table[i].flag;
	return mcinit_suggest(flag, cands, n);
}

static const struct {
	const char *name;
	unsigned bit;
} versions[] = {
    {"r0.15", MCINIT_MV_R015},
    {"r0.16", MCINIT_MV_R016},
    {"main", MCINIT_MV_MAIN},
};

int
mcinit_mversion_parse(const char *s, unsigned *out)
{
	size_t i;

	if (strncmp(s, "core_", 5) == 0)
		s += 5;
	for (i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		if (strcmp(s, versions[i].name) == 0) {
			*out = versions[i].bit;
			return 0;
		}
	}
	return -1;
}

const char *
mcinit_mversion_name(unsigned v)
{
	size_t i;

	for (i = 0; i < sizeof versions / sizeof versions[0]; i++)
		if (versions[i].bit == v)
			return versions[i].name;
	return "?";
}

void
mcinit_mversion_list(unsigned mask, char *buf, unsigned len)
{
	size_t i;
	int off = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof versions / sizeof versions[0]; i++)
		if ((mask & versions[i].bit) && off >= 0 && (unsigned)off < len)
			off += snprintf(buf + off, len - (unsigned)off, "%s%s", off ? ", " : "",
			                versions[i].name);
}
