/* mflags.c — see mflags.h. */
#include "config/mflags.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "core/versions.h"

/* The rows' strings: table holds offsets into it (mcinit_mstr). */
static const char mstrs[] =
#define MCINIT_MSTR(s) s
#include "config/mflags.inc"
#undef MCINIT_MSTR
    ;

const char *
mcinit_mstr(uint32_t off)
{
	return off == MCINIT_NOSTR ? NULL : mstrs + off;
}

static const struct mcinit_mflag table[] = {
#define MCINIT_MFLAG(f, d, k, n, v, c, t, def, e) {f, d, k, n, v, c, t, def, e},
#include "config/mflags.inc"
#undef MCINIT_MFLAG
};
static const size_t ntable = sizeof table / sizeof table[0];

/* flag -> its first row in table, hashed (mcinit_hash_find). */
static const unsigned short flag_hash[] = {
#define MCINIT_MFLAG_FLAG_HASH(i) i,
#include "config/mflags.inc"
#undef MCINIT_MFLAG_FLAG_HASH
};

/* The positions of the rows in table, sorted by dest (bytewise) and, within
 * a dest, in table order; and dest -> the first of its rows in by_dest,
 * hashed. */
static const unsigned short by_dest[] = {
#define MCINIT_MFLAG_DEST(i) i,
#include "config/mflags.inc"
#undef MCINIT_MFLAG_DEST
};
static const unsigned short dest_hash[] = {
#define MCINIT_MFLAG_DEST_HASH(i) i,
#include "config/mflags.inc"
#undef MCINIT_MFLAG_DEST_HASH
};

/* Whether row r is a flag of the parser `key` (see MCINIT_MPARSER). */
static bool
in_parser(const struct mcinit_mflag *r, unsigned key)
{
	unsigned entries = key >> MCINIT_MPARSER_SHIFT;

	return (r->versions & key & ((1u << MCINIT_MPARSER_SHIFT) - 1)) != 0 &&
	       (entries == 0 || (r->entries & entries) != 0);
}

/* The first row of flag (the table is sorted by flag, bytewise), ntable
 * when none. */
static size_t
first_of(const char *flag)
{
	long i = mcinit_hash_find_blob(flag_hash, sizeof flag_hash / sizeof flag_hash[0], table,
	                               sizeof table[0], offsetof(struct mcinit_mflag, flag), mstrs,
	                               flag);

	return i < 0 ? ntable : (size_t)i;
}

static const struct mcinit_mflag *
find_exact(const char *flag, unsigned version)
{
	size_t i;

	for (i = first_of(flag); i < ntable && strcmp(mstrs + table[i].flag, flag) == 0; i++)
		if (in_parser(&table[i], version))
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
	/* "--no-no-X": "--no-X" is X's own negative spelling (a row of the
	 * same dest as "--X"), for which argparse registers no negation */
	if (strncmp(buf, "--no-", 5) == 0) {
		const struct mcinit_mflag *x;
		char p[256];

		snprintf(p, sizeof p, "--%s", buf + 5);
		x = find_exact(p, version);
		if (x != NULL && strcmp(mstrs + x->dest, mstrs + pos->dest) == 0)
			return m;
	}
	if (negated)
		*negated = 1;
	return pos;
}

const struct mcinit_mflag *
mcinit_mflag_find_any(const char *flag)
{
	return mcinit_mflag_find(flag, MCINIT_MV_ALL, NULL);
}

const struct mcinit_mflag *
mcinit_mflag_by_dest(const char *dest, unsigned version)
{
	size_t n = sizeof by_dest / sizeof by_dest[0];
	size_t mask = sizeof dest_hash / sizeof dest_hash[0] - 1;
	size_t h = mcinit_fnv1a(MCINIT_FNV1A_INIT, dest) & mask, i;

	/* the first of dest's rows, then the first of them in `version` */
	for (; dest_hash[h] != MCINIT_HASH_EMPTY; h = (h + 1) & mask) {
		if (strcmp(mstrs + table[by_dest[dest_hash[h]]].dest, dest) != 0)
			continue;
		for (i = dest_hash[h]; i < n && strcmp(mstrs + table[by_dest[i]].dest, dest) == 0;
		     i++)
			if (in_parser(&table[by_dest[i]], version))
				return &table[by_dest[i]];
		return NULL;
	}
	return NULL;
}

