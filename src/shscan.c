/* shscan.c — see shscan.h.
 *
 * One pass over the text.  Every word is lexed into a "pstr": its characters,
 * each with the position it was written at, the variable it came from and a
 * few flags, plus zero-width markers.  Expansions are performed while lexing
 * (the variables they read were all assigned earlier in the text), then the
 * word is split into fields the way bash would, or joined into one value for
 * an assignment.  Keeping positions per character is what lets a word split
 * out of `ARGS="--a 1 --b 2"` point at its own place inside that string.
 */
#include "shscan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

/* Characters all expansions together may produce: far above any real script,
 * low enough that `A="$A$A"` repeated cannot exhaust memory. */
#define BUDGET_BASE ((size_t)1 << 21)
#define MAX_DEPTH   64 /* nesting of ${a:-${b:-...}} */
#define SNIP_MAX    60 /* bytes of source quoted in a note */

#define GROW(arr, cap, need)                                                                       \
	do {                                                                                       \
		if ((need) > (cap)) {                                                              \
			size_t nc_ = (cap) ? (cap)*2 : 8;                                          \
			while (nc_ < (need))                                                       \
				nc_ *= 2;                                                          \
			(arr) = mcinit_xrealloc((arr), nc_ * sizeof *(arr));                       \
			(cap) = nc_;                                                               \
		}                                                                                  \
	} while (0)

enum {
	PF_QUOTED = 1, /* protected from field splitting */
	PF_OPAQUE = 2, /* unexpandable text kept as written (never split) */
	PF_EMPTYQ = 4, /* marker: quotes were here, so an empty field exists */
	PF_BREAK = 8,  /* marker: field boundary between "${a[@]}" elements */
};
#define PF_MARK (PF_EMPTYQ | PF_BREAK)

struct pch {
	char c;
	unsigned char fl;
	int line, col;
	int var; /* index into sx.vars, -1 = written in the command */
	int ev;  /* index into sx.ev (a note to attach), -1 = none */
};

struct pstr {
	struct pch *v;
	size_t n, cap;
};

struct plist {
	struct pstr *v;
	size_t n, cap;
};

struct var {
	char *name;
	int defined;
	struct plist val; /* a string variable has exactly one element */
	int is_array;
};

struct group { /* an assignment, kept for the fallback */
	struct plist f;
};

struct hdoc {
	char *delim;
	int strip, line, col;
};

struct sx {
	const char *s;
	size_t len, i;
	int line, col;
	struct mcinit_err *err;
	int depth;
	size_t budget;
	int exhausted;
	size_t nat; /* count of quoted [@] expansions, to tell "" from "${empty[@]}" */
	struct var *vars;
	size_t nvars, capvars;
	int *hash; /* open addressing, var index + 1, 0 = free */
	size_t hcap;
	struct mcinit_shnote *ev; /* notes attached to characters */
	size_t nev, capev;
	struct mcinit_shnote *notes; /* notes about the script itself */
	size_t nnotes, capnotes;
	struct hdoc *hd;
	size_t nhd, caphd;
	struct group *groups;
	size_t ngroups, capgroups;
	struct plist *cands; /* per python command: script word, then its args */
	size_t ncands, capcands;
};

/* ---- small helpers ---- */

static char *
vfmt(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		abort(); /* out of memory, as mcinit_xmalloc would */
	return s;
}

static void
note_add(struct mcinit_shnote **v, size_t *n, size_t *cap, int line, int col, char *msg)
{
	GROW(*v, *cap, *n + 1);
	(*v)[*n].msg = msg;
	(*v)[*n].line = line;
	(*v)[*n].col = col;
	(*n)++;
}

static void __attribute__((format(printf, 4, 5)))
script_note(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, vfmt(fmt, ap));
	va_end(ap);
}

static int __attribute__((format(printf, 4, 5)))
add_event(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_add(&x->ev, &x->nev, &x->capev, line, col, vfmt(fmt, ap));
	va_end(ap);
	return (int)x->nev - 1;
}

static int
fail(struct sx *x, int line, int col, const char *what)
{
	return mcinit_err_set(x->err, EX_DATAERR, "%d:%d: %s", line, col, what);
}

/* Source text [a, b) for a note, shortened. */
static char *
snip(struct sx *x, size_t a, size_t b)
{
	size_t n = b - a;

	if (n > SNIP_MAX)
		return mcinit_xasprintf("%.*s...", SNIP_MAX, x->s + a);
	return mcinit_xasprintf("%.*s", (int)n, x->s + a);
}

static int
peekc(const struct sx *x, size_t k)
{
	return x->i + k < x->len ? (unsigned char)x->s[x->i + k] : -1;
}

static void
adv(struct sx *x)
{
	unsigned char c = (unsigned char)x->s[x->i++];

	if (c == '\n') {
		x->line++;
		x->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		x->col++;
	}
}

static int
at_cont(const struct sx *x)
{
	return peekc(x, 0) == '\\' &&
	       (peekc(x, 1) == '\n' || (peekc(x, 1) == '\r' && peekc(x, 2) == '\n'));
}

