/* launcher.c — see launcher.h. */
#include "shell/launch-cmdline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* What one launcher has said, before the world size is worked out. */
struct facts {
	const struct mcinit_lword *nnodes, *nproc, *ntasks, *per_node, *np, *addr, *port, *endpoint;
	const struct mcinit_lword *gpus; /* srun/sbatch --gpus-per-node */
	/* sbatch's other GPU and CPU requests: --gres, -G/--gpus (the job's),
	 * --gpus-per-task, -c/--cpus-per-task */
	const struct mcinit_lword *gres, *gpus_job, *gpus_task, *cpus_task;
	/* deepspeed --hostfile, --include, --exclude */
	const struct mcinit_lword *hostfile, *include, *exclude;
	bool standalone, torch;
	const char *name; /* the launcher, for the notes */
};

/* Values glued to their option (`--nnodes=2`, `-N2`) get a word of their
 * own, at the option's place; freed at the end of the parse. */
struct scratch {
	struct mcinit_lword *v;
	size_t n;
};

struct lp {
	const struct mcinit_lword *w;
	size_t n, i;
	const struct mcinit_launch_sink *sink;
	struct mcinit_shlaunch *out;
	struct scratch *scratch;
};

static void __attribute__((format(printf, 4, 5)))
lnote(struct lp *p, int line, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (p->sink == NULL || p->sink->note == NULL)
		return;
	va_start(ap, fmt);
	msg = mcx_xvasprintf(fmt, ap);
	va_end(ap);
	p->sink->note(p->sink->ctx, line, col, msg);
}

static const char *
base(const char *s)
{
	const char *b = strrchr(s, '/');

	return b ? b + 1 : s;
}

