/* shell-source.c — the other files of the script: source FILE, . FILE, bash FILE. */
#include "shell/shell-impl.h"

/* ---- other files of the script: source FILE, bash FILE ---- */

/* A sourced file mcinit could not read: every variable not assigned by
 * now may be one it sets, so each is known only at run time from here on
 * (not unset: that would invent errors for flags it holds). */
static void
mark_unread(struct sx *x, const char *name)
{
	if (x->unread == NULL)
		x->unread = mcx_xasprintf("variable not assigned in this script, which `%s` "
		                          "(not read) may set",
		                          name);
	for (size_t k = 0; k < x->nvars; k++)
		if ((int)k != x->at && !x->vars[k].defined && !x->vars[k].maybe) {
			mcinit_sh_touch_var(x, (int)k);
			x->vars[k].maybe = 1;
		}
}

/* "`a.sh` -> `b.sh` -> `a.sh`": the files being read from fi's reading on. */
static char *
cycle_text(const struct sx *x, int fi)
{
	struct mcx_buf b = {0};
	size_t k = 0;

	while (x->fstack[k] != fi)
		k++;
	for (; k <= x->nfstack; k++) { /* appended, not printed: files read in
		                        * a cycle build this again and again */
		mcx_buf_addc(&b, '`');
		mcx_buf_adds(&b, x->files.v[k < x->nfstack ? x->fstack[k] : fi].path);
		mcx_buf_adds(&b, k < x->nfstack ? "` -> " : "`");
	}
	mcx_buf_cstr(&b);
	return b.data;
}

/* The file that word w names (what: "sourced file", "script"), read in:
 * its index in x->files; -1 when it cannot be (a warning at line:col says
 * why), -2 when it is being read already (a cycle: a warning too). */
static int
follow_open(struct sx *x, const struct pstr *w, const char *what, int line, int col)
{
	char *name = mcinit_sh_ps_text(w), *chain, deep[64];
	const char *why = NULL;
	int fi = -1;

	if (mcinit_sh_ps_opaque(w))
		why = "named by a value known only at run time";
	else if (x->nfstack >= x->max_files) {
		snprintf(deep, sizeof deep,
		         "not read (files are read within one another %zu deep at most)",
		         x->max_files);
		why = deep;
	} else if (x->calls >= MAX_CALLS)
		why = "not read (function calls and files nested too deeply)";
	else { /* a relative name after `cd`: from the new directory */
		char *at = mcinit_sh_dirs_name(x, name);

		fi = mcinit_shfiles_open(&x->files, at, &why);
		free(at);
	}
	for (size_t k = 0; fi >= 0 && k < x->nfstack; k++)
		if (x->fstack[k] == fi) {
			chain = cycle_text(x, fi);
			mcinit_sh_script_warn(
			    x, line, col,
			    "%s `%s` is already being read (%s): not read again inside "
			    "itself",
			    what, x->files.v[fi].path, chain);
			free(chain);
			free(name);
			return -2;
		}
	if (fi < 0)
		mcinit_sh_script_warn(x, line, col, "%s `%s` %s: %s", what, name, why,
		                      what[0] == 's' && what[1] == 'o'
		                          ? "the variables it may set are known only at run time"
		                          : "a launch in it is not checked");
	free(name);
	return fi;
}

/* File fi's commands read here, in the shell as it stands; the commands
 * they run get the words of prefix before their own.  0, or -1 after a
 * warning when the text cannot be a script. */
static int
read_file(struct sx *x, int fi, const struct plist *prefix, int line, int col, const char *what)
{
	const struct mcinit_shfile *f = &x->files.v[fi];
	const char *s = x->s;
	const struct lc *map = x->map;
	const struct plist *pre = x->prefix;
	struct mcinit_err saved, *e = x->err;
	int r, el = 0, ef;

	MCINIT_GROW(x->fstack, x->capfstack, x->nfstack + 1);
	x->fstack[x->nfstack++] = fi;
	x->s = f->text, x->map = NULL, x->prefix = prefix;
	x->calls++;
	if (e != NULL)
		saved = *e;
	r = mcinit_sh_run_region(x, 0, f->len, f->base + 1, 1); /* f may move: x->files grows */
	if (r < 0 && e != NULL)
		mcinit_shfiles_locate(&x->files, e->line, &ef, &el);
	if (r < 0)
		mcinit_sh_script_warn(
		    x, line, col, "%s `%s` cannot be read as a shell script (line %d: %s)", what,
		    x->files.v[fi].path, el, e != NULL ? e->msg + e->text_off : "");
	if (e != NULL)
		*e = saved;
	x->calls--;
	x->s = s, x->map = map, x->prefix = pre;
	x->nfstack--;
	return r;
}

