/* shell-vars.c — variables (lookup, what a change saves) and assignments (V=w,
 * V+=w, V=(...)), each kept for the fallback. */
#include "shell/shell-impl.h"

/* ---- variables ---- */

static uint32_t
hash_name(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

int
mcinit_sh_var_find(const struct sx *x, const char *name, size_t n)
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

int
mcinit_sh_var_get(struct sx *x, const char *name, size_t n)
{
	int k = mcinit_sh_var_find(x, name, n);

	if (k >= 0)
		return k;
	if (2 * (x->nvars + 1) > x->hcap) {
		x->hcap = x->hcap ? 2 * x->hcap : 64;
		free(x->hash);
		x->hash = mcx_xcalloc(x->hcap, sizeof *x->hash);
		for (size_t j = 0; j < x->nvars; j++)
			hash_insert(x, (int)j);
	}
	MCINIT_GROW(x->vars, x->capvars, x->nvars + 1);
	memset(&x->vars[x->nvars], 0, sizeof x->vars[x->nvars]);
	x->vars[x->nvars].name = mcx_xasprintf("%.*s", (int)n, name);
	hash_insert(x, (int)x->nvars);
	return (int)x->nvars++;
}

void
mcinit_sh_var_save(const struct var *v, struct var *out)
{
	*out = *v;
	memset(&out->val, 0, sizeof out->val);
	for (size_t k = 0; k < v->val.n; k++) {
		struct pstr p = {0};

		mcinit_sh_ps_copy(&p, &v->val.v[k]);
		mcinit_sh_pl_push(&out->val, &p);
	}
}

/* Saves variable vi's state in frame f, once: the frame puts it back. */
void
mcinit_sh_frame_save(struct sx *x, struct frame *f, int vi, const struct var *v)
{
	for (size_t k = 0; k < f->n; k++)
		if (f->sv[k].vi == vi)
			return;
	for (size_t k = 0; k < v->val.n; k++)
		mcinit_sh_charge(x, v->val.v[k].n + EL_COST); /* copied: counts as expanded */
	MCINIT_GROW(f->sv, f->cap, f->n + 1);
	f->sv[f->n].vi = vi;
	f->sv[f->n].trunc = 0;
	mcinit_sh_var_save(v, &f->sv[f->n].v);
	f->n++;
}

/* Before variable vi changes: the innermost subshell being read (a command
 * substitution) puts it back when it ends, as bash's subshell would. */
void
mcinit_sh_touch_var(struct sx *x, int vi)
{
	x->vars[vi].gen = ++x->gen;
	for (size_t k = x->nframes; k-- > 0;)
		if (x->frames[k].all) {
			mcinit_sh_frame_save(x, &x->frames[k], vi, &x->vars[vi]);
			return;
		}
}

/* Whether variable vi (-1: never named) is not assigned but may have been
 * set by a sourced file mcinit could not read: then only the run knows it,
 * never taken as unset. */
int
mcinit_sh_var_maybe(const struct sx *x, int vi)
{
	const struct var *v = vi >= 0 ? &x->vars[vi] : NULL;

	if (x->unread == NULL || vi == x->at)
		return 0;
	return v == NULL || (!v->defined && (v->maybe || !v->was_unset));
}

/* ---- assignments ---- */

static void
set_owner(struct pstr *p, int vi)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].var < 0)
			p->v[k].var = vi;
}

/* The assignments kept for the fallback hold MCINIT_MAX_SCRIPT_WORDS
 * words at most (a value counted as one): more would be more than
 * mcinit reads from a script, and 16 MiB of `A+=(--a 1)` kept 2.2 GB.  1
 * when full (the fallback then says its words may be missing). */
static int
group_full(struct sx *x, size_t n)
{
	if (x->group_words + n > MCINIT_MAX_SCRIPT_WORDS) {
		x->groups_cut = 1;
		return 1;
	}
	x->group_words += n;
	return 0;
}

static void
add_group(struct sx *x, const struct plist *fields)
{
	struct group g = {{0}, {0}, 0};

	if (group_full(x, fields->n))
		return;
	for (size_t k = 0; k < fields->n; k++) {
		struct pstr p = {0};

		mcinit_sh_ps_copy(&p, &fields->v[k]);
		mcinit_sh_pl_push(&g.f, &p);
	}
	MCINIT_GROW(x->groups, x->capgroups, x->ngroups + 1);
	x->groups[x->ngroups++] = g;
}

