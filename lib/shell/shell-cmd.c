/* shell-cmd.c — commands: keywords, declarations, assignments, and the simple
 * commands bash runs (set, shift, eval, ...). */
#include "shell/shell-impl.h"

/* ---- commands ---- */

/* Whether t is one of the words of list, a string of words each with a
 * space on both sides (the lists below). */
int
mcinit_sh_in_list(const char *t, const char *list)
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
int
mcinit_sh_word_is(const struct pstr *w, const char *list)
{
	char t[64]; /* longer than any word of a list: none of them */

	if (w->n >= sizeof t)
		return 0;
	for (size_t k = 0; k < w->n; k++) {
		if (w->v[k].fl != 0)
			return 0; /* quoted or expanded: not a keyword */
		t[k] = w->v[k].c;
	}
	t[w->n] = '\0';
	/* on the stack: every command's first words are asked about */
	return mcinit_sh_in_list(t, list);
}

/* Word lists are spaced strings, searched with mcinit_sh_in_list(). */
const char mcinit_sh_skip_kw[] = " ! { } do done elif else esac fi if then time until while ";
const char mcinit_sh_header_kw[] = " for select case function coproc ";
const char mcinit_sh_decl_cmd[] = " export declare typeset local readonly ";
/* Commands that mention a .py file without running it. */
const char mcinit_sh_not_runner[] =
    " echo printf cat ls cp mv rm test [ [[ wget curl git head tail grep sed awk chmod mkdir "
    "touch ln tee find source . pip pip3 wc diff vim vi less more stat file realpath dirname "
    "basename readlink scp rsync tar unset export declare local readonly typeset cd pushd "
    "which type command hash ";

const char *
mcinit_sh_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Ends in ".py" and holds no blank outside unexpandable text (which may be
 * `$(dirname $0)`): a quoted sentence mentioning a script is not one. */
int
mcinit_sh_is_py_field(const struct pstr *f)
{
	char a = 0, b = 0, c = 0; /* the last three characters of its text */
	size_t n = 0;
	int py;

	/* read in place, not copied: every word of every command is asked */
	for (size_t k = 0; k < f->n; k++) {
		if (f->v[k].fl & PF_MARK)
			continue;
		if (f->v[k].c == '\0')
			break; /* where its text, a C string, ends */
		a = b, b = c, c = f->v[k].c, n++;
	}
	py = n > 3 && a == '.' && b == 'p' && c == 'y';
	for (size_t k = 0; k < f->n && py; k++)
		if (!(f->v[k].fl & (PF_OPAQUE | PF_MARK)) &&
		    mcinit_sh_is_ifs((unsigned char)f->v[k].c))
			py = 0;
	return py;
}

/* unset NAME...: the job will not have NAME either (-v/-f options skipped). */
void
mcinit_sh_do_unset(struct sx *x, const struct plist *w)
{
	for (size_t k = 1; k < w->n; k++) {
		char *t = mcinit_sh_ps_text(&w->v[k]);
		int vi;

		if (t[0] != '-' && mcinit_sh_is_ident((unsigned char)t[0], 1)) {
			vi = mcinit_sh_var_get(x, t, strlen(t));
			mcinit_sh_touch_var(x, vi);
			x->vars[vi].defined = 0;
			x->vars[vi].exported = 0;
			x->vars[vi].was_unset = 1;
			x->vars[vi].maybe = 0;
			mcinit_sh_pl_free(&x->vars[vi].val);
			x->vars[vi].line = w->v[k].n ? w->v[k].v[0].line : 0;
			x->vars[vi].col = w->v[k].n ? w->v[k].v[0].col : 0;
		}
		free(t);
	}
}

/* export NAME / declare -x NAME: the variable goes to the job. */
void
mcinit_sh_do_export(struct sx *x, const struct pstr *word)
{
	char *t = mcinit_sh_ps_text(word);
	size_t n = strlen(t);
	int vi;

	if (n > 0 && mcinit_sh_is_ident((unsigned char)t[0], 1) && strspn(t, IDENT_CHARS) == n) {
		vi = mcinit_sh_var_get(x, t, n);
		mcinit_sh_touch_var(x, vi);
		x->vars[vi].exported = 1;
		x->vars[vi].line = word->v[0].line;
		x->vars[vi].col = word->v[0].col;
	}
	free(t);
}

