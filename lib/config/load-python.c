/*
 * load-python.c — lint Python sources for argparse `type=bool` (MC002):
 * bool() of any non-empty string is True, so `--flag False` turns it on.
 */
#include "config/config.h"

#include <stdlib.h>

#include "input/pylint.h"

int
mcinit_lint_python(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                   struct mcinit_err *err)
{
	struct mcinit_pybool *v = NULL;
	struct mcinit_loc l;
	size_t len, n = 0, i;
	char *text = mcinit_read_file(path, &len, err);
	int rc = -1;

	if (text == NULL)
		return -1;
	l = mcinit_config_source(c, path);
	if (mcinit_pylint_type_bool(text, len, &v, &n, err) < 0) {
		mcinit_err_locate(err, path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct mcinit_diag *g;

		l.line = v[i].line;
		l.col = v[i].col;
		g = mcinit_diag_add(d, MCINIT_WARNING, "MC002", &l,
		                    "%s is declared with type=bool: argparse calls bool(word), so "
		                    "`%s False` (or 0, no, off) sets it to True; only an empty "
		                    "word gives False",
		                    v[i].flag, v[i].flag);
		mcinit_diag_hint(g, "use action=\"store_true\", or "
		                    "action=argparse.BooleanOptionalAction for a --x/--no-x pair");
	}
	rc = 0;
out:
	mcinit_pybool_free(v, n);
	free(text);
	return rc;
}
