/* Unit tests: repairs, derived values (against hand computations and
 * Megatron's formulas) and the rule table (its documentation: tests/unit/doc). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "rules/bchecks.h"
#include "rules/mchecks.h"
#include "input/pyexpr.h"
#include "rules/rules-impl.h"
#include "config/mflags.h"
#include "rules/rules.h"

static struct mcinit_config c;
static struct mcinit_diags d;
static struct mcinit_derived dv;
static char *const no_env[] = {NULL};

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

TestSuite(rules, .init = setup, .fini = teardown);

/* Loads a job: a small valid model with `model` and `train` fragments
 * (each empty or starting with a comma), `more` extra sections (empty or
 * starting with a comma) and world size w; then runs every check with an
 * empty environment. */
/* `key` with its default unless the fragment sets it. */
static void
dflt(char *buf, size_t len, const char *frag, const char *key, const char *value)
{
	char q[64];

	snprintf(q, sizeof q, "\"%s\"", key);
	if (strstr(frag, q) == NULL)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s: %s", *buf ? ", " : "", q,
		         value);
}

/* Loads a job: a small valid model with `model` and `train` fragments
 * (each empty or starting with a comma; a key they set replaces the
 * default), `more` extra sections (empty or starting with a comma) and world
 * size w; then runs every check, with an empty environment unless o says. */
static void
job_opts(const char *model, const char *train, const char *more, long w,
         struct mcinit_check_opts *o)
{
	struct mcinit_err err = {0};
	char m[256] = "", t[128] = "", *text;
	int n;

	dflt(m, sizeof m, model, "num_layers", "32");
	dflt(m, sizeof m, model, "hidden_size", "4096");
	dflt(m, sizeof m, model, "num_attention_heads", "32");
	dflt(m, sizeof m, model, "seq_length", "4096");
	dflt(m, sizeof m, model, "max_position_embeddings", "4096");
	dflt(t, sizeof t, train, "micro_batch_size", "1");
	dflt(t, sizeof t, train, "train_iters", "10");
	n = asprintf(&text,
	             "{\"model\": {%s%s},\n \"train\": {%s%s},\n \"launch\": {\"world_size\": "
	             "%ld}%s}\n",
	             m, model, t, train, w, more);
	cr_assert_gt(n, 0);
	if (o->envp == NULL)
		o->envp = no_env;
	cr_assert_eq(mcinit_config_load_json_text(&c, "t.json", text, strlen(text), &d, &err), 0,
	             "%s", err.msg);
	mcinit_config_fill_megatron(&c, &d);
	mcinit_config_finish(&c, &d);
	cr_assert_eq(mcinit_check(&c, o, &dv, &d, &err), 0);
	for (n = 0; n < (int)d.n; n++)
		cr_assert(strcmp(d.v[n].code, "MC006") != 0 && strcmp(d.v[n].code, "MC003") != 0,
		          "test input: %s", d.v[n].message);
	free(text);
}

static void
job(const char *model, const char *train, const char *more, long w)
{
	struct mcinit_check_opts o = {0};

	job_opts(model, train, more, w, &o);
}

static size_t
count(const char *code)
{
	size_t i, n = 0;

	for (i = 0; i < d.n; i++)
		n += strcmp(d.v[i].code, code) == 0;
	return n;
}

static const struct mcinit_diag *
find(const char *code)
{
	size_t i;

	for (i = 0; i < d.n; i++)
		if (strcmp(d.v[i].code, code) == 0)
			return &d.v[i];
	return NULL;
}

/* ---- the table ---- */

Test(rules, table_has_every_rule_once_in_order)
{
	size_t i;
	int n;

	/* MC010-MC051, the topology-level, per-release and memory rules
	 * MC060-MC063, then Megatron's own checks MC200-MC206 and MC250-MC256,
	 * then Megatron-Bridge's MC300, MC301, MC350 and MC351 */
	static const char *const bridge[] = {"MC300", "MC301", "MC350", "MC351"};

	cr_assert_eq(mcinit_nrules, 42 + 4 + 14 + 4);
	for (i = 0; i < mcinit_nrules; i++) {
		const struct mcinit_rule *r = mcinit_rules[i];
		char want[8];

		if (i >= 60)
			snprintf(want, sizeof want, "%s", bridge[i - 60]);
		else
			snprintf(want, sizeof want, "MC%03zu",
			         i < 42   ? i + 10
			         : i < 46 ? i - 42 + 60
			         : i < 53 ? i - 46 + 200
			                  : i - 53 + 250);
		cr_assert_str_eq(r->code, want);
		cr_assert(r->doc && *r->doc && r->example && *r->example && r->fix && *r->fix,
		          "%s documented", r->code);
		cr_assert_neq(r->reads[0], MCINIT_F_COUNT, "%s reads something", r->code);
		cr_assert_not_null(r->check);
		cr_assert_eq(mcinit_rule_find(r->code), r);
	}
	for (n = 101; n <= 108; n++) {
		char code[16];
		int found = 0;

		snprintf(code, sizeof code, "MC%d", n);
		for (i = 0; i < mcinit_nrepairs; i++)
			found += strcmp(mcinit_repairs[i].code, code) == 0;
		/* MC102 is retired: Megatron-LM always takes params_dtype as
		 * pipeline_dtype, so there was never anything to report. */
		cr_assert_eq(found, n != 102, "repair %s documented once", code);
	}
	cr_assert_null(mcinit_rule_find("MC999"));
}

