/*
 * server.c — the TCPStore-compatible server (see store.h).
 *
 * The server keeps every key in one chained hash table.  An entry lives as
 * long as it has a value, queued items or waiting connections.  A WAIT
 * registers the connection on each key that does not exist yet and counts
 * them; every write to a key decrements the count of the connections
 * registered there, and a count reaching zero sends STOP_WAITING — the same
 * bookkeeping as torch's libuv server, without its scans over all keys, so a
 * rendezvous of N clients costs O(N·keys waited) and nothing quadratic more.
 * Each registration knows its slot in the key's list and the slot knows it
 * back, so a connection that cancels or closes while thousands wait on the
 * same key leaves in O(its keys), not O(the key's waiters).
 *
 * Requests are parsed twice: a dry pass checks that the whole frame is in the
 * buffer and every length is within the limits (nothing is allocated on the
 * client's word), then the real pass acts.  A frame can therefore never be
 * half-applied, and garbage costs only its connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/wire.h"

/* ---- server data ---- */

struct qitem {
	struct qitem *next;
	size_t len;
	char data[];
};

struct conn;

/* A registration of a WAIT, seen from the key (slot) and from the
 * connection (reg); each holds the other's index. */
struct wslot {
	struct conn *c; /* NULL: left (a cancel or close) */
	size_t reg;     /* its index in c->wkeys */
};
struct wreg {
	struct entry *e; /* NULL: consumed by a wake-up */
	size_t slot;     /* its index in e->waiters */
};

struct entry {
	struct entry *next; /* hash chain */
	uint64_t hash;
	char *key;
	size_t klen;
	bool has_value;
	char *val;
	size_t vlen;
	struct qitem *qhead, *qtail;
	size_t qlen;
	struct wslot *waiters; /* one slot per awaited occurrence of this key */
	size_t nwait, capwait, ndead;
};

struct conn {
	int fd; /* -1: an in-process session (store.h) */
	bool authed, spoke, dead;
	/* its unsent replies passed out_bound(): no request is read or
	 * handled until the client has taken enough of them */
	bool paused;
	uint32_t events;                 /* what epoll watches for it now */
	struct mcinit_store_server *srv; /* whose memory count its buffers join */
	double since;
	struct conn *sprev, *snext; /* the silent list (connected, no byte yet) */
	struct conn *dnext;         /* deferred free list */
	struct conn *aprev, *anext; /* every open connection */
	struct conn *pnext;         /* written to by a wake-up, to flush */
	bool pending;
	char *in;
	size_t inlen, incap;
	char *out;
	size_t outoff, outlen, outcap;
	size_t awaited;     /* keys this WAIT still needs */
	struct wreg *wkeys; /* entries the conn is registered on */
	size_t nwkeys, capwkeys;
};

struct mcinit_store_server {
	int lfd, epfd, stopfd;
	/* a descriptor held in reserve: at the open-file limit it is closed to
	 * accept and close one pending connection, so the listener does not
	 * stay readable for ever (epoll would spin); -1 when it cannot be had */
	int spare;
	double accept_resume; /* the listener is off until then; 0: on */
	size_t reply_need;    /* the reply the request parsed last will take */
	size_t vkeybytes;     /* bytes of the keys that hold a value (LIST_KEYS) */
	int port;
	char *token;
	struct mcinit_store_limits lim;
	struct entry **tab;
	size_t tabsize, nentries, nvalues;
	size_t mem;
	struct conn *shead, *stail;
	struct conn *dead;
	struct conn *all;
	struct conn *pending;
	size_t nconns;
	unsigned long long accepted, dropped, requests, refused;
	unsigned long long malformed, truncated, silent, stalled, turned_away; /* by kind */
	char why[160];              /* the last refusal's reason */
	unsigned long long unknown; /* requests with a command the protocol lacks */
	char unknown_why[160];
	pthread_t thr;
	bool thr_running;
};

#define TAG_LISTEN ((void *)1)
#define TAG_STOP   ((void *)2)

static uint64_t
fnv1a(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ull;
	}
	return h;
}

static struct entry *
entry_find(const struct mcinit_store_server *s, const char *k, size_t kl, uint64_t h)
{
	struct entry *e;

	for (e = s->tab[h & (s->tabsize - 1)]; e; e = e->next)
		if (e->hash == h && e->klen == kl && memcmp(e->key, k, kl) == 0)
			return e;
	return NULL;
}

static void
tab_grow(struct mcinit_store_server *s)
{
	size_t n = s->tabsize * 2, i;
	struct entry **t = mcinit_xcalloc(n, sizeof *t);

	for (i = 0; i < s->tabsize; i++) {
		struct entry *e = s->tab[i], *nx;

		for (; e; e = nx) {
			nx = e->next;
			e->next = t[e->hash & (n - 1)];
			t[e->hash & (n - 1)] = e;
		}
	}
	free(s->tab);
	s->tab = t;
	s->tabsize = n;
}

static struct entry *
entry_get(struct mcinit_store_server *s, const char *k, size_t kl)
{
	uint64_t h = fnv1a(k, kl);
	struct entry *e = entry_find(s, k, kl, h);

	if (e)
		return e;
	if (s->nentries >= s->tabsize)
		tab_grow(s);
	e = mcinit_xcalloc(1, sizeof *e);
	e->hash = h;
	e->key = mcinit_xmalloc(kl + 1);
	memcpy(e->key, k, kl);
	e->key[kl] = '\0';
	e->klen = kl;
	e->next = s->tab[h & (s->tabsize - 1)];
	s->tab[h & (s->tabsize - 1)] = e;
	s->nentries++;
	s->mem += kl + sizeof *e;
	return e;
}

static bool
entry_exists(const struct entry *e)
{
	return e && (e->has_value || e->qlen > 0);
}

