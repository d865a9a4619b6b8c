/* shell-cond.c — if ... fi and case ... esac, with the conditions bash's test decides
 * from known words. */
#include "shell/shell-impl.h"

/* ---- if ... fi with conditions bash's test decides from known words ---- */

int
mcinit_sh_int_word(const char *t, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(t, &end, 10);
	return *t != '\0' && *end == '\0' && errno == 0;
}

/* A glob character the script wrote unquoted (a [[ == ]] pattern). */
static int
has_pattern(const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & (PF_SRCQ | PF_QUOTED | PF_MARK)) && p->v[k].c != 0 &&
		    strchr("*?[", p->v[k].c))
			return 1;
	return 0;
}

static int
compare_ints(const char *op, long long x, long long y)
{
	static const char *const ops[] = {"eq", "ne", "lt", "le", "gt", "ge"};
	const int res[] = {x == y, x != y, x<y, x <= y, x> y, x >= y};

	for (size_t k = 0; k < 6; k++)
		if (strcmp(op, ops[k]) == 0)
			return res[k];
	return -1;
}

/* The test a[0..n) (n <= 3) of `[`/`[[`/test; arg2 is a[2]'s word. */
static int
test_args(char *const *a, size_t n, int dbl, const struct pstr *arg2)
{
	long long x, y;

	if (n == 0)
		return 0;
	if (n == 1)
		return a[0][0] != '\0';
	if (n == 2)
		return strcmp(a[0], "-n") == 0   ? a[1][0] != '\0'
		       : strcmp(a[0], "-z") == 0 ? a[1][0] == '\0'
		                                 : -1;
	if (strcmp(a[1], "=") == 0 || strcmp(a[1], "==") == 0 || strcmp(a[1], "!=") == 0) {
		int eq = dbl && has_pattern(arg2) ? fnmatch(a[2], a[0], 0) == 0
		                                  : strcmp(a[0], a[2]) == 0;

		return a[1][0] == '!' ? !eq : eq;
	}
	if (a[1][0] == '-' && mcinit_sh_int_word(a[0], &x) && mcinit_sh_int_word(a[2], &y))
		return compare_ints(a[1] + 1, x, y);
	return -1;
}

/* `[ ... ]`, `[[ ... ]]` or `test ...` over words known here: 1 true, 0
 * false, -1 when only running it would tell (files, options, opaque words). */
/* A word that is one reference to a variable this script never assigns
 * (`$V`, `${V}`): taken as unset, as for ${V:-default}. */
static int
unset_ref(struct sx *x, const struct pstr *p)
{
	char *t = mcinit_sh_ps_text(p);
	size_t n = strlen(t), a = t[0] == '$' ? (t[1] == '{' ? 2 : 1) : 0, e = n;
	int vi, yes = 0;

	if (a > 0 && a == 2 && n > 3 && t[n - 1] == '}')
		e = n - 1;
	if (a > 0 && e > a && mcinit_sh_is_ident((unsigned char)t[a], 1)) {
		size_t k = a;

		while (k < e && mcinit_sh_is_ident((unsigned char)t[k], 0))
			k++;
		vi = k == e ? mcinit_sh_var_find(x, t + a, e - a) : -2;
		yes =
		    (vi == -1 || (vi >= 0 && !x->vars[vi].defined)) && !mcinit_sh_var_maybe(x, vi);
	}
	free(t);
	return yes && mcinit_sh_ps_opaque(p);
}

int
mcinit_sh_eval_test(struct sx *x, const struct plist *w)
{
	char *first = mcinit_sh_ps_text(&w->v[0]), *last = mcinit_sh_ps_text(&w->v[w->n - 1]),
	     *a[3] = {0};
	size_t from = 1, to = w->n, n;
	int dbl = strcmp(first, "[[") == 0, r = -1, neg = 0;

	if (w->n == 1 && (strcmp(first, "true") == 0 || strcmp(first, ":") == 0 ||
	                  strcmp(first, "false") == 0)) {
		r = first[0] != 'f'; /* `if true`, `while :` */
		goto out;
	}
	if (strcmp(first, "[") == 0 || dbl)
		to = strcmp(last, dbl ? "]]" : "]") == 0 ? w->n - 1 : 0;
	else if (strcmp(first, "test") != 0)
		to = 0;
	for (size_t k = from; k < to && to > 0; k++)
		if (mcinit_sh_ps_opaque(&w->v[k]) && !unset_ref(x, &w->v[k]))
			to = 0;
	if (to > from + 1) {
		char *t = mcinit_sh_ps_text(&w->v[from]);

		if (strcmp(t, "!") == 0)
			neg = 1, from++;
		free(t);
	}
	n = to > from ? to - from : 0;
	for (size_t k = 0; k < n && k < 3; k++)
		a[k] = unset_ref(x, &w->v[from + k]) ? mcx_xstrdup("")
		                                     : mcinit_sh_ps_text(&w->v[from + k]);
	if (to > 0 && n <= 3)
		r = test_args(a, n, dbl, n == 3 ? &w->v[from + 2] : NULL);
	for (size_t k = 0; k < 3; k++)
		free(a[k]);
out:
	free(first);
	free(last);
	return r >= 0 && neg ? !r : r;
}

/* One command of an if's condition, of value v (1 true, 0 false, -1
 * unknown), joined to the others by || and &&: short-circuits decide where
 * a side is unknown. */