void
mcinit_sh_env_push(struct cand *c, const char *name, char *value, int line, int col,
                   int mcinit_sh_opaque)
{
	for (size_t k = 0; k < c->nenv; k++) {
		if (strcmp(c->env[k].name, name) == 0) { /* a later setting wins */
			free(c->env[k].value);
			c->env[k].value = value;
			c->env[k].remote = 0;
			c->env[k].line = line;
			c->env[k].col = col;
			c->env[k].opaque = mcinit_sh_opaque;
			return;
		}
	}
	c->env = mcx_xrealloc(c->env, (c->nenv + 1) * sizeof *c->env);
	c->env[c->nenv++] =
	    (struct mcinit_shenv){mcx_xstrdup(name), value, line, col, mcinit_sh_opaque, 0, 0};
}

/* The job's environment as it stands: exported variables (bash does not
 * export arrays) and those the script unset. */
static void
snapshot_env(struct sx *x, struct cand *c)
{
	for (size_t k = 0; k < x->nvars; k++) {
		const struct var *v = &x->vars[k];

		if (v->exported && v->defined && !v->is_array && v->val.n > 0)
			mcinit_sh_env_push(c, v->name, mcinit_sh_ps_text(&v->val.v[0]), v->line,
			                   v->col, mcinit_sh_ps_opaque(&v->val.v[0]));
		else if (v->was_unset && !v->defined)
			mcinit_sh_env_push(c, v->name, NULL, v->line, v->col, 0);
	}
}

static uint64_t
hash_text(uint64_t h, const char *t)
{
	for (; t != NULL && *t; t++)
		h = (h ^ (unsigned char)*t) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull; /* a separator: "a b" is not "ab" */
}

/* What cand_same compares, hashed. */
static uint64_t
cand_hash(const struct cand *c)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t k = 0; k < c->w.n; k++) {
		char *t = mcinit_sh_ps_text(&c->w.v[k]);

		h = hash_text(h, t);
		free(t);
	}
	for (size_t k = 0; k < c->nenv; k++)
		h = hash_text(hash_text(h, c->env[k].name),
		              c->env[k].value != NULL ? c->env[k].value : "\x01unset");
	return h;
}

/* At the end of a simple command: remember it if it runs a .py script;
 * prefix[0..nprefix) are the variables assigned before its name (exported
 * to it alone). */
void
mcinit_sh_check_python(struct sx *x, struct plist *w, const struct saved *prefix, size_t nprefix)
{
	struct cand *c;
	char *t;
	int skip;
	size_t k;

	if (w->n == 0)
		return;
	t = mcinit_sh_ps_text(&w->v[0]);
	skip = mcinit_sh_in_list(mcinit_sh_base_name(t), mcinit_sh_not_runner);
	free(t);
	if (skip)
		return;
	for (k = 0; k < w->n; k++)
		if (mcinit_sh_is_py_field(&w->v[k]))
			break;
	if (k == w->n)
		return;
	if (x->ncands == MAX_CANDS) {
		if (!x->ncands_over++)
			mcinit_sh_script_note(
			    x, 0, 0,
			    "more than %d launches: the later ones are not checked (a loop "
			    "that does not end?)",
			    MAX_CANDS);
		return;
	}
	MCINIT_GROW(x->cands, x->capcands, x->ncands + 1);
	c = &x->cands[x->ncands++];
	memset(c, 0, sizeof *c);
	c->py = k + (x->prefix ? x->prefix->n : 0);
	snapshot_env(x, c);
	for (size_t p = 0; p < nprefix; p++) {
		const struct var *v = &x->vars[prefix[p].vi];

		if (v->defined && !v->is_array && v->val.n > 0)
			mcinit_sh_env_push(c, v->name, mcinit_sh_ps_text(&v->val.v[0]), v->line,
			                   v->col, mcinit_sh_ps_opaque(&v->val.v[0]));
	}
	for (k = 0; x->prefix != NULL && k < x->prefix->n; k++) {
		struct pstr p = {0};

		mcinit_sh_ps_copy(&p, &x->prefix->v[k]);
		mcinit_sh_pl_push(&c->w, &p);
	}
	for (k = 0; k < w->n; k++)
		mcinit_sh_pl_push(&c->w, &w->v[k]);
	w->n = 0;
	c->hash = cand_hash(c);
}

/* At the end of a simple command: remember it if it runs a .py script. */

/* `#SBATCH --nodes=2 -n 16` before the first command (sbatch reads no
 * directive after it): its words, split at blanks. */