/* Frees e when nothing refers to it any more. */
static void
entry_gc(struct mcinit_store_server *s, struct entry *e)
{
	struct entry **pp;

	if (e->has_value || e->qlen || e->nwait)
		return;
	for (pp = &s->tab[e->hash & (s->tabsize - 1)]; *pp != e; pp = &(*pp)->next)
		;
	*pp = e->next;
	s->nentries--;
	s->mem -= e->klen + sizeof *e;
	free(e->waiters);
	free(e->key);
	free(e);
}

static void
entry_set_value(struct mcinit_store_server *s, struct entry *e, const char *v, size_t vl)
{
	if (e->has_value) {
		s->mem -= e->vlen;
		free(e->val);
	} else {
		s->nvalues++;
		s->vkeybytes += e->klen;
	}
	e->val = mcinit_xmalloc(vl ? vl : 1);
	memcpy(e->val, v, vl);
	e->vlen = vl;
	e->has_value = true;
	s->mem += vl;
}

static void
entry_clear_value(struct mcinit_store_server *s, struct entry *e)
{
	if (!e->has_value)
		return;
	s->mem -= e->vlen;
	free(e->val);
	e->val = NULL;
	e->vlen = 0;
	e->has_value = false;
	s->nvalues--;
	s->vkeybytes -= e->klen;
}

/* ---- connections: output ---- */

static void conn_close(struct mcinit_store_server *s, struct conn *c);

/* Room for n more bytes of replies in c->out, counted in the store's
 * memory: replies are what a client can make the store hold by asking
 * (a MULTI_GET naming a large value a thousand times, GETs it never
 * reads), so they count against max_memory like keys and values. */
static void
out_reserve(struct conn *c, size_t n)
{
	size_t cap;

	if (c->outlen + n <= c->outcap)
		return;
	if (c->outoff > 0) { /* what the client took makes room first */
		memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
		c->outlen -= c->outoff;
		c->outoff = 0;
		if (c->outlen + n <= c->outcap)
			return;
	}
	/* doubling while small; beyond 1 MiB, what is needed and 1 MiB more,
	 * so that a large reply does not hold twice its size */
	cap = c->outcap ? c->outcap : 256;
	while (cap < c->outlen + n && cap < ((size_t)1 << 20))
		cap *= 2;
	if (cap < c->outlen + n)
		cap = c->outlen + n + ((size_t)1 << 20);
	c->out = mcinit_xrealloc(c->out, cap);
	c->srv->mem += cap - c->outcap;
	c->outcap = cap;
}

static void
out_add(struct conn *c, const void *p, size_t n)
{
	out_reserve(c, n);
	memcpy(c->out + c->outlen, p, n);
	c->outlen += n;
}

/* Replies sent to c and not yet taken by its client. */
static size_t
unsent(const struct conn *c)
{
	return c->outlen - c->outoff;
}

/* A connection whose unsent replies pass this is not read from until its
 * client takes them: the largest request a connection may send, so that
 * a client that never reads holds a bounded part of the store. */
static size_t
out_bound(const struct mcinit_store_server *s)
{
	return 4 * (s->lim.max_value + s->lim.max_key) + 4096;
}

static void
out_release(struct conn *c)
{
	c->srv->mem -= c->outcap;
	free(c->out); /* an idle client holds no buffer: 65,536 of them wait at once */
	c->out = NULL;
	c->outoff = c->outlen = c->outcap = 0;
}

static void
out_u8(struct conn *c, uint8_t v)
{
	out_add(c, &v, 1);
}

static void
out_i64(struct conn *c, int64_t v)
{
	out_add(c, &v, sizeof v); /* little-endian hosts only, as torch */
}

static void
out_vec(struct conn *c, const char *p, size_t n)
{
	uint64_t l = n;

	out_add(c, &l, sizeof l);
	if (n)
		out_add(c, p, n);
}

/* Watches c for input unless it is paused, and for room to write while
 * replies wait. */
static void
conn_epoll(struct mcinit_store_server *s, struct conn *c)
{
	struct epoll_event ev = {.events = (c->paused ? 0u : (uint32_t)(EPOLLIN | EPOLLRDHUP)) |
	                                   (unsent(c) > 0 ? (uint32_t)EPOLLOUT : 0u),
	                         .data.ptr = c};

	if (c->fd < 0 || ev.events == c->events)
		return;
	c->events = ev.events;
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Writes what it can; false when the connection broke.  A session keeps
 * its replies until mcinit_store_session_feed hands them out. */
static bool
conn_flush(struct mcinit_store_server *s, struct conn *c)
{
	if (c->fd < 0)
		return true;
	while (c->outoff < c->outlen) {
		ssize_t w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			conn_epoll(s, c);
			return true;
		}
		if (w <= 0)
			return false;
		c->outoff += (size_t)w;
	}
	out_release(c);
	conn_epoll(s, c);
	return true;
}

/* ---- waiting ---- */

static void
wait_register(struct conn *c, struct entry *e)
{
	if (e->nwait == e->capwait) {
		e->capwait = e->capwait ? 2 * e->capwait : 4;
		e->waiters = mcinit_xrealloc(e->waiters, e->capwait * sizeof *e->waiters);
	}
	if (c->nwkeys == c->capwkeys) {
		c->capwkeys = c->capwkeys ? 2 * c->capwkeys : 4;
		c->wkeys = mcinit_xrealloc(c->wkeys, c->capwkeys * sizeof *c->wkeys);
	}
	e->waiters[e->nwait] = (struct wslot){c, c->nwkeys};
	c->wkeys[c->nwkeys++] = (struct wreg){e, e->nwait++};
	c->awaited++;
}

/* Squeezes the slots that were left out of e's list, telling each
 * connection its registration's new slot. */
static void
slots_compact(struct entry *e)
{
	size_t i, k = 0;

	for (i = 0; i < e->nwait; i++) {
		struct wslot w = e->waiters[i];

		if (!w.c)
			continue;
		w.c->wkeys[w.reg].slot = k;
		e->waiters[k++] = w;
	}
	e->nwait = k;
	e->ndead = 0;
}

