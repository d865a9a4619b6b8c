/* Unit tests of the doc module (lib/doc): the code catalogue and its
 * renderings, the roff escaping, the sets of names the options take, the
 * completion of overrides and Megatron-LM flags, and --version's report;
 * each against the library's own tables. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "doc/doc.h"
#include "rules/rules.h"
#include "topo/affinity.h"
#include "topo/topology.h"

/* What a FILE * got, as a string the caller frees. */
static FILE *
mem_open(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	cr_assert_not_null(f);
	return f;
}

Test(doc, renders_every_code_as_roff_and_text)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = mem_open(&buf, &len);

	cr_assert_eq(mcinit_doc_codes(f, MCINIT_DOC_ROFF), 0);
	fclose(f);
	/* every hyphen is \-, so option names copy and paste from the page */
	cr_assert(strstr(buf, ".SS \"Cross\\-field rules") != NULL);
	for (i = 0; i < mcinit_nrules; i++) {
		char tp[32];

		snprintf(tp, sizeof tp, ".TP\n.BR %s ", mcinit_rules[i]->code);
		cr_assert(strstr(buf, tp) != NULL, "%s", tp);
	}
	cr_assert(strstr(buf, "MC108") != NULL);
	/* hyphens are literal and no text line starts a roff request by accident */
	cr_assert(strstr(buf, "\\-\\-world\\-size 12") != NULL);
	cr_assert(strstr(buf, "\n-") == NULL);
	free(buf);
	f = mem_open(&buf, &len);
	cr_assert_eq(mcinit_doc_codes(f, MCINIT_DOC_TEXT), 0);
	fclose(f);
	cr_assert(strstr(buf, "MC012 (error)\n") != NULL);
	cr_assert(strstr(buf, "reads: train.micro_batch_size") != NULL);
	cr_assert(strstr(buf, "MC033 (warning)") != NULL);
	free(buf);
	/* mcx_codes_roff is the ROFF rendering */
	f = mem_open(&buf, &len);
	cr_assert_eq(mcx_codes_roff(f), 0);
	fclose(f);
	cr_assert(strstr(buf, ".TP\n.BR MC012 \" (error)\"\n") != NULL);
	free(buf);
}

/* The catalogue is the four tables one after the other, each code once. */
Test(doc, code_words_are_the_four_tables_in_order)
{
	size_t n = mcinit_doc_ncodes(), i, k = 0;

	cr_assert_eq(n, mcinit_ninput_codes + mcinit_nrules + mcinit_naffinity_codes +
	                    mcinit_nrepairs);
	for (i = 0; i < mcinit_ninput_codes; i++)
		cr_assert_str_eq(mcx_word(MCX_WORDS_CODE, k++), mcinit_input_codes[i].code);
	for (i = 0; i < mcinit_nrules; i++)
		cr_assert_str_eq(mcx_word(MCX_WORDS_CODE, k++), mcinit_rules[i]->code);
	for (i = 0; i < mcinit_naffinity_codes; i++)
		cr_assert_str_eq(mcx_word(MCX_WORDS_CODE, k++), mcinit_affinity_codes[i].code);
	for (i = 0; i < mcinit_nrepairs; i++)
		cr_assert_str_eq(mcx_word(MCX_WORDS_CODE, k++), mcinit_repairs[i].code);
	cr_assert_null(mcx_word(MCX_WORDS_CODE, n));
	cr_assert_null(mcinit_doc_code_name(n + 100));
}

Test(doc, explain_block_of_a_rule)
{
	const struct mcinit_rule *r = mcinit_rule_find("MC012");
	char *buf = NULL, *want;
	size_t len = 0, i;
	FILE *f = mem_open(&buf, &len);

	cr_assert_not_null(r);
	for (i = 0; strcmp(mcx_word(MCX_WORDS_CODE, i), "MC012") != 0; i++)
		;
	cr_assert_eq(mcx_code_explain(f, i), 0);
	cr_assert_eq(mcx_code_explain(f, mcinit_doc_ncodes()), -1, "past the end");
	fclose(f);
	/* explain's block: no "reads:" line, a blank line after */
	cr_assert_gt(asprintf(&want, "MC012 (error)\n    %s\n    example: %s\n    fix: %s\n\n",
	                      r->doc, r->example, r->fix),
	             0);
	cr_assert_str_eq(buf, want);
	free(want);
	free(buf);
}

