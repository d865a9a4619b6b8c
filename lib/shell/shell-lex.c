/* shell-lex.c — lexing: words, quotes, parameter expansions and the rest of what a
 * word is made of, expanded while read. */
#include "shell/shell-impl.h"

/* ---- lexing ---- */

static int lex_backquote(struct sx *x, struct pstr *out, int quoted);

/* The source [a, x->i) as opaque characters with flags fl and note ev. */
static void
put_opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, unsigned fl, int ev)
{
	for (size_t k = a; k < x->i; k++) {
		unsigned char c = (unsigned char)x->s[k];

		mcinit_sh_put(out, (struct pch){(char)c, (unsigned short)fl, line, col, -1, ev});
		if (c == '\n') {
			line++;
			col = 1;
		} else if ((c & 0xC0) != 0x80) {
			col++;
		}
	}
}

/* The bytes from x->i that an outer shell kept as written
 * (mcinit_sh_kept_at), as they were: unknown, never read as syntax here;
 * quoted is PF_QUOTED inside quotes of this shell. */
static void
lex_kept(struct sx *x, struct pstr *out, unsigned quoted)
{
	while (mcinit_sh_kept_at(x)) {
		const struct lc *m = &x->map[x->i];

		mcinit_sh_put(out, (struct pch){x->s[x->i], (unsigned short)(m->fl | quoted),
		                                m->line, m->col, -1, m->ev1 - 1});
		mcinit_sh_adv(x);
	}
}

/* Appends source bytes [a, x->i) as unexpandable text with a note. */
void
mcinit_sh_opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, int quoted,
                 const char *why)
{
	char *raw;
	int ev;

	if (out == NULL)
		return;
	raw = mcinit_sh_snip(x, a, x->i);
	ev = mcinit_sh_add_event(x, line, col, "`%s`: %s; word kept as written", raw, why);
	free(raw);
	put_opaque(x, out, a, line, col,
	           PF_OPAQUE | (quoted ? PF_QUOTED : 0) | (why == x->unread ? PF_UNREAD : 0), ev);
}

/* Whether the positional parameters are the script's own arguments, which
 * mcinit was not given (no --script-args): then only the run knows them. */
int
mcinit_sh_args_runtime(const struct sx *x)
{
	return x->vars[x->at].runtime;
}

/* The one note about the script's arguments known only at run time (made
 * at their first use, line:col): every word made from them carries it, so
 * a command shows it once, not once per `$1`. */
int
mcinit_sh_args_note(struct sx *x, int line, int col)
{
	if (x->skipping > 0 || x->dead)
		return -1; /* text not run: no place for it */
	if (x->args_ev == 0)
		x->args_ev =
		    mcinit_sh_add_event(
		        x, line, col,
		        "the script's arguments are known only at run time: `$1`, `\"$@\"`, `$#` "
		        "and the words made from them are kept as written, and `${1:-WORD}` is "
		        "WORD, as when the script is run without that argument (mcinit validate "
		        "--script-args ARGS reads it as run with ARGS)") +
		    1;
	return x->args_ev - 1;
}

/* The source [a, x->i) of an expansion of the script's arguments known
 * only at run time ($1, "$@", $#, ...): kept as written, with the note. */
void
mcinit_sh_args_opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, int quoted)
{
	if (out != NULL)
		put_opaque(x, out, a, line, col, PF_OPAQUE | PF_ARGS | (quoted ? PF_QUOTED : 0),
		           mcinit_sh_args_note(x, line, col));
}

/* Skips to the `close` matching an already consumed `open`, over quotes. */
int
mcinit_sh_skip_nested(struct sx *x, int open, int close)
{
	int depth = 1, c;

	while (depth > 0) {
		c = mcinit_sh_peekc(x, 0);
		if (c < 0)
			return -1;
		if (c == '\\') {
			mcinit_sh_adv(x);
			if (mcinit_sh_peekc(x, 0) >= 0)
				mcinit_sh_adv(x);
			continue;
		}
		if (open < 0 && c == close) {
			depth--;
		} else if (c == '\'' || c == '"' || c == '`') {
			mcinit_sh_adv(x);
			while (mcinit_sh_peekc(x, 0) >= 0 && mcinit_sh_peekc(x, 0) != c) {
				if (c != '\'' && mcinit_sh_peekc(x, 0) == '\\')
					mcinit_sh_adv(x);
				if (mcinit_sh_peekc(x, 0) >= 0)
					mcinit_sh_adv(x);
			}
			if (mcinit_sh_peekc(x, 0) < 0)
				return -1;
		} else if (c == open) {
			depth++;
		} else if (c == close) {
			depth--;
		}
		mcinit_sh_adv(x);
	}
	return 0;
}