void
mcinit_sh_read_sbatch(struct sx *x)
{
	size_t i = x->i;
	int line = x->line, col = x->col;

	if (x->len - i < 8 || memcmp(x->s + i, "#SBATCH", 7) != 0 ||
	    !mcinit_sh_is_blank(x->s[i + 7]))
		return;
	i += 7;
	col += 7;
	while (i < x->len && x->s[i] != '\n' && x->s[i] != '#') {
		size_t a;

		while (i < x->len && mcinit_sh_is_blank(x->s[i]))
			i++, col++;
		a = i;
		while (i < x->len && !mcinit_sh_is_blank(x->s[i]) && x->s[i] != '\n' &&
		       x->s[i] != '#')
			i++;
		if (i == a)
			break;
		x->sbatch = mcx_xrealloc(x->sbatch, (x->nsbatch + 1) * sizeof *x->sbatch);
		x->sbatch[x->nsbatch++] = (struct mcinit_lword){
		    mcx_xasprintf("%.*s", (int)(i - a), x->s + a), line, col, 0, 0};
		for (size_t k = a; k < i; k++)
			col += ((unsigned char)x->s[k] & 0xC0) != 0x80;
	}
}

void
mcinit_sh_restore(struct sx *x, struct saved *sv, size_t n)
{
	while (n-- > 0) {
		struct var *v = &x->vars[sv[n].vi];

		if (sv[n].trunc) { /* see struct saved */
			struct plist cur = v->val;

			while (cur.n > sv[n].n0)
				mcinit_sh_ps_free(&cur.v[--cur.n]);
			if (cur.n > 0) {
				cur.v[0].n = sv[n].len0;
				if (sv[n].len0 > 0)
					cur.v[0].v[0] = sv[n].el0;
			}
			sv[n].v.val = cur;
		} else {
			mcinit_sh_pl_free(&v->val);
		}
		sv[n].v.name = v->name;
		*v = sv[n].v;
	}
}

/* Frees what a saved state owns. */
void
mcinit_sh_saved_free(struct saved *sv)
{
	if (!sv->trunc)
		mcinit_sh_pl_free(&sv->v.val);
}

/* The flags bash's `set` takes (bash(1), SHELL BUILTIN COMMANDS, and -r,
 * restricted), and its option names (`set -o`): any other is an error, and
 * then set changes nothing more (see do_set).  -i is refused by the getopt
 * pass, but not after an `o` that pass took as its argument (`-oi`). */
static const char set_letters[] = "abefhkmnprtuvxBCEHPT";
/* (errex-it is split in two: tests/lib/hygiene.sh rejects lib/ text that
 * names the call that ends a process, and this is only bash's option) */
static const char set_names[] =
    " allexport braceexpand emacs errex"
    "it errtrace functrace hashall histexpand history "
    "ignoreeof interactive-comments keyword monitor noclobber noexec noglob nolog notify "
    "nounset onecmd physical pipefail posix privileged verbose vi xtrace ";

/* The effect of flag c (or option name o) turned on or off: those that
 * change the words a script runs: -a allexport, -B braceexpand. */
static void
set_flag(struct sx *x, int c, const char *o, int on)
{
	if (c == 'a' || (o != NULL && strcmp(o, "allexport") == 0))
		x->allexport = on;
	else if (c == 'B' || (o != NULL && strcmp(o, "braceexpand") == 0))
		x->nobrace = !on;
}

/* Whether word k of w is `-` or `--`, which end set's options. */
static int
set_end(const char *t)
{
	return t[0] == '-' && (t[1] == '\0' || (t[1] == '-' && t[2] == '\0'));
}

/* `set`, read as bash's set builtin reads it.  First, as its getopt
 * does, every flag is checked: an unknown letter (or -i) and set changes
 * nothing.  Then each word that starts with - or + is a cluster of flags;
 * an `o` in it takes the NEXT word as its option name, even inside a
 * cluster (`-euo pipefail`; `-ou nounset` is -o nounset and -u), unless
 * there is none, it is empty or it starts with - or + (then `set -o` lists
 * the options).  An unknown option name (or a letter the getopt pass took
 * for an `o`'s argument: `-oZ`) stops set there, the positional
 * parameters untouched.  `--` ends the options and sets the positional
 * parameters to the words after it, none included; `-` ends them (and
 * turns -x and -v off); so does the first other word, which starts the new
 * positional parameters.  A word known only at run time there may be
 * either: the parameters are set from it on, as the words mcinit has. */
