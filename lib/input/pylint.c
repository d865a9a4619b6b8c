/* pylint.c — see pylint.h.
 *
 * A small Python tokenizer (names, numbers, strings, operators; whitespace,
 * comments and continuations dropped) drives a scan for `add_argument (`;
 * each call's tokens are then split into arguments at top-level commas.
 * Calls are not re-scanned for nested calls, which keeps the whole scan
 * linear even on hostile input.
 */
#include "input/pylint.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FDEPTH 32 /* f-strings nested in f-string fields */

enum tkind { T_EOF, T_NAME, T_NUM, T_STR, T_OP };

struct tok {
	enum tkind kind;
	size_t a, b; /* source bytes [a, b) */
	int line, col;
};

struct py {
	const char *s;
	size_t len, i;
	int line, col;
	int fdepth;
};

static int
peekc(const struct py *p, size_t k)
{
	return p->i + k < p->len ? (unsigned char)p->s[p->i + k] : -1;
}

static void
adv(struct py *p)
{
	unsigned char c = (unsigned char)p->s[p->i++];

	if (c == '\n' || (c == '\r' && peekc(p, 0) != '\n')) {
		p->line++;
		p->col = 1;
	} else if (c != '\r' && (c & 0xC0) != 0x80) {
		p->col++;
	}
}

static int
is_nl(int c)
{
	return c == '\n' || c == '\r';
}

static int
is_id(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 ||
	       (!first && c >= '0' && c <= '9');
}

static int
is_quote(int c)
{
	return c == '\'' || c == '"';
}

/* Whether s[a, b) is a string prefix; sets *f for f/t-strings, *raw for r. */
static int
str_prefix(const char *s, size_t a, size_t b, int *f, int *raw)
{
	int seen[256] = {0};

	if (b - a > 2)
		return 0;
	for (size_t k = a; k < b; k++) {
		int c = (unsigned char)s[k] | 0x20; /* ASCII lower case */

		if (!strchr("rubft", c) || seen[c]++)
			return 0;
	}
	if (b - a == 2 && (!seen['r'] || seen['u']))
		return 0; /* only r pairs, with b, f or t */
	*f = seen['f'] || seen['t'];
	*raw = seen['r'];
	return 1;
}

static void scan_string(struct py *p, int f);

/* An identifier at the cursor, or a prefixed string starting with one. */
static enum tkind
scan_name(struct py *p)
{
	size_t a = p->i;
	int f, raw;

	while (is_id(peekc(p, 0), 0))
		adv(p);
	if (is_quote(peekc(p, 0)) && str_prefix(p->s, a, p->i, &f, &raw)) {
		scan_string(p, f);
		return T_STR;
	}
	return T_NAME;
}

static void scan_fspec(struct py *p, int triple);

/* A replacement field of an f-string, after its `{`, through its `}`. */
static void
scan_fexpr(struct py *p, int triple)
{
	int depth = 0, c;

	if (++p->fdepth > MAX_FDEPTH) {
		p->fdepth--;
		return; /* carry on as plain string text */
	}
	while ((c = peekc(p, 0)) >= 0 && !(!triple && is_nl(c))) {
		if (is_quote(c) || is_id(c, 1)) {
			if (is_quote(c))
				scan_string(p, 0);
			else
				scan_name(p);
			continue;
		}
		if (c == '#' && triple) {
			while (peekc(p, 0) >= 0 && !is_nl(peekc(p, 0)))
				adv(p);
			continue;
		}
		adv(p);
		if (c == '\\' && peekc(p, 0) >= 0) {
			adv(p);
		} else if (strchr("([{", c)) {
			depth++;
		} else if (c == ')' || c == ']' || (c == '}' && depth > 0)) {
			depth -= depth > 0;
		} else if (c == '}') {
			break;
		} else if (c == ':' && depth == 0) {
			scan_fspec(p, triple);
			break;
		}
	}
	p->fdepth--;
}

/* The format spec of a replacement field, after its `:`, through the `}`. */
static void
scan_fspec(struct py *p, int triple)
{
	int c;

	while ((c = peekc(p, 0)) >= 0 && !(!triple && is_nl(c))) {
		adv(p);
		if (c == '{')
			scan_fexpr(p, triple);
		else if (c == '}')
			return;
	}
}