static int
lex_sq(struct sx *x, struct pstr *out)
{
	int line = x->line, col = x->col;
	size_t n0 = out ? out->n : 0;

	mcinit_sh_adv(x);
	for (;;) {
		int c = mcinit_sh_peekc(x, 0);

		if (c < 0)
			return mcinit_sh_fail(x, line, col, "unterminated single quote");
		if (mcinit_sh_kept_at(x)) {
			lex_kept(x, out, PF_QUOTED);
			continue;
		}
		if (c == '\'')
			break;
		mcinit_sh_putc_at(out, c, PF_QUOTED, x->line, x->col);
		mcinit_sh_adv(x);
	}
	mcinit_sh_adv(x);
	if (out && out->n == n0)
		mcinit_sh_putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

static int
hexval(int c)
{
	if (mcinit_sh_is_digit(c))
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
	int c = mcinit_sh_peekc(x, 0), v = 0, k;
	const char *p = c > 0 ? strchr(from, c) : NULL;

	if (p != NULL) {
		mcinit_sh_adv(x);
		return to[p - from];
	}
	if (c == 'x' && hexval(mcinit_sh_peekc(x, 1)) >= 0) {
		mcinit_sh_adv(x);
		for (k = 0; k < 2 && hexval(mcinit_sh_peekc(x, 0)) >= 0; k++, mcinit_sh_adv(x))
			v = v * 16 + hexval(mcinit_sh_peekc(x, 0));
		return v;
	}
	if (c >= '0' && c <= '7') {
		for (k = 0; k < 3 && mcinit_sh_peekc(x, 0) >= '0' && mcinit_sh_peekc(x, 0) <= '7';
		     k++, mcinit_sh_adv(x))
			v = v * 8 + mcinit_sh_peekc(x, 0) - '0';
		return v & 0xFF;
	}
	return -2; /* unknown: keep the backslash and the character */
}

/* $'...' (cursor at the quote). */
static int
lex_ansi(struct sx *x, struct pstr *out, int line, int col)
{
	size_t n0 = out ? out->n : 0;

	mcinit_sh_adv(x);
	for (;;) {
		int c = mcinit_sh_peekc(x, 0), l = x->line, cl = x->col;

		if (c < 0)
			return mcinit_sh_fail(x, line, col, "unterminated $'...' quote");
		if (c == '\'')
			break;
		mcinit_sh_adv(x);
		if (c == '\\' && mcinit_sh_peekc(x, 0) >= 0) {
			c = ansi_escape(x);
			if (c == -2) {
				mcinit_sh_putc_at(out, '\\', PF_QUOTED, l, cl);
				continue;
			}
		}
		if (c > 0) /* a NUL ends a C string: drop it, as bash does */
			mcinit_sh_putc_at(out, c, PF_QUOTED, l, cl);
	}
	mcinit_sh_adv(x);
	if (out && out->n == n0)
		mcinit_sh_putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

static int
lex_dq(struct sx *x, struct pstr *out)
{
	int line = x->line, col = x->col;
	size_t n0 = out ? out->n : 0, at0 = x->nat;

	mcinit_sh_adv(x);
	for (;;) {
		int c;

		mcinit_sh_skip_cont(x);
		c = mcinit_sh_peekc(x, 0);
		if (c < 0)
			return mcinit_sh_fail(x, line, col, "unterminated double quote");
		if (mcinit_sh_kept_at(x)) {
			lex_kept(x, out, PF_QUOTED);
			continue;
		}
		if (c == '"')
			break;
		if (c == '\\' && mcinit_sh_peekc(x, 1) > 0 &&
		    strchr("$`\"\\", mcinit_sh_peekc(x, 1))) {
			int l = x->line, cl = x->col;

			mcinit_sh_adv(x);
			mcinit_sh_putc_at(out, mcinit_sh_peekc(x, 0), PF_QUOTED, l, cl);
			mcinit_sh_adv(x);
		} else if (c == '$') {
			if (mcinit_sh_lex_dollar(x, out, 1) < 0)
				return -1;
		} else if (c == '`') {
			if (lex_backquote(x, out, 1) < 0)
				return -1;
		} else {
			mcinit_sh_putc_at(out, c, PF_QUOTED, x->line, x->col);
			mcinit_sh_adv(x);
		}
	}
	mcinit_sh_adv(x);
	if (out && out->n == n0 && x->nat == at0)
		mcinit_sh_putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

/* Where an element was written: its first character or empty-marker. */
static void
el_pos(const struct pstr *el, int *line, int *col, int *var)
{
	if (el->n > 0 && el->v[0].line > 0) {
		*line = el->v[0].line;
		*col = el->v[0].col;
		*var = el->v[0].var;
	}
}

/* Appends an element; a character written nowhere in the script (a script
 * argument) is placed where it is expanded. */
static void
append_el(struct sx *x, struct pstr *out, const struct pstr *el, int quoted, int line, int col)
{
	if (!mcinit_sh_charge(x, el->n + EL_COST))
		return;
	for (size_t k = 0; k < el->n; k++) {
		struct pch ch = el->v[k];

		if (ch.fl & PF_MARK)
			continue;
		if (ch.line == 0)
			ch.line = line, ch.col = col;
		ch.fl = (unsigned short)((ch.fl & (PF_OPAQUE | PF_UNREAD | PF_ARGS | PF_ASSUMED |
		                                   PF_SRCQ)) |
		                         (quoted ? PF_QUOTED : 0));
		mcinit_sh_put(out, ch);
	}
}

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
range_null(const struct var *v, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		if (mcinit_sh_ps_nchars(&v->val.v[k]) > 0)
			return 0;
	return 1;
}

/* Elements [from, to) of variable vi, as ${v[@]} (sub SUB_AT), ${v[*]} or
 * one element expands them. */
static void
expand_range(struct sx *x, struct pstr *out, int vi, enum sub sub, size_t from, size_t to,
             int quoted, int line, int col)
{
	const struct var *v = &x->vars[vi];
	size_t n0 = out ? out->n : 0;

	if (out == NULL)
		return;
	if (sub == SUB_AT && quoted) {
		/* "${a[@]}": one field per element, even empty ones */
		x->nat++;
		for (size_t k = from; k < to; k++) {
			const struct pstr *el = &v->val.v[k];
			int l = line, c = col, var = vi;

			el_pos(el, &l, &c, &var);
			if (k > from)
				mcinit_sh_put(out, (struct pch){0, PF_BREAK, l, c, var, -1});
			append_el(x, out, el, 1, line, col);
			if (mcinit_sh_ps_nchars(el) == 0)
				mcinit_sh_put(out, (struct pch){0, PF_EMPTYQ, l, c, var, -1});
		}
		return;
	}
	for (size_t k = from; k < to; k++) {
		if (k > from)
			mcinit_sh_putc_at(out, ' ', quoted ? PF_QUOTED : 0, line, col);
		append_el(x, out, &v->val.v[k], quoted, line, col);
	}
	if (quoted && out->n == n0) {
		int l = line, c = col, var = vi;

		if (from < to)
			el_pos(&v->val.v[from], &l, &c, &var);
		mcinit_sh_put(out, (struct pch){0, PF_EMPTYQ, l, c, var, -1});
	}
}

/* Whether an element of v is kept as written (`$(cmd)`, "$@" known only at
 * run time): it may be any number of words at run time. */
static int
has_opaque(const struct var *v)
{
	for (size_t k = 0; k < v->val.n; k++)
		if (mcinit_sh_ps_opaque(&v->val.v[k]))
			return 1;
	return 0;
}

static void
expand_var(struct sx *x, struct pstr *out, int vi, enum sub sub, long idx, int quoted, int line,
           int col)
{
	size_t from, to;

	select_range(&x->vars[vi], sub, idx, &from, &to);
	expand_range(x, out, vi, sub, from, to, quoted, line, col);
}

/* $N of a script (or function) not given N arguments: bash expands it to
 * nothing, which may leave a flag without its value; said where it is. */
static void
missing_arg(struct sx *x, const struct pstr *out, long n, int line, int col)
{
	if (out == NULL || x->dead || (size_t)n <= x->vars[x->at].val.n)
		return;
	if (mcinit_sh_local_frame(x) > 0)
		mcinit_sh_script_note(
		    x, line, col,
		    "`$%ld`: the function is called with %zu argument%s here, so bash "
		    "expands it to nothing",
		    n, x->vars[x->at].val.n, x->vars[x->at].val.n == 1 ? "" : "s");
	else
		mcinit_sh_script_note(
		    x, line, col,
		    "`$%ld`: the script is read as run with %zu argument%s, so bash expands "
		    "it to nothing (mcinit validate --script-args gives them)",
		    n, x->vars[x->at].val.n, x->vars[x->at].val.n == 1 ? "" : "s");
}

/* A number (a count, an index) as text at an expansion's place. */
void
mcinit_sh_put_number(struct pstr *out, long long v, int quoted, int line, int col)
{
	char num[24];

	snprintf(num, sizeof num, "%lld", v);
	for (char *p = num; *p; p++)
		mcinit_sh_putc_at(out, *p, quoted ? PF_QUOTED : 0, line, col);
}

/* Gives every character of p that has no note the note ev. */
static void
attach_event(struct pstr *p, int ev)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].ev < 0)
			p->v[k].ev = ev;
}