void
mcinit_sh_add_condition(struct sx *x, struct ifr *f, int v)
{
	if (v >= 0 && f->negate)
		v = !v;
	f->negate = 0;
	if (f->ncmds++ == 0)
		f->cond = v;
	else if (f->op == '|')
		f->cond = f->cond == 1 || v == 1 ? 1 : f->cond < 0 || v < 0 ? -1 : 0;
	else if (f->op == '&')
		f->cond = f->cond == 0 || v == 0 ? 0 : f->cond < 0 || v < 0 ? -1 : 1;
	else
		f->cond = -1; /* `if a; b; then`: the last one decides; not followed */
	f->op = x->last_op;
}

/* `case WORD in`: w holds WORD and `in`. */
void
mcinit_sh_open_case(struct sx *x, const struct plist *w)
{
	struct ifr f = {x->dead, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, NULL};

	if (w->n > 0 && unset_ref(x, &w->v[0]))
		f.subject = mcx_xstrdup(""); /* a variable the script never sets */
	else if (w->n > 0 && !mcinit_sh_ps_opaque(&w->v[0]))
		f.subject = mcinit_sh_ps_text(&w->v[0]);
	else if (w->n > 0)
		f.unknown = 1;
	if (w->n > 0) {
		f.line = w->v[0].n ? w->v[0].v[0].line : 0;
		f.col = w->v[0].n ? w->v[0].v[0].col : 0;
	}
	MCINIT_GROW(x->ifs, x->capifs, x->nifs + 1);
	x->ifs[x->nifs++] = f;
	if (f.unknown && !x->dead)
		mcinit_sh_script_note(
		    x, f.line, f.col,
		    "a `case` whose word is known only when the script runs: every clause "
		    "of it is read");
	if (w->n > 2) { /* `case $K in x) ...` on one line: x is the first pattern */
		struct plist rest = {w->v + 2, w->n - 2, 0};

		mcinit_sh_case_step(x, &x->ifs[x->nifs - 1], &rest);
	}
}

/* A command inside a case: a clause's patterns (`800M)`, `a|b)`) or a
 * command of its body; `;;` ends the body. */
void
mcinit_sh_case_step(struct sx *x, struct ifr *f, const struct plist *w)
{
	if (f->awaiting > 0 && w->n > 0) {
		const struct pstr *pat = &w->v[0];
		char *t = mcinit_sh_ps_text(pat);
		int hit = f->subject != NULL && (has_pattern(pat) ? fnmatch(t, f->subject, 0) == 0
		                                                  : strcmp(t, f->subject) == 0);

		free(t);
		f->cond = f->cond == 1 || hit;
		if (x->last_op == ')') {
			f->awaiting = f->unknown || (f->cond == 1 && !f->matched) ? 0 : -1;
			f->matched |= f->cond == 1;
			f->cond = -1;
		}
	} else if (f->awaiting <= 0 && x->last_op == ';') {
		f->awaiting = 1; /* the next clause's patterns */
		f->cond = -1;
	}
	mcinit_sh_set_dead(x);
	if (f->awaiting > 0)
		x->dead = f->parent_dead || x->skipping > 0;
}

void
mcinit_sh_set_dead(struct sx *x)
{
	const struct ifr *f = x->nifs ? &x->ifs[x->nifs - 1] : NULL;

	x->dead = x->skipping > 0 || (f != NULL && (f->parent_dead || f->awaiting < 0));
}

/* if / then / elif / else / fi at a command's start; 1 when the words that
 * follow are a condition to evaluate. */
int
mcinit_sh_on_keyword(struct sx *x, const struct pstr *kw)
{
	struct ifr *f = x->nifs ? &x->ifs[x->nifs - 1] : NULL;
	char *t = mcinit_sh_ps_text(kw);
	int cond = 0;

	mcinit_sh_block_keyword(x, t);
	if (strcmp(t, "if") == 0) {
		MCINIT_GROW(x->ifs, x->capifs, x->nifs + 1);
		x->ifs[x->nifs++] = (struct ifr){x->dead,
		                                 -1,
		                                 0,
		                                 0,
		                                 1,
		                                 0,
		                                 0,
		                                 0,
		                                 kw->n ? kw->v[0].line : 0,
		                                 kw->n ? kw->v[0].col : 0,
		                                 0,
		                                 0,
		                                 NULL};
		cond = 1;
	} else if (f != NULL && strcmp(t, "!") == 0 && f->awaiting > 0 && f->ncmds == 0) {
		f->negate ^= 1;
	} else if (f != NULL && strcmp(t, "then") == 0 && f->awaiting > 0) {
		int c = f->cond;

		if (c < 0 && !f->unknown && !x->dead)
			mcinit_sh_script_note(
			    x, f->line, f->col,
			    "an `if` whose condition is known only when the script runs: every "
			    "branch of it is read");
		f->unknown |= c < 0;
		f->awaiting = f->unknown || (c == 1 && !f->taken) ? 0 : -1;
		f->taken |= c == 1;
	} else if (f != NULL && strcmp(t, "elif") == 0) {
		f->awaiting = f->unknown || !f->taken ? 1 : -1;
		f->ncmds = f->negate = f->op = 0;
		f->cond = -1;
		cond = f->awaiting > 0;
	} else if (f != NULL && strcmp(t, "else") == 0) {
		f->awaiting = f->unknown || !f->taken ? 0 : -1;
	} else if (strcmp(t, "case") == 0) {
		cond = 2;
	} else if (f != NULL && (strcmp(t, "fi") == 0 || strcmp(t, "esac") == 0)) {
		free(x->ifs[--x->nifs].subject);
	}
	free(t);
	mcinit_sh_set_dead(x);
	return cond;
}
