/*
 * server-wait.c — WAIT's and BARRIER's registrations on the keys they wait
 * for, and the wake-ups a write of such a key sends (server-impl.h says
 * how the bookkeeping keeps a rendezvous linear).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "store/server-impl.h"

/* ---- waiting ---- */

void
mcinit_srv_wait_register(struct conn *c, struct entry *e)
{
	if (e->nwait == e->capwait) {
		e->capwait = e->capwait ? 2 * e->capwait : 4;
		e->waiters = mcx_xrealloc(e->waiters, e->capwait * sizeof *e->waiters);
	}
	if (c->nwkeys == c->capwkeys) {
		c->capwkeys = c->capwkeys ? 2 * c->capwkeys : 4;
		c->wkeys = mcx_xrealloc(c->wkeys, c->capwkeys * sizeof *c->wkeys);
	}
	e->waiters[e->nwait] = (struct wslot){c, c->nwkeys};
	c->wkeys[c->nwkeys++] = (struct wreg){e, e->nwait++};
	c->awaited++;
}

/* Squeezes the slots that were left out of e's list, telling each
 * connection its registration's new slot. */
static void
slots_compact(struct entry *e)
{
	size_t i, k = 0;

	for (i = 0; i < e->nwait; i++) {
		struct wslot w = e->waiters[i];

		if (!w.c)
			continue;
		w.c->wkeys[w.reg].slot = k;
		e->waiters[k++] = w;
	}
	e->nwait = k;
	e->ndead = 0;
}

/* Leaves slot i of e; true when nobody waits on e any more.  The list is
 * squeezed once half of it has left, so leaving costs O(1) amortized. */
static bool
slot_leave(struct entry *e, size_t i)
{
	e->waiters[i].c = NULL;
	if (++e->ndead == e->nwait) {
		e->nwait = e->ndead = 0;
		return true;
	}
	if (e->ndead > 16 && 2 * e->ndead > e->nwait)
		slots_compact(e);
	return false;
}

/* Forgets every registration of c (cancel, close, a new WAIT).  An entry
 * nobody waits on any more may go; each does so once, after the loop (the
 * same key may be registered twice), its pointer kept in the part of
 * c->wkeys already walked. */
void
mcinit_srv_wait_clear(struct mcinit_store_server *s, struct conn *c)
{
	size_t i, ngc = 0;

	for (i = 0; i < c->nwkeys; i++) {
		struct wreg r = c->wkeys[i];

		if (r.e && slot_leave(r.e, r.slot))
			c->wkeys[ngc++].e = r.e;
	}
	for (i = 0; i < ngc; i++)
		mcinit_srv_entry_gc(s, c->wkeys[i].e);
	c->nwkeys = 0;
	c->awaited = 0;
}

static void
mark_pending(struct mcinit_store_server *s, struct conn *c)
{
	if (c->pending)
		return;
	c->pending = true;
	c->pnext = s->pending;
	s->pending = c;
}

/* Flushes every connection a wake-up wrote to (not inside the wake-up
 * itself: a failing write closes a connection, which edits wait lists). */
void
mcinit_srv_flush_pending(struct mcinit_store_server *s)
{
	while (s->pending) {
		struct conn *c = s->pending;

		s->pending = c->pnext;
		c->pending = false;
		if (!c->dead && !mcinit_srv_conn_flush(s, c))
			mcinit_srv_conn_close(s, c);
	}
}

static void
wait_done(struct mcinit_store_server *s, struct conn *c)
{
	c->awaited = 0;
	c->nwkeys = 0; /* every registration was consumed by the wake-ups */
	mcinit_srv_out_u8(c, MCINIT_STORE_STOP_WAIT);
	mark_pending(s, c);
}

/* The key of e was written: wake its waiters (all of them, or for a queue
 * push the first whose wait it completes, as torch does). */
void
mcinit_srv_wake(struct mcinit_store_server *s, struct entry *e, bool one)
{
	size_t i;

	for (i = 0; i < e->nwait; i++) {
		struct wslot w = e->waiters[i];

		if (!w.c || (one && w.c->awaited != 1))
			continue;
		w.c->wkeys[w.reg].e = NULL;
		if (one) {
			slot_leave(e, i);
			wait_done(s, w.c);
			return;
		}
		if (w.c->awaited > 0 && --w.c->awaited == 0)
			wait_done(s, w.c);
	}
	if (!one)
		e->nwait = e->ndead = 0;
}