/* The word of ${v:-word} and friends, used: lex it, then append it. */
static int
use_word(struct sx *x, struct pstr *out, struct bparam *b)
{
	struct pstr w = {0};
	int ret = -1;

	if (mcinit_sh_lex_word(x, out ? &w : NULL, '}', b->quoted) < 0)
		goto out;
	if (mcinit_sh_peekc(x, 0) != '}') {
		ret = mcinit_sh_fail(x, b->line, b->col, "unterminated ${");
		goto out;
	}
	mcinit_sh_adv(x);
	ret = 0;
	if (out == NULL)
		goto out;
	if (!b->known) {
		char *raw = mcinit_sh_snip(x, b->start, x->i);

		attach_event(&w, mcinit_sh_add_event(
		                     x, b->line, b->col,
		                     "`%s`: %s is not assigned in this script; assuming "
		                     "it is unset and using the default",
		                     raw, b->vi >= 0 ? x->vars[b->vi].name : "the parameter"));
		free(raw);
	} else if (b->vi == x->at && mcinit_sh_args_runtime(x)) {
		attach_event(&w, mcinit_sh_args_note(x, b->line, b->col));
	}
	/* a script with no #SBATCH is sized by the allocation it runs in: a
	 * Slurm variable's default is an assumption (launch-cmdline.c says so) */
	if (!b->known && b->vi >= 0 && x->nsbatch == 0 &&
	    strncmp(x->vars[b->vi].name, "SLURM_", 6) == 0)
		for (size_t k = 0; k < w.n; k++)
			w.v[k].fl |= PF_ASSUMED;
	if (b->op == '=' && b->vi >= 0 && !x->dead) {
		struct pstr val = {0};

		mcinit_sh_ps_copy(&val, &w);
		mcinit_sh_assign_scalar(x, b->vi, &val, 0, b->line, b->col, 1);
		for (size_t k = 0; k < w.n; k++)
			if (w.v[k].var < 0)
				w.v[k].var = b->vi;
	}
	for (size_t k = 0; k < w.n; k++) {
		struct pch ch = w.v[k];

		if (b->quoted && !(ch.fl & PF_MARK))
			ch.fl |= PF_QUOTED;
		mcinit_sh_put(out, ch);
	}
	if (b->quoted && w.n == 0) /* "${v:-}" is still one (empty) word */
		mcinit_sh_putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
out:
	mcinit_sh_ps_free(&w);
	return ret;
}

