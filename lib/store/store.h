/*
 * store.h — a key-value store that speaks PyTorch's TCPStore wire protocol
 * (run.md, "The store"): the server mcinit serves rendezvous with, and the
 * client mcinit's ranks use against it, against torchrun's agent store or
 * against any torch TCPStore server.
 *
 * Wire format: one command byte, then the arguments; a string or byte
 * vector is a little-endian uint64 length followed by the bytes, integers
 * are raw little-endian values.  Commands are enum mcinit_store_cmd.
 *
 * Server: one thread, one epoll set.  mcinit_store_server_fd() is that epoll
 * descriptor, which is itself pollable, so a caller with its own event loop
 * (the launcher) polls it beside its other descriptors and calls
 * mcinit_store_server_step(srv, 0) when it is readable.  Memory is bounded
 * (limits below): a request over a limit, an unknown command, a malformed
 * frame or a connection that never speaks costs that connection only.
 *
 * Client: blocking, every call has a deadline (absolute, CLOCK_MONOTONIC
 * seconds from mcinit_now()).  Keys get the client's prefix ("/" as torch's
 * own client puts in front of every key).
 *
 * Ownership: a server or client is owned by its creator and released with
 * its _free function; values returned by the client are malloc'd and owned
 * by the caller; keys and values passed in are borrowed.
 */
#ifndef MCINIT_STORE_H
#define MCINIT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

enum mcinit_store_cmd {
	MCINIT_STORE_VALIDATE = 0,
	MCINIT_STORE_SET = 1,
	MCINIT_STORE_COMPARE_SET = 2,
	MCINIT_STORE_GET = 3,
	MCINIT_STORE_ADD = 4,
	MCINIT_STORE_CHECK = 5,
	MCINIT_STORE_WAIT = 6,
	MCINIT_STORE_GETNUMKEYS = 7,
	MCINIT_STORE_DELETE_KEY = 8,
	MCINIT_STORE_APPEND = 9,
	MCINIT_STORE_MULTI_GET = 10,
	MCINIT_STORE_MULTI_SET = 11,
	MCINIT_STORE_CANCEL_WAIT = 12,
	MCINIT_STORE_PING = 13,
	MCINIT_STORE_QUEUE_PUSH = 14,
	MCINIT_STORE_QUEUE_POP = 15,
	MCINIT_STORE_QUEUE_LEN = 16,
	MCINIT_STORE_LIST_KEYS = 17, /* torch >= 2.10 */
	MCINIT_STORE_BARRIER = 18,   /* torch >= 2.15 */
};
/* Commands past the last are refused: the connection is dropped and the
 * stats name the code (a newer torch's, or garbage). */
#define MCINIT_STORE_LAST_CMD MCINIT_STORE_BARRIER

#define MCINIT_STORE_MAGIC    0x3C85F7CEu /* VALIDATE's argument (torch) */
#define MCINIT_STORE_AUTH_KEY "/mcinit/auth"
/* A SET of a key ending so (by an authenticated client) lifts the token:
 * the training program a rank hands over to knows none. */
#define MCINIT_STORE_OPEN_KEY  "/mcinit/open"
#define MCINIT_STORE_INIT_KEY  "init/" /* torch's wait-for-workers counter, unprefixed */
#define MCINIT_STORE_READY     0       /* CHECK reply */
#define MCINIT_STORE_NOT_READY 1
#define MCINIT_STORE_STOP_WAIT 0 /* WAIT reply */
#define MCINIT_STORE_CANCELED  1 /* CANCEL_WAIT reply */
/* The default port and the longest job token (bytes) mcinit's ranks,
 * launcher and store take (a longer one is refused at start, never cut):
 * one number each, the tool header's, which the program reads. */
#define MCINIT_STORE_PORT      MCX_STORE_PORT
#define MCINIT_STORE_TOKEN_MAX MCX_STORE_TOKEN_MAX
/* Descriptors kept out of max_conns's default: the store's own (listener,
 * epoll, the spare for accept at the limit), stdio, a launcher's pipes. */
#define MCINIT_STORE_FD_MARGIN 64

/* Seconds on CLOCK_MONOTONIC (deadlines everywhere in run mode). */
double mcinit_now(void);

/* ---- server ---- */

struct mcinit_store_limits {
	size_t max_key;        /* bytes of one key (torch's libuv server: 8 KiB) */
	size_t max_value;      /* bytes of one value (8 MiB) */
	uint64_t max_keys;     /* keys in one request (131,072) */
	size_t max_conns;      /* open connections; more are accepted and closed (0: the
	                          soft open-file limit when the server is made, less
	                          MCINIT_STORE_FD_MARGIN; half of a limit under twice it) */
	size_t max_memory;     /* all keys, values and buffers together */
	size_t max_entries;    /* keys held (waited-for keys included) */
	double silent_timeout; /* seconds a connection may stay without a first byte,
	                          or with half a request and no byte more */
};
/* The limits above, with connections from the open-file limit, 1 GiB,
 * 1,048,576 keys and 30 s.  A request that would take the store over
 * max_memory or max_entries is refused (its connection dropped: torch's
 * protocol has no error reply); the store goes on serving the others, and
 * its stats say why (mcinit store prints it).  Replies count against
 * max_memory too: a request whose reply would pass it is refused so, and a
 * connection whose unsent replies pass four of the largest requests is not
 * read from until its client takes them. */
