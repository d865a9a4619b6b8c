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

/* jansson's object type (<jansson.h>): the JSON entries below return new
 * references the caller releases with json_decref. */
struct json_t;

/* The findings of d as a JSON array (validate --format=json's
 * "diagnostics"), in d's order. */
struct json_t *mcx_diags_to_json(const struct mcinit_diags *d);

/* The job's derived values as a JSON object ({name: value}, null where a
 * value could not be derived), whatever the job: what `mcinit topology
 * --format=json` prints beside the diagnostics of a job it cannot lay out. */
struct json_t *mcx_job_derived_to_json(const struct mcinit_job *job);

/* True for a lint request: the inputs were only .py files (linted), so no
 * job was checked and there are no derived values or config to show. */
bool mcx_job_lint_only(const struct mcinit_job *job);

/* validate's result object for one job: {"valid": valid, "diagnostics":
 * d's findings, "derived": the derived values (null for a lint request)}
 * and, when config is true and the job is not a lint request, "config":
 * the resolved config (defaults, repairs and derived values applied, as
 * mcinit_job_config_json). */
struct json_t *mcx_job_result_json(const struct mcinit_job *job, const struct mcinit_diags *d,
                                   bool valid, bool config);

/* Keeps a launch script's interpretation for the process while hold is
 * true (a script that launches several times is interpreted once, and each
 * launch checked as a job of its own is made from that); false forgets it.
 * Either call drops what was kept. */
void mcx_script_memo(bool hold);

/* How `mcinit topology` writes a job: a plain description the caller owns
 * (the library keeps no pointer to it past a call). */
enum mcx_topology_format { MCX_TOPOLOGY_TEXT, MCX_TOPOLOGY_JSON, MCX_TOPOLOGY_SVG };
struct mcx_topology_opts {
	enum mcx_topology_format format;
	long rank; /* one rank's coordinates, groups, seeds and affinity; -1: every rank */
	int kind;  /* only this group kind (mcinit_group_lookup); -1: every kind */
	bool all;  /* the per-rank tables even above 64 ranks */
};

/* Starts reading the node's hardware (GPUs, NUMA nodes, NICs: the job
 * description's hwloc_xml, else $HWLOC_XMLFILE of its environment, else
 * this machine) for a valid job (mcinit_job_valid).  A file is read here,
 * so that a bad one fails before any output: -1 + err.  This machine is read
 * in a thread for JSON, beside the output.  0 otherwise. */
int mcx_topology_start(struct mcinit_job *job, const struct mcx_topology_opts *o,
                       mcinit_error_t *err);

/* Waits for the node: its warnings (MC050-MC054) join the job's
 * diagnostics, which are then sorted.  The text and SVG writers show no
 * diagnostics: call this first and print them before the output. */
void mcx_topology_node(struct mcinit_job *job);

/* Writes the topology of a started job to out: text, JSON (with the
 * diagnostics inside) or an SVG picture.  msg gets the SVG writer's
 * message when there is nothing to draw.  0; -1 when out could not be
 * written; 1 when there is nothing to draw (said on msg).  out is flushed;
 * neither stream is closed. */
int mcx_topology_write(struct mcinit_job *job, const struct mcx_topology_opts *o, FILE *out,
                       FILE *msg);

/* ---- the store server and the launcher (mcinit store, mcinit run) ---- */

/* ---- documentation, releases and completion tables (explain, man,
 *      complete, --version) ---- */

#endif
