/*
 * server-cmds.c — the commands of the store's server (server-impl.h): one
 * handler each, the table that maps a command's code to its handler, and
 * mcinit_store_frame, the dry pass alone.  Each handler runs twice on a
 * request: parsing and measuring (go false), then acting (go true); the
 * loop that calls them is server-conn.c's.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store/server-impl.h"

/* ---- request parsing ---- */

/* 1 when the key is not held yet (a request for it would add one). */
static uint64_t
new_key(const struct mcinit_store_server *s, const char *k, size_t kl)
{
	return mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl)) ? 0 : 1;
}

static bool
entry_exists(const struct entry *e)
{
	return e && (e->has_value || e->qlen > 0);
}

static int
do_set(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	const char *k, *v;
	size_t kl, vl;
	struct entry *e;

	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	TRY(mcinit_store_rd_str(r, s->lim.max_value, &v, &vl));
	if (!go)
		return P_OK;
	if (kl == sizeof MCINIT_STORE_AUTH_KEY - 1 && memcmp(k, MCINIT_STORE_AUTH_KEY, kl) == 0) {
		/* never stored: the token is not for other clients to read */
		if (s->token) {
			size_t tl = strlen(s->token), i;
			unsigned char diff = (unsigned char)(tl != vl);

			for (i = 0; i < vl && i < tl; i++)
				diff |= (unsigned char)(s->token[i] ^ v[i]);
			if (diff)
				return P_BAD;
		}
		c->authed = true;
		return P_OK;
	}
	if (!mcinit_srv_room(s, kl + vl + sizeof(struct entry), new_key(s, k, kl)))
		return P_BAD;
	if (s->token && kl >= sizeof MCINIT_STORE_OPEN_KEY - 1 &&
	    memcmp(k + kl - (sizeof MCINIT_STORE_OPEN_KEY - 1), MCINIT_STORE_OPEN_KEY,
	           sizeof MCINIT_STORE_OPEN_KEY - 1) == 0) {
		/* an authenticated rank hands over to a program that knows no token */
		free(s->token);
		s->token = NULL;
	}
	e = mcinit_srv_entry_get(s, k, kl);
	mcinit_srv_entry_set_value(s, e, v, vl);
	mcinit_srv_wake(s, e, false);
	return P_OK;
}

static int
do_compare_set(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	const char *k, *ex, *de;
	size_t kl, exl, del;
	struct entry *e;

	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	TRY(mcinit_store_rd_str(r, s->lim.max_value, &ex, &exl));
	TRY(mcinit_store_rd_str(r, s->lim.max_value, &de, &del));
	e = mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl));
	if (!go) { /* the reply is one of the three values */
		s->reply_need = 8 + exl + del + (e && e->has_value ? e->vlen : 0);
		return P_OK;
	}
	if (!mcinit_srv_room(s, kl + del + sizeof(struct entry), new_key(s, k, kl)))
		return P_BAD;
	if (!e || !e->has_value) {
		/* torch: a missing key is created only when nothing was expected;
		 * otherwise the expected value is returned, and nothing stored */
		if (exl != 0) {
			mcinit_srv_out_vec(c, ex, exl);
			return P_OK;
		}
		e = mcinit_srv_entry_get(s, k, kl);
		mcinit_srv_entry_set_value(s, e, de, del);
	} else if (e->vlen == exl && memcmp(e->val, ex, exl) == 0) {
		mcinit_srv_entry_set_value(s, e, de, del);
	}
	mcinit_srv_out_vec(c, e->val, e->vlen);
	mcinit_srv_wake(s, e, false);
	return P_OK;
}

/* The key a request names, and its entry (NULL: none, or not go: the
 * request is only being parsed). */
static int
key_entry(struct mcinit_store_server *s, struct rd *r, bool go, struct entry **e)
{
	const char *k;
	size_t kl;

	*e = NULL;
	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	if (go)
		*e = mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl));
	return P_OK;
}

static int
do_get(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	struct entry *e;

	TRY(key_entry(s, r, true, &e));
	if (!go) {
		s->reply_need = 8 + (e && e->has_value ? e->vlen : 0);
		return P_OK;
	}
	if (e && e->has_value)
		mcinit_srv_out_vec(c, e->val, e->vlen);
	else
		mcinit_srv_out_vec(c, NULL, 0); /* as torch's libuv server: empty */
	return P_OK;
}

