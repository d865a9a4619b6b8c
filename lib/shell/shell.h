/*
 * shell.h — the shell module, as the other modules see it: the Megatron-LM
 * flags, environment and launcher of a bash launch script, read with bash's
 * semantics (config.md, "Launch scripts").  The module owns lib/shell/ and
 * uses only core; shell-impl.h is what its files share.
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
 *   - `if`/`elif`/`else` and `case` are decided when their test is known:
 *     `[ ]`, `[[ ]]` and `test` with -n, -z, =, ==, != (a [[ pattern as
 *     bash matches it), -eq ... -ge, `!`, `||` and `&&`; a variable the script
 *     never assigns counts as unset (as for ${V:-default}); a test only the
 *     run can decide (`-f FILE`, `$1`, a command) reads every branch, with a
 *     note.  A prefix assignment (`V=1 cmd`) holds for that command only,
 *     as in bash;
 *   - loops: `for V in WORDS`, `for ((A; B; C))`, `while`/`until` whose test
 *     is known each time round, `break`, `continue`; a test only the run
 *     can decide reads the body once.  Function calls, substitutions and
 *     loops read 10000 commands at the most (a note says when);
 *   - `eval WORDS` and `... bash -c STRING` read the string as commands;
 *     the words before `bash` (srun, a container wrapper) come before the
 *     launch found inside;
 *   - other files of the script (mcinit_shscan_parse_file): `source FILE`
 *     and `. FILE` read FILE in the script's shell, `bash FILE`, `sh FILE`,
 *     `./FILE.sh` (and `srun ... bash FILE`) as a child shell; positions in
 *     them name the file;
 *   - the variables Slurm sets from the #SBATCH directives (SLURM_NNODES,
 *     SLURM_NTASKS, SLURM_GPUS_ON_NODE, ...) are known from the first
 *     command on;
 *   - `&&` and `||` skip what bash skips when the status before them is
 *     known (a test, true, false, echo, an assignment);
 *   - functions (`f() {`, `function f {`): the body is read where it is
 *     called, with the call's words as its positional parameters and its
 *     `local` variables restored at its end; `shift`, `set --`;
 *   - the positional parameters: none by default (mcinit_shscan_parse_args
 *     gives them), so `"$@"` is nothing, as bash runs the script alone;
 *     `$1`, `${10}`, `$#`, `"$@"`, `$*`, `${@:2}`, `${a[@]:1:2}`, `${#V}`,
 *     `${#a[@]}`, `${!a[@]}`, `${a[$i]}` (subscripts are arithmetic);
 *   - command substitutions, `$(...)` and backquotes, are evaluated when no
 *     program has to run: echo, printf (%s %d %i), tests, true/false, `&&`,
 *     `||`, arithmetic and the script's functions, in a subshell (their
 *     assignments do not last); the words they print keep the positions
 *     where they were written;
 *   - `$((...))` and `$[...]` are evaluated as bash does (64-bit integers,
 *     C operators and precedence, `**`, variables by name or `$V`);
 *   - the job's environment: `export`, `declare -x`, `set -a`, prefix
 *     assignments, `env V=1`, mpirun `-x`, and `unset` (see mcinit_shenv);
 *   - the launcher of the chosen command and `#SBATCH` directives give the
 *     world size (launcher.h).
 *
 * What cannot be known without running the script — `$0`, `$?`, `$$`,
 * variables never assigned in the script (environment), a substitution
 * that runs a program (the note says which), `${V/x/y}` and other
 * operators — is kept in
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
 * When two or more (different) commands run training scripts, each is also
 * a launch of its own (launches below).
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
#ifndef MCINIT_SHELL_H
#define MCINIT_SHELL_H

#include <stddef.h>

#include "core/util.h"

/*
 * The other files a launch script reads (`source FILE`, `. FILE`) or runs
 * (`bash FILE`, `sh FILE`, `./FILE`), for the scanner (shell-follow.c): where
 * they are found, their text kept for the whole scan, and the place a
 * position of theirs has.
 *
 * The scanner numbers the lines of every file in one sequence: the script's
 * own lines first, then each other file's, in the order they are first
 * read (a file read twice keeps its lines).  mcinit_shfiles_locate turns
 * such a line back into the file and its own line.
 *
 * What is read comes from a reader the caller gives: the filesystem
 * (mcinit_shfollow_read_fs) for mcinit validate; none for text with no file
 * behind it (the fuzzer, the unit tests), which then follows nothing.
 */
/* name: the file as the script names it, expanded.  Returns its text
 * (malloc'd, *len bytes; need not be NUL-terminated) and in *path the name
 * diagnostics give it (malloc'd); NULL with *why (a static phrase such as
 * "not found") when it cannot be read. */
typedef char *mcinit_shread_fn(void *ctx, const char *name, size_t *len, char **path,
                               const char **why);

