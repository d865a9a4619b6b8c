/* plan.c — the job plan: load, check, derive, lay out.  See plan.h. */
#include "plan/plan.h"

#include "config/bridge.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"

/* ---- loading ---- */

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* What load_input accepts (tests/cli/complete.sh checks that its message agrees). */
const char *const mcinit_input_suffixes[] = {".json", ".yaml", ".yml", ".sh", ".bash", ".py", NULL};

static int
load_input(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
           struct mcinit_err *err)
{
	/* --bridge-recipe NAME: the recipe's literal values, first of all. */
	if (strncmp(path, "bridge-recipe:", 14) == 0) {
		mcinit_config_apply_recipe(c, path + 14, d);
		return 0;
	}
	if (ends_with(path, ".json"))
		return mcinit_config_load_json(c, path, d, err);
	if (ends_with(path, ".yaml") || ends_with(path, ".yml"))
		return mcinit_config_load_yaml(c, path, d, err);
	if (ends_with(path, ".sh") || ends_with(path, ".bash"))
		return mcinit_config_load_script(c, path, d, err);
	if (ends_with(path, ".py"))
		return mcinit_lint_python(c, path, d, err);
	return mcinit_err_at(
	    err, MCINIT_E_USAGE, path, 0, 0,
	    "unknown kind of input (expected .json, .yaml, .yml, .sh, .bash or .py, or "
	    "section.field=value)");
}

/* The Megatron-LM words, each located at its command-line index (or, for
 * words that come from no command line, at its position in the list). */
static void
apply_flags(struct mcinit_config *c, const struct mcinit_job_desc *desc, struct mcinit_diags *d)
{
	struct mcinit_loc *locs, base;
	int first = desc->megatron_flags_argv_index;
	size_t i;

	base = mcinit_config_source(c, first > 0 || desc->nmegatron_flags == 0 ? "argv" : "flags");
	if (desc->nmegatron_flags == 0)
		return;
	locs = mcx_xcalloc(desc->nmegatron_flags, sizeof *locs);
	for (i = 0; i < desc->nmegatron_flags; i++) {
		locs[i] = base;
		locs[i].line = (first > 0 ? first : 1) + (int)i;
	}
	mcinit_config_apply_flags(c, (char *const *)desc->megatron_flags, locs, NULL,
	                          desc->nmegatron_flags, d);
	free(locs);
}

/* Python sources and nothing else that describes a job (no config, script,
 * override, flag or world size): a lint request, not a job to check. */
static bool
lint_request(const struct mcinit_job_desc *desc)
{
	size_t i;

	if (desc->ninputs == 0 || desc->noverrides > 0 || desc->nmegatron_flags > 0 ||
	    desc->world_size > 0 || desc->nnodes > 0 || desc->nproc_per_node > 0)
		return false;
	for (i = 0; i < desc->ninputs; i++)
		if (!ends_with(desc->inputs[i], ".py"))
			return false;
	return true;
}

/* Only launch scripts (and .py files) describe the job, and none of the
 * `unlaunched` scripts in which no launch was found holds one. */
static bool
nothing_but_scripts(const struct mcinit_job_desc *desc, size_t unlaunched)
{
	size_t i, scripts = 0;

	if (desc->noverrides > 0 || desc->nmegatron_flags > 0 || desc->world_size > 0 ||
	    desc->nnodes > 0 || desc->nproc_per_node > 0)
		return false;
	for (i = 0; i < desc->ninputs; i++)
		if (ends_with(desc->inputs[i], ".sh") || ends_with(desc->inputs[i], ".bash"))
			scripts++;
		else if (!ends_with(desc->inputs[i], ".py"))
			return false;
	return scripts == unlaunched;
}