/* k's value as ADD's counter plus d, stored back as decimal text, into
 * *out; its entry, or NULL when the value is no number, the sum
 * overflows or there is no room (torch drops the connection too). */
static struct entry *
counter_add(struct mcinit_store_server *s, const char *k, size_t kl, int64_t d, int64_t *out)
{
	struct entry *e = mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl));
	int64_t v = 0;
	char num[24], *q;
	unsigned long long mag;

	if (e && e->has_value && !mcinit_store_parse_ll(e->val, e->vlen, &v))
		return NULL;
	if (__builtin_add_overflow(v, d, &v))
		return NULL;
	if (!mcinit_srv_room(s, kl + 24 + sizeof(struct entry), new_key(s, k, kl)))
		return NULL;
	mag = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	q = mcinit_utoa_rev(num + sizeof num, mag);
	if (v < 0)
		*--q = '-';
	e = mcinit_srv_entry_get(s, k, kl);
	mcinit_srv_entry_set_value(s, e, q, (size_t)(num + sizeof num - q));
	*out = v;
	return e;
}

static int
add_key(struct mcinit_store_server *s, struct conn *c, const char *k, size_t kl, int64_t d)
{
	int64_t v;
	struct entry *e = counter_add(s, k, kl, d, &v);

	if (!e)
		return P_BAD;
	mcinit_srv_out_i64(c, v);
	mcinit_srv_wake(s, e, false);
	return P_OK;
}

static int
do_add(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	const char *k;
	size_t kl;
	int64_t d;

	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	TRY(mcinit_store_rd_raw(r, &d, sizeof d));
	if (!go)
		return P_OK;
	return add_key(s, c, k, kl, d);
}

/* n keys; with go, calls fn on each. */
static int
rd_keys(struct mcinit_store_server *s, struct rd *r, uint64_t *n)
{
	TRY(mcinit_store_rd_raw(r, n, sizeof *n));
	return *n > s->lim.max_keys ? P_BAD : P_OK;
}

static int
do_check(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint64_t n, i;
	bool all = true;

	TRY(rd_keys(s, r, &n));
	for (i = 0; i < n; i++) {
		const char *k;
		size_t kl;

		TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
		if (go && all)
			all =
			    entry_exists(mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl)));
	}
	if (go)
		mcinit_srv_out_u8(c, all ? MCINIT_STORE_READY : MCINIT_STORE_NOT_READY);
	return P_OK;
}

static int
do_wait(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint64_t n, i;

	TRY(rd_keys(s, r, &n));
	if (go) {
		mcinit_srv_wait_clear(s, c); /* a new WAIT replaces one still pending */
		if (!mcinit_srv_room(s, (size_t)n * (2 * sizeof(void *) + sizeof(struct entry)), 0))
			return P_BAD;
	}
	/* one look-up per key: a key that is missing is registered at once (a
	 * rendezvous of N ranks waiting for N keys is N^2 keys: no second pass) */
	for (i = 0; i < n; i++) {
		const char *k;
		size_t kl;
		uint64_t h;
		struct entry *e;

		TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
		if (!go)
			continue;
		h = mcinit_srv_fnv1a(k, kl);
		e = mcinit_srv_entry_find(s, k, kl, h);
		if (entry_exists(e))
			continue;
		/* a key to wait for is held too: over the bound, the connection
		 * goes, and its registrations with it */
		if (!e && !mcinit_srv_room(s, 0, 1))
			return P_BAD;
		if (!e)
			e = mcinit_srv_entry_get(s, k, kl);
		mcinit_srv_wait_register(c, e);
	}
	if (go && c->awaited == 0)
		mcinit_srv_out_u8(c, MCINIT_STORE_STOP_WAIT);
	return P_OK;
}

static int
do_delete(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	struct entry *e;
	int64_t n = 0;

	TRY(key_entry(s, r, go, &e));
	if (!go)
		return P_OK;
	if (e && e->has_value) {
		mcinit_srv_entry_clear_value(s, e);
		mcinit_srv_entry_gc(s, e);
		n = 1;
	}
	mcinit_srv_out_i64(c, n);
	return P_OK;
}

