/*
 * hydra.c — Hydra's override grammar: the two-mode lexer, the parser of the
 * productions, the typing of primitives and the functions (hydra.h).
 */
#include "input/hydra.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Token types: the lexer's rules, in each mode in the order the grammar
 * lists them (a tie in length goes to the earlier one). */
enum tt {
	T_EOF,
	T_ERR, /* no rule matches here */
	/* key mode */
	T_EQUAL,
	T_TILDE,
	T_PLUS,
	T_AT,
	T_COLON,
	T_SLASH,
	T_ID,
	T_KEY_SPECIAL,
	T_DOT_PATH,
	/* value mode (COLON, EQUAL and ID shared) */
	T_POPEN,
	T_COMMA,
	T_PCLOSE,
	T_BOPEN,
	T_BCLOSE,
	T_COPEN,
	T_CCLOSE,
	T_FLOAT,
	T_INT,
	T_BOOL,
	T_NULL,
	T_UCHAR,
	T_ESC,
	T_WS,
	T_QUOTED,
	T_INTERP,
};

struct tok {
	enum tt type;
	size_t off, len;
};

struct px {
	const char *s;
	size_t len;
	struct tok *t;
	size_t nt, cap, i;
	int depth;
	struct mcinit_hy_error *e;
	int failed;
};

typedef struct mcinit_hy_value val;

static int
col_of(const char *s, size_t off)
{
	int col = 1;

	for (size_t k = 0; k < off; k++)
		if (((unsigned char)s[k] & 0xC0) != 0x80)
			col++;
	return col;
}

