/* shell-result.c — the result: the launch found, the fallback, and the public entry
 * points (mcinit_shscan and the rest of shell.h). */
#include "shell/shell-impl.h"

#include <unistd.h>

/* ---- result ---- */

struct posset { /* source positions already emitted, for the fallback */
	uint64_t *v;
	size_t cap, n;
};

static int
posset_add(struct posset *s, int line, int col)
{
	uint64_t key = ((uint64_t)(uint32_t)line << 32 | (uint32_t)col) + 1;
	size_t h;

	if (2 * (s->n + 1) > s->cap) {
		struct posset t = {mcx_xcalloc(s->cap ? 2 * s->cap : 64, sizeof(uint64_t)),
		                   s->cap ? 2 * s->cap : 64, 0};

		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k])
				posset_add(&t, (int)((s->v[k] - 1) >> 32),
				           (int)(uint32_t)(s->v[k] - 1));
		free(s->v);
		*s = t;
	}
	for (h = (key * 0x9E3779B97F4A7C15u) >> 20 & (s->cap - 1); s->v[h];
	     h = (h + 1) & (s->cap - 1))
		if (s->v[h] == key)
			return 0;
	s->v[h] = key;
	s->n++;
	return 1;
}

struct result {
	struct mcinit_shword *w;
	size_t nw, capw;
	struct mcinit_shnote *notes;
	size_t nn, capn;
	unsigned char *ev_used;
};

static void
emit_word(struct sx *x, struct result *r, const struct pstr *f)
{
	struct mcinit_shword w = {mcinit_sh_ps_text(f), 0, 0, NULL, 0, 0, 0, 0, 0, 0};

	if (f->n > 0) {
		w.line = f->v[0].line;
		w.col = f->v[0].col;
		if (f->v[0].var >= 0)
			w.var = mcx_xstrdup(x->vars[f->v[0].var].name);
	}
	if (f->n >= 2) {
		const struct pch *a = &f->v[0], *z = &f->v[f->n - 1];

		/* '99,1,0' whose quotes are characters of a variable's value */
		w.quotes = (a->c == '\'' || a->c == '"') && z->c == a->c && a->var >= 0 &&
		           (a->fl & PF_SRCQ) && (z->fl & PF_SRCQ);
	}
	for (size_t k = 0; k < f->n; k++) {
		int ev = f->v[k].ev;

		w.resplit |= (f->v[k].fl & PF_RESPLIT) != 0;
		w.opaque |= (f->v[k].fl & PF_OPAQUE) != 0;
		w.unread |= (f->v[k].fl & PF_UNREAD) != 0;
		w.args |= (f->v[k].fl & PF_ARGS) != 0;
		if (ev >= 0 && !r->ev_used[ev]) {
			r->ev_used[ev] = 1;
			mcinit_sh_note_add(&r->notes, &r->nn, &r->capn, x->ev[ev].line,
			                   x->ev[ev].col, mcx_xstrdup(x->ev[ev].msg));
		}
	}
	MCINIT_GROW(r->w, r->capw, r->nw + 1);
	r->w[r->nw++] = w;
}

/* Options of torchrun / torch.distributed.launch / deepspeed: an array of
 * these is the launcher's, not Megatron's. */
static const char launcher_flags[] =
    " nproc_per_node nproc-per-node nnodes node_rank node-rank master_addr master-addr "
    "master_port master-port rdzv_backend rdzv-backend rdzv_endpoint rdzv-endpoint rdzv_id "
    "rdzv-id rdzv_conf rdzv-conf standalone max_restarts max-restarts monitor_interval "
    "monitor-interval start_method start-method role tee redirects log_dir log-dir local_addr "
    "local-addr use_env use-env no_python no-python run_path run-path num_gpus num_nodes "
    "hostfile include exclude ";

static int
is_flag_word(const char *t)
{
	return t[0] == '-' && t[1] == '-' && mcinit_sh_is_ident((unsigned char)t[2], 1);
}