/* ${a[@]:off:cnt} / ${@:off:cnt}: narrows [from, to); -1 for what mcinit
 * leaves to bash ($0, a negative count). */
static int
slice_range(const struct sx *x, const struct bparam *b, size_t *from, size_t *to)
{
	long long n = (long long)*to, off = b->off;

	if (b->vi == x->at && off-- == 0)
		return -1; /* ${@:0} starts with $0 */
	if (off < 0)
		off += n;
	if (off < 0 || off > n)
		off = n; /* bash: nothing */
	if (b->has_cnt && b->cnt < 0)
		return -1;
	*from = (size_t)off;
	*to = (size_t)(b->has_cnt && off + b->cnt < n ? off + b->cnt : n);
	return 0;
}

/* ${1}, ${@:2}, ${1:-WORD}... of the script's arguments known only at run
 * time: ${N:-WORD} and ${N-WORD} are WORD, what bash gives when the script
 * is run without argument N (the user's own default, so that a size or a
 * path the script defaults is still checked) unless WORD is empty; the rest
 * is kept as written. */
static int
args_bparam(struct sx *x, struct pstr *out, struct bparam *b)
{
	/* `${1:-}` (what `set -u` scripts write to test for an argument) is
	 * the argument itself: an empty default says nothing */
	if (b->sub == SUB_INDEX && !b->slice && b->op == '-' && mcinit_sh_peekc(x, 0) != '}')
		return use_word(x, out, b);
	if (b->op != 0) {
		if (mcinit_sh_lex_word(x, NULL, '}', b->quoted) < 0)
			return -1;
		if (mcinit_sh_peekc(x, 0) != '}')
			return mcinit_sh_fail(x, b->line, b->col, "unterminated ${");
	}
	mcinit_sh_adv(x); /* the closing brace */
	mcinit_sh_args_opaque(x, out, b->start, b->line, b->col, b->quoted);
	return 0;
}

/* Evaluates a parsed ${...} whose operator word (if any) is at the cursor. */
static int
eval_bparam(struct sx *x, struct pstr *out, struct bparam *b)
{
	enum { VALUE, EMPTY, OPAQUE } what = b->known ? VALUE : OPAQUE;
	const char *why = b->vi >= 0 ? "variable not assigned in this script"
	                             : "script argument or special parameter";
	size_t from = 0, to = 0;
	int null = 1, set, maybe = !b->known && b->vi >= 0 && mcinit_sh_var_maybe(x, b->vi);

	if (maybe)
		why = x->unread; /* not the default: the file may set it */
	if (b->vi == x->at && mcinit_sh_args_runtime(x))
		return args_bparam(x, out, b);
	if (b->known) {
		select_range(&x->vars[b->vi], b->sub, b->idx, &from, &to);
		if (b->slice && slice_range(x, b, &from, &to) < 0)
			what = OPAQUE, why = "a slice mcinit does not evaluate";
		/* an empty array, or a missing element, is unset as far as ${v-w} goes */
		null = range_null(&x->vars[b->vi], from, to);
	}
	set = what == VALUE && from < to && (!b->colon || !null);

	if ((b->op == '-' || b->op == '=') && !set && !maybe)
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
		if (mcinit_sh_lex_word(x, NULL, '}', b->quoted) < 0)
			return -1;
		if (mcinit_sh_peekc(x, 0) != '}')
			return mcinit_sh_fail(x, b->line, b->col, "unterminated ${");
	}
	mcinit_sh_adv(x); /* the closing brace */
	if (b->vi == x->at && b->sub == SUB_INDEX && b->op == 0)
		missing_arg(x, out, b->idx + 1, b->line, b->col);
	if (what == VALUE)
		expand_range(x, out, b->vi, b->sub, from, to, b->quoted, b->line, b->col);
	else if (what == EMPTY && b->quoted)
		mcinit_sh_putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
	else if (what == OPAQUE)
		mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted, why);
	return 0;
}

