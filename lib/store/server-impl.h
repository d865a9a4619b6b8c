/*
 * server-impl.h — what the files of the store's server share (store.h is
 * what other modules see): the key table, the connections, the server, and
 * the functions one file calls in another, named mcinit_srv_* (a short name
 * could collide in the static link of the program and the unit tests);
 * everything else is static.
 *
 *   server.c       the key table, accepting, the epoll step, the server's
 *                  life (create, serve on a thread, stop, free)
 *   server-conn.c  a connection: its replies, the memory they and the
 *                  requests count against, the gate before authentication,
 *                  the request loop, its life, in-process sessions
 *   server-wait.c  WAIT and BARRIER's registrations, and the wake-ups
 *   server-cmds.c  the commands: one handler each, and their table
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
#ifndef MCINIT_STORE_SERVER_IMPL_H
#define MCINIT_STORE_SERVER_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/wire.h"

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

/* A command's handler: with go false, the dry pass (the frame is parsed and
 * measured, s->reply_need set; c may be NULL); with go true, it acts. */
typedef int (*handler_fn)(struct mcinit_store_server *, struct conn *, struct rd *, bool);

/* ---- the key table (server.c) ---- */

uint64_t mcinit_srv_fnv1a(const char *p, size_t n);
/* k's entry, h its hash; NULL when there is none. */
struct entry *mcinit_srv_entry_find(const struct mcinit_store_server *s, const char *k, size_t kl,
                                    uint64_t h);
/* k's entry, created when there is none. */
struct entry *mcinit_srv_entry_get(struct mcinit_store_server *s, const char *k, size_t kl);
/* Frees e when nothing refers to it any more. */
void mcinit_srv_entry_gc(struct mcinit_store_server *s, struct entry *e);
void mcinit_srv_entry_set_value(struct mcinit_store_server *s, struct entry *e, const char *v,
                                size_t vl);
void mcinit_srv_entry_clear_value(struct mcinit_store_server *s, struct entry *e);

/* ---- connections (server-conn.c) ---- */

/* Replies onto c's output, counted in the store's memory. */
void mcinit_srv_out_add(struct conn *c, const void *p, size_t n);
void mcinit_srv_out_u8(struct conn *c, uint8_t v);
void mcinit_srv_out_i64(struct conn *c, int64_t v);
/* A length-prefixed byte vector. */
void mcinit_srv_out_vec(struct conn *c, const char *p, size_t n);
/* Writes what it can; false when the connection broke. */
bool mcinit_srv_conn_flush(struct mcinit_store_server *s, struct conn *c);
/* Room for `more` bytes within max_memory. */
bool mcinit_srv_mem_ok(const struct mcinit_store_server *s, size_t more);
/* Room for a request that may add `bytes` and `keys` new keys; false (the
 * reason kept in s->why) beyond the bounds. */
bool mcinit_srv_room(struct mcinit_store_server *s, size_t bytes, uint64_t keys);
/* Starts c's clock on the silent list. */
void mcinit_srv_silent_append(struct mcinit_store_server *s, struct conn *c);
void mcinit_srv_conn_close(struct mcinit_store_server *s, struct conn *c);
/* What the epoll step calls for a connection's events. */
void mcinit_srv_conn_readable(struct mcinit_store_server *s, struct conn *c);
void mcinit_srv_conn_writable(struct mcinit_store_server *s, struct conn *c);

/* ---- waiting (server-wait.c) ---- */

/* Registers c's wait on e. */
void mcinit_srv_wait_register(struct conn *c, struct entry *e);
/* Forgets every registration of c (cancel, close, a new WAIT). */
void mcinit_srv_wait_clear(struct mcinit_store_server *s, struct conn *c);
/* The key of e was written: wakes its waiters (one: a queue push's). */
void mcinit_srv_wake(struct mcinit_store_server *s, struct entry *e, bool one);
/* Flushes every connection a wake-up wrote to. */
void mcinit_srv_flush_pending(struct mcinit_store_server *s);

/* ---- the commands (server-cmds.c) ---- */

/* cmd's handler; NULL for a command the protocol lacks. */
handler_fn mcinit_srv_handler_of(unsigned cmd);

#endif
