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

/* Implemented in lib/doc (the top layer: it reads every table below it).
 * Everything here writes only to the FILE * it is handed, or hands a
 * string of static storage (never freed) to a callback; nothing allocates
 * anything the caller must free. */

/* The number format of every JSON document mcinit writes: 15 significant
 * digits, so that what a user wrote (0.0003) prints as written (jansson has
 * no shortest round-trip mode).  A json_dump* flag (<jansson.h>'s
 * JSON_REAL_PRECISION); lib/core/util.h's MCINIT_JSON_REALS is this. */
#define MCX_JSON_REALS JSON_REAL_PRECISION(15)

/* `mcinit --version`: the package, the build configuration (CUDA, NCCL,
 * hwloc, jansson, libyaml: as compiled and, where a library can tell, as
 * running), the GPU backend and the libraries it would load, and the
 * releases whose facts are built in.  0, or -1 on a write error. */
int mcx_version_write(FILE *out);

/* The closed sets of names the options take (releases, entry points) and
 * the program offers (completion).  mcx_word gives the i-th word of a set,
 * in the set's own order, or NULL past its end; static storage. */
enum mcx_words {
	MCX_WORDS_MEGATRON_VERSION, /* --megatron-version: "core_r0.13" ... "main" */
	MCX_WORDS_ENTRY_POINT,      /* --entry-point: "pretrain_gpt" ... */
	MCX_WORDS_BRIDGE_VERSION,   /* --bridge-version: "0.6.2" ... "main" */
	MCX_WORDS_GROUP_KIND,       /* topology --group: the rank group kinds */
	MCX_WORDS_INPUT_SUFFIX,     /* what an INPUT's name ends with: ".json" ... */
	MCX_WORDS_CODE,             /* every documented diagnostic code, as explain lists them */
};
const char *mcx_word(enum mcx_words set, size_t i);
/* 0 when s names a word of set (MCX_WORDS_MEGATRON_VERSION,
 * MCX_WORDS_ENTRY_POINT or MCX_WORDS_BRIDGE_VERSION: the spellings their
 * options accept, e.g. "r0.19" for "core_r0.19"), else -1. */
int mcx_word_parse(enum mcx_words set, const char *s);
/* The same three sets as an error message lists them ("a, b, c"), written
 * into buf (len bytes, cut to fit); returns buf. */
const char *mcx_word_list(enum mcx_words set, char *buf, size_t len);
/* MCX_WORDS_MEGATRON_VERSION's and MCX_WORDS_ENTRY_POINT's words as an
 * option's --help and man page name them ("a, b or c"), and the word that
 * applies when the option is not given (also for MCX_WORDS_BRIDGE_VERSION);
 * static storage, NULL for the other sets. */
const char *mcx_word_names(enum mcx_words set);
const char *mcx_word_default(enum mcx_words set);

/* True when s is a version as PEP 440 orders them (--te-version 2.14.0). */
bool mcx_is_version(const char *s);

/* Completion (`mcinit complete`): each candidate goes to offer(candidate,
 * cur), which keeps those that start with cur.
 * mcx_complete_override: a section.field=VALUE word.  When cur is NAME=...
 * of a known field, the values its type has a name for (true/false, null,
 * its choices, the dtypes), and true; else the keys: "section." while cur
 * has no dot, then every "section.field=" and "alias=", and false.
 * mcx_complete_megatron_flag: the Megatron-LM flags of a release and entry
 * point (their names as --megatron-version and --entry-point take them;
 * NULL or unknown: the default).
 * mcx_complete_megatron_value: the choices of flag's value (flag is the word
 * before cur), none for a negated flag or one without choices. */
bool mcx_complete_override(const char *cur, void (*offer)(const char *cand, const char *cur));
void mcx_complete_megatron_flag(const char *version, const char *entry, const char *cur,
                                void (*offer)(const char *cand, const char *cur));
void mcx_complete_megatron_value(const char *version, const char *entry, const char *flag,
                                 const char *cur, void (*offer)(const char *cand, const char *cur));

/* `mcinit explain CODE`: code i's block (the i-th of MCX_WORDS_CODE): the
 * code, its severity, what it means, an example and the fix, then a blank
 * line.  0, or -1 on a write error. */
int mcx_code_explain(FILE *out, size_t i);
/* Every code as sections of a man page (roff: .SS per group, .TP per code),
 * as mcinit-config(5) and `mcinit explain --roff` write them.  0, or -1 on
 * a write error. */
int mcx_codes_roff(FILE *out);

/* The ledger of the ported configuration checks (`mcinit explain
 * --ledger`, --bridge-ledger: one line a row, the code that implements
 * it), or both coverages (--coverage: Megatron-LM's, a blank line,
 * Megatron-Bridge's).  0, or -1 on a write error. */
enum mcx_checks_report { MCX_LEDGER_MEGATRON, MCX_LEDGER_BRIDGE, MCX_COVERAGE };
int mcx_checks_write(FILE *out, enum mcx_checks_report what);

/* Man-page text (roff with the man macros), escaped in one place so that
 * what comes out renders with `groff -ww` silent: backslashes, hyphens (as
 * \-, so options copy and paste), lines that would start a request, and
 * non-ASCII characters (as \[uXXXX]).
 * mcx_roff_inline: s[0..n) escaped, no newline added; a NUL ends it early.
 * mcx_roff_text: running text: blank lines become one paragraph break
 * (.PP), every other line is escaped and ends with a newline; balanced
 * `backquoted` words turn bold.
 * mcx_roff_th: .TH NAME SECTION "" "PACKAGE" "mcinit manual", NAME
 * upper-cased.  mcx_roff_sh, mcx_roff_ss: .SH / .SS with an escaped
 * heading.  Nothing here allocates. */
void mcx_roff_inline(FILE *out, const char *s, size_t n);
void mcx_roff_text(FILE *out, const char *s);
void mcx_roff_th(FILE *out, const char *name, int section, const char *package);
void mcx_roff_sh(FILE *out, const char *heading);
void mcx_roff_ss(FILE *out, const char *heading);

/* mcinit-config(5) up to its SEE ALSO (which names the program's commands:
 * the caller writes it): .TH, NAME, SYNOPSIS, DESCRIPTION, every field of
 * the configuration (FIELDS) and every diagnostic code (DIAGNOSTICS).
 * 0, or -1 on a write error. */
int mcx_man_config(FILE *out);
/* mcinit-validate(1)'s DERIVED VALUES section: every value of validate's
 * "derived" object, with what it is. */
void mcx_man_derived(FILE *out);

#endif