static int
load_all(struct mcinit_job *job, const struct mcinit_job_desc *desc, struct mcinit_err *err)
{
	size_t i;

	for (i = 0; i < desc->ninputs; i++)
		if (load_input(&job->c, desc->inputs[i], job->d, err) < 0)
			return -1;
	if (job->c.scripts_unlaunched > 0 && nothing_but_scripts(desc, job->c.scripts_unlaunched))
		job->lint_only = true; /* no job found: said once, no "required field" errors */
	if (job->lint_only)
		return 0;
	for (i = 0; i < desc->noverrides; i++)
		mcinit_config_apply_override(
		    &job->c, desc->overrides[i],
		    desc->override_argv_index ? desc->override_argv_index[i] : 0, job->d);
	apply_flags(&job->c, desc, job->d);
	mcinit_config_fill_megatron(&job->c, job->d);
	mcinit_config_bridge_aliases(&job->c);
	mcinit_config_finish(&job->c, job->d);
	mcinit_config_bridge_precision(&job->c, job->d);
	/* after Bridge's own assignments, what its training would still read */
	mcinit_config_pending_errors(&job->c, job->d);
	return 0;
}

static char **
copy_env(const char *const *envp)
{
	size_t n = 0, i;
	char **v;

	if (envp == NULL)
		return NULL;
	while (envp[n] != NULL)
		n++;
	v = mcx_xcalloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = mcx_xstrdup(envp[i]);
	return v;
}

/* A Bridge release is judged with the Megatron-Core release it pins and
 * installs, and a Megatron release with the Bridge release pinned to it:
 * naming one selects the other, unless both are named (issue 43: Bridge
 * 0.5.1 with core main's checks refused its own MoE recipes). */
static void
pair_releases(const struct mcinit_job_desc *desc, unsigned *mv, unsigned *bv)
{
	if (desc->bridge_version != NULL && desc->megatron_version == NULL) {
		const char *core = mcinit_bversion_core(*bv);

		if (core != NULL)
			(void)mcinit_mversion_parse(core, mv);
	} else if (desc->megatron_version != NULL && desc->bridge_version == NULL) {
		(void)mcinit_bversion_of_core(*mv, bv);
	}
}

/* The GPUs --gpu-memory takes by name (gpus.def): each one's memory. */
static const struct {
	const char *name;
	long long gib;
} gpus[] = {
#define MCINIT_GPU(name, gib, source) {name, gib},
#include "plan/gpus.def"
#undef MCINIT_GPU
};

/* The memory of the GPU named (gpus.def, any case), in bytes; 0 when the
 * name is not in the table. */
static long long
gpu_bytes(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof gpus / sizeof gpus[0]; i++)
		if (strcasecmp(name, gpus[i].name) == 0)
			return gpus[i].gib * 1073741824LL;
	return 0;
}

/* desc's memory_model and gpu_memory (GiB, or a GPU's name) as the checks
 * take them. */
static int
memory_opts(const struct mcinit_job_desc *desc, enum mcinit_memory_model *mem, long long *gpu,
            struct mcinit_err *err)
{
	const char *m = desc->memory_model, *g = desc->gpu_memory;
	char *end;
	long long gib = 0;
	size_t i;