static int
is_launcher_flag(const char *t)
{
	char *name = mcx_xasprintf("%.*s", (int)strcspn(t + 2, "="), t + 2);
	int hit = mcinit_sh_in_list(name, launcher_flags);

	free(name);
	return hit;
}

/* One assignment's fields for the fallback: those from its first flag on,
 * unless that flag is a launcher's. */
static void
fallback_group(struct sx *x, struct result *r, const struct plist *f, struct posset *seen)
{
	size_t k;
	int launcher = 0;

	for (k = 0; k < f->n; k++) {
		char *t = mcinit_sh_ps_text(&f->v[k]);
		int flag = is_flag_word(t);

		launcher = flag && is_launcher_flag(t);
		free(t);
		if (flag)
			break;
	}
	if (launcher)
		return;
	for (; k < f->n; k++) {
		const struct pstr *p = &f->v[k];

		if (p->n > 0 && !posset_add(seen, p->v[0].line, p->v[0].col))
			continue;
		emit_word(x, r, p);
	}
}

static void
fallback(struct sx *x, struct result *r)
{
	struct posset seen = {0};

	if (x->groups_cut) {
		mcinit_sh_script_bound(
		    x, 0, 0,
		    "the assignments hold more than %d words: the fallback reads the "
		    "first ones; later words may be missing",
		    MCINIT_MAX_SCRIPT_WORDS);
		x->stopped_array = 1;
	}
	for (size_t g = 0; g < x->ngroups; g++) {
		struct plist fields = {0};

		if (x->groups[g].scalar)
			mcinit_sh_split_word(&x->groups[g].s, &fields);
		fallback_group(x, r, x->groups[g].scalar ? &fields : &x->groups[g].f, &seen);
		mcinit_sh_pl_free(&fields);
	}
	free(seen.v);
}

static int is_train(const struct cand *c);

static size_t
choose_candidate(struct sx *x)
{
	for (size_t c = 0; c < x->ncands; c++)
		if (is_train(&x->cands[c]))
			return c;
	return 0;
}

struct lsink {
	struct sx *x;
	struct result *r;
	struct cand *cd;
};

static void
lsink_note(void *ctx, int line, int col, char *msg)
{
	struct lsink *k = ctx;

	mcinit_sh_note_add(&k->r->notes, &k->r->nn, &k->r->capn, line, col, msg);
}

static void
lsink_env(void *ctx, const char *name, const char *value, int line, int col, int remote)
{
	struct lsink *k = ctx;

	mcinit_sh_env_push(k->cd, name, mcx_xstrdup(value), line, col, 0);
	k->cd->env[k->cd->nenv - 1].remote = remote;
}

/* A deepspeed --hostfile, found as the files the script runs are. */
static char *
lsink_read(void *ctx, const char *name, size_t *len, const char **why)
{
	struct lsink *k = ctx;
	char *path = NULL, *text;

	if (k->x->files.read == NULL) {
		*why = "is not read (no file is read for a script given as text)";
		return NULL;
	}
	text = k->x->files.read(k->x->files.ctx, name, len, &path, why);
	free(path);
	return text;
}