/* Leaves slot i of e; true when nobody waits on e any more.  The list is
 * squeezed once half of it has left, so leaving costs O(1) amortized. */
static bool
slot_leave(struct entry *e, size_t i)
{
	e->waiters[i].c = NULL;
	if (++e->ndead == e->nwait) {
		e->nwait = e->ndead = 0;
		return true;
	}
	if (e->ndead > 16 && 2 * e->ndead > e->nwait)
		slots_compact(e);
	return false;
}

/* Forgets every registration of c (cancel, close, a new WAIT).  An entry
 * nobody waits on any more may go; each does so once, after the loop (the
 * same key may be registered twice), its pointer kept in the part of
 * c->wkeys already walked. */
static void
wait_clear(struct mcinit_store_server *s, struct conn *c)
{
	size_t i, ngc = 0;

	for (i = 0; i < c->nwkeys; i++) {
		struct wreg r = c->wkeys[i];

		if (r.e && slot_leave(r.e, r.slot))
			c->wkeys[ngc++].e = r.e;
	}
	for (i = 0; i < ngc; i++)
		entry_gc(s, c->wkeys[i].e);
	c->nwkeys = 0;
	c->awaited = 0;
}

static void
mark_pending(struct mcinit_store_server *s, struct conn *c)
{
	if (c->pending)
		return;
	c->pending = true;
	c->pnext = s->pending;
	s->pending = c;
}

/* Flushes every connection a wake-up wrote to (not inside the wake-up
 * itself: a failing write closes a connection, which edits wait lists). */
static void
flush_pending(struct mcinit_store_server *s)
{
	while (s->pending) {
		struct conn *c = s->pending;

		s->pending = c->pnext;
		c->pending = false;
		if (!c->dead && !conn_flush(s, c))
			conn_close(s, c);
	}
}

static void
wait_done(struct mcinit_store_server *s, struct conn *c)
{
	c->awaited = 0;
	c->nwkeys = 0; /* every registration was consumed by the wake-ups */
	out_u8(c, MCINIT_STORE_STOP_WAIT);
	mark_pending(s, c);
}

/* The key of e was written: wake its waiters (all of them, or for a queue
 * push the first whose wait it completes, as torch does). */
static void
wake(struct mcinit_store_server *s, struct entry *e, bool one)
{
	size_t i;

	for (i = 0; i < e->nwait; i++) {
		struct wslot w = e->waiters[i];

		if (!w.c || (one && w.c->awaited != 1))
			continue;
		w.c->wkeys[w.reg].e = NULL;
		if (one) {
			slot_leave(e, i);
			wait_done(s, w.c);
			return;
		}
		if (w.c->awaited > 0 && --w.c->awaited == 0)
			wait_done(s, w.c);
	}
	if (!one)
		e->nwait = e->ndead = 0;
}

/* ---- request parsing ---- */

static bool
mem_ok(const struct mcinit_store_server *s, size_t more)
{
	return s->mem + more <= s->lim.max_memory;
}

/* 1 when the key is not held yet (a request for it would add one). */
static uint64_t
new_key(const struct mcinit_store_server *s, const char *k, size_t kl)
{
	return entry_find(s, k, kl, fnv1a(k, kl)) ? 0 : 1;
}

/* Room for a request that may add `bytes` and `keys` new keys.  Refused
 * beyond the bounds (the protocol has no error reply: the connection is
 * dropped), with the reason kept for whoever serves to report. */
static bool
room(struct mcinit_store_server *s, size_t bytes, uint64_t keys)
{
	if (!mem_ok(s, bytes)) {
		snprintf(s->why, sizeof s->why,
		         "the store is full: %zu bytes held, a request for %zu more, bound %zu",
		         s->mem, bytes, s->lim.max_memory);
	} else if (keys > s->lim.max_entries || s->nentries + keys > s->lim.max_entries) {
		snprintf(s->why, sizeof s->why,
		         "the store is full: %zu keys held, a request for %llu more, bound %zu",
		         s->nentries, (unsigned long long)keys, s->lim.max_entries);
	} else {
		return true;
	}
	s->refused++;
	return false;
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
	if (!room(s, kl + vl + sizeof(struct entry), new_key(s, k, kl)))
		return P_BAD;
	if (s->token && kl >= sizeof MCINIT_STORE_OPEN_KEY - 1 &&
	    memcmp(k + kl - (sizeof MCINIT_STORE_OPEN_KEY - 1), MCINIT_STORE_OPEN_KEY,
	           sizeof MCINIT_STORE_OPEN_KEY - 1) == 0) {
		/* an authenticated rank hands over to a program that knows no token */
		free(s->token);
		s->token = NULL;
	}
	e = entry_get(s, k, kl);
	entry_set_value(s, e, v, vl);
	wake(s, e, false);
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
	e = entry_find(s, k, kl, fnv1a(k, kl));
	if (!go) { /* the reply is one of the three values */
		s->reply_need = 8 + exl + del + (e && e->has_value ? e->vlen : 0);
		return P_OK;
	}
	if (!room(s, kl + del + sizeof(struct entry), new_key(s, k, kl)))
		return P_BAD;
	if (!e || !e->has_value) {
		/* torch: a missing key is created only when nothing was expected;
		 * otherwise the expected value is returned, and nothing stored */
		if (exl != 0) {
			out_vec(c, ex, exl);
			return P_OK;
		}
		e = entry_get(s, k, kl);
		entry_set_value(s, e, de, del);
	} else if (e->vlen == exl && memcmp(e->val, ex, exl) == 0) {
		entry_set_value(s, e, de, del);
	}
	out_vec(c, e->val, e->vlen);
	wake(s, e, false);
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
		*e = entry_find(s, k, kl, fnv1a(k, kl));
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
		out_vec(c, e->val, e->vlen);
	else
		out_vec(c, NULL, 0); /* as torch's libuv server: empty */
	return P_OK;
}

