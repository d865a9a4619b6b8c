/*
 * phase.c — the phase engine's bookkeeping: each phase's start, end,
 * status and detail, the progress line, and the names.  Under init.c (the
 * phases) and init-gpu.c (the CUDA/NCCL phases), which both record through
 * it, so that neither calls into the other for it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "core/diag.h"
#include "run/init-impl.h"
#include "store/store.h"

const char *const mcinit_phase_names[MCINIT_PH_COUNT] = MCINIT_PHASE_NAMES;

const char *
mcinit_phase_name(enum mcinit_phase p)
{
	return p < MCINIT_PH_COUNT ? mcinit_phase_names[p] : "?";
}

const char *
mcinit_phase_status_name(enum mcinit_phase_status s)
{
	static const char *const n[] = {"pending", "ok", "failed", "deferred", "skipped"};

	return (unsigned)s < sizeof n / sizeof *n ? n[s] : "?";
}

/* ---- phase bookkeeping ---- */

static double
wall(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void
progress(struct mcinit_init *I, enum mcinit_phase p)
{
	const struct mcinit_phase_rec *r = &I->ph[p];

	if (!I->o->progress || I->env.rank != 0)
		return;
	fprintf(I->o->progress, "mcinit run: %-10s %-8s %8.3f s  ", mcinit_phase_names[p],
	        mcinit_phase_status_name(r->status), r->seconds);
	/* a detail can quote the environment or an input: escaped, as diagnostics are */
	mcx_fputs_text(r->detail, I->o->progress);
	fputc('\n', I->o->progress);
	fflush(I->o->progress);
}

void
mcinit_ph_begin(struct mcinit_init *I, enum mcinit_phase p)
{
	if (I->o->on_phase && !I->o->check_only && !I->deferring)
		I->o->on_phase(I->o->on_phase_arg, mcinit_phase_names[p]);
	mcinit_fault_point(I, p);
	I->ph[p].start = wall();
	I->t0[p] = mcinit_now();
	if (I->cl) {
		/* the launcher reads it to name the phase of a worker that dies */
		char key[64];
		struct mcinit_err e;

		snprintf(key, sizeof key, "mcinit/phase/%ld", I->env.rank);
		mcinit_store_set(I->cl, key, mcinit_phase_names[p], strlen(mcinit_phase_names[p]),
		                 &e);
	}
}

void
mcinit_ph_vend(struct mcinit_init *I, enum mcinit_phase p, enum mcinit_phase_status s,
               const char *fmt, va_list ap)
{
	struct mcinit_phase_rec *r = &I->ph[p];

	if (r->start == 0) {
		r->start = wall();
		I->t0[p] = mcinit_now();
	}
	r->end = wall();
	r->seconds = mcinit_now() - I->t0[p];
	r->status = s;
	vsnprintf(r->detail, sizeof r->detail, fmt, ap);
	progress(I, p);
}

void
mcinit_ph_end(struct mcinit_init *I, enum mcinit_phase p, enum mcinit_phase_status s,
              const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcinit_ph_vend(I, p, s, fmt, ap);
	va_end(ap);
}

int
mcinit_ph_fail(struct mcinit_init *I, enum mcinit_phase p, struct mcinit_err *err, int code,
               const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcinit_ph_vend(I, p, MCINIT_PS_FAILED, fmt, ap);
	va_end(ap);
	I->failed = p;
	return mcinit_err_set(err, code, "%s", I->ph[p].detail);
}

/* ---- rounds ---- */

/* Ranks whose key of round `name` is missing, as "1, 3 and 7" into b;
 * returns how many. */
long
mcinit_ph_missing(struct mcinit_init *I, const char *name, struct mcx_buf *b)
{
	long r, n = 0, shown = 0;
	struct mcinit_err e;
	int rc;

	mcinit_store_client_set_deadline(I->cl, mcinit_now() + 5);
	for (r = 0; r < I->env.world; r++) {
		char key[96];
		const char *k = key;

		snprintf(key, sizeof key, "mcinit/%s/%ld", name, r);
		rc = mcinit_store_check(I->cl, &k, 1, &e);
		if (rc < 0)
			return -1; /* the store itself is gone */
		if (rc == 0) {
			if (shown++ < 64)
				mcx_buf_printf(b, "%s%ld", n ? ", " : "", r);
			n++;
		}
	}
	if (shown > 64)
		mcx_buf_printf(b, " and %ld more", shown - 64);
	return n;
}

void
mcinit_ph_note(struct mcinit_init *I, const char *text)
{
	if (!I->o->progress || I->env.rank != 0)
		return;
	fprintf(I->o->progress, "mcinit run: %s\n", text);
	fflush(I->o->progress);
}