static void
add_scalar_group(struct sx *x, const struct pstr *val)
{
	struct group g = {{0}, {0}, 1};

	if (group_full(x, 1))
		return;
	mcinit_sh_ps_copy(&g.s, val);
	MCINIT_GROW(x->groups, x->capgroups, x->ngroups + 1);
	x->groups[x->ngroups++] = g;
}

/* V=word / V+=word: val is the lexed word, consumed; group: the value
 * counts for the fallback (not a loop's variable). */
void
mcinit_sh_assign_scalar(struct sx *x, int vi, struct pstr *val, int append, int line, int col,
                        int group)
{
	struct var *v;
	struct pstr s = {0};

	mcinit_sh_touch_var(x, vi);
	v = &x->vars[vi];
	v->was_unset = 0;

	for (size_t k = 0; k < val->n; k++) {
		struct pch ch = val->v[k];

		if (ch.fl & PF_EMPTYQ)
			continue;
		if (ch.fl & PF_BREAK) /* "${a[@]}" in an assignment joins with spaces */
			ch.c = ' ';
		ch.fl = (unsigned short)((ch.fl & (PF_OPAQUE | PF_UNREAD | PF_ARGS | PF_ASSUMED |
		                                   PF_SRCQ)) |
		                         ((ch.fl & PF_QUOTED) ? PF_SRCQ : 0));
		mcinit_sh_put(&s, ch);
	}
	mcinit_sh_ps_free(val);
	set_owner(&s, vi);
	if (group)
		add_scalar_group(x, &s);
	if (append && v->defined && v->val.n > 0) {
		struct pstr *el = &v->val.v[0];

		if (s.n > 0 && mcinit_sh_ps_nchars(el) == 0)
			el->n = 0; /* drop its empty marker */
		mcinit_sh_ps_copy(el, &s);
		mcinit_sh_ps_free(&s);
		return;
	}
	if (s.n == 0)
		mcinit_sh_put(&s, (struct pch){0, PF_EMPTYQ, line, col, vi, -1});
	if (v->defined && v->is_array && v->val.n > 0) {
		/* bash: V=word on an array sets only element 0 */
		mcinit_sh_ps_free(&v->val.v[0]);
		v->val.v[0] = s;
		return;
	}
	if (!append || !v->defined) {
		mcinit_sh_pl_free(&v->val);
		v->is_array = 0;
	}
	mcinit_sh_pl_push(&v->val, &s);
	v->defined = 1;
}

static void
assign_array(struct sx *x, int vi, struct plist *elems, int append)
{
	struct var *v;

	mcinit_sh_touch_var(x, vi);
	v = &x->vars[vi];
	v->was_unset = 0;
	for (size_t k = 0; k < elems->n; k++)
		set_owner(&elems->v[k], vi);
	add_group(x, elems);
	if (!append || !v->defined)
		mcinit_sh_pl_free(&v->val);
	if (v->val.n + elems->n > MCINIT_MAX_SCRIPT_WORDS) { /* A+=(...) without end */
		size_t keep =
		    v->val.n < MCINIT_MAX_SCRIPT_WORDS ? MCINIT_MAX_SCRIPT_WORDS - v->val.n : 0;

		while (elems->n > keep)
			mcinit_sh_ps_free(&elems->v[--elems->n]);
		if (!x->cut_noted++)
			mcinit_sh_script_bound(
			    x, 0, 0,
			    "an array of more than %d elements: mcinit keeps the first %d; "
			    "later words may be missing",
			    MCINIT_MAX_SCRIPT_WORDS, MCINIT_MAX_SCRIPT_WORDS);
		x->cut++;
		x->stopped_array = 1;
	}
	for (size_t k = 0; k < elems->n; k++)
		mcinit_sh_pl_push(&v->val, &elems->v[k]);
	elems->n = 0;
	mcinit_sh_pl_free(elems);
	v->defined = 1;
	v->is_array = 1;
}