	*mem = MCINIT_MEM_NONE;
	if (m != NULL && strcmp(m, "megatron") == 0)
		*mem = MCINIT_MEM_MEGATRON;
	else if (m != NULL && strcmp(m, "bridge") == 0)
		*mem = MCINIT_MEM_BRIDGE;
	else if (m != NULL && strcmp(m, "mcinit") == 0)
		*mem = MCINIT_MEM_MCINIT;
	else if (m != NULL && strcmp(m, "none") != 0) {
		mcinit_err_set(err, MCINIT_E_USAGE,
		               "memory model '%s' is not one of megatron, bridge, mcinit, none", m);
		return -1;
	}
	if (g != NULL && (*g < '0' || *g > '9')) {
		/* a GPU's name: its memory from the table */
		*gpu = gpu_bytes(g);
		if (*gpu == 0) {
			char known[256] = "";

			for (i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
				snprintf(known + strlen(known), sizeof known - strlen(known),
				         "%s%s", i > 0 ? ", " : "", gpus[i].name);
			mcinit_err_set(err, MCINIT_E_USAGE,
			               "GPU '%s' is not a number of GiB nor one of %s", g, known);
			return -1;
		}
		return 0;
	}
	if (g != NULL) {
		errno = 0;
		gib = strtoll(g, &end, 10);
		if (*g < '0' || *g > '9' || *end != '\0' || errno != 0 || gib < 1 ||
		    gib > 1LL << 20) {
			mcinit_err_set(err, MCINIT_E_USAGE,
			               "GPU memory '%s' is not a number of GiB from 1 to 1048576",
			               g);
			return -1;
		}
	}
	*gpu = gib * 1073741824LL;
	return 0;
}

struct mcinit_job *
mcinit_job_load_desc(const struct mcinit_job_desc *desc, const char *world_source,
                     struct mcinit_diags *d, struct mcinit_err *err)
{
	struct mcinit_job *job;
	unsigned mv = MCINIT_MV_MAIN, me = mcinit_mentry_default(), bv = mcinit_bversion_default();
	enum mcinit_memory_model mem;
	long long gpu;

