/* shell-region.c — regions of text read again (function bodies, loop bodies,
 * command substitutions) and what echo and printf print in a substitution. */
#include "shell/shell-impl.h"

/* ---- regions: function bodies, loop bodies, command substitutions ---- */

void
mcinit_sh_frame_push(struct sx *x, int all)
{
	MCINIT_GROW(x->frames, x->capframes, x->nframes + 1);
	x->frames[x->nframes++] = (struct frame){NULL, 0, 0, all};
}

void
mcinit_sh_frame_pop(struct sx *x)
{
	struct frame *f = &x->frames[--x->nframes];

	mcinit_sh_restore(x, f->sv, f->n);
	free(f->sv);
}

/* Whether the bound on commands is reached (noted once, at line:col: a
 * loop stopped by it without a later region to read was not noted). */
int
mcinit_sh_out_of_steps(struct sx *x, int line, int col)
{
	if (x->steps < x->max_steps)
		return 0;
	if (!x->stopped++)
		mcinit_sh_script_bound(
		    x, line, col,
		    "stopped following function calls and loops after %zu commands "
		    "(one that never ends?); later words may be missing",
		    x->max_steps);
	return 1;
}

/* Commands [start, end) of the text (start at line:col), read as if they
 * stood here: a function's body, a loop's body, a substitution.  They get
 * an if stack of their own (a call inside a `case` clause is not one of its
 * patterns).  -1 with x->err on text that cannot be a script. */
int
mcinit_sh_run_region(struct sx *x, size_t start, size_t end, int line, int col)
{
	size_t i = x->i, len = x->len, nhd = x->nhd;
	int l = x->line, c = x->col, op = x->last_op, prev = x->prev_op, ret = 0;
	struct ifr *ifs = x->ifs;
	size_t nifs = x->nifs, capifs = x->capifs;
	struct block blk = x->blk;

	if (x->exhausted)
		return 0; /* expansions yield nothing more: neither would this */
	if (mcinit_sh_out_of_steps(x, line, col))
		return 0;
	x->ifs = NULL, x->nifs = x->capifs = 0;
	x->blk = (struct block){0, 0, -1};
	x->i = start, x->len = end, x->line = line, x->col = col;
	x->last_op = x->prev_op = 0;
	mcinit_sh_set_dead(x);
	while (ret == 0 && x->i < x->len && x->brk == 0 && x->steps < x->max_steps)
		ret = mcinit_sh_parse_command(x);
	while (x->nhd > nhd)
		free(x->hd[--x->nhd].delim);
	while (x->nifs > 0)
		free(x->ifs[--x->nifs].subject);
	free(x->ifs);
	x->ifs = ifs, x->nifs = nifs, x->capifs = capifs;
	x->blk = blk;
	x->i = i, x->len = len, x->line = l, x->col = c;
	x->last_op = op, x->prev_op = prev;
	mcinit_sh_set_dead(x);
	return ret;
}

/* Reads on without effects to the keyword that closes the block just
 * opened (`}` for kind '{', `done` for 'd'): its offset, the cursor then
 * past its command; the end of the text when it is missing; -1 on error. */
long
mcinit_sh_skip_block(struct sx *x, int kind)
{
	struct block outer = x->blk;
	long at;
	int rc = 0;

	x->blk = (struct block){kind, 1, -1};
	x->skipping++;
	mcinit_sh_set_dead(x);
	while (rc == 0 && x->blk.close_at < 0 && x->i < x->len)
		rc = mcinit_sh_parse_command(x);
	at = x->blk.close_at < 0 ? (long)x->len : x->blk.close_at;
	x->blk = outer;
	x->skipping--;
	mcinit_sh_set_dead(x);
	return rc < 0 ? -1 : at;
}

/* mcinit_sh_on_keyword's part: the nesting of the block mcinit_sh_skip_block looks for. */
void
mcinit_sh_block_keyword(struct sx *x, const char *t)
{
	struct block *b = &x->blk;
	const char *open = b->kind == '{' ? "{" : "do", *close = b->kind == '{' ? "}" : "done";

	if (b->kind == 0 || b->close_at >= 0)
		return;
	if (b->kind == 'w' && strcmp(t, "do") == 0) /* a while loop's test ends */
		b->close_at = (long)x->kw_at;
	else if (strcmp(t, open) == 0)
		b->depth++;
	else if (strcmp(t, close) == 0 && --b->depth == 0)
		b->close_at = (long)x->kw_at;
}

