/* shell-loops.c — loops: for, while, until, and for (( ; ; )). */
#include "shell/shell-impl.h"

/* ---- loops ---- */

/* Every variable changed since x->gen was g0 gets a value only the run
 * knows, with the note "`NAME` is changed by WHY; word kept as written":
 * after a loop mcinit stopped at a bound (bash would go on; its counter is
 * not the one of the last pass read), or a sourced file it could not read
 * to its end. */
void
mcinit_sh_vars_unknown(struct sx *x, unsigned long g0, int line, int col, const char *why)
{
	for (size_t vi = 0; vi < x->nvars; vi++) {
		struct var *v = &x->vars[vi];
		struct pstr p = {0};
		char *t;
		int ev;

		if (v->gen <= g0 || (int)vi == x->at || !v->defined)
			continue;
		ev = mcinit_sh_add_event(
		    x, line, col, "`%s` is changed by %s; word kept as written", v->name, why);
		t = mcx_xasprintf("$%s", v->name);
		for (const char *c = t; *c; c++)
			mcinit_sh_put(&p, (struct pch){*c, PF_OPAQUE, line, col, (int)vi, ev});
		free(t);
		mcinit_sh_touch_var(x, (int)vi);
		mcinit_sh_pl_free(&v->val);
		mcinit_sh_pl_push(&v->val, &p);
		v->is_array = 0;
		v->cut = 1;
	}
}

static void
loop_cut(struct sx *x, unsigned long g0, int line, int col, int passes)
{
	char *why = mcx_xasprintf("a loop mcinit stopped after %d passes", passes);

	mcinit_sh_vars_unknown(x, g0, line, col, why);
	free(why);
}

#define MAX_WHILE 100 /* iterations of a while loop whose test stays true */

struct body { /* a loop's condition or body: text [start, end) */
	size_t start, end;
	int line, col;
};

/* BODY done, the cursor after `do`: 1 read (the cursor past `done`), -1
 * on error. */
static int
body_to_done(struct sx *x, struct body *b)
{
	long end;

	b->start = x->i, b->line = x->line, b->col = x->col;
	if ((end = mcinit_sh_skip_block(x, 'd')) < 0)
		return -1;
	b->end = (size_t)end;
	return 1;
}

/* `do BODY done` after a loop's header: 1 read (the cursor past `done`),
 * 0 no `do` here (what follows is read in place), -1 on error. */
static int
read_body(struct sx *x, struct body *b)
{
	struct pstr w = {0};
	int isdo;

	for (;;) {
		mcinit_sh_skip_newlines(x);
		if (mcinit_sh_peekc(x, 0) != ';' || mcinit_sh_peekc(x, 1) == ';')
			break;
		mcinit_sh_adv(x);
	}
	if (mcinit_sh_lex_word(x, &w, 0, 0) < 0) {
		mcinit_sh_ps_free(&w);
		return -1;
	}
	isdo = mcinit_sh_word_is(&w, " do ");
	mcinit_sh_ps_free(&w);
	return isdo ? body_to_done(x, b) : 0;
}

static const char loop_deep_msg[] = "loops nested too deeply (more than 256 levels)";

/* The body once more: 1 go on, 0 `break`, -1 on error. */
static int
loop_pass(struct sx *x, const struct body *b)
{
	int r;

	if (x->loop_depth >= MAX_LOOP_DEPTH) {
		x->too_deep = loop_deep_msg;
		return mcinit_sh_fail(x, b->line, b->col, loop_deep_msg);
	}
	x->loops++;
	x->loop_depth++;
	r = mcinit_sh_run_region(x, b->start, b->end, b->line, b->col);
	x->loop_depth--;
	x->loops--;
	if (r < 0)
		return -1;
	r = x->brk != 1 && !x->exhausted && !mcinit_sh_out_of_steps(x, b->line, b->col);
	x->brk = 0;
	return r;
}

/* The words after `for NAME`: those after `in` up to `;` or a newline,
 * else the positional parameters. */
