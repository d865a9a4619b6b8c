/* jpos.c — see jpos.h.
 *
 * One iterative pass (an explicit container stack, so deep nesting cannot
 * overflow the C stack) records one entry per value.  An entry does not
 * store its full pointer — that would be quadratic in the nesting depth —
 * but its parent entry and its own decoded token; its hash is chained from
 * the parent's, so the pointer index is an open-addressing table over
 * entries, and a lookup compares the query against the parent chain. */
#include "input/jpos.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE      SIZE_MAX
#define FNV_BASIS 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define TOKEN_SEP 0 /* hashed between tokens; decoded keys never contain NUL */

struct ent {
	size_t parent; /* NONE for the root */
	size_t tok;    /* offset of the NUL-terminated decoded token in toks */
	size_t toklen;
	size_t depth; /* number of tokens in the pointer */
	uint64_t hash;
	struct mcinit_pos key, val;
};

struct mcinit_jpos {
	struct ent *ents;
	size_t nents, cap;
	struct mcx_buf toks;
	size_t *slots; /* entry index + 1; 0 = empty */
	size_t mask;
	char *dup_ptr; /* NULL when no key is duplicated */
	struct mcinit_pos dup_key;
};

struct frame {
	size_t ent;
	int is_obj;
	long index; /* next array index */
};

struct scan {
	const unsigned char *s;
	size_t len, i;
	/* Columns are counted lazily up to col_off: positions are requested in
	 * increasing order, so the total counting work stays O(len). */
	int line, col;
	size_t line_start, col_off;
	struct frame *stk;
	size_t depth, stkcap;
	/* The value about to be scanned: its parent, token and key position. */
	size_t parent, tok, toklen;
	struct mcinit_pos key;
	int has_key;
	struct mcinit_jpos *jp;
	struct mcinit_err *err;
};

static uint64_t
hash_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

/* FNV's low bits are weak; mix before masking into the table. */
static size_t
slot_of(uint64_t h, size_t mask)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & mask;
}

static struct mcinit_pos
pos_at(struct scan *sc, size_t off)
{
	struct mcinit_pos p;

	if (off < sc->col_off) {
		sc->col_off = sc->line_start;
		sc->col = 1;
	}
	for (; sc->col_off < off; sc->col_off++)
		if ((sc->s[sc->col_off] & 0xC0) != 0x80 && sc->col < INT_MAX)
			sc->col++;
	p.line = sc->line;
	p.col = sc->col;
	p.offset = (long)off;
	return p;
}

static int fail(struct scan *sc, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct scan *sc, size_t off, const char *fmt, ...)
{
	struct mcinit_pos p = pos_at(sc, off);
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return mcinit_err_at(sc->err, MCINIT_E_PARSE, NULL, p.line, p.col, "%s", what);
}

static void
newline(struct scan *sc)
{
	if (sc->line < INT_MAX)
		sc->line++;
	sc->line_start = sc->col_off = sc->i;
	sc->col = 1;
}

static void
skip_ws(struct scan *sc)
{
	while (sc->i < sc->len) {
		unsigned char c = sc->s[sc->i];

		if (c == ' ' || c == '\t') {
			sc->i++;
		} else if (c == '\n') {
			sc->i++;
			newline(sc);
		} else if (c == '\r') {
			sc->i++;
			if (sc->i < sc->len && sc->s[sc->i] == '\n')
				sc->i++;
			newline(sc);
		} else {
			break;
		}
	}
}

static void
put_utf8(struct mcx_buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	mcx_buf_add(b, u, n);
}

/* Reads 4 hex digits at s[at..]; -1 if there are not 4 of them. */
static long
hex4(const struct scan *sc, size_t at)
{
	long v = 0;
	size_t k;

	if (at > sc->len || sc->len - at < 4)
		return -1;
	for (k = 0; k < 4; k++) {
		unsigned char c = sc->s[at + k];

		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (c - 'A' + 10);
		else
			return -1;
	}
	return v;
}