	if (desc->megatron_version != NULL &&
	    mcinit_mversion_parse(desc->megatron_version, &mv) < 0) {
		char known[128];

		mcinit_mversion_list(~0u, known, sizeof known);
		mcinit_err_set(err, MCINIT_E_USAGE, "Megatron version '%s' is not one of %s",
		               desc->megatron_version, known);
		return NULL;
	}
	if (desc->bridge_version != NULL && mcinit_bversion_parse(desc->bridge_version, &bv) < 0) {
		char known[128];

		mcinit_err_set(err, MCINIT_E_USAGE, "Megatron-Bridge version '%s' is not one of %s",
		               desc->bridge_version, mcinit_bversion_list(known, sizeof known));
		return NULL;
	}
	pair_releases(desc, &mv, &bv);
	if (memory_opts(desc, &mem, &gpu, err) < 0)
		return NULL;
	if (desc->entry_point != NULL && mcinit_mentry_parse(desc->entry_point, &me) < 0) {
		char known[512];

		mcinit_mentry_list(MCINIT_ME_ALL, known, sizeof known);
		mcinit_err_set(err, MCINIT_E_USAGE, "entry point '%s' is not one of %s",
		               desc->entry_point, known);
		return NULL;
	}
	/* mcinit_config_init zeroes the config (~100 KB, first in the job):
	 * only the rest is zeroed here, not all of it twice */
	_Static_assert(offsetof(struct mcinit_job, c) == 0, "the config is first in a job");
	job = mcx_xmalloc(sizeof *job);
	memset(&job->dv, 0, sizeof *job - offsetof(struct mcinit_job, dv));
	mcinit_config_init(&job->c, mv);
	job->d = d;
	job->env = copy_env(desc->envp);
	job->hwloc_xml = desc->hwloc_xml ? mcx_xstrdup(desc->hwloc_xml) : NULL;
	job->opts.world_size = desc->world_size;
	if (world_source == NULL && desc->world_source != NULL)
		world_source = job->world_source = mcx_xstrdup(desc->world_source);
	job->opts.world_size_source = world_source;
	job->opts.nnodes = desc->nnodes;
	job->opts.nproc_per_node = desc->nproc_per_node;
	job->opts.bridge_defaults = desc->bridge_defaults != 0;
	job->opts.memory_model = mem;
	job->opts.gpu_memory = gpu;
	job->opts.envp = job->env;
	job->c.mentry = me;
	job->c.bversion = bv;
	job->c.mentry_fixed = desc->entry_point != NULL;
	job->c.script_args = desc->script_args ? mcx_xstrdup(desc->script_args) : NULL;
	job->c.script_launch = desc->script_launch;
	job->lint_only = lint_request(desc);
	if (load_all(job, desc, err) < 0) {
		mcinit_job_free(job);
		return NULL;
	}
	/* launch.gpu names the GPU when --gpu-memory does not: its memory */
	if (job->opts.gpu_memory == 0 && !mcinit_cfg_null(&job->c, MCINIT_F_gpu) &&
	    !job->c.invalid[MCINIT_F_gpu])
		job->opts.gpu_memory = gpu_bytes(mcinit_cfg_str(&job->c, MCINIT_F_gpu));
	if (!job->lint_only && mcinit_check(&job->c, &job->opts, &job->dv, d, err) < 0) {
		mcinit_job_free(job);
		return NULL;
	}
	return job;
}

/* ---- the rank groups ---- */

/* a·b·c divides w, without forming the product (it may overflow). */
static bool
divides(long w, long a, long b, long c)
{
	return w % a == 0 && (w / a) % b == 0 && (w / a / b) % c == 0;
}

/* The first of `fs` (MCINIT_F_COUNT-terminated) the user wrote, else the first. */
static enum mcinit_field
written(const struct mcinit_config *c, const enum mcinit_field *fs)
{
	const enum mcinit_field *f;

	for (f = fs; *f != MCINIT_F_COUNT; f++)
		if (c->origin[*f] != MCINIT_ORIG_DEFAULT)
			return *f;
	return fs[0];
}

/* The rule a failed mcinit_topo_init corresponds to, for a job the rules
 * let through (so the user still gets a coded, located diagnostic). */
static void
report_topo_error(const struct mcinit_topo_sizes *s, const struct mcinit_config *c,
                  const struct mcinit_err *err, struct mcinit_diags *d)
{
	static const enum mcinit_field dense[] = {MCINIT_F_tensor_model_parallel_size,
	                                          MCINIT_F_pipeline_model_parallel_size,
	                                          MCINIT_F_context_parallel_size, MCINIT_F_COUNT};
	static const enum mcinit_field expert[] = {
	    MCINIT_F_expert_model_parallel_size, MCINIT_F_expert_tensor_parallel_size,
	    MCINIT_F_pipeline_model_parallel_size, MCINIT_F_COUNT};
	static const enum mcinit_field mapping[] = {MCINIT_F_use_tp_pp_dp_mapping, MCINIT_F_COUNT};
	const enum mcinit_field *cands = mapping;
	const char *code = "MC034";
	enum mcinit_field at;
	struct mcinit_diag *g;
	char key[128];

	if (!divides(s->world, s->tp, s->cp, s->pp)) {
		code = "MC010";
		cands = dense;
	} else if (!divides(s->world, s->etp, s->ep, s->pp)) {
		code = "MC011";
		cands = expert;
	}
	if (mcinit_diags_has(d, code))
		return;
	at = written(c, cands);
	g = mcinit_diag_add(d, MCINIT_ERROR, code,
	                    c->origin[at] == MCINIT_ORIG_DEFAULT ? NULL : &c->loc[at], "%s",
	                    err->msg);
	mcinit_diag_key(g, mcinit_field_key(at, key, sizeof key));
	if (cands == mapping)
		mcinit_diag_hint(g, "Megatron fails this only at initialisation; drop "
		                    "use_tp_pp_dp_mapping or choose EP x ETP = TP x CP");
}

/* What the release adds to the classic grid: gtp_remat (r0.19+, from the
 * weight shards, as derived), optimizer instances, hierarchical CP, the
 * all-gather twin of dp_cp. */
static void
topo_features(struct mcinit_topo_sizes *s, const struct mcinit_derived *dv,
              const struct mcinit_config *c)
{
	const struct mcinit_value *h =
	    mcinit_cfg_val(c, MCINIT_F_hierarchical_context_parallel_sizes);
	size_t i;

	s->features = mcinit_topo_features(mcinit_mversion_name(c->mversion));
	s->gtp = (long)dv->gtp;
	s->egtp = (long)dv->egtp;
	s->dist_opt_instances =
	    (long)mcinit_cfg_int(c, MCINIT_F_num_distributed_optimizer_instances);
	s->all_gather_group = mcinit_cfg_bool(c, MCINIT_F_create_all_gather_group);
	/* More levels than mcinit_topo_init takes is reported by it. */
	s->nhcp = h->kind == MCINIT_V_LIST
	              ? (int)(h->n > MCINIT_HCP_MAX + 1 ? MCINIT_HCP_MAX + 1 : h->n)
	              : 0;
	for (i = 0; i < (size_t)s->nhcp && i < MCINIT_HCP_MAX; i++)
		s->hcp[i] = (long)h->items[i].i;
}

void
mcinit_job_topo_sizes(const struct mcinit_job *job, struct mcinit_topo_sizes *s)
{
	const struct mcinit_config *c = &job->c;

	memset(s, 0, sizeof *s);
	s->world = (long)job->dv.world_size;
	s->tp = (long)mcinit_cfg_int(c, MCINIT_F_tensor_model_parallel_size);
	s->pp = (long)mcinit_cfg_int(c, MCINIT_F_pipeline_model_parallel_size);
	s->cp = (long)mcinit_cfg_int(c, MCINIT_F_context_parallel_size);
	s->ep = (long)mcinit_cfg_int(c, MCINIT_F_expert_model_parallel_size);
	s->etp = (long)job->dv.etp;
	s->tp_pp_dp_mapping = mcinit_cfg_bool(c, MCINIT_F_use_tp_pp_dp_mapping);
	topo_features(s, &job->dv, c);
}

/* A size the groups need that a launch script computes at run time ($1):
 * said once, as a warning; true when so. */
static bool
runtime_sizes(struct mcinit_job *job)
{
	int f;

	for (f = 0; f < MCINIT_F_COUNT; f++)
		if (job->c.runtime[f] && strstr(mcinit_field_s(f, name), "parallel_size") != NULL) {
			char key[128];

			mcinit_diag_add(
			    job->d, MCINIT_WARNING, "MC009", &job->c.loc[f],
			    "%s is computed when the script runs: the rank groups were not "
			    "laid out or checked",
			    mcinit_field_key(f, key, sizeof key));
			return true;
		}
	/* a value of another type than the field's, which a Bridge dataclass
	 * keeps (config.h: pyval): unknown to the derivation of the sizes */
	for (f = 0; f < MCINIT_F_COUNT; f++)
		if (job->c.pyval[f]) {
			char key[128];

			mcinit_diag_add(
			    job->d, MCINIT_WARNING, "MC004", &job->c.loc[f],
			    "%s holds a value of another type than its own, which "
			    "mcinit cannot size the groups with: the rank groups were not "
			    "laid out or checked",
			    mcinit_field_key(f, key, sizeof key));
			return true;
		}
	return false;
}

/* 0 with the groups laid out; 1 when the sizes do not form a grid (a
 * diagnostic says why); -1 with err when the rules passed a job without the
 * derived values the grid needs (a bug). */
static int
lay_out(struct mcinit_job *job, struct mcinit_err *ierr)
{
	const struct mcinit_config *c = &job->c;
	struct mcinit_topo_sizes s = {0};
	struct mcinit_err err = {0};

	if ((!job->dv.world_ok || !job->dv.etp_ok) && runtime_sizes(job))
		return 1;
	/* the world size rests on a Slurm variable's default, which the launch
	 * note names: the run's groups are not known here */
	if (!job->dv.world_ok && c->launch_assumed)
		return 1;
	if (!job->dv.world_ok || !job->dv.etp_ok)
		return mcinit_err_set(ierr, MCINIT_E_INTERNAL,
		                      "no error reported, yet the world size or the expert "
		                      "tensor-parallel size was not derived");
	mcinit_job_topo_sizes(job, &s);
	if (mcinit_topo_init(&job->topo.t, &s, &err) < 0) {
		report_topo_error(&s, c, &err, job->d);
		return 1;
	}
	return 0;
}

static long long
cfg_int_or(const struct mcinit_config *c, enum mcinit_field f, long long dflt)
{
	return mcinit_cfg_null(c, f) ? dflt : mcinit_cfg_int(c, f);
}

/* Block placement, as torchrun and Slurm place ranks. */
static void
place(struct placement *pl, const struct mcinit_check_opts *o, const struct mcinit_config *c,
      long world)
{
	long long npn = o->nproc_per_node, nn = o->nnodes;

	pl->source = "--nproc-per-node";
	if (npn == 0) {
		npn = cfg_int_or(c, MCINIT_F_nproc_per_node, 0);
		pl->source = "launch.nproc_per_node";
	}
	if (nn == 0)
		nn = cfg_int_or(c, MCINIT_F_nnodes, 0);
	if (npn == 0 && nn > 0 && world % nn == 0) {
		npn = world / nn;
		pl->source = "world size / nnodes";
	}
	pl->npn = (long)npn;
	pl->nnodes = npn > 0 ? (long)((world + npn - 1) / npn) : 0;
}

static void
fill_topology(struct mcinit_job *job)
{
	struct mcinit_topology *t = &job->topo;
	const struct mcinit_config *c = &job->c;

	t->d = job->d;
	t->seed = mcinit_cfg_int(c, MCINIT_F_seed);
	t->dp_random_init = mcinit_cfg_bool(c, MCINIT_F_data_parallel_random_init);
	t->vpp = job->dv.vpp_ok ? job->dv.vpp : 0;
	place(&t->pl, &job->opts, c, t->t.s.world);
	t->tp_loc = c->origin[MCINIT_F_tensor_model_parallel_size] == MCINIT_ORIG_DEFAULT
	                ? NULL
	                : &c->loc[MCINIT_F_tensor_model_parallel_size];
	t->nd.external = mcinit_cfg_bool(c, MCINIT_F_external_gpu_device_mapping);
}

/* ---- the public job ---- */

struct mcinit_job *
mcinit_job_new(const struct mcinit_job_desc *desc, struct mcinit_diags *d, mcinit_error_t *perr)
{
	struct mcinit_err err = {0};
	struct mcinit_job *job = mcinit_job_load_desc(desc, NULL, d, &err);

	if (job == NULL)
		goto fail;
	if (mcinit_diags_count(d, MCINIT_ERROR) == 0 && !job->lint_only) {
		int rc = lay_out(job, &err);

		if (rc < 0) {
			mcinit_job_free(job);
			goto fail;
		}
		if (rc == 0) {
			job->laid_out = true;
			fill_topology(job);
		}
	}
	mcinit_diags_sort(d);
	return job;
fail:
	mcinit_err_export(&err, perr);
	return NULL;
}

void
mcinit_job_free(struct mcinit_job *job)
{
	size_t i;

	if (job == NULL)
		return;
	mcinit_node_destroy(&job->topo);
	mcinit_config_destroy(&job->c);
	for (i = 0; job->env != NULL && job->env[i] != NULL; i++)
		free(job->env[i]);
	free(job->env);
	free(job->hwloc_xml);
	free(job->world_source);
	free(job);
}

int
mcinit_job_valid(const struct mcinit_job *job)
{
	return mcinit_job_ok(job);
}

size_t
mcinit_job_script_launches(const struct mcinit_job *job)
{
	return job->c.script_nlaunches;
}

/*
 * The fully resolved config: defaults and repairs are already in c; a field
 * still null that Megatron derives (kv_channels, ffn_hidden_size,
 * global_batch_size, virtual_pipeline_model_parallel_size, world_size, ...)
 * takes the derived value of the same name.
 */
json_t *
mcinit_job_resolved_json(const struct mcinit_job *job)
{
	json_t *cfg = mcinit_config_to_json(&job->c), *der = mcinit_derived_to_json(&job->dv), *sec,
	       *v;
	const char *sname, *key;

	json_object_foreach(cfg, sname, sec)
	{
		if (strcmp(sname, "env_vars") == 0)
			continue;
		json_object_foreach(sec, key, v)
		{
			json_t *d = json_object_get(der, key);

			if (json_is_null(v) && d != NULL && !json_is_null(d))
				json_object_set(sec, key, d);
		}
	}
	json_decref(der);
	return cfg;
}

/* A new JSON text of j, which it releases; NULL when out of memory. */
static char *
json_text(json_t *j)
{
	char *s =
	    j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | MCINIT_JSON_REALS) : NULL;