static void
skip_cont(struct sx *x)
{
	while (at_cont(x)) {
		adv(x);
		if (peekc(x, 0) == '\r')
			adv(x);
		adv(x);
	}
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
is_sep(int c)
{
	return c < 0 || is_blank(c) || c == '\n' || (c != 0 && strchr(";&|()<>", c) != NULL);
}

static int
is_ident(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void
skip_blanks(struct sx *x)
{
	for (;;) {
		skip_cont(x);
		if (!is_blank(peekc(x, 0)))
			return;
		adv(x);
	}
}

static void
skip_comment(struct sx *x)
{
	while (peekc(x, 0) >= 0 && peekc(x, 0) != '\n')
		adv(x);
}

/* ---- pstr / plist ---- */

static void
exhaust(struct sx *x)
{
	if (x->exhausted)
		return;
	x->exhausted = 1;
	script_note(x, 0, 0,
	            "expansion stopped after %zu characters (a variable that grows "
	            "exponentially?); later words may be missing",
	            BUDGET_BASE);
}

static void
put(struct pstr *p, struct pch ch)
{
	if (p == NULL)
		return;
	GROW(p->v, p->cap, p->n + 1);
	p->v[p->n++] = ch;
}

/* Copying a variable's value is the only way output can outgrow the input,
 * so only that is charged to the budget; once spent, expansions yield
 * nothing while text written in the script is still read. */
static int
charge(struct sx *x, size_t n)
{
	if (x->budget < n) {
		x->budget = 0;
		exhaust(x);
		return 0;
	}
	x->budget -= n;
	return 1;
}

static void
putc_at(struct pstr *p, int c, unsigned fl, int line, int col)
{
	put(p, (struct pch){(char)c, (unsigned char)fl, line, col, -1, -1});
}

static void
ps_free(struct pstr *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}

static void
pl_free(struct plist *l)
{
	for (size_t k = 0; k < l->n; k++)
		ps_free(&l->v[k]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void
pl_push(struct plist *l, struct pstr *p) /* takes ownership of *p */
{
	GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = *p;
	memset(p, 0, sizeof *p);
}

static size_t
ps_nchars(const struct pstr *p)
{
	size_t n = 0;

	for (size_t k = 0; k < p->n; k++)
		n += !(p->v[k].fl & PF_MARK);
	return n;
}

static char *
ps_text(const struct pstr *p)
{
	char *t = mcinit_xmalloc(p->n + 1);
	size_t n = 0;

	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK))
			t[n++] = p->v[k].c;
	t[n] = '\0';
	return t;
}

static void
ps_copy(struct pstr *dst, const struct pstr *src)
{
	for (size_t k = 0; k < src->n; k++)
		put(dst, src->v[k]);
}

/* ---- variables ---- */

static uint32_t
hash_name(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int
var_find(const struct sx *x, const char *name, size_t n)
{
	if (x->hcap == 0)
		return -1;
	for (size_t h = hash_name(name, n) & (x->hcap - 1);; h = (h + 1) & (x->hcap - 1)) {
		int k = x->hash[h] - 1;

		if (k < 0)
			return -1;
		if (strlen(x->vars[k].name) == n && memcmp(x->vars[k].name, name, n) == 0)
			return k;
	}
}

static void
hash_insert(struct sx *x, int k)
{
	const char *name = x->vars[k].name;
	size_t h = hash_name(name, strlen(name)) & (x->hcap - 1);

	while (x->hash[h] != 0)
		h = (h + 1) & (x->hcap - 1);
	x->hash[h] = k + 1;
}

static int
var_get(struct sx *x, const char *name, size_t n)
{
	int k = var_find(x, name, n);

	if (k >= 0)
		return k;
	if (2 * (x->nvars + 1) > x->hcap) {
		x->hcap = x->hcap ? 2 * x->hcap : 64;
		free(x->hash);
		x->hash = mcinit_xcalloc(x->hcap, sizeof *x->hash);
		for (size_t j = 0; j < x->nvars; j++)
			hash_insert(x, (int)j);
	}
	GROW(x->vars, x->capvars, x->nvars + 1);
	memset(&x->vars[x->nvars], 0, sizeof x->vars[x->nvars]);
	x->vars[x->nvars].name = mcinit_xasprintf("%.*s", (int)n, name);
	hash_insert(x, (int)x->nvars);
	return (int)x->nvars++;
}

/* ---- lexing ---- */

static int lex_word(struct sx *x, struct pstr *out, int term, int inq);
static int lex_dollar(struct sx *x, struct pstr *out, int quoted);

/* Appends source bytes [a, x->i) as unexpandable text with a note. */
static void
opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, int quoted, const char *why)
{
	char *raw;
	int ev;

	if (out == NULL)
		return;
	raw = snip(x, a, x->i);
	ev = add_event(x, line, col, "`%s`: %s; word kept as written", raw, why);
	free(raw);
	for (size_t k = a; k < x->i; k++) {
		unsigned char c = (unsigned char)x->s[k];

		put(out,
		    (struct pch){(char)c, (unsigned char)(PF_OPAQUE | (quoted ? PF_QUOTED : 0)),
		                 line, col, -1, ev});
		if (c == '\n') {
			line++;
			col = 1;
		} else if ((c & 0xC0) != 0x80) {
			col++;
		}
	}
}

/* Skips to the `close` matching an already consumed `open`, over quotes. */
static int
skip_nested(struct sx *x, int open, int close)
{
	int depth = 1, c;

	while (depth > 0) {
		c = peekc(x, 0);
		if (c < 0)
			return -1;
		if (c == '\\') {
			adv(x);
			if (peekc(x, 0) >= 0)
				adv(x);
			continue;
		}
		if (open < 0 && c == close) {
			depth--;
		} else if (c == '\'' || c == '"' || c == '`') {
			adv(x);
			while (peekc(x, 0) >= 0 && peekc(x, 0) != c) {
				if (c != '\'' && peekc(x, 0) == '\\')
					adv(x);
				if (peekc(x, 0) >= 0)
					adv(x);
			}
			if (peekc(x, 0) < 0)
				return -1;
		} else if (c == open) {
			depth++;
		} else if (c == close) {
			depth--;
		}
		adv(x);
	}
	return 0;
}

static int
lex_sq(struct sx *x, struct pstr *out)
{
	int line = x->line, col = x->col;
	size_t n0 = out ? out->n : 0;

	adv(x);
	for (;;) {
		int c = peekc(x, 0);

		if (c < 0)
			return fail(x, line, col, "unterminated single quote");
		if (c == '\'')
			break;
		putc_at(out, c, PF_QUOTED, x->line, x->col);
		adv(x);
	}
	adv(x);
	if (out && out->n == n0)
		putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

static int
hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape of $'...' after its backslash: the byte, or -2 when the
 * escape is unknown (the backslash stays, the character follows). */
static int
ansi_escape(struct sx *x)
{
	static const char from[] = "abefnrtv\\'\"?", to[] = "\a\b\033\f\n\r\t\v\\'\"?";
	int c = peekc(x, 0), v = 0, k;
	const char *p = c > 0 ? strchr(from, c) : NULL;

	if (p != NULL) {
		adv(x);
		return to[p - from];
	}
	if (c == 'x' && hexval(peekc(x, 1)) >= 0) {
		adv(x);
		for (k = 0; k < 2 && hexval(peekc(x, 0)) >= 0; k++, adv(x))
			v = v * 16 + hexval(peekc(x, 0));
		return v;
	}
	if (c >= '0' && c <= '7') {
		for (k = 0; k < 3 && peekc(x, 0) >= '0' && peekc(x, 0) <= '7'; k++, adv(x))
			v = v * 8 + peekc(x, 0) - '0';
		return v & 0xFF;
	}
	return -2; /* unknown: keep the backslash and the character */
}

/* $'...' (cursor at the quote). */
static int
lex_ansi(struct sx *x, struct pstr *out, int line, int col)
{
	size_t n0 = out ? out->n : 0;

	adv(x);
	for (;;) {
		int c = peekc(x, 0), l = x->line, cl = x->col;

		if (c < 0)
			return fail(x, line, col, "unterminated $'...' quote");
		if (c == '\'')
			break;
		adv(x);
		if (c == '\\' && peekc(x, 0) >= 0) {
			c = ansi_escape(x);
			if (c == -2) {
				putc_at(out, '\\', PF_QUOTED, l, cl);
				continue;
			}
		}
		if (c > 0) /* a NUL ends a C string: drop it, as bash does */
			putc_at(out, c, PF_QUOTED, l, cl);
	}
	adv(x);
	if (out && out->n == n0)
		putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

static int
lex_dq(struct sx *x, struct pstr *out)
{
	int line = x->line, col = x->col;
	size_t n0 = out ? out->n : 0, at0 = x->nat;

	adv(x);
	for (;;) {
		int c;

		skip_cont(x);
		c = peekc(x, 0);
		if (c < 0)
			return fail(x, line, col, "unterminated double quote");
		if (c == '"')
			break;
		if (c == '\\' && peekc(x, 1) > 0 && strchr("$`\"\\", peekc(x, 1))) {
			int l = x->line, cl = x->col;

			adv(x);
			putc_at(out, peekc(x, 0), PF_QUOTED, l, cl);
			adv(x);
		} else if (c == '$') {
			if (lex_dollar(x, out, 1) < 0)
				return -1;
		} else if (c == '`') {
			size_t a = x->i;
			int l = x->line, cl = x->col;

			adv(x);
			if (skip_nested(x, -1, '`') < 0)
				return fail(x, l, cl, "unterminated backquote");
			opaque(x, out, a, l, cl, 1, "command substitution");
		} else {
			putc_at(out, c, PF_QUOTED, x->line, x->col);
			adv(x);
		}
	}
	adv(x);
	if (out && out->n == n0 && x->nat == at0)
		putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

/* Where an element was written: its first character or empty-marker. */
static void
el_pos(const struct pstr *el, int *line, int *col, int *var)
{
	if (el->n > 0) {
		*line = el->v[0].line;
		*col = el->v[0].col;
		*var = el->v[0].var;
	}
}

static void
append_el(struct sx *x, struct pstr *out, const struct pstr *el, int quoted)
{
	if (!charge(x, el->n))
		return;
	for (size_t k = 0; k < el->n; k++) {
		struct pch ch = el->v[k];

		if (ch.fl & PF_MARK)
			continue;
		ch.fl = (unsigned char)((ch.fl & PF_OPAQUE) | (quoted ? PF_QUOTED : 0));
		put(out, ch);
	}
}

enum sub { SUB_NONE, SUB_AT, SUB_STAR, SUB_INDEX };

static void
select_range(const struct var *v, enum sub sub, long idx, size_t *from, size_t *to)
{
	size_t n = v->val.n;

	*from = 0;
	*to = n;
	if (sub == SUB_NONE) {
		*to = n > 0;
	} else if (sub == SUB_INDEX) {
		long k = idx < 0 ? (long)n + idx : idx;

		if (k < 0 || (size_t)k >= n)
			*to = 0;
		else
			*from = (size_t)k, *to = (size_t)k + 1;
	}
}

static int
var_null(const struct var *v, enum sub sub, long idx)
{
	size_t from, to;

	select_range(v, sub, idx, &from, &to);
	for (size_t k = from; k < to; k++)
		if (ps_nchars(&v->val.v[k]) > 0)
			return 0;
	return 1;
}

static void
expand_var(struct sx *x, struct pstr *out, int vi, enum sub sub, long idx, int quoted, int line,
           int col)
{
	const struct var *v = &x->vars[vi];
	size_t from, to, n0 = out ? out->n : 0;

	if (out == NULL)
		return;
	select_range(v, sub, idx, &from, &to);
	if (sub == SUB_AT && quoted) {
		/* "${a[@]}": one field per element, even empty ones */
		x->nat++;
		for (size_t k = from; k < to; k++) {
			const struct pstr *el = &v->val.v[k];
			int l = line, c = col, var = vi;

			el_pos(el, &l, &c, &var);
			if (k > from)
				put(out, (struct pch){0, PF_BREAK, l, c, var, -1});
			append_el(x, out, el, 1);
			if (ps_nchars(el) == 0)
				put(out, (struct pch){0, PF_EMPTYQ, l, c, var, -1});
		}
		return;
	}
	for (size_t k = from; k < to; k++) {
		if (k > from)
			putc_at(out, ' ', quoted ? PF_QUOTED : 0, line, col);
		append_el(x, out, &v->val.v[k], quoted);
	}
	if (quoted && out->n == n0) {
		int l = line, c = col, var = vi;

		if (from < to)
			el_pos(&v->val.v[from], &l, &c, &var);
		put(out, (struct pch){0, PF_EMPTYQ, l, c, var, -1});
	}
}

/* Gives every character of p that has no note the note ev. */
static void
attach_event(struct pstr *p, int ev)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].ev < 0)
			p->v[k].ev = ev;
}

static void assign_scalar(struct sx *x, int vi, struct pstr *val, int append, int line, int col);

struct bparam {
	size_t start; /* offset of the `$` */
	int line, col, quoted;
	int vi;    /* variable index, -1 for positional/special or unknown */
	int known; /* assigned in the script */
	enum sub sub;
	long idx;
	int colon, op; /* op: 0, '-', '=', '+', '?' */
};

/* The word of ${v:-word} and friends, used: lex it, then append it. */
static int
use_word(struct sx *x, struct pstr *out, struct bparam *b)
{
	struct pstr w = {0};
	int ret = -1;

	if (lex_word(x, out ? &w : NULL, '}', b->quoted) < 0)
		goto out;
	if (peekc(x, 0) != '}') {
		ret = fail(x, b->line, b->col, "unterminated ${");
		goto out;
	}
	adv(x);
	ret = 0;
	if (out == NULL)
		goto out;
	if (!b->known) {
		char *raw = snip(x, b->start, x->i);

		attach_event(&w,
		             add_event(x, b->line, b->col,
		                       "`%s`: %s is not assigned in this script; assuming "
		                       "it is unset and using the default",
		                       raw, b->vi >= 0 ? x->vars[b->vi].name : "the parameter"));
		free(raw);
	}
	if (b->op == '=' && b->vi >= 0) {
		struct pstr val = {0};

		ps_copy(&val, &w);
		assign_scalar(x, b->vi, &val, 0, b->line, b->col);
		for (size_t k = 0; k < w.n; k++)
			if (w.v[k].var < 0)
				w.v[k].var = b->vi;
	}
	for (size_t k = 0; k < w.n; k++) {
		struct pch ch = w.v[k];

		if (b->quoted && !(ch.fl & PF_MARK))
			ch.fl |= PF_QUOTED;
		put(out, ch);
	}
	if (b->quoted && w.n == 0) /* "${v:-}" is still one (empty) word */
		putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
out:
	ps_free(&w);
	return ret;
}

/* Evaluates a parsed ${...} whose operator word (if any) is at the cursor. */
static int
eval_bparam(struct sx *x, struct pstr *out, struct bparam *b)
{
	enum { VALUE, EMPTY, OPAQUE } what = b->known ? VALUE : OPAQUE;
	const char *why = b->vi >= 0 ? "variable not assigned in this script"
	                             : "script argument or special parameter";
	size_t from = 0, to = 0;
	int null, set;

	if (b->known)
		select_range(&x->vars[b->vi], b->sub, b->idx, &from, &to);
	/* an empty array, or a missing element, is unset as far as ${v-w} goes */
	null = !b->known || var_null(&x->vars[b->vi], b->sub, b->idx);
	set = b->known && from < to && (!b->colon || !null);

	if ((b->op == '-' || b->op == '=') && !set)
		return use_word(x, out, b);
	if (b->op == '+' && set)
		return use_word(x, out, b);
	if (b->op == '+' && b->known)
		what = EMPTY; /* assigned but null: ${v:+w} is empty */
	if (b->op == '?' && !set) {
		what = OPAQUE;
		if (b->known)
			why = "variable is empty, so the script would stop here";
	}
	if (b->op != 0) {
		if (lex_word(x, NULL, '}', b->quoted) < 0)
			return -1;
		if (peekc(x, 0) != '}')
			return fail(x, b->line, b->col, "unterminated ${");
	}
	adv(x); /* the closing brace */
	if (what == VALUE)
		expand_var(x, out, b->vi, b->sub, b->idx, b->quoted, b->line, b->col);
	else if (what == EMPTY && b->quoted)
		putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
	else if (what == OPAQUE)
		opaque(x, out, b->start, b->line, b->col, b->quoted, why);
	return 0;
}

/* Reads `[sub]` after a name; returns 0 ok, 1 unsupported subscript. */
static int
read_subscript(struct sx *x, struct bparam *b)
{
	size_t a;
	char *end;

	b->sub = SUB_NONE;
	if (peekc(x, 0) != '[')
		return 0;
	adv(x);
	a = x->i;
	while (peekc(x, 0) >= 0 && peekc(x, 0) != ']' && peekc(x, 0) != '}')
		adv(x);
	if (peekc(x, 0) != ']')
		return 1;
	adv(x);
	if (x->i - a == 2 && (x->s[a] == '@' || x->s[a] == '*')) {
		b->sub = x->s[a] == '@' ? SUB_AT : SUB_STAR;
		return 0;
	}
	if (x->i - a > 1 && x->i - a < 20) {
		char num[24];

		memcpy(num, x->s + a, x->i - a - 1);
		num[x->i - a - 1] = '\0';
		b->idx = strtol(num, &end, 10);
		if (*end == '\0' && end != num) {
			b->sub = SUB_INDEX;
			return 0;
		}
	}
	return 1;
}

/* ${...}; the cursor is at the `{`. */
static int
lex_brace(struct sx *x, struct pstr *out, struct bparam *b)
{
	int c, unsupported = 0;
	size_t a;

	adv(x);
	c = peekc(x, 0);
	a = x->i;
	if (is_ident(c, 1)) {
		while (is_ident(peekc(x, 0), 0))
			adv(x);
		b->vi = var_find(x, x->s + a, x->i - a);
		b->known = b->vi >= 0 && x->vars[b->vi].defined;
		if (b->vi < 0 && out != NULL)
			b->vi = var_get(x, x->s + a, x->i - a);
	} else if (is_digit(c)) {
		while (is_digit(peekc(x, 0)))
			adv(x);
	} else if (c > 0 && strchr("@*?$-", c) && peekc(x, 1) >= 0) {
		adv(x);
	} else {
		unsupported = 1; /* ${#v}, ${!v}, ${} ... */
	}
	if (!unsupported)
		unsupported = read_subscript(x, b);
	c = peekc(x, 0);
	if (!unsupported && c == '}') {
		return eval_bparam(x, out, b);
	} else if (!unsupported && c == ':' && peekc(x, 1) > 0 && strchr("-=+?", peekc(x, 1))) {
		b->colon = 1;
		b->op = peekc(x, 1);
		adv(x);
		adv(x);
		return eval_bparam(x, out, b);
	} else if (!unsupported && c > 0 && strchr("-=+?", c)) {
		b->op = c;
		adv(x);
		return eval_bparam(x, out, b);
	}
	if (skip_nested(x, '{', '}') < 0)
		return fail(x, b->line, b->col, "unterminated ${");
	opaque(x, out, b->start, b->line, b->col, b->quoted,
	       "parameter expansion mcinit does not evaluate");
	return 0;
}

/* A `$` at the cursor, outside single quotes. */
static int
lex_dollar(struct sx *x, struct pstr *out, int quoted)
{
	struct bparam b = {x->i, x->line, x->col, quoted, -1, 0, SUB_NONE, 0, 0, 0};
	int c = peekc(x, 1), ret;

	if (c == '{') {
		adv(x);
		if (++x->depth > MAX_DEPTH)
			return fail(x, b.line, b.col, "expansions nested too deeply");
		ret = lex_brace(x, out, &b);
		x->depth--;
		return ret;
	}
	if (c == '(' || c == '[') {
		int arith = c == '[' || peekc(x, 2) == '(';

		adv(x);
		adv(x);
		if (skip_nested(x, c, c == '(' ? ')' : ']') < 0)
			return fail(x, b.line, b.col,
			            c == '(' ? "unterminated $(" : "unterminated $[");
		opaque(x, out, b.start, b.line, b.col, quoted,
		       arith ? "arithmetic expansion" : "command substitution");
		return 0;
	}
	if (!quoted && c == '\'') {
		adv(x);
		return lex_ansi(x, out, b.line, b.col);
	}
	if (!quoted && c == '"') {
		adv(x);
		return lex_dq(x, out); /* $"..." (locale translation) reads as "..." */
	}
	adv(x);
	if (is_ident(c, 1)) {
		size_t a = x->i;

		while (is_ident(peekc(x, 0), 0))
			adv(x);
		b.vi = var_find(x, x->s + a, x->i - a);
		if (b.vi >= 0 && x->vars[b.vi].defined)
			expand_var(x, out, b.vi, SUB_NONE, 0, quoted, b.line, b.col);
		else
			opaque(x, out, b.start, b.line, b.col, quoted,
			       "variable not assigned in this script");
		return 0;
	}
	if (c > 0 && (is_digit(c) || strchr("@*#?$!-", c))) {
		adv(x);
		opaque(x, out, b.start, b.line, b.col, quoted,
		       "script argument or special parameter");
		return 0;
	}
	putc_at(out, '$', quoted ? PF_QUOTED : 0, b.line, b.col);
	return 0;
}

/*
 * Lexes one word into out (NULL: skip it without side effects).  term is 0
 * for a shell word (ends at a blank or metacharacter) or '}' for the word of
 * ${v:-word}, which then inherits the double quotes around it when inq.
 */
static int
lex_word(struct sx *x, struct pstr *out, int term, int inq)
{
	unsigned qf = inq ? PF_QUOTED : 0;

	for (;;) {
		int c, line, col;

		skip_cont(x);
		c = peekc(x, 0);
		if (c < 0 || (term ? c == term : is_sep(c)))
			return 0;
		line = x->line;
		col = x->col;
		if (c == '\\') {
			adv(x);
			c = peekc(x, 0);
			if (c < 0 || (inq && !strchr("$`\"\\}", c))) {
				putc_at(out, '\\', qf, line, col);
				continue;
			}
			putc_at(out, c, PF_QUOTED, line, col);
			adv(x);
		} else if (c == '\'' && !inq) {
			if (lex_sq(x, out) < 0)
				return -1;
		} else if (c == '"') {
			if (lex_dq(x, out) < 0)
				return -1;
		} else if (c == '$') {
			if (lex_dollar(x, out, inq) < 0)
				return -1;
		} else if (c == '`') {
			size_t a = x->i;

			adv(x);
			if (skip_nested(x, -1, '`') < 0)
				return fail(x, line, col, "unterminated backquote");
			opaque(x, out, a, line, col, inq, "command substitution");
		} else {
			putc_at(out, c, qf, line, col);
			adv(x);
		}
	}
}

/* ---- fields ---- */

static int
is_ifs(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct splitter {
	struct pstr cur;
	int exists, have_mark;
	struct pch mark;
};

static void
emit_field(struct splitter *sp, struct plist *dst, int force)
{
	if (sp->cur.n == 0 && !sp->exists && !force)
		return;
	if (sp->cur.n == 0 && sp->have_mark) {
		sp->mark.fl = PF_EMPTYQ;
		put(&sp->cur, sp->mark);
	}
	pl_push(dst, &sp->cur);
	sp->exists = sp->have_mark = 0;
}

/* Splits a lexed word into fields as bash does after expansion; every field
 * is appended to dst, unquoted, an empty one holding one EMPTYQ marker. */
static void
split_word(const struct pstr *w, struct plist *dst)
{
	struct splitter sp = {{0}, 0, 0, {0}};

	for (size_t k = 0; k < w->n; k++) {
		struct pch ch = w->v[k];

		if (ch.fl & PF_BREAK) {
			if (!sp.have_mark)
				sp.mark = ch, sp.have_mark = 1;
			emit_field(&sp, dst, 1);
		} else if (ch.fl & PF_EMPTYQ) {
			if (!sp.have_mark)
				sp.mark = ch, sp.have_mark = 1;
			sp.exists = 1;
		} else if (!(ch.fl & (PF_QUOTED | PF_OPAQUE)) && is_ifs((unsigned char)ch.c)) {
			emit_field(&sp, dst, 0);
		} else {
			sp.exists |= (ch.fl & PF_QUOTED) != 0;
			ch.fl &= PF_OPAQUE;
			put(&sp.cur, ch);
		}
	}
	emit_field(&sp, dst, 0);
	ps_free(&sp.cur);
}

static void
set_owner(struct pstr *p, int vi)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].var < 0)
			p->v[k].var = vi;
}

