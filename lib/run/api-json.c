/* api-json.c — the JSON-in/JSON-out surface of mcinit.h (interface 4.2):
 * mcinit_json_validate and mcinit_json_topology.  One request object in,
 * one result object out, both text: a caller in another language (the
 * Python package's ctypes binding) needs no struct layout of this header,
 * and reads the library's own diagnostics and errors as structures, never
 * a message re-parsed.  Built on the job API (mcinit_job_new); the run
 * module is the top layer, so it may use every module below it. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/diag.h"
#include "plan/plan.h"
#include "rules/rules.h"

/* The request's string arrays, owned by the request's json_t. */
struct strv {
	const char **v;
	size_t n;
};

/* The error object of a failed call, as `validate --format=json` prints
 * one: {"code", "message", "source", "line", "column", "argv_index"}. */
static json_t *
error_json(const mcinit_error_t *e)
{
	return json_pack("{s:s,s:s,s:s?,s:o,s:o,s:o}", "code",
	                 mcinit_code_name((enum mcinit_code)e->code), "message", e->text, "source",
	                 e->source[0] ? e->source : NULL, "line",
	                 e->line ? json_integer(e->line) : json_null(), "column",
	                 e->column ? json_integer(e->column) : json_null(), "argv_index",
	                 e->argv_index >= 0 ? json_integer(e->argv_index) : json_null());
}

/* {"valid": false, "error": ..., "diagnostics": [...]}: d may be NULL. */
static json_t *
failure(const mcinit_error_t *e, struct mcinit_diags *d)
{
	json_t *r = json_object();

	json_object_set_new(r, "valid", json_false());
	json_object_set_new(r, "error", error_json(e));
	if (d) {
		mcinit_diags_sort(d);
		json_object_set_new(r, "diagnostics", mcinit_diags_to_json(d));
	} else {
		json_object_set_new(r, "diagnostics", json_array());
	}
	return r;
}

/* A usage error about the request itself (its member `key`). */
static json_t *
bad_request(const char *key, const char *why)
{
	mcinit_error_t e = {.code = MCINIT_E_USAGE, .argv_index = -1};

	snprintf(e.text, sizeof e.text, "request member \"%s\": %s", key, why);
	return failure(&e, NULL);
}

