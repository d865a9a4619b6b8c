/* shell-util.c — the scanner's small helpers (notes, bounds, characters) and its
 * strings of positioned characters (pstr) and lists of them (plist). */
#include "shell/shell-impl.h"

/* ---- small helpers ---- */

void
mcinit_sh_note_add(struct mcinit_shnote **v, size_t *n, size_t *cap, int line, int col, char *msg)
{
	MCINIT_GROW(*v, *cap, *n + 1);
	(*v)[*n].msg = msg;
	(*v)[*n].line = line;
	(*v)[*n].col = col;
	(*v)[*n].file = (*v)[*n].warn = (*v)[*n].bound = 0;
	(*n)++;
}

void __attribute__((format(printf, 4, 5)))
mcinit_sh_script_note(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcinit_sh_note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, mcx_xvasprintf(fmt, ap));
	va_end(ap);
}

/* mcinit_sh_script_note for a bound of the reader that stopped it (see
 * mcinit_shnote.bound). */
void __attribute__((format(printf, 4, 5)))
mcinit_sh_script_bound(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcinit_sh_note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, mcx_xvasprintf(fmt, ap));
	va_end(ap);
	x->notes[x->nnotes - 1].bound = 1;
}

/* A note that says something was not checked (a warning), once per place. */
void __attribute__((format(printf, 4, 5)))
mcinit_sh_script_warn(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = mcx_xvasprintf(fmt, ap);
	va_end(ap);
	for (size_t k = 0; k < x->nnotes; k++)
		if (x->notes[k].line == line && x->notes[k].col == col &&
		    strcmp(x->notes[k].msg, msg) == 0) {
			free(msg); /* a loop, a function called twice */
			return;
		}
	mcinit_sh_note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, msg);
	x->notes[x->nnotes - 1].warn = 1;
}

int __attribute__((format(printf, 4, 5)))
mcinit_sh_add_event(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcinit_sh_note_add(&x->ev, &x->nev, &x->capev, line, col, mcx_xvasprintf(fmt, ap));
	va_end(ap);
	return (int)x->nev - 1;
}

int
mcinit_sh_fail(struct sx *x, int line, int col, const char *what)
{
	return mcinit_err_at(x->err, MCINIT_E_PARSE, NULL, line, col, "%s", what);
}

/* Source text [a, b) for a note, shortened. */
char *
mcinit_sh_snip(struct sx *x, size_t a, size_t b)
{
	size_t n = b - a;

	if (n > SNIP_MAX)
		return mcx_xasprintf("%.*s...", SNIP_MAX, x->s + a);
	return mcx_xasprintf("%.*s", (int)n, x->s + a);
}

void
mcinit_sh_adv(struct sx *x)
{
	unsigned char c = (unsigned char)x->s[x->i++];

	if (x->map != NULL) { /* a string read as commands: where it was written */
		x->line = x->map[x->i].line;
		x->col = x->map[x->i].col;
	} else if (c == '\n') {
		x->line++;
		x->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		x->col++;
	}
}

static int
at_cont(const struct sx *x)
{
	return mcinit_sh_peekc(x, 0) == '\\' &&
	       (mcinit_sh_peekc(x, 1) == '\n' ||
	        (mcinit_sh_peekc(x, 1) == '\r' && mcinit_sh_peekc(x, 2) == '\n'));
}

void
mcinit_sh_skip_cont(struct sx *x)
{
	while (at_cont(x)) {
		mcinit_sh_adv(x);
		if (mcinit_sh_peekc(x, 0) == '\r')
			mcinit_sh_adv(x);
		mcinit_sh_adv(x);
	}
}

void
mcinit_sh_skip_blanks(struct sx *x)
{
	for (;;) {
		mcinit_sh_skip_cont(x);
		if (!mcinit_sh_is_blank(mcinit_sh_peekc(x, 0)))
			return;
		mcinit_sh_adv(x);
	}
}

void
mcinit_sh_skip_comment(struct sx *x)
{
	while (mcinit_sh_peekc(x, 0) >= 0 && mcinit_sh_peekc(x, 0) != '\n')
		mcinit_sh_adv(x);
}

/* ---- pstr / plist ---- */

/* A command, an array or a for loop's list of more words than mcinit takes
 * from a launch script (MCINIT_MAX_SCRIPT_WORDS) is refused as it is read:
 * each word costs some 200 bytes, so 16 MiB of short words took 1.5 GB
 * before the count was checked on the launch found.  -1 with x->err (and
 * x->too_deep, for a caller that drops errors). */
#define WORDS_MSG(what)                                                                            \
	what " of more than 65536 words, more than mcinit reads from a launch script: not read"
const char mcinit_sh_words_cmd_msg[] = WORDS_MSG("a command"),
           mcinit_sh_words_list_msg[] = WORDS_MSG("a list");

int
mcinit_sh_too_many_words(struct sx *x, const struct plist *l, int line, int col, const char *msg)
{
	if (l->n <= MCINIT_MAX_SCRIPT_WORDS)
		return 0;
	x->too_deep = msg;
	return mcinit_sh_fail(x, line, col, msg);
}

static void
exhaust(struct sx *x)
{
	if (x->exhausted)
		return;
	x->exhausted = 1;
	mcinit_sh_script_bound(x, 0, 0,
	                       "expansion stopped after %zu characters (a variable that grows "
	                       "exponentially?); later words may be missing",
	                       x->budget_base);
}

/* Copying a variable's value is the only way output can outgrow the input,
 * so only that is charged to the budget; once spent, expansions yield
 * nothing while text written in the script is still read. */
int
mcinit_sh_charge(struct sx *x, size_t n)
{
	if (x->budget < n) {
		x->budget = 0;
		x->cut++;
		exhaust(x);
		return 0;
	}
	x->budget -= n;
	return 1;
}

void
mcinit_sh_ps_free(struct pstr *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}

void
mcinit_sh_pl_free(struct plist *l)
{
	for (size_t k = 0; k < l->n; k++)
		mcinit_sh_ps_free(&l->v[k]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

void
mcinit_sh_pl_push(struct plist *l, struct pstr *p) /* takes ownership of *p */
{
	MCINIT_GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = *p;
	memset(p, 0, sizeof *p);
}

size_t
mcinit_sh_ps_nchars(const struct pstr *p)
{
	size_t n = 0;

	for (size_t k = 0; k < p->n; k++)
		n += !(p->v[k].fl & PF_MARK);
	return n;
}

char *
mcinit_sh_ps_text(const struct pstr *p)
{
	char *t = mcx_xmalloc(p->n + 1);
	size_t n = 0;

	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK))
			t[n++] = p->v[k].c;
	t[n] = '\0';
	return t;
}

int
mcinit_sh_ps_opaque(const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].fl & PF_OPAQUE)
			return 1;
	return 0;
}

/* One growth and one copy: values are copied whole in loops (saving,
 * appending, grouping), so a per-character put showed in profiles. */
void
mcinit_sh_ps_copy(struct pstr *dst, const struct pstr *src)
{
	if (src->n == 0)
		return;
	MCINIT_GROW(dst->v, dst->cap, dst->n + src->n);
	memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
	dst->n += src->n;
}