/* Whether t is one of the space-separated words of list. */
static bool
one_of(const char *t, const char *list)
{
	size_t n = strlen(t);

	if (n == 0)
		return false;
	for (const char *p = list; (p = strstr(p, t)) != NULL; p++)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static bool
is_python(const char *t)
{
	const char *b = base(t);

	if (strncmp(b, "python", 6) != 0)
		return false;
	return strspn(b + 6, "0123456789.") == strlen(b + 6);
}

/* ---- option tables ---- */

enum launcher { L_TORCH, L_SRUN, L_MPI, L_DS };

struct opt {
	const char *names; /* spellings, space-separated; torch ones with '-' */
	int args;          /* 0 flag, 1 value, 2 two values */
	int key;
	enum launcher launcher;
};

enum {
	K_NONE,
	K_NNODES,
	K_NPROC,
	K_NTASKS,
	K_PERNODE,
	K_GPUS,
	K_NP,
	K_ADDR,
	K_PORT,
	K_ENDPOINT,
	K_ENV,
	K_STANDALONE,
	K_ENV2,
	K_GRES,
	K_GPUS_JOB,
	K_GPUS_TASK,
	K_CPUS_TASK,
	K_HOSTFILE,
	K_INCLUDE,
	K_EXCLUDE
};

/* Every launcher's options, each row saying whose (launcher-opts.def). */
static const struct opt opts[] = {
#define TORCH(names, nargs, kind) {names, nargs, kind, L_TORCH},
#define SRUN(names, nargs, kind)  {names, nargs, kind, L_SRUN},
#define MPI(names, nargs, kind)   {names, nargs, kind, L_MPI},
#define DS(names, nargs, kind)    {names, nargs, kind, L_DS},
#include "shell/launcher-opts.def"
#undef DS
#undef TORCH
#undef SRUN
#undef MPI
    {NULL, 0, 0, 0},
};

/* The option word t (its name up to '=') of launcher l; NULL when unknown. */
static const struct opt *
find_opt(enum launcher l, const char *t)
{
	bool torch = l == L_TORCH;
	size_t n = strcspn(t, "=");
	char *name = mcx_xasprintf("%.*s", (int)n, t);
	const struct opt *hit = NULL;

	if (torch && n >= 2 && name[0] == '-' && name[1] == '-') /* _ and - alike */
		for (char *q = name + 2; *q; q++)
			if (*q == '_')
				*q = '-';
	for (const struct opt *o = opts; o->names && hit == NULL; o++)
		if (o->launcher == l && one_of(name, o->names))
			hit = o;
	free(name);
	return hit;
}

/* Slurm-style short option with its value glued on (-N2): the table entry
 * for "-N" and the value's text. */
static const struct opt *
find_glued(enum launcher l, const char *t, const char **val)
{
	char name[3] = {t[0], t[1], '\0'};
	const struct opt *o;

	if (t[0] != '-' || t[1] == '-' || t[1] == '\0' || t[2] == '\0')
		return NULL;
	o = find_opt(l, name);
	if (o != NULL && o->args == 1) {
		*val = t + 2;
		return o;
	}
	return NULL;
}

static void
record(struct lp *p, struct facts *f, const struct opt *o, const struct mcinit_lword *v,
       const struct mcinit_lword *v2)
{
	switch (o->key) {
	case K_NNODES:
		f->nnodes = v;
		break;
	case K_NPROC:
		f->nproc = v;
		break;
	case K_NTASKS:
		f->ntasks = v;
		break;
	case K_PERNODE:
		f->per_node = v;
		break;
	case K_GPUS:
		f->gpus = v;
		break;
	case K_HOSTFILE:
		f->hostfile = v;
		break;
	case K_INCLUDE:
		f->include = v;
		break;
	case K_EXCLUDE:
		f->exclude = v;
		break;
	case K_GRES:
		f->gres = v;
		break;
	case K_GPUS_JOB:
		f->gpus_job = v;
		break;
	case K_GPUS_TASK:
		f->gpus_task = v;
		break;
	case K_CPUS_TASK:
		f->cpus_task = v;
		break;
	case K_NP:
		f->np = v;
		break;
	case K_ADDR:
		f->addr = v;
		break;
	case K_PORT:
		f->port = v;
		break;
	case K_ENDPOINT:
		f->endpoint = v;
		break;
	case K_ENV:
		if (p->sink && p->sink->env && strchr(v->text, '=') != NULL) {
			char *name = mcx_xasprintf("%.*s", (int)strcspn(v->text, "="), v->text);

			p->sink->env(p->sink->ctx, name, strchr(v->text, '=') + 1, v->line, v->col,
			             1);
			free(name);
		}
		break;
	case K_ENV2:
		if (p->sink && p->sink->env && v2 != NULL)
			p->sink->env(p->sink->ctx, v->text, v2->text, v->line, v->col, 1);
		break;
	default:
		break;
	}
}

static const struct mcinit_lword *
glued(struct lp *p, const struct mcinit_lword *opt, const char *text)
{
	struct scratch *sc = p->scratch;
	struct mcinit_lword *w;

	/* words point into sc->v: grow it in place only before anything is read */
	if (sc->n == 64)
		return opt;
	if (sc->v == NULL)
		sc->v = mcx_xcalloc(64, sizeof *sc->v);
	w = &sc->v[sc->n++];
	*w = *opt;
	w->text = mcx_xstrdup(text);
	return w;
}

/* Reads options of launcher l from p->i on, up to the first other word. */
static void
read_opts(struct lp *p, enum launcher l, struct facts *f)
{
	bool torch = l == L_TORCH;

	while (p->i < p->n) {
		const struct mcinit_lword *w = &p->w[p->i];
		const char *t = w->text, *val = NULL;
		const struct opt *o;

		if (t[0] != '-' || t[1] == '\0')
			return;
		p->i++;
		if (strcmp(t, "--") == 0)
			return;
		o = find_opt(l, t);
		if (o == NULL && !torch && (o = find_glued(l, t, &val)) != NULL) {
			record(p, f, o, glued(p, w, val), NULL);
			continue;
		}
		if (o == NULL) {
			/* unknown: a flag unless it carries its value */
			continue;
		}
		if (o->key == K_STANDALONE)
			f->standalone = true;
		if (o->args == 0)
			continue;
		if (strchr(t, '=') != NULL) {
			record(p, f, o, glued(p, w, strchr(t, '=') + 1), NULL);
			continue;
		}
		if (p->i >= p->n)
			return;
		if (o->args == 2 && p->i + 1 < p->n) {
			record(p, f, o, &p->w[p->i], &p->w[p->i + 1]);
			p->i += 2;
			continue;
		}
		record(p, f, o, &p->w[p->i], NULL);
		p->i++;
	}
}

/* ---- wrappers ---- */

struct wrapper {
	const char *name, *opts; /* opts: those that take a value */
	int positionals, assignments;
};

/* The commands that run the command in their arguments (wrappers.def). */
static const struct wrapper wrappers[] = {
#define WRAP(name, opts, npos, assign) {name, opts, npos, assign},
#include "shell/wrappers.def"
#undef WRAP
    {NULL, NULL, 0, 0},
};

static const struct wrapper *
find_wrapper(const char *t)
{
	const char *b = base(t);

	for (const struct wrapper *r = wrappers; r->name != NULL; r++)
		if (strcmp(r->name, b) == 0)
			return r;
	return NULL;
}

size_t
mcinit_launch_unwrap(const char *const *w, size_t n, size_t k)
{
	const struct wrapper *r = k < n ? find_wrapper(w[k]) : NULL;
	int pos = r ? r->positionals : 0;
	bool options = true;

	if (r == NULL)
		return k;
	for (k++; k < n; k++) {
		const char *t = w[k];

		if (options && strcmp(t, "--") == 0) {
			options = false;
		} else if (options && t[0] == '-' && t[1] != '\0') {
			/* a value glued on (--opt=v, -ov) or the next word */
			if (strchr(t, '=') == NULL && one_of(t, r->opts) && k + 1 < n)
				k++;
		} else if (pos > 0) {
			pos--;
		} else if (!(r->assignments && strchr(t, '=') != NULL &&
		             strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		                       "0123456789_") == strcspn(t, "="))) {
			break;
		}
	}
	return k;
}

/* ---- numbers ---- */

