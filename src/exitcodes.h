/*
 * exitcodes.h — every exit status mcinit returns, in one table.  The
 * documentation (`--help`, the README's list, the man page) is generated from
 * it, and tests/cli/exitcodes.sh checks that the sources return exactly these.
 * Values are sysexits(3)'s, so scripts can tell a bad input from a bad
 * invocation or a broken machine.
 *
 *   MCINIT_EXIT_TABLE(X) calls X(VALUE, NAME, MEANING) once per status.
 */
#ifndef MCINIT_EXITCODES_H
#define MCINIT_EXITCODES_H

#include <sysexits.h>

/* mcinit's own statuses, outside sysexits(3)'s range: the job was read but
 * Megatron would reject it; memory ran out (the machine's or a ulimit's,
 * not the job's fault, and not an operating-system call that failed). */
#define MCINIT_EX_INVALID 1
#define MCINIT_EX_NOMEM   3

/* The first row, then the rest: --help's list is "V meaning; V meaning." */
/* clang-format off */
#define MCINIT_EXIT_FIRST(X)                                                             \
	X(0, EX_OK, "success (warnings allowed)")
#define MCINIT_EXIT_REST(X)                                                              \
	X(1, MCINIT_EX_INVALID, "the job description is invalid")                        \
	X(3, MCINIT_EX_NOMEM, "out of memory (the machine's, or a limit such as ulimit -v)") \
	X(64, EX_USAGE, "bad usage of mcinit")                                            \
	X(65, EX_DATAERR, "an input could not be parsed")                                 \
	X(66, EX_NOINPUT, "an input file is missing or unreadable")                       \
	X(69, EX_UNAVAILABLE, "a required resource is absent (no CUDA device without --allow-no-cuda, no store, no CPU allowed to bind to)") \
	X(70, EX_SOFTWARE, "internal error")                                              \
	X(71, EX_OSERR, "an operating-system call failed (hwloc cannot read this machine)") \
	X(74, EX_IOERR, "the output could not be written")                                \
	X(75, EX_TEMPFAIL, "a peer did not arrive or a step timed out")
/* clang-format on */
#define MCINIT_EXIT_TABLE(X) MCINIT_EXIT_FIRST(X) MCINIT_EXIT_REST(X)

#define MCINIT_EXIT_DOC_FIRST(value, name, meaning) " " #value " " meaning
#define MCINIT_EXIT_DOC_ITEM(value, name, meaning)  "; " #value " " meaning
/* "Exit status: 0 success (warnings allowed); 1 ...; 75 ...." for every --help. */
#define MCINIT_EXIT_CODES_DOC                                                                      \
	"Exit status:" MCINIT_EXIT_FIRST(MCINIT_EXIT_DOC_FIRST)                                    \
	    MCINIT_EXIT_REST(MCINIT_EXIT_DOC_ITEM) "."

#endif
