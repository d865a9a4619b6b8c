/*
 * hydra.h — Hydra's command-line override grammar (hydra-core 1.3, the
 * parser Megatron-Bridge's parse_hydra_overrides calls), implemented from
 * its definition: hydra/grammar/OverrideLexer.g4 and OverrideParser.g4, and
 * the meaning Hydra's visitor gives the parse tree.
 *
 *   override: key '=' value?  |  '~' key ('=' value?)?  |  '+' '+'? key '=' value?
 *   key:      packageOrGroup ('@' package)?
 *   value:    element | element (',' element)+        (a simple choice sweep)
 *   element:  primitive | '[' list ']' | '{' dict '}' | ID '(' args ')'
 *
 * The lexer has Hydra's two modes: the key mode until the first '=' (IDs,
 * `$`-names, dotted paths, ~ + @ : /, no whitespace) and the value mode after
 * it; in each, the longest token wins and a tie goes to the rule listed
 * first, as in ANTLR.  A primitive made of one token is typed (int of any
 * size with `_` separators, float with inf/nan/.5/5./1e-4, bool and null in
 * any case, a quoted string with its escapes); several tokens make a string
 * (escapes undone, the whitespace at both ends trimmed).  An interpolation
 * `${...}` stays a string.  Functions are evaluated as Hydra does: the casts
 * int(), float(), str(), bool() give values; choice(), range(), interval(),
 * glob(), tag(), sort() and shuffle() give sweeps or lists; any other name is
 * an error.
 *
 * Cost is linear in the word (one pass of the lexer, a recursive-descent
 * parser with one token of look-ahead beyond LL(1) for `ID (` and `ID =`),
 * except sort(), which is quadratic in its list like the insertion sort it
 * mirrors.  Nesting is limited where Hydra's is: its parser and visitor
 * recurse in Python, whose stack of 1,000 frames ends at 494 nested lists or
 * functions and 246 nested dicts (RecursionError, which Bridge does not catch);
 * MCINIT_HYDRA_MAX_NEST counts the frames: 2 a list, a function or the
 * innermost primitive, 4 a dict.
 */
#ifndef MCINIT_HYDRA_H
#define MCINIT_HYDRA_H

#include <stddef.h>

#include "core/util.h"

#define MCINIT_HYDRA_MAX_NEST 988

enum mcinit_hy_kind { MCINIT_HY_CHANGE, MCINIT_HY_ADD, MCINIT_HY_FORCE_ADD, MCINIT_HY_DELETE };

enum mcinit_hy_type {
	MCINIT_HY_NULL,
	MCINIT_HY_BOOL,
	MCINIT_HY_INT,   /* text: the decimal digits, '-' for a negative value */
	MCINIT_HY_FLOAT, /* f */
	MCINIT_HY_STR,   /* text, len (may hold NUL); quoted when written in quotes */
	MCINIT_HY_LIST,  /* items[n] */
	MCINIT_HY_DICT,  /* keys[n] (never lists or dicts), items[n] */
	MCINIT_HY_SWEEP, /* sweep: a sweep (or a glob), which Bridge cannot apply */
};

enum mcinit_hy_sweep {
	MCINIT_HY_CHOICE,   /* choice(...), or a,b,c when simple */
	MCINIT_HY_RANGE,    /* range(...) */
	MCINIT_HY_INTERVAL, /* interval(...) */
	MCINIT_HY_GLOB,     /* glob(...) */
};

struct mcinit_hy_value {
	enum mcinit_hy_type type;
	int b;      /* bool */
	int quoted; /* str: from a quoted value */
	double f;   /* float */
	char *text; /* int, str */
	size_t len; /* str: bytes of text */
	size_t n;   /* list, dict; sweep: its choices or range/interval bounds */
	struct mcinit_hy_value *items, *keys;
	enum mcinit_hy_sweep sweep;
	int simple; /* a choice sweep written a,b,c (or made by a cast of several arguments) */
};

struct mcinit_hy_override {
	enum mcinit_hy_kind kind;
	char *key;                    /* key_or_group: "model.num_layers", "hydra/launcher", "" */
	char *package;                /* after '@'; NULL when none */
	int has_value;                /* 0 only for `~key` */
	struct mcinit_hy_value value; /* `key=` is the empty string, as in Hydra */
};

/* Where and why a word is not an override (Hydra's HydraException). */
struct mcinit_hy_error {
	int col;          /* 1-based, in characters (UTF-8 code points) of the word */
	const char *what; /* "lex" (no token here), "syntax", "whitespace" (a primitive of
	                   * whitespace only), "function" (a function's evaluation failed),
	                   * "depth" (nested too deeply) */
	char msg[256];
};

/*
 * Parses the len bytes of word (need not be NUL-terminated) as one override.
 * 0 and *out filled (release with mcinit_hydra_free), or -1 and *e filled
 * (*out then holds nothing to release).
 */
int mcinit_hydra_parse(const char *word, size_t len, struct mcinit_hy_override *out,
                       struct mcinit_hy_error *e);
void mcinit_hydra_free(struct mcinit_hy_override *o);
void mcinit_hy_value_free(struct mcinit_hy_value *v);

/* Python's repr() of a float (the shortest text that reads back the same): "1e-05",
 * "0.0003", "inf", "nan", "-0.0"; buf holds at least 32 bytes. */
void mcinit_hy_float_repr(double f, char *buf, size_t size);

#endif