/* The text of r (NULL stays NULL, the caller reports out of memory). */
static char *
dump(json_t *r)
{
	char *s = r ? json_dumps(r, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(r);
	return s;
}

/* req[key] as an array of strings into *out (absent or null: empty).  0, or
 * -1 when it is something else. */
static int
strings(json_t *req, const char *key, struct strv *out)
{
	json_t *a = json_object_get(req, key), *x;
	size_t i;

	out->v = NULL;
	out->n = 0;
	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return -1;
	out->v = calloc(json_array_size(a) + 1, sizeof *out->v);
	if (out->v == NULL)
		return -1;
	json_array_foreach(a, i, x)
	{
		if (!json_is_string(x))
			return -1;
		out->v[out->n++] = json_string_value(x);
	}
	return 0;
}

/* req[key] as a string or NULL; -1 when it is neither. */
static int
string(json_t *req, const char *key, const char **out)
{
	json_t *s = json_object_get(req, key);

	*out = NULL;
	if (s == NULL || json_is_null(s))
		return 0;
	if (!json_is_string(s))
		return -1;
	*out = json_string_value(s);
	return 0;
}

/* req[key] as a positive integer, 0 when absent; -1 otherwise. */
static int
integer(json_t *req, const char *key, long long *out)
{
	json_t *n = json_object_get(req, key);

	*out = 0;
	if (n == NULL || json_is_null(n))
		return 0;
	if (!json_is_integer(n) || json_integer_value(n) <= 0)
		return -1;
	*out = json_integer_value(n);
	return 0;
}

/* The members a request may have: a misspelt one is an error, not ignored. */
static const char *const known[] = {
    "inputs",
    "overrides",
    "megatron_flags",
    "world_size",
    "nnodes",
    "nproc_per_node",
    "megatron_version",
    "bridge_version",
    "bridge_defaults",
    "entry_point",
    "script_args",
    "hwloc_xml",
    "env",
    "rank",
    "werror",
    "memory_model",
    "gpu_memory",
    NULL,
};

/* What a parsed request owns beside its json_t. */
struct request {
	json_t *j;
	struct strv inputs, overrides, flags, env;
	struct mcinit_job_desc desc;
	long long rank; /* topology: -1 = every rank */
	bool werror;
	char gpu_gib[24]; /* desc.gpu_memory's text */
};

static void
request_free(struct request *q)
{
	free(q->inputs.v);
	free(q->overrides.v);
	free(q->flags.v);
	free(q->env.v);
	json_decref(q->j);
}

/* Parses text into q; NULL, or the failure object to return. */
static json_t *
request_parse(const char *text, struct request *q)
{
	json_error_t je;
	const char *key;
	json_t *v;

	memset(q, 0, sizeof *q);
	q->rank = -1;
	if (text == NULL)
		return bad_request("(request)", "NULL");
	q->j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (q->j == NULL) {
		mcinit_error_t e = {.code = MCINIT_E_USAGE,
		                    .argv_index = -1,
		                    .line = je.line > 0 ? je.line : 0,
		                    .column = je.column > 0 ? je.column : 0};

		snprintf(e.text, sizeof e.text, "the request is not JSON: %s", je.text);
		return failure(&e, NULL);
	}
	if (!json_is_object(q->j))
		return bad_request("(request)", "not a JSON object");
	json_object_foreach(q->j, key, v)
	{
		size_t i;

		for (i = 0; known[i] && strcmp(known[i], key) != 0; i++)
			;
		if (known[i] == NULL)
			return bad_request(key, "not a member a request has");
	}
	if (strings(q->j, "inputs", &q->inputs) < 0)
		return bad_request("inputs", "not an array of paths");
	if (q->inputs.n == 0)
		return bad_request("inputs", "no input: give at least one path");
	if (strings(q->j, "overrides", &q->overrides) < 0)
		return bad_request("overrides", "not an array of SECTION.FIELD=VALUE strings");
	if (strings(q->j, "megatron_flags", &q->flags) < 0)
		return bad_request("megatron_flags", "not an array of strings");
	v = json_object_get(q->j, "env");
	if (v != NULL && !json_is_null(v)) {
		/* a NULL-terminated environment: the request's strings only */
		if (strings(q->j, "env", &q->env) < 0)
			return bad_request("env", "not an array of NAME=VALUE strings");
		q->desc.envp = q->env.v;
	}
	if (integer(q->j, "world_size", &q->desc.world_size) < 0)
		return bad_request("world_size", "not a positive integer");
	if (q->desc.world_size > 0)
		q->desc.world_source = "world_size"; /* the request's, not an option */
	if (integer(q->j, "nnodes", &q->desc.nnodes) < 0)
		return bad_request("nnodes", "not a positive integer");
	if (integer(q->j, "nproc_per_node", &q->desc.nproc_per_node) < 0)
		return bad_request("nproc_per_node", "not a positive integer");
	v = json_object_get(q->j, "rank");
	if (v != NULL && !json_is_null(v)) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad_request("rank", "not an integer >= 0");
		q->rank = json_integer_value(v);
	}
	if (string(q->j, "megatron_version", &q->desc.megatron_version) < 0)
		return bad_request("megatron_version", "not a string");
	if (string(q->j, "bridge_version", &q->desc.bridge_version) < 0)
		return bad_request("bridge_version", "not a string");
	if (string(q->j, "entry_point", &q->desc.entry_point) < 0)
		return bad_request("entry_point", "not a string");
	if (string(q->j, "script_args", &q->desc.script_args) < 0)
		return bad_request("script_args", "not a string");
	if (string(q->j, "hwloc_xml", &q->desc.hwloc_xml) < 0)
		return bad_request("hwloc_xml", "not a string");
	if (string(q->j, "memory_model", &q->desc.memory_model) < 0)
		return bad_request("memory_model", "not a string");
	v = json_object_get(q->j, "gpu_memory");
	if (json_is_string(v)) {
		/* a GPU's name (or GiB as text), as --gpu-memory takes it: the
		 * plan checks it against gpus.def */
		q->desc.gpu_memory = json_string_value(v);
	} else if (v != NULL && !json_is_null(v)) {
		if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
		    json_integer_value(v) > 1 << 20)
			return bad_request(
			    "gpu_memory", "not a number of GiB from 1 to 1048576 nor a GPU's name");
		snprintf(q->gpu_gib, sizeof q->gpu_gib, "%lld", (long long)json_integer_value(v));
		q->desc.gpu_memory = q->gpu_gib;
	}
	v = json_object_get(q->j, "bridge_defaults");
	if (v != NULL && !json_is_null(v)) {
		if (!json_is_boolean(v))
			return bad_request("bridge_defaults", "not true or false");
		q->desc.bridge_defaults = json_is_true(v);
	}
	v = json_object_get(q->j, "werror");
	if (v != NULL && !json_is_null(v)) {
		if (!json_is_boolean(v))
			return bad_request("werror", "not true or false");
		q->werror = json_is_true(v);
	}
	q->desc.inputs = q->inputs.v;
	q->desc.ninputs = q->inputs.n;
	q->desc.overrides = q->overrides.v;
	q->desc.noverrides = q->overrides.n;
	q->desc.megatron_flags = q->flags.v;
	q->desc.nmegatron_flags = q->flags.n;
	return NULL;
}