void mcinit_store_limits_default(struct mcinit_store_limits *l);

struct mcinit_store_server;

/* Listens on host:port (host NULL or "" = all addresses; port 0 = any free
 * port).  token non-NULL: connections must authenticate (run.md).  limits
 * NULL = defaults.  NULL with err (MCINIT_E_UNAVAILABLE / MCINIT_E_OS) on failure. */
struct mcinit_store_server *mcinit_store_server_new(const char *host, int port, const char *token,
                                                    const struct mcinit_store_limits *limits,
                                                    struct mcinit_err *err);
void mcinit_store_server_free(struct mcinit_store_server *s);
/* The bound port (useful with port 0). */
int mcinit_store_server_port(const struct mcinit_store_server *s);
/* The epoll descriptor: readable when step has work. */
int mcinit_store_server_fd(const struct mcinit_store_server *s);
/* Serves for at most timeout_ms (-1: until an event, 0: what is ready). */
void mcinit_store_server_step(struct mcinit_store_server *s, int timeout_ms);
/* Replaces the token (NULL: no authentication from now on). */
void mcinit_store_server_set_token(struct mcinit_store_server *s, const char *token);
/* In-process look-up (the launcher reads its workers' phases): a copy of
 * the value of key (wire form, prefix included) or NULL; caller frees. */
char *mcinit_store_server_lookup(const struct mcinit_store_server *s, const char *key, size_t *len);

struct mcinit_store_stats {
	size_t conns, keys, memory;
	unsigned long long accepted, dropped, requests;
	unsigned long long refused; /* requests over max_memory / max_entries */
	/* the connections dropped, by why: a malformed request (garbage, an
	 * unknown command, a length over a limit), silent past the limit,
	 * stalled past it in the middle of a request, turned away at
	 * max_conns; and those their client closed in the middle of one */
	unsigned long long malformed, silent, stalled, turned_away, truncated;
	char why[160]; /* the last refusal's reason, "" if none */
	/* of the malformed: requests with a command code the protocol lacks,
	 * and the last such code with what it means */
	unsigned long long unknown;
	char unknown_why[160];
};
void mcinit_store_server_stats(const struct mcinit_store_server *s, struct mcinit_store_stats *st);

/* ---- capacity: what the machine lets a store hold ---- */

/* The backlog the server asks of listen(2); the kernel caps it at
 * net.core.somaxconn. */
#define MCINIT_STORE_BACKLOG 65535

/* Whether this process and machine can hold a store for `world` ranks: one
 * descriptor a rank (RLIMIT_NOFILE), and a listen backlog for the ranks that
 * connect at once (net.core.somaxconn).  The library prints nothing: the
 * caller prints mcinit_store_capacity_text's lines. */
struct mcinit_store_capacity {
	long world;
	unsigned long long need_fds;           /* world and the store's own */
	unsigned long long nofile, nofile_max; /* soft and hard limits (~0: unlimited) */
	long somaxconn;                        /* -1: unknown */
	bool short_fds, short_backlog;         /* what falls short */
};
/* Fills cap; somaxconn_path NULL reads /proc/sys/net/core/somaxconn.  1 when
 * something falls short, else 0. */
int mcinit_store_capacity(long world, const char *somaxconn_path,
                          struct mcinit_store_capacity *cap);
/* Raises the soft open-file limit as far as the world needs and the hard
 * limit allows (a process may), and judges again: 1 when something still
 * falls short. */
int mcinit_store_capacity_raise(struct mcinit_store_capacity *cap);
/* One line per shortfall, each starting with prefix, with the numbers and
 * what to set; nothing when all fits. */
void mcinit_store_capacity_text(const struct mcinit_store_capacity *cap, const char *prefix,
                                struct mcx_buf *b);
/* The three in turn, before a store for world ranks listens: 1 with the
 * lines in b when something still falls short, else 0.  (The same onto a
 * FILE is public: mcinit_store_capacity_check.) */
int mcinit_store_capacity_prepare(long world, const char *prefix, struct mcx_buf *b);

/* Serves in a thread of its own until mcinit_store_server_stop (rank 0
 * when nobody else serves the store).  0, or -1 with err. */
int mcinit_store_server_start(struct mcinit_store_server *s, struct mcinit_err *err);
void mcinit_store_server_stop(struct mcinit_store_server *s);

/* ---- in-process sessions (the fuzz harnesses; no socket) ---- */

/* A server that listens nowhere: it serves sessions only.  NULL limits =
 * defaults.  Free with mcinit_store_server_free, after its sessions. */