/* k's value as ADD's counter plus d, stored back as decimal text, into
 * *out; its entry, or NULL when the value is no number, the sum
 * overflows or there is no room (torch drops the connection too). */
static struct entry *
counter_add(struct mcinit_store_server *s, const char *k, size_t kl, int64_t d, int64_t *out)
{
	struct entry *e = entry_find(s, k, kl, fnv1a(k, kl));
	int64_t v = 0;
	char num[24], *q;
	unsigned long long mag;

	if (e && e->has_value && !mcinit_store_parse_ll(e->val, e->vlen, &v))
		return NULL;
	if (__builtin_add_overflow(v, d, &v))
		return NULL;
	if (!room(s, kl + 24 + sizeof(struct entry), new_key(s, k, kl)))
		return NULL;
	mag = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	q = mcinit_utoa_rev(num + sizeof num, mag);
	if (v < 0)
		*--q = '-';
	e = entry_get(s, k, kl);
	entry_set_value(s, e, q, (size_t)(num + sizeof num - q));
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
	out_i64(c, v);
	wake(s, e, false);
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
			all = entry_exists(entry_find(s, k, kl, fnv1a(k, kl)));
	}
	if (go)
		out_u8(c, all ? MCINIT_STORE_READY : MCINIT_STORE_NOT_READY);
	return P_OK;
}

static int
do_wait(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint64_t n, i;

	TRY(rd_keys(s, r, &n));
	if (go) {
		wait_clear(s, c); /* a new WAIT replaces one still pending */
		if (!room(s, (size_t)n * (2 * sizeof(void *) + sizeof(struct entry)), 0))
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
		h = fnv1a(k, kl);
		e = entry_find(s, k, kl, h);
		if (entry_exists(e))
			continue;
		/* a key to wait for is held too: over the bound, the connection
		 * goes, and its registrations with it */
		if (!e && !room(s, 0, 1))
			return P_BAD;
		if (!e)
			e = entry_get(s, k, kl);
		wait_register(c, e);
	}
	if (go && c->awaited == 0)
		out_u8(c, MCINIT_STORE_STOP_WAIT);
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
		entry_clear_value(s, e);
		entry_gc(s, e);
		n = 1;
	}
	out_i64(c, n);
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
	e = entry_find(s, k, kl, fnv1a(k, kl));
	if (!room(s, kl + vl + sizeof(struct entry), new_key(s, k, kl)) ||
	    (e && e->has_value && e->vlen + vl > s->lim.max_value))
		return P_BAD;
	if (e && e->has_value) {
		e->val = mcinit_xrealloc(e->val, e->vlen + vl + 1);
		memcpy(e->val + e->vlen, v, vl);
		e->vlen += vl;
		s->mem += vl;
	} else {
		e = entry_get(s, k, kl);
		entry_set_value(s, e, v, vl);
	}
	wake(s, e, false);
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
			struct entry *e = entry_find(s, k, kl, fnv1a(k, kl));
			size_t vl = e && e->has_value ? e->vlen : 0;

			if (!go) /* a key named n times is sent n times */
				s->reply_need += 8 + vl;
			else
				out_vec(c, vl ? e->val : NULL, vl);
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
			struct entry *e = entry_get(s, k, kl);

			entry_set_value(s, e, v, vl);
			wake(s, e, false);
		}
	}
	if (!go && !room(s, need, nnew))
		return P_BAD;
	return P_OK;
}

static int
do_cancel(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	(void)r;
	if (!go)
		return P_OK;
	wait_clear(s, c);
	out_u8(c, MCINIT_STORE_CANCELED);
	return P_OK;
}

static int
do_ping(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	uint32_t nonce;

	(void)s;
	TRY(mcinit_store_rd_raw(r, &nonce, sizeof nonce));
	if (go)
		out_add(c, &nonce, sizeof nonce);
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
	if (!room(s, kl + vl + sizeof *q + sizeof(struct entry), new_key(s, k, kl)))
		return P_BAD;
	e = entry_get(s, k, kl);
	q = mcinit_xmalloc(sizeof *q + vl);
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
	wake(s, e, true);
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
	out_i64(c, e ? (int64_t)e->qlen : 0);
	if (!e || !e->qhead)
		return P_OK;
	q = e->qhead;
	e->qhead = q->next;
	if (!e->qhead)
		e->qtail = NULL;
	e->qlen--;
	out_vec(c, q->data, q->len);
	s->mem -= sizeof *q + q->len;
	free(q);
	entry_gc(s, e);
	return P_OK;
}

static int
do_queue_len(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	struct entry *e;

	TRY(key_entry(s, r, go, &e));
	if (!go)
		return P_OK;
	out_i64(c, e ? (int64_t)e->qlen : 0);
	return P_OK;
}

static int
do_numkeys(struct mcinit_store_server *s, struct conn *c, struct rd *r, bool go)
{
	(void)r;
	if (go)
		out_i64(c, (int64_t)s->nvalues);
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
	out_i64(c, (int64_t)s->nvalues);
	for (i = 0; i < s->tabsize; i++)
		for (e = s->tab[i]; e; e = e->next)
			if (e->has_value)
				out_vec(c, e->key, e->klen);
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
	wait_clear(s, c); /* as a new WAIT: it replaces one still pending */
	e = counter_add(s, k, kl, 1, &n);
	if (!e)
		return P_BAD;
	if (n >= world) {
		wake(s, e, false);
		out_u8(c, MCINIT_STORE_STOP_WAIT);
	} else {
		wait_register(c, e);
	}
	return P_OK;
}

typedef int (*handler_fn)(struct mcinit_store_server *, struct conn *, struct rd *, bool);

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

/* Before authentication a client may send VALIDATE, PING, ADD on torch's
 * `init/` and the SET of the auth key, and nothing else.  P_OK only when
 * the request is proved to be one of those: its key read whole and equal
 * to the one allowed (the rest of the frame is then parsed by the
 * handler's dry pass before anything runs).  P_MORE while the bytes that
 * decide are not all in and what is in still fits an allowed request; P_BAD
 * for everything else: another command, a key of another length (however
 * long: it is never read into a buffer), another key. */