/* \uXXXX at sc->i (pointing at 'u'), with a following low surrogate when
 * the first is a high one; leaves sc->i after the sequence. */
static int
scan_uescape(struct scan *sc, unsigned long *cp)
{
	size_t at = sc->i - 1; /* the backslash, for error positions */
	long hi = hex4(sc, sc->i + 1), lo;

	if (hi < 0)
		return fail(sc, at, "invalid \\u escape");
	sc->i += 5;
	if (hi >= 0xDC00 && hi <= 0xDFFF)
		return fail(sc, at, "lone low surrogate \\u%04lX", (unsigned long)hi);
	if (hi < 0xD800 || hi > 0xDBFF) {
		*cp = (unsigned long)hi;
		return 0;
	}
	if (sc->len - sc->i < 6 || sc->s[sc->i] != '\\' || sc->s[sc->i + 1] != 'u' ||
	    (lo = hex4(sc, sc->i + 2)) < 0xDC00 || lo > 0xDFFF)
		return fail(sc, at, "high surrogate \\u%04lX not followed by a low one",
		            (unsigned long)hi);
	sc->i += 6;
	*cp = 0x10000 + (((unsigned long)hi - 0xD800) << 10) + ((unsigned long)lo - 0xDC00);
	return 0;
}

static int
scan_escape(struct scan *sc, struct mcx_buf *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned long cp = 0;

	if (++sc->i >= sc->len)
		return fail(sc, sc->i, "unterminated string");
	if (sc->s[sc->i] == 'u') {
		if (scan_uescape(sc, &cp) < 0)
			return -1;
		if (out != NULL && cp == 0)
			return fail(sc, sc->i - 6, "\\u0000 in an object key is not supported");
		if (out != NULL)
			put_utf8(out, cp);
		return 0;
	}
	hit = sc->s[sc->i] != '\0' ? strchr(from, sc->s[sc->i]) : NULL;
	if (hit == NULL)
		return fail(sc, sc->i - 1, "invalid escape");
	if (out != NULL)
		mcx_buf_addc(out, to[hit - from]);
	sc->i++;
	return 0;
}

/* The string at sc->i (its opening quote); decoded into out when not NULL,
 * only validated otherwise. */
static int
scan_string(struct scan *sc, struct mcx_buf *out)
{
	for (sc->i++; sc->i < sc->len;) {
		unsigned char c = sc->s[sc->i];
		size_t n;

		if (c == '"') {
			sc->i++;
			return 0;
		} else if (c == '\\') {
			if (scan_escape(sc, out) < 0)
				return -1;
		} else if (c < 0x20) {
			return fail(sc, sc->i, "control character 0x%02X in string", c);
		} else if (c < 0x80) {
			if (out != NULL)
				mcx_buf_addc(out, (char)c);
			sc->i++;
		} else {
			n = mcx_utf8_len(sc->s + sc->i, sc->len - sc->i);
			if (n == 0)
				return fail(sc, sc->i, "invalid UTF-8 in string");
			if (out != NULL)
				mcx_buf_add(out, sc->s + sc->i, n);
			sc->i += n;
		}
	}
	return fail(sc, sc->len, "unterminated string");
}

