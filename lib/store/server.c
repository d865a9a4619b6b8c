/*
 * server.c — the TCPStore-compatible server (see store.h; server-impl.h
 * says how its files share the work): the key table, accepting
 * connections, the epoll step, and the server's life.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/server-impl.h"

/* ---- server data ---- */

uint64_t
mcinit_srv_fnv1a(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ull;
	}
	return h;
}

struct entry *
mcinit_srv_entry_find(const struct mcinit_store_server *s, const char *k, size_t kl, uint64_t h)
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
	struct entry **t = mcx_xcalloc(n, sizeof *t);

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

struct entry *
mcinit_srv_entry_get(struct mcinit_store_server *s, const char *k, size_t kl)
{
	uint64_t h = mcinit_srv_fnv1a(k, kl);
	struct entry *e = mcinit_srv_entry_find(s, k, kl, h);

	if (e)
		return e;
	if (s->nentries >= s->tabsize)
		tab_grow(s);
	e = mcx_xcalloc(1, sizeof *e);
	e->hash = h;
	e->key = mcx_xmalloc(kl + 1);
	memcpy(e->key, k, kl);
	e->key[kl] = '\0';
	e->klen = kl;
	e->next = s->tab[h & (s->tabsize - 1)];
	s->tab[h & (s->tabsize - 1)] = e;
	s->nentries++;
	s->mem += kl + sizeof *e;
	return e;
}

/* Frees e when nothing refers to it any more. */
void
mcinit_srv_entry_gc(struct mcinit_store_server *s, struct entry *e)
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

void
mcinit_srv_entry_set_value(struct mcinit_store_server *s, struct entry *e, const char *v, size_t vl)
{
	if (e->has_value) {
		s->mem -= e->vlen;
		free(e->val);
	} else {
		s->nvalues++;
		s->vkeybytes += e->klen;
	}
	e->val = mcx_xmalloc(vl ? vl : 1);
	memcpy(e->val, v, vl);
	e->vlen = vl;
	e->has_value = true;
	s->mem += vl;
}

void
mcinit_srv_entry_clear_value(struct mcinit_store_server *s, struct entry *e)
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

/* ---- accepting, and the epoll step (which frees the closed) ---- */

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
		if (s->nconns >= s->lim.max_conns || !mcinit_srv_mem_ok(s, sizeof *c)) {
			s->dropped++;
			s->turned_away++;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		c = mcx_xcalloc(1, sizeof *c);
		c->fd = fd;
		c->srv = s;
		c->events = EPOLLIN | EPOLLRDHUP;
		mcinit_srv_silent_append(s, c);
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
		mcinit_srv_conn_close(s, s->shead);
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
			mcinit_srv_conn_readable(s, c);
		else if (evs[i].events & EPOLLOUT)
			mcinit_srv_conn_writable(s, c);
	}
	mcinit_srv_flush_pending(s);
	reap_dead(s);
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
	struct mcinit_store_server *s = mcx_xcalloc(1, sizeof *s);

	s->lfd = s->epfd = s->stopfd = s->spare = -1;
	if (limits)
		s->lim = *limits;
	else
		mcinit_store_limits_default(&s->lim);
	s->tabsize = 1024;
	s->tab = mcx_xcalloc(s->tabsize, sizeof *s->tab);
	s->token = token && *token ? mcx_xstrdup(token) : NULL;
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
		mcinit_srv_conn_close(s, s->all);
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
	s->token = token && *token ? mcx_xstrdup(token) : NULL;
}

char *
mcinit_store_server_lookup(const struct mcinit_store_server *s, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	struct entry *e = mcinit_srv_entry_find(s, key, kl, mcinit_srv_fnv1a(key, kl));
	char *v;

	if (!e || !e->has_value)
		return NULL;
	v = mcx_xmalloc(e->vlen + 1);
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
