/*
 * faults.c — fault injection for tests: MCINIT_FAULT=RANK:PHASE:KIND parsed
 * (mcinit_fault_parse, init.h) and fired as the rank begins the phase
 * (mcinit_fault_point, from the bookkeeping in phase.c).  Test machinery
 * kept out of the phases themselves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/init-impl.h"

static const char *const phase_names[MCINIT_PH_COUNT] = MCINIT_PHASE_NAMES;

const char *const mcinit_fault_kinds[MCINIT_FAULT_NKINDS] = {
    "",
#define MCINIT_FAULT_KIND(name, spelling, what) spelling,
#include "run/faults.def"
#undef MCINIT_FAULT_KIND
};

/* "MCINIT_FAULT='SPEC': 'WORD' is not WHAT (one, two, ...)"; returns -1. */
static int
not_one_of(struct mcinit_err *err, const char *spec, size_t n, const char *word, const char *what,
           const char *const *names, int count)
{
	struct mcx_buf b = {0};
	int i, rc;

	for (i = 0; i < count; i++)
		mcx_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	rc = mcinit_err_set(err, MCINIT_E_USAGE, "MCINIT_FAULT='%s': '%.*s' is not %s (%s)", spec,
	                    (int)n, word, what, mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return rc;
}

int
mcinit_fault_parse(const char *spec, struct mcinit_fault *f, struct mcinit_err *err)
{
	const char *ph = strchr(spec, ':'), *kind = ph ? strchr(ph + 1, ':') : NULL;
	char *end;
	int p;
	size_t k;

	memset(f, 0, sizeof *f);
	errno = 0;
	f->rank = strtol(spec, &end, 10);
	if (!kind || end != ph || end == spec || errno != 0 || f->rank < 0)
		return mcinit_err_set(
		    err, MCINIT_E_USAGE,
		    "MCINIT_FAULT='%s': expected RANK:PHASE:KIND, e.g. 1:groups:crash", spec);
	for (p = 0; p < MCINIT_PH_COUNT; p++)
		if (strlen(phase_names[p]) == (size_t)(kind - ph - 1) &&
		    strncmp(ph + 1, phase_names[p], (size_t)(kind - ph - 1)) == 0)
			break;
	if (p == MCINIT_PH_COUNT)
		return not_one_of(err, spec, kind - ph - 1, ph + 1, "a phase", phase_names,
		                  MCINIT_PH_COUNT);
	f->phase = p;
	for (k = 1; k < MCINIT_FAULT_NKINDS; k++)
		if (strcmp(kind + 1, mcinit_fault_kinds[k]) == 0)
			break;
	if (k == MCINIT_FAULT_NKINDS)
		return not_one_of(err, spec, strlen(kind + 1), kind + 1, "a fault",
		                  mcinit_fault_kinds + 1, MCINIT_FAULT_NKINDS - 1);
	f->kind = (enum mcinit_fault_kind)k;
	return 0;
}

static void
sleep_for(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Rank and phase of MCINIT_FAULT reached: fail as its kind says.  Signals
 * keep their default actions, so the launcher's SIGTERM still ends a hung
 * or stalled rank. */
void
mcinit_fault_point(struct mcinit_init *I, enum mcinit_phase p)
{
	const struct mcinit_fault *f = &I->fault;
	double t;

	if (f->kind == MCINIT_FAULT_NONE || I->fault_fired || I->deferring || I->o->check_only ||
	    f->phase != (int)p || f->rank != I->env.rank)
		return;
	I->fault_fired = true; /* rendezvous begins twice */
	switch (f->kind) {
	case MCINIT_FAULT_CRASH:
	case MCINIT_FAULT_EXIT:
		I->o->on_fault(I->o->on_fault_arg, f->kind); /* checked at config */
		break;
	case MCINIT_FAULT_HANG:
		for (;;)
			pause();
	case MCINIT_FAULT_STALL:
		t = I->timeout > 0 ? I->timeout : I->o->timeout > 0 ? I->o->timeout : 600;
		sleep_for(2 * t + 1);
		break;
	case MCINIT_FAULT_NONE:
	case MCINIT_FAULT_NKINDS:
		break;
	}
}