/* A string literal; the cursor is at its opening quote. */
static void
scan_string(struct py *p, int f)
{
	int q = peekc(p, 0), triple = peekc(p, 1) == q && peekc(p, 2) == q, c;

	for (int k = 0; k < (triple ? 3 : 1); k++)
		adv(p);
	while ((c = peekc(p, 0)) >= 0) {
		if (!triple && is_nl(c))
			return; /* unterminated: the line ends it */
		if (c == q && (!triple || (peekc(p, 1) == q && peekc(p, 2) == q))) {
			for (int k = 0; k < (triple ? 3 : 1); k++)
				adv(p);
			return;
		}
		adv(p);
		if (c == '\\' && peekc(p, 0) >= 0) {
			int cr = peekc(p, 0) == '\r';

			adv(p);
			if (cr && peekc(p, 0) == '\n')
				adv(p);
		} else if (f && c == '{') {
			if (peekc(p, 0) == '{')
				adv(p);
			else
				scan_fexpr(p, triple);
		}
	}
}

static void
next_token(struct py *p, struct tok *t)
{
	int c;

	for (;;) {
		c = peekc(p, 0);
		if (c == ' ' || c == '\t' || c == '\f' || is_nl(c) || c == '\\') {
			adv(p); /* a backslash outside a string only continues a line */
			continue;
		}
		if (c == '#') {
			while (peekc(p, 0) >= 0 && !is_nl(peekc(p, 0)))
				adv(p);
			continue;
		}
		break;
	}
	t->a = p->i;
	t->line = p->line;
	t->col = p->col;
	if (c < 0) {
		t->kind = T_EOF;
	} else if (is_id(c, 1)) {
		t->kind = scan_name(p);
	} else if (is_quote(c)) {
		scan_string(p, 0);
		t->kind = T_STR;
	} else if ((c >= '0' && c <= '9') ||
	           (c == '.' && peekc(p, 1) >= '0' && peekc(p, 1) <= '9')) {
		int prev = 0;

		while ((c = peekc(p, 0)) >= 0 && (is_id(c, 0) || c == '.' ||
		                                  ((c == '+' || c == '-') && (prev | 0x20) == 'e')))
			prev = c, adv(p);
		t->kind = T_NUM;
	} else {
		adv(p);
		if (peekc(p, 0) == '=' && strchr("=!<>:+-*/%&|^@", c))
			adv(p);
		t->kind = T_OP;
	}
	t->b = p->i;
}

/* ---- analysis of one call ---- */

struct call {
	struct tok *t;
	size_t nt, capt;
	size_t *arg; /* index of each argument's first token; arg[narg] = nt */
	size_t narg, caparg;
};

static int
tok_is(const struct py *p, const struct tok *t, enum tkind kind, const char *text)
{
	size_t n = strlen(text);

	return t->kind == kind && t->b - t->a == n && memcmp(p->s + t->a, text, n) == 0;
}

/* Index of the first token of keyword argument `name`'s value, or 0. */
static size_t
kw_value(const struct py *p, const struct call *c, size_t k, const char *name)
{
	size_t a = c->arg[k], b = c->arg[k + 1];

	if (b - a >= 3 && tok_is(p, &c->t[a], T_NAME, name) && tok_is(p, &c->t[a + 1], T_OP, "="))
		return a + 2;
	return 0;
}

static int
is_keyword(const struct py *p, const struct call *c, size_t k)
{
	size_t a = c->arg[k];

	return c->arg[k + 1] - a >= 2 && c->t[a].kind == T_NAME &&
	       tok_is(p, &c->t[a + 1], T_OP, "=");
}

/* bool, builtins.bool, or either in parentheses. */
static int
is_bool_value(const struct py *p, const struct tok *t, size_t n)
{
	if (n >= 3 && tok_is(p, &t[0], T_OP, "(") && tok_is(p, &t[n - 1], T_OP, ")"))
		t++, n -= 2;
	if (n == 1)
		return tok_is(p, &t[0], T_NAME, "bool");
	return n == 3 && tok_is(p, &t[0], T_NAME, "builtins") && tok_is(p, &t[1], T_OP, ".") &&
	       tok_is(p, &t[2], T_NAME, "bool");
}