static int
auth_gate(unsigned cmd, const struct rd *r)
{
	struct rd t = *r;
	const char *want;
	size_t wl;
	uint64_t l;
	int rc;

	if (cmd == MCINIT_STORE_VALIDATE || cmd == MCINIT_STORE_PING)
		return P_OK; /* fixed-size arguments, no key: the dry pass reads them */
	if (cmd == MCINIT_STORE_ADD)
		want = MCINIT_STORE_INIT_KEY;
	else if (cmd == MCINIT_STORE_SET)
		want = MCINIT_STORE_AUTH_KEY;
	else
		return P_BAD;
	wl = strlen(want);
	rc = mcinit_store_rd_raw(&t, &l, sizeof l);
	if (rc != P_OK)
		return rc;
	if (l != wl)
		return P_BAD;
	if (t.n - t.off < wl) /* a prefix of the key that is allowed, or not */
		return memcmp(t.p + t.off, want, t.n - t.off) == 0 ? P_MORE : P_BAD;
	return memcmp(t.p + t.off, want, wl) == 0 ? P_OK : P_BAD;
}

static handler_fn
handler_of(unsigned cmd)
{
	return cmd < sizeof handlers / sizeof *handlers ? handlers[cmd] : NULL;
}

int
mcinit_store_frame(const struct mcinit_store_server *s, const void *p, size_t n, size_t *len)
{
	struct rd r = {p, n, 1};
	handler_fn h = n ? handler_of(*(const unsigned char *)p) : NULL;
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

/* A command code the protocol lacks: a torch newer than this store, or
 * garbage.  The connection goes (torch's protocol has no error reply);
 * the code is kept for whoever serves to log. */
static void
note_unknown(struct mcinit_store_server *s, unsigned cmd)
{
	s->unknown++;
	snprintf(s->unknown_why, sizeof s->unknown_why,
	         "unknown command %u (TCPStore's commands are 0 to %d, as torch 2.15 sends them): "
	         "its connection dropped",
	         cmd, MCINIT_STORE_LAST_CMD);
}

/* Room for a reply of `need` bytes on c, counted in the store's memory
 * (out_reserve): refused beyond max_memory, as a request that would store
 * too much is (the connection dropped, the reason kept). */
static bool
reply_room(struct mcinit_store_server *s, struct conn *c, size_t need)
{
	size_t have = c->outcap - c->outlen + c->outoff;

	if (need <= have || mem_ok(s, need - have)) {
		out_reserve(c, need);
		return true;
	}
	snprintf(s->why, sizeof s->why,
	         "the store is full: %zu bytes held, a reply of %zu bytes, bound %zu", s->mem, need,
	         s->lim.max_memory);
	s->refused++;
	return false;
}

/* Handles every complete request in c->in; P_BAD drops the connection. */
static int
conn_process(struct mcinit_store_server *s, struct conn *c)
{
	size_t off = 0;
	int rc = P_OK;

	while (off < c->inlen && !c->dead) {
		struct rd r = {c->in, c->inlen, off + 1};
		unsigned cmd = (unsigned char)c->in[off];
		handler_fn h = handler_of(cmd);

		if (!h) {
			note_unknown(s, cmd);
			rc = P_BAD;
			break;
		}
		if (c->fd >= 0 && unsent(c) > out_bound(s)) {
			/* the client is not reading its replies: wait for it (the
			 * rest of the buffer stays, and nothing more is read) */
			c->paused = true;
			break;
		}
		if (s->token && !c->authed) {
			rc = auth_gate(cmd, &r);
			if (rc != P_OK)
				break;
		}
		s->reply_need = 0;
		rc = h(s, c, &r, false);
		if (rc != P_OK)
			break;
		if (!reply_room(s, c, s->reply_need)) {
			rc = P_BAD;
			break;
		}
		r.off = off + 1;
		rc = h(s, c, &r, true);
		if (rc != P_OK)
			break;
		s->requests++;
		off = r.off;
	}
	if (off > 0) {
		memmove(c->in, c->in + off, c->inlen - off);
		c->inlen -= off;
	}
	return rc == P_BAD ? P_BAD : P_OK;
}

/* ---- connections: lifecycle ---- */

static void
silent_unlink(struct mcinit_store_server *s, struct conn *c)
{
	if (c->sprev)
		c->sprev->snext = c->snext;
	else if (s->shead == c)
		s->shead = c->snext;
	if (c->snext)
		c->snext->sprev = c->sprev;
	else if (s->stail == c)
		s->stail = c->sprev;
	c->sprev = c->snext = NULL;
}

/* Starts c's clock: at the tail, so the list stays sorted by it. */
static void
silent_append(struct mcinit_store_server *s, struct conn *c)
{
	c->since = mcinit_now();
	c->sprev = s->stail;
	if (s->stail)
		s->stail->snext = c;
	else
		s->shead = c;
	s->stail = c;
}

static void
conn_close(struct mcinit_store_server *s, struct conn *c)
{
	if (c->dead)
		return;
	c->dead = true;
	silent_unlink(s, c); /* a no-op when it is not on the list */
	wait_clear(s, c);
	if (c->fd >= 0) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	s->mem -= c->incap + c->outcap;
	if (c->aprev)
		c->aprev->anext = c->anext;
	else
		s->all = c->anext;
	if (c->anext)
		c->anext->aprev = c->aprev;
	c->aprev = c->anext = NULL;
	if (c->fd >= 0) { /* a session is freed by its owner */
		c->dnext = s->dead;
		s->dead = c;
	}
	s->nconns--;
}

static void
reap_dead(struct mcinit_store_server *s)
{
	while (s->dead) {
		struct conn *c = s->dead;

		s->dead = c->dnext;
		free(c->in);
		free(c->out);
		free(c->wkeys);
		free(c);
	}
}

static size_t
max_request(const struct mcinit_store_server *s)
{
	return 4 * (s->lim.max_value + s->lim.max_key) + 4096;
}

/* Room for 4 KiB more in c->in.  A full buffer is processed before it may
 * grow, and it grows only up to the largest valid request. */
static int
in_reserve(struct mcinit_store_server *s, struct conn *c)
{
	size_t cap = c->incap ? c->incap * 2 : 8192;

	if (c->incap - c->inlen >= 4096)
		return P_OK;
	if (c->inlen > 0 && conn_process(s, c) != P_OK)
		return P_BAD;
	if (c->incap - c->inlen >= 4096 || c->paused)
		return P_OK; /* paused: nothing more is read (the caller stops) */
	if (cap > max_request(s) || !room(s, cap - c->incap, 0))
		return P_BAD;
	c->in = mcinit_xrealloc(c->in, cap);
	s->mem += cap - c->incap;
	c->incap = cap;
	return P_OK;
}

/* Gives back an input buffer that holds nothing: a rendezvous keeps every
 * client connected and idle while it waits, and 8 KiB each would be half a
 * gigabyte at 65,536 ranks. */
static void
in_release_idle(struct mcinit_store_server *s, struct conn *c)
{
	if (c->dead || c->inlen > 0 || c->incap == 0)
		return;
	free(c->in);
	c->in = NULL;
	s->mem -= c->incap;
	c->incap = 0;
}

/* A connection that stops in the middle of a request holds its buffer and
 * a slot: it goes on the clock's list (at the tail: the list stays sorted
 * by the time of each one's last byte), and off it once its requests are
 * whole. */
static void
clock_half_request(struct mcinit_store_server *s, struct conn *c)
{
	silent_unlink(s, c);
	if (!c->dead && c->inlen > 0)
		silent_append(s, c);
}

/* Handles c's buffered requests and writes their replies, again as long as
 * the client takes enough of them to lift a pause; then watches c for what
 * it waits for.  P_OK, P_BAD (a request to drop it for), or P_MORE: the
 * connection broke while writing. */
static int
conn_pump(struct mcinit_store_server *s, struct conn *c)
{
	while (!c->dead) {
		if (c->inlen > 0 && conn_process(s, c) != P_OK)
			return P_BAD;
		if (!conn_flush(s, c))
			return P_MORE;
		if (!c->paused || unsent(c) > out_bound(s))
			break;
		c->paused = false; /* the client took its replies: go on */
	}
	conn_epoll(s, c);
	return P_OK;
}

/* A connection dropped for its request: over the bounds (room() counted
 * it) or malformed. */
static void
drop_bad(struct mcinit_store_server *s, struct conn *c, unsigned long long refused_before)
{
	s->dropped++;
	s->malformed += s->refused == refused_before;
	conn_close(s, c);
}

/* Reads what the socket has, then handles every complete request: one
 * parse of a large request that arrives in pieces, not one per piece. */
static void
conn_readable(struct mcinit_store_server *s, struct conn *c)
{
	unsigned long long refused = s->refused;
	bool eof = false, got = false;

	for (;;) {
		ssize_t n;
		size_t want;

		if (c->paused)
			break;
		if (in_reserve(s, c) != P_OK)
			goto bad;
		if (c->paused)
			break;
		want = c->incap - c->inlen;
		n = recv(c->fd, c->in + c->inlen, want, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			eof = true;
			break;
		}
		c->spoke = true;
		got = true;
		c->inlen += (size_t)n;
		if ((size_t)n < want)
			break; /* drained: a recv that would say EAGAIN costs a syscall a request */
	}
	switch (conn_pump(s, c)) {
	case P_BAD:
		goto bad;
	case P_MORE:
		eof = true;
		break;
	}
	if (eof && c->inlen > 0)
		s->truncated++; /* gone in the middle of a request */
	if (eof)
		conn_close(s, c);
	else if (got)
		clock_half_request(s, c);
	in_release_idle(s, c);
	return;
bad:
	drop_bad(s, c, refused);
}

/* The client took some of its replies: a paused connection goes on with
 * the requests it has buffered once it is under the bound again. */
static void
conn_writable(struct mcinit_store_server *s, struct conn *c)
{
	unsigned long long refused = s->refused;
	bool was = c->paused;

	if (!conn_flush(s, c)) {
		conn_close(s, c);
		return;
	}
	if (!c->paused || unsent(c) > out_bound(s))
		return;
	c->paused = false;
	switch (conn_pump(s, c)) {
	case P_BAD:
		drop_bad(s, c, refused);
		return;
	case P_MORE:
		conn_close(s, c);
		return;
	}
	if (was && !c->dead)
		clock_half_request(s, c); /* its clock ran while the store held it */
	in_release_idle(s, c);
}

/* accept(2) failed for want of descriptors: the pending connection stays
 * and the listener readable, so epoll would wake at once for ever.  The
 * spare descriptor makes room to accept it and close it at once (the
 * client sees its connection closed, as at max_conns); without one the
 * listener is taken out of the set for 100 ms.  True when a connection was
 * taken (there may be more), false when there is none left or the
 * listener rests. */
static bool
accept_starved(struct mcinit_store_server *s)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = TAG_LISTEN};

	if (s->spare >= 0) {
		int fd;

		close(s->spare);
		fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			s->accepted++;
			s->dropped++;
			s->turned_away++;
		}
		s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (s->spare >= 0) /* (accept says EMFILE before it looks at the queue) */
			return fd >= 0;
		if (fd < 0 && errno != EMFILE && errno != ENFILE)
			return false;
	}
	if (s->accept_resume == 0.0 && s->epfd >= 0) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->lfd, &ev);
		s->accept_resume = mcinit_now() + 0.1;
	}
	return false;
}