	json_decref(j);
	return s;
}

char *
mcinit_job_config_json(const struct mcinit_job *job)
{
	return json_text(mcinit_job_resolved_json(job));
}

char *
mcinit_job_derived_json(const struct mcinit_job *job)
{
	return json_text(mcinit_derived_to_json(&job->dv));
}

void
mcinit_job_derived_print(const struct mcinit_job *job, FILE *out)
{
	mcinit_derived_print(&job->dv, out);
}

int
mcinit_job_get_int(const struct mcinit_job *job, const char *key, long long *out)
{
	const char *dot = strchr(key, '.');
	const struct mcinit_value *v;
	char sec[64];
	int f;

	if (dot == NULL || (size_t)(dot - key) >= sizeof sec)
		return -1;
	memcpy(sec, key, (size_t)(dot - key));
	sec[dot - key] = '\0';
	f = mcinit_field_lookup(sec, dot + 1);
	if (f < 0)
		return -1;
	v = mcinit_cfg_val(&job->c, f);
	if (v->kind != MCINIT_V_INT && v->kind != MCINIT_V_BOOL)
		return -1;
	*out = v->i;
	return 0;
}

/* ---- the public topology ---- */

const struct mcinit_topology *
mcinit_job_topology(const struct mcinit_job *job)
{
	return mcinit_job_ok(job) ? &job->topo : NULL;
}

