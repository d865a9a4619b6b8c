/* Unit tests: the JSON-in/JSON-out calls of interface 4.2 (lib/run/api-json.c),
 * the surface the Python package binds: results are read back with jansson
 * and checked member by member (under ASan/UBSan in the sanitizer pass). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "mcinit.h"

static char *
example(void)
{
	const char *srcdir = getenv("srcdir");

	return mcx_xasprintf("%s/examples/llama3-8b.json", srcdir && *srcdir ? srcdir : ".");
}

/* fn(request) parsed; the text freed. */
static json_t *
call(char *(*fn)(const char *), const char *request)
{
	char *text = fn(request);
	json_t *j;

	cr_assert_not_null(text);
	j = json_loads(text, 0, NULL);
	cr_assert_not_null(j, "not JSON: %s", text);
	free(text);
	return j;
}

static json_t *
validate_ex(const char *extra)
{
	char *ex = example();
	char *req = mcx_xasprintf("{\"inputs\": [\"%s\"]%s}", ex, extra);
	json_t *r = call(mcinit_json_validate, req);

	free(req);
	free(ex);
	return r;
}

Test(api_json, valid_job_has_derived_values)
{
	json_t *r = validate_ex(", \"world_size\": 8");

	cr_assert(json_is_true(json_object_get(r, "valid")));
	cr_assert_eq(json_array_size(json_object_get(r, "diagnostics")), 0);
	cr_assert_eq(json_integer_value(
	                 json_object_get(json_object_get(r, "derived"), "data_parallel_size")),
	             4);
	json_decref(r);
}

Test(api_json, invalid_job_lists_its_errors_with_keys)
{
	json_t *r = validate_ex(", \"world_size\": 7"), *d;
	size_t i;
	bool mc010 = false;

	cr_assert(json_is_false(json_object_get(r, "valid")));
	json_array_foreach(json_object_get(r, "diagnostics"), i, d)
	{
		if (strcmp(json_string_value(json_object_get(d, "code")), "MC010") == 0) {
			mc010 = true;
			cr_assert_str_eq(json_string_value(json_object_get(d, "severity")),
			                 "error");
			cr_assert_str_eq(
			    json_string_value(json_array_get(json_object_get(d, "keys"), 0)),
			    "model.tensor_model_parallel_size");
		}
	}
	cr_assert(mc010);
	json_decref(r);
}

Test(api_json, errors_of_the_request_and_the_input)
{
	json_t *r = call(mcinit_json_validate, "{\"inputs\": [\"/nonexistent/x.json\"]}"), *e;

	e = json_object_get(r, "error");
	cr_assert_str_eq(json_string_value(json_object_get(e, "code")), "noinput");
	cr_assert_str_eq(json_string_value(json_object_get(e, "source")), "/nonexistent/x.json");
	json_decref(r);
	const char *bad[] = {"{",
	                     "[1]",
	                     "{\"inputs\": 3}",
	                     "{\"inputs\": []}",
	                     "{\"inputs\": [\"a\"], \"world_size\": 0}",
	                     "{\"inputs\": [\"a\"], \"wrold_size\": 8}",
	                     "{\"inputs\": [\"a\"], \"inputs\": [\"b\"]}",
	                     "{\"inputs\": [\"a\"], \"gpu_memory\": \"80\"}",
	                     "{\"inputs\": [\"a\"], \"gpu_memory\": 0}",
	                     "{\"inputs\": [\"a\"], \"memory_model\": 1}"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		r = call(mcinit_json_validate, bad[i]);
		e = json_object_get(r, "error");
		cr_assert_str_eq(json_string_value(json_object_get(e, "code")), "usage", "%s",
		                 bad[i]);
		json_decref(r);
	}
	r = call(mcinit_json_validate, NULL);
	cr_assert_not_null(json_object_get(r, "error"));
	json_decref(r);
}

Test(api_json, topology_groups_and_one_rank)
{
	char *ex = example();
	char *req = mcx_xasprintf("{\"inputs\": [\"%s\"], \"world_size\": 8, \"rank\": 3}", ex);
	json_t *r = call(mcinit_json_topology, req), *tp, *rank;

	cr_assert(json_is_true(json_object_get(r, "valid")));
	cr_assert_str_eq(json_string_value(json_object_get(r, "order")), "tp-cp-ep-dp-pp");
	tp = json_object_get(json_object_get(r, "groups"), "tp");
	cr_assert_eq(json_array_size(tp), 4);
	cr_assert_eq(json_integer_value(json_array_get(json_array_get(tp, 1), 1)), 3);
	cr_assert_eq(json_array_size(json_object_get(r, "ranks")), 1);
	rank = json_array_get(json_object_get(r, "ranks"), 0);
	cr_assert_eq(json_integer_value(json_object_get(rank, "rank")), 3);
	cr_assert_eq(json_integer_value(json_object_get(rank, "tp")), 1);
	json_decref(r);
	free(req);
	req = mcx_xasprintf("{\"inputs\": [\"%s\"], \"world_size\": 8, \"rank\": 8}", ex);
	r = call(mcinit_json_topology, req);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
	                 "usage");
	json_decref(r);
	free(req);
	free(ex);
}

/* Eight threads at once give the answer one thread gives. */
static char *want;

static void *
worker(void *arg)
{
	for (int k = 0; k < 4; k++) {
		char *got = mcinit_json_validate(arg);

		if (got == NULL || strcmp(got, want) != 0) {
			free(got);
			return (void *)1;
		}
		free(got);
	}
	return NULL;
}

Test(api_json, eight_threads)
{
	char *ex = example();
	char *req = mcx_xasprintf("{\"inputs\": [\"%s\"], \"world_size\": 7}", ex);
	pthread_t t[8];

	want = mcinit_json_validate(req);
	cr_assert_not_null(want);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, worker, req), 0);
	for (int i = 0; i < 8; i++) {
		void *rc;

		pthread_join(t[i], &rc);
		cr_assert_null(rc, "thread %d saw another result", i);
	}
	free(want);
	free(req);
	free(ex);
}
