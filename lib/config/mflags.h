/*
 * mflags.h — the Megatron-LM flag table: every flag Megatron-LM's training
 * parser accepts, per version and entry point, with its argparse kind, type,
 * arity, choices and default; the table of Megatron-LM versions mcinit
 * knows; and the entry points (pretrain_gpt.py, pretrain_vlm.py, the
 * inference examples, ModelOpt ...), each of which hands the parser extra
 * flags (extra_args_provider) and defaults (args_defaults).  All are
 * generated at build time (build-aux/gen-tables.py) from
 * data/megatron-flags.tsv, data/megatron-versions.tsv,
 * data/megatron-entry-points.tsv and data/megatron-entry-flags.tsv.
 * All returned pointers are to static data.
 */
#ifndef MCINIT_MFLAGS_H
#define MCINIT_MFLAGS_H

#include <stdbool.h>
#include <stdint.h>

/* Positions in the version table (oldest first). */
enum mcinit_mversion_index {
#define MCINIT_MVERSION(id, name, branch, commit, dflt) MCINIT_MVI_##id,
#include "config/mversions.inc"
#undef MCINIT_MVERSION
	MCINIT_MV_COUNT
};

/* Megatron-LM versions, as bits so a row can name several.  Bits grow with
 * the version, so `v >= MCINIT_MV_R017` reads "r0.17 or newer". */
enum mcinit_mversion {
#define MCINIT_MVERSION(id, name, branch, commit, dflt) MCINIT_MV_##id = 1u << MCINIT_MVI_##id,
#include "config/mversions.inc"
#undef MCINIT_MVERSION
	MCINIT_MV_ALL = (1u << MCINIT_MV_COUNT) - 1,
};

/* Positions in the entry-point table (pretrain_gpt first, the default). */
enum mcinit_mentry_index {
#define MCINIT_MENTRY(id, name) MCINIT_MEI_##id,
#include "config/mentries.inc"
#undef MCINIT_MENTRY
	MCINIT_ME_COUNT
};

/* Entry points as bits, so that a flag row can name several. */
enum mcinit_mentry {
#define MCINIT_MENTRY(id, name) MCINIT_ME_##id = 1u << MCINIT_MEI_##id,
#include "config/mentries.inc"
#undef MCINIT_MENTRY
	MCINIT_ME_ALL = (1u << MCINIT_ME_COUNT) - 1,
};

/* A parser to look flags up in: a version mask and an entry-point mask in
 * one word.  A key with no entry-point bits (a plain version mask) sees the
 * flags of every entry point: "does this flag exist anywhere". */
#define MCINIT_MPARSER_SHIFT             16
#define MCINIT_MPARSER(version, entries) ((version) | (unsigned)(entries) << MCINIT_MPARSER_SHIFT)

enum mcinit_mkind {
	MCINIT_MK_STORE_TRUE,
	MCINIT_MK_STORE_FALSE,
	MCINIT_MK_VALUE,
	MCINIT_MK_LIST,
	MCINIT_MK_BOOLEAN_OPTIONAL, /* argparse.BooleanOptionalAction: --x / --no-x */
	MCINIT_MK_LEGACY_TYPE_BOOL, /* type=bool: one word, bool(word) */
};

/* The argparse `type=` of a value or list flag. */
enum mcinit_mtype {
	MCINIT_MT_STR, /* also no type= at all */
	MCINIT_MT_INT,
	MCINIT_MT_FLOAT,
	MCINIT_MT_BOOL,
	MCINIT_MT_ENUM,   /* an Enum's names: checked against choices */
	MCINIT_MT_CUSTOM, /* a parsing function of Megatron's own: not checked here */
};

/* A row's strings are offsets into one blob, read with mcinit_mstr: the
 * table's rows hold no pointer for the loader to relocate (and so write) at
 * every start of the program. */
struct mcinit_mflag {
	uint32_t flag, dest; /* mcinit_mstr */
	enum mcinit_mkind kind;
	int nargs; /* words taken: 0, 1, N; -1 = one or more ('+'), -2 = any ('*') */
	unsigned versions;
	uint32_t choices; /* mcinit_mstr: comma-separated, or NULL */
	enum mcinit_mtype type;
	uint32_t def;     /* mcinit_mstr: the parser default as JSON text ("null" for None) */
	unsigned entries; /* enum mcinit_mentry bits: MCINIT_ME_ALL for the training parser's own */
};
/* A row's string (m->flag, ->dest, ->choices, ->def); NULL for none. */
const char *mcinit_mstr(uint32_t off);

/* In the lookups below `version` is a version mask or an MCINIT_MPARSER key. */
/* The row for `flag` in `version`, or NULL.  "--no-X" finds a
 * boolean_optional "--X" (*negated set to 1). */
const struct mcinit_mflag *mcinit_mflag_find(const char *flag, unsigned version, int *negated);
/* Any version's row for `flag` (to say "only in r0.16"), or NULL. */
const struct mcinit_mflag *mcinit_mflag_find_any(const char *flag);
/* The row of `version` with this dest (the first by flag name), or NULL. */
const struct mcinit_mflag *mcinit_mflag_by_dest(const char *dest, unsigned version);
/* Closest known flag of `version`, for did-you-mean; NULL if none is close. */
const char *mcinit_mflag_suggest(const char *flag, unsigned version);
/* Calls fn(flag, arg) for every flag of one `version`. */
void mcinit_mflag_each(unsigned version, const char *arg, void (*fn)(const char *, const char *));
/* Every row of the table, for tests: *n set to the count. */
const struct mcinit_mflag *mcinit_mflag_table(unsigned *n);
/* True when `flag` is declared type=bool in any version. */
int mcinit_mflag_is_legacy_bool(const char *flag);

/* "pretrain_vlm" (also "pretrain_vlm.py") -> bit; -1 when unknown. */
int mcinit_mentry_parse(const char *s, unsigned *out);
/* The default entry point (pretrain_gpt). */
unsigned mcinit_mentry_default(void);
/* Name of one entry-point bit ("pretrain_gpt"); "?" if none. */
const char *mcinit_mentry_name(unsigned e);
/* The entry point whose script `word` (a path, as a launch script writes
 * it) runs on `version`; 0 when it is none of them. */
unsigned mcinit_mentry_of_script(const char *word, unsigned version);
/* The args_defaults entry point e hands validate_args on `version`, as a
 * JSON object text ("{}" when none). */
const char *mcinit_mentry_defaults(unsigned e, unsigned version);
/* Comma-separated names of the entry points in mask. */
void mcinit_mentry_list(unsigned mask, char *buf, unsigned len);
/* Calls fn(name, arg) for every entry point. */
void mcinit_mentry_each(const char *arg, void (*fn)(const char *, const char *));

/* "r0.15", "main" (also "core_r0.15") -> bit; -1 when unknown. */
int mcinit_mversion_parse(const char *s, unsigned *out);
/* The default version (main). */
unsigned mcinit_mversion_default(void);
/* Name ("r0.15") and branch ("core_r0.15") of one version bit; "?" if none. */
const char *mcinit_mversion_name(unsigned v);
const char *mcinit_mversion_branch(unsigned v);
/* The bit of the i-th version, oldest first (i < MCINIT_MV_COUNT). */
unsigned mcinit_mversion_at(int i);
/* Comma-separated names of the versions in mask, e.g. "r0.15, r0.16". */
void mcinit_mversion_list(unsigned mask, char *buf, unsigned len);

#endif