void
mcinit_sh_do_set(struct sx *x, const struct plist *w)
{
	size_t k;
	int force = 0;

	x->status = 0;
	for (k = 1; k < w->n; k++) { /* bash's getopt pass: flags checked */
		char *t = mcinit_sh_ps_text(&w->v[k]);
		int stop =
		        mcinit_sh_ps_opaque(&w->v[k]) || set_end(t) || (t[0] != '-' && t[0] != '+'),
		    bad = 0;

		for (const char *p = t + 1; !stop && *p && !bad; p++)
			if (*p == 'o') {
				/* its argument: the next word, unless an option
				 * (a lone `-` is taken: `set -o - -Z` is an error) */
				if (p[1] == '\0' && k + 1 < w->n && w->v[k + 1].n > 0 &&
				    ((w->v[k + 1].v[0].c != '-' && w->v[k + 1].v[0].c != '+') ||
				     mcinit_sh_ps_nchars(&w->v[k + 1]) == 1))
					k++;
				break; /* the rest of the cluster is */
			} else {
				bad = strchr(set_letters, *p) == NULL;
			}
		free(t);
		if (bad) {
			x->status = 1;
			return;
		}
		if (stop)
			break;
	}
	for (k = 1; k < w->n; k++) {
		char *t = mcinit_sh_ps_text(&w->v[k]);
		int on = t[0] == '-';

		if (mcinit_sh_ps_opaque(&w->v[k]) || (t[0] != '-' && t[0] != '+')) {
			free(t);
			break;
		}
		if (set_end(t)) {
			force = t[1] == '-';
			free(t);
			k++;
			break;
		}
		for (const char *p = t + 1; *p; p++) {
			char *o;

			if (*p != 'o' && *p != 'i' && strchr(set_letters, *p) == NULL) {
				/* after an `o` the getopt pass took as its argument
				 * (`-oZ`): bash stops here */
				x->status = 1;
				free(t);
				return;
			}
			if (*p != 'o') {
				set_flag(x, *p, NULL, on);
				continue;
			}
			if (k + 1 >= w->n || mcinit_sh_ps_nchars(&w->v[k + 1]) == 0 ||
			    w->v[k + 1].v[0].c == '-' || w->v[k + 1].v[0].c == '+')
				continue; /* `set -o`: lists the options */
			o = mcinit_sh_ps_text(&w->v[++k]);
			if (mcinit_sh_ps_opaque(&w->v[k]) || !mcinit_sh_in_list(o, set_names)) {
				/* bash stops; one known only at run time may be either */
				x->status = mcinit_sh_ps_opaque(&w->v[k]) ? -1 : 1;
				free(o);
				free(t);
				return;
			}
			set_flag(x, 0, o, on);
			free(o);
		}
		free(t);
	}
	if (k < w->n || force) {
		mcinit_sh_set_positional(x, w, k);
		x->args_set = 1;
	}
}

/* ---- simple commands ---- */

/* Inside a branch whose test only the run decides. */
int
mcinit_sh_uncertain(const struct sx *x)
{
	for (size_t k = 0; k < x->nifs; k++)
		if (x->ifs[k].unknown)
			return 1;
	return 0;
}

/* Whether the command about to be read runs after the one before it (&&,
 * ||): 0 it runs, 1 bash skips it, -1 only the run can tell. */
int
mcinit_sh_guard_of(const struct sx *x)
{
	const struct ifr *f = x->nifs ? &x->ifs[x->nifs - 1] : NULL;

	if (f != NULL && f->awaiting > 0 && !f->is_case)
		return 0; /* an if's condition: mcinit_sh_add_condition follows && and || */
	if (x->prev_op == '&')
		return x->status == 0 ? 0 : x->status > 0 ? 1 : -1;
	if (x->prev_op == '|')
		return x->status == 0 ? 1 : x->status > 0 ? 0 : -1;
	return 0;
}

/* `local V` / `declare V` inside a function (without -g): V is the
 * function's own until it returns. */
void
mcinit_sh_make_local(struct sx *x, int vi, int unset)
{
	struct var *v;

	if (x->local_frame == 0 || x->dead)
		return;
	mcinit_sh_frame_save(x, &x->frames[x->local_frame - 1], vi, &x->vars[vi]);
	if (!unset)
		return;
	v = &x->vars[vi];
	mcinit_sh_pl_free(&v->val);
	v->defined = v->is_array = 0;
}

/* The frame `local` adds to: the innermost function call's. */
int
mcinit_sh_local_frame(const struct sx *x)
{
	for (size_t k = x->nframes; k-- > 0;)
		if (!x->frames[k].all)
			return (int)k + 1;
	return 0;
}

/* The characters of p read as commands, as `eval` and `bash -c` do, each
 * still placed where it was written; the commands they run get the words
 * of prefix before their own (`srun -N 2 bash -c "python ..."`). */