static int
do_append(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	const char *k, *v;
	size_t kl, vl;
	struct entry *e;

	(void)c;
	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	TRY(mcinit_store_rd_str(r, s->lim.max_value, &v, &vl));
	if (!go)
		return P_OK;
	e = mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl));
	if (!mcinit_srv_room(s, kl + vl + sizeof(struct entry), new_key(s, k, kl)) ||
	    (e && e->has_value && e->vlen + vl > s->lim.max_value))
		return P_BAD;
	if (e && e->has_value) {
		e->val = mcx_xrealloc(e->val, e->vlen + vl + 1);
		memcpy(e->val + e->vlen, v, vl);
		e->vlen += vl;
		s->mem += vl;
	} else {
		e = mcinit_srv_entry_get(s, k, kl);
		mcinit_srv_entry_set_value(s, e, v, vl);
	}
	mcinit_srv_wake(s, e, false);
	return P_OK;
}

static int
do_multi_get(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint64_t n, i;

	TRY(rd_keys(s, r, &n));
	for (i = 0; i < n; i++) {
		const char *k;
		size_t kl;

		TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
		{
			struct entry *e = mcinit_srv_entry_find(s, k, kl, mcinit_srv_fnv1a(k, kl));
			size_t vl = e && e->has_value ? e->vlen : 0;

			if (!go) /* a key named n times is sent n times */
				s->reply_need += 8 + vl;
			else
				mcinit_srv_out_vec(c, vl ? e->val : NULL, vl);
		}
	}
	return P_OK;
}

static int
do_multi_set(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint64_t n, i, nnew = 0;
	size_t need = 0;

	(void)c;
	TRY(rd_keys(s, r, &n));
	for (i = 0; i < n; i++) {
		const char *k, *v;
		size_t kl, vl;

		TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
		TRY(mcinit_store_rd_str(r, s->lim.max_value, &v, &vl));
		need += kl + vl + sizeof(struct entry);
		if (!go)
			nnew += new_key(s, k, kl);
		if (go) {
			struct entry *e = mcinit_srv_entry_get(s, k, kl);

			mcinit_srv_entry_set_value(s, e, v, vl);
			mcinit_srv_wake(s, e, false);
		}
	}
	if (!go && !mcinit_srv_room(s, need, nnew))
		return P_BAD;
	return P_OK;
}

static int
do_cancel(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	(void)r;
	if (!go)
		return P_OK;
	mcinit_srv_wait_clear(s, c);
	mcinit_srv_out_u8(c, MCINIT_STORE_CANCELED);
	return P_OK;
}

static int
do_ping(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint32_t nonce;

	(void)s;
	TRY(mcinit_store_rd_raw(r, &nonce, sizeof nonce));
	if (go)
		mcinit_srv_out_add(c, &nonce, sizeof nonce);
	return P_OK;
}

static int
do_validate(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint32_t magic;

	(void)s;
	(void)c;
	(void)go;
	TRY(mcinit_store_rd_raw(r, &magic, sizeof magic));
	return magic == MCINIT_STORE_MAGIC ? P_OK : P_BAD;
}

static int
do_queue_push(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	const char *k, *v;
	size_t kl, vl;
	struct entry *e;
	struct qitem *q;

	(void)c;
	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	TRY(mcinit_store_rd_str(r, s->lim.max_value, &v, &vl));
	if (!go)
		return P_OK;
	if (!mcinit_srv_room(s, kl + vl + sizeof *q + sizeof(struct entry), new_key(s, k, kl)))
		return P_BAD;
	e = mcinit_srv_entry_get(s, k, kl);
	q = mcx_xmalloc(sizeof *q + vl);
	q->next = NULL;
	q->len = vl;
	memcpy(q->data, v, vl);
	if (e->qtail)
		e->qtail->next = q;
	else
		e->qhead = q;
	e->qtail = q;
	e->qlen++;
	s->mem += sizeof *q + vl;
	mcinit_srv_wake(s, e, true);
	return P_OK;
}

static int
do_queue_pop(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	struct entry *e;
	struct qitem *q;

	TRY(key_entry(s, r, true, &e));
	if (!go) {
		s->reply_need = 16 + (e && e->qhead ? e->qhead->len : 0);
		return P_OK;
	}
	mcinit_srv_out_i64(c, e ? (int64_t)e->qlen : 0);
	if (!e || !e->qhead)
		return P_OK;
	q = e->qhead;
	e->qhead = q->next;
	if (!e->qhead)
		e->qtail = NULL;
	e->qlen--;
	mcinit_srv_out_vec(c, q->data, q->len);
	s->mem -= sizeof *q + q->len;
	free(q);
	mcinit_srv_entry_gc(s, e);
	return P_OK;
}

