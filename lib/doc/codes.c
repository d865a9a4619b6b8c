/*
 * codes.c — the documentation of every diagnostic code, from the tables
 * that define them (input codes, mcinit_rules[], placement codes,
 * mcinit_repairs[], in that order): mcinit_doc_codes renders it for
 * mcinit-config(5) and `mcinit explain --roff`, mcx_code_explain one code
 * for `mcinit explain`; and the ledgers and coverages of the ported checks.
 */
#include "doc.h"

#include <string.h>

#include "config/config.h" /* mcinit_input_codes */
#include "rules/bchecks.h"
#include "rules/mchecks.h"
#include "topo/affinity.h"

static const char *const sev_words[] = {"note", "warning", "error"};

static void
doc_entry(FILE *out, enum mcinit_doc_format fmt, const char *code, enum mcinit_severity sev,
          const char *doc, const char *example, const char *fix, const enum mcinit_field *reads)
{
	struct mcx_buf b = {0};
	char key[128];

	if (fmt == MCINIT_DOC_TEXT) {
		fprintf(out, "%s (%s)\n    %s\n    example: %s\n    fix: %s\n", code,
		        sev_words[sev], doc, example, fix);
		if (reads != NULL) {
			fputs("    reads:", out);
			for (; *reads != MCINIT_F_COUNT; reads++)
				fprintf(out, " %s", mcinit_field_key(*reads, key, sizeof key));
			fputc('\n', out);
		}
		fputc('\n', out);
		return;
	}
	fprintf(out, ".TP\n.BR %s \" (%s)\"\n", code, sev_words[sev]);
	mcx_roff_text(out, doc);
	fputs(".br\nExample:\n", out);
	mcx_roff_text(out, example);
	fputs(".br\nFix:\n", out);
	mcx_roff_text(out, fix);
	if (reads == NULL)
		return;
	fputs(".br\nReads:\n", out);
	for (; *reads != MCINIT_F_COUNT; reads++)
		mcx_buf_printf(&b, "%s%s", b.len ? ", " : "",
		               mcinit_field_key(*reads, key, sizeof key));
	mcx_roff_text(out, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
}

static void
doc_section(FILE *out, enum mcinit_doc_format fmt, const char *title, const char *intro)
{
	if (fmt == MCINIT_DOC_ROFF) {
		mcx_roff_ss(out, title);
		mcx_roff_text(out, intro);
	} else {
		fprintf(out, "%s\n\n", title);
	}
}

static void
doc_table(FILE *out, enum mcinit_doc_format fmt, const struct mcinit_code_doc *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		doc_entry(out, fmt, v[i].code, v[i].sev, v[i].doc, v[i].example, v[i].fix, NULL);
}

int
mcinit_doc_codes(FILE *out, enum mcinit_doc_format fmt)
{
	size_t i;

	doc_section(out, fmt, "Input problems (MC001-MC009)",
	            "Found while reading the inputs; each points at what the user wrote.");
	doc_table(out, fmt, mcinit_input_codes, mcinit_ninput_codes);
	doc_section(
	    out, fmt,
	    "Cross-field rules (MC010-MC062), Megatron-LM's own checks (MC200-MC256) and "
	    "Megatron-Bridge's (MC300-MC351)",
	    "Checked after every input is read; all violations are reported together.\n"
	    "A rule whose input was rejected is skipped.  Megatron-Bridge's checks apply to "
	    "a ConfigContainer: a config whose root _target_ is Bridge's ConfigContainer, "
	    "as Bridge's to_yaml writes it; the sections it leaves out are not checked.");
	for (i = 0; i < mcinit_nrules; i++) {
		const struct mcinit_rule *r = mcinit_rules[i];

		doc_entry(out, fmt, r->code, r->sev, r->doc, r->example, r->fix, r->reads);
	}
	doc_section(out, fmt, "Placement and affinity (MC050-MC054)",
	            "Reported by mcinit topology from the node's hwloc topology.");
	doc_table(out, fmt, mcinit_affinity_codes, mcinit_naffinity_codes);
	doc_section(out, fmt, "Repairs and derived values (MC100+)",
	            "Values mcinit changes or derives the way Megatron does, reported so that "
	            "nothing changes silently.");
	doc_table(out, fmt, mcinit_repairs, mcinit_nrepairs);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* Code i of the four tables one after the other: a copy of its row (a rule's
 * has its reads too); false past the end. */
static bool
code_at(size_t i, struct mcinit_code_doc *e, const enum mcinit_field **reads)
{
	*reads = NULL;
	if (i < mcinit_ninput_codes) {
		*e = mcinit_input_codes[i];
		return true;
	}
	i -= mcinit_ninput_codes;
	if (i < mcinit_nrules) {
		const struct mcinit_rule *r = mcinit_rules[i];

		*e = (struct mcinit_code_doc){r->code, r->sev, r->doc, r->example, r->fix};
		*reads = r->reads;
		return true;
	}
	i -= mcinit_nrules;
	if (i < mcinit_naffinity_codes) {
		*e = mcinit_affinity_codes[i];
		return true;
	}
	i -= mcinit_naffinity_codes;
	if (i < mcinit_nrepairs) {
		*e = mcinit_repairs[i];
		return true;
	}
	return false;
}

size_t
mcinit_doc_ncodes(void)
{
	return mcinit_ninput_codes + mcinit_nrules + mcinit_naffinity_codes + mcinit_nrepairs;
}

/* MCX_WORDS_CODE's words (words.c). */
const char *
mcinit_doc_code_name(size_t i)
{
	struct mcinit_code_doc e;
	const enum mcinit_field *reads;

	return code_at(i, &e, &reads) ? e.code : NULL;
}

int
mcx_code_explain(FILE *out, size_t i)
{
	struct mcinit_code_doc e;
	const enum mcinit_field *reads;

	if (!code_at(i, &e, &reads))
		return -1;
	/* explain's block leaves out what a rule reads (the TEXT format has it) */
	return fprintf(out, "%s (%s)\n    %s\n    example: %s\n    fix: %s\n\n", e.code,
	               sev_words[e.sev], e.doc, e.example, e.fix) < 0
	           ? -1
	           : 0;
}

int
mcx_codes_roff(FILE *out)
{
	return mcinit_doc_codes(out, MCINIT_DOC_ROFF);
}

int
mcx_checks_write(FILE *out, enum mcx_checks_report what)
{
	switch (what) {
	case MCX_LEDGER_MEGATRON:
		return mcinit_mchecks_ledger(out) < 0 ? -1 : 0;
	case MCX_LEDGER_BRIDGE:
		return mcinit_bchecks_ledger(out) < 0 ? -1 : 0;
	case MCX_COVERAGE:
		return mcinit_mchecks_coverage(out) < 0 || fputc('\n', out) == EOF ||
		               mcinit_bchecks_coverage(out) < 0
		           ? -1
		           : 0;
	}
	return -1;
}
