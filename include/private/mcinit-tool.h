/*
 * private/mcinit-tool.h — the one internal header the mcinit program
 * (src/) may include besides mcinit.h.  Not installed, not part of the
 * library's ABI: its symbols are hidden from libmcinit.so (the version
 * script exports only mcinit.h), and the program links the library's
 * objects statically.
 *
 * Why it exists: the program is a client of libmcinit as a user's program
 * is (issue 37), the way curl's tool is of libcurl.  Whatever the program
 * needs and mcinit.h does not offer is declared here and nowhere else,
 * under its own prefix, mcx_, so that `nm` of the program's objects tells
 * the public API (mcinit_) from this contract (mcx_) at a glance.  The
 * library's internals (the headers under lib/, also mcinit_) cannot be
 * reached at all: src/ is compiled without -I lib, so the compiler enforces
 * it, and tests/lib/client.sh checks the objects.
 *
 * Two kinds of things live here:
 *  1. the shared helper layer (curl's curlx_): checked allocation, the
 *     growable buffer, UTF-8 and terminal text, used by the library and the
 *     program alike and implemented once, in lib/core;
 *  2. the tool's entry points: what a command does beyond parsing its
 *     arguments and choosing its exit status (writing a topology, serving
 *     the store, supervising ranks, the documentation tables).
 *
 * Every declaration says who owns what, as mcinit.h does.
 */
#ifndef MCINIT_PRIVATE_TOOL_H
#define MCINIT_PRIVATE_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mcinit.h"

/* ==== 1. The shared helper layer (lib/core) ==== */

/* Allocation that never returns NULL: mcinit's data is tiny relative to
 * memory, and an out-of-memory path in every caller would be dead code.  On
 * exhaustion the handler of mcinit_set_alloc_failure (mcinit.h) is called;
 * it must not return (the policy is documented there). */
void *mcx_xmalloc(size_t n);
void *mcx_xcalloc(size_t n, size_t size);
void *mcx_xrealloc(void *p, size_t n);
char *mcx_xstrdup(const char *s);
char *mcx_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mcx_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Growable byte buffer.  Owns data; release with mcx_buf_free.  A zeroed
 * struct is an empty buffer. */
struct mcx_buf {
	char *data;
	size_t len, cap;
};
void mcx_buf_reserve(struct mcx_buf *b, size_t extra);
void mcx_buf_add(struct mcx_buf *b, const void *p, size_t n);
void mcx_buf_adds(struct mcx_buf *b, const char *s);
void mcx_buf_addc(struct mcx_buf *b, char c);
void mcx_buf_printf(struct mcx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcx_buf_add_long(struct mcx_buf *b, long v); /* fast decimal */
const char *mcx_buf_cstr(struct mcx_buf *b);      /* NUL-terminates */
void mcx_buf_free(struct mcx_buf *b);

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF) within avail bytes: 1 for ASCII, 2-4,
 * or 0 when the bytes there are not UTF-8. */
size_t mcx_utf8_len(const unsigned char *p, size_t avail);

/* A copy of s in which every byte that is not part of well-formed UTF-8 is
 * replaced by U+FFFD, so user text can always go into JSON.  Caller frees. */
char *mcx_utf8_sanitize(const char *s);

/* Writes s to out as text for a terminal: what came from an input must not
 * move the cursor, change colours or start a line of its own (a newline in
 * a key could forge "other.sh:1:1: error[...]").  Newline, tab, carriage
 * return and ESC are written \n, \t, \r and \e; the other C0 controls, DEL
 * and bytes that are not UTF-8 as \xHH; the C1 controls (U+0080-U+009F,
 * UTF-8 C2 80-C2 9F) as \u0080-\u009f.  Everything else, backslash
 * included, is written as it is.  Every text writer of diagnostics and
 * error messages goes through this; JSON escapes by itself. */
void mcx_fputs_text(const char *s, FILE *out);

/* True when colour is wanted on f: a terminal, and NO_COLOR unset. */
bool mcx_want_color(FILE *f);

/* ==== 2. The tool's entry points ==== */

/* ---- topology output (mcinit topology, mcinit validate's JSON) ---- */

/* ---- the store server and the launcher (mcinit store, mcinit run) ---- */