static void
add_group(struct sx *x, const struct plist *fields)
{
	struct group g = {{0}};

	for (size_t k = 0; k < fields->n; k++) {
		struct pstr p = {0};

		ps_copy(&p, &fields->v[k]);
		pl_push(&g.f, &p);
	}
	GROW(x->groups, x->capgroups, x->ngroups + 1);
	x->groups[x->ngroups++] = g;
}

/* V=word / V+=word: val is the lexed word, consumed. */
static void
assign_scalar(struct sx *x, int vi, struct pstr *val, int append, int line, int col)
{
	struct var *v = &x->vars[vi];
	struct pstr s = {0};
	struct plist fields = {0};

	for (size_t k = 0; k < val->n; k++) {
		struct pch ch = val->v[k];

		if (ch.fl & PF_EMPTYQ)
			continue;
		if (ch.fl & PF_BREAK) /* "${a[@]}" in an assignment joins with spaces */
			ch.c = ' ';
		ch.fl &= PF_OPAQUE;
		put(&s, ch);
	}
	ps_free(val);
	set_owner(&s, vi);
	split_word(&s, &fields);
	add_group(x, &fields);
	pl_free(&fields);
	if (append && v->defined && v->val.n > 0) {
		struct pstr *el = &v->val.v[0];

		if (s.n > 0 && ps_nchars(el) == 0)
			el->n = 0; /* drop its empty marker */
		ps_copy(el, &s);
		ps_free(&s);
		return;
	}
	if (s.n == 0)
		put(&s, (struct pch){0, PF_EMPTYQ, line, col, vi, -1});
	if (v->defined && v->is_array && v->val.n > 0) {
		/* bash: V=word on an array sets only element 0 */
		ps_free(&v->val.v[0]);
		v->val.v[0] = s;
		return;
	}
	if (!append || !v->defined) {
		pl_free(&v->val);
		v->is_array = 0;
	}
	pl_push(&v->val, &s);
	v->defined = 1;
}

