/*
 * hydra.c — Hydra's override grammar: the two-mode lexer, the typing of
 * primitives and the values, and the parser of the productions (hydra.h);
 * the grammar's functions are in hydra-funcs.c.
 */
#include "input/hydra-impl.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
col_of(const char *s, size_t off)
{
	int col = 1;

	for (size_t k = 0; k < off; k++)
		if (((unsigned char)s[k] & 0xC0) != 0x80)
			col++;
	return col;
}

int
mcinit_hy_fail_at(struct px *p, size_t off, const char *what, const char *fmt, ...)
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

/* INT_UNSIGNED: '0' | [1-9] ('_'? DIGIT)*: a lone zero, else the digits
 * rule (a leading zero cannot start a longer integer). */
static size_t
m_uint(const char *s, size_t n, size_t i)
{
	if (i < n && s[i] == '0')
		return 1;
	return mcinit_hy_m_digits(s, n, i);
}

/* DIGIT ('_'? DIGIT)* */
size_t
mcinit_hy_m_digits(const char *s, size_t n, size_t i)
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
		size_t fl = mcinit_hy_m_digits(s, n, k + il + 1);

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
		el = mcinit_hy_m_digits(s, n, j);
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

val *
mcinit_hy_vnew_list(val *v, enum mcinit_hy_type type)
{
	memset(v, 0, sizeof *v);
	v->type = type;
	return v;
}

void
mcinit_hy_vstr(val *v, const char *s, size_t n, int quoted)
{
	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_STR;
	v->text = mcx_xmalloc(n + 1);
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

void
mcinit_hy_vcopy(val *dst, const val *src)
{
	*dst = *src;
	if (src->text) {
		dst->text = mcx_xmalloc(src->len + 1);
		memcpy(dst->text, src->text, src->len + 1);
	}
	if (src->items) {
		dst->items = mcx_xcalloc(src->n ? src->n : 1, sizeof *dst->items);
		for (size_t k = 0; k < src->n; k++)
			mcinit_hy_vcopy(&dst->items[k], &src->items[k]);
	}
	if (src->keys) {
		dst->keys = mcx_xcalloc(src->n ? src->n : 1, sizeof *dst->keys);
		for (size_t k = 0; k < src->n; k++)
			mcinit_hy_vcopy(&dst->keys[k], &src->keys[k]);
	}
}

void
mcinit_hy_vappend(val *v, val *item, size_t *cap)
{
	MCINIT_GROW(v->items, *cap, v->n + 1);
	v->items[v->n++] = *item;
}

/* An int's text from Python-style digits: sign, digits and '_' (checked by
 * the caller); no leading zeros, no "-0". */
void
mcinit_hy_vint(val *v, const char *s, size_t n)
{
	struct mcx_buf b = {0};
	int neg = 0;
	size_t k = 0;

	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_INT;
	if (k < n && (s[k] == '+' || s[k] == '-'))
		neg = s[k++] == '-';
	while (k < n && (s[k] == '0' || s[k] == '_'))
		k++;
	if (neg && k < n)
		mcx_buf_addc(&b, '-');
	for (; k < n; k++)
		if (s[k] != '_')
			mcx_buf_addc(&b, s[k]);
	if (b.len == 0 || (b.len == 1 && b.data[0] == '-'))
		mcx_buf_adds(&b, "0");
	v->text = mcx_xstrdup(mcx_buf_cstr(&b));
	v->len = b.len;
	mcx_buf_free(&b);
}

void
mcinit_hy_vfloat(val *v, double f)
{
	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_FLOAT;
	v->f = f;
}

void
mcinit_hy_vbool(val *v, int b)
{
	memset(v, 0, sizeof *v);
	v->type = MCINIT_HY_BOOL;
	v->b = b != 0;
}

/* strtod of text without its '_' (the lexer or the caller checked it). */
double
mcinit_hy_py_float(const char *s, size_t n)
{
	char *t = mcx_xmalloc(n + 1);
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
	struct mcx_buf b = {0};
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
		mcx_buf_addc(&b, '-');
	if (e >= -4 && e < 16) {
		if (e >= 0) {
			for (int k = 0; k <= e; k++)
				mcx_buf_addc(&b, k < nd ? digits[k] : '0');
			mcx_buf_addc(&b, '.');
			if (nd > e + 1)
				mcx_buf_adds(&b, digits + e + 1);
			else
				mcx_buf_addc(&b, '0');
		} else {
			mcx_buf_adds(&b, "0.");
			for (int k = 0; k < -e - 1; k++)
				mcx_buf_addc(&b, '0');
			mcx_buf_adds(&b, digits);
		}
	} else {
		mcx_buf_addc(&b, digits[0]);
		if (nd > 1) {
			mcx_buf_addc(&b, '.');
			mcx_buf_adds(&b, digits + 1);
		}
		mcx_buf_printf(&b, "e%c%02d", e < 0 ? '-' : '+', abs(e));
	}
	snprintf(buf, size, "%s", mcx_buf_cstr(&b));
	mcx_buf_free(&b);
}

/* _createPrimitive: the tokens [a, b) of a primitive or a dict key. */
static int
primitive(struct px *p, size_t a, size_t b, val *out)
{
	const char *s = p->s;
	struct tok *t;

	if (p->t[a].type == T_WS) {
		if (b - a == 1)
			return mcinit_hy_fail_at(
			    p, p->t[a].off, "whitespace",
			    "Trying to parse a primitive that is all whitespaces");
		a++;
	}
	if (p->t[b - 1].type == T_WS)
		b--;
	if (b - a > 1) {
		struct mcx_buf buf = {0};

		for (size_t k = a; k < b; k++) {
			t = &p->t[k];
			if (t->type == T_ESC)
				for (size_t j = 1; j < t->len; j += 2)
					mcx_buf_addc(&buf, s[t->off + j]);
			else
				mcx_buf_add(&buf, s + t->off, t->len);
		}
		mcinit_hy_vstr(out, buf.data ? buf.data : "", buf.len, 0);
		mcx_buf_free(&buf);
		return 0;
	}
	t = &p->t[a];
	switch (t->type) {
	case T_QUOTED: {
		/* _unescape_quoted_string: each run of backslashes before a quote
		 * (an escaped quote in the body, or the run before the closing one)
		 * keeps every other backslash */
		struct mcx_buf buf = {0};
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
					mcx_buf_addc(&buf, q[j]);
				(void)m;
				k = r + 1;
				continue;
			}
			if (r > k) {
				mcx_buf_add(&buf, q + k, r - k);
				k = r;
				continue;
			}
			mcx_buf_addc(&buf, q[k]);
			k++;
		}
		mcinit_hy_vstr(out, buf.data ? buf.data : "", buf.len, 1);
		mcx_buf_free(&buf);
		return 0;
	}
	case T_ID:
	case T_INTERP:
	case T_UCHAR:
	case T_COLON:
		mcinit_hy_vstr(out, s + t->off, t->len, 0);
		return 0;
	case T_INT:
		mcinit_hy_vint(out, s + t->off, t->len);
		return 0;
	case T_FLOAT:
		mcinit_hy_vfloat(out, mcinit_hy_py_float(s + t->off, t->len));
		return 0;
	case T_NULL:
		mcinit_hy_vnew_list(out, MCINIT_HY_NULL);
		return 0;
	case T_BOOL:
		mcinit_hy_vbool(out, s[t->off] == 't' || s[t->off] == 'T');
		return 0;
	case T_ESC: {
		struct mcx_buf buf = {0};

		for (size_t j = 1; j < t->len; j += 2)
			mcx_buf_addc(&buf, s[t->off + j]);
		mcinit_hy_vstr(out, buf.data, buf.len, 0);
		mcx_buf_free(&buf);
		return 0;
	}
	default:
		mcinit_hy_vstr(out, s + t->off, t->len, 0);
		return 0;
	}
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
		return mcinit_hy_fail_at(p, t->off, "lex", "token recognition error at: '%.1s'",
		                         p->s + t->off);
	if (t->type == T_EOF)
		return mcinit_hy_fail_at(p, t->off, "syntax", "mismatched input '<EOF>'");
	return mcinit_hy_fail_at(p, t->off, "syntax", "mismatched input '%.*s'",
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
				kw = mcx_xasprintf("%.*s", (int)p->t[p->i].len,
				                   p->s + p->t[p->i].off);
				p->i += 2;
			}
			if (element(p, &v) < 0) {
				free(kw);
				mcinit_hy_args_free(&a);
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
					mcinit_hy_args_free(&a);
					return mcinit_hy_fail_at(
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
		mcinit_hy_args_free(&a);
		return unexpected(p);
	}
	p->i++;
	r = mcinit_hy_call(p, name->off, p->s + name->off, name->len, &a, out);
	mcinit_hy_args_free(&a);
	return r;
}

