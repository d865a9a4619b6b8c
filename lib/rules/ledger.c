/* ledger.c — the ledger and coverage of a check table.  See ledger.h. */
#include "rules/ledger.h"

#include <stddef.h>
#include <string.h>

#include "core/util.h"

const unsigned short *
mcinit_ledger_runs(const struct mcinit_ledger_run *runs, size_t nruns, const unsigned short *rows,
                   const char *code, size_t *n)
{
	size_t lo = mcinit_lower_bound_str(runs, nruns, sizeof runs[0],
	                                   offsetof(struct mcinit_ledger_run, code), code);
	size_t hi;

	for (hi = lo; hi < nruns && strcmp(runs[hi].code, code) == 0; hi++)
		;
	*n = hi - lo;
	return rows + lo;
}

int
mcinit_ledger_print(FILE *out, size_t n, mcinit_ledger_row_fn *row)
{
	struct mcinit_ledger_row r;
	size_t i;

	fprintf(out, "id\timplemented_by\tnote\n");
	for (i = 0; i < n; i++) {
		row(i, &r);
		if (r.code != NULL && r.dup != NULL)
			fprintf(out, "%s\t%s\tas %s\n", r.id, r.code, r.dup);
		else if (r.code != NULL)
			fprintf(out, "%s\t%s\t%s\n", r.id, r.code,
			        r.rule ? "hand-written rule" : "table row");
		else if (!r.offline || r.no != NULL)
			fprintf(out, "%s\toffline-no: %s\t\n", r.id,
			        r.no ? r.no : "needs what the config does not hold");
		else
			fprintf(out, "%s\t%s\t\n", r.id, r.why);
	}
	return ferror(out) ? -1 : 0;
}

int
mcinit_ledger_coverage(FILE *out, const char *title, int width, size_t n, mcinit_ledger_row_fn *row)
{
	struct {
		const char *fn;
		int impl, off, total;
	} rows[64];
	struct mcinit_ledger_row r;
	size_t nrows = 0, i, k;
	int ti = 0, to = 0;

	for (i = 0; i < n; i++) {
		bool off;

		row(i, &r);
		off = r.offline && r.no == NULL;
		for (k = 0; k < nrows && strcmp(rows[k].fn, r.function) != 0; k++)
			;
		if (k == nrows && nrows < 64) {
			rows[nrows].fn = r.function;
			rows[nrows].impl = rows[nrows].off = rows[nrows].total = 0;
			nrows++;
		}
		if (k == 64)
			continue;
		rows[k].total++;
		rows[k].off += off;
		rows[k].impl += r.code != NULL;
		to += off;
		ti += r.code != NULL;
	}
	fprintf(out, "%-*s %11s %8s %5s\n", width, title, "implemented", "offline", "total");
	for (k = 0; k < nrows; k++)
		fprintf(out, "%-*s %11d %8d %5d\n", width, rows[k].fn, rows[k].impl, rows[k].off,
		        rows[k].total);
	fprintf(out, "%-*s %11d %8d %5zu\n", width, "all", ti, to, n);
	return ferror(out) ? -1 : 0;
}