/* ---- D4, D5: model shape ---- */

Test(rules, swiglu_ffn_matches_megatron_formula)
{
	long long h;

	cr_assert_eq(mcinit_default_ffn_hidden_size(4096, true), 10880);
	cr_assert_eq(mcinit_default_ffn_hidden_size(4096, false), 16384);
	cr_assert_eq(mcinit_default_ffn_hidden_size(5120, true), 13632);
	cr_assert_eq(mcinit_default_ffn_hidden_size(12288, true), 32768);
	/* int((4*h*2/3)/64)*64, as Python evaluates it */
	for (h = 1; h < 70000; h += 7) {
		long long want = (long long)((4.0 * (double)h * 2.0 / 3.0) / 64.0) * 64;

		cr_assert_eq(mcinit_default_ffn_hidden_size(h, true), want, "h=%lld", h);
		cr_assert_eq(mcinit_default_ffn_hidden_size(h, true) % 64, 0);
	}
}

Test(rules, derived_ffn_and_kv_channels)
{
	job(", \"swiglu\": true", "", "", 8);
	cr_assert(dv.ffn_ok && dv.kv_ok);
	cr_assert_eq(dv.ffn_hidden_size, 10880);
	cr_assert_eq(dv.kv_channels, 128);
	cr_assert(!dv.moe_ffn_ok);
}

Test(rules, explicit_ffn_wins_and_moe_ffn_follows_it)
{
	job(", \"swiglu\": true, \"ffn_hidden_size\": 14336, \"num_moe_experts\": 8", "", "", 8);
	cr_assert_eq(dv.ffn_hidden_size, 14336);
	cr_assert(dv.moe_ffn_ok);
	cr_assert_eq(dv.moe_ffn_hidden_size, 14336);
}

/* ---- D1, D3, R3 ---- */

Test(rules, topology_example_a_sizes)
{
	job(", \"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 2, "
	    "\"context_parallel_size\": 2",
	    "", "", 16);
	cr_assert(dv.dp_ok && dv.etp_ok && dv.edp_ok);
	cr_assert_eq(dv.dp, 2);
	cr_assert_eq(dv.etp, 2);
	cr_assert_eq(dv.edp, 4);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
}

Test(rules, topology_example_b_is_mc034)
{
	job(", \"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 2, "
	    "\"context_parallel_size\": 2",
	    "", ", \"dist\": {\"use_tp_pp_dp_mapping\": true}", 16);
	cr_assert_eq(count("MC034"), 1);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 1);
}

Test(rules, topology_example_c_sizes)
{
	job(", \"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 2, "
	    "\"expert_model_parallel_size\": 4, \"expert_tensor_parallel_size\": 1, "
	    "\"num_moe_experts\": 8, \"sequence_parallel\": true",
	    "", "", 16);
	cr_assert_eq(dv.dp, 4);
	cr_assert_eq(dv.etp, 1);
	cr_assert_eq(dv.edp, 2);
	cr_assert_eq(count("MC103"), 0, "ETP was given");
}

Test(rules, etp_default_megatron_lm_vs_bridge)
{
	struct mcinit_check_opts o = {.bridge_defaults = true};
	const char *moe = ", \"tensor_model_parallel_size\": 2, \"expert_model_parallel_size\": 4, "
	                  "\"num_moe_experts\": 8, \"sequence_parallel\": true";

	job(moe, "", "", 16);
	cr_assert_eq(dv.etp, 2);
	cr_assert_eq(dv.edp, 2);
	cr_assert_eq(count("MC103"), 1);
	cr_assert_eq(find("MC103")->sev, MCINIT_NOTE);
	cr_assert_eq(mcinit_cfg_int(&c, MCINIT_F_expert_tensor_parallel_size), 2);
	teardown();
	setup();
	job_opts(moe, "", "", 16, &o);
	cr_assert_eq(dv.etp, 1);
	cr_assert_eq(dv.edp, 4);
	cr_assert(strstr(find("MC103")->message, "Megatron-Bridge") != NULL);
}

/* ---- D6, D7, D11 ---- */

Test(rules, global_batch_defaults_to_mbs_times_dp)
{
	job("", ", \"micro_batch_size\": 2", "", 8);
	cr_assert_eq(dv.gbs, 16);
	cr_assert_eq(dv.num_micro_batches, 1);
}

Test(rules, micro_batches_from_gbs)
{
	job(", \"pipeline_model_parallel_size\": 2", ", \"global_batch_size\": 128", "", 16);
	cr_assert_eq(dv.dp, 8);
	cr_assert_eq(dv.num_micro_batches, 16);
}

Test(rules, decrease_batch_size_rounds_down_with_a_note)
{
	job("", ", \"global_batch_size\": 100, \"decrease_batch_size_if_needed\": true", "", 8);
	cr_assert_eq(dv.gbs, 100);
	cr_assert_eq(dv.running_gbs, 96);
	cr_assert_eq(dv.num_micro_batches, 12);
	cr_assert_eq(count("MC109"), 1);
	cr_assert_eq(count("MC012"), 0);
}

Test(rules, mc012_suggests_nearest_global_batch_sizes)
{
	job("", ", \"micro_batch_size\": 2, \"global_batch_size\": 100", "", 8);
	cr_assert_eq(count("MC012"), 1);
	cr_assert_str_eq(find("MC012")->loc.source, "t.json");
	cr_assert(strstr(find("MC012")->hint, "96 or 112") != NULL, "%s", find("MC012")->hint);
	cr_assert(!dv.nmb_ok);
}

