/*
 * pylint.h — finds argparse options declared with `type=bool` in Python
 * source (config.md, "Python sources"; the `type=bool` trap).
 *
 * argparse calls type(token), and bool('False') is True, so such an option
 * is true for every non-empty value.  The scan tokenizes the source the way
 * Python does for what matters here — comments, string literals with every
 * prefix (r, b, u, f, t and their combinations, any case), single, double and
 * triple quotes, escapes, f-string replacement fields including nested
 * strings (PEP 701), backslash continuations — so that neither `type=bool`
 * nor `add_argument(` written inside a string or comment counts.
 *
 * A finding is a call `NAME(` where NAME is the identifier `add_argument`
 * (any receiver: `parser.add_argument(`, `group.add_argument(`, or bare; not
 * `def add_argument(`), whose arguments, split at top-level commas, include
 * the keyword argument `type` with the value `bool`.  Decided value forms:
 * `bool`, `builtins.bool` and either of them in parentheses, with any
 * whitespace, comments or line breaks between the tokens.  Not findings:
 * `type=bool_fn`, `type=str2bool`, `type=lambda s: bool(s)`, `type="bool"`,
 * and a `type` passed through `**kwargs` (not visible without evaluation).
 * A call whose `(` is never closed takes in everything after it (so later
 * calls are nested in it and not reported), as Python would see it; a
 * string left open ends with its line (or, triple-quoted, at end of input).
 * Code inside f-string replacement fields counts as string, not as calls.
 *
 * Positions are 1-based; columns count characters (UTF-8 code points; a tab
 * is one column).  CR LF, CR and LF all end a line.
 */
#ifndef MCINIT_PYLINT_H
#define MCINIT_PYLINT_H

#include <stddef.h>

#include "core/util.h"

struct mcinit_pybool {
	char *flag;              /* the first positional argument: its string value when
	                          * it is a string literal ("--lazy-mpu-init", or the
	                          * dest of a positional option), else its source text;
	                          * when there is none, the value of dest=, else "" */
	int line, col;           /* the `type` keyword of `type=bool` */
	int call_line, call_col; /* the `add_argument` identifier of the call */
	char *default_text;      /* source text of the default= value, trimmed; NULL
	                          * when the call has no default= */
};

/*
 * Scans `len` bytes of Python source (need not be NUL-terminated).  On
 * success returns 0 and sets *out to an array of *n findings in source order
 * (*out is NULL when *n is 0); release it with mcinit_pybool_free.  Returns
 * -1 with MCINIT_E_PARSE ("LINE:COL: ...") only when the text holds a NUL byte
 * (not Python source); *out and *n are then NULL and 0.
 */
int mcinit_pylint_type_bool(const char *text, size_t len, struct mcinit_pybool **out, size_t *n,
                            struct mcinit_err *err);

/* Frees the n findings of v and v itself; v may be NULL. */
void mcinit_pybool_free(struct mcinit_pybool *v, size_t n);

#endif