/* A positive integer word; 0 when not one (or not known). */
static long long
count_of(const struct mcinit_lword *w)
{
	char *end;
	long long v;

	if (w == NULL || w->opaque)
		return 0;
	errno = 0;
	v = strtoll(w->text, &end, 10);
	return errno == 0 && *end == '\0' && end != w->text && v > 0 ? v : 0;
}

/* "N", "MIN:MAX" (torchrun) or "MIN-MAX" (Slurm): *max, *min; false when
 * not of that form. */
static bool
range_of(const struct mcinit_lword *w, char sep, long long *min, long long *max)
{
	const char *s;
	struct mcinit_lword a, b;
	char *lo;
	bool ok;

	if (w == NULL || w->opaque)
		return false;
	s = strchr(w->text, sep);
	if (s == NULL) {
		*min = *max = count_of(w);
		return *max > 0;
	}
	lo = mcx_xasprintf("%.*s", (int)(s - w->text), w->text);
	a = *w;
	a.text = lo;
	b = *w;
	b.text = s + 1;
	*min = count_of(&a);
	*max = count_of(&b);
	ok = *min > 0 && *max >= *min;
	free(lo);
	return ok;
}

/* ---- the chain ---- */

static void
unknown_value(struct lp *p, const char *launcher, const char *opt, const struct mcinit_lword *w)
{
	lnote(p, w->line, w->col,
	      "%s %s `%s` is known only when the script runs; the world size is not taken from "
	      "the launcher",
	      launcher, opt, w->text);
}

static void
set_addr(struct lp *p, const struct facts *f)
{
	struct mcinit_shlaunch *o = p->out;
	const struct mcinit_lword *addr = f->addr, *port = f->port;
	char *colon = NULL;

	if (addr == NULL && f->endpoint != NULL && !f->endpoint->opaque) {
		colon = strrchr(f->endpoint->text, ':');
		if (colon != NULL) {
			char *host = mcx_xasprintf("%.*s", (int)(colon - f->endpoint->text),
			                           f->endpoint->text);

			addr = glued(p, f->endpoint, host);
			port = glued(p, f->endpoint, colon + 1);
			free(host);
		}
	}
	if (addr != NULL && !addr->opaque && o->master_addr == NULL) {
		o->master_addr = mcx_xstrdup(addr->text);
		o->addr_line = addr->line;
		o->addr_col = addr->col;
	}
	if (port != NULL && !port->opaque && count_of(port) > 0 && o->master_port == 0) {
		o->master_port = count_of(port);
		o->port_line = port->line;
		o->port_col = port->col;
	}
}

/* The world size rests on used[0..n) (the words it was worked out from):
 * when one is the default a script takes for a Slurm variable that the
 * allocation sets (NNODES=${SLURM_NNODES:-1} with no #SBATCH line), the
 * run's world is not known here: said once, and marked so that what
 * depends on it is not judged. */
static void
assumed_world(struct lp *p, const char *name, const struct mcinit_lword *const *used, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (used[k] != NULL && used[k]->assumed && p->out->world_size > 0) {
			p->out->world_assumed = 1;
			lnote(
			    p, used[k]->line, used[k]->col,
			    "%s gets `%s` from the default the script takes for a Slurm variable, "
			    "which the job's allocation sets when it runs (no #SBATCH line says "
			    "it): the world size %lld is known only then, and the checks that "
			    "depend on it are not made",
			    name, used[k]->text, p->out->world_size);
			return;
		}
}

static void
torch_world(struct lp *p, const struct facts *f, const char *name)
{
	struct mcinit_shlaunch *o = p->out;
	long long mn = 1, mx = 1, np = 1;
	struct mcx_buf src = {0};

	if (f->nnodes != NULL && !range_of(f->nnodes, ':', &mn, &mx)) {
		if (f->nnodes->opaque)
			unknown_value(p, name, "--nnodes", f->nnodes);
		else
			lnote(p, f->nnodes->line, f->nnodes->col,
			      "%s --nnodes `%s` is not N or MIN:MAX", name, f->nnodes->text);
		return;
	}
	if (f->standalone && f->nnodes == NULL)
		mn = mx = 1;
	if (f->nproc != NULL && (np = count_of(f->nproc)) == 0) {
		if (f->nproc->opaque)
			unknown_value(p, name, "--nproc_per_node", f->nproc);
		else
			lnote(
			    p, f->nproc->line, f->nproc->col,
			    "%s --nproc_per_node %s: one process per device of the machine it runs "
			    "on, not known here",
			    name, f->nproc->text);
		return;
	}
	o->nnodes = mx;
	o->nnodes_min = mn;
	o->nproc_per_node = np;
	if (f->nnodes) {
		o->nnodes_line = f->nnodes->line;
		o->nnodes_col = f->nnodes->col;
	}
	if (f->nproc) {
		o->nproc_line = f->nproc->line;
		o->nproc_col = f->nproc->col;
	}
	if (__builtin_mul_overflow(mx, np, &o->world_size))
		o->world_size = 0;
	mcx_buf_printf(&src, "%s --nnodes %s --nproc_per_node %lld", name,
	               f->nnodes ? f->nnodes->text : "1 (default)", np);
	if (f->nproc == NULL)
		mcx_buf_adds(&src, " (default)");
	o->world_size_source = mcx_xstrdup(mcx_buf_cstr(&src));
	mcx_buf_free(&src);
	if (mn < mx)
		lnote(p, f->nnodes->line, f->nnodes->col,
		      "elastic job: %s --nnodes %s starts with %lld to %lld nodes; checked at the "
		      "largest world size, %lld",
		      name, f->nnodes->text, mn, mx, o->world_size);
	assumed_world(p, name, (const struct mcinit_lword *const[]){f->nnodes, f->nproc}, 2);
}

