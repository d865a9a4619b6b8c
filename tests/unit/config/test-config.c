/* Unit tests: schema types, union fallbacks, JSON/override/flag loaders. */
#include <criterion/criterion.h>
#include <string.h>

#include "config/config.h"
#include "config/bridge.h"
#include "config/mflags.h"

static struct mcinit_config c;
static struct mcinit_diags d;

static void
setup(void)
{
	mcinit_config_init(&c, MCINIT_MV_MAIN);
	mcinit_diags_init(&d);
}

static void
teardown(void)
{
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
}

TestSuite(config, .init = setup, .fini = teardown);

/* Converts JSON text for field f; returns the diagnostic code or "" on success. */
static const char *
conv(enum mcinit_field f, const char *json, struct mcinit_value *out)
{
	static char code[8];
	json_t *j = json_loads(json, JSON_DECODE_ANY, NULL);
	const char *cd = NULL;
	char *why = NULL;
	int rc;

	cr_assert_not_null(j, "test JSON %s", json);
	rc = mcinit_value_from_json(f, j, out, &cd, &why);
	json_decref(j);
	snprintf(code, sizeof code, "%s", rc == 0 ? "" : cd);
	free(why);
	return code;
}

/* The dest-column index finds what a scan of mcinit_fields in order finds. */
Test(config, dest_column_index_agrees_with_a_scan)
{
	int f, g;

	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const char *dest = mcinit_field_s(f, dest);

		if (dest == NULL)
			continue;
		for (g = 0; g < MCINIT_F_COUNT; g++)
			if (mcinit_field_s(g, dest) != NULL &&
			    strcmp(mcinit_field_s(g, dest), dest) == 0)
				break;
		cr_assert_eq(mcinit_field_by_dest_column(dest), g, "%s", dest);
	}
	cr_assert_eq(mcinit_field_by_dest_column("no_such_dest"), -1);
	cr_assert_eq(mcinit_field_by_dest_column(""), -1);
}

/* The hashed lookups by name agree with scans of mcinit_fields: every
 * section.name key and alias, every bare name (the first field of that
 * name), every dest (its fields, home first). */
Test(config, lookups_by_name_agree_with_scans)
{
	int f, g;

	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const struct mcinit_field_info *fi = &mcinit_fields[f];
		enum mcinit_field out[8];
		bool alias = true;
		const char *a;

		cr_assert_eq(mcinit_field_lookup_key(mcinit_field_str(fi->section),
		                                     mcinit_field_str(fi->name), &alias),
		             f, "%s.%s", mcinit_field_str(fi->section), mcinit_field_str(fi->name));
		cr_assert_not(alias);
		cr_assert_eq(
		    mcinit_field_lookup(mcinit_field_str(fi->section), mcinit_field_str(fi->name)),
		    f);
		for (g = 0; g < MCINIT_F_COUNT &&
		            strcmp(mcinit_field_s(g, name), mcinit_field_str(fi->name)) != 0;
		     g++)
			;
		cr_assert_eq(mcinit_field_lookup(NULL, mcinit_field_str(fi->name)), g, "%s",
		             mcinit_field_str(fi->name));
		for (a = mcinit_field_str(fi->aliases); a != NULL && *a;) {
			size_t n = strcspn(a, "|"), dot = strcspn(a, ".");
			char sec[128], name[128];

			cr_assert_lt(dot, n, "%s", a);
			snprintf(sec, sizeof sec, "%.*s", (int)dot, a);
			snprintf(name, sizeof name, "%.*s", (int)(n - dot - 1), a + dot + 1);
			alias = false;
			cr_assert_eq(mcinit_field_lookup_key(sec, name, &alias), f, "%s.%s", sec,
			             name);
			cr_assert(alias);
			a += n + (a[n] == '|');
		}
		if (mcinit_field_str(fi->dest) != NULL &&
		    mcinit_fields_by_dest(mcinit_field_str(fi->dest), out, 8) > 0) {
			int k, n = mcinit_fields_by_dest(mcinit_field_str(fi->dest), out, 8);

			for (k = 0; k < n; k++)
				cr_assert(mcinit_field_s(out[k], dest) != NULL &&
				              strcmp(mcinit_field_s(out[k], dest),
				                     mcinit_field_str(fi->dest)) == 0,
				          "%s", mcinit_field_str(fi->dest));
		}
	}
	cr_assert_eq(mcinit_field_lookup_key("model", "no_such_field", NULL), -1);
	cr_assert_eq(mcinit_field_lookup_key("no_such_section", "seed", NULL), -1);
	cr_assert_eq(mcinit_field_lookup_key("", "", NULL), -1);
	cr_assert_eq(mcinit_field_lookup(NULL, "no_such_field"), -1);
	cr_assert_eq(mcinit_fields_by_dest("no_such_dest", NULL, 0), 0);
}

/* A field's default on v computed from the flag table at run time, as
 * config.c did before gen-tables.py wrote MCINIT_FIELD_VDEF. */
static const char *
default_by_scan(enum mcinit_field f, unsigned v)
{
	const struct mcinit_field_info *fi = &mcinit_fields[f];
	const char *p = mcinit_field_str(fi->flags);
	char flag[160];

	if (fi->origin == MCINIT_FO_SCHEMA || p == NULL || mcinit_field_str(fi->dest) == NULL)
		return mcinit_field_str(fi->def);
	while (*p) {
		size_t n = strcspn(p, "|");
		const struct mcinit_mflag *m;

		snprintf(flag, sizeof flag, "%.*s", (int)n, p);
		m = mcinit_mflag_find(flag, v, NULL);
		if (m != NULL && mcinit_mstr(m->def) != NULL &&
		    strcmp(mcinit_mstr(m->dest), mcinit_field_str(fi->dest)) == 0)
			return mcinit_mstr(m->def);
		p += n + (p[n] == '|');
	}
	return mcinit_field_str(fi->def);
}