/* Python's == between dict keys (None, bool, int, float, str): the later
 * value of an equal key replaces the earlier one's, which keeps its place. */
static int
key_eq(const val *a, const val *b)
{
	int ka = mcinit_hy_kind(a), kb = mcinit_hy_kind(b);

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

	mcinit_hy_vnew_list(out, dict ? MCINIT_HY_DICT : MCINIT_HY_LIST);
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

				mcinit_hy_vappend(out, &v, &cap);
				if (dict) {
					if (c2 != cap || out->keys == NULL)
						out->keys = mcx_xrealloc(out->keys,
						                         cap * sizeof *out->keys);
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
		out->items = mcx_xrealloc(out->items, out->n * sizeof *out->items);
		if (dict)
			out->keys = mcx_xrealloc(out->keys, out->n * sizeof *out->keys);
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
		return mcinit_hy_fail_at(p, p->t[p->i].off, "depth",
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
	mcinit_hy_vappend(out, &first, &cap);
	while (peek(p, 0) == T_COMMA) {
		val v;

		p->i++;
		if (element(p, &v) < 0) {
			mcinit_hy_value_free(out);
			return -1;
		}
		mcinit_hy_vappend(out, &v, &cap);
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

		return mcx_xasprintf("%.*s", (int)k->len, p->s + k->off);
	}
	return mcx_xstrdup("");
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
		o->key = mcx_xasprintf("%.*s",
		                       (int)(p->t[p->i - 1].off + p->t[p->i - 1].len - p->t[a].off),
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
			mcinit_hy_vstr(&o.value, "", 0, 0);
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
