/*
 * man-config.c — mcinit-config(5), every field of the job configuration
 * (from schema.def's table) and every diagnostic code (codes.c), and the
 * DERIVED VALUES section of mcinit-validate(1) (derived.def): the pages, or
 * parts of pages, that are made from the library's tables alone.  The
 * pages made from the program's command table and options are the
 * program's (src/cmd-man.c), with the same escaping (roff.c).
 */
#include "build.h" /* PACKAGE_STRING */

#include "doc.h"

#include <string.h>

#include "config/config.h"

static const char config_intro[] =
    "A job is described by JSON files, `section.field=VALUE` overrides and Megatron-LM "
    "flags (after `--` on mcinit's command line, or in a launch script), merged in that "
    "order: a later value replaces an earlier one.  A JSON file holds one object per "
    "section, each with the fields below; unknown keys are reported (MC003) with the "
    "closest known name: an error, or a warning in a Megatron-Bridge ConfigContainer "
    "(a root `_target_` naming ConfigContainer) where Bridge's own loader drops the key.  "
    "A `_target_` that Bridge refuses to instantiate (outside its allow-list, on its "
    "deny-list, a private path) is an error (MC005).\n\n"
    "Types: int, bool, str, enum (one of the listed choices), dtype (fp32, fp16, bf16 and "
    "Megatron-Bridge's spellings), signal (a signal name or number), list[T], and null; "
    "alternatives are separated by |.  A field whose default is \"required\" must be set "
    "somewhere (MC008).  Megatron-LM's flag for a field is listed with it; "
    "`mcinit schema` prints the same table as a JSON Schema.";

static void
bar_list(FILE *out, const char *s, const char *sep)
{
	while (s && *s) {
		size_t n = strcspn(s, "|");

		mcx_roff_inline(out, s, n);
		s += n + (s[n] == '|');
		if (*s)
			fputs(sep, out);
	}
}

static void
field_entry(FILE *out, int f)
{
	const struct mcinit_field_info *fi = &mcinit_fields[f];

	fputs(".TP\n\\fB", out);
	mcx_roff_inline(out, mcinit_field_str(fi->name), strlen(mcinit_field_str(fi->name)));
	fputs("\\fR (\\fI", out);
	mcx_roff_inline(out, mcinit_field_str(fi->type_text),
	                strlen(mcinit_field_str(fi->type_text)));
	fputs("\\fR, default ", out);
	if (mcinit_field_str(fi->def))
		mcx_roff_inline(out, mcinit_field_str(fi->def), strlen(mcinit_field_str(fi->def)));
	else
		fputs("required", out);
	fputs(")\n", out);
	mcx_roff_text(out, mcinit_field_str(fi->help));
	if (fi->lo != MCINIT_NOLIM || fi->hi != MCINIT_NOLIM) {
		fputs(".br\nRange: ", out);
		if (fi->lo != MCINIT_NOLIM && fi->hi != MCINIT_NOLIM)
			fprintf(out, "%lld to %lld\n", fi->lo, fi->hi);
		else if (fi->lo != MCINIT_NOLIM)
			fprintf(out, "%lld or more\n", fi->lo);
		else
			fprintf(out, "at most %lld\n", fi->hi);
	}
	if (mcinit_field_str(fi->choices)) {
		fputs(".br\nChoices: ", out);
		bar_list(out, mcinit_field_str(fi->choices), ", ");
		fputc('\n', out);
	}
	if (mcinit_field_str(fi->flags)) {
		fputs(".br\nMegatron\\-LM: \\fB", out);
		bar_list(out, mcinit_field_str(fi->flags), "\\fR, \\fB");
		fputs("\\fR\n", out);
	}
}

/* Every field, one subsection per section in the table's order. */
static void
fields_doc(FILE *out)
{
	int f, g;

	/* Long flag names and Python annotations cannot be justified. */
	fputs(".ad l\n", out);
	for (f = 0; f < MCINIT_F_COUNT; f++) {
		const char *sec = mcinit_field_s(f, section);

		for (g = 0; g < f && strcmp(mcinit_field_s(g, section), sec) != 0; g++)
			;
		if (g < f)
			continue; /* section already written */
		mcx_roff_ss(out, sec);
		for (g = f; g < MCINIT_F_COUNT; g++)
			if (strcmp(mcinit_field_s(g, section), sec) == 0)
				field_entry(out, g);
	}
	fputs(".ad b\n", out);
}

int
mcx_man_config(FILE *out)
{
	mcx_roff_th(out, "mcinit-config", 5, PACKAGE_STRING);
	mcx_roff_sh(out, "NAME");
	fputs("mcinit\\-config \\- mcinit job configuration: every field and every diagnostic "
	      "code\n",
	      out);
	mcx_roff_sh(out, "SYNOPSIS");
	fputs(".nf\n{ \"model\": { \"tensor_model_parallel_size\": 8, \"num_layers\": 32 },\n"
	      "  \"train\": { \"micro_batch_size\": 1 } }\n"
	      "mcinit validate job.json model.tensor_model_parallel_size=4\n.fi\n",
	      out);
	mcx_roff_sh(out, "DESCRIPTION");
	mcx_roff_text(out, config_intro);
	mcx_roff_sh(out, "FIELDS");
	fields_doc(out);
	mcx_roff_sh(out, "DIAGNOSTICS");
	mcx_roff_text(out, "Every code mcinit reports, with its severity, what it means, an "
	                   "input that triggers it and the fix (also `mcinit explain CODE`).");
	return mcinit_doc_codes(out, MCINIT_DOC_ROFF);
}

void
mcx_man_derived(FILE *out)
{
	const char *name, *help;

	mcx_roff_sh(out, "DERIVED VALUES");
	mcx_roff_text(out, "The values Megatron derives from the job, as validate reports them "
	                   "(the \"derived\" object of --format=json; null when an input they "
	                   "need is invalid):");
	for (size_t i = 0; (name = mcinit_derived_doc(i, &help)) != NULL; i++) {
		fprintf(out, ".TP\n.B %s\n", name);
		mcx_roff_text(out, help);
	}
}