static void
accept_all(struct mcinit_store_server *s)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct conn *c;
		struct epoll_event ev;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				if (accept_starved(s))
					continue;
				return;
			}
			return; /* EAGAIN: try again on the next event */
		}
		s->accepted++;
		if (s->nconns >= s->lim.max_conns || !mem_ok(s, sizeof *c)) {
			s->dropped++;
			s->turned_away++;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		c = mcinit_xcalloc(1, sizeof *c);
		c->fd = fd;
		c->srv = s;
		c->events = EPOLLIN | EPOLLRDHUP;
		silent_append(s, c);
		c->anext = s->all;
		if (s->all)
			s->all->aprev = c;
		s->all = c;
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.ptr = c;
		epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
		s->nconns++;
	}
}

/* Closes connections that never sent a byte within the limit, or sent half
 * a request and nothing more; returns the milliseconds until the next one
 * is due (-1 if none). */
static int
expire_silent(struct mcinit_store_server *s)
{
	double now = mcinit_now();

	while (s->shead && now - s->shead->since >= s->lim.silent_timeout) {
		s->dropped++;
		if (s->shead->spoke)
			s->stalled++;
		else
			s->silent++;
		conn_close(s, s->shead);
	}
	if (!s->shead)
		return -1;
	return (int)((s->shead->since + s->lim.silent_timeout - now) * 1000.0) + 1;
}