const struct fn *
mcinit_sh_fn_find(const struct sx *x, const char *name)
{
	for (size_t k = x->nfns; k-- > x->fn_floor;) /* the latest definition */
		if (strcmp(x->fns[k].name, name) == 0)
			return &x->fns[k];
	return NULL;
}

/* Blanks, newlines and comments before a function's body or `do`. */
void
mcinit_sh_skip_newlines(struct sx *x)
{
	for (;;) {
		mcinit_sh_skip_blanks(x);
		if (mcinit_sh_peekc(x, 0) == '#')
			mcinit_sh_skip_comment(x);
		else if (mcinit_sh_peekc(x, 0) == '\n')
			mcinit_sh_adv(x);
		else
			return;
	}
}

/* A name bash accepts for a function, written literally. */
static int
fn_name_ok(const struct pstr *w)
{
	if (w->n == 0)
		return 0;
	for (size_t k = 0; k < w->n; k++)
		if (w->v[k].fl != 0 || strchr("$`'\"=", w->v[k].c) != NULL)
			return 0;
	return 1;
}

/* `()` (blanks allowed inside) at the cursor: `if ((x))` is not one. */
static int
empty_parens(const struct sx *x)
{
	size_t k = 1;

	if (mcinit_sh_peekc(x, 0) != '(')
		return 0;
	while (mcinit_sh_peekc(x, k) == ' ' || mcinit_sh_peekc(x, k) == '\t')
		k++;
	return mcinit_sh_peekc(x, k) == ')';
}

/* `name () {` or `function name [()] {`, read as far as w (the first
 * word): 1 a definition, read to its closing brace and remembered; 0 not
 * one; -1 on error. */
int
mcinit_sh_try_function(struct sx *x, const struct pstr *w)
{
	struct pstr nm = {0};
	int kw = mcinit_sh_word_is(w, " function "), line, col;
	long end;

	if (kw && (mcinit_sh_skip_blanks(x), mcinit_sh_lex_word(x, &nm, 0, 0) < 0)) {
		mcinit_sh_ps_free(&nm);
		return -1;
	}
	if (!kw)
		mcinit_sh_ps_copy(&nm, w);
	mcinit_sh_skip_blanks(x);
	if (!fn_name_ok(&nm) || mcinit_sh_word_is(&nm, mcinit_sh_skip_kw) ||
	    (!kw && !empty_parens(x))) {
		mcinit_sh_ps_free(&nm);
		return kw ? 1 : 0; /* `function` and junk: read on as before */
	}
	if (empty_parens(x)) {
		while (mcinit_sh_peekc(x, 0) != ')')
			mcinit_sh_adv(x);
		mcinit_sh_adv(x);
	}
	mcinit_sh_skip_newlines(x);
	if (mcinit_sh_peekc(x, 0) != '{' || !mcinit_sh_is_sep(mcinit_sh_peekc(x, 1)) ||
	    mcinit_sh_peekc(x, 1) == '(') {
		mcinit_sh_ps_free(
		    &nm); /* a body in ( ), or no body: its commands are read in place */
		return 1;
	}
	mcinit_sh_adv(x);
	line = x->line, col = x->col;
	MCINIT_GROW(x->fns, x->capfns, x->nfns + 1);
	x->fns[x->nfns] = (struct fn){mcinit_sh_ps_text(&nm), x->i, 0, line, col, x->s, x->map};
	mcinit_sh_ps_free(&nm);
	end = mcinit_sh_skip_block(x, '{');
	if (end < 0) {
		free(x->fns[x->nfns].name);
		return -1;
	}
	x->fns[x->nfns++].end = (size_t)end;
	return 1;
}