static int
for_items(struct sx *x, struct plist *items)
{
	struct pstr w = {0};
	int c;

	mcinit_sh_skip_blanks(x);
	c = mcinit_sh_peekc(x, 0);
	if (c < 0 || c == ';' || c == '\n') {
		if (mcinit_sh_args_runtime(x)) { /* `for a;` over arguments only the run knows */
			int ev = mcinit_sh_args_note(x, x->line, x->col);

			for (const char *p = "\"$@\""; *p; p++)
				mcinit_sh_put(&w, (struct pch){*p, PF_OPAQUE | PF_QUOTED, x->line,
				                               x->col, -1, ev});
			mcinit_sh_pl_push(items, &w);
			return 0;
		}
		for (size_t k = 0; k < x->vars[x->at].val.n; k++) {
			mcinit_sh_ps_copy(&w, &x->vars[x->at].val.v[k]);
			mcinit_sh_pl_push(items, &w);
		}
		return 0;
	}
	if (mcinit_sh_lex_word(x, &w, 0, 0) < 0 || !mcinit_sh_word_is(&w, " in ")) {
		mcinit_sh_ps_free(&w);
		return -1;
	}
	mcinit_sh_ps_free(&w);
	for (;;) {
		mcinit_sh_skip_blanks(x);
		c = mcinit_sh_peekc(x, 0);
		if (c == '#')
			mcinit_sh_skip_comment(x);
		if (mcinit_sh_is_sep(c) || c == '#')
			return 0;
		if (mcinit_sh_lex_words_braced(x, items) < 0)
			return -1;
		if (mcinit_sh_too_many_words(x, items, x->line, x->col, mcinit_sh_words_list_msg) <
		    0)
			return -1;
	}
}

/* `for NAME in WORD...; do BODY done`: the body once for each word. */
static int
for_each(struct sx *x, const struct pstr *nm, struct plist *items, const struct body *b)
{
	char *name = mcinit_sh_ps_text(nm);
	int vi = -1, r = 1, stopped = x->stopped;
	unsigned long g0 = x->gen;
	size_t k;

	if (mcinit_sh_is_ident((unsigned char)name[0], 1) &&
	    strspn(name, IDENT_CHARS) == strlen(name))
		vi = mcinit_sh_var_get(x, name, strlen(name));
	free(name);
	for (k = 0; k < items->n && r > 0; k++) {
		struct pstr v = {0};

		if (vi >= 0) {
			mcinit_sh_ps_copy(&v, &items->v[k]);
			mcinit_sh_assign_scalar(x, vi, &v, 0, b->line, b->col, 0);
		}
		r = loop_pass(x, b);
	}
	if (x->stopped != stopped) /* by the bound on commands */
		loop_cut(x, g0, b->line, b->col, (int)k);
	return r;
}

static int do_cfor(struct sx *x);

/* `for` at a command's start, the cursor after it: 1 read through its
 * `done` (or its header only, when no `do` follows), -1 on error. */
int
mcinit_sh_do_for(struct sx *x)
{
	struct pstr nm = {0};
	struct plist items = {0};
	struct body b;
	int r;

	if (x->cap != NULL && mcinit_sh_uncertain(x))
		mcinit_sh_taint(x, "a loop runs only if a test mcinit cannot decide says so");
	mcinit_sh_skip_blanks(x);
	if (mcinit_sh_peekc(x, 0) == '(' && mcinit_sh_peekc(x, 1) == '(')
		return do_cfor(x);
	r = mcinit_sh_lex_word(x, &nm, 0, 0);
	if (r == 0 && for_items(x, &items) == 0 && (r = read_body(x, &b)) > 0)
		r = for_each(x, &nm, &items, &b);
	mcinit_sh_ps_free(&nm);
	mcinit_sh_pl_free(&items);
	return r < 0 ? -1 : 1;
}

/* `while COND; do BODY done` (until: `until`): the body while COND's
 * status says so; a status only the run knows reads the body once. */