const struct mcinit_mflag *
mcinit_mflag_table(unsigned *n)
{
	*n = (unsigned)ntable;
	return table;
}

void
mcinit_mflag_each(unsigned version, const char *arg, void (*fn)(const char *, const char *))
{
	size_t i;

	/* A flag has one row per version set, so one version meets each
	 * spelling once. */
	for (i = 0; i < ntable; i++)
		if (in_parser(&table[i], version))
			fn(mstrs + table[i].flag, arg);
}

int
mcinit_mflag_is_legacy_bool(const char *flag)
{
	size_t i;

	for (i = first_of(flag); i < ntable && strcmp(mstrs + table[i].flag, flag) == 0; i++)
		if (table[i].kind == MCINIT_MK_LEGACY_TYPE_BOOL)
			return 1;
	return 0;
}

/* Every row's suggestion key, and the rows by the length of their flag
 * (each length's in table order), made once per process: an unknown word
 * is compared with the flags of about its length only, the closest
 * lengths first (a fuzzer's command line has dozens of unknown words). */
#define MAXLEN 127 /* a longer flag is counted with this length's */
_Static_assert(sizeof table / sizeof table[0] < 65536, "a row's place fits in by_len");
static struct mcinit_suggest_key flag_keys[sizeof table / sizeof table[0]];
static unsigned short by_len[sizeof table / sizeof table[0]], len_start[MAXLEN + 2];
static pthread_once_t flag_keys_once = PTHREAD_ONCE_INIT;

static size_t
len_class(size_t len)
{
	return len < MAXLEN ? len : MAXLEN;
}

static void
make_flag_keys(void)
{
	unsigned short next[MAXLEN + 1];
	size_t i, l;

	memset(len_start, 0, sizeof len_start);
	for (i = 0; i < ntable; i++) {
		mcinit_suggest_key_of(mstrs + table[i].flag, &flag_keys[i]);
		len_start[len_class(flag_keys[i].len) + 1]++;
	}
	for (l = 1; l <= MAXLEN + 1; l++)
		len_start[l] += len_start[l - 1];
	memcpy(next, len_start, sizeof next);
	for (i = 0; i < ntable; i++)
		by_len[next[len_class(flag_keys[i].len)]++] = (unsigned short)i;
}

/* Tries the rows of one length class. */
static void
try_length(struct mcinit_suggestion *s, size_t l, unsigned version)
{
	size_t j;

	for (j = len_start[l]; j < len_start[l + 1]; j++) {
		size_t i = by_len[j];

		if (mcinit_suggestion_may(s, &flag_keys[i], i) && in_parser(&table[i], version))
			mcinit_suggestion_try(s, mstrs + table[i].flag, &flag_keys[i], i);
	}
}

const char *
mcinit_mflag_suggest(const char *flag, unsigned version)
{
	struct mcinit_suggestion s;
	size_t k, lw;

	pthread_once(&flag_keys_once, make_flag_keys);
	mcinit_suggestion_init(&s, flag);
	lw = len_class(s.key.len);
	/* a flag k longer or shorter is k edits away at least: none past
	 * the pick's distance can win */
	for (k = 0; k <= s.best && (k <= lw || lw + k <= MAXLEN); k++) {
		if (lw + k <= MAXLEN)
			try_length(&s, lw + k, version);
		if (k > 0 && k <= lw)
			try_length(&s, lw - k, version);
	}
	return s.pick;
}

static const struct {
	const char *name, *branch;
	bool dflt;
} versions[] = {
#define MCINIT_MVERSION(id, name, branch, commit, dflt) {name, branch, dflt},
#include "config/mversions.inc"
#undef MCINIT_MVERSION
};

int
mcinit_mversion_parse(const char *s, unsigned *out)
{
	char rel[32];
	int i, major, minor;

	/* A release number as pip shows it ("0.19.2", "v0.19.2", "core_v0.19.2"):
	 * the newest of that major.minor known, the branch it was cut from. */
	s = mcinit_version_skip_v(s, "core_");
	if (mcinit_version_major_minor(s, &major, &minor) == 0) {
		snprintf(rel, sizeof rel, "r%d.%d", major, minor);
		s = rel;
	}
	for (i = 0; i < MCINIT_MV_COUNT; i++) {
		if (strcmp(s, versions[i].name) == 0 || strcmp(s, versions[i].branch) == 0) {
			*out = 1u << i;
			return 0;
		}
	}
	return -1;
}