Test(doc, roff_escapes_what_would_be_markup)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = mem_open(&buf, &len);

	mcx_roff_text(f, ".starts a request\n\n\n'too\nuse `--world-size` \\ \"caf\xc3\xa9\" \xff");
	mcx_roff_th(f, "mcinit-x", 1, "mcinit 1.0");
	mcx_roff_sh(f, "A-B");
	mcx_roff_inline(f, "ab\0cd", 5);
	fclose(f);
	cr_assert_str_eq(buf,
	                 "\\&.starts a request\n"
	                 ".PP\n"
	                 "\\&'too\n"
	                 "use \\fB\\-\\-world\\-size\\fR \\e \\(dqcaf\\[u00E9]\\(dq \\[uFFFD]\n"
	                 ".TH \"MCINIT\\-X\" \"1\" \"\" \"mcinit 1.0\" \"mcinit manual\"\n"
	                 ".SH \"A\\-B\"\n"
	                 "ab");
	free(buf);
}

Test(doc, release_words_parse_and_are_named)
{
	const char *w, *names = mcx_word_names(MCX_WORDS_MEGATRON_VERSION);
	size_t i;
	char buf[512];
	int found_default = 0;

	cr_assert_not_null(names);
	for (i = 0; (w = mcx_word(MCX_WORDS_MEGATRON_VERSION, i)) != NULL; i++) {
		cr_assert_eq(mcx_word_parse(MCX_WORDS_MEGATRON_VERSION, w), 0, "%s", w);
		cr_assert(strstr(names, w) != NULL, "%s in %s", w, names);
		found_default |= strcmp(w, mcx_word_default(MCX_WORDS_MEGATRON_VERSION)) == 0;
	}
	cr_assert_eq(i, MCINIT_MV_COUNT);
	cr_assert(found_default);
	cr_assert_str_eq(mcx_word_default(MCX_WORDS_MEGATRON_VERSION),
	                 mcinit_mversion_name(mcinit_mversion_default()));
	cr_assert_eq(mcx_word_parse(MCX_WORDS_MEGATRON_VERSION, "r9.99"), -1);
	mcx_word_list(MCX_WORDS_MEGATRON_VERSION, buf, sizeof buf);
	cr_assert(strstr(buf, mcx_word(MCX_WORDS_MEGATRON_VERSION, 0)) == buf);

	for (i = 0; (w = mcx_word(MCX_WORDS_ENTRY_POINT, i)) != NULL; i++) {
		cr_assert_eq(mcx_word_parse(MCX_WORDS_ENTRY_POINT, w), 0, "%s", w);
		cr_assert(strstr(mcx_word_names(MCX_WORDS_ENTRY_POINT), w) != NULL, "%s", w);
	}
	cr_assert_eq(i, MCINIT_ME_COUNT);
	cr_assert_str_eq(mcx_word_default(MCX_WORDS_ENTRY_POINT), "pretrain_gpt");
	cr_assert_eq(mcx_word_parse(MCX_WORDS_ENTRY_POINT, "no_such_script"), -1);

	for (i = 0; (w = mcx_word(MCX_WORDS_BRIDGE_VERSION, i)) != NULL; i++)
		cr_assert_eq(mcx_word_parse(MCX_WORDS_BRIDGE_VERSION, w), 0, "%s", w);
	cr_assert_geq(i, 2);
	cr_assert_str_eq(mcx_word(MCX_WORDS_BRIDGE_VERSION, i - 1), "main");
	mcx_word_list(MCX_WORDS_BRIDGE_VERSION, buf, sizeof buf);
	cr_assert(strstr(buf, mcx_word_default(MCX_WORDS_BRIDGE_VERSION)) != NULL);
	/* a list cut to its buffer is still a string */
	cr_assert_str_eq(mcx_word_list(MCX_WORDS_BRIDGE_VERSION, buf, 3), "0.");
	cr_assert_null(mcx_word_names(MCX_WORDS_BRIDGE_VERSION));
	cr_assert_eq(mcx_word_parse(MCX_WORDS_CODE, "MC012"), -1, "only releases parse");
}

Test(doc, other_word_sets)
{
	size_t i;

	for (i = 0; i < MCINIT_GROUP_COUNT; i++)
		cr_assert_str_eq(mcx_word(MCX_WORDS_GROUP_KIND, i), mcinit_group_kind_name(i));
	cr_assert_null(mcx_word(MCX_WORDS_GROUP_KIND, i));
	cr_assert_str_eq(mcx_word(MCX_WORDS_INPUT_SUFFIX, 0), ".json");
	for (i = 0; mcx_word(MCX_WORDS_INPUT_SUFFIX, i) != NULL; i++)
		cr_assert_eq(mcx_word(MCX_WORDS_INPUT_SUFFIX, i)[0], '.');
	cr_assert_null(mcx_word(MCX_WORDS_INPUT_SUFFIX, i + 5), "past the end stays NULL");
	cr_assert(mcx_is_version("2.14.0"));
	cr_assert(mcx_is_version("2.9.1"));
	cr_assert(!mcx_is_version("two"));
}

/* ---- completion ---- */

static char got[1 << 16];

/* The program's offer: a candidate that starts with cur, one per line. */
static void
collect(const char *cand, const char *cur)
{
	if (strncmp(cand, cur, strlen(cur)) == 0 && strlen(got) + strlen(cand) + 2 < sizeof got) {
		strcat(got, cand);
		strcat(got, "\n");
	}
}