/* The chosen command's argv, launcher and environment. */
static void
read_launcher(struct sx *x, struct cand *cd, struct result *r, struct mcinit_shscan *out)
{
	struct mcinit_lword *lw = mcx_xcalloc(cd->py + 1, sizeof *lw);
	struct lsink k = {x, r, cd};
	struct mcinit_launch_sink sink = {&k, lsink_note, lsink_env, lsink_read};

	out->argc = cd->w.n;
	out->argv = mcx_xcalloc(cd->w.n + 1, sizeof *out->argv);
	for (size_t i = 0; i < cd->w.n; i++)
		out->argv[i] = mcinit_sh_ps_text(&cd->w.v[i]);
	for (size_t i = 0; i < cd->py; i++) {
		const struct pstr *p = &cd->w.v[i];

		lw[i].text = out->argv[i];
		lw[i].line = p->n ? p->v[0].line : 0;
		lw[i].col = p->n ? p->v[0].col : 0;
		lw[i].opaque = mcinit_sh_ps_opaque(p);
		for (size_t c = 0; c < p->n; c++)
			lw[i].assumed |= (p->v[c].fl & PF_ASSUMED) != 0;
	}
	mcinit_launch_parse(lw, cd->py, x->sbatch, x->nsbatch, &sink, &out->launch);
	free(lw);
	out->env = mcx_xcalloc(cd->nenv + 1, sizeof *out->env);
	out->nenv = cd->nenv;
	for (size_t i = 0; i < cd->nenv; i++) {
		out->env[i] = cd->env[i];
		out->env[i].name = mcx_xstrdup(cd->env[i].name);
		out->env[i].value = cd->env[i].value ? mcx_xstrdup(cd->env[i].value) : NULL;
	}
}

/* The command cd: its script, its flags, its launcher and environment. */
static void
fill_launch(struct sx *x, struct cand *cd, struct result *r, struct mcinit_shscan *out)
{
	const struct plist *p = &cd->w;
	const struct pstr *py = &p->v[cd->py];

	out->script = mcinit_sh_ps_text(py);
	out->script_line = py->n ? py->v[0].line : 0;
	out->script_col = py->n ? py->v[0].col : 0;
	for (size_t k = cd->py + 1; k < p->n; k++)
		emit_word(x, r, &p->v[k]);
	read_launcher(x, cd, r, out);
}

static int
is_train(const struct cand *c)
{
	char *t = mcinit_sh_ps_text(&c->w.v[c->py]);
	int train = strcasestr(mcinit_sh_base_name(t), "train") != NULL;

	free(t);
	return train;
}

/* The same words and environment: a loop that launches the same job. */
static int
cand_same(const struct cand *a, const struct cand *b)
{
	int same = a->hash == b->hash && a->w.n == b->w.n && a->nenv == b->nenv;

	for (size_t k = 0; k < a->w.n && same; k++) {
		char *s = mcinit_sh_ps_text(&a->w.v[k]), *t = mcinit_sh_ps_text(&b->w.v[k]);

		same = strcmp(s, t) == 0;
		free(s);
		free(t);
	}
	for (size_t k = 0; k < a->nenv && same; k++)
		same = strcmp(a->env[k].name, b->env[k].name) == 0 &&
		       (a->env[k].value == NULL) == (b->env[k].value == NULL) &&
		       (a->env[k].value == NULL || strcmp(a->env[k].value, b->env[k].value) == 0);
	return same;
}

/* The launches judged one by one: every command that runs a training
 * script (as choose_candidate tells one), identical ones once; idx gets
 * their indices. */
static size_t
pick_launches(const struct sx *x, size_t *idx)
{
	size_t n = 0, j;

	for (size_t c = 0; c < x->ncands; c++) {
		if (!is_train(&x->cands[c]))
			continue;
		for (j = 0; j < n && !cand_same(&x->cands[idx[j]], &x->cands[c]); j++)
			;
		if (j == n)
			idx[n++] = c;
	}
	return n;
}

/* Each launch as a scan of its own, with the notes about its words. */
static void
fill_launches(struct sx *x, const size_t *idx, size_t n, struct mcinit_shscan *out)
{
	out->launches = mcx_xcalloc(n, sizeof *out->launches);
	out->nlaunches = n;
	for (size_t k = 0; k < n; k++) {
		struct result r = {0};
		struct mcinit_shscan *l = &out->launches[k];

		r.ev_used = mcx_xcalloc(x->nev + 1, 1);
		fill_launch(x, &x->cands[idx[k]], &r, l);
		free(r.ev_used);
		l->words = r.w, l->nwords = r.nw;
		l->notes = r.notes, l->nnotes = r.nn;
	}
}