int
mcinit_topology_sizes(const struct mcinit_topology *t, struct mcinit_sizes *out_)
{
	struct mcinit_sizes v = {0}, *out = &v;

	out->world = t->t.s.world;
	out->tp = t->t.s.tp;
	out->pp = t->t.s.pp;
	out->cp = t->t.s.cp;
	out->ep = t->t.s.ep;
	out->etp = t->t.s.etp;
	out->dp = t->t.dp;
	out->edp = t->t.edp;
	out->vpp = (long)t->vpp;
	out->nproc_per_node = t->pl.npn;
	out->nnodes = t->pl.nnodes;
	out->gtp = t->t.s.gtp;
	out->egtp = t->t.s.egtp;
	out->dist_opt_instances = t->t.s.dist_opt_instances;
	return mcinit_out_copy(out_, &v, sizeof v,
	                       MCINIT_OUT_END(struct mcinit_sizes, dist_opt_instances));
}

const char *
mcinit_topology_order(const struct mcinit_topology *t)
{
	return mcinit_topo_order(&t->t);
}

int
mcinit_group_kinds(void)
{
	return MCINIT_GROUP_COUNT;
}

const char *
mcinit_group_name(int kind)
{
	return kind < 0 || kind >= MCINIT_GROUP_COUNT ? NULL : mcinit_group_kind_name(kind);
}

