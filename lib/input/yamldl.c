/* yamldl.c — libyaml opened at its first use (yamldl.h). */
#include "build.h" /* MCINIT_YAML_SONAME, MCINIT_YAML_LIBDIR */

#include "input/yamldl.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "core/dlfind.h"

/* X(name): the real names, as libyaml exports them. */
#define YAML_FUNCTIONS(X)                                                                          \
	X(yaml_event_delete)                                                                       \
	X(yaml_parser_delete)                                                                      \
	X(yaml_parser_initialize)                                                                  \
	X(yaml_parser_parse)                                                                       \
	X(yaml_parser_set_input_string)

enum {
#define SLOT(f) SLOT_##f,
	YAML_FUNCTIONS(SLOT)
#undef SLOT
	    NSLOTS
};

static const char *const names[NSLOTS] = {
#define NAME(f) [SLOT_##f] = #f,
    YAML_FUNCTIONS(NAME)
#undef NAME
};

static void *fns[NSLOTS];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int opened;               /* every slot resolved */
static char why[PATH_MAX + 256]; /* what went wrong, when not */

static void
open_once(void)
{
	char path[PATH_MAX];
	void *h;

	h = mcinit_dl_find(MCINIT_YAML_SONAME, "MCINIT_YAML_LIBRARY", NULL, MCINIT_YAML_LIBDIR,
	                   path, sizeof path, why, sizeof why);
	if (h == NULL)
		return;
	opened = mcinit_dl_resolve(h, path, names, NSLOTS, fns, "", why, sizeof why) == 0;
}

int
mcinit_yaml_open(struct mcinit_err *err)
{
	pthread_once(&once, open_once);
	if (opened)
		return 0;
	return mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
	                      "libyaml is needed to read YAML and cannot be loaded: %s "
	                      "(Debian: libyaml-0-2)",
	                      why);
}

/* F(name): the resolved function, with the prototype <yaml.h> declares. */
#define F(name) ((__typeof__(&mcinit_dl_##name))fns[SLOT_##name])

void
mcinit_dl_yaml_event_delete(yaml_event_t *event)
{
	F(yaml_event_delete)(event);
}

void
mcinit_dl_yaml_parser_delete(yaml_parser_t *parser)
{
	F(yaml_parser_delete)(parser);
}

int
mcinit_dl_yaml_parser_initialize(yaml_parser_t *parser)
{
	return F(yaml_parser_initialize)(parser);
}

int
mcinit_dl_yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event)
{
	return F(yaml_parser_parse)(parser, event);
}

void
mcinit_dl_yaml_parser_set_input_string(yaml_parser_t *parser, const unsigned char *input,
                                       size_t size)
{
	F(yaml_parser_set_input_string)(parser, input, size);
}