Test(rules, train_iters_from_samples)
{
	job("",
	    ", \"train_iters\": null, \"train_samples\": 146484375, \"global_batch_size\": 1536",
	    "", 8);
	cr_assert(dv.train_iters_ok);
	cr_assert_eq(dv.train_iters, 146484375 / 1536);
}

Test(rules, train_iters_with_rampup_as_megatron_counts_them)
{
	/* GPT-3's ramp-up; 111354 from Megatron-LM's update_train_iters loop. */
	job("",
	    ", \"train_iters\": null, \"train_samples\": 146484375, \"global_batch_size\": 1536, "
	    "\"rampup_batch_size\": [16, 16, 5859375]",
	    "", 8);
	cr_assert_eq(count("MC041"), 0);
	cr_assert_eq(dv.train_iters, 111354);
}

/* ---- D2, D8: pipeline ---- */

Test(rules, vpp_from_layers_per_virtual_stage)
{
	job(", \"pipeline_model_parallel_size\": 4, \"num_layers_per_virtual_pipeline_stage\": 2",
	    "", "", 8);
	cr_assert(dv.vpp_ok && dv.layers_ok);
	cr_assert_eq(dv.vpp, 4);
	cr_assert_eq(dv.chunks_per_stage, 4);
	cr_assert_eq(dv.layers[0], 2);
	cr_assert_eq(dv.layers[15], 2);
}

Test(rules, vpp_with_embedding_and_loss_accounted)
{
	/* (30 + 1 + 1) / 4 = 8 per stage, / 2 = VPP 4; the first and last
	 * chunks give one slot to the embedding and the loss. */
	job(", \"num_layers\": 30, \"pipeline_model_parallel_size\": 4, "
	    "\"num_layers_per_virtual_pipeline_stage\": 2, "
	    "\"account_for_embedding_in_pipeline_split\": true, "
	    "\"account_for_loss_in_pipeline_split\": true",
	    "", "", 8);
	cr_assert_eq(dv.vpp, 4);
	cr_assert(dv.layers_ok);
	cr_assert_eq(dv.layers[0], 1);
	cr_assert_eq(dv.layers[1], 2);
	cr_assert_eq(dv.layers[15], 1);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
}

Test(rules, vpp_one_is_none)
{
	json_t *j;

	job(", \"pipeline_model_parallel_size\": 2, \"num_virtual_stages_per_pipeline_rank\": 1",
	    "", "", 8);
	cr_assert(dv.vpp_ok);
	cr_assert_eq(dv.vpp, 0);
	j = mcinit_derived_to_json(&dv);
	cr_assert(json_is_null(json_object_get(j, "virtual_pipeline_model_parallel_size")));
	json_decref(j);
	cr_assert_eq(count("MC107"), 1, "no interleaving: p2p overlap is turned off, noted");
	cr_assert(!mcinit_cfg_bool(&c, MCINIT_F_overlap_p2p_comm));
}

Test(rules, layout_parses_like_megatron)
{
	int t[64];
	long n, i, sum = 0;
	char *why = NULL;

	n = mcinit_layout_parse("Et*3|(tt|)*29,m|L", t, 64, &why);
	cr_assert_eq(n, 32);
	cr_assert_null(why);
	cr_assert_eq(t[0], 3);
	for (i = 1; i < 30; i++)
		cr_assert_eq(t[i], 2);
	cr_assert_eq(t[30], 0);
	cr_assert_eq(t[31], 0);
	for (i = 0; i < n; i++)
		sum += t[i];
	cr_assert_eq(sum, 61);
	cr_assert_eq(mcinit_layout_parse("EttttL", NULL, 0, NULL), 1);
	cr_assert_eq(mcinit_layout_parse("(|t)*3", NULL, 0, NULL), 4);
}

Test(rules, layout_rejects_bad_characters_and_huge_unrolls)
{
	char *why = NULL;

	cr_assert_eq(mcinit_layout_parse("Et x|L", NULL, 0, &why), -1);
	cr_assert(strstr(why, "' ' is not a layer") != NULL, "%s", why);
	free(why);
	why = NULL;
	cr_assert_eq(mcinit_layout_parse("E(t*99999|)*99999L", NULL, 0, &why), -1);
	cr_assert(strstr(why, "more than") != NULL, "%s", why);
	free(why);
}

Test(rules, layout_gives_vpp_and_layers)
{
	/* Megatron-LM's own example layout; its m needs mtp_num_layers 1 */
	job(", \"num_layers\": 61, \"pipeline_model_parallel_size\": 16, "
	    "\"pipeline_model_parallel_layout\": \"Et*3|(tt|)*29,m|L\", \"mtp_num_layers\": 1, "
	    "\"position_embedding_type\": \"rope\"",
	    "", "", 16);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
	cr_assert_eq(dv.vpp, 2);
	cr_assert(dv.layers_ok);
	cr_assert_eq(dv.layers[0 * 2 + 0], 3);  /* stage 0, virtual 0: layout stage 0 */
	cr_assert_eq(dv.layers[0 * 2 + 1], 2);  /* stage 0, virtual 1: layout stage 16 */
	cr_assert_eq(dv.layers[14 * 2 + 1], 0); /* layout stage 30: m */
	cr_assert_eq(dv.layers[15 * 2 + 1], 0); /* layout stage 31: L */
}