/* Reads `[sub]` after a name; returns 0 ok, 1 unsupported subscript. */
static int
read_subscript(struct sx *x, struct bparam *b)
{
	size_t a;

	if (mcinit_sh_peekc(x, 0) != '[')
		return 0;
	mcinit_sh_adv(x);
	a = x->i;
	while (mcinit_sh_peekc(x, 0) >= 0 && mcinit_sh_peekc(x, 0) != ']' &&
	       mcinit_sh_peekc(x, 0) != '}')
		mcinit_sh_adv(x);
	if (mcinit_sh_peekc(x, 0) != ']')
		return 1;
	mcinit_sh_adv(x);
	if (x->i - a == 2 && (x->s[a] == '@' || x->s[a] == '*')) {
		b->sub = x->s[a] == '@' ? SUB_AT : SUB_STAR;
		return 0;
	}
	if (x->i - a > 1) { /* an indexed array's subscript is arithmetic: a[$i], a[i+1] */
		struct arith ar = {x, x->s + a, x->i - a - 1, 0, NULL, 0, 0};
		long long v = mcinit_sh_arith_expr(&ar, 0);

		mcinit_sh_arith_ws(&ar);
		if (ar.why == NULL && ar.i == ar.n && v >= LONG_MIN && v <= LONG_MAX) {
			b->sub = SUB_INDEX;
			b->idx = (long)v;
			return 0;
		}
	}
	return 1;
}

/* An arithmetic expression of a slice, [from, to) of the text. */
static int
slice_num(struct sx *x, size_t from, size_t to, long long *v)
{
	struct arith ar = {x, x->s + from, to - from, 0, NULL, 0, 0};

	*v = mcinit_sh_arith_expr(&ar, 0);
	mcinit_sh_arith_ws(&ar);
	return ar.why == NULL && ar.i == ar.n ? 0 : -1;
}

/* `:off}` or `:off:cnt}` after ${a[@] or ${@ (the cursor at the colon);
 * 0 read (the cursor at the brace), -1 not one mcinit evaluates. */
static int
read_slice(struct sx *x, struct bparam *b)
{
	size_t a = x->i + 1, e = a, colon = 0;

	if (mcinit_sh_peekc(x, 1) > 0 && strchr("-=+?", mcinit_sh_peekc(x, 1)))
		return -1; /* ${a[@]:-w} */
	while (e < x->len && x->s[e] != '}' && x->s[e] != '$' && x->s[e] != '\n') {
		if (x->s[e] == ':' && colon == 0)
			colon = e;
		e++;
	}
	if (e >= x->len || x->s[e] != '}' || slice_num(x, a, colon ? colon : e, &b->off) < 0 ||
	    (colon && slice_num(x, colon + 1, e, &b->cnt) < 0))
		return -1;
	b->slice = 1;
	b->has_cnt = colon != 0;
	while (x->i < e)
		mcinit_sh_adv(x);
	return 0;
}

/* Characters (UTF-8 code points) of an element, as ${#V} counts them. */
static long long
el_length(const struct pstr *p)
{
	long long n = 0;

	for (size_t k = 0; k < p->n; k++)
		n += !(p->v[k].fl & PF_MARK) && ((unsigned char)p->v[k].c & 0xC0) != 0x80;
	return n;
}

/* ${!a[@]}: the indices 0 ... n-1, one field each. */
static void
put_indices(struct sx *x, struct pstr *out, size_t n, const struct bparam *b)
{
	if (b->quoted)
		x->nat++;
	for (size_t k = 0; k < n; k++) {
		if (k > 0)
			mcinit_sh_put(out, (struct pch){b->quoted ? 0 : ' ',
			                                (unsigned short)(b->quoted ? PF_BREAK : 0),
			                                b->line, b->col, -1, -1});
		mcinit_sh_put_number(out, (long long)k, b->quoted, b->line, b->col);
	}
}