int
mcinit_group_lookup(const char *name)
{
	return mcinit_group_kind_from_name(name);
}

int
mcinit_topology_group_of(const struct mcinit_topology *t, int kind, long rank, long *color,
                         long *key)
{
	if (kind < 0 || kind >= MCINIT_GROUP_COUNT)
		return -1;
	return mcinit_topo_group_of(&t->t, kind, rank, color, key);
}

int
mcinit_topology_group_shape(const struct mcinit_topology *t, int kind, long *ngroups, long *size)
{
	if (kind < 0 || kind >= MCINIT_GROUP_COUNT)
		return -1;
	return mcinit_topo_group_shape(&t->t, kind, ngroups, size);
}

int
mcinit_topology_group(const struct mcinit_topology *t, int kind, long index, long *members)
{
	int f;

	if (kind < 0 || kind >= MCINIT_GROUP_COUNT)
		return -1;
	/* The one group, O(its size), rather than every group of the kind. */
	f = mcinit_topo_fam_find(&t->t, kind, 0);
	return f < 0 ? -1 : mcinit_topo_fam_group(&t->t, f, index, members);
}

int
mcinit_topology_rank(const struct mcinit_topology *t, long rank, struct mcinit_rank *out_)
{
	struct mcinit_rank v = {0}, *out = &v;
	struct mcinit_coords co;
	struct mcinit_seeds sd;

	if (mcinit_topo_coords(&t->t, rank, &co) < 0)
		return -1;
	mcinit_topo_seeds_at(&co, t->seed, t->dp_random_init, &sd);
	out->rank = rank;
	out->tp = co.tp;
	out->cp = co.cp;
	out->dp = co.dp;
	out->pp = co.pp;
	out->etp = co.etp;
	out->ep = co.ep;
	out->edp = co.edp;
	out->node = t->pl.npn > 0 ? rank / t->pl.npn : -1;
	out->local_rank = t->pl.npn > 0 ? rank % t->pl.npn : -1;
	out->seed = sd.base;
	out->seed_model_parallel = sd.model_parallel;
	out->seed_expert_parallel = sd.expert_parallel;
	out->gtp = co.gtp;
	out->egtp = co.egtp;
	return mcinit_out_copy(out_, &v, sizeof v, MCINIT_OUT_END(struct mcinit_rank, egtp));
}

