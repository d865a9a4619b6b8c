/*
 * shscan.h — best-effort extraction of Megatron-LM flags from a bash launch
 * script (config.md, "Launch scripts").
 *
 * This is not a shell.  It reads the script once, top to bottom, and keeps
 * just enough bash semantics to recover the words a typical Megatron-LM
 * example passes to its training script:
 *
 *   - `\`-newline continuations, `#` comments (at the start of a word, outside
 *     quotes), single/double quotes, `$'...'`, backslash escapes, here-documents
 *     (skipped), redirections (skipped with their target);
 *   - variables assigned earlier in the text: `V=word`, `V+=word`, `V=( ... )`,
 *     `V+=( ... )` (arrays may span lines and hold comments), `export` /
 *     `declare` / `local` / `readonly` / `typeset` assignments, `unset`;
 *     expansions `$V`, `${V}`, `${V[@]}`, `${V[*]}`, `${V[n]}` quoted or not,
 *     with bash's word splitting for unquoted ones, and `${V-w}` `${V:-w}`
 *     `${V=w}` `${V:=w}` `${V+w}` `${V:+w}` `${V?w}` `${V:?w}`;
 *   - control flow is ignored: every assignment is applied in text order,
 *     including prefix assignments (`V=1 cmd`) and both branches of an `if`.
 *
 * What cannot be known without running the script — positional parameters
 * (`$1`, `"$@"`), variables never assigned in the script (environment), `$(...)`,
 * backquotes, `$((...))`, `${#V}`, `${V/x/y}` and other operators — is kept in
 * the word exactly as written, the word is marked `opaque`, and a note says
 * why.  One exception, because launch scripts use it to make settings
 * overridable from the environment: `${V:-default}` / `${V:=default}` with V
 * not assigned in the script takes the default, with a note saying so.
 *
 * Which words are "the Megatron flags": the words after the first `*.py` word
 * of a simple command that runs a Python script (a command whose own name is
 * echo, printf, cat, ... does not count).  When several commands do, the first
 * whose script name contains "train" wins (so a preprocessing step before
 * `pretrain_gpt.py` is passed over), else the first; a note lists the choice.
 * When no command runs a `.py`, the fallback is every word of every array or
 * string assignment that holds a `--flag` word (from that flag on, each
 * source position once, in text order), skipping assignments whose first flag
 * is a torchrun launcher option (`--nproc_per_node`, `--nnodes`, ...); a note
 * at 0:0 says that this fallback was used.
 *
 * Positions: 1-based line and column, columns counted in characters (UTF-8
 * code points; a tab is one column).  A word's position is where its first
 * character was written — inside the assignment it came from when it came
 * from a variable (that is what the user must edit), or for an empty word the
 * position of its quotes.  CR before LF is treated as a blank, so CRLF scripts
 * scan like LF ones.
 */
#ifndef MCINIT_SHSCAN_H
#define MCINIT_SHSCAN_H

#include <stddef.h>

#include "util.h"

struct mcinit_shword {
	char *text;    /* after quote removal and expansion; may be "" */
	int line, col; /* where its first character was written */
	char *var;     /* variable whose assignment holds that character; NULL when
	                * written literally in the command itself */
	int opaque;    /* 1: contains unexpandable text, kept as written */
};

struct mcinit_shnote {
	char *msg;     /* one sentence, no trailing newline */
	int line, col; /* 0, 0 when the note is about the whole script */
};

struct mcinit_shscan {
	struct mcinit_shword *words; /* the Megatron flag words, in order */
	size_t nwords;
	struct mcinit_shnote *notes; /* unexpandable words, assumptions, fallback */
	size_t nnotes;
	char *script; /* the `*.py` word the flags follow; NULL when
	               * the fallback was used */
	int script_line, script_col;
};

/*
 * Scans `len` bytes of script text (need not be NUL-terminated).  On success
 * fills *out (caller releases it with mcinit_shscan_destroy) and returns 0.
 * Returns -1 with EX_DATAERR and a message starting "LINE:COL: " only for
 * input that cannot be a script: a NUL byte, an unterminated quote,
 * backquote, `$(`, `${` or array `(` at end of input, or expansions nested
 * more than 64 deep.  *out is then left empty (safe to destroy).
 */
int mcinit_shscan_parse(const char *text, size_t len, struct mcinit_shscan *out,
                        struct mcinit_err *err);

/* Frees everything *s owns and zeroes it; s may be NULL. */
void mcinit_shscan_destroy(struct mcinit_shscan *s);

#endif