/* ${#}, ${#V}, ${#a[@]}, ${#@}, ${!a[@]}; the cursor is at the # or !. */
static int
lex_count(struct sx *x, struct pstr *out, struct bparam *b)
{
	int op = mcinit_sh_peekc(x, 0), vi = -1, c;
	const struct var *v;
	size_t a;

	mcinit_sh_adv(x);
	c = mcinit_sh_peekc(x, 0);
	a = x->i;
	if (c == '}' || c == '@' || c == '*') {
		vi = op == '#' ? x->at : -1; /* ${#}, ${#@}; ${!} is a process id */
		b->sub = SUB_AT;
		if (c != '}')
			mcinit_sh_adv(x);
	} else if (mcinit_sh_is_ident(c, 1)) {
		while (mcinit_sh_is_ident(mcinit_sh_peekc(x, 0), 0))
			mcinit_sh_adv(x);
		vi = mcinit_sh_var_find(x, x->s + a, x->i - a);
		if (read_subscript(x, b) != 0 ||
		    (op == '!' && b->sub != SUB_AT && b->sub != SUB_STAR))
			vi = -1; /* ${!V}: indirection */
	}
	v = vi >= 0 ? &x->vars[vi] : NULL;
	if (vi == x->at && v->runtime && mcinit_sh_peekc(x, 0) == '}') {
		mcinit_sh_adv(x);
		mcinit_sh_args_opaque(x, out, b->start, b->line, b->col, b->quoted);
		return 0;
	}
	if (v == NULL || !v->defined || mcinit_sh_peekc(x, 0) != '}' || v->cut) {
		if (mcinit_sh_skip_nested(x, '{', '}') < 0)
			return mcinit_sh_fail(x, b->line, b->col, "unterminated ${");
		mcinit_sh_opaque(
		    x, out, b->start, b->line, b->col, b->quoted,
		    v != NULL && !v->defined ? "variable not assigned in this script"
		    : v != NULL && v->cut
		        ? "a value mcinit cut at one of its bounds: its length is known only "
		          "at run time"
		        : "parameter expansion mcinit does not evaluate");
		return 0;
	}
	mcinit_sh_adv(x);
	if (out == NULL)
		return 0;
	if (op == '!') {
		put_indices(x, out, v->val.n, b);
	} else if (b->sub == SUB_AT || b->sub == SUB_STAR) {
		/* an element kept as written (`$(cmd)`, a variable from the
		 * environment) may be any number of words at run time */
		for (size_t k = 0; k < v->val.n; k++)
			if (mcinit_sh_ps_opaque(&v->val.v[k])) {
				mcinit_sh_opaque(
				    x, out, b->start, b->line, b->col, b->quoted,
				    "an element known only at run time: the count is too");
				return 0;
			}
		mcinit_sh_put_number(out, (long long)v->val.n, b->quoted, b->line, b->col);
	} else {
		size_t from, to;

		select_range(v, b->sub, b->idx, &from, &to);
		if (from < to &&
		    mcinit_sh_ps_opaque(&v->val.v[from])) { /* not the source's length */
			mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted,
			                 "a value known only at run time: its length is too");
			return 0;
		}
		mcinit_sh_put_number(out, from < to ? el_length(&v->val.v[from]) : 0, b->quoted,
		                     b->line, b->col);
	}
	return 0;
}

/* ${...}; the cursor is at the `{`. */
static int
lex_brace(struct sx *x, struct pstr *out, struct bparam *b)
{
	int c, unsupported = 0;
	size_t a;

	mcinit_sh_adv(x);
	c = mcinit_sh_peekc(x, 0);
	a = x->i;
	if (mcinit_sh_is_ident(c, 1)) {
		while (mcinit_sh_is_ident(mcinit_sh_peekc(x, 0), 0))
			mcinit_sh_adv(x);
		b->vi = mcinit_sh_var_find(x, x->s + a, x->i - a);
		b->known = b->vi >= 0 && x->vars[b->vi].defined;
		if (b->vi < 0 && out != NULL)
			b->vi = mcinit_sh_var_get(x, x->s + a, x->i - a);
	} else if (mcinit_sh_is_digit(c)) {
		long n = 0;

		while (mcinit_sh_is_digit(mcinit_sh_peekc(x, 0))) {
			n = n < 100000 ? n * 10 + mcinit_sh_peekc(x, 0) - '0' : n;
			mcinit_sh_adv(x);
		}
		if (n > 0) /* ${1}, ${10}: the positional parameters are known */
			b->vi = x->at, b->known = 1, b->sub = SUB_INDEX, b->idx = n - 1;
	} else if (c == '@' || c == '*') {
		mcinit_sh_adv(x);
		b->vi = x->at, b->known = 1, b->sub = c == '@' ? SUB_AT : SUB_STAR;
	} else if (c == '#' || c == '!') {
		return lex_count(x, out, b);
	} else if (c > 0 && strchr("?$-", c) && mcinit_sh_peekc(x, 1) >= 0) {
		mcinit_sh_adv(x);
	} else {
		unsupported = 1; /* ${} ... */
	}
	if (!unsupported && b->vi != x->at)
		unsupported = read_subscript(x, b);
	c = mcinit_sh_peekc(x, 0);
	if (!unsupported && c == '}') {
		return eval_bparam(x, out, b);
	} else if (!unsupported && c == ':' && (b->sub == SUB_AT || b->sub == SUB_STAR) &&
	           read_slice(x, b) == 0) {
		return eval_bparam(x, out, b);
	} else if (!unsupported && c == ':' && mcinit_sh_peekc(x, 1) > 0 &&
	           strchr("-=+?", mcinit_sh_peekc(x, 1))) {
		b->colon = 1;
		b->op = mcinit_sh_peekc(x, 1);
		mcinit_sh_adv(x);
		mcinit_sh_adv(x);
		return eval_bparam(x, out, b);
	} else if (!unsupported && c > 0 && strchr("-=+?", c)) {
		b->op = c;
		mcinit_sh_adv(x);
		return eval_bparam(x, out, b);
	}
	if (mcinit_sh_skip_nested(x, '{', '}') < 0)
		return mcinit_sh_fail(x, b->line, b->col, "unterminated ${");
	mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted,
	                 "parameter expansion mcinit does not evaluate");
	return 0;
}