Test(rules, uneven_pipeline_layers)
{
	static const int want[] = {7, 8, 8, 8, 8, 8, 8, 6};
	int i;

	job(", \"num_layers\": 61, \"pipeline_model_parallel_size\": 8, "
	    "\"num_layers_in_first_pipeline_stage\": 7, \"num_layers_in_last_pipeline_stage\": 6",
	    "", "", 8);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
	cr_assert(dv.layers_ok);
	for (i = 0; i < 8; i++)
		cr_assert_eq(dv.layers[i], want[i], "stage %d", i);
}

Test(rules, uneven_pipeline_without_middle_stage_loses_layers)
{
	job(", \"num_layers\": 24, \"pipeline_model_parallel_size\": 2, "
	    "\"num_layers_in_first_pipeline_stage\": 10, \"num_layers_in_last_pipeline_stage\": 10",
	    "", "", 8);
	cr_assert_eq(count("MC025"), 1);
	cr_assert(strstr(find("MC025")->message, "silently drop") != NULL);
	cr_assert(!dv.layers_ok);
}

Test(rules, mc020_suggests_an_uneven_split)
{
	job(", \"num_layers\": 30, \"pipeline_model_parallel_size\": 4", "", "", 8);
	cr_assert_eq(count("MC020"), 1);
	cr_assert(strstr(find("MC020")->hint, "28 or 32") != NULL, "%s", find("MC020")->hint);
	cr_assert(strstr(find("MC020")->hint, "--decoder-first-pipeline-num-layers 8 "
	                                      "--decoder-last-pipeline-num-layers 8") != NULL,
	          "%s", find("MC020")->hint);
}

/* ---- D9, D10, MC049 ---- */

Test(rules, sequence_length_multiple)
{
	job(", \"tensor_model_parallel_size\": 4, \"context_parallel_size\": 2, "
	    "\"sequence_parallel\": true",
	    "", "", 8);
	cr_assert_eq(dv.seq_multiple, 8); /* lcm(2*2, 2*4) */
	teardown();
	setup();
	job(", \"tensor_model_parallel_size\": 8, \"sequence_parallel\": true", "", "", 8);
	cr_assert_eq(dv.seq_multiple, 8);
	teardown();
	setup();
	job(", \"context_parallel_size\": 4", "", "", 8);
	cr_assert_eq(dv.seq_multiple, 8);
	teardown();
	setup();
	job(", \"tensor_model_parallel_size\": 2, \"context_parallel_size\": 3, "
	    "\"sequence_parallel\": true",
	    "", "", 6);
	cr_assert_eq(dv.seq_multiple, 6); /* lcm(2*3, 3*2) */
	/* 4096 is a multiple of neither 2*CP nor CP*TP: two requirements */
	cr_assert_eq(count("MC026"), 1);
	cr_assert_eq(count("MC027"), 1);
	cr_assert(strstr(find("MC026")->hint, "4092 or 4098") != NULL, "%s", find("MC026")->hint);
}

Test(rules, padded_vocab)
{
	cr_assert_eq(mcinit_padded_vocab_size(50257, 128, 1), 50304);
	cr_assert_eq(mcinit_padded_vocab_size(50257, 128, 8), 51200);
	cr_assert_eq(mcinit_padded_vocab_size(128256, 128, 2), 128256);
	job(", \"vocab_size\": 50257, \"tensor_model_parallel_size\": 8", "", "", 8);
	cr_assert_eq(dv.padded_vocab_size, 51200);
	cr_assert_eq(count("MC049"), 1);
	cr_assert_eq(find("MC049")->sev, MCINIT_NOTE);
}

Test(rules, seeds)
{
	job(", \"pipeline_model_parallel_size\": 4", "",
	    ", \"rng\": {\"seed\": 1234, \"data_parallel_random_init\": true}", 16);
	cr_assert(dv.seeds_ok);
	cr_assert_eq(dv.seed_model_parallel, 1234 + 2718);
	cr_assert_eq(dv.seed_expert_parallel, 1234 + 1024);
	cr_assert_eq(dv.seed_max, 1234 + 300 + 10 * 3);
}

/* ---- rules that depend on versions, options and the environment ---- */

Test(rules, mc015_is_stricter_for_r015)
{
	const char *m = ", \"tensor_model_parallel_size\": 4, \"group_query_attention\": true, "
	                "\"num_query_groups\": 2";

	job(m, "", "", 8);
	cr_assert_eq(count("MC015"), 0, "main: a divisor of TP is fine");
	teardown();
	mcinit_config_init(&c, MCINIT_MV_R015);
	mcinit_diags_init(&d);
	job(m, "", "", 8);
	cr_assert_eq(count("MC015"), 1);
}

Test(rules, mc043_seed_collision)
{
	const char *m = ", \"tensor_model_parallel_size\": 8, \"expert_model_parallel_size\": 18, "
	                "\"num_moe_experts\": 36, \"sequence_parallel\": true, "
	                "\"expert_tensor_parallel_size\": ";
	char buf[256];

	snprintf(buf, sizeof buf, "%s2", m);
	job(buf, "", "", 72);
	cr_assert_eq(count("MC043"), 1);
	cr_assert(strstr(find("MC043")->message, "rank 70") != NULL);
	teardown();
	setup();
	snprintf(buf, sizeof buf, "%s1", m);
	job(buf, "", "", 72);
	cr_assert_eq(count("MC043"), 0);
}

