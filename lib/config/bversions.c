/* bversions.c — the Megatron-Bridge releases mcinit knows, and which
 * fields each release has.  See config.h. */
#include "config/config.h"

#include <pthread.h>
#include <stdio.h>

#include "core/versions.h"

static const char *const bridge_releases[] = {
#define MCINIT_BRIDGE_RELEASE(name) name,
#include "config/fields.inc"
#undef MCINIT_BRIDGE_RELEASE
};
#define NBRIDGE (sizeof bridge_releases / sizeof bridge_releases[0])

/* The Megatron-Core release each Bridge release pins, in the same order. */
static const char *const bridge_cores[] = {
#define MCINIT_BRIDGE_CORE(name) name,
#include "config/fields.inc"
#undef MCINIT_BRIDGE_CORE
};
_Static_assert(sizeof bridge_cores == sizeof bridge_releases, "a core release per Bridge release");

/* The Bridge fields that some release lacks, with the releases they are in. */
static const struct {
	enum mcinit_field f;
	unsigned mask;
} bridge_only[] = {
#define MCINIT_FIELD_BRIDGE(id, mask) {MCINIT_F_##id, mask},
#include "config/fields.inc"
#undef MCINIT_FIELD_BRIDGE
};

int
mcinit_bversion_parse(const char *s, unsigned *out)
{
	size_t i;

	s = mcinit_version_skip_v(s, NULL);
	for (i = 0; i < NBRIDGE; i++) {
		/* "0.6" is the newest 0.6.x known: 0.6.2 reads as it */
		if (mcinit_version_under(s, bridge_releases[i])) {
			*out = 1u << i;
			return 0;
		}
	}
	return -1;
}

unsigned
mcinit_bversion_default(void)
{
	return NBRIDGE > 1 ? 1u << (NBRIDGE - 2) : 1u;
}

const char *
mcinit_bversion_name(unsigned v)
{
	size_t i;

	for (i = 0; i < NBRIDGE; i++)
		if (v == 1u << i)
			return bridge_releases[i];
	return "?";
}

const char *
mcinit_bversion_core(unsigned v)
{
	size_t i;

	for (i = 0; i < NBRIDGE; i++)
		if (v == 1u << i)
			return bridge_cores[i];
	return NULL;
}

int
mcinit_bversion_of_core(unsigned mv, unsigned *out)
{
	size_t i;
	unsigned m;

	for (i = NBRIDGE; i-- > 0;) /* the newest Bridge release on that core */
		if (mcinit_mversion_parse(bridge_cores[i], &m) == 0 && m == mv) {
			*out = 1u << i;
			return 0;
		}
	return -1;
}

const char *
mcinit_bversion_list(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < NBRIDGE && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
		                        bridge_releases[i]);
	return buf;
}

/* Each field's Bridge releases (-1: every release has it), set once per
 * process: asked of every field each time a config is written out, and of
 * every field a Bridge check reads. */
static long long bridge_masks[MCINIT_F_COUNT];
static pthread_once_t bridge_masks_once = PTHREAD_ONCE_INIT;

static void
fill_bridge_masks(void)
{
	size_t i;

	for (i = 0; i < MCINIT_F_COUNT; i++)
		bridge_masks[i] = -1;
	/* the first row of a field is the one that counts */
	for (i = sizeof bridge_only / sizeof bridge_only[0]; i-- > 0;)
		bridge_masks[bridge_only[i].f] = bridge_only[i].mask;
}

bool
mcinit_field_in_bridge(enum mcinit_field f, unsigned v)
{
	pthread_once(&bridge_masks_once, fill_bridge_masks);
	return bridge_masks[f] < 0 || (bridge_masks[f] & v) != 0;
}

/* The fields Bridge computes itself (init=False in the facts). */
static const enum mcinit_field bridge_init_false[] = {
#define MCINIT_FIELD_BRIDGE_INIT_FALSE(id) MCINIT_F_##id,
#include "config/fields.inc"
#undef MCINIT_FIELD_BRIDGE_INIT_FALSE
};

bool
mcinit_field_bridge_init_false(enum mcinit_field f)
{
	for (size_t i = 0; i < sizeof bridge_init_false / sizeof bridge_init_false[0]; i++)
		if (bridge_init_false[i] == f)
			return true;
	return false;
}

/* The fields that are, in some releases, a property of another field: the
 * release's dataclass reads and writes the target through them. */
static const struct {
	unsigned mask;
	enum mcinit_field alias, target;
} bridge_aliases[] = {
#define MCINIT_BRIDGE_ALIAS(mask, alias, target) {mask, MCINIT_F_##alias, MCINIT_F_##target},
#include "config/fields.inc"
#undef MCINIT_BRIDGE_ALIAS
};

void
mcinit_config_bridge_aliases(struct mcinit_config *c)
{
	for (size_t i = 0; i < sizeof bridge_aliases / sizeof bridge_aliases[0]; i++) {
		enum mcinit_field a = bridge_aliases[i].alias, t = bridge_aliases[i].target, from,
		                  to;

		if (!c->bridge || (bridge_aliases[i].mask & c->bversion) == 0)
			continue;
		/* the one the config wrote is what both read: the property's
		 * getter returns the target, its setter writes it */
		if (c->origin[a] == MCINIT_ORIG_DEFAULT && c->origin[t] != MCINIT_ORIG_DEFAULT)
			from = t, to = a;
		else if (c->origin[t] == MCINIT_ORIG_DEFAULT && c->origin[a] != MCINIT_ORIG_DEFAULT)
			from = a, to = t;
		else
			continue;
		mcinit_value_copy(&c->val[to], &c->val[from]);
		c->loc[to] = c->loc[from];
		c->origin[to] = c->origin[from];
		c->invalid[to] = c->invalid[from];
		c->pyval[to] = c->pyval[from];
		c->runtime[to] = c->runtime[from];
	}
}
