/*
 * rules-doc.h — the catalogue of diagnostic codes as the program documents
 * it (mcinit explain, mcinit-config(5), completion of codes): rendered from
 * the library's rule, repair and placement tables, written by rules-doc.c.
 */
#ifndef MCINIT_RULES_DOC_H
#define MCINIT_RULES_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "rules/rules.h"

/* Every documented code in one list (input codes, rules, repairs, placement
 * codes), in code order: the caller frees the array (not the entries). */
struct mcinit_code_doc *mcinit_all_codes(size_t *n);

enum mcinit_doc_format {
	MCINIT_DOC_ROFF, /* a man-page section: .SS per group, .TP per code */
	MCINIT_DOC_TEXT, /* plain text, one block per code */
};
/* Writes the documentation of every rule, repair and note code to out.
 * 0, or -1 on a write error. */
int mcinit_rules_doc(FILE *out, enum mcinit_doc_format fmt);

#endif