static void
assign_array(struct sx *x, int vi, struct plist *elems, int append)
{
	struct var *v = &x->vars[vi];

	for (size_t k = 0; k < elems->n; k++)
		set_owner(&elems->v[k], vi);
	add_group(x, elems);
	if (!append || !v->defined)
		pl_free(&v->val);
	for (size_t k = 0; k < elems->n; k++)
		pl_push(&v->val, &elems->v[k]);
	elems->n = 0;
	pl_free(elems);
	v->defined = 1;
	v->is_array = 1;
}

/* ( ... ) of an array assignment; the cursor is at the `(`. */
static int
lex_array(struct sx *x, struct plist *elems)
{
	int line = x->line, col = x->col;

	adv(x);
	for (;;) {
		struct pstr w = {0};
		int c;

		skip_blanks(x);
		c = peekc(x, 0);
		if (c < 0)
			return fail(x, line, col, "unterminated array assignment");
		if (c == '#') {
			skip_comment(x);
			continue;
		}
		if (c == ')') {
			adv(x);
			return 0;
		}
		if (is_sep(c)) { /* newline, or a stray operator bash would reject */
			adv(x);
			continue;
		}
		if (lex_word(x, &w, 0, 0) < 0) {
			ps_free(&w);
			return -1;
		}
		split_word(&w, elems);
		ps_free(&w);
	}
}