static void
build_result(struct sx *x, struct mcinit_shscan *out)
{
	struct result r = {0};

	r.ev_used = mcx_xcalloc(x->nev + 1, 1);
	if (x->ncands > 0) {
		size_t *idx = mcx_xcalloc(x->ncands, sizeof *idx), n = pick_launches(x, idx);
		struct cand *cd = &x->cands[n >= 2 ? idx[0] : choose_candidate(x)];

		fill_launch(x, cd, &r, out);
		if (n >= 2)
			fill_launches(x, idx, n, out);
		else if (x->ncands > 1)
			mcinit_sh_note_add(
			    &r.notes, &r.nn, &r.capn, out->script_line, out->script_col,
			    mcx_xasprintf("%zu commands run Python scripts; the flags are "
			                  "taken from the one running `%s`",
			                  x->ncands, out->script));
		free(idx);
	} else {
		mcinit_sh_note_add(
		    &r.notes, &r.nn, &r.capn, 0, 0,
		    mcx_xstrdup("no command in the script runs a *.py file; the flags are "
		                "every --flag word of its arrays and strings, in order"));
		fallback(x, &r);
	}
	for (size_t k = 0; k < x->nnotes; k++) {
		for (size_t j = 0; j < out->nlaunches; j++) { /* notes about the script */
			struct mcinit_shscan *l = &out->launches[j];

			mcinit_sh_note_add(&l->notes, &l->nnotes, &(size_t){0}, x->notes[k].line,
			                   x->notes[k].col, mcx_xstrdup(x->notes[k].msg));
			l->notes[l->nnotes - 1].warn = x->notes[k].warn;
			l->notes[l->nnotes - 1].bound = x->notes[k].bound;
		}
		mcinit_sh_note_add(&r.notes, &r.nn, &r.capn, x->notes[k].line, x->notes[k].col,
		                   x->notes[k].msg);
		r.notes[r.nn - 1].warn = x->notes[k].warn;
		r.notes[r.nn - 1].bound = x->notes[k].bound;
		x->notes[k].msg = NULL;
	}
	free(r.ev_used);
	out->words = r.w;
	out->nwords = r.nw;
	out->notes = r.notes;
	out->nnotes = r.nn;
	out->partial = x->exhausted || x->stopped || x->deep || x->stopped_array;
	for (size_t j = 0; j < out->nlaunches; j++)
		out->launches[j].partial = out->partial;
}

static void
cand_free(struct cand *c)
{
	mcinit_sh_pl_free(&c->w);
	for (size_t k = 0; k < c->nenv; k++) {
		free(c->env[k].name);
		free(c->env[k].value);
	}
	free(c->env);
}

static void
sx_free(struct sx *x)
{
	for (size_t k = 0; k < x->nvars; k++) {
		free(x->vars[k].name);
		mcinit_sh_pl_free(&x->vars[k].val);
	}
	free(x->vars);
	free(x->hash);
	for (size_t k = 0; k < x->nev; k++)
		free(x->ev[k].msg);
	free(x->ev);
	for (size_t k = 0; k < x->nnotes; k++)
		free(x->notes[k].msg);
	free(x->notes);
	for (size_t k = 0; k < x->nhd; k++)
		free(x->hd[k].delim);
	free(x->hd);
	for (size_t k = 0; k < x->ngroups; k++) {
		mcinit_sh_pl_free(&x->groups[k].f);
		mcinit_sh_ps_free(&x->groups[k].s);
	}
	free(x->groups);
	for (size_t k = 0; k < x->ncands; k++)
		cand_free(&x->cands[k]);
	free(x->cands);
	for (size_t k = 0; k < x->nifs; k++)
		free(x->ifs[k].subject);
	free(x->ifs);
	for (size_t k = 0; k < x->nsbatch; k++)
		free((char *)x->sbatch[k].text);
	free(x->sbatch);
	for (size_t k = 0; k < x->nfns; k++)
		free(x->fns[k].name);
	free(x->fns);
	while (x->nframes > 0)
		mcinit_sh_frame_pop(x);
	free(x->frames);
	mcinit_shfiles_free(&x->files);
	free(x->fstack);
	free(x->unread);
	free(x->name0);
	free(x->cwd0);
	mcinit_sh_dirs_free(x);
	for (size_t k = 0; k < x->nowned; k++)
		free(x->owned[k]);
	free(x->owned);
}