void
mcinit_store_server_step(struct mcinit_store_server *s, int timeout_ms)
{
	struct epoll_event evs[512]; /* a rendezvous wakes thousands at once */
	int n, i, due = expire_silent(s);

	if (s->accept_resume != 0.0) { /* the listener rests (accept_starved) */
		double left = s->accept_resume - mcinit_now();

		if (left <= 0) {
			struct epoll_event ev = {.events = EPOLLIN, .data.ptr = TAG_LISTEN};

			s->accept_resume = 0.0;
			epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev);
		} else if (due < 0 || (int)(left * 1000.0) + 1 < due) {
			due = (int)(left * 1000.0) + 1;
		}
	}
	if (due >= 0 && (timeout_ms < 0 || due < timeout_ms))
		timeout_ms = due;
	n = epoll_wait(s->epfd, evs, 512, timeout_ms);
	for (i = 0; i < n; i++) {
		struct conn *c = evs[i].data.ptr;

		if (evs[i].data.ptr == TAG_LISTEN) {
			accept_all(s);
			continue;
		}
		if (evs[i].data.ptr == TAG_STOP)
			continue;
		if (c->dead)
			continue;
		if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_readable(s, c);
		else if (evs[i].events & EPOLLOUT)
			conn_writable(s, c);
	}
	flush_pending(s);
	reap_dead(s);
}

/* ---- in-process sessions (store.h) ---- */

struct mcinit_store_session {
	struct mcinit_store_server *s;
	struct conn *c;
};

struct mcinit_store_session *
mcinit_store_session_new(struct mcinit_store_server *s)
{
	struct mcinit_store_session *ss = mcinit_xcalloc(1, sizeof *ss);
	struct conn *c = mcinit_xcalloc(1, sizeof *c);

	c->fd = -1;
	c->srv = s;
	c->spoke = true; /* never on the silent list: no clock runs here */
	c->since = mcinit_now();
	c->anext = s->all;
	if (s->all)
		s->all->aprev = c;
	s->all = c;
	s->nconns++;
	s->accepted++;
	ss->s = s;
	ss->c = c;
	return ss;
}

int
mcinit_store_session_feed(struct mcinit_store_session *ss, const void *p, size_t n,
                          struct mcinit_buf *out)
{
	struct mcinit_store_server *s = ss->s;
	struct conn *c = ss->c;
	const char *q = p;
	int rc = P_OK;
	unsigned long long refused = s->refused;

	/* as conn_readable does with what recv returns */
	while (!c->dead && n > 0 && rc == P_OK) {
		size_t room;

		rc = in_reserve(s, c);
		if (rc != P_OK)
			break;
		room = c->incap - c->inlen < n ? c->incap - c->inlen : n;
		memcpy(c->in + c->inlen, q, room);
		c->inlen += room;
		q += room;
		n -= room;
	}
	if (!c->dead && rc == P_OK && c->inlen > 0)
		rc = conn_process(s, c);
	if (!c->dead && rc != P_OK)
		drop_bad(s, c, refused);
	in_release_idle(s, c);
	flush_pending(s); /* sessions keep theirs: nothing is freed here */
	if (out && c->outlen > c->outoff)
		mcinit_buf_add(out, c->out + c->outoff, c->outlen - c->outoff);
	c->outoff = c->outlen = 0;
	return c->dead ? -1 : 0;
}

void
mcinit_store_session_free(struct mcinit_store_session *ss)
{
	if (!ss)
		return;
	if (!ss->c->dead)
		conn_close(ss->s, ss->c);
	free(ss->c->in);
	free(ss->c->out);
	free(ss->c->wkeys);
	free(ss->c);
	free(ss);
}

/* ---- server lifecycle ---- */

static int
listen_on(struct mcinit_store_server *s, const char *host, int port, struct mcinit_err *err)
{
	struct addrinfo hints = {0}, *res = NULL, *ai;
	char portstr[16];
	int rc, one = 1, lasterr = 0;

	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	hints.ai_family = (host && *host) ? AF_UNSPEC : AF_INET6;
	snprintf(portstr, sizeof portstr, "%d", port);
	rc = getaddrinfo(host && *host ? host : NULL, portstr, &hints, &res);
	if (rc != 0 && !(host && *host)) {
		hints.ai_family = AF_INET;
		rc = getaddrinfo(NULL, portstr, &hints, &res);
	}
	if (rc != 0)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "store: cannot resolve '%s': %s",
		                      host ? host : "", gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		int zero = 0;

		if (fd < 0) {
			lasterr = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (ai->ai_family == AF_INET6 && !(host && *host))
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, MCINIT_STORE_BACKLOG) == 0) {
			s->lfd = fd;
			break;
		}
		lasterr = errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (s->lfd < 0 && !(host && *host) && hints.ai_family == AF_INET6)
		return listen_on(s, "0.0.0.0", port, err);
	if (s->lfd < 0)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
		                      "store: cannot listen on %s:%d: %s",
		                      host && *host ? host : "*", port, strerror(lasterr));
	return 0;
}

