/*
 * rules-doc.c — the documentation of every diagnostic code, from the tables
 * that define them (input codes, mcinit_rules[], placement codes,
 * mcinit_repairs[]): mcinit_rules_doc renders it for mcinit-config(5) and
 * mcinit explain, mcinit_all_codes lists it.
 */
#include "rules-doc.h"

#include <string.h>

#include "topo/affinity.h"
#include "roff.h"
#include "core/util.h"

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
	mcinit_roff_text(out, doc);
	fputs(".br\nExample:\n", out);
	mcinit_roff_text(out, example);
	fputs(".br\nFix:\n", out);
	mcinit_roff_text(out, fix);
	if (reads == NULL)
		return;
	fputs(".br\nReads:\n", out);
	for (; *reads != MCINIT_F_COUNT; reads++)
		mcx_buf_printf(&b, "%s%s", b.len ? ", " : "",
		               mcinit_field_key(*reads, key, sizeof key));
	mcinit_roff_text(out, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
}

static void
doc_section(FILE *out, enum mcinit_doc_format fmt, const char *title, const char *intro)
{
	if (fmt == MCINIT_DOC_ROFF) {
		mcinit_roff_ss(out, title);
		mcinit_roff_text(out, intro);
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
mcinit_rules_doc(FILE *out, enum mcinit_doc_format fmt)
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

static void
append_docs(struct mcinit_code_doc **v, size_t *n, const struct mcinit_code_doc *src, size_t k)
{
	*v = mcx_xrealloc(*v, (*n + k) * sizeof **v);
	memcpy(*v + *n, src, k * sizeof *src);
	*n += k;
}

struct mcinit_code_doc *
mcinit_all_codes(size_t *n)
{
	struct mcinit_code_doc *v = NULL;
	size_t i;

	*n = 0;
	append_docs(&v, n, mcinit_input_codes, mcinit_ninput_codes);
	for (i = 0; i < mcinit_nrules; i++) {
		const struct mcinit_rule *r = mcinit_rules[i];
		struct mcinit_code_doc e = {r->code, r->sev, r->doc, r->example, r->fix};

		append_docs(&v, n, &e, 1);
	}
	append_docs(&v, n, mcinit_affinity_codes, mcinit_naffinity_codes);
	append_docs(&v, n, mcinit_repairs, mcinit_nrepairs);
	return v;
}