static int
check_nul(const char *text, size_t len, struct mcinit_err *err)
{
	int line, col;

	if (!mcinit_find_nul(text, len, &line, &col))
		return 0;
	return mcinit_err_at(err, MCINIT_E_PARSE, NULL, line, col, "NUL byte: not a shell script");
}

static void
sx_init(struct sx *x, const char *text, size_t len, struct mcinit_err *err)
{
	memset(x, 0, sizeof *x);
	x->s = text;
	x->len = len;
	x->line = x->col = 1;
	x->err = err;
	x->budget = x->budget_base = BUDGET_BASE;
	x->max_steps = MAX_STEPS;
	x->max_files = MAX_FILES;
	x->at = mcinit_sh_var_get(x, "@", 1);
	x->vars[x->at].defined = x->vars[x->at].is_array = 1;
}

/* The script's arguments, split as bash splits a command line (quotes,
 * escapes; a `$` is kept as the run would see it): the positional
 * parameters, each character placed where it is expanded (line 0). */
static int
read_args(struct sx *x, const char *args, struct mcinit_err *err)
{
	struct sx a;
	struct plist *dst = &x->vars[x->at].val;
	int ret = 0;

	sx_init(&a, args, strlen(args), err);
	while (ret == 0 && a.i < a.len) {
		struct pstr w = {0};

		if (mcinit_sh_is_sep(mcinit_sh_peekc(&a, 0))) {
			mcinit_sh_adv(&a);
			continue;
		}
		ret = mcinit_sh_lex_word(&a, &w, 0, 0);
		mcinit_sh_split_word(&w, dst);
		mcinit_sh_ps_free(&w);
	}
	for (size_t k = 0; k < dst->n; k++)
		for (size_t j = 0; j < dst->v[k].n; j++) {
			dst->v[k].v[j].line = dst->v[k].v[j].col = 0;
			dst->v[k].v[j].var = dst->v[k].v[j].ev = -1;
		}
	if (ret < 0 && err != NULL) {
		char msg[sizeof err->msg];

		memcpy(msg, err->msg, sizeof msg);
		mcinit_err_set(err, MCINIT_E_USAGE, "script arguments: %s", msg);
	}
	sx_free(&a);
	return ret;
}

int
mcinit_shscan_parse(const char *text, size_t len, struct mcinit_shscan *out, struct mcinit_err *err)
{
	return mcinit_shscan_parse_args(text, len, NULL, out, err);
}

int
mcinit_shscan_parse_args(const char *text, size_t len, const char *args, struct mcinit_shscan *out,
                         struct mcinit_err *err)
{
	return mcinit_shscan_parse_file(text, len, NULL, args, out, err);
}

/* Line numbers of the whole sequence (shell-follow.c) back to their files. */
static void
locate(const struct sx *x, int *file, int *line)
{
	mcinit_shfiles_locate(&x->files, *line, file, line);
}

static void
locate_scan(const struct sx *x, struct mcinit_shscan *s)
{
	struct mcinit_shlaunch *l = &s->launch;

	for (size_t k = 0; k < s->nwords; k++)
		locate(x, &s->words[k].file, &s->words[k].line);
	for (size_t k = 0; k < s->nnotes; k++)
		locate(x, &s->notes[k].file, &s->notes[k].line);
	for (size_t k = 0; k < s->nenv; k++)
		locate(x, &s->env[k].file, &s->env[k].line);
	locate(x, &l->file, &l->line);
	locate(x, &l->nnodes_file, &l->nnodes_line);
	locate(x, &l->nproc_file, &l->nproc_line);
	locate(x, &l->addr_file, &l->addr_line);
	locate(x, &l->port_file, &l->port_line);
	locate(x, &s->script_file, &s->script_line);
	s->nfiles = x->files.n;
	s->files = mcx_xcalloc(s->nfiles + 1, sizeof *s->files);
	for (size_t k = 0; k < s->nfiles; k++)
		s->files[k] = mcx_xstrdup(x->files.v[k].path);
	for (size_t k = 0; k < s->nlaunches; k++)
		locate_scan(x, &s->launches[k]);
}

