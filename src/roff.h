/*
 * roff.h — writing man-page (roff, man macros) text.  Every page mcinit
 * ships is generated from its tables by these few functions, so escaping
 * lives in one place: what comes out renders with `groff -ww` silent.
 *
 * Text is escaped so that it prints as written: backslashes, hyphens (as
 * \-, so options copy and paste), lines that would start a request, and
 * non-ASCII characters (as \[uXXXX], so no input-encoding guess is needed).
 * `Backquoted` words become bold.  Nothing here allocates.
 */
#ifndef MCINIT_ROFF_H
#define MCINIT_ROFF_H

#include <stddef.h>
#include <stdio.h>

/* s[0..n) escaped, no newline added; a NUL byte ends it early. */
void mcinit_roff_inline(FILE *out, const char *s, size_t n);
/* Running text: blank lines become paragraph breaks (.PP), every other line
 * is escaped and ends with a newline.  Balanced backquotes turn bold. */
void mcinit_roff_text(FILE *out, const char *s);
/* .TH NAME SECTION "" "PACKAGE" "MANUAL", NAME upper-cased. */
void mcinit_roff_th(FILE *out, const char *name, int section, const char *package);
/* .SH / .SS with an escaped heading. */
void mcinit_roff_sh(FILE *out, const char *heading);
void mcinit_roff_ss(FILE *out, const char *heading);

#endif