Test(rules, mc044_reads_env_vars_and_process_env)
{
	char *env[] = {"CUDA_DEVICE_MAX_CONNECTIONS=8", NULL};
	struct mcinit_check_opts o = {.envp = env};
	const char *m = ", \"tensor_model_parallel_size\": 2";

	job(m, "", ", \"env_vars\": {\"CUDA_DEVICE_MAX_CONNECTIONS\": 1}", 8);
	cr_assert_eq(count("MC044"), 0, "env_vars 1 (an integer) reads as \"1\"");
	teardown();
	setup();
	job(m, "", "", 8);
	cr_assert_eq(count("MC044"), 1);
	cr_assert_eq(find("MC044")->sev, MCINIT_WARNING, "GPU architecture unknown");
	teardown();
	setup();
	/* The process environment wins over env_vars (setdefault semantics). */
	job_opts(m, "",
	         ", \"env_vars\": {\"CUDA_DEVICE_MAX_CONNECTIONS\": \"1\"}, "
	         "\"dist\": {\"distributed_timeout_minutes\": 5}",
	         8, &o);
	cr_assert_eq(count("MC044"), 1);
	teardown();
	setup();
	o.gpu_arch = 90;
	job_opts(m, "", "", 8, &o);
	cr_assert_eq(find("MC044")->sev, MCINIT_ERROR);
	cr_assert(strstr(find("MC044")->message, "which is 8") != NULL, "%s",
	          find("MC044")->message);
	teardown();
	setup();
	o.gpu_arch = 100; /* Blackwell: no requirement */
	job_opts(m, "", "", 8, &o);
	cr_assert_eq(count("MC044"), 0);
}

Test(rules, mc046_estimates_cross_node_traffic)
{
	struct mcinit_check_opts o = {.nnodes = 2, .nproc_per_node = 4};

	/* 2 x 7/8 x 2048 x 1 x 4096 x 2 bytes = 28 MiB per all-reduce */
	job_opts(", \"tensor_model_parallel_size\": 8, \"seq_length\": 2048, \"bf16\": true", "",
	         "", 8, &o);
	cr_assert_eq(count("MC046"), 1);
	cr_assert_eq(find("MC046")->sev, MCINIT_WARNING);
	cr_assert(strstr(find("MC046")->message, "28.0 MiB per rank") != NULL, "%s",
	          find("MC046")->message);
	cr_assert(strstr(find("MC046")->message, "112.0 MiB per layer") != NULL);
}

Test(rules, mc045_is_an_error_only_in_run_mode)
{
	struct mcinit_check_opts o = {.cuda_probed = true, .cuda_devices = 0, .run_mode = true};

	job_opts("", "", "", 8, &o);
	cr_assert_eq(find("MC045")->sev, MCINIT_ERROR);
	teardown();
	setup();
	o.allow_no_cuda = true;
	job_opts("", "", "", 8, &o);
	cr_assert_eq(find("MC045")->sev, MCINIT_WARNING);
	teardown();
	setup();
	job("", "", "", 8); /* validate, nothing probed: silent */
	cr_assert_eq(count("MC045"), 0);
}

/* ---- repairs, several mistakes, robustness ---- */

Test(rules, repairs_are_notes_and_change_the_config)
{
	job(", \"sequence_parallel\": true, \"num_moe_experts\": 0, \"cuda_graph_impl\": \"local\"",
	    "", ", \"dist\": {\"lazy_mpu_init\": true}", 8);
	cr_assert_eq(count("MC101"), 1);
	cr_assert_eq(count("MC104"), 1);
	cr_assert_eq(count("MC105"), 1);
	cr_assert_eq(count("MC106"), 1);
	cr_assert_eq(find("MC101")->sev, MCINIT_NOTE);
	cr_assert(!mcinit_cfg_bool(&c, MCINIT_F_sequence_parallel));
	cr_assert_eq(c.origin[MCINIT_F_sequence_parallel], MCINIT_ORIG_REPAIR);
	cr_assert_str_eq(c.loc[MCINIT_F_sequence_parallel].source, "t.json");
	cr_assert(mcinit_cfg_null(&c, MCINIT_F_num_moe_experts));
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_use_cpu_initialization));
	cr_assert(mcinit_cfg_bool(&c, MCINIT_F_te_rng_tracker));
	cr_assert_str_eq(mcinit_cfg_str(&c, MCINIT_F_params_dtype), "fp32");
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 0);
}

Test(rules, three_independent_mistakes_three_errors)
{
	job(", \"hidden_size\": 3072, \"num_attention_heads\": 12, \"tensor_model_parallel_size\": "
	    "8, \"max_position_embeddings\": 2048",
	    ", \"global_batch_size\": 99", "", 16);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 3);
	cr_assert_eq(count("MC012"), 1);
	cr_assert_eq(count("MC014"), 1);
	cr_assert_eq(count("MC030"), 1);
}

/* Every required field missing in turn: its rules are skipped (no division
 * by a zero that was never given), and only MC008 reports it. */