int
mcinit_sh_do_while(struct sx *x, int until)
{
	struct body c = {x->i, 0, x->line, x->col}, b;
	long at = mcinit_sh_skip_block(x, 'w');
	unsigned long g0 = x->gen;
	int n, r, stopped = x->stopped;

	if (at < 0 || (size_t)at >= x->len)
		return at < 0 ? -1 : 1; /* no `do`: nothing more to read */
	c.end = (size_t)at;
	if (body_to_done(x, &b) < 0)
		return -1;
	for (n = 0, r = 1; n < MAX_WHILE && r > 0; n++) {
		int st; /* 1 the body runs, 0 the loop ends, -1 only the run knows */

		x->status = 0;
		if (mcinit_sh_run_region(x, c.start, c.end, c.line, c.col) < 0)
			return -1;
		st = x->status < 0 ? -1 : (x->status == 0) != until;
		if (st == 0 || (st < 0 && n > 0))
			return 1;
		if (st < 0)
			mcinit_sh_taint(x, "a loop whose test mcinit cannot decide");
		r = loop_pass(x, &b);
		if (st < 0 && r > 0)
			r = 0; /* read once, as where the test is unknown */
	}
	if (n == MAX_WHILE && r > 0) {
		mcinit_sh_script_note(
		    x, c.line, c.col,
		    "a loop still running after %d passes: mcinit reads no more of them",
		    MAX_WHILE);
		loop_cut(x, g0, c.line, c.col, MAX_WHILE);
	} else if (x->stopped != stopped) { /* by the bound on commands */
		loop_cut(x, g0, c.line, c.col, n);
	}
	return r < 0 ? -1 : 1;
}

/* The value of NAME for NAME++ and NAME+=E: unset is 0, as in bash. */
static long long
arith_name(struct sx *x, const char *name, size_t n, const char **why)
{
	struct arith a = {x, name, n, 0, NULL, 0, 0};
	int vi = mcinit_sh_var_find(x, name, n);
	long long v;

	if (mcinit_sh_var_maybe(x, vi)) {
		*why = x->unread;
		return 0;
	}
	if (vi < 0 || !x->vars[vi].defined)
		return 0;
	v = mcinit_sh_arith_expr(&a, 0);
	if (a.why != NULL)
		*why = a.why;
	return v;
}

static void
set_number(struct sx *x, const char *name, size_t n, long long v, int line, int col)
{
	struct pstr p = {0};

	mcinit_sh_put_number(&p, v, 0, line, col);
	mcinit_sh_assign_scalar(x, mcinit_sh_var_get(x, name, n), &p, 0, line, col, 0);
}

/* One statement of `for ((A; B; C))`, s[0..n): NAME=E (+= -= *= /= %=),
 * NAME++, NAME--, ++NAME, --NAME or E; an empty one is 1.  NULL, or why
 * its value is unknown. */
const char *
mcinit_sh_arith_stmt(struct sx *x, const char *s, size_t n, long long *val, int line, int col)
{
	struct arith a = {x, s, n, 0, NULL, 0, 0};
	size_t k, j;
	int pre = 0;
	char op = 0;

	mcinit_sh_arith_ws(&a);
	if (a.i == n)
		return *val = 1, NULL;
	k = a.i;
	if (n - k > 2 && (memcmp(s + k, "++", 2) == 0 || memcmp(s + k, "--", 2) == 0))
		pre = s[k], k += 2;
	for (j = k; j < n && mcinit_sh_is_ident((unsigned char)s[j], j == k);)
		j++;
	a.i = j;
	mcinit_sh_arith_ws(&a);
	if (j > k && !pre && n - a.i >= 2 && s[a.i] == s[a.i + 1] && strchr("+-", s[a.i]))
		op = s[a.i] == '+' ? 'p' : 'm', a.i += 2; /* NAME++ */
	else if (j > k && !pre && a.i < n && strchr("+-*/%", s[a.i]) && a.i + 1 < n &&
	         s[a.i + 1] == '=')
		op = s[a.i], a.i += 2;
	else if (j > k && !pre && a.i < n && s[a.i] == '=' && (a.i + 1 == n || s[a.i + 1] != '='))
		op = '=', a.i++;
	if (pre || op == 'p' || op == 'm') {
		const char *why = NULL;
		long long v = arith_name(x, s + k, j - k, &why),
		          d = pre == '-' || op == 'm' ? -1 : 1;

		mcinit_sh_arith_ws(&a);
		if (why != NULL || a.i != n || j == k)
			return why ? why : "arithmetic mcinit does not evaluate";
		set_number(x, s + k, j - k, v + d, line, col);
		return *val = pre ? v + d : v, NULL;
	}
	if (op == 0)
		a.i = 0;
	*val = mcinit_sh_arith_expr(&a, 0);
	mcinit_sh_arith_ws(&a);
	if (a.why == NULL && a.i != n)
		a.why = "arithmetic mcinit does not evaluate";
	if (a.why != NULL || op == 0)
		return a.why;
	if (op != '=') {
		const char *why = NULL;
		long long l = arith_name(x, s + k, j - k, &why);

		if (why != NULL)
			return why;
		*val = mcinit_sh_arith_apply(&a, (char[]){op, 0}, l, *val);
		if (a.why != NULL)
			return a.why;
	}
	set_number(x, s + k, j - k, *val, line, col);
	return NULL;
}