/* Sets the positional parameters to w[from...] (copies). */
void
mcinit_sh_set_positional(struct sx *x, const struct plist *w, size_t from)
{
	struct var *v;

	mcinit_sh_touch_var(x, x->at);
	v = &x->vars[x->at];
	mcinit_sh_pl_free(&v->val);
	v->runtime = 0;
	for (size_t k = from; k < w->n && mcinit_sh_charge(x, w->v[k].n + EL_COST); k++) {
		struct pstr p = {0};

		mcinit_sh_ps_copy(&p, &w->v[k]);
		mcinit_sh_pl_push(&v->val, &p);
	}
}

/* `f a b`: f's body with a b as its positional parameters, its `local`
 * variables restored at its end. */
void
mcinit_sh_call_function(struct sx *x, const struct fn *f, const struct plist *w)
{
	struct fn fn = *f; /* x->fns may move while the body defines more */
	const char *s = x->s;
	const struct lc *map = x->map;

	if (x->calls >= MAX_CALLS) {
		if (!x->deep++)
			mcinit_sh_script_bound(
			    x, w->v[0].n ? w->v[0].v[0].line : 0, w->v[0].n ? w->v[0].v[0].col : 0,
			    "function calls nested more than %d deep: `%s` not followed "
			    "further (here, and wherever else it happens)",
			    MAX_CALLS, fn.name);
		x->status = -1;
		return;
	}
	mcinit_sh_frame_push(x, 0);
	mcinit_sh_frame_save(x, &x->frames[x->nframes - 1], x->at, &x->vars[x->at]);
	mcinit_sh_set_positional(x, w, 1);
	x->calls++;
	x->status = 0;
	x->s = fn.s, x->map = fn.map; /* defined in a sourced file, or by eval */
	if (mcinit_sh_run_region(x, fn.start, fn.end, fn.line, fn.col) < 0)
		x->status = -1; /* already read once without error: not reached */
	x->s = s, x->map = map;
	x->calls--;
	mcinit_sh_frame_pop(x);
}

/* `shift [N]`. */
void
mcinit_sh_do_shift(struct sx *x, const struct plist *w)
{
	struct var *v = &x->vars[x->at];
	long long n = 1;
	char *t = w->n > 1 ? mcinit_sh_ps_text(&w->v[1]) : NULL;

	if (v->runtime ||
	    (t != NULL && (!mcinit_sh_int_word(t, &n) || mcinit_sh_ps_opaque(&w->v[1]) || n < 0))) {
		/* the script's arguments known only at run time stay so */
		free(t);
		x->status = -1;
		return;
	}
	free(t);
	x->status = (size_t)n > v->val.n;
	if (x->status || n == 0)
		return;
	mcinit_sh_touch_var(x, x->at);
	v = &x->vars[x->at];
	for (size_t k = 0; k < (size_t)n; k++)
		mcinit_sh_ps_free(&v->val.v[k]);
	memmove(v->val.v, v->val.v + n, (v->val.n - (size_t)n) * sizeof *v->val.v);
	v->val.n -= (size_t)n;
}

/* ---- command substitutions: what echo and printf print ---- */

void __attribute__((format(printf, 2, 3))) mcinit_sh_taint(struct sx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->cap == NULL || x->cap->why != NULL)
		return;
	va_start(ap, fmt);
	x->cap->why = mcx_xvasprintf(fmt, ap);
	va_end(ap);
}

static void
cap_put(struct sx *x, struct pch ch)
{
	if (!mcinit_sh_charge(x, 1))
		return;
	ch.fl &= PF_OPAQUE | PF_UNREAD | PF_ARGS | PF_ASSUMED;
	mcinit_sh_put(&x->cap->out, ch);
}

/* A word's characters, as printed. */
static void
cap_word(struct sx *x, const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK))
			cap_put(x, p->v[k]);
}

struct pch
mcinit_sh_pch_at(const struct pstr *p, char c)
{
	struct pch ch = {c, 0, 0, 0, -1, -1};

	if (p->n > 0)
		ch.line = p->v[0].line, ch.col = p->v[0].col, ch.var = p->v[0].var;
	return ch;
}

/* Whether a word holds a backslash (echo -e would read it). */
static int
has_backslash(const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].c == '\\' && !(p->v[k].fl & PF_MARK))
			return 1;
	return 0;
}

