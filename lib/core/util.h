/*
 * util.h — small shared helpers: the error record, checked allocation,
 * a growable byte buffer and edit distance for did-you-mean suggestions.
 *
 * Error convention used everywhere in mcinit: a function returns 0 (or a
 * pointer) on success and -1 (or NULL) on failure, after filling the
 * caller-provided struct mcinit_err, whose code says what kind of failure
 * it is (enum mcinit_code).  Only the mcinit program turns a code into its
 * process status (mcinit.c).
 */
#ifndef MCINIT_UTIL_H
#define MCINIT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcinit.h"
#include "private/mcinit-tool.h" /* the shared helper layer: mcx_ */

struct mcinit_err {
	int code;      /* enum mcinit_code (mcinit.h); 0 = MCINIT_E_INTERNAL */
	char msg[512]; /* human-readable, "SOURCE:LINE:COL: text" when located;
	                  no trailing newline */
	/* Where, when known (mcinit_err_at): source "" = none, line and col 0
	 * = unknown, argi -1 = not a command-line word; text_off is where the
	 * text after the location starts in msg. */
	char source[256];
	int line, col, argi;
	size_t text_off;
};

/* Fills err (if not NULL) and returns -1, so callers can `return mcinit_err_set(...)`. */
int mcinit_err_set(struct mcinit_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a place: source (NULL: none yet), line and col (0: none). */
int mcinit_err_at(struct mcinit_err *err, int code, const char *source, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Names the source of an error located by line and column only (a scanner
 * that does not know the file name); keeps a source already set. */
void mcinit_err_locate(struct mcinit_err *err, const char *source);

/* Makes room for need elements in arr, which has room for cap: doubles cap
 * (from 8) until it is enough, so that n appends cost O(n) copies. */
#define MCINIT_GROW(arr, cap, need)                                                                \
	do {                                                                                       \
		if ((need) > (cap)) {                                                              \
			size_t nc_ = (cap) ? (cap)*2 : 8;                                          \
			while (nc_ < (need))                                                       \
				nc_ *= 2;                                                          \
			(arr) = mcx_xrealloc((arr), nc_ * sizeof *(arr));                          \
			(cap) = nc_;                                                               \
		}                                                                                  \
	} while (0)
/* Out of memory for an allocation of n bytes: the handler of
 * mcinit_set_alloc_failure, then SIGABRT.  Does not return. */
_Noreturn void mcinit_oom(size_t n);

/* Writes the decimal digits of v so that they end just before `end` and
 * returns the first digit (the caller owns at least 20 bytes before end).
 * Two digits per step from a table: this is the hot path of the JSON writers
 * for million-rank topologies, hence inline in the header. */
static inline char *
mcinit_utoa_rev(char *end, unsigned long long v)
{
	static const char pairs[] = "0001020304050607080910111213141516171819"
	                            "2021222324252627282930313233343536373839"
	                            "4041424344454647484950515253545556575859"
	                            "6061626364656667686970717273747576777879"
	                            "8081828384858687888990919293949596979899";
	char *q = end;

	while (v >= 100) {
		q -= 2;
		__builtin_memcpy(q, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		__builtin_memcpy(q, pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	return q;
}

/* The two digits of x < 100 at p. */
static inline void
mcinit_put_pair(char *p, unsigned x)
{
	static const char pairs[] = "0001020304050607080910111213141516171819"
	                            "2021222324252627282930313233343536373839"
	                            "4041424344454647484950515253545556575859"
	                            "6061626364656667686970717273747576777879"
	                            "8081828384858687888990919293949596979899";

	__builtin_memcpy(p, pairs + 2 * x, 2);
}

/* mcinit_put_u for w < 10000. */
static inline char *
mcinit_put_u4(char *p, unsigned w)
{
	unsigned hi;

	if (w >= 100) {
		hi = w / 100;
		if (hi >= 10) {
			mcinit_put_pair(p, hi);
			p += 2;
		} else {
			*p++ = (char)('0' + hi);
		}
		mcinit_put_pair(p, w - hi * 100);
		return p + 2;
	}
	if (w >= 10) {
		mcinit_put_pair(p, w);
		return p + 2;
	}
	*p = (char)('0' + w);
	return p + 1;
}

/* Writes the decimal digits of v at p and returns the end of them (the
 * caller owns 20 bytes at p).  Numbers below 10^8 (ranks, sizes) take a
 * few comparisons and two-digit table loads, no loop: the hot path of the
 * topology JSON writers; larger ones go through mcinit_utoa_rev. */
static inline char *
mcinit_put_u(char *p, unsigned long long v)
{
	unsigned w, hi, lo;

	if (v >= 100000000ULL) {
		char tmp[24], *q = mcinit_utoa_rev(tmp + sizeof tmp, v);
		size_t n = (size_t)(tmp + sizeof tmp - q);

		__builtin_memcpy(p, q, n);
		return p + n;
	}
	w = (unsigned)v;
	if (w < 10000)
		return mcinit_put_u4(p, w);
	hi = w / 10000;
	lo = w - hi * 10000;
	p = mcinit_put_u4(p, hi);
	mcinit_put_pair(p, lo / 100);
	mcinit_put_pair(p + 2, lo % 100);
	return p + 4;
}

/* If text[0..len) holds a NUL byte, its 1-based line and column (columns
 * count UTF-8 characters) and 1; else 0.  Text scanners reject NULs. */
int mcinit_find_nul(const char *text, size_t len, int *line, int *col);

/* Levenshtein distance, capped: returns > max as soon as it exceeds max. */
size_t mcinit_edit_distance(const char *a, const char *b, size_t max);

/* Best match for `word` among `n` candidates (threshold scales with length);
 * NULL when nothing is close enough. */
/* json_dump* flag for numbers: 15 significant digits, so that what a user
 * wrote (0.0003) prints as written rather than as its nearest double
 * (0.00029999999999999997); jansson has no shortest round-trip mode.  The
 * tool header defines it, for the program's JSON too. */
#define MCINIT_JSON_REALS MCX_JSON_REALS

/* First element of a sorted array (n elements of `size` bytes, each with a
 * `const char *` at byte offset `off`, sorted bytewise) whose string is >=
 * key; n when none. */
size_t mcinit_lower_bound_str(const void *base, size_t n, size_t size, size_t off, const char *key);

/* Hashed lookups by name in the generated tables (build-aux/gen-tables.py
 * writes the slots): FNV-1a (32 bits) over the key's bytes, the slot table
 * a power of two at most half full, linear probing.  A slot holds the
 * position of a key in its table, MCINIT_HASH_EMPTY none. */
#define MCINIT_FNV1A_INIT 2166136261u
#define MCINIT_HASH_EMPTY 0xffffu

/* FNV-1a over the bytes of s, going on from h (MCINIT_FNV1A_INIT to start). */
static inline unsigned
mcinit_fnv1a(unsigned h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* The position of key in a table of n-slot hash `slots` (entries of `size`
 * bytes from base, each with a `const char *` at byte offset `off`), or
 * -1 when it is not there. */
long mcinit_hash_find(const unsigned short *slots, size_t nslots, const void *base, size_t size,
                      size_t off, const char *key);
/* The same for a table whose rows hold, at byte offset `off`, the uint32_t
 * offset of their string in `blob` (gen-tables.py's Blob): such a table has
 * no pointer for the loader to relocate, so its pages are read only when a
 * lookup touches them. */
/* The offset that stands for no string in such tables (a NULL). */
#define MCINIT_NOSTR 0xffffffffu
long mcinit_hash_find_blob(const unsigned short *slots, size_t nslots, const void *base,
                           size_t size, size_t off, const char *blob, const char *key);
/* The closest of cands to word within about one edit per four characters
 * (the first of the closest), or NULL: a did-you-mean. */
const char *mcinit_suggest(const char *word, const char *const *cands, size_t n);
/* What a suggestion compares first of a candidate: its length, its
 * characters as a set, and counted by bucket (a count stops at 255).  A
 * table asked again and again (Megatron-LM's flags, the config's keys)
 * makes them once. */
struct mcinit_suggest_key {
	uint64_t chars;
	size_t len;
	unsigned char counts[32];
};
void mcinit_suggest_key_of(const char *s, struct mcinit_suggest_key *k);
/* mcinit_suggest with the candidates' keys made beforehand. */
const char *mcinit_suggest_keyed(const char *word, const char *const *cands,
                                 const struct mcinit_suggest_key *keys, size_t n);
/* A suggestion being looked for: mcinit_suggest is init, try each
 * candidate, then pick.  The pick is the closest, the first of the closest
 * by `order` (a candidate's place in its list), so a table may try its
 * candidates in another order (Megatron-LM's flags: by length). */
struct mcinit_suggestion {
	const char *word, *pick; /* pick: the closest so far, or NULL */
	struct mcinit_suggest_key key;
	size_t best;  /* pick's distance; the cap + 1 while none */
	size_t order; /* pick's order; SIZE_MAX while none */
	/* for a word of 1 to 64 bytes, bit i of peq[c] says word[i] == c:
	 * each candidate's distance is then a few word operations a byte */
	uint64_t peq[256];
};
void mcinit_suggestion_init(struct mcinit_suggestion *s, const char *word);
/* k: made by mcinit_suggest_key_of(cand). */
void mcinit_suggestion_try(struct mcinit_suggestion *s, const char *cand,
                           const struct mcinit_suggest_key *k, size_t order);

/* The distance a candidate of this order must be within to win: as close
 * as the pick when it comes first, else closer (the cap while there is no
 * pick); -1: none can. */
static inline long
mcinit_suggestion_room(const struct mcinit_suggestion *s, size_t order)
{
	return (long)s->best - (s->pick != NULL && order < s->order ? 0 : 1);
}

/* Whether a candidate of key k and order can still win: its length and
 * characters are within the edits left (each edit changes the length by
 * one at most, and brings one character at most into either word that the
 * other lacks).  What _try asks first, inline for a loop over a table:
 * most candidates fail it. */
/* The bits set in x; not __builtin_popcountll, which is a call into
 * libgcc on a machine not told it has the instruction. */
static inline int
mcinit_popcount64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((x * 0x0101010101010101ull) >> 56);
}

static inline bool
mcinit_suggestion_may(const struct mcinit_suggestion *s, const struct mcinit_suggest_key *k,
                      size_t order)
{
	long t = mcinit_suggestion_room(s, order);

	return t >= 0 &&
	       (long)(s->key.len > k->len ? s->key.len - k->len : k->len - s->key.len) <= t &&
	       mcinit_popcount64(k->chars & ~s->key.chars) <= t &&
	       mcinit_popcount64(s->key.chars & ~k->chars) <= t;
}

/* The most mcinit reads of one input file: a job description (JSON, YAML, a
 * launch script, Megatron's arguments.py) is kilobytes, and a bound keeps
 * time and memory bounded whatever file is named by mistake. */
#define MCINIT_MAX_INPUT (16 << 20)
/* The most words mcinit takes from one launch script: Megatron-LM has about
 * a thousand flags, and each word costs a diagnostic at worst. */
#define MCINIT_MAX_SCRIPT_WORDS 65536

/* Reads a whole file; NULL + err (MCINIT_E_NOINPUT) when unreadable, MCINIT_E_PARSE when
 * larger than MCINIT_MAX_INPUT.  Caller frees. */
char *mcinit_read_file(const char *path, size_t *len, struct mcinit_err *err);

/* Internal error record into the public one (the location is not yet
 * structured in every internal error: the text carries it then). */
void mcinit_err_export(const struct mcinit_err *in, mcinit_error_t *out);

/* The value of NAME in envp (NULL-terminated "NAME=value"; NULL: this
 * process's environment), borrowed; NULL when unset.  The one lookup of
 * the environment a caller handed the library. */
const char *mcinit_env_get(const char *const *envp, const char *name);

/* The public structures filled in the caller's memory (include/mcinit.h:
 * size first): copies full, n bytes, into out, no more than out->size says,
 * and leaves there the bytes written.  -1, out untouched, when out->size is
 * under min: the end of the last member of the first sized release
 * (MCINIT_OUT_END). */
int mcinit_out_copy(void *out, void *full, size_t n, size_t min);
#define MCINIT_OUT_END(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

#endif