Test(rules, missing_inputs_skip_rules)
{
	static const char *const fields[] = {"num_layers", "hidden_size", "num_attention_heads",
	                                     "seq_length"};
	size_t i, k;

	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		struct mcinit_check_opts o = {.envp = no_env, .nproc_per_node = 4};
		struct mcinit_err err = {0};
		char text[512], given[256] = "";

		for (k = 0; k < sizeof fields / sizeof fields[0]; k++)
			if (k != i)
				snprintf(given + strlen(given), sizeof given - strlen(given),
				         "\"%s\": 4, ", fields[k]);
		teardown();
		setup();
		snprintf(text, sizeof text,
		         "{\"model\": {%s\"tensor_model_parallel_size\": 2, "
		         "\"context_parallel_size\": 2, \"sequence_parallel\": true}, \"train\": "
		         "{\"train_iters\": 1}, \"launch\": {\"world_size\": 8}}",
		         given);
		cr_assert_eq(
		    mcinit_config_load_json_text(&c, "t.json", text, strlen(text), &d, &err), 0);
		mcinit_config_fill_megatron(&c, &d);
		mcinit_config_finish(&c, &d);
		cr_assert_eq(mcinit_check(&c, &o, &dv, &d, &err), 0);
		for (k = 0; k < d.n; k++)
			cr_assert(d.v[k].sev != MCINIT_ERROR || strcmp(d.v[k].code, "MC008") == 0,
			          "without %s: %s %s", fields[i], d.v[k].code, d.v[k].message);
	}
}

Test(rules, derived_json_uses_megatron_names)
{
	static const char *const keys[] = {"data_parallel_size",
	                                   "expert_data_parallel_size",
	                                   "expert_tensor_parallel_size",
	                                   "virtual_pipeline_model_parallel_size",
	                                   "global_batch_size",
	                                   "num_micro_batches",
	                                   "ffn_hidden_size",
	                                   "kv_channels",
	                                   "sequence_parallel",
	                                   "layers_per_stage",
	                                   "seq_length_multiple",
	                                   "world_size",
	                                   "world_size_source"};
	json_t *j;
	size_t i;

	job(", \"pipeline_model_parallel_size\": 2", ", \"global_batch_size\": 64", "", 8);
	j = mcinit_derived_to_json(&dv);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cr_assert_not_null(json_object_get(j, keys[i]), "%s", keys[i]);
	cr_assert_eq(json_integer_value(json_object_get(j, "num_micro_batches")), 16);
	cr_assert_eq(json_array_size(json_object_get(j, "layers_per_stage")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(j, "world_size_source")),
	                 "launch.world_size");
	json_decref(j);
}

Test(rules, absurd_sizes_are_rejected_before_any_product)
{
	job(", \"tensor_model_parallel_size\": 4611686018427387904, "
	    "\"pipeline_model_parallel_size\": 4",
	    "", "", 8);
	cr_assert_eq(count("MC005"), 1);
	cr_assert_eq(mcinit_diags_count(&d, MCINIT_ERROR), 1, "dependent rules are skipped");
	cr_assert(c.invalid[MCINIT_F_tensor_model_parallel_size]);
	cr_assert(!dv.dp_ok);
}

#define MT (&mcinit_ports_megatron)
#define BT (&mcinit_ports_bridge)

static bool
in_release(const struct mcinit_port *m, unsigned v)
{
	return (m->releases & v) != 0;
}

static const struct mcinit_port *
mcheck_row(const char *id)
{
	size_t i;

	for (i = 0; i < mcinit_nmchecks; i++)
		if (strcmp(mcinit_mchecks[i].id, id) == 0)
			return &mcinit_mchecks[i];
	return NULL;
}

/* The port action `versions`: "r0.17+" is r0.17 and every newer release,
 * "main" only main, no row every release. */
Test(rules, mcheck_rows_are_selected_per_release)
{
	const struct mcinit_port *from17 = mcheck_row("megatron/training/arguments.py:1248");
	const struct mcinit_port *only_main = mcheck_row("megatron/training/arguments.py:530");
	const struct mcinit_port *all = mcheck_row("megatron/training/arguments.py:1105");

	cr_assert(from17 && only_main && all);
	cr_expect(!in_release(from17, MCINIT_MV_R015));
	cr_expect(!in_release(from17, MCINIT_MV_R016));
	cr_expect(in_release(from17, MCINIT_MV_R017));
	cr_expect(in_release(from17, MCINIT_MV_R019));
	cr_expect(in_release(from17, MCINIT_MV_MAIN));
	cr_expect(!in_release(only_main, MCINIT_MV_R019));
	cr_expect(in_release(only_main, MCINIT_MV_MAIN));
	cr_expect_eq(all->releases, (unsigned)MCINIT_MV_ALL);
}

/* The table of derived and mapped names is bisected: it must stay sorted,
 * and each of its names resolves. */
Test(rules, mcheck_specials_are_sorted)
{
	const char *prev = NULL, *name;
	size_t i;

	for (i = 0; (name = mcinit_mcheck_special_at(i)) != NULL; i++) {
		if (prev != NULL)
			cr_assert(strcmp(prev, name) < 0, "%s before %s", prev, name);
		cr_assert(mcinit_mcheck_name_known(name, "megatron/training/arguments.py:1"), "%s",
		          name);
		prev = name;
	}
	cr_assert_gt(i, 0);
	cr_assert_not(mcinit_mcheck_name_known("no_such_name", "megatron/training/arguments.py:1"));
}