static size_t
skip_digits(struct scan *sc)
{
	size_t start = sc->i;

	while (sc->i < sc->len && sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9')
		sc->i++;
	return sc->i - start;
}

static int
peek_is(const struct scan *sc, char a, char b)
{
	return sc->i < sc->len && (sc->s[sc->i] == a || sc->s[sc->i] == b);
}

/* jansson's lexer loses one NUL byte that directly follows a number or a
 * literal ("[1\0]" loads); skip it too, so that every text jansson accepts
 * gets an index. */
static int
swallow_nul(struct scan *sc)
{
	if (sc->i < sc->len && sc->s[sc->i] == '\0')
		sc->i++;
	return 0;
}

static int
scan_number(struct scan *sc)
{
	size_t start = sc->i;

	if (peek_is(sc, '-', '-'))
		sc->i++;
	if (peek_is(sc, '0', '0'))
		sc->i++;
	else if (sc->i >= sc->len || sc->s[sc->i] < '1' || sc->s[sc->i] > '9' ||
	         skip_digits(sc) == 0)
		return fail(sc, start, "invalid number");
	if (peek_is(sc, '.', '.')) {
		sc->i++;
		if (skip_digits(sc) == 0)
			return fail(sc, start, "invalid number");
	}
	if (peek_is(sc, 'e', 'E')) {
		sc->i++;
		if (peek_is(sc, '+', '-'))
			sc->i++;
		if (skip_digits(sc) == 0)
			return fail(sc, start, "invalid number");
	}
	return swallow_nul(sc);
}

static int
scan_literal(struct scan *sc)
{
	static const char *const words[] = {"true", "false", "null"};
	size_t k, n;

	for (k = 0; k < sizeof words / sizeof words[0]; k++) {
		n = strlen(words[k]);
		if (sc->len - sc->i >= n && memcmp(sc->s + sc->i, words[k], n) == 0) {
			sc->i += n;
			return swallow_nul(sc);
		}
	}
	return fail(sc, sc->i, "invalid literal");
}

/* One entry whose token is already in jp->toks at tok (NUL-terminated). */
static size_t
push_ent(struct mcinit_jpos *jp, size_t parent, size_t tok, size_t toklen, struct mcinit_pos key,
         struct mcinit_pos val)
{
	struct ent *e, *p;
	size_t k;

	if (jp->nents == jp->cap) {
		jp->cap = jp->cap ? jp->cap * 2 : 64;
		jp->ents = mcx_xrealloc(jp->ents, jp->cap * sizeof *jp->ents);
	}
	e = &jp->ents[jp->nents++];
	e->parent = parent;
	e->tok = tok;
	e->toklen = toklen;
	e->key = key;
	e->val = val;
	if (parent == NONE) {
		e->depth = 0;
		e->hash = FNV_BASIS;
		return jp->nents - 1;
	}
	p = &jp->ents[parent];
	e->depth = p->depth + 1;
	e->hash = hash_byte(p->hash, TOKEN_SEP);
	for (k = 0; k < e->toklen; k++)
		e->hash = hash_byte(e->hash, (unsigned char)jp->toks.data[e->tok + k]);
	return jp->nents - 1;
}

static void
add_ent(struct scan *sc, struct mcinit_pos val)
{
	push_ent(sc->jp, sc->parent, sc->tok, sc->toklen, sc->has_key ? sc->key : val, val);
}

static void
push(struct scan *sc, int is_obj)
{
	if (sc->depth == sc->stkcap) {
		sc->stkcap = sc->stkcap ? sc->stkcap * 2 : 32;
		sc->stk = mcx_xrealloc(sc->stk, sc->stkcap * sizeof *sc->stk);
	}
	sc->stk[sc->depth].ent = sc->jp->nents - 1;
	sc->stk[sc->depth].is_obj = is_obj;
	sc->stk[sc->depth].index = 0;
	sc->depth++;
}

/* Sets up the next array element of the top frame as the pending value. */
static void
next_element(struct scan *sc)
{
	struct frame *f = &sc->stk[sc->depth - 1];

	sc->parent = f->ent;
	sc->tok = sc->jp->toks.len;
	mcx_buf_add_long(&sc->jp->toks, f->index++);
	sc->toklen = sc->jp->toks.len - sc->tok;
	mcx_buf_addc(&sc->jp->toks, '\0');
	sc->has_key = 0;
}

/* Reads `"key" :` into the pending value of the top (object) frame. */
static int
next_member(struct scan *sc)
{
	struct mcx_buf *toks = &sc->jp->toks;

	if (sc->i >= sc->len || sc->s[sc->i] != '"')
		return fail(sc, sc->i, "expected a string object key");
	sc->key = pos_at(sc, sc->i);
	sc->has_key = 1;
	sc->parent = sc->stk[sc->depth - 1].ent;
	sc->tok = toks->len;
	if (scan_string(sc, toks) < 0)
		return -1;
	sc->toklen = toks->len - sc->tok;
	mcx_buf_addc(toks, '\0');
	skip_ws(sc);
	if (sc->i >= sc->len || sc->s[sc->i] != ':')
		return fail(sc, sc->i, "expected ':' after object key");
	sc->i++;
	return 0;
}

/* Scans one value; containers are only opened here (pushed on the stack),
 * and *opened says whether the caller must next read their contents. */
static int
scan_value(struct scan *sc, int *opened)
{
	unsigned char c;

	*opened = 0;
	skip_ws(sc);
	if (sc->i >= sc->len)
		return fail(sc, sc->i, "expected a value, got end of input");
	add_ent(sc, pos_at(sc, sc->i));
	c = sc->s[sc->i];
	if (c == '{' || c == '[') {
		push(sc, c == '{');
		sc->i++;
		*opened = 1;
		return 0;
	}
	if (c == '"')
		return scan_string(sc, NULL);
	if (c == '-' || (c >= '0' && c <= '9'))
		return scan_number(sc);
	if (c == 't' || c == 'f' || c == 'n')
		return scan_literal(sc);
	return fail(sc, sc->i, "expected a value");
}

/* After a value (or just inside a container that was opened): consumes
 * ',' or closing brackets until the next value is pending (returns 1) or
 * the document is complete (returns 0). */
static int
after_value(struct scan *sc, int opened)
{
	struct frame *f;
	unsigned char close;

	for (;;) {
		skip_ws(sc);
		if (sc->depth == 0) {
			if (sc->i < sc->len)
				return fail(sc, sc->i, "expected end of input");
			return 0;
		}
		f = &sc->stk[sc->depth - 1];
		close = f->is_obj ? '}' : ']';
		if (sc->i < sc->len && sc->s[sc->i] == close) {
			sc->i++;
			sc->depth--;
			opened = 0;
			continue;
		}
		if (!opened) {
			if (sc->i >= sc->len || sc->s[sc->i] != ',')
				return fail(sc, sc->i, "expected ',' or '%c'", close);
			sc->i++;
			skip_ws(sc);
		}
		if (!f->is_obj) {
			next_element(sc);
			return 1;
		}
		return next_member(sc) < 0 ? -1 : 1;
	}
}

static int
scan_doc(struct scan *sc)
{
	int opened, more;

	sc->parent = NONE;
	sc->tok = sc->toklen = 0;
	sc->has_key = 0;
	mcx_buf_addc(&sc->jp->toks, '\0'); /* the root's empty token */
	do {
		if (scan_value(sc, &opened) < 0)
			return -1;
		more = after_value(sc, opened);
	} while (more == 1);
	return more;
}

static int
ent_eq(const struct mcinit_jpos *jp, size_t a, size_t b)
{
	while (a != b) {
		const struct ent *x = &jp->ents[a], *y = &jp->ents[b];

		if (x->depth != y->depth || x->toklen != y->toklen ||
		    memcmp(jp->toks.data + x->tok, jp->toks.data + y->tok, x->toklen) != 0)
			return 0;
		a = x->parent;
		b = y->parent;
	}
	return 1;
}

static char *
build_pointer(const struct mcinit_jpos *jp, size_t e)
{
	struct mcx_buf b = {0};
	size_t *chain = mcx_xmalloc((jp->ents[e].depth + 1) * sizeof *chain);
	size_t n = 0;

	for (; jp->ents[e].parent != NONE; e = jp->ents[e].parent)
		chain[n++] = e;
	while (n > 0)
		mcinit_jpos_append_token(&b, jp->toks.data + jp->ents[chain[--n]].tok);
	free(chain);
	mcx_buf_cstr(&b);
	return b.data;
}

/* Inserting in document order makes the first collision the first
 * duplicate jansson would see: a repeated pointer whose parents differ
 * implies an earlier repeated parent. */
static void
build_table(struct mcinit_jpos *jp)
{
	size_t n = 16, i, s;

	while (n < 2 * jp->nents)
		n *= 2;
	jp->slots = mcx_xcalloc(n, sizeof *jp->slots);
	jp->mask = n - 1;
	for (i = 0; i < jp->nents; i++) {
		for (s = slot_of(jp->ents[i].hash, jp->mask); jp->slots[s] != 0;
		     s = (s + 1) & jp->mask) {
			size_t j = jp->slots[s] - 1;

			if (jp->ents[j].hash == jp->ents[i].hash && ent_eq(jp, i, j)) {
				if (jp->dup_ptr == NULL) {
					jp->dup_ptr = build_pointer(jp, i);
					jp->dup_key = jp->ents[i].key;
				}
				break;
			}
		}
		jp->slots[s] = i + 1; /* replaces an equal pointer: last wins */
	}
}

struct mcinit_jpos *
mcinit_jpos_new(const char *text, size_t len, struct mcinit_err *err)
{
	struct scan sc = {0};
	struct mcinit_jpos *jp = mcx_xcalloc(1, sizeof *jp);

	sc.s = (const unsigned char *)text;
	sc.len = text != NULL ? len : 0;
	sc.line = sc.col = 1;
	sc.jp = jp;
	sc.err = err;
	if (sc.len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		sc.i = sc.line_start = sc.col_off = 3;
	if (scan_doc(&sc) < 0) {
		mcinit_jpos_free(jp);
		jp = NULL;
		goto out;
	}
	build_table(jp);
out:
	free(sc.stk);
	return jp;
}

void
mcinit_jpos_free(struct mcinit_jpos *jp)
{
	if (jp == NULL)
		return;
	free(jp->ents);
	mcx_buf_free(&jp->toks);
	free(jp->slots);
	free(jp->dup_ptr);
	free(jp);
}

/* Hashes the decoded tokens of pointer the way add_ent does; -1 if the
 * pointer is malformed (no leading '/', '~' not followed by 0 or 1). */
static int
query_hash(const char *pointer, uint64_t *hash, size_t *depth)
{
	const char *p = pointer;
	uint64_t h = FNV_BASIS;
	size_t d = 0;
	unsigned char c;

	if (*p != '\0' && *p != '/')
		return -1;
	for (; *p != '\0'; p++) {
		c = (unsigned char)*p;
		if (c == '/') {
			h = hash_byte(h, TOKEN_SEP);
			d++;
			continue;
		}
		if (c == '~') {
			if (p[1] != '0' && p[1] != '1')
				return -1;
			c = *++p == '0' ? '~' : '/';
		}
		h = hash_byte(h, c);
	}
	*hash = h;
	*depth = d;
	return 0;
}

/* Does the escaped pointer segment seg[0..n) decode to tok[0..toklen)? */
static int
seg_eq(const char *seg, size_t n, const char *tok, size_t toklen)
{
	size_t i = 0, j = 0;
	char c;

	while (i < n) {
		c = seg[i++];
		if (c == '~')
			c = seg[i++] == '0' ? '~' : '/';
		if (j >= toklen || tok[j++] != c)
			return 0;
	}
	return j == toklen;
}

static int
chain_matches(const struct mcinit_jpos *jp, size_t e, const char *q, size_t end)
{
	const char *slash;

	for (; jp->ents[e].parent != NONE; e = jp->ents[e].parent) {
		slash = memrchr(q, '/', end);
		if (slash == NULL)
			return 0;
		if (!seg_eq(slash + 1, (size_t)(q + end - slash - 1),
		            jp->toks.data + jp->ents[e].tok, jp->ents[e].toklen))
			return 0;
		end = (size_t)(slash - q);
	}
	return end == 0;
}

int
mcinit_jpos_lookup(const struct mcinit_jpos *jp, const char *pointer, struct mcinit_pos *key,
                   struct mcinit_pos *value)
{
	uint64_t h;
	size_t depth, s, e, n;

	if (jp == NULL || jp->slots == NULL || pointer == NULL ||
	    query_hash(pointer, &h, &depth) < 0)
		return -1;
	n = strlen(pointer);
	for (s = slot_of(h, jp->mask); jp->slots[s] != 0; s = (s + 1) & jp->mask) {
		e = jp->slots[s] - 1;
		if (jp->ents[e].hash != h || jp->ents[e].depth != depth ||
		    !chain_matches(jp, e, pointer, n))
			continue;
		if (key != NULL)
			*key = jp->ents[e].key;
		if (value != NULL)
			*value = jp->ents[e].val;
		return 0;
	}
	return -1;
}

void
mcinit_jpos_append_token(struct mcx_buf *ptr, const char *token)
{
	mcx_buf_addc(ptr, '/');
	for (; *token != '\0'; token++) {
		if (*token == '~')
			mcx_buf_add(ptr, "~0", 2);
		else if (*token == '/')
			mcx_buf_add(ptr, "~1", 2);
		else
			mcx_buf_addc(ptr, *token);
	}
}

int
mcinit_jpos_first_duplicate(const struct mcinit_jpos *jp, const char **pointer,
                            struct mcinit_pos *key)
{
	if (jp == NULL || jp->dup_ptr == NULL)
		return -1;
	if (pointer != NULL)
		*pointer = jp->dup_ptr;
	if (key != NULL)
		*key = jp->dup_key;
	return 0;
}

size_t
mcinit_jpos_count(const struct mcinit_jpos *jp)
{
	return jp != NULL ? jp->nents : 0;
}

struct mcinit_jpos *
mcinit_jpos_builder_new(void)
{
	return mcx_xcalloc(1, sizeof(struct mcinit_jpos));
}

size_t
mcinit_jpos_add(struct mcinit_jpos *jp, size_t parent, const char *token, size_t toklen,
                struct mcinit_pos key, struct mcinit_pos value)
{
	size_t tok = jp->toks.len;

	if (parent == MCINIT_JPOS_ROOT) {
		mcx_buf_addc(&jp->toks, '\0');
		return push_ent(jp, NONE, tok, 0, value, value);
	}
	mcx_buf_add(&jp->toks, token, toklen);
	mcx_buf_addc(&jp->toks, '\0');
	return push_ent(jp, parent, tok, toklen, key, value);
}

void
mcinit_jpos_seal(struct mcinit_jpos *jp)
{
	if (jp->slots == NULL)
		build_table(jp);
}

json_t *
mcinit_json_pyfloat(double v)
{
	const char *w = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
	char buf[8];

	if (isfinite(v))
		return json_real(v);
	buf[0] = '\0';
	memcpy(buf + 1, w, strlen(w));
	return json_stringn(buf, 1 + strlen(w));
}

bool
mcinit_json_pyfloat_value(const json_t *j, double *out)
{
	const char *s = json_string_value(j);
	size_t n = json_string_length(j);
	double v;

	if (s == NULL || n < 2 || s[0] != '\0')
		return false;
	if (n == 4 && memcmp(s + 1, "inf", 3) == 0)
		v = INFINITY;
	else if (n == 5 && memcmp(s + 1, "-inf", 4) == 0)
		v = -INFINITY;
	else if (n == 4 && memcmp(s + 1, "nan", 3) == 0)
		v = NAN;
	else
		return false;
	if (out != NULL)
		*out = v;
	return true;
}