/* `source FILE [ARGS]` / `. FILE [ARGS]`: FILE read in this shell, ARGS
 * its positional parameters while it is read. */
static void
do_source(struct sx *x, const struct plist *w)
{
	size_t k = w->n > 2 && mcinit_sh_word_is(&w->v[1], " -- ") ? 2 : 1;
	int line = w->v[0].n ? w->v[0].v[0].line : 0, col = w->v[0].n ? w->v[0].v[0].col : 0;
	struct saved sv = {x->at, {0}, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
	int fi, args_set = x->args_set, r;
	unsigned long g0 = x->gen;
	struct var bs; /* BASH_SOURCE of the caller */

	x->status = -1;
	if (k >= w->n)
		return;
	fi = follow_open(x, &w->v[k], "sourced file", line, col);
	if (fi == -1) {
		char *name = mcinit_sh_ps_text(&w->v[k]);

		mark_unread(x, name);
		free(name);
	}
	if (fi < 0)
		return;
	if (k + 1 < w->n) { /* bash puts the caller's back when the file ends */
		mcinit_sh_var_save(&x->vars[x->at], &sv.v);
		mcinit_sh_set_positional(x, w, k + 1);
		x->args_set = 0;
	}
	mcinit_sh_source_begin(x, &w->v[k], &bs);
	r = read_file(x, fi, x->prefix, line, col, "sourced file");
	mcinit_sh_source_end(x, &bs);
	if (r < 0) {
		/* what it set before the place mcinit could not read is not
		 * all it sets */
		char *why = mcx_xasprintf("sourced file `%s`, which mcinit could not read to "
		                          "its end",
		                          x->files.v[fi].path);

		mcinit_sh_vars_unknown(x, g0, line, col, why);
		free(why);
		mark_unread(x, x->files.v[fi].path);
	}
	if (k + 1 < w->n && !x->args_set) {
		mcinit_sh_touch_var(x, x->at);
		mcinit_sh_restore(x, &sv, 1);
	} else if (k + 1 < w->n) { /* unless it ran `set --` (a shift is undone) */
		mcinit_sh_pl_free(&sv.v.val);
	}
	x->args_set |= args_set;
	x->status = -1;
}

static const char run_wrappers[] = " srun exec nohup env time ";

/* `bash [OPTS] FILE ARGS` / `sh FILE` (anywhere before a .py word, as in
 * `srun ... bash FILE`), or a `*.sh` / `*.bash` path run as a program
 * (first, or after srun, exec, env ...): 1 with *at the index of bash (or
 * of the path) and *file that of FILE; 0 when the command is not one. */
static int
child_script(const struct plist *w, size_t *at, size_t *file)
{
	char *t0 = mcinit_sh_ps_text(&w->v[0]), **texts = mcx_xcalloc(w->n + 1, sizeof *texts);
	int wrapped = mcinit_sh_in_list(mcinit_sh_base_name(t0), run_wrappers), hit = 0;
	size_t run = 0, next;

	/* the command behind wrappers (numactl ..., singularity exec IMAGE ...:
	 * wrappers.def) is run as if written first */
	for (size_t k = 0; k < w->n; k++)
		texts[k] = mcinit_sh_ps_text(&w->v[k]);
	while ((next = mcinit_launch_unwrap((const char *const *)texts, w->n, run)) != run &&
	       next < w->n)
		run = next;
	for (size_t k = 0; k < w->n; k++)
		free(texts[k]);
	free(texts);

	if (mcinit_sh_in_list(mcinit_sh_base_name(t0),
	                      mcinit_sh_not_runner)) { /* echo bash x.sh, grep bash x.sh */
		free(t0);
		return 0;
	}
	free(t0);
	for (size_t k = 0; k < w->n && !hit && !mcinit_sh_is_py_field(&w->v[k]); k++) {
		char *t = mcinit_sh_ps_text(&w->v[k]);
		size_t n = strlen(t), j = k + 1;
		int script = (n > 3 && strcmp(t + n - 3, ".sh") == 0) ||
		             (n > 5 && strcmp(t + n - 5, ".bash") == 0);

		if (script && strchr(t, '/') != NULL && (k == 0 || k == run || wrapped))
			*at = *file = k, hit = 1;
		else if (mcinit_sh_in_list(mcinit_sh_base_name(t), " bash sh ")) {
			for (; j < w->n; j++) { /* its options: -x, -e, -o pipefail, -- */
				char *o = mcinit_sh_ps_text(&w->v[j]);
				int opt = (o[0] == '-' || o[0] == '+') && o[1] != '\0',
				    arg = opt &&
				          (strcmp(o + 1, "o") == 0 || strcmp(o + 1, "O") == 0 ||
				           strcmp(o, "--rcfile") == 0 ||
				           strcmp(o, "--init-file") == 0),
				    end = strcmp(o, "--") == 0,
				    cmd = opt && o[1] != '-' && strpbrk(o + 1, "cs") != NULL;

				free(o);
				if (cmd)
					j = w->n; /* bash -c, bash -s: not a file */
				if (!opt || cmd || end) {
					j += end;
					break;
				}
				j += arg;
			}
			if (j < w->n && !mcinit_sh_is_py_field(&w->v[j]))
				*at = k, *file = j, hit = 1;
		}
		free(t);
	}
	return hit;
}

/* Hides what a child shell does not get: variables not exported (arrays
 * are never), the functions; prefix assignments are exported to it. */
static void
child_env(struct sx *x, const struct saved *pre, size_t npre)
{
	for (size_t k = 0; k < x->nvars; k++) {
		struct var *v = &x->vars[k];
		int prefixed = 0;

		for (size_t p = 0; p < npre; p++)
			prefixed |= pre[p].vi == (int)k;
		if ((int)k == x->at || !v->defined || v->inherited ||
		    (v->exported && !v->is_array && !prefixed))
			continue;
		mcinit_sh_touch_var(x, (int)k);
		v = &x->vars[k];
		if (prefixed) {
			v->exported = 1;
			continue;
		}
		mcinit_sh_pl_free(&v->val);
		v->defined = v->is_array = v->exported = 0;
	}
	x->fn_floor = x->nfns;
}

/* `bash FILE ARGS` and the like at w[k] (FILE at w[f]): FILE read as a
 * child shell with ARGS as its positional parameters and w[0..k) before
 * the commands it runs; nothing it sets comes back. */
static void
do_child(struct sx *x, const struct plist *w, size_t k, size_t f, const struct saved *pre,
         size_t npre)
{
	int line = w->v[k].n ? w->v[k].v[0].line : 0, col = w->v[k].n ? w->v[k].v[0].col : 0;
	int fi = follow_open(x, &w->v[f], "script", line, col), allexport = x->allexport;
	size_t floor = x->fn_floor, nfns = x->nfns;
	struct plist prefix = {0};
	char *name0;

	x->status = -1;
	if (fi < 0)
		return;
	mcinit_sh_outer_prefix(x, w, k, &prefix);
	mcinit_sh_frame_push(x, 1);
	child_env(x, pre, npre);
	mcinit_sh_set_positional(x, w, f + 1);
	mcinit_sh_child_source(x, &w->v[f]);
	x->allexport = 0;
	name0 = x->name0;
	x->name0 = mcinit_sh_ps_text(&w->v[f]);
	read_file(x, fi, &prefix, line, col, "script");
	free(x->name0);
	x->name0 = name0;
	x->allexport = allexport;
	mcinit_sh_frame_pop(x);
	while (x->nfns > nfns)
		free(x->fns[--x->nfns].name);
	x->fn_floor = floor;
	x->status = -1;
	mcinit_sh_pl_free(&prefix);
}

/* A simple command bash runs (w its words after expansion, pre its prefix
 * assignments, guard from mcinit_sh_guard_of): what the scanner follows of it. */
static void
run_simple(struct sx *x, struct plist *w, const struct saved *pre, size_t npre, int guard)
{
	char *name = mcinit_sh_ps_text(&w->v[0]);
	const struct fn *f = mcinit_sh_ps_opaque(&w->v[0]) ? NULL : mcinit_sh_fn_find(x, name);
	int unsure = x->cap != NULL && (guard < 0 || mcinit_sh_uncertain(x)), v;
	size_t at, file;

	if (unsure && (f != NULL || mcinit_sh_in_list(name, " echo printf pwd ")))
		mcinit_sh_taint(x, "what it prints depends on a test mcinit cannot decide");
	else if (f != NULL)
		mcinit_sh_call_function(x, f, w);
	else if (mcinit_sh_in_list(name, " eval "))
		mcinit_sh_do_eval(x, w);
	else if (x->cap == NULL && mcinit_sh_shell_c(w, &at))
		mcinit_sh_do_shell_c(x, w, at);
	else if (mcinit_sh_in_list(name, " source . ") && w->n > 1)
		do_source(x, w);
	else if (x->cap == NULL && child_script(w, &at, &file))
		do_child(x, w, at, file, pre, npre);
	else if (mcinit_sh_in_list(name, " unset "))
		mcinit_sh_do_unset(x, w), x->status = 0;
	else if (mcinit_sh_in_list(name, " set "))
		mcinit_sh_do_set(x, w);
	else if (mcinit_sh_in_list(name, " cd pwd pushd popd ") && mcinit_sh_do_dirs(x, w))
		; /* the working directory: shell-dirs.c */
	else if (mcinit_sh_in_list(name, " shift "))
		mcinit_sh_do_shift(x, w);
	else if (mcinit_sh_in_list(name, " echo printf ")) {
		if (x->cap != NULL && name[0] == 'e')
			mcinit_sh_cap_echo(x, w);
		else if (x->cap != NULL)
			mcinit_sh_cap_printf(x, w);
		x->status = 0;
	} else if (x->cap != NULL && mcinit_sh_in_list(name, " dirname ")) {
		mcinit_sh_cap_dirname(x, w);
		x->status = 0;
	} else if (mcinit_sh_in_list(name, " [ [[ test ")) {
		v = mcinit_sh_eval_test(x, w);
		x->status = v < 0 ? -1 : !v;
	} else if (mcinit_sh_in_list(name, " true : false ")) {
		x->status = name[0] == 'f';
	} else if (mcinit_sh_in_list(name, " break continue ")) {
		if (x->loops > 0 && guard == 0 && !mcinit_sh_uncertain(x))
			x->brk = name[0] == 'b' ? 1 : 2;
		x->status = 0;
	} else if (mcinit_sh_in_list(name, " local export declare typeset readonly return ")) {
		x->status = 0;
	} else if (x->cap != NULL) {
		mcinit_sh_taint(x, "it runs `%s`, a program mcinit does not run", name);
	} else {
		mcinit_sh_check_python(x, w, pre, npre);
		x->status = -1;
	}
	free(name);
}

/* `(( E ))` at the cursor, a command of its own: *v 1 (E is not 0), 0, or
 * -1 when only the run knows; E's assignment (NAME=E, NAME++ ...) is made. */
static int
arith_command(struct sx *x, int *v)
{
	struct pstr e = {0};
	int line = x->line, col = x->col, r;
	long long val = 0;
	char *t;

	mcinit_sh_adv(x);
	mcinit_sh_adv(x);
	r = mcinit_sh_cfor_text(x, &e, line, col);
	t = mcinit_sh_ps_text(&e);
	mcinit_sh_ps_free(&e);
	*v = -1;
	if (r == 0 && !x->dead && t[strspn(t, " \t")] != '\0' &&
	    mcinit_sh_arith_stmt(x, t, strlen(t), &val, line, col) == NULL)
		*v = val != 0;
	free(t);
	if (r == 0 && x->too_deep != NULL)
		return mcinit_sh_fail(x, line, col, x->too_deep);
	return r;
}

/* A word after export / declare / local: an option, or a name exported or
 * made local (`local V`). */
static void
decl_word(struct sx *x, const struct pstr *p, int *exp)
{
	char *t = mcinit_sh_ps_text(p);

	if (t[0] == '-' && strchr(t, 'x') != NULL)
		*exp = 1; /* declare -x, typeset -x */
	if (t[0] == '-' && strchr(t, 'g') != NULL)
		x->local_frame = 0; /* declare -g: global */
	if (t[0] != '-' && *exp && !x->dead)
		mcinit_sh_do_export(x, p);
	else if (t[0] != '-' && mcinit_sh_is_ident((unsigned char)t[0], 1) &&
	         strspn(t, IDENT_CHARS) == strlen(t))
		mcinit_sh_make_local(x, mcinit_sh_var_get(x, t, strlen(t)), 1);
	free(t);
}

/* A variable Slurm sets from the #SBATCH directives, known to the script
 * from its first command on, located at the directive. */
static void
slurm_set(void *ctx, const char *name, const char *value, int line, int col)
{
	struct sx *x = ctx;
	struct pstr p = {0};
	int vi = mcinit_sh_var_get(x, name, strlen(name));

	if (x->vars[vi].defined)
		return;
	for (const char *c = value; *c; c++)
		mcinit_sh_putc_at(&p, *c, 0, line, col++);
	mcinit_sh_assign_scalar(x, vi, &p, 0, line, col, 0);
	x->vars[vi].inherited = 1;
}

/* What starts with the command's first word w and runs to a closing
 * keyword: a function's definition, a `for` loop, a `{ ... }` group that
 * && or || skips.  1 read through its end, 0 not one, -1 on error. */
static int
compound(struct sx *x, const struct pstr *w, int guard)
{
	if (guard == 1 && mcinit_sh_word_is(w, " { "))
		return mcinit_sh_skip_block(x, '{') < 0 ? -1 : 1;
	if (x->dead)
		return 0;
	if (mcinit_sh_word_is(w, " for "))
		return mcinit_sh_do_for(x);
	if (mcinit_sh_word_is(w, " while until "))
		return mcinit_sh_do_while(x, mcinit_sh_word_is(w, " until "));
	return mcinit_sh_try_function(x, w);
}

int
mcinit_sh_parse_command(struct sx *x)
{
	struct plist w = {0};
	struct saved *pre = NULL;
	size_t npre = 0;
	int cmdpos = 1, decl = 0, exp = 0, ignore = 0, had_cmd = 0, cond = 0, r, vi, ret = -1;
	int guard = mcinit_sh_guard_of(x), dead, arith = -2; /* (( E )): 1, 0, -1 unknown */
	int line0 = x->line, col0 = x->col;

	x->steps += x->calls > 0 || x->loops > 0;
	if (guard == 1) { /* after `false &&`: bash does not run it */
		x->skipping++;
		mcinit_sh_set_dead(x);
	}
	x->local_frame = 0;
	for (;;) {
		struct pstr tmp = {0};
		int c;

		mcinit_sh_skip_blanks(x);
		c = mcinit_sh_peekc(x, 0);
		if (c < 0)
			break;
		if (c == '#') {
			if (!x->seen_cmd && w.n == 0 && npre == 0)
				mcinit_sh_read_sbatch(x);
			mcinit_sh_skip_comment(x);
			continue;
		}
		if (c == '\n') {
			mcinit_sh_adv(x);
			mcinit_sh_read_heredocs(x);
			break;
		}
		if (!x->seen_cmd) { /* sbatch reads no directive after this */
			x->seen_cmd = 1;
			mcinit_sbatch_env(x->sbatch, x->nsbatch, slurm_set, x);
			if (x->nsbatch > 0)
				mcinit_sh_submit_dir(x);
		}
		if ((r = mcinit_sh_try_redirect(x)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		if (cmdpos && w.n == 0 && c == '(' && mcinit_sh_peekc(x, 1) == '(') {
			if (arith_command(x, &arith) < 0)
				goto out;
			cmdpos = 0;
			continue;
		}
		if (strchr(";&|()", c)) {
			if ((c == '|' || c == '&' || c == ';') && mcinit_sh_peekc(x, 1) == c) {
				x->last_op = c;
				mcinit_sh_adv(x);
			} else if (c == ')' || c == '|') {
				x->last_op =
				    c == ')' ? ')' : '!'; /* a case pattern's end, or `|` */
			}
			mcinit_sh_adv(x);
			break;
		}
		if (cmdpos || decl) {
			if (cmdpos)
				pre = mcx_xrealloc(pre, (npre + 1) * sizeof *pre);
			r = mcinit_sh_try_assignment(x, &vi, cmdpos ? &pre[npre] : NULL);
			if (r < 0) {
				if (cmdpos)
					mcinit_sh_saved_free(&pre[npre]);
				goto out;
			}
			if (r > 0) {
				npre += cmdpos;
				if (exp)
					x->vars[vi].exported = 1;
				continue;
			}
		}
		x->kw_at = x->i;
		if (!cmdpos) { /* an argument: brace-expanded first, as bash does */
			size_t n0 = w.n;

			if (mcinit_sh_lex_words_braced(x, &w) < 0)
				goto out;
			if (mcinit_sh_too_many_words(x, &w, line0, col0, mcinit_sh_words_cmd_msg) <
			    0)
				goto out;
			if (w.n > n0 && decl)
				decl_word(x, &w.v[w.n - 1], &exp);
			continue;
		}
		if (mcinit_sh_lex_word(x, &tmp, 0, 0) < 0) {
			mcinit_sh_ps_free(&tmp);
			goto out;
		}
		if (cmdpos && w.n == 0 && (r = compound(x, &tmp, guard)) != 0) {
			mcinit_sh_ps_free(&tmp);
			ret = r < 0 ? -1 : 0;
			goto out; /* its end's command set last_op and prev_op */
		}
		if (cmdpos && (mcinit_sh_word_is(&tmp, mcinit_sh_skip_kw) ||
		               mcinit_sh_word_is(&tmp, mcinit_sh_header_kw))) {
			ignore |= mcinit_sh_word_is(&tmp, mcinit_sh_header_kw);
			cond |= mcinit_sh_on_keyword(x, &tmp);
			mcinit_sh_ps_free(&tmp);
			if (x->blk.kind == 'w' && x->blk.close_at >= 0)
				break; /* the `do` after a while loop's test: stop at it */
			continue;
		}
		cmdpos = 0;
		mcinit_sh_split_word(&tmp, &w);
		mcinit_sh_ps_free(&tmp);
		if (mcinit_sh_too_many_words(x, &w, line0, col0, mcinit_sh_words_cmd_msg) < 0)
			goto out;
		if (w.n == 1 && !decl) {
			decl = mcinit_sh_word_is(&w.v[0], mcinit_sh_decl_cmd);
			exp = mcinit_sh_word_is(&w.v[0], " export ");
			if (mcinit_sh_word_is(&w.v[0], " local declare typeset "))
				x->local_frame = mcinit_sh_local_frame(x);
		} else if (w.n > 1 && decl) {
			decl_word(x, &w.v[w.n - 1], &exp);
		}
	}
	ret = 0;
	had_cmd = w.n > 0 && !ignore;
	dead = x->dead; /* `x) cmd ;;`: the `;;` opens the next clause, not this one */
	if (cond == 2)
		mcinit_sh_open_case(x, &w);
	else if (x->nifs > 0 && x->ifs[x->nifs - 1].is_case)
		mcinit_sh_case_step(x, &x->ifs[x->nifs - 1], &w);
	else if (x->nifs > 0 && x->ifs[x->nifs - 1].awaiting > 0 && (w.n > 0 || arith >= -1))
		mcinit_sh_add_condition(x, &x->ifs[x->nifs - 1],
		                        w.n > 0 ? mcinit_sh_eval_test(x, &w) : arith);
	/* `a &&` then a newline, a comment or a keyword: a still guards */
	if (w.n > 0 || npre > 0 || x->last_op != 0)
		x->prev_op = x->last_op;
	x->last_op = 0;
	if (!had_cmd && npre > 0 && !dead)
		x->status = 0;
	if (arith >= -1 && !dead)
		x->status = arith < 0 ? -1 : !arith;
	if (!had_cmd || dead)
		goto out;
	run_simple(x, &w, pre, npre, guard);
out:
	if (guard == 1) {
		x->skipping--;
		mcinit_sh_set_dead(x);
	}
	x->local_frame = 0;
	if (had_cmd) {
		mcinit_sh_restore(x, pre, npre); /* V=1 cmd: V is back once cmd has run */
	} else {
		for (size_t k = 0; k < npre; k++)
			mcinit_sh_saved_free(&pre[k]);
	}
	free(pre);
	mcinit_sh_pl_free(&w);
	if (ret == 0 && x->too_deep != NULL) /* a bound passed where no error could be said */
		ret = mcinit_sh_fail(x, line0, col0, x->too_deep);
	return ret;
}
