/*
 * jpos.h — source positions for JSON documents, keyed by JSON Pointer.
 *
 * jansson only locates syntax errors; every later diagnostic (unknown key,
 * wrong type, duplicate key, cross-field rule) must still say file:line:col.
 * mcinit_jpos_new scans the raw text once and indexes every value by its
 * RFC 6901 pointer ("" = root, "/dist/lazy_mpu_init", "/model/cp_comm_type/2",
 * "~0" for '~' and "~1" for '/' inside a token).  Object keys are decoded
 * (all JSON escapes, \u surrogate pairs) before they form the pointer, so a
 * caller can build pointers from jansson's decoded keys.
 *
 * The scanner accepts the grammar of RFC 8259 (any value at the top level,
 * UTF-8 validated inside strings) plus a leading UTF-8 BOM.  It is slightly
 * more permissive than jansson (no depth limit, no numeric range check,
 * \u0000 allowed in string values) so that whatever jansson accepts is
 * always indexed; like jansson it rejects \u0000 in object keys, and like
 * jansson's lexer it skips one NUL byte right after a number or literal.
 *
 * Positions: line is 1-based and ends at \n, \r\n (one break) or a lone \r;
 * col is 1-based and counts Unicode code points (a tab is one column, the
 * BOM none); offset is the byte offset into the text given to _new (the BOM,
 * if any, included).
 */
#ifndef MCINIT_JPOS_H
#define MCINIT_JPOS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/util.h"

struct mcinit_pos {
	int line, col;
	long offset;
};

/* Opaque index.  Owns copies of everything it needs: text may be freed
 * after mcinit_jpos_new returns. */
struct mcinit_jpos;

/* Scans text[0..len) once (O(len) time and memory; a NUL byte is not an
 * end marker but, apart from the quirk above, a syntax error).  On malformed input returns NULL and
 * sets err (MCINIT_E_PARSE, message "LINE:COL: what") — never crashes or hangs.
 * The caller frees the result with mcinit_jpos_free. */
struct mcinit_jpos *mcinit_jpos_new(const char *text, size_t len, struct mcinit_err *err);

/* Frees jp and every string it handed out; NULL is a no-op. */
void mcinit_jpos_free(struct mcinit_jpos *jp);

/* Looks up an RFC 6901 pointer.  Returns 0 and fills *value (and *key, each
 * may be NULL) when found, -1 when absent or when pointer is not a valid
 * pointer.  key is the position of the member's opening quote; for array
 * elements and the root, key gets the value's position.  value is the first
 * character of the value ('{', '[', '"', '-' or digit, 't', 'f', 'n').
 * A key that occurs more than once resolves to its last occurrence, the one
 * jansson keeps when duplicates are allowed. */
int mcinit_jpos_lookup(const struct mcinit_jpos *jp, const char *pointer, struct mcinit_pos *key,
                       struct mcinit_pos *value);

/* Appends "/" + token, with '~' escaped as "~0" and '/' as "~1", to ptr.
 * Build a pointer by starting from an empty buffer (the root) and appending
 * one token per object key or decimal array index. */
void mcinit_jpos_append_token(struct mcx_buf *ptr, const char *token);

/* Finds the first duplicated key in document order, i.e. the first key that
 * repeats an earlier key of the same object — the one jansson rejects under
 * JSON_REJECT_DUPLICATES.  Returns 0 and sets *pointer (owned by jp, valid
 * until mcinit_jpos_free; may be NULL) and *key (the position of that second
 * occurrence's key; may be NULL); returns -1 when no key is duplicated. */
int mcinit_jpos_first_duplicate(const struct mcinit_jpos *jp, const char **pointer,
                                struct mcinit_pos *key);

/*
 * Building an index from another parser's events (the YAML loader): start
 * with mcinit_jpos_builder_new, add the root first (parent
 * MCINIT_JPOS_ROOT; token and key ignored), then every value after its
 * container, each with the index that mcinit_jpos_add returned for that
 * container and its decoded token (an object key, or a decimal array
 * index; token[0..toklen) may hold any byte but NUL).  mcinit_jpos_seal
 * builds the lookup table; lookups before it find nothing.  A pointer
 * added twice resolves to the later entry and counts as a duplicate.
 */
#define MCINIT_JPOS_ROOT ((size_t)-1)
struct mcinit_jpos *mcinit_jpos_builder_new(void);
size_t mcinit_jpos_add(struct mcinit_jpos *jp, size_t parent, const char *token, size_t toklen,
                       struct mcinit_pos key, struct mcinit_pos value);
void mcinit_jpos_seal(struct mcinit_jpos *jp);

/* Number of values indexed (every occurrence, duplicates included). */
size_t mcinit_jpos_count(const struct mcinit_jpos *jp);

/*
 * A Python float that JSON cannot hold (inf, -inf, nan), as the readers of
 * Python's inputs hand it on (Hydra's override grammar: `inf`, `nan`,
 * `1e309`; PyYAML: `.inf`, `.nan`, `1.0e+309`): a JSON string of a NUL
 * byte and Python's repr ("\0inf", "\0-inf", "\0nan").  No input spells
 * it (jansson refuses \u0000 without JSON_ALLOW_NUL, a Hydra or YAML
 * string of a NUL byte then one of those three words is not a thing users
 * write), so a reader tells the float from the string 'inf' a user quoted,
 * which Python keeps as a str (issue 38: the two fail Bridge's checks
 * differently).  A reader that does not know the tag sees an empty C
 * string.
 */
json_t *mcinit_json_pyfloat(double v);
/* Whether j is such a float: true, with its value in *out (may be NULL). */
bool mcinit_json_pyfloat_value(const json_t *j, double *out);

#endif