static void
put_utf8(struct mcx_buf *b, unsigned long u)
{
	if (u < 0x80) {
		mcx_buf_addc(b, (char)u);
	} else if (u < 0x800) {
		mcx_buf_addc(b, (char)(0xC0 | u >> 6));
		mcx_buf_addc(b, (char)(0x80 | (u & 0x3F)));
	} else if (u < 0x10000) {
		mcx_buf_addc(b, (char)(0xE0 | u >> 12));
		mcx_buf_addc(b, (char)(0x80 | (u >> 6 & 0x3F)));
		mcx_buf_addc(b, (char)(0x80 | (u & 0x3F)));
	} else if (u < 0x110000) {
		mcx_buf_addc(b, (char)(0xF0 | u >> 18));
		mcx_buf_addc(b, (char)(0x80 | (u >> 12 & 0x3F)));
		mcx_buf_addc(b, (char)(0x80 | (u >> 6 & 0x3F)));
		mcx_buf_addc(b, (char)(0x80 | (u & 0x3F)));
	}
}

static int
digit_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'z' ? c - 'a' + 10 : 99;
}

/* Reads up to `max` digits of base `base` at *s (< e); -1 when none. */
static long
read_num(const char **s, const char *e, int base, int max)
{
	long v = 0;
	int n = 0;

	for (; *s < e && n < max && digit_val((unsigned char)**s) < base; (*s)++, n++)
		v = v * base + digit_val((unsigned char)**s);
	return n ? v : -1;
}

/* One escape sequence after its backslash (at *s < e). */
static void
unescape(struct mcx_buf *b, const char **s, const char *e)
{
	static const char from[] = "\\'\"abfnrtv", to[] = "\\'\"\a\b\f\n\r\t\v";
	const char *p = strchr(from, **s);
	int c = **s, len = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
	long v;

	if (c == '\n' || c == '\r') { /* continuation */
		(*s)++;
		if (c == '\r' && *s < e && **s == '\n')
			(*s)++;
		return;
	}
	if (p != NULL && c != '\0') {
		mcx_buf_addc(b, to[p - from]);
		(*s)++;
		return;
	}
	if (c >= '0' && c <= '7') {
		put_utf8(b, (unsigned long)read_num(s, e, 8, 3));
		return;
	}
	if (len) {
		const char *q = *s + 1;

		v = read_num(&q, e, 16, len);
		if (v >= 0 && q - *s == len + 1) {
			put_utf8(b, (unsigned long)v);
			*s = q;
			return;
		}
	}
	mcx_buf_addc(b, '\\'); /* unknown: Python keeps it */
}

/* Value of string-literal token(s) t[0..n), concatenated; NULL when any is
 * an f-string (its value needs evaluation). */
static char *
string_value(const struct py *p, const struct tok *t, size_t n)
{
	struct mcx_buf b = {0};

	for (size_t k = 0; k < n; k++) {
		const char *s = p->s + t[k].a, *e = p->s + t[k].b, *q = s;
		int f, raw, qc;
		size_t ql;

		while (!is_quote(*q))
			q++;
		str_prefix(p->s, t[k].a, (size_t)(q - p->s), &f, &raw);
		if (f) {
			mcx_buf_free(&b);
			return NULL;
		}
		qc = *q;
		ql = e - q >= 3 && q[1] == qc && q[2] == qc ? 3 : 1;
		s = q + ql;
		if (e - s >= (long)ql && e[-1] == qc && (ql == 1 || (e[-2] == qc && e[-3] == qc)))
			e -= ql;
		while (s < e) {
			if (*s == '\\' && s + 1 < e && !raw) {
				s++;
				unescape(&b, &s, e);
			} else {
				mcx_buf_addc(&b, *s++);
			}
		}
	}
	mcx_buf_cstr(&b);
	return b.data;
}

static char *
src_text(const struct py *p, const struct tok *first, const struct tok *last)
{
	return mcx_xasprintf("%.*s", (int)(last->b - first->a), p->s + first->a);
}

static char *
arg_text(const struct py *p, const struct call *c, size_t from, size_t to)
{
	int all_str = 1;
	char *v = NULL;

	for (size_t k = from; k < to; k++)
		all_str &= c->t[k].kind == T_STR;
	if (all_str)
		v = string_value(p, &c->t[from], to - from);
	return v ? v : src_text(p, &c->t[from], &c->t[to - 1]);
}