/* NAME=... / NAME+=... at the cursor: 1 handled, 0 not an assignment, -1. */
static int
try_assignment(struct sx *x)
{
	size_t j = x->i, a = x->i;
	int append = 0, vi, line, col;

	if (!is_ident(peekc(x, 0), 1))
		return 0;
	while (j < x->len && is_ident((unsigned char)x->s[j], 0))
		j++;
	if (j + 1 < x->len && x->s[j] == '+' && x->s[j + 1] == '=')
		append = 1, j++;
	if (j >= x->len || x->s[j] != '=')
		return 0;
	vi = var_get(x, x->s + a, j - a - (size_t)append);
	while (x->i <= j)
		adv(x);
	line = x->line;
	col = x->col;
	if (peekc(x, 0) == '(') {
		struct plist elems = {0};

		if (lex_array(x, &elems) < 0) {
			pl_free(&elems);
			return -1;
		}
		assign_array(x, vi, &elems, append);
	} else {
		struct pstr w = {0};

		if (lex_word(x, &w, 0, 0) < 0) {
			ps_free(&w);
			return -1;
		}
		assign_scalar(x, vi, &w, append, line, col);
	}
	return 1;
}

/* ---- redirections and here-documents ---- */

static void
read_delim(struct sx *x)
{
	struct mcinit_buf b = {0};
	int line = x->line, col = x->col, c;

	while (!is_sep(c = peekc(x, 0))) {
		if (c == '\'' || c == '"') {
			adv(x);
			while (peekc(x, 0) >= 0 && peekc(x, 0) != c) {
				if (c == '"' && peekc(x, 0) == '\\' && peekc(x, 1) >= 0)
					adv(x);
				mcinit_buf_addc(&b, (char)peekc(x, 0));
				adv(x);
			}
			if (peekc(x, 0) == c)
				adv(x);
			continue;
		}
		if (c == '\\') {
			adv(x);
			if (peekc(x, 0) < 0)
				break;
			c = peekc(x, 0);
		}
		mcinit_buf_addc(&b, (char)c);
		adv(x);
	}
	if (b.len == 0) {
		mcinit_buf_free(&b);
		return;
	}
	GROW(x->hd, x->caphd, x->nhd + 1);
	x->hd[x->nhd++] = (struct hdoc){mcinit_xstrdup(mcinit_buf_cstr(&b)), 0, line, col};
	mcinit_buf_free(&b);
}