static int
bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* As many connections as the soft open-file limit leaves room for, less a
 * margin: past it accept(2) would fail (accept_starved) rather than the
 * store turn the client away itself. */
static size_t
default_max_conns(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 65536;
	if (rl.rlim_cur <= 2 * MCINIT_STORE_FD_MARGIN)
		return rl.rlim_cur > 8 ? (size_t)rl.rlim_cur / 2 : 1;
	return (size_t)rl.rlim_cur - MCINIT_STORE_FD_MARGIN;
}

struct mcinit_store_server *
mcinit_store_server_local(const char *token, const struct mcinit_store_limits *limits)
{
	struct mcinit_store_server *s = mcinit_xcalloc(1, sizeof *s);

	s->lfd = s->epfd = s->stopfd = s->spare = -1;
	if (limits)
		s->lim = *limits;
	else
		mcinit_store_limits_default(&s->lim);
	s->tabsize = 1024;
	s->tab = mcinit_xcalloc(s->tabsize, sizeof *s->tab);
	s->token = token && *token ? mcinit_xstrdup(token) : NULL;
	return s;
}

struct mcinit_store_server *
mcinit_store_server_new(const char *host, int port, const char *token,
                        const struct mcinit_store_limits *limits, struct mcinit_err *err)
{
	struct mcinit_store_server *s = mcinit_store_server_local(token, limits);
	struct epoll_event ev = {.events = EPOLLIN};

	if (s->lim.max_conns == 0)
		s->lim.max_conns = default_max_conns();
	if (listen_on(s, host, port, err) != 0)
		goto fail;
	s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->port = bound_port(s->lfd);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->epfd < 0 || s->stopfd < 0) {
		mcinit_err_set(err, MCINIT_E_OS, "store: %s", strerror(errno));
		goto fail;
	}
	ev.data.ptr = TAG_LISTEN;
	epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev);
	ev.data.ptr = TAG_STOP;
	epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->stopfd, &ev);
	return s;
fail:
	mcinit_store_server_free(s);
	return NULL;
}

static void
entries_free(struct mcinit_store_server *s)
{
	size_t i;

	for (i = 0; i < s->tabsize; i++) {
		struct entry *e = s->tab[i], *nx;

		for (; e; e = nx) {
			struct qitem *q = e->qhead, *qn;

			nx = e->next;
			for (; q; q = qn) {
				qn = q->next;
				free(q);
			}
			free(e->waiters);
			free(e->val);
			free(e->key);
			free(e);
		}
	}
	free(s->tab);
}

void
mcinit_store_server_free(struct mcinit_store_server *s)
{
	if (!s)
		return;
	mcinit_store_server_stop(s);
	s->pending = NULL;
	while (s->all)
		conn_close(s, s->all);
	reap_dead(s);
	if (s->tab)
		entries_free(s);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->stopfd >= 0)
		close(s->stopfd);
	if (s->spare >= 0)
		close(s->spare);
	free(s->token);
	free(s);
}

int
mcinit_store_server_port(const struct mcinit_store_server *s)
{
	return s->port;
}

int
mcinit_store_server_fd(const struct mcinit_store_server *s)
{
	return s->epfd;
}

void
mcinit_store_server_set_token(struct mcinit_store_server *s, const char *token)
{
	free(s->token);
	s->token = token && *token ? mcinit_xstrdup(token) : NULL;
}

char *
mcinit_store_server_lookup(const struct mcinit_store_server *s, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	struct entry *e = entry_find(s, key, kl, fnv1a(key, kl));
	char *v;

	if (!e || !e->has_value)
		return NULL;
	v = mcinit_xmalloc(e->vlen + 1);
	memcpy(v, e->val, e->vlen);
	v[e->vlen] = '\0';
	if (len)
		*len = e->vlen;
	return v;
}

void
mcinit_store_server_stats(const struct mcinit_store_server *s, struct mcinit_store_stats *st)
{
	st->conns = s->nconns;
	st->keys = s->nvalues;
	st->memory = s->mem;
	st->accepted = s->accepted;
	st->dropped = s->dropped;
	st->requests = s->requests;
	st->refused = s->refused;
	st->malformed = s->malformed;
	st->truncated = s->truncated;
	st->silent = s->silent;
	st->stalled = s->stalled;
	st->turned_away = s->turned_away;
	snprintf(st->why, sizeof st->why, "%s", s->why);
	st->unknown = s->unknown;
	snprintf(st->unknown_why, sizeof st->unknown_why, "%s", s->unknown_why);
}

static void *
server_thread(void *arg)
{
	struct mcinit_store_server *s = arg;
	uint64_t v;

	for (;;) {
		mcinit_store_server_step(s, 1000);
		if (read(s->stopfd, &v, sizeof v) == (ssize_t)sizeof v)
			break;
	}
	return NULL;
}

int
mcinit_store_server_start(struct mcinit_store_server *s, struct mcinit_err *err)
{
	int rc = pthread_create(&s->thr, NULL, server_thread, s);

	if (rc != 0)
		return mcinit_err_set(err, MCINIT_E_OS, "store: cannot start its thread: %s",
		                      strerror(rc));
	s->thr_running = true;
	return 0;
}

void
mcinit_store_server_stop(struct mcinit_store_server *s)
{
	uint64_t one = 1;

	if (!s->thr_running)
		return;
	if (write(s->stopfd, &one, sizeof one) != (ssize_t)sizeof one)
		return;
	pthread_join(s->thr, NULL);
	s->thr_running = false;
}