Test(config, generated_defaults_agree_with_the_flag_table)
{
	int f, k, differ = 0;

	for (f = 0; f < MCINIT_F_COUNT; f++)
		for (k = 0; k < MCINIT_MV_COUNT; k++) {
			unsigned v = mcinit_mversion_at(k);
			const char *want = default_by_scan(f, v),
			           *got = mcinit_field_default_text(f, v);

			/* NULL: a schema row without a default */
			cr_assert(want == got || (want && got && strcmp(want, got) == 0),
			          "%s.%s on %s: %s, want %s", mcinit_field_s(f, section),
			          mcinit_field_s(f, name), mcinit_mversion_name(v),
			          got ? got : "NULL", want ? want : "NULL");
			differ += want != mcinit_field_s(f, def);
		}
	cr_assert_gt(differ, 0);
}

Test(config, every_schema_row_parses_and_defaults_convert)
{
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		const struct mcinit_type *t = mcinit_field_type(i);

		cr_assert_gt(t->nalt, 0, "%s", mcinit_field_s(i, name));
		if (mcinit_field_s(i, def) == NULL)
			cr_assert(mcinit_cfg_null(&c, i), "required %s starts null",
			          mcinit_field_s(i, name));
	}
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_distributed_timeout_minutes), 10);
	cr_assert_str_eq(mcinit_cfg_str(&c, MCINIT_F_exit_signal), "SIGTERM");
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_overlap_p2p_comm));
}

Test(config, union_str_or_list_accepts_both_forms)
{
	struct mcinit_value v;

	cr_assert_str_eq(conv(MCINIT_F_cp_comm_type, "\"p2p\"", &v), "");
	cr_assert_eq(v.kind, MCINIT_V_STR);
	mcinit_value_clear(&v);
	cr_assert_str_eq(conv(MCINIT_F_cp_comm_type, "[\"p2p\", \"a2a+p2p\"]", &v), "");
	cr_assert_eq(v.kind, MCINIT_V_LIST);
	cr_assert_eq(v.n, 2);
	cr_assert_str_eq(v.items[1].s, "a2a+p2p");
	mcinit_value_clear(&v);
	cr_assert_str_eq(conv(MCINIT_F_cp_comm_type, "null", &v), "");
	cr_assert_eq(v.kind, MCINIT_V_NULL);
}

Test(config, union_failure_names_every_expected_form)
{
	json_t *j = json_integer(5);
	const char *code;
	char *why = NULL;
	struct mcinit_value v;

	cr_assert_eq(mcinit_value_from_json(MCINIT_F_cp_comm_type, j, &v, &code, &why), -1);
	cr_assert_str_eq(code, "MC004");
	cr_assert(strstr(why, "a string, a list of strings or null") != NULL, "%s", why);
	cr_assert(strstr(why, "got an integer") != NULL, "%s", why);
	free(why);
	json_decref(j);
}

Test(config, union_choice_error_beats_type_error)
{
	struct mcinit_value v;

	/* The list form matched in shape but one item is not a choice: say that,
	 * not "expected a string". */
	cr_assert_str_eq(conv(MCINIT_F_cp_comm_type, "[\"p2p\", \"ring\"]", &v), "MC005");
	cr_assert_str_eq(conv(MCINIT_F_cp_comm_type, "\"ring\"", &v), "MC005");
}

Test(config, int_or_null)
{
	struct mcinit_value v;

	cr_assert_str_eq(conv(MCINIT_F_expert_tensor_parallel_size, "null", &v), "");
	cr_assert_str_eq(conv(MCINIT_F_expert_tensor_parallel_size, "4", &v), "");
	cr_assert_eq(v.i, 4);
	cr_assert_str_eq(conv(MCINIT_F_expert_tensor_parallel_size, "\"4\"", &v), "MC004");
	cr_assert_str_eq(conv(MCINIT_F_expert_tensor_parallel_size, "0", &v), "MC005");
	cr_assert_str_eq(conv(MCINIT_F_expert_tensor_parallel_size, "1.5", &v), "MC004");
}

Test(config, fixed_length_list)
{
	struct mcinit_value v;

	cr_assert_str_eq(conv(MCINIT_F_rampup_batch_size, "[16, 16, 5000000]", &v), "");
	cr_assert_eq(v.n, 3);
	mcinit_value_clear(&v);
	cr_assert_str_eq(conv(MCINIT_F_rampup_batch_size, "[16, 16]", &v), "MC005");
	cr_assert_str_eq(conv(MCINIT_F_rampup_batch_size, "[16, \"a\", 3]", &v), "MC004");
}