/* The text of `((...))`, its expansions done (the cursor after `((`). */
int
mcinit_sh_cfor_text(struct sx *x, struct pstr *e, int line, int col)
{
	int depth = 0, c;

	while ((c = mcinit_sh_peekc(x, 0)) != ')' || mcinit_sh_peekc(x, 1) != ')' || depth > 0) {
		if (c < 0)
			return mcinit_sh_fail(x, line, col, "unterminated for ((");
		if (c == '$' && mcinit_sh_lex_dollar(x, e, 1) < 0)
			return -1;
		if (c == '$')
			continue;
		depth += c == '(' ? 1 : c == ')' ? -1 : 0;
		mcinit_sh_putc_at(e, c, PF_QUOTED, x->line, x->col);
		mcinit_sh_adv(x);
	}
	mcinit_sh_adv(x);
	mcinit_sh_adv(x);
	return 0;
}

/* `for ((A; B; C)); do BODY done`: A, then the body and C while B is not
 * 0; a B only the run knows reads the body once. */
static int
do_cfor(struct sx *x)
{
	struct pstr e = {0};
	struct body b;
	int line = x->line, col = x->col, r, n = 0, stopped = x->stopped;
	unsigned long g0 = x->gen;
	char *t, *s1, *s2;
	long long v;

	mcinit_sh_adv(x);
	mcinit_sh_adv(x);
	r = mcinit_sh_cfor_text(x, &e, line, col);
	t = mcinit_sh_ps_text(&e);
	mcinit_sh_ps_free(&e);
	s1 = strchr(t, ';');
	s2 = s1 ? strchr(s1 + 1, ';') : NULL;
	if (r == 0 && (r = read_body(x, &b)) > 0 && s2 != NULL &&
	    mcinit_sh_arith_stmt(x, t, (size_t)(s1 - t), &v, line, col) == NULL) {
		for (n = 0; r > 0 && n < MAX_WHILE * 10; n++) {
			const char *why =
			    mcinit_sh_arith_stmt(x, s1 + 1, (size_t)(s2 - s1 - 1), &v, line, col);

			if (x->too_deep != NULL || (why == NULL && v == 0))
				break;
			r = loop_pass(x, &b);
			if (why != NULL ||
			    mcinit_sh_arith_stmt(x, s2 + 1, strlen(s2 + 1), &v, line, col))
				break; /* read once, as where the test is unknown */
		}
	} else if (r > 0 && x->too_deep == NULL) {
		r = loop_pass(x, &b);
	}
	free(t);
	if (r >= 0 && x->too_deep != NULL)
		return mcinit_sh_fail(x, line, col, x->too_deep);
	if (r > 0 && n == MAX_WHILE * 10) {
		mcinit_sh_script_note(
		    x, line, col,
		    "a loop still running after %d passes: mcinit reads no more of them",
		    MAX_WHILE * 10);
		loop_cut(x, g0, line, col, MAX_WHILE * 10);
	} else if (x->stopped != stopped) {
		loop_cut(x, g0, line, col, n);
	}
	return r < 0 ? -1 : 1;
}
