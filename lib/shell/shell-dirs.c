/* shell-dirs.c — the working directory and the script's own path, as bash
 * has them: $PWD (the directory validate runs in, or Slurm's submission
 * directory), cd, pushd, popd, $OLDPWD, pwd in a substitution,
 * ${BASH_SOURCE[0]}, $SLURM_SUBMIT_DIR.  The working directory is the
 * variable PWD itself, so that a subshell (`$(cd DIR && pwd)`) puts it
 * back as bash's would; it is known only when the script was read from a
 * file of this machine (x->cwd_known), else it stays a value only the run
 * knows. */
#include "shell/shell-impl.h"

#include <sys/stat.h>
#include <unistd.h>

/* Sets variable name to the string value (NULL: unset), its characters
 * placed at line:col; not exported (bash exports PWD, but the job's
 * environment mcinit reports is what the script exports). */
static void
set_string(struct sx *x, const char *name, const char *value, int line, int col)
{
	int vi = mcinit_sh_var_get(x, name, strlen(name));
	struct pstr p = {0};

	if (value == NULL) {
		mcinit_sh_touch_var(x, vi);
		mcinit_sh_pl_free(&x->vars[vi].val);
		x->vars[vi].defined = x->vars[vi].is_array = 0;
		return;
	}
	for (const char *c = value; *c; c++)
		mcinit_sh_putc_at(&p, *c, PF_QUOTED, line, col);
	mcinit_sh_assign_scalar(x, vi, &p, 0, line, col, 0);
}

/* A variable's value when it is one known string, else NULL (owned). */
static char *
known_string(struct sx *x, const char *name)
{
	int vi = mcinit_sh_var_find(x, name, strlen(name));
	const struct var *v = vi >= 0 ? &x->vars[vi] : NULL;

	if (v == NULL || !v->defined || v->val.n != 1 || mcinit_sh_ps_opaque(&v->val.v[0]))
		return NULL;
	return mcinit_sh_ps_text(&v->val.v[0]);
}

/* PWD known only at run time from here on: its value is kept as written,
 * with a note that says why (the `cd` at line:col). */
static void
pwd_unknown(struct sx *x, const char *why, int line, int col)
{
	int vi = mcinit_sh_var_get(x, "PWD", 3);
	int ev = mcinit_sh_add_event(x, line, col,
	                             "the working directory %s: known only at run time", why);
	struct pstr p = {0};

	for (const char *c = "$PWD"; *c; c++)
		mcinit_sh_put(&p, (struct pch){*c, PF_OPAQUE | PF_QUOTED, line, col, -1, ev});
	mcinit_sh_assign_scalar(x, vi, &p, 0, line, col, 0);
}

/* path made absolute from dir and canonicalized as `cd -L` does: `.` and
 * empty components dropped, `..` removes the one before (owned). */