/* Skips the bodies of here-documents opened on the line just ended. */
static void
read_heredocs(struct sx *x)
{
	for (size_t h = 0; h < x->nhd; h++) {
		const char *d = x->hd[h].delim;
		size_t dl = strlen(d);
		int found = 0;

		while (x->i < x->len && !found) {
			const char *p = x->s + x->i, *e = memchr(p, '\n', x->len - x->i);
			size_t n = e ? (size_t)(e - p) : x->len - x->i;

			if (n > 0 && p[n - 1] == '\r')
				n--;
			while (x->hd[h].strip && n > 0 && *p == '\t')
				p++, n--;
			found = n == dl && memcmp(p, d, dl) == 0;
			while (x->i < x->len && x->s[x->i] != '\n')
				adv(x);
			if (x->i < x->len)
				adv(x);
		}
		if (!found)
			script_note(x, x->hd[h].line, x->hd[h].col,
			            "here-document delimited by `%s` is not terminated", d);
		free(x->hd[h].delim);
	}
	x->nhd = 0;
}

/* A redirection at the cursor: 1 skipped (with its target), 0 none, -1. */
static int
try_redirect(struct sx *x)
{
	size_t j = x->i, oplen;
	int line = x->line, col = x->col, heredoc = 0;
	const char *s = x->s;

	while (j < x->len && is_digit((unsigned char)s[j]))
		j++;
	if (j == x->i && j + 1 < x->len && s[j] == '&' && s[j + 1] == '>') {
		oplen = j + 2 < x->len && s[j + 2] == '>' ? 3 : 2;
	} else if (j < x->len && (s[j] == '<' || s[j] == '>')) {
		char n1 = j + 1 < x->len ? s[j + 1] : 0, n2 = j + 2 < x->len ? s[j + 2] : 0;

		if (j == x->i && n1 == '(') { /* process substitution: dropped */
			adv(x);
			adv(x);
			if (skip_nested(x, '(', ')') < 0)
				return fail(x, line, col, "unterminated process substitution");
			return 1;
		}
		heredoc = s[j] == '<' && n1 == '<' && n2 != '<';
		if (s[j] == '<' && n1 == '<')
			oplen = n2 == '<' || n2 == '-' ? 3 : 2;
		else
			oplen = n1 && strchr(s[j] == '>' ? ">|&" : "&>", n1) ? 2 : 1;
	} else {
		return 0;
	}
	while (x->i < j + oplen)
		adv(x);
	skip_blanks(x);
	if (heredoc) {
		size_t nhd = x->nhd;

		read_delim(x);
		if (x->nhd > nhd)
			x->hd[nhd].strip = oplen == 3;
		return 1;
	}
	if ((peekc(x, 0) == '<' || peekc(x, 0) == '>') && peekc(x, 1) == '(')
		return try_redirect(x);
	return is_sep(peekc(x, 0)) ? 1 : lex_word(x, NULL, 0, 0) < 0 ? -1 : 1;
}

