/*
 * proto.c — what the store's server and client share of TCPStore's
 * protocol: the clock deadlines are measured on, the default limits, and
 * the reader of the wire format (wire.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "store/store.h"
#include "store/wire.h"

double
mcinit_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
mcinit_store_limits_default(struct mcinit_store_limits *l)
{
	l->max_key = 8 * 1024;
	l->max_value = 8 * 1024 * 1024;
	l->max_keys = 128 * 1024;
	l->max_conns = 0; /* from the open-file limit when the server starts */
	l->max_memory = (size_t)1 << 30;
	l->max_entries = (size_t)1 << 20;
	l->silent_timeout = 30.0;
}

/* ---- reading the wire (wire.h) ---- */

int
mcinit_store_rd_raw(struct rd *r, void *dst, size_t n)
{
	if (r->n - r->off < n)
		return P_MORE;
	memcpy(dst, r->p + r->off, n);
	r->off += n;
	return P_OK;
}

/* A length-prefixed string of at most max bytes, pointed into the buffer. */
int
mcinit_store_rd_str(struct rd *r, size_t max, const char **p, size_t *len)
{
	uint64_t l;
	int rc = mcinit_store_rd_raw(r, &l, sizeof l);

	if (rc != P_OK)
		return rc;
	if (l > max)
		return P_BAD;
	if (r->n - r->off < l)
		return P_MORE;
	*p = r->p + r->off;
	*len = (size_t)l;
	r->off += (size_t)l;
	return P_OK;
}

/* torch stores ADD's counter as decimal text and parses it with stoll:
 * leading blanks, a sign, digits; what follows the digits is ignored. */
bool
mcinit_store_parse_ll(const char *p, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false, any = false;
	unsigned long long v = 0, lim;

	while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
		i++;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		neg = p[i++] == '-';
	lim = neg ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
		any = true;
	}
	if (!any)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* ---- writing the wire (wire.h) ---- */

void
mcinit_store_wr_u64(struct mcx_buf *b, uint64_t v)
{
	mcx_buf_add(b, &v, sizeof v); /* little-endian hosts only, as torch */
}

void
mcinit_store_wr_vec(struct mcx_buf *b, const void *p, size_t n)
{
	mcinit_store_wr_u64(b, n);
	mcx_buf_add(b, p, n);
}