/* echo [-neE] WORD...: the words, blank-separated, and a newline. */
void
mcinit_sh_cap_echo(struct sx *x, const struct plist *w)
{
	size_t k = 1;
	int nl = 1, esc = 0;

	for (; k < w->n; k++) {
		char *t = mcinit_sh_ps_text(&w->v[k]);
		int opt = t[0] == '-' && t[1] != '\0' && strspn(t + 1, "neE") == strlen(t + 1);

		if (opt) {
			nl &= strchr(t, 'n') == NULL;
			esc = strchr(t, 'e') != NULL || (esc && strchr(t, 'E') == NULL);
		}
		free(t);
		if (!opt)
			break;
	}
	for (size_t j = k; j < w->n; j++) {
		if (esc && has_backslash(&w->v[j]))
			mcinit_sh_taint(x, "`echo -e` with a backslash escape");
		if (j > k)
			cap_put(x, mcinit_sh_pch_at(&w->v[j], ' '));
		cap_word(x, &w->v[j]);
	}
	if (nl)
		cap_put(x, mcinit_sh_pch_at(&w->v[w->n - 1], '\n'));
}

/* dirname PATH...: each PATH without its last component, as coreutils
 * prints it ("." when there is none, "/" for the root), a line each. */
void
mcinit_sh_cap_dirname(struct sx *x, const struct plist *w)
{
	if (w->n < 2)
		mcinit_sh_taint(x, "`dirname` without an operand");
	for (size_t k = 1; k < w->n; k++) {
		const struct pstr *p = &w->v[k];
		char *t = mcinit_sh_ps_text(p);
		size_t n = strlen(t), i = 0;

		if (t[0] == '-' || mcinit_sh_ps_opaque(p))
			mcinit_sh_taint(x, "it runs `dirname` on a value known only at run time");
		while (n > 1 && t[n - 1] == '/')
			n--;
		while (n > 0 && t[n - 1] != '/')
			n--;
		while (n > 1 && t[n - 1] == '/')
			n--;
		if (n == 0)
			cap_put(x, mcinit_sh_pch_at(p, '.'));
		for (size_t j = 0; j < p->n && i < n; j++)
			if (!(p->v[j].fl & PF_MARK))
				cap_put(x, p->v[j]), i++;
		cap_put(x, mcinit_sh_pch_at(p, '\n'));
		free(t);
	}
}

/* One conversion of printf's format (fmt[*k] is the `%`): the argument it
 * takes (*arg moves on), or -1 for one mcinit leaves to bash. */
static int
printf_conv(struct sx *x, const struct pstr *fmt, size_t *k, const struct plist *w, size_t *arg)
{
	char c = *k + 1 < fmt->n ? fmt->v[*k + 1].c : 0;
	const struct pstr *a = *arg < w->n ? &w->v[*arg] : NULL;
	long long v;
	char *t;

	(*k)++;
	if (c == '%') {
		cap_put(x, fmt->v[*k]);
		return 0;
	}
	if (c != 's' && c != 'd' && c != 'i')
		return -1;
	(*arg)++;
	if (a == NULL)
		return c == 's' ? 0 : (cap_put(x, mcinit_sh_pch_at(fmt, '0')), 0);
	t = mcinit_sh_ps_text(a);
	if (c != 's' && (!mcinit_sh_int_word(t, &v) || mcinit_sh_ps_opaque(a))) {
		free(t);
		return -1;
	}
	free(t);
	cap_word(x, a);
	return 0;
}

/* printf FORMAT ARG...: %s, %d, %i, %%, \n, \t and \\; the format is
 * reused while arguments remain, as bash does. */
