/*
 * layout.c — pipeline_model_parallel_layout strings, parsed the way
 * Megatron-Core does (mcinit_layout_parse in rules.h), for the virtual
 * pipeline and layer counts (derive.c) and rule MC024 (rules.c).
 */
#include "rules/rules-impl.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Layouts unroll `(...)*n`: cap what a typo like `t*99999999` may cost. */
#define LAYOUT_MAX (1u << 20)

/* One re.sub pass of Megatron's parse_str_to_list: every non-overlapping
 * match of `pattern`, left to right, becomes group 1 repeated group 2 times. */
static int
unroll(const char *in, const char *pattern, struct mcx_buf *out, char **why)
{
	regmatch_t m[3];
	const char *p = in;
	regex_t re;
	int rc = -1;

	if (regcomp(&re, pattern, REG_EXTENDED) != 0) {
		*why = mcx_xstrdup("internal error: bad layout pattern");
		return -1;
	}
	out->len = 0;
	while (*p && regexec(&re, p, 3, m, p == in ? 0 : REG_NOTBOL) == 0) {
		size_t glen = (size_t)(m[1].rm_eo - m[1].rm_so);
		unsigned long long n, k;

		errno = 0;
		n = strtoull(p + m[2].rm_so, NULL, 10);
		if (errno != 0 || (glen > 0 && n > LAYOUT_MAX / glen) ||
		    out->len + glen * n > LAYOUT_MAX) {
			*why = mcx_xasprintf("unrolls to more than %u layers", LAYOUT_MAX);
			goto out;
		}
		mcx_buf_add(out, p, (size_t)m[0].rm_so);
		for (k = 0; k < n; k++)
			mcx_buf_add(out, p + m[1].rm_so, glen);
		p += m[0].rm_eo;
	}
	mcx_buf_adds(out, p);
	mcx_buf_cstr(out);
	rc = 0;
out:
	regfree(&re);
	return rc;
}

/* The unrolled layout: stages separated by '|', each a string of E L t m. */
int
mcinit_layout_unroll(const char *layout, struct mcx_buf *flat, char **why)
{
	struct mcx_buf a = {0}, b = {0};
	const char *p;
	int rc = -1;

	for (p = layout; *p; p++)
		if (*p != ',')
			mcx_buf_addc(&a, *p);
	mcx_buf_cstr(&a);
	if (unroll(a.data, "\\(([^)]+)\\)\\*([0-9]+)", &b, why) < 0 ||
	    unroll(b.data, "(.)\\*([0-9]+)", flat, why) < 0)
		goto out;
	for (p = flat->data; *p; p++) {
		if (strchr("ELtm|", *p) == NULL) {
			*why = mcx_xasprintf("'%c' is not a layer (known: E embedding, L loss, "
			                     "t transformer layer, m MTP layer; | ends a stage)",
			                     *p);
			goto out;
		}
	}
	rc = 0;
out:
	mcx_buf_free(&a);
	mcx_buf_free(&b);
	return rc;
}

long
mcinit_layout_parse(const char *layout, int *t_counts, size_t max, char **why)
{
	struct mcx_buf flat = {0};
	char *msg = NULL;
	const char *p;
	long stages = 1;

	if (mcinit_layout_unroll(layout, &flat, &msg) < 0) {
		stages = -1;
		goto out;
	}
	if (t_counts != NULL && max > 0)
		t_counts[0] = 0;
	for (p = flat.data; *p; p++) {
		if (*p == '|') {
			if (t_counts != NULL && (size_t)stages < max)
				t_counts[stages] = 0;
			stages++;
		} else if (*p == 't' && t_counts != NULL && (size_t)stages <= max) {
			t_counts[stages - 1]++;
		}
	}
out:
	if (why != NULL)
		*why = msg;
	else
		free(msg);
	mcx_buf_free(&flat);
	return stages;
}
