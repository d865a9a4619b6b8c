/*
 * doc.h — the doc module: what the program documents and offers, rendered
 * from the library's own tables so that it cannot drift from them.  The
 * top layer: it reads every table below it (config's fields, releases and
 * Megatron-LM flags, the rules', repairs' and placement codes, the ported
 * checks' ledgers, the GPU backend's versions) and owns none of its own.
 *
 *   codes.c       every diagnostic code: explain's blocks, the man-page
 *                 sections, the ledgers and coverages
 *   roff.c        man-page escaping and the few macros the pages use
 *   man-config.c  mcinit-config(5) and validate's DERIVED VALUES
 *   words.c       the closed sets of names (releases, entry points, group
 *                 kinds, input suffixes, codes), completion
 *   version.c     `mcinit --version`
 *
 * The program reaches it only through the tool header's mcx_ entry points
 * (private/mcinit-tool.h, "documentation, releases and completion
 * tables"); what is declared here is for this module and its unit tests.
 */
#ifndef MCINIT_DOC_H
#define MCINIT_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "core/util.h" /* and through it the tool header: mcx_ */
#include "rules/rules.h"

/* The number of documented codes: MCX_WORDS_CODE's words are 0..n-1. */
size_t mcinit_doc_ncodes(void);
/* Code i's name ("MC012"), or NULL past the end (codes.c). */
const char *mcinit_doc_code_name(size_t i);

enum mcinit_doc_format {
	MCINIT_DOC_ROFF, /* a man-page section: .SS per group, .TP per code */
	MCINIT_DOC_TEXT, /* plain text, one block per code, with what a rule reads */
};
/* Writes the documentation of every input, rule, placement and repair code
 * to out.  0, or -1 on a write error. */
int mcinit_doc_codes(FILE *out, enum mcinit_doc_format fmt);

#endif