/* ( ... ) of an array assignment; the cursor is at the `(`. */
static int
lex_array(struct sx *x, struct plist *elems)
{
	int line = x->line, col = x->col;

	mcinit_sh_adv(x);
	for (;;) {

		int c;

		mcinit_sh_skip_blanks(x);
		c = mcinit_sh_peekc(x, 0);
		if (c < 0)
			return mcinit_sh_fail(x, line, col, "unterminated array assignment");
		if (c == '#') {
			mcinit_sh_skip_comment(x);
			continue;
		}
		if (c == ')') {
			mcinit_sh_adv(x);
			return 0;
		}
		if (mcinit_sh_is_sep(c)) { /* newline, or a stray operator bash would reject */
			mcinit_sh_adv(x);
			continue;
		}
		if (mcinit_sh_lex_words_braced(x, elems) < 0)
			return -1;
		if (elems->n > MCINIT_MAX_SCRIPT_WORDS) { /* read on, keep no more */
			if (!x->cut_noted++)
				mcinit_sh_script_bound(
				    x, line, col,
				    "an array of more than %d elements: mcinit keeps "
				    "the first %d; later words may be missing",
				    MCINIT_MAX_SCRIPT_WORDS, MCINIT_MAX_SCRIPT_WORDS);
			while (elems->n > MCINIT_MAX_SCRIPT_WORDS)
				mcinit_sh_ps_free(&elems->v[--elems->n]);
			x->cut++;
			x->stopped_array = 1;
		}
	}
}

/* NAME=... / NAME+=... at the cursor: 1 handled (*vi_out = NAME's index;
 * *save, when not NULL, receives NAME's state before), 0 not one, -1. */
int
mcinit_sh_try_assignment(struct sx *x, int *vi_out, struct saved *save)
{
	size_t j = x->i, a = x->i, cut0;
	int append = 0, vi, line, col, nline = x->line, ncol = x->col, was_cut;

	if (!mcinit_sh_is_ident(mcinit_sh_peekc(x, 0), 1))
		return 0;
	while (j < x->len && mcinit_sh_is_ident((unsigned char)x->s[j], 0))
		j++;
	if (j + 1 < x->len && x->s[j] == '+' && x->s[j + 1] == '=')
		append = 1, j++;
	if (j >= x->len || x->s[j] != '=')
		return 0;
	vi = mcinit_sh_var_get(x, x->s + a, j - a - (size_t)append);
	*vi_out = vi;
	mcinit_sh_make_local(x, vi, 0);
	if (save != NULL && append && x->vars[vi].defined) {
		const struct var *v = &x->vars[vi];

		save->vi = vi;
		save->v = *v;
		save->trunc = 1;
		save->n0 = v->val.n;
		save->len0 = v->val.n > 0 ? v->val.v[0].n : 0;
		save->el0 = save->len0 > 0 ? v->val.v[0].v[0] : (struct pch){0};
	} else if (save != NULL) {
		save->vi = vi;
		save->trunc = 0;
		mcinit_sh_var_save(&x->vars[vi], &save->v);
	}
	while (x->i <= j)
		mcinit_sh_adv(x);
	line = x->line;
	col = x->col;
	cut0 = x->cut;
	was_cut = append && x->vars[vi].defined && x->vars[vi].cut;
	if (mcinit_sh_peekc(x, 0) == '(') {
		struct plist elems = {0};

		if (lex_array(x, &elems) < 0) {
			mcinit_sh_pl_free(&elems);
			return -1;
		}
		if (x->dead)
			mcinit_sh_pl_free(&elems);
		else
			assign_array(x, vi, &elems, append);
	} else {
		struct pstr w = {0};

		if (mcinit_sh_lex_word(x, &w, 0, 0) < 0) {
			mcinit_sh_ps_free(&w);
			return -1;
		}
		if (x->dead)
			mcinit_sh_ps_free(&w);
		else
			mcinit_sh_assign_scalar(x, vi, &w, append, line, col, 1);
	}
	if (x->dead)
		return 1; /* a branch bash does not take */
	x->vars[vi].cut = was_cut || x->cut != cut0;
	x->vars[vi].line = nline;
	x->vars[vi].col = ncol;
	if (x->allexport)
		x->vars[vi].exported = 1;
	return 1;
}