/* The code of a row, as the table's sources and kinds give it. */
static const char *
code_by_hand(const struct mcinit_port *m)
{
	static const char *const sources[] = {
	    "megatron/training/arguments.py",
	    "megatron/core/transformer/",
	    "megatron/core/model_parallel_config.py",
	    "megatron/core/optimizer/",
	    "megatron/core/distributed/",
	    "megatron/core/num_microbatches_calculator.py",
	    "megatron/training/config/",
	};
	static char code[8];
	bool warn = strcmp(m->kind, "warn") == 0;
	size_t i;

	if (m->sev != NULL)
		warn = strcmp(m->sev, "error") != 0;
	for (i = 0; i < sizeof sources / sizeof sources[0]; i++)
		if (strncmp(m->id, sources[i], strlen(sources[i])) == 0)
			break;
	snprintf(code, sizeof code, "MC%zu", (warn ? 250 : 200) + (i < 7 ? i : 0));
	return code;
}

/* The generated code of each row, and the rows each table rule runs: every
 * row whose status can be its code, in table order, and no other. */
Test(rules, mcheck_codes_and_runs_agree_with_the_rows)
{
	static const char *const codes[] = {"MC200", "MC201", "MC202", "MC203", "MC204",
	                                    "MC205", "MC206", "MC250", "MC251", "MC252",
	                                    "MC253", "MC254", "MC255", "MC256"};
	size_t ci, i, k, n, total = 0;

	for (i = 0; i < mcinit_nmchecks; i++)
		cr_expect_str_eq(mcinit_port_code(MT, &mcinit_mchecks[i]),
		                 code_by_hand(&mcinit_mchecks[i]), "%s", mcinit_mchecks[i].id);
	for (ci = 0; ci < sizeof codes / sizeof codes[0]; ci++) {
		const unsigned short *rows = mcinit_port_runs(MT, codes[ci], &n);

		for (i = k = 0; i < mcinit_nmchecks; i++) {
			const struct mcinit_port *m = &mcinit_mchecks[i];
			const char *why, *code = mcinit_port_status(MT, m, &why);
			bool runs = m->rule == NULL && m->no == NULL && m->offline && m->vetted &&
			            (m->when != NULL || m->cond[0] != '\0') &&
			            strcmp(mcinit_port_code(MT, m), codes[ci]) == 0;

			if (!runs) {
				cr_expect(
				    code == NULL || m->rule != NULL || strcmp(code, codes[ci]) != 0,
				    "%s has status %s but is not among its rows", m->id, codes[ci]);
				continue;
			}
			/* the rule runs it without asking its status: a vetted
			 * row must read only names the resolver knows */
			cr_expect(code != NULL && strcmp(code, codes[ci]) == 0,
			          "%s is vetted as %s but its status is %s", m->id, codes[ci],
			          code ? code : why);
			cr_assert_lt(k, n, "%s", m->id);
			cr_expect_eq(rows[k], i, "%s", m->id);
			k++;
		}
		cr_expect_eq(k, n, "%s", codes[ci]);
		total += n;
	}
	cr_expect_gt(total, 0);
	n = 1;
	mcinit_port_runs(MT, "MC999", &n);
	cr_expect_eq(n, 0);
}

/* The rows each Bridge table rule runs: every row whose status can be its
 * code, in table order, and no other; each with that code as its status. */
Test(rules, bcheck_runs_agree_with_the_rows)
{
	static const char *const codes[] = {"MC300", "MC301", "MC350", "MC351"};
	size_t ci, i, k, n, total = 0;

	for (ci = 0; ci < sizeof codes / sizeof codes[0]; ci++) {
		const unsigned short *rows = mcinit_port_runs(BT, codes[ci], &n);

		for (i = k = 0; i < mcinit_nbchecks; i++) {
			const struct mcinit_port *b = &mcinit_bchecks[i];
			const char *why, *code = mcinit_port_status(BT, b, &why);
			bool runs = b->rule == NULL && b->dup == NULL && b->no == NULL &&
			            b->offline && b->vetted &&
			            (b->when != NULL || b->cond[0] != '\0') &&
			            strcmp(mcinit_bcheck_code(b), codes[ci]) == 0;

			if (!runs) {
				cr_expect(code == NULL || b->rule != NULL || b->dup != NULL ||
				              strcmp(code, codes[ci]) != 0,
				          "%s has status %s but is not among its rows", b->id,
				          codes[ci]);
				continue;
			}
			cr_expect(code != NULL && strcmp(code, codes[ci]) == 0,
			          "%s is vetted as %s but its status is %s", b->id, codes[ci],
			          code ? code : why);
			cr_assert_lt(k, n, "%s", b->id);
			cr_expect_eq(rows[k], i, "%s", b->id);
			k++;
		}
		cr_expect_eq(k, n, "%s", codes[ci]);
		total += n;
	}
	cr_expect_gt(total, 0);
}

/* A row finds its function's locals, and only those. */
Test(rules, bcheck_locals_are_the_rows_function)
{
	size_t i, j;

	for (i = 0; i < mcinit_nbchecks; i++) {
		const struct mcinit_port *b = &mcinit_bchecks[i];

		for (j = 0; mcinit_blocals[j].function != NULL; j++) {
			const struct mcinit_port_local *l = &mcinit_blocals[j];
			bool own = strcmp(l->function, b->function) == 0;

			cr_expect_eq(j >= mcinit_bscope(b)->loc &&
			                 j < (size_t)mcinit_bscope(b)->loc + mcinit_bscope(b)->nloc,
			             own, "%s: %s %s", b->id, l->function, l->name);
		}
	}
}