/* The filesystem, ctx being the script's own path: an absolute name as it
 * is; another name in the script's directory, else in the current one
 * (bash looks in the current directory, where launch scripts are usually
 * run from; a bare name bash would also look for on PATH, which is not
 * searched).  Only regular files, of at most MCINIT_MAX_INPUT bytes. */
char *mcinit_shfollow_read_fs(void *ctx, const char *name, size_t *len, char **path,
                              const char **why);

struct mcinit_shfile {
	char *path; /* as diagnostics name it */
	char *text;
	size_t len;
	int base; /* its line n is line base + n of the sequence */
};

/* A name a file was opened by: the same name opens it again unread. */
struct mcinit_shname {
	char *name;
	int fi;
};

struct mcinit_shfiles {
	mcinit_shread_fn *read; /* NULL: no file is read */
	void *ctx;
	struct mcinit_shfile *v;
	size_t n, cap;
	int next_base;
	struct mcinit_shname *names;
	size_t nnames, capnames;
};

/* Starts the sequence after the script's own text (len bytes). */
void mcinit_shfiles_init(struct mcinit_shfiles *f, mcinit_shread_fn *read, void *ctx,
                         const char *text, size_t len);

/* The file name names, read once (and found once for each name: the
 * reader's answer for a name is taken not to change during a scan): its
 * index in f->v, or -1 with *why. */
int mcinit_shfiles_open(struct mcinit_shfiles *f, const char *name, const char **why);

/* Line vline of the sequence: *file 0 for the script itself, k for
 * f->v[k - 1]; *line that file's own line (0 stays 0). */
void mcinit_shfiles_locate(const struct mcinit_shfiles *f, int vline, int *file, int *line);

void mcinit_shfiles_free(struct mcinit_shfiles *f);

struct mcinit_shword {
	char *text;    /* after quote removal and expansion; may be "" */
	int line, col; /* where its first character was written */
	char *var;     /* variable whose assignment holds that character; NULL when
	                * written literally in the command itself */
	int opaque;    /* 1: contains unexpandable text, kept as written */
	int resplit;   /* 1: bash split it out of a string that was quoted where
	                * it was assigned, because it was expanded unquoted */
	int quotes;    /* 1: starts and ends with a quote character that is part
	                * of a variable's value (bash does not re-read it) */
	int file;      /* where line is: 0 the script, k its files[k - 1] */
	int unread;    /* 1: opaque, from a variable that a sourced file mcinit
	                * could not read may set */
	int args;      /* 1: opaque, from the script's arguments, which mcinit was
	                * not given (--script-args): only the run knows them */
};

struct mcinit_shnote {
	char *msg;     /* one sentence, no trailing newline */
	int line, col; /* 0, 0 when the note is about the whole script */
	int file;      /* as for mcinit_shword */
	int warn;      /* 1: a warning (something was not checked), 0: a note */
	int bound;     /* 1: a bound of the reader stopped it here (calls too
	                * deep, too many commands, the expansion budget): words
	                * may be missing, said even when no launch is found */
};

/* A variable of the job's environment as the script leaves it when it runs
 * the chosen command: `export V=x`, `export V`, `declare -x`, `set -a`,
 * prefix assignments (`V=1 torchrun ...`), `env V=1 ...`, mpirun `-x V=1`;
 * or removed by `unset V` (value NULL).  Text order, last one wins. */
struct mcinit_shenv {
	char *name;
	char *value;   /* NULL: unset by the script */
	int line, col; /* where it was exported, assigned or unset */
	int opaque;    /* the value is only known at run time */
	int remote;    /* passed by the launcher to the processes it starts
	                * (mpirun -x), not in the launcher's own environment */
	int file;      /* as for mcinit_shword */
};

/* What the launcher of the chosen command says about the job.  0 = not
 * said (or not knowable); each *_line > 0 where it was written. */
struct mcinit_shlaunch {
	char *launcher;   /* "torchrun", "python -m torch.distributed.run",
	                   * "srun", "srun + torchrun", "mpirun"; NULL: none */
	long long nnodes; /* torchrun --nnodes N or MIN:MAX (MAX), srun -N */
	long long nnodes_min;
	long long nproc_per_node;
	long long world_size;    /* when computable from the above */
	char *world_size_source; /* how, e.g. "torchrun --nnodes 1 --nproc_per_node 8" */
	int line, col;           /* the launcher word */
	char *master_addr;       /* --master_addr, --rdzv_endpoint host */
	long long master_port;
	int nnodes_line, nnodes_col, nproc_line, nproc_col;
	int addr_line, addr_col, port_line, port_col;
	/* the files of line, nnodes_line, ... as for mcinit_shword */
	int file, nnodes_file, nproc_file, addr_file, port_file;
	/* world_size rests on a default the script takes for a variable the
	 * Slurm allocation sets (NNODES=${SLURM_NNODES:-1} in a script with no
	 * #SBATCH): the run's world is not known here (a note says which) */
	int world_assumed;
};