static char *
flag_of(const struct py *p, const struct call *c)
{
	size_t v;

	for (size_t k = 0; k < c->narg; k++)
		if (!is_keyword(p, c, k))
			return arg_text(p, c, c->arg[k], c->arg[k + 1]);
	for (size_t k = 0; k < c->narg; k++)
		if ((v = kw_value(p, c, k, "dest")) != 0)
			return arg_text(p, c, v, c->arg[k + 1]);
	return mcx_xstrdup("");
}

static int
analyze(const struct py *p, const struct call *c, const struct tok *name, struct mcinit_pybool *r)
{
	size_t k, v = 0;

	for (k = 0; k < c->narg; k++) {
		v = kw_value(p, c, k, "type");
		if (v && is_bool_value(p, &c->t[v], c->arg[k + 1] - v))
			break;
	}
	if (k == c->narg)
		return 0;
	r->line = c->t[c->arg[k]].line;
	r->col = c->t[c->arg[k]].col;
	r->call_line = name->line;
	r->call_col = name->col;
	r->flag = flag_of(p, c);
	r->default_text = NULL;
	for (k = 0; k < c->narg; k++)
		if ((v = kw_value(p, c, k, "default")) != 0) {
			r->default_text = src_text(p, &c->t[v], &c->t[c->arg[k + 1] - 1]);
			break;
		}
	return 1;
}

static void
end_arg(struct call *c)
{
	if (c->nt > c->arg[c->narg]) { /* a non-empty argument */
		MCINIT_GROW(c->arg, c->caparg, c->narg + 2);
		c->arg[++c->narg] = c->nt;
	}
}

/* Collects the argument tokens of a call whose `(` was just read. */
static void
read_call(struct py *p, struct call *c)
{
	int depth = 0;
	struct tok t;

	c->nt = c->narg = 0;
	MCINIT_GROW(c->arg, c->caparg, 2);
	c->arg[0] = 0;
	for (;;) {
		next_token(p, &t);
		if (t.kind == T_EOF)
			break;
		if (depth == 0 && tok_is(p, &t, T_OP, ")"))
			break;
		if (depth == 0 && tok_is(p, &t, T_OP, ",")) {
			end_arg(c);
			continue;
		}
		if (t.kind == T_OP && strchr("([{", p->s[t.a]))
			depth++;
		else if (t.kind == T_OP && strchr(")]}", p->s[t.a]) && depth > 0)
			depth--;
		MCINIT_GROW(c->t, c->capt, c->nt + 1);
		c->t[c->nt++] = t;
	}
	end_arg(c);
}

static int
check_nul(const char *text, size_t len, struct mcinit_err *err)
{
	int line, col;

	if (!mcinit_find_nul(text, len, &line, &col))
		return 0;
	return mcinit_err_at(err, MCINIT_E_PARSE, NULL, line, col, "NUL byte: not Python source");
}

int
mcinit_pylint_type_bool(const char *text, size_t len, struct mcinit_pybool **out, size_t *n,
                        struct mcinit_err *err)
{
	struct py p = {text, len, 0, 1, 1, 0};
	struct call c = {0};
	struct mcinit_pybool *v = NULL;
	size_t nv = 0, capv = 0;
	int after_def = 0;
	struct tok t, t2;

	*out = NULL;
	*n = 0;
	if (len > 0 && check_nul(text, len, err) < 0)
		return -1;
	for (next_token(&p, &t); t.kind != T_EOF; next_token(&p, &t)) {
		if (!after_def && tok_is(&p, &t, T_NAME, "add_argument")) {
			struct py save = p;

			next_token(&p, &t2);
			if (tok_is(&p, &t2, T_OP, "(")) {
				read_call(&p, &c);
				MCINIT_GROW(v, capv, nv + 1);
				nv += analyze(&p, &c, &t, &v[nv]);
			} else {
				p = save;
			}
		}
		after_def = tok_is(&p, &t, T_NAME, "def");
	}
	free(c.t);
	free(c.arg);
	*out = v;
	*n = nv;
	if (nv == 0) {
		free(v);
		*out = NULL;
	}
	return 0;
}

void
mcinit_pybool_free(struct mcinit_pybool *v, size_t n)
{
	if (v == NULL)
		return;
	for (size_t k = 0; k < n; k++) {
		free(v[k].flag);
		free(v[k].default_text);
	}
	free(v);
}
