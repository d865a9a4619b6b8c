/*
 * ledger.h — the ledger and coverage of a check table (Megatron-LM's,
 * mchecks.c; Megatron-Bridge's, bchecks.c): each row as implemented, not
 * decidable offline, or why not yet, and per function how many are done.
 * One printer for both tables, which describe their rows through a callback.
 */
#ifndef MCINIT_LEDGER_H
#define MCINIT_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What the printer needs of one row; every pointer is borrowed. */
struct mcinit_ledger_row {
	const char *id, *function;
	const char *code; /* the code that implements it, or NULL */
	const char *why;  /* when code is NULL: why not */
	const char *dup;  /* implemented as another row (Bridge), or NULL */
	const char *no;   /* the port table's reason it is not offline, or NULL */
	bool rule;        /* a hand-written rule implements it */
	bool offline;
};

typedef void mcinit_ledger_row_fn(size_t i, struct mcinit_ledger_row *out);

/* id, implemented_by, note: one line a row.  0, or -1 on a write error. */
int mcinit_ledger_print(FILE *out, size_t n, mcinit_ledger_row_fn *row);
/* Per function: implemented, offline-decidable, total, then "all"; the
 * function column headed `title`, `width` wide.  0, or -1 on a write error. */
int mcinit_ledger_coverage(FILE *out, const char *title, int width, size_t n,
                           mcinit_ledger_row_fn *row);

/* A table's rows by the code they report under (generated with the
 * table, sorted by code, each code's rows in table order). */
struct mcinit_ledger_run {
	const char *code;
	unsigned short row;
};
/* The rows of runs[0..nruns) under `code`, out of rows (the same rows, one
 * array); *n set to how many. */
const unsigned short *mcinit_ledger_runs(const struct mcinit_ledger_run *runs, size_t nruns,
                                         const unsigned short *rows, const char *code, size_t *n);

#endif