/* srun or mpirun running the program itself: one rank per task. */
static void
task_world(struct lp *p, const struct facts *f, const struct facts *sb, const char *name)
{
	struct mcinit_shlaunch *o = p->out;
	const struct mcinit_lword *ntasks = f->np ? f->np : f->ntasks ? f->ntasks : sb->ntasks;
	const struct mcinit_lword *nodes = f->nnodes ? f->nnodes : sb->nnodes;
	const struct mcinit_lword *per = f->per_node ? f->per_node : sb->per_node;
	long long mn = 0, mx = 0, k;

	if (ntasks != NULL) {
		if ((o->world_size = count_of(ntasks)) == 0) {
			unknown_value(p, name, "tasks", ntasks);
			return;
		}
		o->world_size_source = mcx_xasprintf(
		    "%s --ntasks %s", ntasks == sb->ntasks ? "#SBATCH" : name, ntasks->text);
		assumed_world(p, name, &ntasks, 1);
		return;
	}
	if (nodes != NULL && !range_of(nodes, '-', &mn, &mx)) {
		unknown_value(p, name, "nodes", nodes);
		return;
	}
	if (per != NULL && (k = count_of(per)) == 0) {
		unknown_value(p, name, "tasks per node", per);
		return;
	}
	if (nodes == NULL && per == NULL)
		return; /* nothing said: the allocation decides */
	if (nodes == NULL) {
		lnote(p, per->line, per->col,
		      "%s: %s tasks per node, but the number of nodes is not given here", name,
		      per->text);
		return;
	}
	k = per ? count_of(per) : 1;
	o->nnodes = mx;
	o->nnodes_min = mn;
	o->nproc_per_node = k;
	o->nnodes_line = nodes->line;
	o->nnodes_col = nodes->col;
	if (__builtin_mul_overflow(mx, k, &o->world_size))
		o->world_size = 0;
	o->world_size_source = mcx_xasprintf("%s --nodes %s x %s%s",
	                                     nodes == sb->nnodes ? "#SBATCH" : name, nodes->text,
	                                     per == NULL ? "1 task per node (Slurm's default)"
	                                     : per == sb->per_node ? "#SBATCH --ntasks-per-node "
	                                                           : "--ntasks-per-node ",
	                                     per ? per->text : "");
	assumed_world(p, name, (const struct mcinit_lword *const[]){nodes, per}, 2);
}

/* ---- deepspeed ---- */

/* DeepSpeed's resource pool: hosts in order with their slots (GPUs), -1
 * when not known here. */
struct pool {
	char **name;
	long long *slots;
	size_t n;
};

static long long *
pool_find(struct pool *p, const char *name, size_t len)
{
	for (size_t k = 0; k < p->n; k++)
		if (strlen(p->name[k]) == len && strncmp(p->name[k], name, len) == 0)
			return &p->slots[k];
	return NULL;
}

static void
pool_add(struct pool *p, const char *name, size_t len, long long slots)
{
	p->name = mcx_xrealloc(p->name, (p->n + 1) * sizeof *p->name);
	p->slots = mcx_xrealloc(p->slots, (p->n + 1) * sizeof *p->slots);
	p->name[p->n] = mcx_xasprintf("%.*s", (int)len, name);
	p->slots[p->n++] = slots;
}

static void
pool_free(struct pool *p)
{
	for (size_t k = 0; k < p->n; k++)
		free(p->name[k]);
	free(p->name);
	free(p->slots);
	memset(p, 0, sizeof *p);
}

/* runner.py's _parse_hostfile: each line not blank and not a '#' comment
 * is `HOST slots=N` (more may follow); NULL, or what is wrong (DeepSpeed
 * stops there with a ValueError). */
static const char *
read_hostfile(const char *text, size_t len, struct pool *pool)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = mcx_xasprintf("%.*s", (int)((nl ? nl : end) - p), p);
		const char *h = line + strspn(line, " \t\r\f\v"), *s, *wrong = NULL;
		size_t hn = strcspn(h, " \t\r\f\v");
		long long slots = 0;

		p = nl ? nl + 1 : end;
		s = h + hn + strspn(h + hn, " \t\r\f\v");
		if (*h == '\0' || *h == '#')
			; /* blank or a comment */
		else if (s == h + hn || strncmp(s, "slots=", 6) != 0 ||
		         !(s[6] >= '0' && s[6] <= '9'))
			wrong = "a line that is not `HOST slots=N`";
		else if (pool_find(pool, h, hn) != NULL)
			wrong = "a host named twice";
		else {
			for (s += 6; *s >= '0' && *s <= '9' && slots < 1000000; s++)
				slots = slots * 10 + (*s - '0');
			pool_add(pool, h, hn, slots);
		}
		free(line);
		if (wrong != NULL)
			return wrong;
	}
	return pool->n == 0 ? "no host" : NULL;
}

