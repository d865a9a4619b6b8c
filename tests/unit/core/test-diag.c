/* Unit tests: diagnostics collection, ordering and output. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/diag.h"
#include "core/util.h"

Test(diag, sorted_by_source_then_line_then_col)
{
	struct mcinit_diags d;
	struct mcinit_loc a1 = {"a.json", 5, 2, 1}, a2 = {"a.json", 2, 9, 1}, b = {"argv", 3, 0, 2};

	mcinit_diags_init(&d);
	mcinit_diag_add(&d, MCINIT_NOTE, "MC100", NULL, "unlocated");
	mcinit_diag_add(&d, MCINIT_ERROR, "MC010", &b, "third");
	mcinit_diag_add(&d, MCINIT_ERROR, "MC011", &a1, "second");
	mcinit_diag_add(&d, MCINIT_WARNING, "MC012", &a2, "first");
	mcinit_diags_sort(&d);
	cr_assert_str_eq(d.v[0].message, "first");
	cr_assert_str_eq(d.v[1].message, "second");
	cr_assert_str_eq(d.v[2].message, "third");
	cr_assert_str_eq(d.v[3].message, "unlocated");
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 2);
	mcinit_diags_destroy(&d);
}

Test(diag, text_is_gcc_style)
{
	struct mcinit_diags d;
	struct mcinit_loc f = {"job.json", 3, 7, 1}, a = {"argv", 12, 0, 2};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	mcinit_diags_init(&d);
	mcinit_diag_hint(mcinit_diag_add(&d, MCINIT_ERROR, "MC004", &f, "bad %s", "type"),
	                 "fix it");
	mcinit_diag_add(&d, MCINIT_WARNING, "MC001", &a, "flag");
	mcinit_diags_print(&d, out, false);
	fclose(out);
	cr_assert_str_eq(buf, "job.json:3:7: error[MC004]: bad type\n    hint: fix it\n"
	                      "argv:12: warning[MC001]: flag\n");
	free(buf);
	mcinit_diags_destroy(&d);
}

/* A command-line word has an index, not a line: "argv_index", and "line"
 * and "column" null. */
Test(diag, json_argv_index)
{
	struct mcinit_diags d;
	struct mcinit_loc a = {"argv", 4, 0, 2}, f = {"job.json", 3, 7, 1};
	json_t *j, *o;

	mcinit_diags_init(&d);
	mcinit_diag_add(&d, MCINIT_ERROR, "MC004", &a, "bad word");
	mcinit_diag_add(&d, MCINIT_ERROR, "MC004", &f, "bad value");
	j = mcinit_diags_to_json(&d);
	o = json_array_get(j, 0);
	cr_assert_eq(json_integer_value(json_object_get(o, "argv_index")), 4);
	cr_assert(json_is_null(json_object_get(o, "line")));
	cr_assert(json_is_null(json_object_get(o, "column")));
	o = json_array_get(j, 1);
	cr_assert(json_is_null(json_object_get(o, "argv_index")));
	cr_assert_eq(json_integer_value(json_object_get(o, "line")), 3);
	json_decref(j);
	mcinit_diags_destroy(&d);
}

Test(diag, json_shape)
{
	struct mcinit_diags d;
	struct mcinit_loc f = {"job.json", 3, 7, 1};
	json_t *arr, *o;

	mcinit_diags_init(&d);
	mcinit_diag_key(mcinit_diag_add(&d, MCINIT_ERROR, "MC012", &f, "m"),
	                "train.global_batch_size");
	arr = mcinit_diags_to_json(&d);
	o = json_array_get(arr, 0);
	cr_assert_str_eq(json_string_value(json_object_get(o, "severity")), "error");
	cr_assert_str_eq(json_string_value(json_object_get(o, "code")), "MC012");
	cr_assert_str_eq(json_string_value(json_object_get(o, "source")), "job.json");
	cr_assert_eq(json_integer_value(json_object_get(o, "line")), 3);
	cr_assert_eq(json_integer_value(json_object_get(o, "column")), 7);
	cr_assert(json_is_null(json_object_get(o, "hint")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(o, "keys"), 0)),
	                 "train.global_batch_size");
	json_decref(arr);
	mcinit_diags_destroy(&d);
}

Test(diag, edit_distance_and_suggest)
{
	static const char *const c[] = {"tensor_model_parallel_size",
	                                "pipeline_model_parallel_size"};

	cr_assert_eq(mcinit_edit_distance("kitten", "sitting", 10), 3);
	cr_assert_gt(mcinit_edit_distance("a", "abcdef", 2), 2);
	cr_assert_str_eq(mcinit_suggest("tensor_model_paralel_size", c, 2), c[0]);
	cr_assert_null(mcinit_suggest("seed", c, 2));
}

Test(diag, json_keeps_messages_with_invalid_utf8)
{
	struct mcinit_diags d;
	json_t *arr;

	mcinit_diags_init(&d);
	mcinit_diag_add(&d, MCINIT_ERROR, "MC003", NULL, "unknown flag --hi\xff");
	arr = mcinit_diags_to_json(&d);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(arr, 0), "message")),
	                 "unknown flag --hi\xef\xbf\xbd");
	json_decref(arr);
	mcinit_diags_destroy(&d);
}
