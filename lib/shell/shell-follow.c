/* shell-follow.c — the files a script follows, read once (see shell.h). */
#include "shell/shell.h"

#include "core/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Distinct files one scan reads, and their bytes together: far above a
 * real launch script's helpers, low enough that a script naming files in
 * a loop cannot make mcinit read a tree. */
#define MAX_FILES 64
#define MAX_BYTES MCINIT_MAX_INPUT
#define MAX_NAMES 256 /* names remembered (name_add) */

/* dir/name without a leading "./" of name (what bash shows for it). */
static char *
join(const char *dir, size_t ndir, const char *name)
{
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	if (ndir == 0)
		return mcx_xstrdup(name);
	return mcx_xasprintf("%.*s/%s", (int)ndir, dir, name);
}

static char *
read_regular(const char *path, size_t *len, const char **why)
{
	struct mcinit_err err = {0};
	struct stat st;
	char *text;

	if (stat(path, &st) != 0) {
		*why = errno == ENOENT || errno == ENOTDIR ? "not found" : "cannot be read";
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return NULL;
	}
	text = mcinit_read_file(path, len, &err);
	if (text == NULL)
		*why = err.code == MCINIT_E_PARSE ? "too large" : "cannot be read";
	return text;
}

char *
mcinit_shfollow_read_fs(void *ctx, const char *name, size_t *len, char **path, const char **why)
{
	const char *script = ctx, *slash = strrchr(script, '/');
	char *try[2] = {NULL, NULL}, *text = NULL;
	const char *first_why = NULL;

	*path = NULL;
	if (name[0] == '\0') {
		*why = "an empty name";
		return NULL;
	}
	if (name[0] == '/') {
		try[0] = mcx_xstrdup(name);
	} else {
		try[0] = join(script, slash ? (size_t)(slash - script) : 0, name);
		try[1] = join("", 0, name);
		if (strcmp(try[0], try[1]) == 0) {
			free(try[1]);
			try[1] = NULL;
		}
	}
	for (int k = 0; k < 2 && try[k] != NULL && text == NULL; k++) {
		text = read_regular(try[k], len, why);
		if (text != NULL)
			*path = try[k], try[k] = NULL;
		else if (first_why == NULL)
			first_why = *why;
	}
	if (text == NULL && first_why != NULL && strcmp(first_why, "not found") != 0)
		*why = first_why; /* the script's directory has it, unreadable */
	free(try[0]);
	free(try[1]);
	return text;
}

void
mcinit_shfiles_init(struct mcinit_shfiles *f, mcinit_shread_fn *read, void *ctx, const char *text,
                    size_t len)
{
	memset(f, 0, sizeof *f);
	f->read = read;
	f->ctx = ctx;
	f->next_base = 1; /* the script's lines are 1 .. lines + 1 */
	for (size_t k = 0; k < len; k++)
		f->next_base += text[k] == '\n';
}

static int
lines_of(const char *text, size_t len)
{
	int n = 1;

	for (size_t k = 0; k < len; k++)
		n += text[k] == '\n';
	return n;
}

/* Remembers that name opens file fi: a script that sources files in a
 * loop or from each other names the same few again and again, and each
 * read copies the whole file only to find it read already. */
static int
name_add(struct mcinit_shfiles *f, const char *name, int fi)
{
	if (f->nnames < MAX_NAMES) {
		if (f->nnames == f->capnames) {
			f->capnames = f->capnames ? 2 * f->capnames : 8;
			f->names = mcx_xrealloc(f->names, f->capnames * sizeof *f->names);
		}
		f->names[f->nnames++] = (struct mcinit_shname){mcx_xstrdup(name), fi};
	}
	return fi;
}

int
mcinit_shfiles_open(struct mcinit_shfiles *f, const char *name, const char **why)
{
	size_t len = 0, total = 0;
	char *path = NULL, *text;
	int line, col;

	if (f->read == NULL) {
		*why = "not read (no file is read for a script given as text)";
		return -1;
	}
	for (size_t k = 0; k < f->nnames; k++)
		if (strcmp(f->names[k].name, name) == 0)
			return f->names[k].fi;
	for (size_t k = 0; k < f->n; k++)
		total += f->v[k].len;
	text = f->read(f->ctx, name, &len, &path, why);
	if (text == NULL)
		return -1;
	for (size_t k = 0; k < f->n; k++)
		if (strcmp(f->v[k].path, path) == 0) { /* read before: the same lines */
			free(text);
			free(path);
			return name_add(f, name, (int)k);
		}
	*why = f->n >= MAX_FILES ? "not read (the script reads more than 64 other files)"
	       : total + len > MAX_BYTES
	           ? "not read (the files the script reads are too large together)"
	       : mcinit_find_nul(text, len, &line, &col) ? "not a shell script (a NUL byte)"
	                                                 : NULL;
	if (*why != NULL) {
		free(text);
		free(path);
		return -1;
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4;
		f->v = mcx_xrealloc(f->v, f->cap * sizeof *f->v);
	}
	f->v[f->n] = (struct mcinit_shfile){path, text, len, f->next_base};
	f->next_base += lines_of(text, len) + 1;
	return name_add(f, name, (int)f->n++);
}

void
mcinit_shfiles_locate(const struct mcinit_shfiles *f, int vline, int *file, int *line)
{
	*file = 0;
	*line = vline;
	for (size_t k = f->n; k-- > 0;)
		if (vline > f->v[k].base) {
			*file = (int)k + 1;
			*line = vline - f->v[k].base;
			return;
		}
}

void
mcinit_shfiles_free(struct mcinit_shfiles *f)
{
	for (size_t k = 0; k < f->n; k++) {
		free(f->v[k].path);
		free(f->v[k].text);
	}
	free(f->v);
	for (size_t k = 0; k < f->nnames; k++)
		free(f->names[k].name);
	free(f->names);
	memset(f, 0, sizeof *f);
}