struct mcinit_shscan {
	struct mcinit_shword *words; /* the Megatron flag words, in order */
	size_t nwords;
	char **argv; /* the chosen command as bash runs it: launcher (or python)
	              * first, then its options, the script and its flags */
	size_t argc;
	struct mcinit_shenv *env; /* the job's environment, see above */
	size_t nenv;
	struct mcinit_shlaunch launch;
	struct mcinit_shnote *notes; /* unexpandable words, assumptions, fallback */
	size_t nnotes;
	char *script; /* the `*.py` word the flags follow; NULL when
	               * the fallback was used */
	int script_line, script_col, script_file;
	/* The other files the script reads or runs that positions name (file
	 * k is files[k - 1]), as mcinit_shscan_parse_file found them. */
	char **files;
	size_t nfiles;
	/* When the script runs two or more training scripts (a loop, several
	 * launcher lines; "train" in the script's name, as for the choice
	 * above, which is then the first of them): each launch in the order
	 * bash runs them, as a scan of its own (words, argv, env, launch,
	 * script, the notes about its words), identical launches once.  NULL
	 * and 0 otherwise. */
	struct mcinit_shscan *launches;
	size_t nlaunches;
	/* The expansion budget or the bound on commands stopped the reading
	 * early (a note says which): words may be missing. */
	int partial;
};

/*
 * Scans `len` bytes of script text (need not be NUL-terminated).  On success
 * fills *out (caller releases it with mcinit_shscan_destroy) and returns 0.
 * Returns -1 with MCINIT_E_PARSE and a message starting "LINE:COL: " only for
 * input that cannot be a script: a NUL byte, an unterminated quote,
 * backquote, `$(`, `${` or array `(` at end of input, or expansions nested
 * more than 64 deep.  *out is then left empty (safe to destroy).
 */
int mcinit_shscan_parse(const char *text, size_t len, struct mcinit_shscan *out,
                        struct mcinit_err *err);

/* The same, for the script run with the arguments args (split as bash
 * splits a command line: "a 'b c'" is two; NULL or "": none, which is what
 * mcinit_shscan_parse assumes).  An argument's words are placed where the
 * script expands them.  Also returns -1 with MCINIT_E_USAGE and a message
 * starting "script arguments: " for args that cannot be split (an
 * unterminated quote). */
int mcinit_shscan_parse_args(const char *text, size_t len, const char *args,
                             struct mcinit_shscan *out, struct mcinit_err *err);

/* The same, for the script read from the file path (as diagnostics name
 * it): the files it sources (`source FILE [ARGS]`, `. FILE [ARGS]`) are read
 * where it sources them, in its shell (their variables, functions and
 * launches are its own, ARGS their positional parameters for that time);
 * those it runs (`bash FILE ARGS`, `sh FILE`, `./FILE.sh`, `srun ... bash
 * FILE`) as a child shell (exported variables only, ARGS its positional
 * parameters; nothing it sets comes back).  Names are found as
 * mcinit_shfollow_read_fs finds them (above); files are read within
 * one another 8 deep at most, and one already being read is not read again
 * inside itself.  A file that cannot be read is a warning at the command
 * (mcinit_shnote.warn); the variables a sourced one may set are then known
 * only at run time, never taken as unset.  path NULL: no file is read,
 * which is what mcinit_shscan_parse_args does. */
int mcinit_shscan_parse_file(const char *text, size_t len, const char *path, const char *args,
                             struct mcinit_shscan *out, struct mcinit_err *err);

/* The same, the other files read by read(ctx, ...) (above; NULL:
 * none is read: the fuzzer's files come from memory), name0 the script's
 * $0 (NULL: known only at run time; mcinit_shscan_parse_file gives path,
 * and a child's $0 is its FILE, so `source "$(dirname "$0")/env.sh"` is
 * followed). */
int mcinit_shscan_parse_with(const char *text, size_t len, mcinit_shread_fn *read, void *ctx,
                             const char *name0, const char *args, struct mcinit_shscan *out,
                             struct mcinit_err *err);

/* The scanner's bounds on the work one script makes it do.  Each is the
 * tool's own when 0 or larger; a smaller one stops the scan sooner, with
 * the same notes (naming the bound given).  For callers that scan many
 * untrusted scripts and want each to cost little (the fuzzer); mcinit
 * itself always uses its own. */
struct mcinit_shlimits {
	size_t steps;  /* commands read in functions, loops, substitutions
	                * (10000) */
	size_t budget; /* characters all expansions may produce (2^19) */
	int depth;     /* files read within one another (8) */
};

/* mcinit_shscan_parse_with under the bounds *lim (NULL: the tool's). */
int mcinit_shscan_parse_limited(const char *text, size_t len, mcinit_shread_fn *read, void *ctx,
                                const char *name0, const char *args,
                                const struct mcinit_shlimits *lim, struct mcinit_shscan *out,
                                struct mcinit_err *err);

/* Frees everything *s owns and zeroes it; s may be NULL. */
void mcinit_shscan_destroy(struct mcinit_shscan *s);

#endif