/* The text [from, to) (from at line:col) with its `$` expansions done, as
 * bash does before it evaluates arithmetic; NULL where mcinit cannot. */
static char *
expand_text(struct sx *x, size_t from, size_t to, int line, int col)
{
	size_t i = x->i, len = x->len;
	int l = x->line, c = x->col, ok = 0;
	struct mcinit_err saved;
	struct pstr e = {0};
	char *t = NULL;

	if (x->err != NULL)
		saved = *x->err;
	x->i = from, x->len = to, x->line = line, x->col = col;
	while (x->i < x->len && ok == 0)
		if (mcinit_sh_peekc(x, 0) == '$')
			ok = mcinit_sh_lex_dollar(x, &e, 1);
		else
			mcinit_sh_putc_at(&e, mcinit_sh_peekc(x, 0), PF_QUOTED, x->line, x->col),
			    mcinit_sh_adv(x);
	x->i = i, x->len = len, x->line = l, x->col = c;
	if (x->err != NULL)
		*x->err = saved;
	if (ok == 0)
		t = mcinit_sh_ps_text(&e);
	mcinit_sh_ps_free(&e);
	return t;
}

/* $((e)) / $[e] just read (source [b->start, x->i), e at [from, to) and
 * line:col): its value as text at the expansion's place, or unexpandable
 * text with the reason. */
static int
arith_expand(struct sx *x, struct pstr *out, const struct bparam *b, size_t from, size_t to,
             int line, int col)
{
	char *t = out != NULL && !x->dead ? expand_text(x, from, to, line, col) : NULL;
	struct arith a = {x, t, t ? strlen(t) : 0, 0, NULL, 0, 0};
	long long v;
	char num[24];

	if (x->too_deep != NULL) {
		free(t);
		return mcinit_sh_fail(x, b->line, b->col, x->too_deep);
	}
	if (t == NULL) {
		mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted, "arithmetic");
		return 0;
	}
	v = mcinit_sh_arith_expr(&a, 0);
	mcinit_sh_arith_ws(&a);
	if (a.why == NULL && a.i < a.n)
		a.why = mcinit_sh_arith_peek(&a, ",") || mcinit_sh_arith_peek(&a, "=")
		            ? "assignment in arithmetic"
		            : "arithmetic syntax error";
	free(t);
	if (x->too_deep != NULL)
		return mcinit_sh_fail(x, b->line, b->col, x->too_deep);
	if (a.why != NULL) {
		mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted, a.why);
		return 0;
	}
	snprintf(num, sizeof num, "%lld", v);
	for (char *p = num; *p; p++)
		mcinit_sh_putc_at(out, *p, b->quoted ? PF_QUOTED : 0, b->line, b->col);
	return 0;
}

static const char deep_msg[] = "expansions nested too deeply (more than 64 levels)";

