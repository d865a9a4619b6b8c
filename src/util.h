/*
 * util.h — small shared helpers: the error record, checked allocation,
 * a growable byte buffer and edit distance for did-you-mean suggestions.
 *
 * Error convention used everywhere in mcinit: a function returns 0 (or a
 * pointer) on success and -1 (or NULL) on failure, after filling the
 * caller-provided struct mcinit_err.  Only main() turns failures into exit
 * codes, using err->code (a <sysexits.h> value, 0 = unspecified).
 */
#ifndef MCINIT_UTIL_H
#define MCINIT_UTIL_H

#include <stddef.h>
#include <stdio.h>

struct mcinit_err {
	int code;      /* sysexits value suggested to main(); 0 = EX_SOFTWARE */
	char msg[512]; /* human-readable, no trailing newline */
};

/* Fills err (if not NULL) and returns -1, so callers can `return mcinit_err_set(...)`. */
int mcinit_err_set(struct mcinit_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Allocation that aborts with a message on exhaustion: mcinit's data is tiny
 * relative to memory, and an OOM path in every caller would be dead code. */
void *mcinit_xmalloc(size_t n);
void *mcinit_xcalloc(size_t n, size_t size);
void *mcinit_xrealloc(void *p, size_t n);
char *mcinit_xstrdup(const char *s);
char *mcinit_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable byte buffer.  Owns data; release with mcinit_buf_free. */
struct mcinit_buf {
	char *data;
	size_t len, cap;
};
void mcinit_buf_reserve(struct mcinit_buf *b, size_t extra);
void mcinit_buf_add(struct mcinit_buf *b, const void *p, size_t n);
void mcinit_buf_adds(struct mcinit_buf *b, const char *s);
void mcinit_buf_addc(struct mcinit_buf *b, char c);
void mcinit_buf_printf(struct mcinit_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mcinit_buf_add_long(struct mcinit_buf *b, long v); /* fast decimal */
const char *mcinit_buf_cstr(struct mcinit_buf *b);      /* NUL-terminates */
void mcinit_buf_free(struct mcinit_buf *b);

/* Levenshtein distance, capped: returns > max as soon as it exceeds max. */
size_t mcinit_edit_distance(const char *a, const char *b, size_t max);

/* Best match for `word` among `n` candidates (threshold scales with length);
 * NULL when nothing is close enough. */
const char *mcinit_suggest(const char *word, const char *const *cands, size_t n);

/* Reads a whole file; NULL + err (EX_NOINPUT) when unreadable.  Caller frees. */
char *mcinit_read_file(const char *path, size_t *len, struct mcinit_err *err);

#endif