Test(config, signals_by_name_number_and_case)
{
	static const struct {
		const char *in, *out;
	} ok[] = {{"\"SIGUSR1\"", "SIGUSR1"}, {"\"usr2\"", "SIGUSR2"},
	          {"\"term\"", "SIGTERM"},    {"15", "SIGTERM"},
	          {"\"SigInt\"", "SIGINT"},   {"\"SIGRTMIN+2\"", "SIGRTMIN+2"}};
	struct mcinit_value v;
	size_t i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_str_eq(conv(MCINIT_F_exit_signal, ok[i].in, &v), "", "%s", ok[i].in);
		cr_assert_str_eq(v.s, ok[i].out);
		mcinit_value_clear(&v);
	}
	cr_assert_str_eq(conv(MCINIT_F_exit_signal, "\"SIGFOO\"", &v), "MC005");
	cr_assert_str_eq(conv(MCINIT_F_exit_signal, "0", &v), "MC005");
	cr_assert_str_eq(conv(MCINIT_F_exit_signal, "true", &v), "MC004");
}

Test(config, bad_signal_lists_valid_names)
{
	json_t *j = json_string("SIGTERN");
	const char *code;
	char *why = NULL;
	struct mcinit_value v;

	cr_assert_eq(mcinit_value_from_json(MCINIT_F_exit_signal, j, &v, &code, &why), -1);
	cr_assert(strstr(why, "SIGTERM") && strstr(why, "SIGUSR1") && strstr(why, "SIGHUP"), "%s",
	          why);
	free(why);
	json_decref(j);
}

Test(config, dtype_spellings)
{
	static const char *const bf[] = {"\"bf16\"", "\"bfloat16\"", "\"bf16-mixed\"",
	                                 "\"torch.bfloat16\""};
	struct mcinit_value v;
	size_t i;

	for (i = 0; i < 4; i++) {
		cr_assert_str_eq(conv(MCINIT_F_params_dtype, bf[i], &v), "");
		cr_assert_str_eq(v.s, "bf16");
		mcinit_value_clear(&v);
	}
	cr_assert_str_eq(conv(MCINIT_F_params_dtype, "16", &v), "");
	cr_assert_str_eq(v.s, "fp16");
	mcinit_value_clear(&v);
	cr_assert_str_eq(conv(MCINIT_F_params_dtype, "\"int8\"", &v), "MC005");
}

Test(config, bool_words)
{
	cr_assert_eq(mcinit_bool_word("False"), 0);
	cr_assert_eq(mcinit_bool_word("OFF"), 0);
	cr_assert_eq(mcinit_bool_word(""), 0);
	cr_assert_eq(mcinit_bool_word("True"), 1);
	cr_assert_eq(mcinit_bool_word("1"), 1);
	cr_assert_eq(mcinit_bool_word("maybe"), -1);
}

Test(config, schema_flags_exist_in_megatron_table)
{
	int i;

	for (i = 0; i < MCINIT_F_COUNT; i++) {
		const char *p = mcinit_field_s(i, flags);

		while (p && *p) {
			size_t n = strcspn(p, "|");
			char flag[128];
			const struct mcinit_mflag *m;

			snprintf(flag, sizeof flag, "%.*s", (int)n, p);
			m = mcinit_mflag_find_any(flag);
			cr_assert_not_null(m, "%s: flag %s unknown to Megatron-LM",
			                   mcinit_field_s(i, name), flag);
			p += n + (p[n] == '|');
		}
	}
}

/* ---- JSON files ---- */

static void
load(const char *text)
{
	struct mcinit_err err = {0};

	cr_assert_eq(mcinit_config_load_json_text(&c, "job.json", text, strlen(text), &d, &err), 0,
	             "%s", err.msg);
}

static const struct mcinit_diag *
find(const char *code)
{
	size_t i;

	for (i = 0; i < d.n; i++)
		if (strcmp(d.v[i].code, code) == 0)
			return &d.v[i];
	cr_assert_fail("no %s diagnostic", code);
	return NULL;
}

Test(config, json_string_for_bool_points_at_value)
{
	const struct mcinit_diag *g;

	load("{\n  \"dist\": {\n    \"lazy_mpu_init\": \"False\"\n  }\n}\n");
	g = find("MC004");
	cr_assert_eq(g->sev, MCINIT_ERROR);
	cr_assert_str_eq(g->loc.source, "job.json");
	cr_assert_eq(g->loc.line, 3);
	cr_assert_eq(g->loc.col, 22);
	cr_assert(strstr(g->hint, "TRUE") != NULL, "%s", g->hint);
	cr_assert(c.invalid[MCINIT_F_lazy_mpu_init]);
	cr_assert_not(mcinit_cfg_bool(&c, MCINIT_F_lazy_mpu_init));
}

Test(config, json_misspelled_key_suggests)
{
	const struct mcinit_diag *g;

	load("{\"model\": {\"tensor_model_paralel_size\": 2}}");
	g = find("MC003");
	cr_assert(strstr(g->hint, "`tensor_model_parallel_size`") != NULL, "%s", g->hint);
	cr_assert_eq(g->loc.line, 1);
	cr_assert_eq(g->loc.col, 12);
}

Test(config, json_key_in_wrong_section)
{
	const struct mcinit_diag *g;

	load("{\"train\": {\"lazy_mpu_init\": true}}");
	g = find("MC003");
	cr_assert(strstr(g->hint, "\"dist\"") != NULL, "%s", g->hint);
}

Test(config, json_duplicate_key_located)
{
	const struct mcinit_diag *g;

	load("{\"model\": {\n\"num_layers\": 4,\n\"num_layers\": 8}}");
	g = find("MC006");
	cr_assert_eq(g->loc.line, 3);
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_num_layers), 8);
}

Test(config, json_meta_keys_ignored_and_alias)
{
	load("{\"_target_\": \"x\", \"dist\": {\"_target_\": \"y\", \"lazy_init\": true}}");
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_lazy_mpu_init));
	find("MC007");
}