struct mcinit_store_server *mcinit_store_server_local(const char *token,
                                                      const struct mcinit_store_limits *limits);

/* The frame decoder alone: 1 when p[0..n) starts with a whole well-formed
 * request within the server's limits (its length in *len), 0 when more
 * bytes are needed, -1 when it is malformed (an unknown command, a length
 * over a limit): what would cost a connection its life. */
int mcinit_store_frame(const struct mcinit_store_server *s, const void *p, size_t n, size_t *len);

/* A connection of s driven from buffers.  Owned by the caller, freed with
 * mcinit_store_session_free before the server. */
struct mcinit_store_session;
struct mcinit_store_session *mcinit_store_session_new(struct mcinit_store_server *s);
/* Hands n bytes to the server as if they arrived on the connection, then
 * appends to out (if not NULL) every reply the session has been sent since
 * the last feed (a wake-up by another session's write included).  0, or
 * -1 once the server has dropped the connection (later feeds do nothing). */
int mcinit_store_session_feed(struct mcinit_store_session *ss, const void *p, size_t n,
                              struct mcx_buf *out);
void mcinit_store_session_free(struct mcinit_store_session *ss);

/* ---- client ---- */

struct mcinit_store_client;

/* Connects to host:port, retrying with backoff until deadline (the server
 * may not be up yet), then VALIDATE and PING as torch ≥ 2.5 does.  NULL with
 * err: MCINIT_E_TIMEOUT on timeout, MCINIT_E_UNAVAILABLE for an unknown host. */
struct mcinit_store_client *mcinit_store_client_new(const char *host, int port, double deadline,
                                                    struct mcinit_err *err);
void mcinit_store_client_free(struct mcinit_store_client *c);
/* Prefix put in front of every key (copied; default "/"). */
void mcinit_store_client_set_prefix(struct mcinit_store_client *c, const char *prefix);
/* The deadline applied to every later call. */
void mcinit_store_client_set_deadline(struct mcinit_store_client *c, double deadline);
/* True once the connection broke (the server closed it or went away):
 * tells a lost store from a timeout, whose error code is the same. */
bool mcinit_store_client_lost(const struct mcinit_store_client *c);

/* Every call: 0 (or a pointer), or -1 (NULL) with err: MCINIT_E_TIMEOUT when the
 * deadline passes, MCINIT_E_UNAVAILABLE when the peer breaks the protocol or closes. */
int mcinit_store_auth(struct mcinit_store_client *c, const char *token, struct mcinit_err *err);
int mcinit_store_set(struct mcinit_store_client *c, const char *key, const void *val, size_t len,
                     struct mcinit_err *err);
/* WAIT for the key, then GET it (as torch's get does). */
char *mcinit_store_get(struct mcinit_store_client *c, const char *key, size_t *len,
                       struct mcinit_err *err);
int mcinit_store_add(struct mcinit_store_client *c, const char *key, int64_t delta, int64_t *out,
                     struct mcinit_err *err);
/* Raw key (no prefix): torch's `init/` counter. */
int mcinit_store_add_raw(struct mcinit_store_client *c, const char *key, int64_t delta,
                         int64_t *out, struct mcinit_err *err);
/* 1 when all keys exist, 0 when not. */
int mcinit_store_check(struct mcinit_store_client *c, const char *const *keys, size_t n,
                       struct mcinit_err *err);
/* Waits until every key exists or the deadline passes (then CANCEL_WAIT,
 * as torch does, and MCINIT_E_TIMEOUT). */
int mcinit_store_wait(struct mcinit_store_client *c, const char *const *keys, size_t n,
                      struct mcinit_err *err);
char *mcinit_store_compare_set(struct mcinit_store_client *c, const char *key, const void *expect,
                               size_t elen, const void *desire, size_t dlen, size_t *len,
                               struct mcinit_err *err);
int mcinit_store_num_keys(struct mcinit_store_client *c, int64_t *out, struct mcinit_err *err);
int mcinit_store_delete(struct mcinit_store_client *c, const char *key, int64_t *out,
                        struct mcinit_err *err);
int mcinit_store_append(struct mcinit_store_client *c, const char *key, const void *val, size_t len,
                        struct mcinit_err *err);
/* n values (no WAIT first: a missing key gives an empty value); *vals and
 * each (*vals)[i] owned by the caller; free with mcinit_store_values_free. */
int mcinit_store_multi_get(struct mcinit_store_client *c, const char *const *keys, size_t n,
                           char ***vals, size_t **lens, struct mcinit_err *err);
void mcinit_store_values_free(char **vals, size_t *lens, size_t n);
int mcinit_store_multi_set(struct mcinit_store_client *c, const char *const *keys,
                           const char *const *vals, const size_t *lens, size_t n,
                           struct mcinit_err *err);
int mcinit_store_ping(struct mcinit_store_client *c, uint32_t nonce, struct mcinit_err *err);

#endif