/* runner.py's parse_resource_filter: --include or --exclude's
 * `NODE_SPEC[@NODE_SPEC ...]`, NODE_SPEC `NAME[:SLOT[,SLOT ...]]`, applied
 * to *pool (known: whether it lists the hosts; when not, an included host
 * is taken as written).  NULL, or why the hosts are not known here. */
static const char *
filter_pool(struct pool *pool, bool known, const char *spec, bool include)
{
	struct pool out = {0};
	const char *why = NULL;

	for (const char *p = spec; *p && why == NULL; p += *p == '@') {
		size_t n = strcspn(p, "@"), hn = strcspn(p, ":@");
		long long *have = pool_find(pool, p, hn), count = 0;

		if (known && have == NULL)
			why = "names a host that is not in the hostfile";
		else if (hn < n) /* NAME:SLOT,SLOT */
			for (const char *q = p + hn; q < p + n; q += strcspn(q + 1, ",@") + 1)
				count++;
		else
			count = have ? *have : -1;
		if (why == NULL && include)
			pool_add(&out, p, hn, count);
		else if (why == NULL && !known)
			why = "excludes from hosts that are read only when the script runs";
		else if (why == NULL)
			*have = hn < n && *have >= 0 ? *have - count : 0;
		p += n;
	}
	if (why == NULL && include) {
		pool_free(pool);
		*pool = out;
	} else {
		pool_free(&out);
	}
	return why;
}

/* deepspeed's world: the hosts of its hostfile (or this machine alone when
 * there is none), filtered by --include/--exclude, the first --num_nodes,
 * each with --num_gpus slots when given (deepspeed/launcher/runner.py). */