Test(config, json_unknown_section)
{
	const struct mcinit_diag *g;

	load("{\"modle\": {}}");
	g = find("MC003");
	cr_assert(strstr(g->hint, "`model`") != NULL);
}

Test(config, json_malformed_is_dataerr)
{
	struct mcinit_err err = {0};
	const char *t = "{\"model\": {\"num_layers\": 4,}}";

	cr_assert_eq(mcinit_config_load_json_text(&c, "bad.json", t, strlen(t), &d, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_PARSE);
	cr_assert(strncmp(err.msg, "bad.json:1:", 11) == 0, "%s", err.msg);
}

Test(config, json_env_vars)
{
	load("{\"env_vars\": {\"NCCL_DEBUG\": \"INFO\", \"X\": 1, \"BAD\": [1]}}");
	cr_assert_str_eq(json_string_value(json_object_get(c.env_vars, "NCCL_DEBUG")), "INFO");
	cr_assert_null(json_object_get(c.env_vars, "BAD"));
	find("MC004");
}

/* ---- overrides ---- */

Test(config, overrides_json_or_bare_string)
{
	mcinit_config_apply_override(&c, "model.tensor_model_parallel_size=8", 2, &d);
	mcinit_config_apply_override(&c, "model.cp_comm_type=a2a", 3, &d);
	mcinit_config_apply_override(&c, "model.hierarchical_context_parallel_sizes=[2,4]", 4, &d);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_tensor_model_parallel_size), 8);
	cr_assert_str_eq(mcinit_cfg_str(&c, MCINIT_F_cp_comm_type), "a2a");
	cr_assert_eq(mcinit_cfg_val(&c, MCINIT_F_hierarchical_context_parallel_sizes)->n, 2);
	cr_assert_eq(c.origin[MCINIT_F_tensor_model_parallel_size], MCINIT_ORIG_OVERRIDE);
	cr_assert_eq(c.loc[MCINIT_F_tensor_model_parallel_size].line, 2);
}

Test(config, override_unknown_key_suggests)
{
	const struct mcinit_diag *g;

	mcinit_config_apply_override(&c, "model.tensor_model_paralel_size=8", 2, &d);
	g = find("MC003");
	cr_assert(strstr(g->hint, "model.tensor_model_parallel_size") != NULL);
}

/* ---- Megatron-LM flags ---- */

static void
flags(const char *const *w, size_t n)
{
	struct mcinit_loc *locs = calloc(n, sizeof *locs);
	struct mcinit_loc base = mcinit_config_source(&c, "argv");
	size_t i;

	for (i = 0; i < n; i++) {
		locs[i] = base;
		locs[i].line = (int)i + 1;
	}
	mcinit_config_apply_flags(&c, (char *const *)w, locs, NULL, n, &d);
	free(locs);
}

Test(config, flags_space_and_equals_forms)
{
	const char *w[] = {"--num-layers",
	                   "24",
	                   "--hidden-size=1024",
	                   "--sequence-parallel",
	                   "--no-overlap-p2p-communication",
	                   "--cp-comm-type",
	                   "p2p",
	                   "a2a"};

	flags(w, 8);
	cr_assert_eq(d.n, 0, "%s", d.n ? d.v[0].message : "");
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_num_layers), 24);
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_hidden_size), 1024);
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_sequence_parallel));
	cr_assert_not(mcinit_cfg_bool(&c, MCINIT_F_overlap_p2p_comm));
	cr_assert_eq(mcinit_cfg_val(&c, MCINIT_F_cp_comm_type)->n, 2);
}

Test(config, lazy_mpu_init_false_is_error_and_reads_false)
{
	const char *w[] = {"--lazy-mpu-init", "False"};
	const struct mcinit_diag *g;

	flags(w, 2);
	g = find("MC001");
	cr_assert_eq(g->sev, MCINIT_ERROR);
	cr_assert_eq(g->loc.line, 1);
	cr_assert(strstr(g->message, "--lazy-mpu-init") && strstr(g->message, "TRUE"));
	cr_assert_not(mcinit_cfg_bool(&c, MCINIT_F_lazy_mpu_init));
}

Test(config, lazy_mpu_init_true_is_warning)
{
	const char *w[] = {"--lazy-mpu-init", "True"};

	flags(w, 2);
	cr_assert_eq(find("MC001")->sev, MCINIT_WARNING);
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_lazy_mpu_init));
}

Test(config, lazy_mpu_init_alone_is_clean_on_main)
{
	const char *w[] = {"--lazy-mpu-init", "--seed", "7"};

	flags(w, 3);
	cr_assert_eq(d.n, 0);
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_lazy_mpu_init));
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_seed), 7);
}

Test(config, lazy_mpu_init_alone_warns_on_r016)
{
	const char *w[] = {"--lazy-mpu-init"};

	c.mversion = MCINIT_MV_R016;
	flags(w, 1);
	cr_assert_eq(find("MC001")->sev, MCINIT_WARNING);
}

Test(config, lazy_mpu_init_empty_word_is_note)
{
	const char *w[] = {"--lazy-mpu-init", ""};

	flags(w, 2);
	cr_assert_eq(find("MC001")->sev, MCINIT_NOTE);
	cr_assert_not(mcinit_cfg_bool(&c, MCINIT_F_lazy_mpu_init));
}

Test(config, onnx_safe_is_type_bool_everywhere)
{
	const char *w[] = {"--onnx-safe", "0"};

	flags(w, 2);
	cr_assert_eq(find("MC001")->sev, MCINIT_ERROR);
}