/* Rows that share a parsed guard have the same guard text. */
Test(rules, mcheck_shared_guards_are_the_same_text)
{
	size_t i;

	for (i = 0; i < mcinit_nmchecks; i++) {
		const struct mcinit_port *m = &mcinit_mchecks[i];

		cr_assert_leq(m->gsame, i, "%s", m->id);
		cr_expect_str_eq(mcinit_mchecks[m->gsame].guard, m->guard, "%s", m->id);
	}
}

/* ---- the kept bindings of names (mcinit_mcheck_bind) ---- */

struct bind_walk {
	unsigned version;
	const char *section;
	size_t n;
};

/* What the name stands for, asked of the tables directly. */
static void
bind_by_hand(const char *name, unsigned v, const char *sec, struct mcinit_mcheck_binding *b)
{
	*b = (struct mcinit_mcheck_binding){.kind = MB_NONE, .s = S_NONE, .f = -1};
	if (mcinit_mcheck_module_function(name)) {
		b->kind = MB_FUNCTION;
		return;
	}
	if (name[0] == '%' && !mcinit_mcheck_calc_param(name)) {
		b->kind = MB_LOCAL;
		return;
	}
	b->skip = name[0] == '%';
	name += b->skip;
	if ((b->s = mcinit_mcheck_special(name)) != S_NONE)
		b->kind = MB_SPECIAL;
	else if (name[0] == '$')
		b->kind = MB_ENV;
	else if ((b->f = mcinit_mcheck_field(name, v, sec)) >= 0)
		b->kind = MB_FIELD;
	else if (mcinit_mcheck_constant(name))
		b->kind = MB_CONSTANT;
}

static void
check_binding(void *ctx, const char *name)
{
	struct bind_walk *w = ctx;
	struct mcinit_mcheck_binding want, got;

	bind_by_hand(name, w->version, w->section, &want);
	for (int again = 0; again < 2; again++) {
		got = mcinit_mcheck_bind(name, w->version, w->section);
		cr_assert(got.kind == want.kind && got.s == want.s && got.f == want.f &&
		              got.skip == want.skip,
		          "%s (version %#x, section %s): kept %d/%d/%d, by hand %d/%d/%d", name,
		          w->version, w->section ? w->section : "-", got.kind, got.s, got.f,
		          want.kind, want.s, want.f);
	}
	w->n++;
}

/* Every name of every row, in every release and in its row's section as
 * in none, binds as the tables say, the first time it is asked and after:
 * kept bindings are the decisions, whatever collides in the table. */
Test(rules, kept_bindings_are_the_tables_decisions)
{
	struct bind_walk w = {0};

	for (int bit = 0; bit < MCINIT_MV_COUNT; bit++)
		for (size_t i = 0; i < mcinit_nmchecks; i++) {
			const struct mcinit_port *m = &mcinit_mchecks[i];

			w.version = 1u << bit;
			for (int x = MCINIT_PX_WHEN; x <= MCINIT_PX_MESSAGE; x++) {
				const struct mcinit_pyexpr *t =
				    mcinit_port_expr(MT, m, (enum mcinit_port_expr)x);

				if (t == NULL)
					continue;
				w.section = mcinit_mcheck_row_section(m->id);
				mcinit_pyexpr_names(t, check_binding, &w);
				cr_assert_eq(mcinit_mcheck_row_section_at(i), w.section, "%s",
				             m->id);
				w.section = NULL;
				mcinit_pyexpr_names(t, check_binding, &w);
			}
		}
	cr_assert_gt(w.n, 1000);
}

/* MC063's changes under mcinit's model (issue 42): the recompute and CP
 * changes, and where the trainer would refuse them. */
Test(rules, memory_changes_recompute_and_cp)
{
	struct mcinit_mem_par a = {0}, b;

	a.heads = a.groups = 32;
	a.layers = 32;
	a.mbs = 1;
	a.nmb = 8;
	a.tp = a.pp = a.cp = a.ep = a.etp = 1;
	a.dp = 8;
	a.world = 8;
	/* selective recompute: only from none; full: from none or selective */
	cr_assert(mcinit_rules_memory_change(&a, 4, 64, &b));
	cr_assert_eq(b.recompute, 1);
	cr_assert(mcinit_rules_memory_change(&a, 5, 64, &b));
	cr_assert_eq(b.recompute, 2);
	a.recompute = 1;
	cr_assert(!mcinit_rules_memory_change(&a, 4, 64, &b));
	cr_assert(mcinit_rules_memory_change(&a, 5, 64, &b));
	a.recompute = 2;
	cr_assert(!mcinit_rules_memory_change(&a, 5, 64, &b));
	/* twice CP takes half the data-parallel ranks */
	cr_assert(mcinit_rules_memory_change(&a, 6, 64, &b));
	cr_assert_eq(b.cp, 2);
	cr_assert_eq(b.dp, 4);
	cr_assert_eq(b.tp, 1);
	/* an odd DP cannot give CP its ranks; nor a batch DP does not divide */
	a.dp = 3;
	cr_assert(!mcinit_rules_memory_change(&a, 6, 48, &b));
	a.dp = 8;
	cr_assert(!mcinit_rules_memory_change(&a, 6, 66, &b));
}