/* Whether the findings fail the job: errors, or warnings under werror. */
static bool
fails(const struct request *q, const struct mcinit_diags *d)
{
	return mcinit_diags_count(d, MCINIT_ERROR) > 0 ||
	       (q->werror && mcinit_diags_count(d, MCINIT_WARNING) > 0);
}

/* The request's job, for both calls: NULL when the request or its job
 * cannot be read, with *r the refusal to answer.  *d is the job's
 * diagnostics (NULL when the request itself was refused); the caller frees
 * the job, *d and q whatever happened. */
static struct mcinit_job *
request_job(const char *request, struct request *q, struct mcinit_diags **d, json_t **r)
{
	struct mcinit_job *job;
	mcinit_error_t err;

	*d = NULL;
	*r = request_parse(request, q);
	if (*r != NULL)
		return NULL;
	*d = mcinit_diags_new();
	job = mcinit_job_new(&q->desc, *d, &err);
	if (job == NULL)
		*r = failure(&err, *d);
	return job;
}

char *
mcinit_json_validate(const char *request)
{
	struct request q;
	struct mcinit_diags *d;
	json_t *r;
	struct mcinit_job *job = request_job(request, &q, &d, &r);

	if (job != NULL) {
		r = json_object();
		mcinit_diags_sort(d);
		json_object_set_new(r, "valid", json_boolean(!fails(&q, d)));
		json_object_set_new(r, "diagnostics", mcinit_diags_to_json(d));
		json_object_set_new(
		    r, "derived", job->lint_only ? json_null() : mcinit_derived_to_json(&job->dv));
		json_object_set_new(r, "launches",
		                    json_integer((json_int_t)mcinit_job_script_launches(job)));
	}
	mcinit_job_free(job);
	mcinit_diags_free(d);
	request_free(&q);
	return dump(r);
}

/* The members of every group of one kind and level, as lists of ranks. */
static json_t *
groups_json(const struct mcinit_topology *t, int kind, int level)
{
	long ngroups = 0, size = 0, g;
	json_t *a = json_array();
	long *m;

	if (mcinit_topology_level_shape(t, kind, level, &ngroups, &size) != 0 || size <= 0)
		return a;
	m = calloc((size_t)size, sizeof *m);
	if (m == NULL)
		return a;
	for (g = 0; g < ngroups; g++) {
		json_t *one = json_array();

		if (mcinit_topology_level_group(t, kind, level, g, m) == 0)
			for (long i = 0; i < size; i++)
				json_array_append_new(one, json_integer(m[i]));
		json_array_append_new(a, one);
	}
	free(m);
	return a;
}

