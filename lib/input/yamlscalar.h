/*
 * yamlscalar.h — a YAML scalar's text typed as Megatron-Bridge's loader
 * types it (yamltree.h lists the readings: null, bool, int, float, else a
 * string; a tag forces one), with a warning where YAML 1.1's reading
 * surprises, and the notes of a parse that those warnings join.  The typing
 * is one idea apart from the parse: yamltree.c's first pass hands it each
 * scalar it reads.  Only lib/input/yaml*.c include it; everyone else uses
 * yamltree.h.
 */
#ifndef MCINIT_YAMLSCALAR_H
#define MCINIT_YAMLSCALAR_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "input/yamltree.h"

/* The prefix of YAML's own tags (`!!int` is MCINIT_YAML_TAG "int"). */
#define MCINIT_YAML_TAG "tag:yaml.org,2002:"

/* What typing needs of the parse that asks. */
struct mcinit_ytyper {
	struct mcinit_yaml *out; /* the result: notes are added to out->notes */
	size_t capnotes;         /* of out->notes */
	bool pyyaml;             /* read as PyYAML's safe_load reads it (no OmegaConf resolver) */
};

/* Adds a note at p to ty->out's (hint may be NULL). */
void mcinit_ynote(struct mcinit_ytyper *ty, enum mcinit_severity sev, const char *code,
                  struct mcinit_pos p, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A plain, untagged scalar's value (a new reference); quiet: no warnings (a
 * mapping key). */
json_t *mcinit_ytype_plain(struct mcinit_ytyper *ty, const char *s, struct mcinit_pos p,
                           bool quiet);

/* A scalar with an explicit tag (`!`, or MCINIT_YAML_TAG and a name): its
 * value, a new reference.  A tag Bridge's loader cannot construct, or a text
 * the tag's type does not read, is an MC004 error and the text a string. */
json_t *mcinit_ytype_tagged(struct mcinit_ytyper *ty, const char *tag, const char *s,
                            struct mcinit_pos p);

#endif