/* The store's default port (torch's), and the longest job token (bytes)
 * mcinit's ranks, launcher and store take: a longer one is refused at
 * start, never cut.  lib/store/store.h's MCINIT_STORE_PORT and
 * MCINIT_STORE_TOKEN_MAX are these. */
#define MCX_STORE_PORT      29500
#define MCX_STORE_TOKEN_MAX 4096

/* The job token of a token file: its first line, without the line's end.
 * A new string the caller frees ("" when the first line is empty); NULL
 * with err (MCINIT_E_NOINPUT; err->text is the whole reason, the file
 * named in it) when the file cannot be read.  Only regular files are read. */
char *mcx_store_token_file(const char *path, mcinit_error_t *err);

/* What `mcinit store` serves.  Everything is borrowed for the call. */
struct mcx_store_opts {
	const char *host;  /* listen on this address only; NULL or "": all */
	int port;          /* 0: any free port */
	const char *token; /* clients must present it; NULL or "": none */
	/* the bounds; 0 takes the store's default (the open-file limit less
	 * 64 connections, 1 GiB, 1,048,576 keys) */
	size_t max_conns, max_memory, max_keys;
	long world;  /* ranks that will connect (capacity check); 0: not said */
	bool quiet;  /* no listening line, refusals or totals */
	int stop_fd; /* served until it is readable (a signalfd); -1: forever */
};

/* Serves the store in this thread until o->stop_fd is readable: first the
 * capacity check for o->world, then the listening line, a warning when all
 * addresses are served without a token, the refusals (once a second at
 * most) and, at the end, the totals by kind of dropped connection, all on
 * log, each line prefixed "mcinit store: ".  Returns 0 when stopped, or -1
 * with err when the store cannot listen (err->text is the reason, without
 * the prefix).  Installs no signal handler and changes no signal mask: the
 * caller makes stop_fd. */
int mcx_store_serve(const struct mcx_store_opts *o, FILE *log, mcinit_error_t *err);

/* The launcher of `mcinit run --nproc-per-node N` (lib/run/supervisor.c).
 * Everything is borrowed for the call. */
struct mcx_launch_opts {
	long nproc, nnodes, node_rank;
	const char *master_addr; /* NULL: 127.0.0.1 */
	int master_port;         /* 0: 29500, or a free port when nnodes = 1 */
	double grace;            /* seconds between SIGTERM and SIGKILL */
	bool json;               /* rank 0's output is a JSON document: pass it unprefixed */
	bool quiet;              /* drop the workers' output except rank 0's */
	const char *self;        /* the program to start ("/proc/self/exe") */
	char *const *argv;       /* its arguments (the launcher's own argv) */
	/* the status a worker exits with when a peer did not arrive (the
	 * program's status of MCINIT_E_TIMEOUT): its peers then get a moment
	 * to leave on their own, and the laggards are named */
	int timeout_status;
	FILE *out; /* where the workers' standard output is relayed */
	FILE *err; /* where their standard error is relayed */
	FILE *log; /* the launcher's own messages */
};

/* Serves the store (on node 0), starts nproc workers (copies of o->self)
 * with the torchrun contract, relays their output with `[rank N]`
 * prefixes, forwards SIGINT, SIGTERM and SIGHUP, stops every worker when
 * one fails (SIGTERM, SIGKILL after the grace period, their process groups
 * included) and prints the root cause on o->log.  Returns the launcher's
 * process status: 0, the first failing worker's status (128 + signal when
 * killed, 128 + the signal forwarded when stopped by one), or -1 with err
 * for a failure of the launcher itself.
 *
 * A supervisor, in this process: it blocks SIGCHLD, SIGINT, SIGTERM and
 * SIGHUP (read through a signalfd; the mask stays so on return), forks a
 * watchdog and the workers, and reaps them.  Only those children _exit;
 * the caller's process is never ended. */
int mcx_launch(const struct mcx_launch_opts *o, mcinit_error_t *err);

/* The report of `mcinit run` (phases, versions, communicators) as a JSON
 * object, a new reference (json_decref); mcinit_init_report_json's text
 * is this object dumped. */
struct json_t *mcx_init_report(const struct mcinit_init *init);

/* ---- documentation, releases and completion tables (explain, man,
 *      complete, --version) ---- */

#endif