/* One rank's coordinates, place and seeds. */
static json_t *
rank_json(const struct mcinit_topology *t, long rank)
{
	struct mcinit_rank r = {.size = sizeof r};

	if (mcinit_topology_rank(t, rank, &r) != 0)
		return json_null();
	return json_pack(
	    "{s:I,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "rank",
	    (json_int_t)r.rank, "node", r.node >= 0 ? json_integer(r.node) : json_null(),
	    "local_rank", r.local_rank >= 0 ? json_integer(r.local_rank) : json_null(), "tp",
	    (json_int_t)r.tp, "cp", (json_int_t)r.cp, "dp", (json_int_t)r.dp, "pp",
	    (json_int_t)r.pp, "ep", (json_int_t)r.ep, "etp", (json_int_t)r.etp, "edp",
	    (json_int_t)r.edp, "gtp", (json_int_t)r.gtp, "egtp", (json_int_t)r.egtp, "seed",
	    (json_int_t)r.seed, "seed_model_parallel", (json_int_t)r.seed_model_parallel,
	    "seed_expert_parallel", (json_int_t)r.seed_expert_parallel);
}

/* Ranks listed one by one at most: a larger world gives only the rank asked
 * for (the groups already name every rank). */
#define TOPOLOGY_RANKS_MAX 4096

char *
mcinit_json_topology(const char *request)
{
	struct request q;
	struct mcinit_diags *d;
	const struct mcinit_topology *t;
	struct mcinit_sizes s = {.size = sizeof s};
	json_t *r, *groups, *ranks;
	struct mcinit_job *job = request_job(request, &q, &d, &r);

	if (job == NULL)
		goto out;
	mcinit_diags_sort(d);
	t = mcinit_job_topology(job);
	r = json_object();
	json_object_set_new(r, "valid", json_boolean(t != NULL && !fails(&q, d)));
	json_object_set_new(r, "diagnostics", mcinit_diags_to_json(d));
	if (t == NULL)
		goto out;
	mcinit_topology_sizes(t, &s);
	if (q.rank >= s.world) {
		mcinit_error_t e = {.code = MCINIT_E_USAGE, .argv_index = -1};

		snprintf(e.text, sizeof e.text, "rank %lld is outside the world of %ld ranks",
		         q.rank, s.world);
		json_decref(r);
		r = failure(&e, d);
		goto out;
	}
	json_object_set_new(
	    r, "sizes",
	    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "world",
	              (json_int_t)s.world, "tp", (json_int_t)s.tp, "pp", (json_int_t)s.pp, "cp",
	              (json_int_t)s.cp, "ep", (json_int_t)s.ep, "etp", (json_int_t)s.etp, "dp",
	              (json_int_t)s.dp, "edp", (json_int_t)s.edp, "vpp", (json_int_t)s.vpp,
	              "nproc_per_node", (json_int_t)s.nproc_per_node, "nnodes",
	              (json_int_t)s.nnodes, "gtp", (json_int_t)s.gtp, "egtp", (json_int_t)s.egtp,
	              "dist_opt_instances", (json_int_t)s.dist_opt_instances));
	json_object_set_new(r, "order", json_string(mcinit_topology_order(t)));
	/* every created kind: its groups; hcp one list per level */
	groups = json_object();
	for (int k = 0; k < mcinit_group_kinds(); k++) {
		int levels = mcinit_topology_group_levels(t, k);

		if (levels <= 0)
			continue;
		if (levels == 1 && strcmp(mcinit_group_name(k), "hcp") != 0) {
			json_object_set_new(groups, mcinit_group_name(k), groups_json(t, k, 0));
		} else {
			json_t *lv = json_array();

			for (int l = 0; l < levels; l++)
				json_array_append_new(lv, groups_json(t, k, l));
			json_object_set_new(groups, mcinit_group_name(k), lv);
		}
	}
	json_object_set_new(r, "groups", groups);
	ranks = json_array();
	if (q.rank >= 0) {
		json_array_append_new(ranks, rank_json(t, (long)q.rank));
	} else if (s.world <= TOPOLOGY_RANKS_MAX) {
		for (long k = 0; k < s.world; k++)
			json_array_append_new(ranks, rank_json(t, k));
	}
	json_object_set_new(r, "ranks", ranks);
	json_object_set_new(r, "derived", mcinit_derived_to_json(&job->dv));
out:
	mcinit_job_free(job);
	mcinit_diags_free(d);
	request_free(&q);
	return dump(r);
}