Test(config, unknown_flag_suggests_and_skips_values)
{
	const char *w[] = {"--tensor-model-paralel-size", "2", "--seed", "3"};
	const struct mcinit_diag *g;

	flags(w, 4);
	g = find("MC003");
	cr_assert(strstr(g->hint, "--tensor-model-parallel-size") != NULL, "%s", g->hint);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 1);
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_seed), 3);
}

Test(config, flag_of_another_version)
{
	const char *w[] = {"--disable-jit-fuser"};
	const struct mcinit_diag *g;

	c.mversion = MCINIT_MV_R015;
	flags(w, 1);
	g = find("MC003");
	cr_assert(strstr(g->message, "r0.16, r0.17, r0.18, r0.19, main") != NULL, "%s", g->message);
}

Test(config, every_flag_sets_a_field)
{
	const char *w[] = {"--lr", "1e-4", "--train-data-path", "a", "b", "--no-save-optim"};

	flags(w, 6);
	cr_assert_eq(d.n, 0);
	mcinit_config_fill_megatron(&c, &d);
	mcinit_config_finish(&c, &d);
	for (size_t i = 0; i < d.n; i++)
		cr_assert_str_neq(d.v[i].code, "MC003", "no 'not checked' note any more");
	cr_assert_eq(c.val[MCINIT_F_lr].kind, MCINIT_V_FLOAT);
	cr_assert_float_eq(mcinit_cfg_float(&c, MCINIT_F_lr), 1e-4, 1e-12);
	cr_assert_eq(c.val[MCINIT_F_train_data_path].n, 2);
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_no_save_optim));
}

Test(config, flag_values_typed_like_argparse)
{
	const char *w[] = {"--lr",   "abc",   "--lr-decay-style", "cosin",  "--adam-beta1", "x",
	                   "--seed", "1_000", "--min-lr",         " 1e-5 ", "--clip-grad",  "0x10"};

	flags(w, 12);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 4);
	cr_assert_str_eq(d.v[0].message, "argument --lr: invalid float value: 'abc'");
	cr_assert_str_eq(d.v[1].message,
	                 "argument --lr-decay-style: invalid choice: 'cosin' (choose from "
	                 "'constant', 'linear', 'cosine', 'inverse-square-root', 'WSD')");
	cr_assert_str_eq(d.v[2].message, "argument --adam-beta1: invalid float value: 'x'");
	cr_assert_str_eq(d.v[3].message, "argument --clip-grad: invalid float value: '0x10'");
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_seed), 1000, "Python's int() takes 1_000");
	cr_assert(c.invalid[MCINIT_F_lr]);
}

Test(config, flag_value_errors)
{
	const char *w[] = {"--num-layers", "many", "--rampup-batch-size",
	                   "16",           "16",   "--sequence-parallel=yes",
	                   "--seed"};

	flags(w, 7);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 4);
	cr_assert(c.invalid[MCINIT_F_num_layers]);
}

Test(config, stray_word_is_error)
{
	const char *w[] = {"--sequence-parallel", "oops"};

	flags(w, 2);
	cr_assert(strstr(find("MC003")->message, "'oops'") != NULL);
}

Test(config, required_fields_reported)
{
	mcinit_config_fill_megatron(&c, &d);
	mcinit_config_finish(&c, &d);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 5);
	find("MC008");
}

Test(config, print_config_round_trips)
{
	json_t *j = mcinit_config_to_json(&c);

	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "model"),
	                                                "tensor_model_parallel_size")),
	             1);
	cr_assert(json_is_null(json_object_get(json_object_get(j, "model"), "num_layers")));
	json_decref(j);
}

/* Regression: a flag value that is not UTF-8 crashed the flag loader
 * (jansson refuses the string, and the NULL reached the converter). */
Test(config, flag_values_that_are_not_utf8)
{
	const char *w[] = {"--num-layers",
	                   "\xff"
	                   "1",
	                   "--pipeline-model-parallel-layout",
	                   "\xfe",
	                   "--cp-comm-type",
	                   "p2p",
	                   "\xff"};

	flags(w, 7);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 3);
	cr_assert(c.invalid[MCINIT_F_num_layers]);
	cr_assert(c.invalid[MCINIT_F_pipeline_model_parallel_layout]);
	cr_assert(c.invalid[MCINIT_F_cp_comm_type]);
	cr_assert(strstr(d.v[1].message, "not valid UTF-8") != NULL, "%s", d.v[1].message);
}

Test(config, list_flags_without_values)
{
	const char *w[] = {"--cp-comm-type", "--rampup-batch-size", "--data-path"};

	flags(w, 3);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 2);
	cr_assert(strstr(d.v[1].message, "expected 3 arguments") != NULL, "%s", d.v[1].message);
}

/* ---- properties over the whole flag table ---- */

/* The words that give flag m the value of JSON text def on the command
 * line, or 0 words when def has no spelling (None). */
