/* double.h — what the test double's libnccl asks of its libcudart: both
 * are tests/double/'s (test-only; never installed, never in a bundle).
 *
 * The double's device memory is host memory; each stream is a thread that
 * runs its operations in order, later than they are issued.  An operation
 * is "announced" when the program asks for it (the time a GPU would have
 * it, in effect, for the memory it writes) and "queued" when it reaches the
 * stream (NCCL's non-blocking communicators queue from a worker thread,
 * later).  The host "observes" an operation once a synchronising call saw
 * it finish: reading device memory that an unobserved operation on a
 * stream the read does not synchronise with writes is a race, which the
 * double reports with both call sites and fails the process for. */
#ifndef MCDOUBLE_H
#define MCDOUBLE_H

#include <stddef.h>

struct mcd_op;
/* The operation's work, run on the stream's thread: 0, or nonzero when it
 * failed (the stream keeps going). */
typedef int (*mcd_fn)(void *arg);

/* Announces an operation on stream s (NULL: the legacy stream) that writes
 * [dst, dst+len) (dst NULL: writes nothing), named api, issued from
 * callsite.  It does nothing until mcd_queue. */
struct mcd_op *mcd_announce(void *s, mcd_fn fn, void *arg, void *dst, size_t len, const char *api,
                            void *callsite);
/* Puts an announced operation on its stream; its place there (for
 * mcd_done).  The operation may be gone once it has run. */
unsigned long mcd_queue(struct mcd_op *op);
/* Whether stream s (NULL: the legacy stream) has run everything up to
 * place seq. */
int mcd_done(void *s, unsigned long seq);
/* Reports a misuse of the API (with the caller's site) and fails the
 * process: what the real library would do something undefined for. */
void mcd_misuse(void *callsite, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The "device" of the calling thread (cudaSetDevice), its PCI bus id. */
int mcd_device(void);
/* Seconds, monotonic. */
double mcd_now(void);

#endif
