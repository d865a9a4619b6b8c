/*
 * mflags.h — the Megatron-LM flag table: every flag Megatron-LM's training
 * parser accepts, per version, with its argparse kind and arity.  Generated
 * from data/megatron-flags.tsv at build time (build-aux/gen-mflags.sh).
 * All returned pointers are to static data.
 */
#ifndef MCINIT_MFLAGS_H
#define MCINIT_MFLAGS_H

/* Megatron-LM versions, as bits so a row can name several. */
enum mcinit_mversion {
	MCINIT_MV_R015 = 1,
	MCINIT_MV_R016 = 2,
	MCINIT_MV_MAIN = 4,
};

enum mcinit_mkind {
	MCINIT_MK_STORE_TRUE,
	MCINIT_MK_STORE_FALSE,
	MCINIT_MK_VALUE,
	MCINIT_MK_LIST,
	MCINIT_MK_BOOLEAN_OPTIONAL, /* argparse.BooleanOptionalAction: --x / --no-x */
	MCINIT_MK_LEGACY_TYPE_BOOL, /* type=bool: one word, bool(word) */
};

struct mcinit_mflag {
	const char *flag, *dest;
	enum mcinit_mkind kind;
	int nargs; /* words taken: 0, 1, N; -1 = one or more ('+'), -2 = any ('*') */
	unsigned versions;
	const char *choices; /* comma-separated, or NULL */
};

/* The row for `flag` in `version`, or NULL.  "--no-X" finds a
 * boolean_optional "--X" (*negated set to 1). */
const struct mcinit_mflag *mcinit_mflag_find(const char *flag, unsigned version, int *negated);
/* Any version's row for `flag` (to say "only in r0.16"), or NULL. */
const struct mcinit_mflag *mcinit_mflag_find_any(const char *flag);
/* Closest known flag of `version`, for did-you-mean; NULL if none is close. */
const char *mcinit_mflag_suggest(const char *flag, unsigned version);
/* Calls fn(flag, arg) for every flag of one `version`. */
void mcinit_mflag_each(unsigned version, const char *arg, void (*fn)(const char *, const char *));
/* True when `flag` is declared type=bool in any version. */
int mcinit_mflag_is_legacy_bool(const char *flag);

/* "r0.15", "r0.16", "main" (also "core_r0.15"…) -> bit; -1 when unknown. */
int mcinit_mversion_parse(const char *s, unsigned *out);
const char *mcinit_mversion_name(unsigned v);
/* Comma-separated names of the versions in mask, e.g. "r0.15, r0.16". */
void mcinit_mversion_list(unsigned mask, char *buf, unsigned len);

#endif