int
mcinit_shscan_parse_file(const char *text, size_t len, const char *path, const char *args,
                         struct mcinit_shscan *out, struct mcinit_err *err)
{
	return mcinit_shscan_parse_with(text, len, path ? mcinit_shfollow_read_fs : NULL,
	                                (void *)path, path, args, out, err);
}

int
mcinit_shscan_parse_with(const char *text, size_t len, mcinit_shread_fn *read, void *ctx,
                         const char *name0, const char *args, struct mcinit_shscan *out,
                         struct mcinit_err *err)
{
	return mcinit_shscan_parse_limited(text, len, read, ctx, name0, args, NULL, out, err);
}

/* The caller's bounds, where given and below the tool's. */
static void
set_limits(struct sx *x, const struct mcinit_shlimits *lim)
{
	if (lim == NULL)
		return;
	if (lim->steps > 0 && lim->steps < x->max_steps)
		x->max_steps = lim->steps;
	if (lim->budget > 0 && lim->budget < x->budget_base)
		x->budget = x->budget_base = lim->budget;
	if (lim->depth > 0 && (size_t)lim->depth < x->max_files)
		x->max_files = (size_t)lim->depth;
}

int
mcinit_shscan_parse_limited(const char *text, size_t len, mcinit_shread_fn *read, void *ctx,
                            const char *name0, const char *args, const struct mcinit_shlimits *lim,
                            struct mcinit_shscan *out, struct mcinit_err *err)
{
	struct sx x;
	int ret = -1;

	memset(out, 0, sizeof *out);
	if (len > 0 && check_nul(text, len, err) < 0)
		return -1;
	sx_init(&x, text, len, err);
	set_limits(&x, lim);
	mcinit_shfiles_init(&x.files, read, ctx, text, len);
	x.name0 = name0 != NULL ? mcx_xstrdup(name0) : NULL;
	/* read from this machine's files: the working directory is this one */
	if (read == mcinit_shfollow_read_fs)
		x.cwd0 = getcwd(NULL, 0);
	mcinit_sh_dirs_init(&x, x.cwd0);
	if (args != NULL && read_args(&x, args, err) < 0)
		goto out;
	/* Without its arguments, the script is not read as run with none: the
	 * user gives them at launch, so only the run knows them. */
	x.vars[x.at].runtime = args == NULL;
	while (x.i < x.len)
		if (mcinit_sh_parse_command(&x) < 0)
			goto out;
	mcinit_sh_read_heredocs(&x);
	build_result(&x, out);
	locate_scan(&x, out);
	ret = 0;
out:
	sx_free(&x);
	return ret;
}

void
mcinit_shscan_destroy(struct mcinit_shscan *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < s->nwords; k++) {
		free(s->words[k].text);
		free(s->words[k].var);
	}
	free(s->words);
	for (size_t k = 0; k < s->nnotes; k++)
		free(s->notes[k].msg);
	free(s->notes);
	free(s->script);
	for (size_t k = 0; k < s->argc; k++)
		free(s->argv[k]);
	free(s->argv);
	for (size_t k = 0; k < s->nenv; k++) {
		free(s->env[k].name);
		free(s->env[k].value);
	}
	free(s->env);
	mcinit_launch_clear(&s->launch);
	for (size_t k = 0; k < s->nfiles; k++)
		free(s->files[k]);
	free(s->files);
	for (size_t k = 0; k < s->nlaunches; k++)
		mcinit_shscan_destroy(&s->launches[k]);
	free(s->launches);
	memset(s, 0, sizeof *s);
}