static size_t
default_words(const struct mcinit_mflag *m, char words[][64], size_t max)
{
	json_t *j = json_loads(mcinit_mstr(m->def), JSON_DECODE_ANY, NULL);
	size_t n = 0, i;

	cr_assert_not_null(j, "%s: default %s is JSON", mcinit_mstr(m->flag), mcinit_mstr(m->def));
	if (json_is_array(j)) {
		for (i = 0; i < json_array_size(j) && n < max; i++) {
			json_t *e = json_array_get(j, i);

			if (json_is_string(e))
				snprintf(words[n++], 64, "%s", json_string_value(e));
			else if (json_is_real(e))
				snprintf(words[n++], 64, "%.17g", json_real_value(e));
			else
				snprintf(words[n++], 64, "%lld", (long long)json_integer_value(e));
		}
	} else if (json_is_string(j)) {
		snprintf(words[n++], 64, "%s", json_string_value(j));
	} else if (json_is_real(j)) {
		snprintf(words[n++], 64, "%.17g", json_real_value(j));
	} else if (json_is_integer(j)) {
		snprintf(words[n++], 64, "%lld", (long long)json_integer_value(j));
	}
	json_decref(j);
	return n;
}

static size_t
errors_naming(const char *flag)
{
	size_t i, k = 0;

	for (i = 0; i < d.n; i++)
		if (d.v[i].sev == MCINIT_ERROR && strstr(d.v[i].message, flag) != NULL)
			k++;
	return k;
}

static void
fresh(unsigned v)
{
	mcinit_diags_destroy(&d);
	mcinit_config_destroy(&c);
	mcinit_config_init(&c, v);
	mcinit_diags_init(&d);
}

/* A fresh config on version v for an entry point whose parser has row m
 * (the lowest of its entries: pretrain_gpt for the training parser's own). */
static void
fresh_for(unsigned v, const struct mcinit_mflag *m)
{
	fresh(v);
	c.mentry = m->entries & -m->entries;
}

/* Every value flag of every version takes its own parser default, as
 * words, without a complaint; and its home field starts from it. */
Test(config, every_flag_accepts_its_default)
{
	unsigned n, i, k, tried = 0;
	const struct mcinit_mflag *t = mcinit_mflag_table(&n);

	for (i = 0; i < n; i++) {
		for (k = 0; k < MCINIT_MV_COUNT; k++) {
			unsigned v = mcinit_mversion_at((int)k);
			char words[8][64];
			const char *w[9];
			size_t nw, q;

			if (!(t[i].versions & v) ||
			    (t[i].kind != MCINIT_MK_VALUE && t[i].kind != MCINIT_MK_LIST))
				continue;
			nw = default_words(&t[i], words, 8);
			if (nw == 0)
				continue;
			fresh_for(v, &t[i]);
			w[0] = mcinit_mstr(t[i].flag);
			for (q = 0; q < nw; q++)
				w[q + 1] = words[q];
			flags(w, nw + 1);
			cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0, "%s %s (%s): %s",
			             mcinit_mstr(t[i].flag), words[0], mcinit_mversion_name(v),
			             d.n ? d.v[0].message : "");
			tried++;
		}
	}
	cr_assert_gt(tried, 500);
}

/* A flag an entry point's extra_args_provider adds is unknown to the
 * parser of every entry point that does not add it (pretrain_gpt above
 * all): MC003 naming it and the entry points that have it. */
Test(config, entry_flags_are_unknown_elsewhere)
{
	unsigned n, i, k, e, tried = 0;
	const struct mcinit_mflag *t = mcinit_mflag_table(&n);

	for (i = 0; i < n; i++) {
		if (t[i].entries == MCINIT_ME_ALL)
			continue;
		for (k = 0; k < MCINIT_MV_COUNT; k++) {
			unsigned v = mcinit_mversion_at((int)k);
			const char *w[1] = {mcinit_mstr(t[i].flag)};

			if (!(t[i].versions & v) ||
			    mcinit_mflag_find(mcinit_mstr(t[i].flag),
			                      MCINIT_MPARSER(v, MCINIT_ME_ALL & ~t[i].entries),
			                      NULL) != NULL)
				continue; /* another row of the flag: its entry points have it too
				           */
			for (e = 1; e < 1u << MCINIT_ME_COUNT; e <<= 1) {
				if (t[i].entries & e)
					continue;
				fresh(v);
				c.mentry = e;
				flags(w, 1);
				cr_assert_geq(errors_naming(mcinit_mstr(t[i].flag)), 1,
				              "%s (%s, %s) accepted", mcinit_mstr(t[i].flag),
				              mcinit_mversion_name(v), mcinit_mentry_name(e));
				cr_assert_str_eq(d.v[0].code, "MC003");
				cr_assert_not_null(strstr(d.v[0].message, "adds it"), "%s",
				                   d.v[0].message);
				tried++;
			}
		}
	}
	cr_assert_gt(tried, 1000);
}

/* Every typed value flag refuses a word of the wrong type, and a flag with
 * choices refuses a word that is none of them: MC004 naming the flag. */