static char *
logical_path(const char *dir, const char *path)
{
	char *all = path[0] == '/' ? mcx_xstrdup(path) : mcx_xasprintf("%s/%s", dir, path);
	char *out = mcx_xcalloc(strlen(all) + 2, 1);
	size_t n = 0;

	for (char *c = all; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 2 && c[0] == '.' && c[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--; /* the slash before it */
		} else if (len > 0 && !(len == 1 && c[0] == '.')) {
			out[n++] = '/';
			memcpy(out + n, c, len);
			n += len;
		}
		c += len;
		c += *c == '/';
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	free(all);
	return out;
}

void
mcinit_sh_dirs_init(struct sx *x, const char *cwd)
{
	if (cwd != NULL) {
		x->cwd_known = 1;
		set_string(x, "PWD", cwd, 0, 0);
	}
	if (x->name0 != NULL) { /* the file being read: the script */
		int vi = mcinit_sh_var_get(x, "BASH_SOURCE", 11);
		struct pstr p = {0};

		for (const char *c = x->name0; *c; c++)
			mcinit_sh_putc_at(&p, *c, PF_QUOTED, 0, 0);
		mcinit_sh_pl_push(&x->vars[vi].val, &p);
		x->vars[vi].defined = x->vars[vi].is_array = 1;
	}
}

/* Under Slurm (the script has #SBATCH directives), the job starts in the
 * directory sbatch was run in, SLURM_SUBMIT_DIR, or in that of --chdir
 * (-D): the directory validate runs in stands for the submission one. */
void
mcinit_sh_submit_dir(struct sx *x)
{
	char *pwd = x->cwd_known ? known_string(x, "PWD") : NULL;
	int vi = mcinit_sh_var_get(x, "SLURM_SUBMIT_DIR", 16);

	if (pwd == NULL || x->vars[vi].defined) {
		free(pwd);
		return;
	}
	set_string(x, "SLURM_SUBMIT_DIR", pwd, 0, 0);
	x->vars[vi].inherited = 1;
	for (size_t k = 0; k < x->nsbatch; k++) {
		const char *t = x->sbatch[k].text, *d = NULL;

		if (strncmp(t, "--chdir=", 8) == 0)
			d = t + 8;
		else if (strncmp(t, "-D", 2) == 0 && t[2] != '\0')
			d = t + 2;
		else if ((strcmp(t, "-D") == 0 || strcmp(t, "--chdir") == 0) && k + 1 < x->nsbatch)
			d = x->sbatch[k + 1].text;
		if (d != NULL && d[0] != '\0') {
			char *dir = logical_path(pwd, d);

			set_string(x, "PWD", dir, x->sbatch[k].line, x->sbatch[k].col);
			free(dir);
		}
	}
	free(pwd);
}

/* Whether dir is a directory here: 1, 0 not, -1 mcinit cannot look (the
 * script was not read from this machine's files). */
static int
is_dir(const struct sx *x, const char *dir)
{
	struct stat st;

	if (!x->cwd_known)
		return -1;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Changes the working directory to dir (as written, placed at line:col):
 * PWD and OLDPWD as bash sets them.  The status: 0, or -1 when the
 * directory does not exist here (it may where the script runs: never an
 * error) or only the run knows the result. */
static void
change_dir(struct sx *x, const struct pstr *arg, int line, int col)
{
	char *dir = arg != NULL ? mcinit_sh_ps_text(arg) : known_string(x, "HOME");
	char *pwd = known_string(x, "PWD"), *to;

	x->status = -1;
	if (dir == NULL || (arg != NULL && mcinit_sh_ps_opaque(arg))) {
		pwd_unknown(x, "after `cd` to a directory named at run time", line, col);
		goto out;
	}
	if (dir[0] != '/' && pwd == NULL) {
		pwd_unknown(x, "after `cd` from a directory known only at run time", line, col);
		goto out;
	}
	if (dir[0] == '\0') { /* bash: `cd ""` stays */
		x->status = 0;
		goto out;
	}
	to = logical_path(pwd != NULL ? pwd : "/", dir);
	x->status = is_dir(x, to) == 1 ? 0 : -1;
	if (pwd != NULL)
		set_string(x, "OLDPWD", pwd, line, col);
	else
		set_string(x, "OLDPWD", NULL, line, col);
	set_string(x, "PWD", to, line, col);
	free(to);
out:
	free(dir);
	free(pwd);
}

/* Prints text as the command's output in a substitution (a line). */
static void
cap_line(struct sx *x, const char *text, int line, int col)
{
	for (const char *c = text; *c; c++)
		if (mcinit_sh_charge(x, 1))
			mcinit_sh_put(&x->cap->out, (struct pch){*c, 0, line, col, -1, -1});
	if (mcinit_sh_charge(x, 1))
		mcinit_sh_put(&x->cap->out, (struct pch){'\n', 0, line, col, -1, -1});
}

/* `pwd [-L|-P]` in a substitution: PWD, or with -P the directory with its
 * links resolved (read here, where the script's files are). */
static void
do_pwd(struct sx *x, const struct plist *w, int line, int col)
{
	char *pwd = known_string(x, "PWD");
	int physical = 0;

	for (size_t k = 1; k < w->n; k++) {
		char *t = mcinit_sh_ps_text(&w->v[k]);

		physical = strcmp(t, "-P") == 0 ? 1 : strcmp(t, "-L") == 0 ? 0 : physical;
		free(t);
	}
	if (physical && pwd != NULL) {
		char *real = x->cwd_known ? realpath(pwd, NULL) : NULL;

		free(pwd);
		pwd = real;
	}
	x->status = 0;
	if (pwd == NULL)
		mcinit_sh_taint(x, "it runs `pwd` in a directory known only at run time");
	else
		cap_line(x, pwd, line, col);
	free(pwd);
}

/* The directory stack of pushd and popd, innermost last. */
static void
push_dir(struct sx *x, char *dir)
{
	if (x->ndirs == sizeof x->dirs / sizeof x->dirs[0]) {
		free(x->dirs[0]);
		memmove(x->dirs, x->dirs + 1, (x->ndirs - 1) * sizeof x->dirs[0]);
		x->ndirs--;
	}
	x->dirs[x->ndirs++] = dir;
}

int
mcinit_sh_do_dirs(struct sx *x, const struct plist *w)
{
	char *name = mcinit_sh_ps_text(&w->v[0]);
	size_t k = 1;
	int line = w->v[0].n ? w->v[0].v[0].line : 0, col = w->v[0].n ? w->v[0].v[0].col : 0;
	int hit = 1;

	/* options: cd -L/-P/-e/-@, pushd/popd -n (not followed: unknown) */
	while (k < w->n && w->v[k].n > 1 && w->v[k].v[0].c == '-' &&
	       !mcinit_sh_ps_opaque(&w->v[k])) {
		char *t = mcinit_sh_ps_text(&w->v[k]);
		int end = strcmp(t, "--") == 0, opt = strspn(t + 1, "LPe@") == strlen(t + 1);

		free(t);
		if (!end && !opt)
			break;
		k++;
		if (end)
			break;
	}
	if (strcmp(name, "pwd") == 0) {
		if (x->cap != NULL)
			do_pwd(x, w, line, col);
		else
			x->status = 0;
	} else if (strcmp(name, "cd") == 0) {
		char *t = k < w->n ? mcinit_sh_ps_text(&w->v[k]) : NULL;

		if (t != NULL && strcmp(t, "-") == 0) { /* cd -: to OLDPWD, printed */
			char *old = known_string(x, "OLDPWD");
			struct pstr p = {0};

			if (old != NULL)
				for (const char *c = old; *c; c++)
					mcinit_sh_putc_at(&p, *c, PF_QUOTED, line, col);
			if (old != NULL && x->cap != NULL)
				cap_line(x, old, line, col);
			else if (x->cap != NULL)
				mcinit_sh_taint(
				    x, "it runs `cd -` to a directory known only at run time");
			if (old != NULL)
				change_dir(x, &p, line, col);
			else
				pwd_unknown(x, "after `cd -`", line, col);
			mcinit_sh_ps_free(&p);
			free(old);
		} else {
			change_dir(x, k < w->n ? &w->v[k] : NULL, line, col);
		}
		free(t);
	} else if (strcmp(name, "pushd") == 0 && k + 1 == w->n &&
	           w->v[k].v[0].c != '+') { /* pushd DIR */
		char *old = known_string(x, "PWD");

		if (x->cap != NULL)
			mcinit_sh_taint(x, "it runs `pushd`, which prints the directory stack");
		change_dir(x, &w->v[k], line, col);
		push_dir(x, old); /* NULL: a directory known only at run time */
	} else if (strcmp(name, "popd") == 0 && k == w->n && x->ndirs > 0) {
		char *to = x->dirs[--x->ndirs];

		if (x->cap != NULL)
			mcinit_sh_taint(x, "it runs `popd`, which prints the directory stack");
		if (to != NULL) {
			struct pstr p = {0};

			for (const char *c = to; *c; c++)
				mcinit_sh_putc_at(&p, *c, PF_QUOTED, line, col);
			change_dir(x, &p, line, col);
			mcinit_sh_ps_free(&p);
		} else {
			pwd_unknown(x, "after `popd`", line, col);
		}
		free(to);
	} else if (strcmp(name, "pushd") == 0 || strcmp(name, "popd") == 0) {
		if (x->cap != NULL)
			mcinit_sh_taint(x, "it runs `%s`, which prints the directory stack", name);
		pwd_unknown(x, "after this `pushd` or `popd`", line, col);
		x->status = -1;
	} else {
		hit = 0;
	}
	free(name);
	return hit;
}

/* The file a `source` reads: BASH_SOURCE gets its name (as written) in
 * front while it is read; mcinit_sh_source_end puts the caller's back. */
void
mcinit_sh_source_begin(struct sx *x, const struct pstr *name, struct var *saved)
{
	int vi = mcinit_sh_var_get(x, "BASH_SOURCE", 11);
	struct var *v = &x->vars[vi];
	struct plist l = {0};
	struct pstr p = {0};

	mcinit_sh_var_save(v, saved);
	mcinit_sh_ps_copy(&p, name);
	mcinit_sh_pl_push(&l, &p);
	for (size_t k = 0; k < v->val.n; k++) {
		mcinit_sh_ps_copy(&p, &v->val.v[k]);
		mcinit_sh_pl_push(&l, &p);
	}
	mcinit_sh_touch_var(x, vi);
	v = &x->vars[vi];
	mcinit_sh_pl_free(&v->val);
	v->val = l;
	v->defined = v->is_array = 1;
}

void
mcinit_sh_source_end(struct sx *x, struct var *saved)
{
	int vi = mcinit_sh_var_get(x, "BASH_SOURCE", 11);

	mcinit_sh_touch_var(x, vi);
	mcinit_sh_pl_free(&x->vars[vi].val);
	saved->name = x->vars[vi].name;
	x->vars[vi] = *saved;
}

/* A child shell's (`bash FILE`) BASH_SOURCE: FILE alone (its frame puts
 * the caller's back). */
void
mcinit_sh_child_source(struct sx *x, const struct pstr *name)
{
	int vi = mcinit_sh_var_get(x, "BASH_SOURCE", 11);
	struct pstr p = {0};

	mcinit_sh_touch_var(x, vi);
	mcinit_sh_pl_free(&x->vars[vi].val);
	mcinit_sh_ps_copy(&p, name);
	mcinit_sh_pl_push(&x->vars[vi].val, &p);
	x->vars[vi].defined = x->vars[vi].is_array = 1;
}

/* The name a file is opened by: a relative one after `cd` is taken from
 * the new working directory, as bash does (owned). */
char *
mcinit_sh_dirs_name(struct sx *x, const char *name)
{
	char *pwd = name[0] != '/' && x->cwd0 != NULL ? known_string(x, "PWD") : NULL;
	char *at;

	if (pwd == NULL || strcmp(pwd, x->cwd0) == 0) {
		free(pwd);
		return mcx_xstrdup(name);
	}
	at = logical_path(pwd, name);
	free(pwd);
	return at;
}

void
mcinit_sh_dirs_free(struct sx *x)
{
	while (x->ndirs > 0)
		free(x->dirs[--x->ndirs]);
}