static void
ds_world(struct lp *p, const struct facts *f)
{
	struct mcinit_shlaunch *o = p->out;
	struct pool pool = {0};
	struct mcx_buf src = {0};
	const struct mcinit_lword *bad = NULL;
	const char *why = NULL;
	long long nodes = 0, gpus = 0, world = 0, per = -2;
	bool known = false;
	size_t n;

	if ((f->nnodes && (nodes = count_of(f->nnodes)) == 0 && (bad = f->nnodes)) ||
	    (f->nproc && (gpus = count_of(f->nproc)) == 0 && (bad = f->nproc)) ||
	    (f->include && f->include->opaque && (bad = f->include)) ||
	    (f->exclude && f->exclude->opaque && (bad = f->exclude))) {
		unknown_value(p, "deepspeed",
		              bad == f->nnodes    ? "--num_nodes"
		              : bad == f->nproc   ? "--num_gpus"
		              : bad == f->include ? "--include"
		                                  : "--exclude",
		              bad);
		return;
	}
	if (f->include != NULL && f->exclude != NULL) {
		lnote(p, f->exclude->line, f->exclude->col,
		      "deepspeed refuses --include and --exclude together");
		return;
	}
	if (f->hostfile != NULL) {
		size_t len = 0;
		char *text = NULL;

		if (f->hostfile->opaque)
			why = "is named by a value known only at run time";
		else if (p->sink == NULL || p->sink->read == NULL)
			why = "is not read here";
		else if ((text = p->sink->read(p->sink->ctx, f->hostfile->text, &len, &why)) ==
		         NULL)
			why = why ? why : "cannot be read";
		if (text != NULL) {
			const char *wrong = read_hostfile(text, len, &pool);

			free(text);
			if (wrong != NULL) {
				lnote(p, f->hostfile->line, f->hostfile->col,
				      "deepspeed --hostfile `%s` has %s: deepspeed stops there",
				      f->hostfile->text, wrong);
				pool_free(&pool);
				return;
			}
			known = true;
		} else {
			lnote(p, f->hostfile->line, f->hostfile->col,
			      "deepspeed --hostfile `%s` %s: its hosts are known only when the "
			      "script runs; the world size is not taken from the launcher unless "
			      "--num_nodes and --num_gpus say it",
			      f->hostfile->text, why);
		}
	} else if (f->include == NULL || strncmp(f->include->text, "localhost", 9) == 0) {
		/* no hostfile (/job/hostfile absent): this machine alone */
		if (nodes <= 1 && (f->include == NULL || f->include->text[9] != '@')) {
			pool_add(&pool, "localhost", 9, -1);
			known = true;
		}
	}
	if (!known && f->include == NULL && f->exclude == NULL && nodes > 0) {
		/* the hostfile the run reads: taken to have --num_nodes hosts */
		if (f->hostfile == NULL)
			lnote(p, f->nnodes->line, f->nnodes->col,
			      "deepspeed --num_nodes %lld: the hosts are those of its hostfile "
			      "(/job/hostfile when --hostfile is not given), read only when the "
			      "script runs; taken to have %lld",
			      nodes, nodes);
		for (long long k = 0; k < nodes; k++)
			pool_add(&pool, "host", 4, -1);
	} else if (f->include != NULL || f->exclude != NULL) {
		const struct mcinit_lword *spec = f->include ? f->include : f->exclude;

		if ((why = filter_pool(&pool, known, spec->text, f->include != NULL)) != NULL) {
			lnote(p, spec->line, spec->col, "deepspeed %s `%s` %s",
			      f->include ? "--include" : "--exclude", spec->text, why);
			pool_free(&pool);
			return;
		}
		for (size_t k = 0; k < pool.n; k++) /* hosts left with no slot */
			if (pool.slots[k] == 0) {
				free(pool.name[k]);
				memmove(&pool.name[k], &pool.name[k + 1],
				        (pool.n - k - 1) * sizeof *pool.name);
				memmove(&pool.slots[k], &pool.slots[k + 1],
				        (pool.n - k - 1) * sizeof *pool.slots);
				pool.n--, k--;
			}
	}
	if (pool.n == 0) {
		if (f->hostfile == NULL) /* else said above */
			lnote(p, p->out->line, p->out->col,
			      "deepspeed: its hosts are known only when the script runs; the world "
			      "size is "
			      "not taken from the launcher");
		pool_free(&pool);
		return;
	}
	n = nodes > 0 && (size_t)nodes < pool.n ? (size_t)nodes : pool.n;
	for (size_t k = 0; k < n; k++) {
		long long s = gpus > 0 ? gpus : pool.slots[k];

		if (s < 0) {
			lnote(p, p->out->line, p->out->col,
			      "deepspeed without --num_gpus: one process per GPU of each host it "
			      "runs on, not known here");
			pool_free(&pool);
			return;
		}
		world += s;
		per = per == -2 || per == s ? s : -1;
	}
	o->nnodes = o->nnodes_min = (long long)n;
	o->nproc_per_node = per > 0 ? per : 0;
	if (f->nnodes) {
		o->nnodes_line = f->nnodes->line;
		o->nnodes_col = f->nnodes->col;
	}
	if (f->nproc) {
		o->nproc_line = f->nproc->line;
		o->nproc_col = f->nproc->col;
	}
	o->world_size = world;
	mcx_buf_adds(&src, "deepspeed");
	if (f->hostfile && known)
		mcx_buf_printf(&src, " --hostfile %s", f->hostfile->text);
	if (f->include || f->exclude)
		mcx_buf_printf(&src, " --%s %s", f->include ? "include" : "exclude",
		               (f->include ? f->include : f->exclude)->text);
	if (f->nnodes)
		mcx_buf_printf(&src, " --num_nodes %s", f->nnodes->text);
	if (f->nproc)
		mcx_buf_printf(&src, " --num_gpus %s", f->nproc->text);
	if (per > 0)
		mcx_buf_printf(&src, " (%zu node%s x %lld)", n, n == 1 ? "" : "s", per);
	else
		mcx_buf_printf(&src, " (%zu nodes, %lld slots)", n, world);
	o->world_size_source = mcx_xstrdup(mcx_buf_cstr(&src));
	mcx_buf_free(&src);
	pool_free(&pool);
	assumed_world(p, "deepspeed", (const struct mcinit_lword *const[]){f->nnodes, f->nproc}, 2);
}

static void
sbatch_facts(struct lp *p, const struct mcinit_lword *sb, size_t ns, struct facts *f)
{
	struct lp q = {sb, ns, 0, p->sink, p->out, p->scratch};

	while (q.i < q.n) {
		size_t before = q.i;

		read_opts(&q, L_SRUN, f);
		if (q.i == before)
			q.i++;
	}
}

/* One variable Slurm sets from the count w says (when it says one). */
static void
slurm_var(const char *names, long long v, const struct mcinit_lword *w,
          void (*set)(void *, const char *, const char *, int, int), void *ctx)
{
	char num[24], name[64];

	if (v <= 0)
		return;
	snprintf(num, sizeof num, "%lld", v);
	for (const char *p = names; *p; p += strcspn(p, " "), p += *p == ' ') {
		snprintf(name, sizeof name, "%.*s", (int)strcspn(p, " "), p);
		set(ctx, name, num, w->line, w->col);
	}
}

/* A count of positive integer text s[0..n); 0 when not one. */
static long long
count_text(const char *s, size_t n)
{
	struct mcinit_lword w = {0};
	char *t = mcx_xasprintf("%.*s", (int)n, s);
	long long v;

	w.text = t;
	v = count_of(&w);
	free(t);
	return v;
}

/* Slurm's GPU count `[TYPE:]N` (--gpus-per-node, --gpus, --gpus-per-task):
 * N; 0 when w says none or is not known. */
