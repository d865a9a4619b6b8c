/* settings.h — a repository's mcinit settings: mcinit.toml, or the table
 * [tool.mcinit] of pyproject.toml, the nearest one upward from an input
 * (what `mcinit validate` and the pre-commit hooks read; README, "Settings").
 * Part of core: it reads files and a small subset of TOML, nothing else. */
#ifndef MCINIT_CORE_SETTINGS_H
#define MCINIT_CORE_SETTINGS_H

#include <stddef.h>

#include "core/util.h"

/* How many directories upward the search looks at most (the input's own
 * included), and how deeply brackets may nest in a file it reads. */
#define MCINIT_SETTINGS_UP   64
#define MCINIT_SETTINGS_NEST 32

struct mcinit_settings {
	char *file;                                   /* the file read, NULL when none was found */
	long long world_size, nnodes, nproc_per_node; /* 0 = not set */
	char *megatron_version, *bridge_version, *entry_point;
	char **overrides; /* "section.field=value" */
	size_t noverrides;
	int werror; /* -1 = not set */
};

/* Parses text (len bytes) of the file `name`: the whole file when table is
 * NULL (mcinit.toml), else only the table of that name ("tool.mcinit").
 * Fills s (which the caller zeroes and frees); 1 when the table was there
 * (always for table NULL), 0 when not, -1 + err (file:line:col) for a
 * malformed file or a key mcinit does not know. */
int mcinit_settings_parse(const char *name, const char *text, size_t len, const char *table,
                          struct mcinit_settings *s, struct mcinit_err *err);

/* The nearest settings upward from the directory of path (a file, or a
 * directory when it is one): 1 and s filled, 0 when none, -1 + err. */
int mcinit_settings_find(const char *path, struct mcinit_settings *s, struct mcinit_err *err);

void mcinit_settings_free(struct mcinit_settings *s);

#endif
