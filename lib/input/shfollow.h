/*
 * shfollow.h — the other files a launch script reads (`source FILE`,
 * `. FILE`) or runs (`bash FILE`, `sh FILE`, `./FILE`), for shscan.c: where
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
#ifndef MCINIT_SHFOLLOW_H
#define MCINIT_SHFOLLOW_H

#include <stddef.h>

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

#endif