static long long
gpu_count(const struct mcinit_lword *w)
{
	const char *c;

	if (w == NULL || w->opaque)
		return 0;
	c = strrchr(w->text, ':');
	return c == NULL ? count_of(w) : count_text(c + 1, strlen(c + 1));
}

/* The GPUs per node of --gres's comma-separated `NAME[:TYPE][:COUNT]`
 * (sbatch(1); `gres/gpu` as well): the count of its gpu entry, 1 when it
 * gives none; 0 when it names no GPU or is not known. */
static long long
gres_gpus(const struct mcinit_lword *w)
{
	const char *p;

	if (w == NULL || w->opaque)
		return 0;
	for (p = w->text; *p; p += *p == ',') {
		size_t n = strcspn(p, ","), name;
		const char *e = p, *c;

		if (strncmp(e, "gres/", 5) == 0)
			e += 5;
		name = strcspn(e, ":,");
		if (name == 3 && strncmp(e, "gpu", 3) == 0) {
			if (e[3] != ':')
				return 1;
			/* the count is the last field when it is a number; a
			 * type alone (gpu:h100) asks for one */
			for (c = p + n; c > e && c[-1] != ':'; c--)
				;
			if (strspn(c, "0123456789") == (size_t)(p + n - c))
				return count_text(c, (size_t)(p + n - c));
			return 1;
		}
		p += n;
	}
	return 0;
}

/* SLURM_GPUS_ON_NODE as sbatch's options give it: --gpus-per-node, else
 * the gpu count of --gres, else -G/--gpus spread evenly over -N nodes,
 * else --gpus-per-task times the tasks on a node; 0 when none says. */
static long long
gpus_on_node(const struct facts *f, const struct mcinit_lword **from)
{
	long long nodes = count_of(f->nnodes), per = count_of(f->per_node), v;

	if ((v = gpu_count(*from = f->gpus)) > 0 || (v = gres_gpus(*from = f->gres)) > 0)
		return v;
	*from = f->gpus_job;
	if ((v = gpu_count(f->gpus_job)) > 0 && nodes > 0 && v % nodes == 0)
		return v / nodes;
	*from = f->gpus_task;
	if ((v = gpu_count(f->gpus_task)) == 0)
		return 0;
	if (per == 0 && nodes > 0 && count_of(f->ntasks) % nodes == 0)
		per = count_of(f->ntasks) / nodes;
	return per > 0 ? v * per : 0;
}

void
mcinit_sbatch_env(const struct mcinit_lword *sbatch, size_t ns,
                  void (*set)(void *ctx, const char *name, const char *value, int line, int col),
                  void *ctx)
{
	struct scratch sc = {NULL, 0};
	struct mcinit_shlaunch none = {0};
	struct lp p = {sbatch, ns, 0, NULL, &none, &sc};
	struct facts f = {0};
	const struct mcinit_lword *from;
	long long nodes, per, gpus;

	sbatch_facts(&p, sbatch, ns, &f);
	nodes = count_of(f.nnodes);
	per = count_of(f.per_node);
	if (f.nnodes != NULL)
		slurm_var("SLURM_NNODES SLURM_JOB_NUM_NODES", nodes, f.nnodes, set, ctx);
	if (f.ntasks != NULL)
		slurm_var("SLURM_NTASKS SLURM_NPROCS", count_of(f.ntasks), f.ntasks, set, ctx);
	else if (f.nnodes != NULL && f.per_node != NULL) /* else sbatch leaves it unset */
		slurm_var("SLURM_NTASKS SLURM_NPROCS", nodes * per, f.nnodes, set, ctx);
	if (f.per_node != NULL)
		slurm_var("SLURM_NTASKS_PER_NODE", per, f.per_node, set, ctx);
	/* sbatch(1), OUTPUT ENVIRONMENT VARIABLES: SLURM_GPUS_PER_NODE, SLURM_GPUS
	 * and SLURM_GPUS_PER_TASK only with their option; SLURM_GPUS_ON_NODE
	 * with any GPU on the node, whichever option asked for it */
	if ((gpus = gpus_on_node(&f, &from)) > 0)
		slurm_var("SLURM_GPUS_ON_NODE", gpus, from, set, ctx);
	if (f.gpus != NULL)
		slurm_var("SLURM_GPUS_PER_NODE", count_of(f.gpus), f.gpus, set, ctx);
	if (f.gpus_job != NULL)
		slurm_var("SLURM_GPUS", count_of(f.gpus_job), f.gpus_job, set, ctx);
	if (f.gpus_task != NULL)
		slurm_var("SLURM_GPUS_PER_TASK", count_of(f.gpus_task), f.gpus_task, set, ctx);
	if (f.cpus_task != NULL)
		slurm_var("SLURM_CPUS_PER_TASK", count_of(f.cpus_task), f.cpus_task, set, ctx);
	for (size_t k = 0; k < sc.n; k++)
		free((char *)sc.v[k].text);
	free(sc.v);
}