Test(config, every_flag_rejects_a_mistyped_value)
{
	unsigned n, i, k, tried = 0;
	const struct mcinit_mflag *t = mcinit_mflag_table(&n);

	for (i = 0; i < n; i++) {
		for (k = 0; k < MCINIT_MV_COUNT; k++) {
			unsigned v = mcinit_mversion_at((int)k);
			const char *w[4] = {mcinit_mstr(t[i].flag), "not-a-value", "x2", "x3"};
			size_t nw = 2;

			if (!(t[i].versions & v) ||
			    mcinit_mflag_is_legacy_bool(mcinit_mstr(t[i].flag)))
				continue; /* the type=bool trap has diagnostics of its own */
			if (t[i].kind == MCINIT_MK_STORE_TRUE ||
			    t[i].kind == MCINIT_MK_STORE_FALSE ||
			    t[i].kind == MCINIT_MK_BOOLEAN_OPTIONAL) {
				w[1] = "--"; /* the flag alone with "=x" */
				w[0] = NULL;
			} else if (t[i].type == MCINIT_MT_CUSTOM ||
			           t[i].kind == MCINIT_MK_LEGACY_TYPE_BOOL ||
			           ((t[i].type == MCINIT_MT_STR || t[i].type == MCINIT_MT_BOOL) &&
			            mcinit_mstr(t[i].choices) == NULL)) {
				continue; /* any word is a string */
			}
			fresh_for(v, &t[i]);
			if (w[0] == NULL) {
				char eq[128];
				const char *one[1] = {eq};

				snprintf(eq, sizeof eq, "%s=x", mcinit_mstr(t[i].flag));
				flags(one, 1);
			} else {
				if (t[i].nargs > 1)
					nw = 1 + (size_t)t[i].nargs;
				if (nw > 4)
					nw = 4;
				flags(w, nw);
			}
			cr_assert_geq(errors_naming(mcinit_mstr(t[i].flag)), 1,
			              "%s (%s) took a mistyped value", mcinit_mstr(t[i].flag),
			              mcinit_mversion_name(v));
			cr_assert_str_eq(d.v[0].code, "MC004", "%s: %s", mcinit_mstr(t[i].flag),
			                 d.v[0].message);
			tried++;
		}
	}
	cr_assert_gt(tried, 1000);
}

/* Every field's default, on every version, is a value of its own type. */
Test(config, every_field_default_fits_its_type)
{
	int f, k;

	for (f = 0; f < MCINIT_F_COUNT; f++) {
		for (k = 0; k < MCINIT_MV_COUNT; k++) {
			struct mcinit_value v;
			char *why = NULL;

			cr_assert_eq(mcinit_field_default(f, mcinit_mversion_at(k), &v, &why), 0,
			             "%s.%s on %s: %s", mcinit_field_s(f, section),
			             mcinit_field_s(f, name),
			             mcinit_mversion_name(mcinit_mversion_at(k)), why);
			mcinit_value_clear(&v);
		}
	}
}

/* A release's table of defaults, which takes null, true and false without
 * the conversion (config-defaults.c's literal_default), holds for every
 * field what the conversion of its default text makes of it: the value of
 * mcinit_field_default, or null where that refuses it. */
Test(config, defaults_table_is_the_converted_default_text)
{
	int f, k, literal = 0;

	for (k = 0; k < MCINIT_MV_COUNT; k++) {
		unsigned v = mcinit_mversion_at(k);
		const struct mcinit_value *table = mcinit_config_defaults(v);

		for (f = 0; f < MCINIT_F_COUNT; f++) {
			const char *text = mcinit_field_default_text(f, v);
			struct mcinit_value want;
			char *why = NULL;

			if (mcinit_field_default(f, v, &want, &why) < 0) {
				mcinit_value_clear(&want);
				memset(&want, 0, sizeof want);
			}
			free(why);
			cr_assert(mcinit_value_equal(&table[f], &want), "%s.%s on %s: default %s",
			          mcinit_field_s(f, section), mcinit_field_s(f, name),
			          mcinit_mversion_name(v), text ? text : "(none)");
			literal += text != NULL &&
			           (strcmp(text, "null") == 0 || strcmp(text, "true") == 0 ||
			            strcmp(text, "false") == 0);
			mcinit_value_clear(&want);
		}
	}
	/* (the literals are most of the table: the fast path is exercised) */
	cr_assert_gt(literal, MCINIT_MV_COUNT * 500);
}

/* A builder-style model config (Bridge main's BridgeGPTModelConfig, Bridge
 * 0.6.2's GPTModelConfig) holds the transformer's fields in `transformer`:
 * the facts say which (the declaring class's place in the default MRO, a
 * redeclaration kept its ancestor's), and what such a field starts from
 * where the default provider overrides it. */
Test(config, builder_model_nests_the_transformer)
{
	const char *builders[] = {"megatron.bridge.models.gpt.model_config.BridgeGPTModelConfig",
	                          "megatron.training.models.gpt.GPTModelConfig",
	                          "megatron.bridge.models.hybrid.hybrid_builder.HybridModelConfig"};
	const struct mcinit_vclass *k;
	int pos, nl = mcinit_field_lookup("model", "num_layers"),
	         sl = mcinit_field_lookup("model", "seq_length"),
	         tp = mcinit_field_lookup("model", "tensor_model_parallel_size"),
	         ne = mcinit_field_lookup("model", "num_moe_experts"),
	         asf = mcinit_field_lookup("model", "attention_softmax_in_fp32");
	size_t i;

	cr_assert(nl >= 0 && sl >= 0 && tp >= 0 && ne >= 0 && asf >= 0);
	for (i = 0; i < sizeof builders / sizeof builders[0]; i++) {
		k = mcinit_vclass_find("model", builders[i]);
		cr_assert_not_null(k, "%s", builders[i]);
		pos = mcinit_vclass_nested(k, "transformer");
		cr_assert_gt(pos, 0, "%s", builders[i]);
		cr_assert(mcinit_field_in_nested(nl, pos));
		cr_assert(mcinit_field_in_nested(tp, pos));  /* ModelParallelConfig's */
		cr_assert(mcinit_field_in_nested(ne, pos));  /* redeclared by the provider */
		cr_assert(!mcinit_field_in_nested(sl, pos)); /* the model's own */
		cr_assert(!mcinit_vclass_has_std(k, nl));
		cr_assert(mcinit_vclass_has_std(k, sl));
		/* GPTModelProvider says False, TransformerConfig True */
		cr_assert_str_eq(mcinit_field_nested_default(asf, pos), "true");
		cr_assert_null(mcinit_field_nested_default(nl, pos));
	}
	/* a provider holds its fields itself */
	k = mcinit_vclass_find("model", "megatron.bridge.models.gpt_provider.GPTModelProvider");
	cr_assert_eq(mcinit_vclass_nested(k, "transformer"), -1);
	cr_assert(!mcinit_field_in_nested(nl, -1));
}