void
mcinit_sh_cap_printf(struct sx *x, const struct plist *w)
{
	static const char esc_from[] = "nt\\", esc_to[] = "\n\t\\";
	size_t f = 1 + (w->n > 2 && mcinit_sh_ps_nchars(&w->v[1]) == 2 && w->v[1].v[0].c == '-' &&
	                w->v[1].v[1].c == '-'), /* printf -- FORMAT */
	    arg = f + 1, first;
	const struct pstr *fmt = f < w->n ? &w->v[f] : NULL;

	if (fmt == NULL || mcinit_sh_ps_opaque(fmt) ||
	    (f == 1 && fmt->n > 0 && fmt->v[0].c == '-')) {
		mcinit_sh_taint(x, "`printf` with a format mcinit does not read");
		return;
	}
	do {
		first = arg;
		for (size_t k = 0; k < fmt->n && x->cap->why == NULL; k++) {
			struct pch ch = fmt->v[k];
			const char *e;

			if (ch.fl & PF_MARK)
				continue;
			if (ch.c == '%' && printf_conv(x, fmt, &k, w, &arg) < 0)
				mcinit_sh_taint(
				    x, "`printf` with a conversion mcinit does not evaluate");
			else if (ch.c == '\\' && k + 1 < fmt->n &&
			         (e = strchr(esc_from, fmt->v[k + 1].c)) != NULL && *e != '\0')
				ch.c = esc_to[e - esc_from], k++, cap_put(x, ch);
			else if (ch.c == '\\')
				mcinit_sh_taint(x,
				                "`printf` with an escape mcinit does not evaluate");
			else if (ch.c != '%')
				cap_put(x, ch);
		}
	} while (arg < w->n && arg > first && x->cap->why == NULL);
}

/* The substitution's output into the word: trailing newlines dropped,
 * split later unless quoted. */
static void
put_output(struct pstr *out, const struct pstr *o, const struct bparam *b)
{
	size_t n = o->n;

	while (n > 0 && o->v[n - 1].c == '\n' && !(o->v[n - 1].fl & PF_OPAQUE))
		n--;
	for (size_t k = 0; k < n; k++) {
		struct pch ch = o->v[k];

		ch.fl = (unsigned short)((ch.fl & (PF_OPAQUE | PF_UNREAD | PF_ARGS | PF_ASSUMED)) |
		                         (b->quoted ? PF_QUOTED : 0));
		mcinit_sh_put(out, ch);
	}
	if (b->quoted && n == 0)
		mcinit_sh_putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
}

/* $(...) or `...` just read (b->start is its `$` or backquote), its
 * commands at [from, to) starting at line:col: their output when mcinit
 * can tell it without running a program (echo, printf, tests, the
 * script's functions), else the text as written, opaque, with why. */
void
mcinit_sh_subst_expand(struct sx *x, struct pstr *out, const struct bparam *b, size_t from,
                       size_t to, int line, int col)
{
	struct capture c = {{0}, NULL}, *outer = x->cap;
	struct mcinit_err saved;
	size_t nfns = x->nfns;
	int allexport = x->allexport, status = x->status, loops = x->loops;

	if (out == NULL || x->dead) {
		mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted,
		                 "command substitution");
		return;
	}
	if (x->calls >= MAX_CALLS)
		c.why = mcx_xstrdup("substitutions and calls nested too deeply");
	if (x->err != NULL)
		saved = *x->err;
	mcinit_sh_frame_push(x, 1); /* a subshell: its assignments do not last */
	x->cap = &c;
	x->loops = 0; /* `break` inside does not end a loop outside */
	x->calls++;
	if (c.why == NULL && mcinit_sh_run_region(x, from, to, line, col) < 0)
		mcinit_sh_taint(x, "%s", x->err != NULL ? x->err->msg : "text mcinit cannot read");
	if (x->err != NULL)
		*x->err = saved;
	x->calls--;
	x->cap = outer;
	x->loops = loops;
	x->brk = 0;
	mcinit_sh_frame_pop(x);
	while (x->nfns > nfns)
		free(x->fns[--x->nfns].name);
	x->allexport = allexport;
	x->status = status;
	if (c.why != NULL) {
		char *why = mcx_xasprintf("command substitution: %s, so flags from it were not "
		                          "checked",
		                          c.why);

		mcinit_sh_opaque(x, out, b->start, b->line, b->col, b->quoted, why);
		free(why);
	} else {
		put_output(out, &c.out, b);
	}
	free(c.why);
	mcinit_sh_ps_free(&c.out);
}