void
mcinit_launch_parse(const struct mcinit_lword *w, size_t n, const struct mcinit_lword *sbatch,
                    size_t ns, const struct mcinit_launch_sink *sink, struct mcinit_shlaunch *out)
{
	struct scratch sc = {NULL, 0};
	struct lp p = {w, n, 0, sink, out, &sc};
	struct facts sb = {0}, task = {0}, torch = {0}, ds = {0};
	struct mcx_buf chain = {0};
	const char *task_name = NULL, *torch_name = NULL, *ds_name = NULL;
	const char **texts = mcx_xcalloc(n + 1, sizeof *texts);
	bool assumed = false; /* the note on an unknown command was given */

	memset(out, 0, sizeof *out);
	for (size_t k = 0; k < n; k++)
		texts[k] = w[k].text;
	sbatch_facts(&p, sbatch, ns, &sb);
	while (p.i < p.n) {
		const struct mcinit_lword *cw = &p.w[p.i];
		const char *b = base(cw->text);

		if (out->line == 0 &&
		    (one_of(b, "torchrun srun mpirun mpiexec deepspeed") || is_python(b))) {
			out->line = cw->line;
			out->col = cw->col;
		}
		if (strcmp(b, "torchrun") == 0) {
			p.i++;
			read_opts(&p, L_TORCH, &torch);
			torch_name = "torchrun";
			mcx_buf_printf(&chain, "%storchrun", chain.len ? " + " : "");
			break; /* the next word is the script */
		} else if (one_of(b, "srun mpirun mpiexec") && task_name == NULL) {
			p.i++;
			read_opts(&p, strcmp(b, "srun") == 0 ? L_SRUN : L_MPI, &task);
			task_name = strcmp(b, "srun") == 0 ? "srun" : b;
			mcx_buf_printf(&chain, "%s%s", chain.len ? " + " : "", task_name);
		} else if (is_python(b)) {
			p.i++;
			while (p.i < p.n && p.w[p.i].text[0] == '-' &&
			       strcmp(p.w[p.i].text, "-m") != 0)
				p.i += one_of(p.w[p.i].text, "-W -X") ? 2 : 1;
			if (p.i + 1 < p.n && strcmp(p.w[p.i].text, "-m") == 0 &&
			    one_of(p.w[p.i + 1].text,
			           "torch.distributed.run torch.distributed.launch")) {
				torch_name = strcmp(p.w[p.i + 1].text, "torch.distributed.run") == 0
				                 ? "python -m torch.distributed.run"
				                 : "python -m torch.distributed.launch";
				p.i += 2;
				read_opts(&p, L_TORCH, &torch);
				mcx_buf_printf(&chain, "%s%s", chain.len ? " + " : "", torch_name);
			}
			break;
		} else if (strcmp(b, "deepspeed") == 0) {
			p.i++;
			read_opts(&p, L_DS, &ds);
			ds_name = "deepspeed";
			mcx_buf_printf(&chain, "%sdeepspeed", chain.len ? " + " : "");
			break; /* the next word is the script */
		} else if (find_wrapper(b) != NULL && strcmp(b, "env") != 0) {
			/* numactl, nsys profile, singularity exec IMAGE ... (wrappers.def):
			 * the command after their own words */
			p.i = mcinit_launch_unwrap(texts, p.n, p.i);
		} else {
			/* env A=B, or a command mcinit does not know (a site's bind.sh)
			 * and has not read: taken to run the command in its arguments */
			if (find_wrapper(b) == NULL && !assumed && cw->text[0] != '-') {
				lnote(&p, cw->line, cw->col,
				      "`%s` is not a launcher or wrapper mcinit knows and is not "
				      "read: "
				      "taken to run the command in its arguments",
				      cw->text);
				assumed = true;
			}
			p.i++;
			if (strcmp(b, "env") == 0)
				while (p.i < p.n && strchr(p.w[p.i].text, '=') != NULL &&
				       p.w[p.i].text[0] != '-') {
					const struct mcinit_lword *e = &p.w[p.i++];
					char *name = mcx_xasprintf(
					    "%.*s", (int)strcspn(e->text, "="), e->text);

					if (sink && sink->env)
						sink->env(sink->ctx, name, strchr(e->text, '=') + 1,
						          e->line, e->col, 0);
					free(name);
				}
		}
	}
	if (chain.len > 0)
		out->launcher = mcx_xstrdup(mcx_buf_cstr(&chain));
	mcx_buf_free(&chain);
	set_addr(&p, ds_name != NULL ? &ds : &torch);
	if (ds_name != NULL)
		ds_world(&p, &ds);
	else if (torch_name != NULL)
		torch_world(&p, &torch, torch_name);
	else if (task_name != NULL)
		task_world(&p, &task, &sb, task_name);
	for (size_t k = 0; k < sc.n; k++)
		free((char *)sc.v[k].text);
	free(sc.v);
	free(texts);
}

void
mcinit_launch_clear(struct mcinit_shlaunch *l)
{
	if (l == NULL)
		return;
	free(l->launcher);
	free(l->world_size_source);
	free(l->master_addr);
	memset(l, 0, sizeof *l);
}