unsigned
mcinit_mversion_default(void)
{
	int i;

	for (i = 0; i < MCINIT_MV_COUNT && !versions[i].dflt; i++)
		;
	return 1u << i;
}

unsigned
mcinit_mversion_at(int i)
{
	return 1u << i;
}

static int
version_index(unsigned v)
{
	int i;

	for (i = 0; i < MCINIT_MV_COUNT; i++)
		if (v == 1u << i)
			return i;
	return -1;
}

const char *
mcinit_mversion_name(unsigned v)
{
	int i = version_index(v);

	return i < 0 ? "?" : versions[i].name;
}

const char *
mcinit_mversion_branch(unsigned v)
{
	int i = version_index(v);

	return i < 0 ? "?" : versions[i].branch;
}

/* "a, b, c": the names of the bits of mask, name(i) naming bit i < n. */
static void
list_names(unsigned mask, int n, const char *(*name)(int), char *buf, unsigned len)
{
	int i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if ((mask & (1u << i)) && off >= 0 && (unsigned)off < len)
			off += snprintf(buf + off, len - (unsigned)off, "%s%s", off ? ", " : "",
			                name(i));
}

static const char *
version_name_at(int i)
{
	return versions[i].name;
}

void
mcinit_mversion_list(unsigned mask, char *buf, unsigned len)
{
	list_names(mask, MCINIT_MV_COUNT, version_name_at, buf, len);
}

/* ---- entry points ---- */

static const char *const entry_names[] = {
#define MCINIT_MENTRY(id, name) name,
#include "config/mentries.inc"
#undef MCINIT_MENTRY
};

/* One script of an entry point on some versions, and what it defaults. */
static const struct {
	int entry;            /* enum mcinit_mentry_index */
	const char *script;   /* a file name, or a pattern with a '/' */
	const char *defaults; /* args_defaults as a JSON object */
	unsigned versions;
} entry_rows[] = {
#define MCINIT_MENTRY_ROW(e, script, defaults, v) {e, script, defaults, v},
#include "config/mentries.inc"
#undef MCINIT_MENTRY_ROW
};

int
mcinit_mentry_parse(const char *s, unsigned *out)
{
	size_t n = strlen(s);
	int i;

	/* "pretrain_vlm.py" names it as well: what users see in their scripts */
	if (n > 3 && strcmp(s + n - 3, ".py") == 0)
		n -= 3;
	for (i = 0; i < MCINIT_ME_COUNT; i++) {
		if (strlen(entry_names[i]) == n && strncmp(s, entry_names[i], n) == 0) {
			*out = 1u << i;
			return 0;
		}
	}
	return -1;
}

unsigned
mcinit_mentry_default(void)
{
	return MCINIT_ME_PRETRAINGPT;
}

const char *
mcinit_mentry_name(unsigned e)
{
	int i;

	for (i = 0; i < MCINIT_ME_COUNT; i++)
		if (e == 1u << i)
			return entry_names[i];
	return "?";
}

unsigned
mcinit_mentry_of_script(const char *word, unsigned version)
{
	const char *base = strrchr(word, '/');
	size_t i;

	base = base ? base + 1 : word;
	for (i = 0; i < sizeof entry_rows / sizeof entry_rows[0]; i++) {
		const char *pat = entry_rows[i].script;

		if (!(entry_rows[i].versions & version))
			continue;
		if (strchr(pat, '/') ? fnmatch(pat, word, 0) == 0 : strcmp(pat, base) == 0)
			return 1u << entry_rows[i].entry;
	}
	return 0;
}

const char *
mcinit_mentry_defaults(unsigned e, unsigned version)
{
	size_t i;

	for (i = 0; i < sizeof entry_rows / sizeof entry_rows[0]; i++)
		if (1u << entry_rows[i].entry == e && (entry_rows[i].versions & version))
			return entry_rows[i].defaults;
	return "{}";
}

void
mcinit_mentry_each(const char *arg, void (*fn)(const char *, const char *))
{
	int i;

	for (i = 0; i < MCINIT_ME_COUNT; i++)
		fn(entry_names[i], arg);
}

static const char *
entry_name_at(int i)
{
	return entry_names[i];
}

void
mcinit_mentry_list(unsigned mask, char *buf, unsigned len)
{
	list_names(mask, MCINIT_ME_COUNT, entry_name_at, buf, len);
}