int
mcinit_topology_group_levels(const struct mcinit_topology *t, int kind)
{
	int f, n = 0;

	if (kind < 0 || kind >= MCINIT_GROUP_COUNT)
		return -1;
	for (f = 0; f < t->t.nfam; f++)
		n += t->t.fam[f].kind == (enum mcinit_group_kind)kind;
	return n;
}

/* The family of (kind, level), or -1. */
static int
level_fam(const struct mcinit_topology *t, int kind, int level)
{
	if (kind < 0 || kind >= MCINIT_GROUP_COUNT)
		return -1;
	return mcinit_topo_fam_find(&t->t, kind, level);
}

int
mcinit_topology_level_shape(const struct mcinit_topology *t, int kind, int level, long *ngroups,
                            long *size)
{
	int f = level_fam(t, kind, level);

	if (f < 0)
		return -1;
	*ngroups = t->t.fam[f].ngroups;
	*size = t->t.fam[f].size;
	return 0;
}

int
mcinit_topology_level_group(const struct mcinit_topology *t, int kind, int level, long index,
                            long *members)
{
	return mcinit_topo_fam_group(&t->t, level_fam(t, kind, level), index, members);
}

int
mcinit_topology_level_group_of(const struct mcinit_topology *t, int kind, int level, long rank,
                               long *color, long *key)
{
	return mcinit_topo_fam_group_of(&t->t, level_fam(t, kind, level), rank, color, key);
}

int
mcinit_topology_next_group(const struct mcinit_topology *t, struct mcinit_group_cursor *c,
                           int *kind, int *level, long *index)
{
	struct mcinit_topo_iter it;
	int f;

	/* The cursor holds the iterator's state; all zeros is its start. */
	mcinit_topo_iter_init(&it, &t->t);
	it.step = (int)c->state[0];
	it.child = (int)c->state[1] - 1;
	it.g = c->state[2];
	it.j = c->state[3];
	if (!mcinit_topo_iter_next(&it, &f, index))
		return 0;
	c->state[0] = it.step;
	c->state[1] = it.child + 1;
	c->state[2] = it.g;
	c->state[3] = it.j;
	*kind = t->t.fam[f].kind;
	*level = t->t.fam[f].level;
	return 1;
}