/* ---- commands ---- */

/* Whether t is one of the words of list, a string of words each with a
 * space on both sides (the lists below). */
static int
in_list(const char *t, const char *list)
{
	size_t n = strlen(t);

	if (n == 0 || strpbrk(t, " \t\r\n") != NULL)
		return 0;
	for (const char *p = strstr(list, t); p != NULL; p = strstr(p + 1, t))
		if (p[-1] == ' ' && p[n] == ' ')
			return 1;
	return 0;
}

/* Whether w, unquoted and unexpanded, is one of the words of list. */
static int
word_is(const struct pstr *w, const char *list)
{
	char *t;
	int hit;

	for (size_t k = 0; k < w->n; k++)
		if (w->v[k].fl != 0)
			return 0; /* quoted or expanded: not a keyword */
	t = ps_text(w);
	hit = in_list(t, list);
	free(t);
	return hit;
}

/* Word lists are spaced strings, searched with in_list(). */
static const char skip_kw[] = " ! { } do done elif else esac fi if then time until while ";
static const char header_kw[] = " for select case function coproc ";
static const char decl_cmd[] = " export declare typeset local readonly ";
/* Commands that mention a .py file without running it. */
static const char not_runner[] =
    " echo printf cat ls cp mv rm test [ [[ wget curl git head tail grep sed awk chmod mkdir "
    "touch ln tee find source . pip pip3 wc diff vim vi less more stat file realpath dirname "
    "basename readlink scp rsync tar unset export declare local readonly typeset cd pushd "
    "which type command hash ";

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Ends in ".py" and holds no blank outside unexpandable text (which may be
 * `$(dirname $0)`): a quoted sentence mentioning a script is not one. */
static int
is_py_field(const struct pstr *f)
{
	char *t = ps_text(f);
	size_t n = strlen(t);
	int py = n > 3 && strcmp(t + n - 3, ".py") == 0;

	free(t);
	for (size_t k = 0; k < f->n && py; k++)
		if (!(f->v[k].fl & (PF_OPAQUE | PF_MARK)) && is_ifs((unsigned char)f->v[k].c))
			py = 0;
	return py;
}

static void
do_unset(struct sx *x, const struct plist *w)
{
	for (size_t k = 1; k < w->n; k++) {
		char *t = ps_text(&w->v[k]);
		int vi = var_find(x, t, strlen(t));

		if (vi >= 0) {
			x->vars[vi].defined = 0;
			pl_free(&x->vars[vi].val);
		}
		free(t);
	}
}

/* At the end of a simple command: remember it if it runs a .py script. */
static void
check_python(struct sx *x, struct plist *w)
{
	char *t;
	int skip;
	size_t k;

	if (w->n == 0)
		return;
	t = ps_text(&w->v[0]);
	skip = in_list(base_name(t), not_runner);
	free(t);
	if (skip)
		return;
	for (k = 0; k < w->n; k++)
		if (is_py_field(&w->v[k]))
			break;
	if (k == w->n)
		return;
	GROW(x->cands, x->capcands, x->ncands + 1);
	memset(&x->cands[x->ncands], 0, sizeof x->cands[x->ncands]);
	for (; k < w->n; k++)
		pl_push(&x->cands[x->ncands], &w->v[k]);
	x->ncands++;
}