/* A str where Megatron-Bridge declares a number: Bridge keeps it, and the
 * TypeError comes only if its own runtime_config_update leaves it there.
 * The refusal waits (no diagnostic at load), the field reads as refused
 * meanwhile, a later value drops it, and the one still standing is said as
 * the load would have said it. */
Test(config, bridge_str_in_number_waits_for_finalize)
{
	struct mcinit_loc l = mcinit_config_source(&c, "override 1");
	int f = mcinit_field_lookup("model", "fp8_margin"),
	    g = mcinit_field_lookup("optimizer", "loss_scale_window");
	json_t *s = json_string("8"), *w = json_string("zz_word"), *n = json_integer(0);
	const struct mcinit_diag *e;

	cr_assert(f >= 0 && g >= 0);
	mcinit_config_bridge_container(&c);
	l.line = 1;
	l.col = 5;
	cr_assert_eq(mcinit_config_set_json(&c, f, s, MCINIT_ORIG_OVERRIDE, &l, &d), -1);
	cr_assert_eq(mcinit_config_set_json(&c, g, w, MCINIT_ORIG_OVERRIDE, &l, &d), -1);
	cr_assert_eq(d.n, 0, "no diagnostic until Bridge's finalize is emulated");
	cr_assert_not_null(c.pending[f]);
	cr_assert(c.invalid[f] && !c.pyval[f]);
	cr_assert_eq(mcinit_cfg_val(&c, f)->kind, MCINIT_V_INT, "the former value stays");
	/* an assignment (Bridge's setup copying the preset's value, a later
	 * input) replaces the str: nothing to refuse */
	cr_assert_eq(mcinit_config_set_json(&c, f, n, MCINIT_ORIG_OVERRIDE, &l, &d), 0);
	cr_assert_null(c.pending[f]);
	mcinit_config_pending_errors(&c, &d);
	cr_assert_eq(d.n, 1);
	e = &d.v[0];
	cr_assert_str_eq(e->code, "MC004");
	cr_assert_eq(e->sev, MCINIT_ERROR);
	cr_assert_str_eq(e->loc.source, "override 1");
	cr_assert_eq(e->loc.line, 1);
	cr_assert_eq(e->loc.col, 5);
	cr_assert_str_eq(e->message,
	                 "optimizer.loss_scale_window: a string ('zz_word') where Megatron-Bridge "
	                 "declares a number: Bridge keeps it, and training's first arithmetic or "
	                 "comparison on it raises TypeError (a str with a number)");
	cr_assert_null(c.pending[g]);
	json_decref(s);
	json_decref(w);
	json_decref(n);
}

/* A file's key of a field Bridge computes itself (init=False in the facts:
 * scheduler.lr_decay_steps) is dropped as from_yaml drops it: no str
 * refusal waits, the field keeps its default, and a warning says so unless
 * the key holds that default (Bridge's to_yaml writes them all). */
Test(config, bridge_file_drops_init_false_key)
{
	const char *text = "_target_: megatron.bridge.training.config.ConfigContainer\n"
	                   "scheduler:\n  lr_decay_steps: zz_word\n  wsd_decay_steps: null\n"
	                   "  lr_warmup_iters: 5\n";
	int f = mcinit_field_lookup("scheduler", "lr_decay_steps"),
	    g = mcinit_field_lookup("scheduler", "wsd_decay_steps"),
	    h = mcinit_field_lookup("scheduler", "lr_warmup_iters");
	struct mcinit_err err = {0};
	const struct mcinit_diag *e;

	cr_assert(f >= 0 && g >= 0 && h >= 0);
	cr_assert(mcinit_field_bridge_init_false(f) && mcinit_field_bridge_init_false(g));
	cr_assert(!mcinit_field_bridge_init_false(h));
	cr_assert_eq(mcinit_config_load_yaml_text(&c, "dump.yaml", text, strlen(text), &d, &err), 0,
	             "%s", err.msg);
	cr_assert_null(c.pending[f]);
	cr_assert(!c.invalid[f]);
	cr_assert_eq(mcinit_cfg_val(&c, f)->kind, MCINIT_V_NULL, "Bridge's default stays");
	cr_assert_eq(mcinit_cfg_val(&c, h)->i, 5, "the other keys are read");
	cr_assert_eq(d.n, 1, "one warning, none for the key at its default");
	e = &d.v[0];
	cr_assert_str_eq(e->code, "MC003");
	cr_assert_eq(e->sev, MCINIT_WARNING);
	cr_assert_eq(e->loc.line, 3);
	cr_assert_str_eq(
	    e->message,
	    "scheduler.lr_decay_steps is computed by Megatron-Bridge (a dataclass field "
	    "with init=False): its from_yaml drops a file's key of it, so this value "
	    "never applies");
	mcinit_config_pending_errors(&c, &d);
	cr_assert_eq(d.n, 1, "nothing refused");
}