static int
do_queue_len(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	struct entry *e;

	TRY(key_entry(s, r, go, &e));
	if (!go)
		return P_OK;
	mcinit_srv_out_i64(c, e ? (int64_t)e->qlen : 0);
	return P_OK;
}

static int
do_numkeys(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	(void)r;
	if (go)
		mcinit_srv_out_i64(c, (int64_t)s->nvalues);
	return P_OK;
}

/* LIST_KEYS (torch >= 2.10): how many keys hold a value, then each key,
 * prefix and all (the client keeps those under its own prefix). */
static int
do_list_keys(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	size_t i;
	const struct entry *e;

	(void)r;
	if (!go) {
		s->reply_need = 8 + 8 * s->nvalues + s->vkeybytes;
		return P_OK;
	}
	mcinit_srv_out_i64(c, (int64_t)s->nvalues);
	for (i = 0; i < s->tabsize; i++)
		for (e = s->tab[i]; e; e = e->next)
			if (e->has_value)
				mcinit_srv_out_vec(c, e->key, e->klen);
	return P_OK;
}

/* BARRIER (torch >= 2.15), the server-side barrier: a counter in the
 * key's value, as ADD's.  The world_size-th arrival wakes every waiter on
 * the key and is answered at once; the others wait as a WAIT on the key
 * does (a CANCEL_WAIT takes one back, a write of the key wakes it, as in
 * torch's libuv server). */
static int
do_barrier(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	const char *k;
	size_t kl;
	int64_t world, n;
	struct entry *e;

	TRY(mcinit_store_rd_str(r, s->lim.max_key, &k, &kl));
	TRY(mcinit_store_rd_raw(r, &world, sizeof world));
	if (!go)
		return P_OK;
	mcinit_srv_wait_clear(s, c); /* as a new WAIT: it replaces one still pending */
	e = counter_add(s, k, kl, 1, &n);
	if (!e)
		return P_BAD;
	if (n >= world) {
		mcinit_srv_wake(s, e, false);
		mcinit_srv_out_u8(c, MCINIT_STORE_STOP_WAIT);
	} else {
		mcinit_srv_wait_register(c, e);
	}
	return P_OK;
}

/* The handlers by command code (enum mcinit_store_cmd); a code with none
 * is one the protocol lacks. */
static const handler_fn handlers[] = {
    [MCINIT_STORE_VALIDATE] = do_validate,
    [MCINIT_STORE_SET] = do_set,
    [MCINIT_STORE_COMPARE_SET] = do_compare_set,
    [MCINIT_STORE_GET] = do_get,
    [MCINIT_STORE_ADD] = do_add,
    [MCINIT_STORE_CHECK] = do_check,
    [MCINIT_STORE_WAIT] = do_wait,
    [MCINIT_STORE_GETNUMKEYS] = do_numkeys,
    [MCINIT_STORE_DELETE_KEY] = do_delete,
    [MCINIT_STORE_APPEND] = do_append,
    [MCINIT_STORE_MULTI_GET] = do_multi_get,
    [MCINIT_STORE_MULTI_SET] = do_multi_set,
    [MCINIT_STORE_CANCEL_WAIT] = do_cancel,
    [MCINIT_STORE_PING] = do_ping,
    [MCINIT_STORE_QUEUE_PUSH] = do_queue_push,
    [MCINIT_STORE_QUEUE_POP] = do_queue_pop,
    [MCINIT_STORE_QUEUE_LEN] = do_queue_len,
    [MCINIT_STORE_LIST_KEYS] = do_list_keys,
    [MCINIT_STORE_BARRIER] = do_barrier,
};

handler_fn
mcinit_srv_handler_of(unsigned cmd)
{
	return cmd < sizeof handlers / sizeof *handlers ? handlers[cmd] : NULL;
}

int
mcinit_store_frame(const struct mcinit_store_server *s, const void *p, size_t n, size_t *len)
{
	struct rd r = {p, n, 1};
	handler_fn h = n ? mcinit_srv_handler_of(*(const unsigned char *)p) : NULL;
	int rc;

	if (n == 0)
		return 0;
	if (!h)
		return -1;
	/* the dry pass reads the limits and the memory count only: no
	 * connection, nothing written but the size of the reply it measures */
	((struct mcinit_store_server *)s)->reply_need = 0;
	rc = h((struct mcinit_store_server *)s, NULL, &r, false);
	if (rc == P_OK)
		*len = r.off;
	return rc == P_OK ? 1 : rc == P_MORE ? 0 : -1;
}