static int
parse_command(struct sx *x)
{
	struct plist w = {0};
	int cmdpos = 1, decl = 0, ignore = 0, r, ret = -1;

	for (;;) {
		struct pstr tmp = {0};
		int c;

		skip_blanks(x);
		c = peekc(x, 0);
		if (c < 0)
			break;
		if (c == '#') {
			skip_comment(x);
			continue;
		}
		if (c == '\n') {
			adv(x);
			read_heredocs(x);
			break;
		}
		if ((r = try_redirect(x)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		if (strchr(";&|()", c)) {
			adv(x);
			break;
		}
		if ((cmdpos || decl) && (r = try_assignment(x)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		if (lex_word(x, &tmp, 0, 0) < 0) {
			ps_free(&tmp);
			goto out;
		}
		if (cmdpos && (word_is(&tmp, skip_kw) || word_is(&tmp, header_kw))) {
			ignore |= word_is(&tmp, header_kw);
			ps_free(&tmp);
			continue;
		}
		cmdpos = 0;
		split_word(&tmp, &w);
		ps_free(&tmp);
		if (w.n > 0 && !decl)
			decl = word_is(&w.v[0], decl_cmd);
	}
	ret = 0;
	if (!ignore && w.n > 0 && word_is(&w.v[0], " unset "))
		do_unset(x, &w);
	else if (!ignore)
		check_python(x, &w);
out:
	pl_free(&w);
	return ret;
}

/* ---- result ---- */

struct posset { /* source positions already emitted, for the fallback */
	uint64_t *v;
	size_t cap, n;
};

static int
posset_add(struct posset *s, int line, int col)
{
	uint64_t key = ((uint64_t)(uint32_t)line << 32 | (uint32_t)col) + 1;
	size_t h;

	if (2 * (s->n + 1) > s->cap) {
		struct posset t = {mcinit_xcalloc(s->cap ? 2 * s->cap : 64, sizeof(uint64_t)),
		                   s->cap ? 2 * s->cap : 64, 0};

		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k])
				posset_add(&t, (int)((s->v[k] - 1) >> 32),
				           (int)(uint32_t)(s->v[k] - 1));
		free(s->v);
		*s = t;
	}
	for (h = (key * 0x9E3779B97F4A7C15u) >> 20 & (s->cap - 1); s->v[h];
	     h = (h + 1) & (s->cap - 1))
		if (s->v[h] == key)
			return 0;
	s->v[h] = key;
	s->n++;
	return 1;
}

struct result {
	struct mcinit_shword *w;
	size_t nw, capw;
	struct mcinit_shnote *notes;
	size_t nn, capn;
	unsigned char *ev_used;
};

static void
emit_word(struct sx *x, struct result *r, const struct pstr *f)
{
	struct mcinit_shword w = {ps_text(f), 0, 0, NULL, 0};

	if (f->n > 0) {
		w.line = f->v[0].line;
		w.col = f->v[0].col;
		if (f->v[0].var >= 0)
			w.var = mcinit_xstrdup(x->vars[f->v[0].var].name);
	}
	for (size_t k = 0; k < f->n; k++) {
		int ev = f->v[k].ev;

		w.opaque |= (f->v[k].fl & PF_OPAQUE) != 0;
		if (ev >= 0 && !r->ev_used[ev]) {
			r->ev_used[ev] = 1;
			note_add(&r->notes, &r->nn, &r->capn, x->ev[ev].line, x->ev[ev].col,
			         mcinit_xstrdup(x->ev[ev].msg));
		}
	}
	GROW(r->w, r->capw, r->nw + 1);
	r->w[r->nw++] = w;
}

/* Options of torchrun / torch.distributed.launch / deepspeed: an array of
 * these is the launcher's, not Megatron's. */
static const char launcher_flags[] =
    " nproc_per_node nproc-per-node nnodes node_rank node-rank master_addr master-addr "
    "master_port master-port rdzv_backend rdzv-backend rdzv_endpoint rdzv-endpoint rdzv_id "
    "rdzv-id rdzv_conf rdzv-conf standalone max_restarts max-restarts monitor_interval "
    "monitor-interval start_method start-method role tee redirects log_dir log-dir local_addr "
    "local-addr use_env use-env no_python no-python run_path run-path num_gpus num_nodes "
    "hostfile include exclude ";

static int
is_flag_word(const char *t)
{
	return t[0] == '-' && t[1] == '-' && is_ident((unsigned char)t[2], 1);
}

static int
is_launcher_flag(const char *t)
{
	char *name = mcinit_xasprintf("%.*s", (int)strcspn(t + 2, "="), t + 2);
	int hit = in_list(name, launcher_flags);

	free(name);
	return hit;
}

static void
fallback(struct sx *x, struct result *r)
{
	struct posset seen = {0};

	for (size_t g = 0; g < x->ngroups; g++) {
		const struct plist *f = &x->groups[g].f;
		size_t k;
		int launcher = 0;

		for (k = 0; k < f->n; k++) {
			char *t = ps_text(&f->v[k]);
			int flag = is_flag_word(t);

			launcher = flag && is_launcher_flag(t);
			free(t);
			if (flag)
				break;
		}
		if (launcher)
			continue;
		for (; k < f->n; k++) {
			const struct pstr *p = &f->v[k];

			if (p->n > 0 && !posset_add(&seen, p->v[0].line, p->v[0].col))
				continue;
			emit_word(x, r, p);
		}
	}
	free(seen.v);
}

static size_t
choose_candidate(struct sx *x)
{
	for (size_t c = 0; c < x->ncands; c++) {
		char *t = ps_text(&x->cands[c].v[0]);
		const char *b = base_name(t);
		int train = strcasestr(b, "train") != NULL;

		free(t);
		if (train)
			return c;
	}
	return 0;
}

static void
build_result(struct sx *x, struct mcinit_shscan *out)
{
	struct result r = {0};

	r.ev_used = mcinit_xcalloc(x->nev + 1, 1);
	if (x->ncands > 0) {
		size_t c = choose_candidate(x);
		const struct plist *p = &x->cands[c];

		out->script = ps_text(&p->v[0]);
		out->script_line = p->v[0].n ? p->v[0].v[0].line : 0;
		out->script_col = p->v[0].n ? p->v[0].v[0].col : 0;
		if (x->ncands > 1)
			note_add(&r.notes, &r.nn, &r.capn, out->script_line, out->script_col,
			         mcinit_xasprintf("%zu commands run Python scripts; the flags are "
			                          "taken from the one running `%s`",
			                          x->ncands, out->script));
		for (size_t k = 1; k < p->n; k++)
			emit_word(x, &r, &p->v[k]);
	} else {
		note_add(&r.notes, &r.nn, &r.capn, 0, 0,
		         mcinit_xstrdup("no command in the script runs a *.py file; the flags are "
		                        "every --flag word of its arrays and strings, in order"));
		fallback(x, &r);
	}
	for (size_t k = 0; k < x->nnotes; k++) {
		note_add(&r.notes, &r.nn, &r.capn, x->notes[k].line, x->notes[k].col,
		         x->notes[k].msg);
		x->notes[k].msg = NULL;
	}
	free(r.ev_used);
	out->words = r.w;
	out->nwords = r.nw;
	out->notes = r.notes;
	out->nnotes = r.nn;
}

static void
sx_free(struct sx *x)
{
	for (size_t k = 0; k < x->nvars; k++) {
		free(x->vars[k].name);
		pl_free(&x->vars[k].val);
	}
	free(x->vars);
	free(x->hash);
	for (size_t k = 0; k < x->nev; k++)
		free(x->ev[k].msg);
	free(x->ev);
	for (size_t k = 0; k < x->nnotes; k++)
		free(x->notes[k].msg);
	free(x->notes);
	for (size_t k = 0; k < x->nhd; k++)
		free(x->hd[k].delim);
	free(x->hd);
	for (size_t k = 0; k < x->ngroups; k++)
		pl_free(&x->groups[k].f);
	free(x->groups);
	for (size_t k = 0; k < x->ncands; k++)
		pl_free(&x->cands[k]);
	free(x->cands);
}

static int
check_nul(const char *text, size_t len, struct mcinit_err *err)
{
	int line, col;

	if (!mcinit_find_nul(text, len, &line, &col))
		return 0;
	return mcinit_err_set(err, EX_DATAERR, "%d:%d: NUL byte: not a shell script", line, col);
}

int
mcinit_shscan_parse(const char *text, size_t len, struct mcinit_shscan *out, struct mcinit_err *err)
{
	struct sx x = {0};
	int ret = -1;

	memset(out, 0, sizeof *out);
	if (len > 0 && check_nul(text, len, err) < 0)
		return -1;
	x.s = text;
	x.len = len;
	x.line = x.col = 1;
	x.err = err;
	x.budget = BUDGET_BASE;
	while (x.i < x.len)
		if (parse_command(&x) < 0)
			goto out;
	read_heredocs(&x);
	build_result(&x, out);
	ret = 0;
out:
	sx_free(&x);
	return ret;
}

void
mcinit_shscan_destroy(struct mcinit_shscan *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < s->nwords; k++) {
		free(s->words[k].text);
		free(s->words[k].var);
	}
	free(s->words);
	for (size_t k = 0; k < s->nnotes; k++)
		free(s->notes[k].msg);
	free(s->notes);
	free(s->script);
	memset(s, 0, sizeof *s);
}