/* A `$` at the cursor, outside single quotes. */
int
mcinit_sh_lex_dollar(struct sx *x, struct pstr *out, int quoted)
{
	struct bparam b = {x->i, x->line, x->col, quoted, -1, 0, SUB_NONE, 0, 0, 0, 0, 0, 0, 0};
	int c = mcinit_sh_peekc(x, 1), ret;

	if (c == '{') {
		mcinit_sh_adv(x);
		if (++x->depth > MAX_DEPTH) {
			x->too_deep = deep_msg;
			return mcinit_sh_fail(x, b.line, b.col, deep_msg);
		}
		ret = lex_brace(x, out, &b);
		x->depth--;
		if (ret == 0 && x->too_deep != NULL) /* in a subscript, a slice */
			return mcinit_sh_fail(x, b.line, b.col, x->too_deep);
		return ret;
	}
	if (c == '(' || c == '[') {
		int arith = c == '[' || mcinit_sh_peekc(x, 2) == '(', l, cl;
		size_t from;

		mcinit_sh_adv(x);
		mcinit_sh_adv(x);
		from = x->i, l = x->line, cl = x->col;
		if (mcinit_sh_skip_nested(x, c, c == '(' ? ')' : ']') < 0)
			return mcinit_sh_fail(x, b.line, b.col,
			                      c == '(' ? "unterminated $(" : "unterminated $[");
		if (arith) {
			/* $(( $(( ... )) )): each level is a recursion of
			 * expand_text, bounded as ${ is */
			if (++x->depth > MAX_DEPTH) {
				x->too_deep = deep_msg;
				return mcinit_sh_fail(x, b.line, b.col, deep_msg);
			}
			ret = arith_expand(x, out, &b, from + (c == '('), x->i - (c == '[' ? 1 : 2),
			                   l, cl + (c == '('));
			x->depth--;
			return ret;
		}
		mcinit_sh_subst_expand(x, out, &b, from, x->i - 1, l, cl);
		return 0;
	}
	if (!quoted && c == '\'') {
		mcinit_sh_adv(x);
		return lex_ansi(x, out, b.line, b.col);
	}
	if (!quoted && c == '"') {
		mcinit_sh_adv(x);
		return lex_dq(x, out); /* $"..." (locale translation) reads as "..." */
	}
	mcinit_sh_adv(x);
	if (mcinit_sh_is_ident(c, 1)) {
		size_t a = x->i;

		while (mcinit_sh_is_ident(mcinit_sh_peekc(x, 0), 0))
			mcinit_sh_adv(x);
		b.vi = mcinit_sh_var_find(x, x->s + a, x->i - a);
		if (b.vi >= 0 && x->vars[b.vi].defined)
			expand_var(x, out, b.vi, SUB_NONE, 0, quoted, b.line, b.col);
		else
			mcinit_sh_opaque(x, out, b.start, b.line, b.col, quoted,
			                 mcinit_sh_var_maybe(x, b.vi)
			                     ? x->unread
			                     : "variable not assigned in this script");
		return 0;
	}
	if (c > 0 && (mcinit_sh_is_digit(c) || strchr("@*#?$!-", c))) {
		mcinit_sh_adv(x);
		if (((c >= '1' && c <= '9') || c == '@' || c == '*' || c == '#') &&
		    mcinit_sh_args_runtime(x)) {
			mcinit_sh_args_opaque(x, out, b.start, b.line, b.col, quoted);
		} else if (c >= '1' && c <= '9') {
			missing_arg(x, out, c - '0', b.line, b.col);
			expand_var(x, out, x->at, SUB_INDEX, c - '1', quoted, b.line, b.col);
		} else if (c == '@' || c == '*')
			expand_var(x, out, x->at, c == '@' ? SUB_AT : SUB_STAR, 0, quoted, b.line,
			           b.col);
		else if (c == '#' && out != NULL && has_opaque(&x->vars[x->at]))
			mcinit_sh_opaque(x, out, b.start, b.line, b.col, quoted,
			                 "an argument known only at run time: the count is too");
		else if (c == '#' && out != NULL)
			mcinit_sh_put_number(out, (long long)x->vars[x->at].val.n, quoted, b.line,
			                     b.col);
		else if (c == '0' && x->name0 != NULL) /* dirname "$0" */
			for (const char *p = x->name0; *p; p++)
				mcinit_sh_putc_at(out, *p, quoted ? PF_QUOTED : 0, b.line, b.col);
		else if (c != '#')
			mcinit_sh_opaque(x, out, b.start, b.line, b.col, quoted,
			                 c == '0' ? "the script's name" : "special parameter");
		return 0;
	}
	mcinit_sh_putc_at(out, '$', quoted ? PF_QUOTED : 0, b.line, b.col);
	return 0;
}

/* `...` at the cursor: a command substitution (one whose text holds a
 * backslash, which bash reads twice, is left opaque). */
static int
lex_backquote(struct sx *x, struct pstr *out, int quoted)
{
	struct bparam b = {x->i, x->line, x->col, quoted, -1, 0, SUB_NONE, 0, 0, 0, 0, 0, 0, 0};
	size_t from;
	int l, cl;

	mcinit_sh_adv(x);
	from = x->i, l = x->line, cl = x->col;
	if (mcinit_sh_skip_nested(x, -1, '`') < 0)
		return mcinit_sh_fail(x, b.line, b.col, "unterminated backquote");
	if (memchr(x->s + from, '\\', x->i - 1 - from) != NULL)
		mcinit_sh_opaque(x, out, b.start, b.line, b.col, quoted, "command substitution");
	else
		mcinit_sh_subst_expand(x, out, &b, from, x->i - 1, l, cl);
	return 0;
}

/*
 * Lexes one word into out (NULL: skip it without side effects).  term is 0
 * for a shell word (ends at a blank or metacharacter) or '}' for the word of
 * ${v:-word}, which then inherits the double quotes around it when inq.
 */
int
mcinit_sh_lex_word(struct sx *x, struct pstr *out, int term, int inq)
{
	unsigned qf = inq ? PF_QUOTED : 0;

	for (;;) {
		int c, line, col;

		mcinit_sh_skip_cont(x);
		if (mcinit_sh_kept_at(x)) {
			lex_kept(x, out, qf);
			continue;
		}
		c = mcinit_sh_peekc(x, 0);
		if (c < 0 || (term ? c == term : mcinit_sh_is_sep(c)))
			return 0;
		line = x->line;
		col = x->col;
		if (c == '\\') {
			mcinit_sh_adv(x);
			c = mcinit_sh_peekc(x, 0);
			if (c < 0 || (inq && !strchr("$`\"\\}", c))) {
				mcinit_sh_putc_at(out, '\\', qf, line, col);
				continue;
			}
			mcinit_sh_putc_at(out, c, PF_QUOTED, line, col);
			mcinit_sh_adv(x);
		} else if (c == '\'' && !inq) {
			if (lex_sq(x, out) < 0)
				return -1;
		} else if (c == '"') {
			if (lex_dq(x, out) < 0)
				return -1;
		} else if (c == '$') {
			if (mcinit_sh_lex_dollar(x, out, inq) < 0)
				return -1;
		} else if (c == '`') {
			if (lex_backquote(x, out, inq) < 0)
				return -1;
		} else {
			mcinit_sh_putc_at(out, c, qf, line, col);
			mcinit_sh_adv(x);
		}
	}
}
