/* shell-words.c — fields (bash's word splitting), redirections and here-documents. */
#include "shell/shell-impl.h"

/* ---- fields ---- */

int
mcinit_sh_is_ifs(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct splitter {
	struct pstr cur;
	int exists, have_mark;
	struct pch mark;
	int resplit; /* the next field continues a split quoted string */
};

/* A field split at a blank that was quoted where its variable was assigned:
 * bash splits it all the same (quotes in a value are not re-read). */
static void
mark_resplit(struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		p->v[k].fl |= PF_RESPLIT;
}

static void
emit_field(struct splitter *sp, struct plist *dst, int force)
{
	if (sp->cur.n == 0 && !sp->exists && !force)
		return;
	if (sp->cur.n == 0 && sp->have_mark) {
		sp->mark.fl = PF_EMPTYQ;
		mcinit_sh_put(&sp->cur, sp->mark);
	}
	mcinit_sh_pl_push(dst, &sp->cur);
	sp->exists = sp->have_mark = 0;
}

/* Splits a lexed word into fields as bash does after expansion; every field
 * is appended to dst, unquoted, an empty one holding one EMPTYQ marker. */
void
mcinit_sh_split_word(const struct pstr *w, struct plist *dst)
{
	struct splitter sp = {{0}, 0, 0, {0}, 0};

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
		} else if (!(ch.fl & (PF_QUOTED | PF_OPAQUE)) &&
		           mcinit_sh_is_ifs((unsigned char)ch.c)) {
			if (ch.fl & PF_SRCQ)
				mark_resplit(&sp.cur);
			sp.resplit = (ch.fl & PF_SRCQ) != 0;
			emit_field(&sp, dst, 0);
		} else {
			sp.exists |= (ch.fl & PF_QUOTED) != 0;
			/* quoted here: remembered, for when it is stored in a variable */
			ch.fl = (unsigned short)((ch.fl & (PF_OPAQUE | PF_UNREAD | PF_ARGS |
			                                   PF_ASSUMED | PF_SRCQ | PF_RESPLIT)) |
			                         ((ch.fl & PF_QUOTED) ? PF_SRCQ : 0) |
			                         (sp.resplit ? PF_RESPLIT : 0));
			mcinit_sh_put(&sp.cur, ch);
		}
	}
	emit_field(&sp, dst, 0);
	mcinit_sh_ps_free(&sp.cur);
}

/* ---- redirections and here-documents ---- */

static void
read_delim(struct sx *x)
{
	struct mcx_buf b = {0};
	int line = x->line, col = x->col, c;

	while (!mcinit_sh_is_sep(c = mcinit_sh_peekc(x, 0))) {
		if (c == '\'' || c == '"') {
			mcinit_sh_adv(x);
			while (mcinit_sh_peekc(x, 0) >= 0 && mcinit_sh_peekc(x, 0) != c) {
				if (c == '"' && mcinit_sh_peekc(x, 0) == '\\' &&
				    mcinit_sh_peekc(x, 1) >= 0)
					mcinit_sh_adv(x);
				mcx_buf_addc(&b, (char)mcinit_sh_peekc(x, 0));
				mcinit_sh_adv(x);
			}
			if (mcinit_sh_peekc(x, 0) == c)
				mcinit_sh_adv(x);
			continue;
		}
		if (c == '\\') {
			mcinit_sh_adv(x);
			if (mcinit_sh_peekc(x, 0) < 0)
				break;
			c = mcinit_sh_peekc(x, 0);
		}
		mcx_buf_addc(&b, (char)c);
		mcinit_sh_adv(x);
	}
	if (b.len == 0) {
		mcx_buf_free(&b);
		return;
	}
	MCINIT_GROW(x->hd, x->caphd, x->nhd + 1);
	x->hd[x->nhd++] = (struct hdoc){mcx_xstrdup(mcx_buf_cstr(&b)), 0, line, col};
	mcx_buf_free(&b);
}

/* Skips the bodies of here-documents opened on the line just ended. */
void
mcinit_sh_read_heredocs(struct sx *x)
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
				mcinit_sh_adv(x);
			if (x->i < x->len)
				mcinit_sh_adv(x);
		}
		if (!found)
			mcinit_sh_script_note(x, x->hd[h].line, x->hd[h].col,
			                      "here-document delimited by `%s` is not terminated",
			                      d);
		free(x->hd[h].delim);
	}
	x->nhd = 0;
}

/* A redirection at the cursor: 1 skipped (with its target), 0 none, -1. */
int
mcinit_sh_try_redirect(struct sx *x)
{
	size_t j = x->i, oplen;
	int line = x->line, col = x->col, heredoc = 0;
	const char *s = x->s;

	while (j < x->len && mcinit_sh_is_digit((unsigned char)s[j]))
		j++;
	if (j == x->i && j + 1 < x->len && s[j] == '&' && s[j + 1] == '>') {
		oplen = j + 2 < x->len && s[j + 2] == '>' ? 3 : 2;
	} else if (j < x->len && (s[j] == '<' || s[j] == '>')) {
		char n1 = j + 1 < x->len ? s[j + 1] : 0, n2 = j + 2 < x->len ? s[j + 2] : 0;

		if (j == x->i && n1 == '(') { /* process substitution: dropped */
			mcinit_sh_adv(x);
			mcinit_sh_adv(x);
			if (mcinit_sh_skip_nested(x, '(', ')') < 0)
				return mcinit_sh_fail(x, line, col,
				                      "unterminated process substitution");
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
		mcinit_sh_adv(x);
	mcinit_sh_skip_blanks(x);
	if (heredoc) {
		size_t nhd = x->nhd;

		read_delim(x);
		if (x->nhd > nhd)
			x->hd[nhd].strip = oplen == 3;
		return 1;
	}
	if ((mcinit_sh_peekc(x, 0) == '<' || mcinit_sh_peekc(x, 0) == '>') &&
	    mcinit_sh_peekc(x, 1) == '(')
		return mcinit_sh_try_redirect(x);
	return mcinit_sh_is_sep(mcinit_sh_peekc(x, 0)) ? 1
	       : mcinit_sh_lex_word(x, NULL, 0, 0) < 0 ? -1
	                                               : 1;
}
