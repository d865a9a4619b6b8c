/*
 * diag.h — diagnostics: collected during a run, sorted by location, printed
 * gcc-style to a stream or as a JSON array.
 *
 * Ownership: struct mcinit_diags owns every diagnostic and every string in it
 * (source names are copied), so diagnostics outlive the inputs they point at.
 */
#ifndef MCINIT_DIAG_H
#define MCINIT_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "mcinit.h" /* enum mcinit_severity and the public half of this module */

/* Where something was written.  source: a file path, "argv", "override",
 * "env" or NULL (a default: no place to point at).  line 0 = unknown;
 * col 0 = no column (argv words have an index, not a column).  order ranks
 * sources in the order the user gave them, for sorting. */
struct mcinit_loc {
	const char *source;
	int line, col;
	int order;
};

struct mcinit_diag {
	enum mcinit_severity sev;
	char code[8];
	char *message;
	char *hint;            /* NULL when none */
	struct mcinit_loc loc; /* loc.source owned */
	char **keys;           /* config keys involved, "section.field", owned */
	size_t nkeys;
	size_t seq; /* insertion order: stable tie-break */
};

struct mcinit_diags {
	struct mcinit_diag *v;
	size_t n, cap;
};

/* 1 when l is a command-line word ("argv" or "override"): its line is then
 * the word's index in mcinit's argv. */
int mcinit_loc_is_argv(const struct mcinit_loc *l);

/* Documentation of one diagnostic code: what it means, an input that
 * triggers it, and the fix.  Tables of these live beside the code that
 * emits the diagnostics (config.c, rules.c, affinity.c); mcinit explain and
 * the man page render them. */
struct mcinit_code_doc {
	const char *code;
	enum mcinit_severity sev;
	const char *doc;
	const char *example;
	const char *fix;
};

void mcinit_diags_init(struct mcinit_diags *d);
void mcinit_diags_destroy(struct mcinit_diags *d);

/* Adds a diagnostic; returns it so hints and keys can be attached.  loc may
 * be NULL.  The pointer stays valid until the next mcinit_diag_add. */
struct mcinit_diag *mcinit_diag_add(struct mcinit_diags *d, enum mcinit_severity sev,
                                    const char *code, const struct mcinit_loc *loc, const char *fmt,
                                    ...) __attribute__((format(printf, 5, 6)));
void mcinit_diag_hint(struct mcinit_diag *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mcinit_diag_key(struct mcinit_diag *g, const char *key);

/* mcinit_diags_count, mcinit_diags_sort, mcinit_diags_print: see mcinit.h. */
/* 1 when a diagnostic with this code exists. */
int mcinit_diags_has(const struct mcinit_diags *d, const char *code);

/* A new JSON array of diagnostic objects (caller owns the reference). */
json_t *mcinit_diags_to_json(const struct mcinit_diags *d);

#endif