Test(doc, complete_override_keys_and_values)
{
	int f, b = -1;

	got[0] = '\0';
	cr_assert(!mcx_complete_override("mod", collect));
	cr_assert_str_eq(got, "model.\n");
	got[0] = '\0';
	cr_assert(!mcx_complete_override("model.tensor_model_parallel_s", collect));
	cr_assert_str_eq(got, "model.tensor_model_parallel_size=\n");
	/* a field whose type is bool alone: its two values, and no keys */
	for (f = 0; f < MCINIT_F_COUNT && b < 0; f++) {
		const struct mcinit_type *t = mcinit_field_type(f);

		if (t->nalt == 1 && t->alt[0].base == MCINIT_B_BOOL &&
		    mcinit_field_s(f, aliases) == NULL)
			b = f;
	}
	cr_assert_geq(b, 0);
	{
		char cur[200], want[512];

		snprintf(cur, sizeof cur, "%s.%s=", mcinit_field_s(b, section),
		         mcinit_field_s(b, name));
		snprintf(want, sizeof want, "%strue\n%sfalse\n", cur, cur);
		got[0] = '\0';
		cr_assert(mcx_complete_override(cur, collect));
		cr_assert_str_eq(got, want);
	}
	got[0] = '\0';
	cr_assert(!mcx_complete_override("model.no_such_field=", collect), "unknown: keys");
	cr_assert_str_eq(got, "");
}

Test(doc, complete_megatron_flags_and_values)
{
	got[0] = '\0';
	mcx_complete_megatron_flag(NULL, NULL, "--seq-len", collect);
	cr_assert(strstr(got, "--seq-length\n") != NULL, "%s", got);
	/* an unknown release is the default one: the same flags */
	{
		char *dflt = strdup(got);

		got[0] = '\0';
		mcx_complete_megatron_flag("no-such-release", "no-such-entry", "--seq-len",
		                           collect);
		cr_assert_str_eq(got, dflt);
		free(dflt);
	}
	got[0] = '\0';
	mcx_complete_megatron_value(NULL, NULL, "--attention-backend", "", collect);
	cr_assert(strstr(got, "flash\n") != NULL, "%s", got);
	got[0] = '\0';
	mcx_complete_megatron_value(NULL, NULL, "--no-such-flag", "", collect);
	cr_assert_str_eq(got, "");
}

/* ---- pages and reports ---- */

Test(doc, config_page_and_derived_values)
{
	char *buf = NULL;
	size_t len = 0;
	const char *help;
	FILE *f = mem_open(&buf, &len);

	cr_assert_eq(mcx_man_config(f), 0);
	mcx_man_derived(f);
	fclose(f);
	cr_assert(strncmp(buf, ".TH \"MCINIT\\-CONFIG\" \"5\"", 24) == 0);
	cr_assert(strstr(buf, ".SH \"FIELDS\"\n.ad l\n.SS \"") != NULL);
	cr_assert(strstr(buf, "\\fBtensor_model_parallel_size\\fR (\\fI") != NULL);
	cr_assert(strstr(buf, ".SH \"DIAGNOSTICS\"") != NULL);
	cr_assert(strstr(buf, ".TP\n.BR MC001 ") != NULL);
	cr_assert(strstr(buf, "SEE ALSO") == NULL, "the program writes that");
	cr_assert(strstr(buf, ".SH \"DERIVED VALUES\"") != NULL);
	{
		char tp[96];

		snprintf(tp, sizeof tp, ".TP\n.B %s\n", mcinit_derived_doc(0, &help));
		cr_assert(strstr(buf, tp) != NULL, "%s", tp);
	}
	free(buf);
}

Test(doc, version_and_checks_reports)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = mem_open(&buf, &len);

	cr_assert_eq(mcx_version_write(f), 0);
	fclose(f);
	cr_assert(strstr(buf, "build configuration:\n  CUDA     ") != NULL);
	cr_assert(strstr(buf, "facts:\n  Megatron-LM      ") != NULL);
	cr_assert(strstr(buf, mcx_word_default(MCX_WORDS_BRIDGE_VERSION)) != NULL);
	free(buf);
	f = mem_open(&buf, &len);
	cr_assert_eq(mcx_checks_write(f, MCX_COVERAGE), 0);
	fclose(f);
	cr_assert(strstr(buf, "\n\n") != NULL, "the two coverages, a blank line between");
	free(buf);
	f = mem_open(&buf, &len);
	cr_assert_eq(mcx_checks_write(f, MCX_LEDGER_MEGATRON), 0);
	cr_assert_eq(mcx_checks_write(f, MCX_LEDGER_BRIDGE), 0);
	fclose(f);
	cr_assert_gt(len, 1000);
	free(buf);
}