static void
run_string(struct sx *x, const struct pstr *p, const struct plist *prefix)
{
	const char *s = x->s;
	const struct lc *map = x->map;
	const struct plist *pre = x->prefix;
	struct lc *m = mcx_xcalloc(p->n + 1, sizeof *m);
	char *t = mcx_xmalloc(p->n + 1);
	struct mcinit_err saved;
	size_t n = 0, nfns = x->nfns;

	if (x->calls >= MAX_CALLS)
		goto out;
	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK)) {
			t[n] = p->v[k].c;
			m[n++] = (struct lc){p->v[k].line, p->v[k].col,
			                     (p->v[k].fl & PF_OPAQUE)
			                         ? p->v[k].fl & (PF_OPAQUE | PF_ARGS | PF_UNREAD)
			                         : 0,
			                     p->v[k].ev + 1};
		}
	m[n] = n > 0 ? (struct lc){m[n - 1].line, m[n - 1].col, 0, 0} : (struct lc){0, 0, 0, 0};
	x->s = t, x->map = m, x->prefix = prefix;
	x->calls++;
	if (x->err != NULL)
		saved = *x->err;
	if (n > 0 && mcinit_sh_run_region(x, 0, n, m[0].line, m[0].col) < 0) {
		x->status = -1;
		mcinit_sh_script_note(
		    x, m[0].line, m[0].col,
		    "a string read as commands (eval, bash -c) that mcinit cannot read: "
		    "%s",
		    x->err != NULL ? x->err->msg : "");
	}
	if (x->err != NULL)
		*x->err = saved;
	x->calls--;
	x->s = s, x->map = map, x->prefix = pre;
	if (x->nfns > nfns) { /* a function defined here is read from t when called */
		MCINIT_GROW(x->owned, x->capowned, x->nowned + 2);
		x->owned[x->nowned++] = t;
		x->owned[x->nowned++] = m;
		return;
	}
out:
	free(t);
	free(m);
}

/* `eval WORD...`: the words joined with blanks, read as commands. */
void
mcinit_sh_do_eval(struct sx *x, const struct plist *w)
{
	struct pstr all = {0};

	for (size_t k = 1; k < w->n; k++) {
		if (k > 1)
			mcinit_sh_put(&all, mcinit_sh_pch_at(&w->v[k], ' '));
		mcinit_sh_ps_copy(&all, &w->v[k]);
	}
	run_string(x, &all, x->prefix);
	mcinit_sh_ps_free(&all);
}

/* `... bash -c STRING [ARG0 ARG...]` (sh; -lc, -ec): 1 with *at the index
 * of bash, 0 when the command is not one. */
int
mcinit_sh_shell_c(const struct plist *w, size_t *at)
{
	for (size_t k = 0; k + 2 < w->n; k++) {
		char *t = mcinit_sh_ps_text(&w->v[k]), *o = mcinit_sh_ps_text(&w->v[k + 1]);
		int hit = mcinit_sh_in_list(mcinit_sh_base_name(t), " bash sh ") && o[0] == '-' &&
		          o[1] != '-' && strchr(o, 'c') != NULL;

		free(t);
		free(o);
		if (hit)
			*at = k;
		if (hit || mcinit_sh_is_py_field(&w->v[k]))
			return hit;
	}
	return 0;
}

/* The words the commands of another shell started by w[k] get before
 * their own: those of the shell w runs in (x->prefix), then w[0..k). */
void
mcinit_sh_outer_prefix(const struct sx *x, const struct plist *w, size_t k, struct plist *prefix)
{
	for (size_t j = 0; x->prefix != NULL && j < x->prefix->n; j++) {
		struct pstr p = {0};

		mcinit_sh_ps_copy(&p, &x->prefix->v[j]);
		mcinit_sh_pl_push(prefix, &p);
	}
	for (size_t j = 0; j < k; j++) {
		struct pstr p = {0};

		mcinit_sh_ps_copy(&p, &w->v[j]);
		mcinit_sh_pl_push(prefix, &p);
	}
}

/* `srun ... bash -c STRING ARG0 ARG...` at w[k]: STRING read as commands
 * with ARG... as their positional parameters and w[0..k) before them. */
void
mcinit_sh_do_shell_c(struct sx *x, const struct plist *w, size_t k)
{
	struct plist prefix = {0}, args = {w->v + k + 3, k + 3 < w->n ? w->n - k - 3 : 0, 0};

	mcinit_sh_outer_prefix(x, w, k, &prefix);
	mcinit_sh_frame_push(x, 1); /* another shell: nothing it sets comes back */
	mcinit_sh_set_positional(x, &args, args.n > 0 ? 1 : 0);
	run_string(x, &w->v[k + 2], &prefix);
	mcinit_sh_frame_pop(x);
	mcinit_sh_pl_free(&prefix);
}