static int
fail_at(struct px *p, size_t off, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = 1;
	p->e->col = col_of(p->s, off);
	p->e->what = what;
	va_start(ap, fmt);
	vsnprintf(p->e->msg, sizeof p->e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the lexer ---- */

static int
is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static int
is_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* INT_UNSIGNED: '0' | [1-9] ('_'? DIGIT)* */
static size_t
m_uint(const char *s, size_t n, size_t i)
{
	size_t k = i;

	if (k >= n || !is_digit(s[k]))
		return 0;
	if (s[k] == '0')
		return 1;
	k++;
	for (;;) {
		if (k < n && is_digit(s[k]))
			k++;
		else if (k + 1 < n && s[k] == '_' && is_digit(s[k + 1]))
			k += 2;
		else
			break;
	}
	return k - i;
}

/* DIGIT ('_'? DIGIT)* */
static size_t
m_digits(const char *s, size_t n, size_t i)
{
	size_t k = i;

	if (k >= n || !is_digit(s[k]))
		return 0;
	k++;
	for (;;) {
		if (k < n && is_digit(s[k]))
			k++;
		else if (k + 1 < n && s[k] == '_' && is_digit(s[k + 1]))
			k += 2;
		else
			break;
	}
	return k - i;
}

/* ID: (CHAR|'_') (CHAR|DIGIT|'_'|'-')*; with dollar, KEY_SPECIAL's '$' too */
static size_t
m_id(const char *s, size_t n, size_t i, int dollar)
{
	size_t k = i;

	if (k >= n || !(is_char(s[k]) || s[k] == '_' || (dollar && s[k] == '$')))
		return 0;
	k++;
	while (k < n && (is_char(s[k]) || is_digit(s[k]) || s[k] == '_' || s[k] == '-' ||
	                 (dollar && s[k] == '$')))
		k++;
	return k - i;
}

/* DOT_PATH: (KEY_SPECIAL | INT_UNSIGNED) ('.' (KEY_SPECIAL | INT_UNSIGNED))+ */
static size_t
m_dot_path(const char *s, size_t n, size_t i)
{
	size_t k = i, best = 0;
	int segs = 0;

	for (;;) {
		size_t l = m_id(s, n, k, 1);

		if (l == 0)
			l = m_uint(s, n, k);
		if (l == 0)
			break;
		k += l;
		if (++segs >= 2)
			best = k - i;
		if (k < n && s[k] == '.')
			k++;
		else
			break;
	}
	return best;
}

/* FLOAT: [+-]? (POINT_FLOAT | EXPONENT_FLOAT | inf | nan), any case for inf/nan */
static size_t
m_float(const char *s, size_t n, size_t i)
{
	size_t k = i, il, pf = 0, mant, el;

	if (k < n && (s[k] == '+' || s[k] == '-'))
		k++;
	if (k + 3 <= n && (strncasecmp(s + k, "inf", 3) == 0 || strncasecmp(s + k, "nan", 3) == 0))
		return k + 3 - i;
	il = m_uint(s, n, k);
	if (k + il < n && s[k + il] == '.') {
		size_t fl = m_digits(s, n, k + il + 1);

		if (il > 0 || fl > 0)
			pf = il + 1 + fl;
	}
	mant = pf ? pf : il;
	if (mant == 0)
		return 0;
	if (k + mant < n && (s[k + mant] == 'e' || s[k + mant] == 'E')) {
		size_t j = k + mant + 1;

		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		el = m_digits(s, n, j);
		if (el > 0)
			return j + el - i;
	}
	return pf ? k + pf - i : 0;
}

static size_t
m_int(const char *s, size_t n, size_t i)
{
	size_t k = i, l;

	if (k < n && (s[k] == '+' || s[k] == '-'))
		k++;
	l = m_uint(s, n, k);
	return l ? k + l - i : 0;
}

static size_t
m_word(const char *s, size_t n, size_t i, const char *w)
{
	size_t l = strlen(w);

	return i + l <= n && strncasecmp(s + i, w, l) == 0 ? l : 0;
}

/* ESC: one or more of \\ \( \) \[ \] \{ \} \: \= \, "\ " "\<tab>" */
static size_t
m_esc(const char *s, size_t n, size_t i)
{
	size_t k = i;

	while (k + 1 < n && s[k] == '\\' && s[k + 1] != '\0' && strchr("\\()[]{}:=, \t", s[k + 1]))
		k += 2;
	return k - i;
}

/* QUOTED_VALUE: the quote, then the shortest body that ends in an even number
 * of backslashes (none included), then the same quote. */
static size_t
m_quoted(const char *s, size_t n, size_t i)
{
	char q = s[i];
	size_t bs = 0;

	for (size_t k = i + 1; k < n; k++) {
		if (s[k] == q && bs % 2 == 0)
			return k + 1 - i;
		bs = s[k] == '\\' ? bs + 1 : 0;
	}
	return 0;
}

/* INTERPOLATION: '${' ~'}'+ '}'.  *close caches the place of the next '}'
 * (n: none), so that a word of many "${" without one stays linear. */
static size_t
m_interp(const char *s, size_t n, size_t i, size_t *close)
{
	if (i + 2 >= n || s[i] != '$' || s[i + 1] != '{' || s[i + 2] == '}')
		return 0;
	if (*close < i + 3) {
		const char *c = memchr(s + i + 3, '}', n - i - 3);

		*close = c ? (size_t)(c - s) : n;
	}
	return *close < n ? *close + 1 - i : 0;
}

static void
push(struct px *p, enum tt type, size_t off, size_t len)
{
	MCINIT_GROW(p->t, p->cap, p->nt + 1);
	p->t[p->nt].type = type;
	p->t[p->nt].off = off;
	p->t[p->nt].len = len;
	p->nt++;
}

static size_t
ws_run(const char *s, size_t n, size_t i)
{
	size_t k = i;

	while (k < n && is_ws(s[k]))
		k++;
	return k - i;
}

/* One value-mode token at i: its type and length, or T_ERR. */
static enum tt
lex_value(const char *s, size_t n, size_t i, size_t *len, size_t *rbrace)
{
	size_t w = ws_run(s, n, i), j = i + w, best = 0, l;
	enum tt bt = T_ERR;

	/* the punctuation, whitespace around it included where the rule says */
	if (j < n) {
		const char *open = strchr("(,:=", s[j]);
		const char *close = strchr(")]}", s[j]);

		if (s[j] != '\0' && open != NULL) {
			*len = w + 1 + ws_run(s, n, j + 1);
			return s[j] == '('   ? T_POPEN
			       : s[j] == ',' ? T_COMMA
			       : s[j] == ':' ? T_COLON
			                     : T_EQUAL;
		}
		if (s[j] != '\0' && close != NULL) {
			*len = w + 1;
			return s[j] == ')' ? T_PCLOSE : s[j] == ']' ? T_BCLOSE : T_CCLOSE;
		}
	}
	if (w > 0) {
		*len = w;
		return T_WS;
	}
	if (s[i] == '[' || s[i] == '{') {
		*len = 1 + ws_run(s, n, i + 1);
		return s[i] == '[' ? T_BOPEN : T_COPEN;
	}
#define TRY(type, expr)                                                                            \
	do {                                                                                       \
		l = (expr);                                                                        \
		if (l > best) {                                                                    \
			best = l;                                                                  \
			bt = (type);                                                               \
		}                                                                                  \
	} while (0)
	TRY(T_FLOAT, m_float(s, n, i));
	TRY(T_INT, m_int(s, n, i));
	TRY(T_BOOL, m_word(s, n, i, "true") ? 4 : m_word(s, n, i, "false"));
	TRY(T_NULL, m_word(s, n, i, "null"));
	TRY(T_UCHAR, s[i] != '\0' && strchr("/-\\+.$%*@?|", s[i]) ? 1 : 0);
	TRY(T_ID, m_id(s, n, i, 0));
	TRY(T_ESC, m_esc(s, n, i));
	TRY(T_QUOTED, s[i] == '\'' || s[i] == '"' ? m_quoted(s, n, i) : 0);
	TRY(T_INTERP, m_interp(s, n, i, rbrace));
#undef TRY
	*len = best;
	return bt;
}

/* One key-mode token at i. */
static enum tt
lex_key(const char *s, size_t n, size_t i, size_t *len)
{
	size_t lid, lks, ldp;

	*len = 1;
	switch (s[i]) {
	case '=':
		*len = 1 + ws_run(s, n, i + 1);
		return T_EQUAL;
	case '~':
		return T_TILDE;
	case '+':
		return T_PLUS;
	case '@':
		return T_AT;
	case ':':
		return T_COLON;
	case '/':
		return T_SLASH;
	default:
		break;
	}
	lid = m_id(s, n, i, 0);
	lks = m_id(s, n, i, 1);
	ldp = m_dot_path(s, n, i);
	if (ldp > lks && ldp > lid) {
		*len = ldp;
		return T_DOT_PATH;
	}
	if (lks > lid) {
		*len = lks;
		return T_KEY_SPECIAL;
	}
	*len = lid;
	return lid ? T_ID : T_ERR;
}

/* The whole word; a place no rule matches ends it with T_ERR. */
static void
lex(struct px *p)
{
	size_t i = 0, len, rbrace = 0;
	int value = 0;

	while (i < p->len) {
		enum tt t = value ? lex_value(p->s, p->len, i, &len, &rbrace)
		                  : lex_key(p->s, p->len, i, &len);

		if (t == T_ERR || len == 0) {
			push(p, T_ERR, i, 1);
			return;
		}
		push(p, t, i, len);
		if (t == T_EQUAL)
			value = 1;
		i += len;
	}
	push(p, T_EOF, p->len, 0);
}

/* ---- values ---- */

static val *
vnew_list(val *v, enum mcinit_hy_type type)
{
	memset(v, 0, sizeof *v);
	v->type = type;
	return v;
}

static void
vstr(val *v, const char *s, size_t n, int quoted)
{
	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_STR;
	v->text = mcinit_xmalloc(n + 1);
	memcpy(v->text, s, n);
	v->text[n] = '\0';
	v->len = n;
	v->quoted = quoted;
}

void
mcinit_hy_value_free(val *v)
{
	if (v == NULL)
		return;
	for (size_t k = 0; k < v->n; k++) {
		if (v->items)
			mcinit_hy_value_free(&v->items[k]);
		if (v->keys)
			mcinit_hy_value_free(&v->keys[k]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
	memset(v, 0, sizeof *v);
}

static void
vcopy(val *dst, const val *src)
{
	*dst = *src;
	if (src->text) {
		dst->text = mcinit_xmalloc(src->len + 1);
		memcpy(dst->text, src->text, src->len + 1);
	}
	if (src->items) {
		dst->items = mcinit_xcalloc(src->n ? src->n : 1, sizeof *dst->items);
		for (size_t k = 0; k < src->n; k++)
			vcopy(&dst->items[k], &src->items[k]);
	}
	if (src->keys) {
		dst->keys = mcinit_xcalloc(src->n ? src->n : 1, sizeof *dst->keys);
		for (size_t k = 0; k < src->n; k++)
			vcopy(&dst->keys[k], &src->keys[k]);
	}
}

static void
vappend(val *v, val *item, size_t *cap)
{
	MCINIT_GROW(v->items, *cap, v->n + 1);
	v->items[v->n++] = *item;
}

/* An int's text from Python-style digits: sign, digits and '_' (checked by
 * the caller); no leading zeros, no "-0". */
static void
vint(val *v, const char *s, size_t n)
{
	struct mcinit_buf b = {0};
	int neg = 0;
	size_t k = 0;

	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_INT;
	if (k < n && (s[k] == '+' || s[k] == '-'))
		neg = s[k++] == '-';
	while (k < n && (s[k] == '0' || s[k] == '_'))
		k++;
	if (neg && k < n)
		mcinit_buf_addc(&b, '-');
	for (; k < n; k++)
		if (s[k] != '_')
			mcinit_buf_addc(&b, s[k]);
	if (b.len == 0 || (b.len == 1 && b.data[0] == '-'))
		mcinit_buf_adds(&b, "0");
	v->text = mcinit_xstrdup(mcinit_buf_cstr(&b));
	v->len = b.len;
	mcinit_buf_free(&b);
}

static void
vfloat(val *v, double f)
{
	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_FLOAT;
	v->f = f;
}

static void
vbool(val *v, int b)
{
	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_BOOL;
	v->b = b != 0;
}

/* strtod of text without its '_' (the lexer or the caller checked it). */
static double
py_float(const char *s, size_t n)
{
	char *t = mcinit_xmalloc(n + 1);
	size_t m = 0;
	double f;

	for (size_t k = 0; k < n; k++)
		if (s[k] != '_')
			t[m++] = s[k];
	t[m] = '\0';
	f = strtod(t, NULL);
	free(t);
	return f;
}

void
mcinit_hy_float_repr(double f, char *buf, size_t size)
{
	char tmp[40], digits[24];
	int prec, e, nd = 0, neg = f < 0 || (f == 0 && signbit(f));
	struct mcinit_buf b = {0};
	const char *q;

	if (isnan(f)) {
		snprintf(buf, size, "nan");
		return;
	}
	if (isinf(f)) {
		snprintf(buf, size, "%sinf", f < 0 ? "-" : "");
		return;
	}
	if (f == 0) {
		snprintf(buf, size, "%s0.0", neg ? "-" : "");
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
	for (q = tmp; *q && *q != 'e'; q++)
		if (is_digit(*q))
			digits[nd++] = *q;
	e = atoi(q + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	if (neg)
		mcinit_buf_addc(&b, '-');
	if (e >= -4 && e < 16) {
		if (e >= 0) {
			for (int k = 0; k <= e; k++)
				mcinit_buf_addc(&b, k < nd ? digits[k] : '0');
			mcinit_buf_addc(&b, '.');
			if (nd > e + 1)
				mcinit_buf_adds(&b, digits + e + 1);
			else
				mcinit_buf_addc(&b, '0');
		} else {
			mcinit_buf_adds(&b, "0.");
			for (int k = 0; k < -e - 1; k++)
				mcinit_buf_addc(&b, '0');
			mcinit_buf_adds(&b, digits);
		}
	} else {
		mcinit_buf_addc(&b, digits[0]);
		if (nd > 1) {
			mcinit_buf_addc(&b, '.');
			mcinit_buf_adds(&b, digits + 1);
		}
		mcinit_buf_printf(&b, "e%c%02d", e < 0 ? '-' : '+', abs(e));
	}
	snprintf(buf, size, "%s", mcinit_buf_cstr(&b));
	mcinit_buf_free(&b);
}

/* _createPrimitive: the tokens [a, b) of a primitive or a dict key. */
static int
primitive(struct px *p, size_t a, size_t b, val *out)
{
	const char *s = p->s;
	struct tok *t;

	if (p->t[a].type == T_WS) {
		if (b - a == 1)
			return fail_at(p, p->t[a].off, "whitespace",
			               "Trying to parse a primitive that is all whitespaces");
		a++;
	}
	if (p->t[b - 1].type == T_WS)
		b--;
	if (b - a > 1) {
		struct mcinit_buf buf = {0};

		for (size_t k = a; k < b; k++) {
			t = &p->t[k];
			if (t->type == T_ESC)
				for (size_t j = 1; j < t->len; j += 2)
					mcinit_buf_addc(&buf, s[t->off + j]);
			else
				mcinit_buf_add(&buf, s + t->off, t->len);
		}
		vstr(out, buf.data ? buf.data : "", buf.len, 0);
		mcinit_buf_free(&buf);
		return 0;
	}
	t = &p->t[a];
	switch (t->type) {
	case T_QUOTED: {
		/* _unescape_quoted_string: each run of backslashes before a quote
		 * (an escaped quote in the body, or the run before the closing one)
		 * keeps every other backslash */
		struct mcinit_buf buf = {0};
		const char *q = s + t->off;
		size_t n = t->len, k = 1;

		while (k < n - 1) {
			size_t r = k;

			while (r < n && q[r] == '\\')
				r++;
			if (r > k && r < n && q[r] == q[0]) {
				size_t m = r - k;

				/* the run and the quote become every other char of "\\...\q" */
				for (size_t j = k + 1; j <= r; j += 2)
					mcinit_buf_addc(&buf, q[j]);
				(void)m;
				k = r + 1;
				continue;
			}
			if (r > k) {
				mcinit_buf_add(&buf, q + k, r - k);
				k = r;
				continue;
			}
			mcinit_buf_addc(&buf, q[k]);
			k++;
		}
		vstr(out, buf.data ? buf.data : "", buf.len, 1);
		mcinit_buf_free(&buf);
		return 0;
	}
	case T_ID:
	case T_INTERP:
	case T_UCHAR:
	case T_COLON:
		vstr(out, s + t->off, t->len, 0);
		return 0;
	case T_INT:
		vint(out, s + t->off, t->len);
		return 0;
	case T_FLOAT:
		vfloat(out, py_float(s + t->off, t->len));
		return 0;
	case T_NULL:
		vnew_list(out, MCINIT_HY_NULL);
		return 0;
	case T_BOOL:
		vbool(out, s[t->off] == 't' || s[t->off] == 'T');
		return 0;
	case T_ESC: {
		struct mcinit_buf buf = {0};

		for (size_t j = 1; j < t->len; j += 2)
			mcinit_buf_addc(&buf, s[t->off + j]);
		vstr(out, buf.data, buf.len, 0);
		mcinit_buf_free(&buf);
		return 0;
	}
	default:
		vstr(out, s + t->off, t->len, 0);
		return 0;
	}
}

/* ---- the functions ---- */

/* What a value is, as a bit, for the type checks of the functions' signatures
 * (Hydra's is_type_matching: a Union is isinstance, so a bool is an int). */
enum {
	K_NONE = 1,
	K_BOOL = 2,
	K_INT = 4,
	K_FLOAT = 8,
	K_STR = 16,
	K_LIST = 32,
	K_DICT = 64,
	K_CHOICE = 128,
	K_RANGE = 256,
	K_INTERVAL = 512,
	K_GLOB = 1024,
	K_PRIM = K_BOOL | K_INT | K_FLOAT | K_STR,
	K_ELEM = K_PRIM | K_LIST | K_DICT,
	K_NUM = K_BOOL | K_INT | K_FLOAT,
	K_SWEEP = K_CHOICE | K_RANGE | K_INTERVAL,
};

static int
kind(const val *v)
{
	switch (v->type) {
	case MCINIT_HY_NULL:
		return K_NONE;
	case MCINIT_HY_BOOL:
		return K_BOOL;
	case MCINIT_HY_INT:
		return K_INT;
	case MCINIT_HY_FLOAT:
		return K_FLOAT;
	case MCINIT_HY_STR:
		return K_STR;
	case MCINIT_HY_LIST:
		return K_LIST;
	case MCINIT_HY_DICT:
		return K_DICT;
	case MCINIT_HY_SWEEP:
		return v->sweep == MCINIT_HY_CHOICE     ? K_CHOICE
		       : v->sweep == MCINIT_HY_RANGE    ? K_RANGE
		       : v->sweep == MCINIT_HY_INTERVAL ? K_INTERVAL
		                                        : K_GLOB;
	}
	return 0;
}

/* Matches a Union: a bool is also an int. */
static int
is(const val *v, int mask)
{
	int k = kind(v);

	return (k & mask) != 0 || (k == K_BOOL && (mask & K_INT));
}

struct fn {
	const char *name;
	int varargs; /* *args, whose type is vmask */
	int vmask;
	const char *params[4]; /* named parameters, keyword-only after *args */
	int masks[4];
	int required; /* how many of the first params are required */
};

static const struct fn fns[] = {
    {"int", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"float", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"str", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"bool", 1, K_ELEM | K_NONE | K_SWEEP, {"value"}, {K_ELEM | K_NONE | K_SWEEP}, 0},
    {"choice", 1, K_ELEM | K_CHOICE, {NULL}, {0}, 0},
    {"range", 0, 0, {"start", "stop", "step"}, {K_NUM, K_NUM | K_NONE, K_NUM}, 1},
    {"interval", 0, 0, {"start", "end"}, {K_NUM, K_NUM}, 2},
    {"tag", 1, K_STR | K_SWEEP, {"sweep"}, {K_NONE | K_SWEEP}, 0},
    {"sort",
     1,
     K_ELEM | K_CHOICE | K_RANGE,
     {"sweep", "list", "reverse"},
     {K_NONE | K_CHOICE | K_RANGE, K_NONE | K_LIST, -1},
     0},
    {"shuffle",
     1,
     K_ELEM | K_CHOICE | K_RANGE,
     {"sweep", "list"},
     {K_NONE | K_CHOICE | K_RANGE, K_NONE | K_LIST},
     0},
    {"glob", 0, 0, {"include", "exclude"}, {K_LIST | K_STR, K_NONE | K_LIST | K_STR}, 1},
};

struct args {
	val *pos;
	size_t npos, cappos;
	char **names;
	val *kw;
	size_t nkw, capkw, capnames;
};

static void
args_free(struct args *a)
{
	for (size_t k = 0; k < a->npos; k++)
		mcinit_hy_value_free(&a->pos[k]);
	for (size_t k = 0; k < a->nkw; k++) {
		mcinit_hy_value_free(&a->kw[k]);
		free(a->names[k]);
	}
	free(a->pos);
	free(a->kw);
	free(a->names);
}

static int
ffail(struct px *p, size_t off, const char *fname, const char *msg)
{
	return fail_at(p, off, "function", "while evaluating '%s(...)': %s", fname, msg);
}

/* Python's float(text) on a string: whitespace around, a sign, digits with
 * single '_' between them, a point, an exponent, or inf/infinity/nan. */
static int
str_to_float(const char *s, size_t n, double *f)
{
	size_t a = 0, b = n, k;

	while (a < b && isspace((unsigned char)s[a]))
		a++;
	while (b > a && isspace((unsigned char)s[b - 1]))
		b--;
	k = a;
	if (k < b && (s[k] == '+' || s[k] == '-'))
		k++;
	if ((b - k == 3 &&
	     (strncasecmp(s + k, "inf", 3) == 0 || strncasecmp(s + k, "nan", 3) == 0)) ||
	    (b - k == 8 && strncasecmp(s + k, "infinity", 8) == 0)) {
		int neg = s[a] == '-';

		*f = tolower((unsigned char)s[k]) == 'n' ? NAN : neg ? -INFINITY : INFINITY;
		return 0;
	}
	{
		size_t il = m_digits(s, b, k), fl = 0;
		size_t j = k + il;

		if (j < b && s[j] == '.') {
			fl = m_digits(s, b, j + 1);
			j += 1 + fl;
		}
		if (il == 0 && fl == 0)
			return -1;
		if (j < b && (s[j] == 'e' || s[j] == 'E')) {
			size_t e = j + 1, el;

			if (e < b && (s[e] == '+' || s[e] == '-'))
				e++;
			el = m_digits(s, b, e);
			if (el == 0)
				return -1;
			j = e + el;
		}
		if (j != b)
			return -1;
	}
	*f = py_float(s + a, b - a);
	return 0;
}

/* Python's int(text) on a string. */
static int
str_to_int(const char *s, size_t n, val *out)
{
	size_t a = 0, b = n, k;

	while (a < b && isspace((unsigned char)s[a]))
		a++;
	while (b > a && isspace((unsigned char)s[b - 1]))
		b--;
	k = a;
	if (k < b && (s[k] == '+' || s[k] == '-'))
		k++;
	if (m_digits(s, b, k) != b - k || b == k)
		return -1;
	vint(out, s + a, b - a);
	return 0;
}

static int cast(struct px *p, size_t off, const char *fn, const val *in, val *out);

static int
cast_items(struct px *p, size_t off, const char *fn, const val *in, val *out)
{
	vcopy(out, in);
	for (size_t k = 0; k < out->n; k++) {
		val r;

		if (cast(p, off, fn, &in->items[k], &r) < 0) {
			mcinit_hy_value_free(out);
			return -1;
		}
		mcinit_hy_value_free(&out->items[k]);
		out->items[k] = r;
		/* cast_choice asserts that each choice cast is an element */
		if (in->type == MCINIT_HY_SWEEP && in->sweep == MCINIT_HY_CHOICE &&
		    r.type == MCINIT_HY_SWEEP) {
			mcinit_hy_value_free(out);
			return ffail(p, off, fn, "AssertionError");
		}
	}
	return 0;
}

/* cast_int, cast_float, cast_str, cast_bool on one value. */
static int
cast(struct px *p, size_t off, const char *fn, const val *in, val *out)
{
	char c = fn[0];
	char buf[40];

	switch (in->type) {
	case MCINIT_HY_LIST:
	case MCINIT_HY_DICT:
		return cast_items(p, off, fn, in, out);
	case MCINIT_HY_SWEEP:
		if (in->sweep == MCINIT_HY_RANGE && c != 'i' && c != 'f')
			return ffail(p, off, fn, "Range can only be cast to int or float");
		if (in->sweep == MCINIT_HY_INTERVAL && (c == 's' || c == 'b'))
			return ffail(p, off, fn, "Intervals cannot be cast");
		return cast_items(p, off, fn, in, out);
	case MCINIT_HY_NULL:
		if (c == 'b') {
			vbool(out, 0);
			return 0;
		}
		return ffail(p, off, fn, "AssertionError");
	default:
		break;
	}
	switch (c) {
	case 'i': /* int */
		if (in->type == MCINIT_HY_INT) {
			vcopy(out, in);
		} else if (in->type == MCINIT_HY_BOOL) {
			vint(out, in->b ? "1" : "0", 1);
		} else if (in->type == MCINIT_HY_FLOAT) {
			char *t;

			if (isnan(in->f))
				return ffail(p, off, fn,
				             "ValueError: cannot convert float NaN to integer");
			if (isinf(in->f))
				return ffail(
				    p, off, fn,
				    "OverflowError: cannot convert float infinity to integer");
			/* glibc prints a double's exact value: Python's int() of it */
			t = mcinit_xasprintf("%.0f", trunc(in->f));
			vint(out, t, strlen(t));
			free(t);
		} else if (str_to_int(in->text, in->len, out) < 0) {
			return ffail(p, off, fn,
			             "ValueError: invalid literal for int() with base 10");
		}
		return 0;
	case 'f': /* float */
		if (in->type == MCINIT_HY_FLOAT) {
			vcopy(out, in);
		} else if (in->type == MCINIT_HY_BOOL) {
			vfloat(out, in->b);
		} else if (in->type == MCINIT_HY_INT) {
			double f = strtod(in->text, NULL);

			if (isinf(f))
				return ffail(p, off, fn,
				             "OverflowError: int too large to convert to float");
			vfloat(out, f);
		} else {
			double f;

			if (str_to_float(in->text, in->len, &f) < 0)
				return ffail(p, off, fn,
				             "ValueError: could not convert string to float");
			vfloat(out, f);
		}
		return 0;
	case 's': /* str */
		if (in->type == MCINIT_HY_STR)
			vstr(out, in->text, in->len, 0);
		else if (in->type == MCINIT_HY_BOOL)
			vstr(out, in->b ? "true" : "false", in->b ? 4 : 5, 0);
		else if (in->type == MCINIT_HY_INT)
			vstr(out, in->text, strlen(in->text), 0);
		else {
			mcinit_hy_float_repr(in->f, buf, sizeof buf);
			vstr(out, buf, strlen(buf), 0);
		}
		return 0;
	default: /* bool */
		if (in->type == MCINIT_HY_STR) {
			if (in->len == 4 && strncasecmp(in->text, "true", 4) == 0)
				vbool(out, 1);
			else if (in->len == 5 && strncasecmp(in->text, "false", 5) == 0)
				vbool(out, 0);
			else
				return ffail(p, off, fn, "ValueError: Cannot cast to bool");
		} else if (in->type == MCINIT_HY_BOOL) {
			vbool(out, in->b);
		} else if (in->type == MCINIT_HY_INT) {
			vbool(out, strcmp(in->text, "0") != 0);
		} else {
			vbool(out, in->f != 0 || isnan(in->f));
		}
		return 0;
	}
}

/* _list_to_simple_choice asserts that each argument is an element (None
 * included), never a sweep. */
static bool
all_elements(const struct args *a)
{
	for (size_t k = 0; k < a->npos; k++)
		if (a->pos[k].type == MCINIT_HY_SWEEP)
			return false;
	return true;
}

static void
simple_choice(val *out, val *items, size_t n)
{
	memset(out, 0, sizeof *out);
	out->type = MCINIT_HY_SWEEP;
	out->sweep = MCINIT_HY_CHOICE;
	out->simple = 1;
	out->n = n;
	out->items = mcinit_xcalloc(n ? n : 1, sizeof *out->items);
	for (size_t k = 0; k < n; k++)
		vcopy(&out->items[k], &items[k]);
}

/* Python's a < b for the values sort() compares: 1, 0, or -1 with a TypeError. */
static int
lt(const val *a, const val *b)
{
	int ka = kind(a), kb = kind(b);

	if ((ka & K_NUM) && (kb & K_NUM)) {
		if (ka == K_INT && kb == K_INT) {
			int na = a->text[0] == '-', nb = b->text[0] == '-';
			size_t la = strlen(a->text), lb = strlen(b->text);
			int c;

			if (na != nb)
				return na;
			c = la != lb ? (la < lb ? -1 : 1) : strcmp(a->text, b->text);
			return na ? c > 0 : c < 0;
		}
		{
			double x = ka == K_BOOL ? a->b : ka == K_INT ? strtod(a->text, NULL) : a->f;
			double y = kb == K_BOOL ? b->b : kb == K_INT ? strtod(b->text, NULL) : b->f;

			return x < y;
		}
	}
	if (ka == K_STR && kb == K_STR) {
		size_t m = a->len < b->len ? a->len : b->len;
		int c = memcmp(a->text, b->text, m);

		return c != 0 ? c < 0 : a->len < b->len;
	}
	if (ka == K_LIST && kb == K_LIST) {
		for (size_t k = 0; k < a->n && k < b->n; k++) {
			int x = lt(&a->items[k], &b->items[k]), y;

			if (x != 0)
				return x;
			y = lt(&b->items[k], &a->items[k]);
			if (y != 0)
				return y < 0 ? -1 : 0;
		}
		return a->n < b->n;
	}
	return -1;
}

/* sorted(): CPython's binary insertion sort after its first run (what its
 * timsort does for short lists), so that the comparisons it makes, and the
 * TypeError of an incomparable pair, are the same; reverse as CPython does. */
static int
py_sort(val *a, size_t n, int reverse)
{
	size_t i;

	if (reverse)
		for (size_t k = 0; k < n / 2; k++) {
			val t = a[k];
			a[k] = a[n - 1 - k];
			a[n - 1 - k] = t;
		}
	if (n >= 2) {
		int c = lt(&a[1], &a[0]);

		if (c < 0)
			return -1;
		if (c) {
			for (i = 2; i < n; i++) {
				c = lt(&a[i], &a[i - 1]);
				if (c < 0)
					return -1;
				if (!c)
					break;
			}
			for (size_t k = 0; k < i / 2; k++) {
				val t = a[k];
				a[k] = a[i - 1 - k];
				a[i - 1 - k] = t;
			}
		} else {
			for (i = 2; i < n; i++) {
				c = lt(&a[i], &a[i - 1]);
				if (c < 0)
					return -1;
				if (c)
					break;
			}
		}
		for (; i < n; i++) {
			val pivot = a[i];
			size_t l = 0, r = i;

			while (l < r) {
				size_t m = (l + r) / 2;

				c = lt(&pivot, &a[m]);
				if (c < 0)
					return -1;
				if (c)
					r = m;
				else
					l = m + 1;
			}
			memmove(a + l + 1, a + l, (i - l) * sizeof *a);
			a[l] = pivot;
		}
	}
	if (reverse)
		for (size_t k = 0; k < n / 2; k++) {
			val t = a[k];
			a[k] = a[n - 1 - k];
			a[n - 1 - k] = t;
		}
	return 0;
}

static int
sort_sweep(struct px *p, size_t off, const val *in, int reverse, val *out)
{
	vcopy(out, in);
	if (in->sweep == MCINIT_HY_CHOICE && py_sort(out->items, out->n, reverse) < 0) {
		mcinit_hy_value_free(out);
		return ffail(p, off, "sort",
		             "TypeError: '<' not supported between these instances");
	}
	return 0;
}

/* Functions.eval: binds the arguments as Python would, checks their types,
 * then runs the function. */
static int
call(struct px *p, size_t off, const char *name, size_t nlen, struct args *a, val *out)
{
	const struct fn *f = NULL;
	const val *bound[4] = {NULL};
	size_t nparams = 0;

	for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
		if (strlen(fns[k].name) == nlen && strncmp(fns[k].name, name, nlen) == 0)
			f = &fns[k];
	if (f == NULL)
		return fail_at(p, off, "function", "Unknown function '%.*s'", (int)nlen, name);
	while (nparams < 4 && f->params[nparams])
		nparams++;
	if (!f->varargs) {
		if (a->npos > nparams)
			return ffail(p, off, f->name, "TypeError: too many positional arguments");
		for (size_t k = 0; k < a->npos; k++)
			bound[k] = &a->pos[k];
	}
	for (size_t k = 0; k < a->nkw; k++) {
		size_t j;

		for (j = 0; j < nparams; j++)
			if (strcmp(f->params[j], a->names[k]) == 0)
				break;
		if (j == nparams)
			return ffail(p, off, f->name,
			             "TypeError: got an unexpected keyword argument");
		if (bound[j] != NULL && !f->varargs && j < a->npos)
			return ffail(p, off, f->name, "TypeError: multiple values for argument");
		bound[j] = &a->kw[k];
	}
	for (int k = 0; k < f->required; k++)
		if (bound[k] == NULL)
			return ffail(p, off, f->name, "TypeError: missing a required argument");
	if (f->varargs)
		for (size_t k = 0; k < a->npos; k++)
			if (!is(&a->pos[k], f->vmask))
				return ffail(p, off, f->name, "TypeError: mismatch type argument");
	for (size_t k = 0; k < nparams; k++)
		if (bound[k] != NULL && (f->masks[k] < 0 ? bound[k]->type != MCINIT_HY_BOOL
		                                         : !is(bound[k], f->masks[k])))
			return ffail(p, off, f->name, "TypeError: mismatch type argument");

	switch (f->name[0] == 's' ? f->name[1] : f->name[0]) {
	case 'n': /* int */
	case 'i':
		if (strcmp(f->name, "interval") == 0) {
			memset(out, 0, sizeof *out);
			out->type = MCINIT_HY_SWEEP;
			out->sweep = MCINIT_HY_INTERVAL;
			out->n = 2;
			out->items = mcinit_xcalloc(2, sizeof *out->items);
			for (int k = 0; k < 2; k++)
				if (cast(p, off, "float", bound[k], &out->items[k]) < 0) {
					mcinit_hy_value_free(out);
					return -1;
				}
			return 0;
		}
		/* fallthrough */
	case 'f':
	case 't':
	case 'b': {
		const val *v;
		val sc;
		int r;

		if (f->name[0] == 's' && f->name[1] == 't' && f->name[2] == 'r') {
			/* str: below */
		} else if (strcmp(f->name, "tag") == 0) {
			const val *last;

			if (a->npos < 1 && bound[0] == NULL)
				return ffail(p, off, f->name,
				             "ValueError: Not enough arguments to tag");
			last = bound[0] && bound[0]->type != MCINIT_HY_NULL ? bound[0]
			       : a->npos                                    ? &a->pos[a->npos - 1]
			                                                    : bound[0];
			if (a->npos < 1)
				return ffail(p, off, f->name,
				             "ValueError: Not enough arguments to tag");
			if (!is(last, K_SWEEP))
				return ffail(p, off, f->name,
				             "ValueError: Last argument to tag() must be a sweep");
			for (size_t k = 0; k + (last == &a->pos[a->npos - 1]) < a->npos; k++)
				if (a->pos[k].type != MCINIT_HY_STR)
					return ffail(
					    p, off, f->name,
					    "ValueError: tag arguments type must be string");
			vcopy(out, last);
			return 0;
		}
		if (a->npos > 0 && bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL)
			return ffail(p, off, f->name,
			             "TypeError: cannot use both position and named arguments");
		if (bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL) {
			v = bound[0];
		} else if (a->npos == 0) {
			return ffail(p, off, f->name,
			             "TypeError: No positional args or value specified");
		} else if (a->npos == 1) {
			v = &a->pos[0];
		} else {
			if (!all_elements(a))
				return ffail(p, off, f->name, "AssertionError");
			simple_choice(&sc, a->pos, a->npos);
			r = cast(p, off, f->name, &sc, out);
			mcinit_hy_value_free(&sc);
			return r;
		}
		return cast(p, off, f->name, v, out);
	}
	case 'c': /* choice */
		if (a->npos == 0)
			return ffail(p, off, f->name, "ValueError: empty choice is not legal");
		if (a->npos == 1 && a->pos[0].type == MCINIT_HY_SWEEP) {
			if (!a->pos[0].simple)
				return ffail(p, off, f->name,
				             "ValueError: nesting choices is not supported");
			vcopy(out, &a->pos[0]);
			out->simple = 0;
			return 0;
		}
		simple_choice(out, a->pos, a->npos);
		out->simple = 0;
		return 0;
	case 'r': /* range */
		memset(out, 0, sizeof *out);
		out->type = MCINIT_HY_SWEEP;
		out->sweep = MCINIT_HY_RANGE;
		out->n = 3;
		out->items = mcinit_xcalloc(3, sizeof *out->items);
		if (bound[1] == NULL || bound[1]->type == MCINIT_HY_NULL) {
			vint(&out->items[0], "0", 1);
			vcopy(&out->items[1], bound[0]);
		} else {
			vcopy(&out->items[0], bound[0]);
			vcopy(&out->items[1], bound[1]);
		}
		if (bound[2])
			vcopy(&out->items[2], bound[2]);
		else
			vint(&out->items[2], "1", 1);
		return 0;
	case 'g': /* glob */
		memset(out, 0, sizeof *out);
		out->type = MCINIT_HY_SWEEP;
		out->sweep = MCINIT_HY_GLOB;
		return 0;
	case 'o': /* sort */ {
		int reverse = bound[2] != NULL && bound[2]->b;

		if (bound[1] != NULL && bound[1]->type != MCINIT_HY_NULL) {
			vcopy(out, bound[1]);
			if (py_sort(out->items, out->n, reverse) < 0) {
				mcinit_hy_value_free(out);
				return ffail(p, off, f->name, "TypeError: '<' not supported");
			}
			return 0;
		}
		if (bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL)
			return sort_sweep(p, off, bound[0], reverse, out);
		if (a->npos == 1) {
			const val *v = &a->pos[0];

			if (v->type == MCINIT_HY_SWEEP)
				return sort_sweep(p, off, v, reverse, out);
			vcopy(out, v);
			if (v->type == MCINIT_HY_LIST && py_sort(out->items, out->n, reverse) < 0) {
				mcinit_hy_value_free(out);
				return ffail(p, off, f->name, "TypeError: '<' not supported");
			}
			return 0;
		}
		for (size_t k = 0; k < a->npos; k++)
			if (!is(&a->pos[k], K_PRIM))
				return ffail(p, off, f->name, "TypeError: Invalid arguments");
		if (a->npos == 0)
			return ffail(p, off, f->name, "ValueError: empty sort input");
		{
			val sc;
			int r;

			simple_choice(&sc, a->pos, a->npos);
			r = sort_sweep(p, off, &sc, reverse, out);
			mcinit_hy_value_free(&sc);
			return r;
		}
	}
	case 'h': /* shuffle: the order is random in Hydra; mcinit keeps it */
		if (bound[1] != NULL && bound[1]->type != MCINIT_HY_NULL) {
			vcopy(out, bound[1]);
			return 0;
		}
		if (bound[0] != NULL && bound[0]->type != MCINIT_HY_NULL) {
			vcopy(out, bound[0]);
			return 0;
		}
		if (a->npos == 1) {
			if (a->pos[0].type == MCINIT_HY_SWEEP || a->pos[0].type == MCINIT_HY_LIST) {
				vcopy(out, &a->pos[0]);
			} else {
				size_t cap = 0;

				vnew_list(out, MCINIT_HY_LIST);
				val c;
				vcopy(&c, &a->pos[0]);
				vappend(out, &c, &cap);
			}
			return 0;
		}
		if (!all_elements(a))
			return ffail(p, off, f->name, "AssertionError");
		simple_choice(out, a->pos, a->npos);
		return 0;
	default:
		break;
	}
	return fail_at(p, off, "function", "Unknown function '%.*s'", (int)nlen, name);
}

/* ---- the parser ---- */

static enum tt
peek(struct px *p, size_t ahead)
{
	size_t k = p->i + ahead;

	return k < p->nt ? p->t[k].type : T_EOF;
}

static int
unexpected(struct px *p)
{
	struct tok *t = &p->t[p->i];

	if (t->type == T_ERR)
		return fail_at(p, t->off, "lex", "token recognition error at: '%.1s'",
		               p->s + t->off);
	if (t->type == T_EOF)
		return fail_at(p, t->off, "syntax", "mismatched input '<EOF>'");
	return fail_at(p, t->off, "syntax", "mismatched input '%.*s'",
	               (int)(t->len > 40 ? 40 : t->len), p->s + t->off);
}

static int
is_prim_tok(enum tt t, int dict_key)
{
	switch (t) {
	case T_ID:
	case T_NULL:
	case T_INT:
	case T_FLOAT:
	case T_BOOL:
	case T_UCHAR:
	case T_ESC:
	case T_WS:
		return 1;
	case T_INTERP:
	case T_COLON:
		return !dict_key;
	default:
		return 0;
	}
}

static int element(struct px *p, val *out);

/* function: ID POPEN (argName? element (COMMA argName? element)*)? PCLOSE */
static int
function(struct px *p, val *out)
{
	struct tok *name = &p->t[p->i];
	struct args a = {0};
	int in_kw = 0, r;

	p->i += 2;
	if (peek(p, 0) != T_PCLOSE) {
		for (;;) {
			val v;
			char *kw = NULL;
			size_t at = p->t[p->i].off;

			if (peek(p, 0) == T_ID && peek(p, 1) == T_EQUAL) {
				kw = mcinit_xasprintf("%.*s", (int)p->t[p->i].len,
				                      p->s + p->t[p->i].off);
				p->i += 2;
			}
			if (element(p, &v) < 0) {
				free(kw);
				args_free(&a);
				return -1;
			}
			if (kw != NULL) {
				size_t k;

				in_kw = 1;
				/* a repeated name: the last value, as in a Python dict */
				for (k = 0; k < a.nkw; k++)
					if (strcmp(a.names[k], kw) == 0)
						break;
				if (k < a.nkw) {
					mcinit_hy_value_free(&a.kw[k]);
					a.kw[k] = v;
					free(kw);
				} else {
					MCINIT_GROW(a.kw, a.capkw, a.nkw + 1);
					MCINIT_GROW(a.names, a.capnames, a.nkw + 1);
					a.kw[a.nkw] = v;
					a.names[a.nkw++] = kw;
				}
			} else {
				if (in_kw) {
					mcinit_hy_value_free(&v);
					args_free(&a);
					return fail_at(
					    p, at, "function",
					    "positional argument follows keyword argument");
				}
				MCINIT_GROW(a.pos, a.cappos, a.npos + 1);
				a.pos[a.npos++] = v;
			}
			if (peek(p, 0) != T_COMMA)
				break;
			p->i++;
		}
	}
	if (peek(p, 0) != T_PCLOSE) {
		args_free(&a);
		return unexpected(p);
	}
	p->i++;
	r = call(p, name->off, p->s + name->off, name->len, &a, out);
	args_free(&a);
	return r;
}

/* Python's == between dict keys (None, bool, int, float, str): the later
 * value of an equal key replaces the earlier one's, which keeps its place. */
static int
key_eq(const val *a, const val *b)
{
	int ka = kind(a), kb = kind(b);

	if ((ka & K_NUM) && (kb & K_NUM)) {
		if (ka == K_INT && kb == K_INT)
			return strcmp(a->text, b->text) == 0;
		{
			double x = ka == K_BOOL ? a->b : ka == K_INT ? strtod(a->text, NULL) : a->f;
			double y = kb == K_BOOL ? b->b : kb == K_INT ? strtod(b->text, NULL) : b->f;

			return x == y;
		}
	}
	if (ka == K_STR && kb == K_STR)
		return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
	return ka == K_NONE && kb == K_NONE;
}

static int
container(struct px *p, val *out, int dict)
{
	size_t cap = 0;
	enum tt close = dict ? T_CCLOSE : T_BCLOSE;

	vnew_list(out, dict ? MCINIT_HY_DICT : MCINIT_HY_LIST);
	p->i++;
	if (peek(p, 0) != close) {
		for (;;) {
			val k = {0}, v;
			size_t slot = out->n;

			if (dict) {
				size_t a = p->i;

				while (is_prim_tok(peek(p, 0), 1))
					p->i++;
				if (p->i == a || peek(p, 0) != T_COLON) {
					mcinit_hy_value_free(out);
					return unexpected(p);
				}
				if (primitive(p, a, p->i, &k) < 0) {
					mcinit_hy_value_free(out);
					return -1;
				}
				p->i++;
				for (size_t j = 0; j < out->n; j++)
					if (key_eq(&out->keys[j], &k))
						slot = j;
			}
			if (element(p, &v) < 0) {
				mcinit_hy_value_free(&k);
				mcinit_hy_value_free(out);
				return -1;
			}
			if (slot < out->n) {
				mcinit_hy_value_free(&k);
				mcinit_hy_value_free(&out->items[slot]);
				out->items[slot] = v;
			} else {
				size_t c2 = cap;

				vappend(out, &v, &cap);
				if (dict) {
					if (c2 != cap || out->keys == NULL)
						out->keys = mcinit_xrealloc(
						    out->keys, cap * sizeof *out->keys);
					out->keys[out->n - 1] = k;
				}
			}
			if (peek(p, 0) != T_COMMA)
				break;
			p->i++;
		}
	}
	if (peek(p, 0) != close) {
		mcinit_hy_value_free(out);
		return unexpected(p);
	}
	p->i++;
	/* to size: a list of a million small lists would otherwise hold room for
	 * eight items in each */
	if (out->n < cap) {
		out->items = mcinit_xrealloc(out->items, out->n * sizeof *out->items);
		if (dict)
			out->keys = mcinit_xrealloc(out->keys, out->n * sizeof *out->keys);
	}
	return 0;
}

/* element: primitive | listContainer | dictContainer | function */
static int
element(struct px *p, val *out)
{
	enum tt t = peek(p, 0);
	int r;

	/* Python frames Hydra spends on this level (hydra.h) */
	int cost = t == T_COPEN ? 4 : 2;

	memset(out, 0, sizeof *out);
	if (p->depth + cost > MCINIT_HYDRA_MAX_NEST)
		return fail_at(p, p->t[p->i].off, "depth",
		               "nested too deeply (Hydra: RecursionError)");
	p->depth += cost;
	if (t == T_ID && peek(p, 1) == T_POPEN) {
		r = function(p, out);
	} else if (t == T_BOPEN || t == T_COPEN) {
		r = container(p, out, t == T_COPEN);
	} else if (t == T_QUOTED) {
		r = primitive(p, p->i, p->i + 1, out);
		p->i++;
	} else if (is_prim_tok(t, 0)) {
		size_t a = p->i;

		while (is_prim_tok(peek(p, 0), 0))
			p->i++;
		r = primitive(p, a, p->i, out);
	} else {
		r = unexpected(p);
	}
	p->depth -= cost;
	return r;
}

/* value: element | simpleChoiceSweep */
static int
value(struct px *p, val *out)
{
	val first;
	size_t cap = 0;

	if (element(p, &first) < 0)
		return -1;
	if (peek(p, 0) != T_COMMA) {
		*out = first;
		return 0;
	}
	memset(out, 0, sizeof *out);
	out->type = MCINIT_HY_SWEEP;
	out->sweep = MCINIT_HY_CHOICE;
	out->simple = 1;
	vappend(out, &first, &cap);
	while (peek(p, 0) == T_COMMA) {
		val v;

		p->i++;
		if (element(p, &v) < 0) {
			mcinit_hy_value_free(out);
			return -1;
		}
		vappend(out, &v, &cap);
	}
	return 0;
}

/* package: ( | ID | KEY_SPECIAL | DOT_PATH ) */
static char *
package(struct px *p)
{
	enum tt t = peek(p, 0);

	if (t == T_ID || t == T_KEY_SPECIAL || t == T_DOT_PATH) {
		struct tok *k = &p->t[p->i++];

		return mcinit_xasprintf("%.*s", (int)k->len, p->s + k->off);
	}
	return mcinit_xstrdup("");
}

/* key: packageOrGroup (AT package)?; packageOrGroup: package | ID (SLASH ID)+ */
static void
key(struct px *p, struct mcinit_hy_override *o)
{
	if (peek(p, 0) == T_ID && peek(p, 1) == T_SLASH) {
		size_t a = p->i;

		p->i++;
		while (peek(p, 0) == T_SLASH && peek(p, 1) == T_ID)
			p->i += 2;
		o->key = mcinit_xasprintf(
		    "%.*s", (int)(p->t[p->i - 1].off + p->t[p->i - 1].len - p->t[a].off),
		    p->s + p->t[a].off);
	} else {
		o->key = package(p);
	}
	if (peek(p, 0) == T_AT) {
		p->i++;
		o->package = package(p);
	}
}

int
mcinit_hydra_parse(const char *word, size_t len, struct mcinit_hy_override *out,
                   struct mcinit_hy_error *e)
{
	struct px p = {.s = word, .len = len, .e = e};
	struct mcinit_hy_override o = {0};
	int r = -1;

	memset(e, 0, sizeof *e);
	memset(out, 0, sizeof *out);
	lex(&p);
	if (peek(&p, 0) == T_TILDE) {
		o.kind = MCINIT_HY_DELETE;
		p.i++;
	} else if (peek(&p, 0) == T_PLUS) {
		o.kind = MCINIT_HY_ADD;
		p.i++;
		if (peek(&p, 0) == T_PLUS) {
			o.kind = MCINIT_HY_FORCE_ADD;
			p.i++;
		}
	}
	key(&p, &o);
	if (peek(&p, 0) == T_EQUAL) {
		p.i++;
		o.has_value = 1;
		if (peek(&p, 0) == T_EOF)
			vstr(&o.value, "", 0, 0);
		else if (value(&p, &o.value) < 0)
			goto done;
	} else if (o.kind != MCINIT_HY_DELETE) {
		unexpected(&p);
		goto done;
	}
	if (peek(&p, 0) != T_EOF) {
		unexpected(&p);
		goto done;
	}
	*out = o;
	memset(&o, 0, sizeof o);
	r = 0;
done:
	mcinit_hydra_free(&o);
	free(p.t);
	return r;
}

void
mcinit_hydra_free(struct mcinit_hy_override *o)
{
	if (o == NULL)
		return;
	free(o->key);
	free(o->package);
	mcinit_hy_value_free(&o->value);
	memset(o, 0, sizeof *o);
}
