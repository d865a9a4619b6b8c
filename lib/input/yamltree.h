/*
 * yamltree.h — a YAML config file as the JSON tree and position index that
 * the JSON loader walks (load-json.c), so that every config diagnostic works
 * on YAML unchanged and points at FILE:LINE:COL of what the user wrote.
 *
 * libyaml parses (its event API, so that explicit tags, anchors and the
 * plain/quoted style of every scalar are known); the scalars are then typed
 * the way Megatron-Bridge's loader types them: OmegaConf.load, which is
 * PyYAML's SafeLoader (YAML 1.1 resolution) with three changes — a float
 * resolver that also takes `1e-4` and `1e5`, no timestamps (`2024-01-01`
 * stays a string), and duplicate keys rejected.  So:
 *
 *   null   ~ null Null NULL and the empty scalar;
 *   bool   true/false, yes/no, on/off in lower, Title or UPPER case;
 *   int    decimal with `_`, 0b binary, 0x hex, 0-prefixed octal, base 60
 *          (`1:30` is 90);
 *   float  YAML 1.1 floats plus OmegaConf's exponent forms, .inf, .nan;
 *   else   a string (`None`, `y`, `n`, `08` included).
 *
 * Where that reading surprises (YAML 1.1 words for booleans, y/n, octal,
 * base 60, `None`), a warning says what Bridge reads and what a YAML 1.2
 * reader would.  Merge keys (`<<: *base`, `<<: [*a, *b]`) merge as PyYAML
 * does (explicit keys win, then the first merged mapping); aliases expand,
 * each value keeping the position where it was written (the anchor), up to
 * OmegaConf's limit of 10000 expanded nodes.  Duplicate keys are MC006
 * errors (the last copy is kept, to go on checking).  Tags: !!str, !!int,
 * !!float, !!bool, !!null, !!map, !!seq and `!`; any other tag is an error,
 * as it is for Bridge.  A second document in the file is a parse error:
 * OmegaConf.load reads exactly one.  An empty file is an empty mapping.
 *
 * OmegaConf interpolations in string values: `${a.b}` (absolute), `${.b}`
 * and `${..b}` (relative) are resolved against the file itself, a value that
 * is one whole interpolation taking the target's type; a reference the file
 * does not hold is passed to `lookup` (the config mcinit has built so far,
 * as Bridge resolves against the recipe it merged the file onto).  `\${`
 * is a literal.  Resolvers (`${oc.env:HOME}`) and nested interpolations are
 * not evaluated: that key is dropped from the tree with a note, so it is
 * not checked.  `_target_` and other keys pass through untouched.
 */
#ifndef MCINIT_YAMLTREE_H
#define MCINIT_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/diag.h"
#include "input/jpos.h"
#include "core/util.h"

struct mcinit_yaml_note {
	enum mcinit_severity sev;
	char code[8];
	int line, col; /* 1-based */
	char *msg;     /* owned */
	char *hint;    /* owned, may be NULL */
};

struct mcinit_yaml {
	json_t *root;                   /* owned: an object unless the file holds another value */
	struct mcinit_jpos *jp;         /* owned: sealed, keyed by JSON Pointer into root */
	struct mcinit_yaml_note *notes; /* in the order found */
	size_t nnotes;
};

/* The value of a dotted reference ("model.seq_length") that the file does
 * not hold, as a new reference, or NULL when unknown.  *what (may be left
 * NULL) names where it came from, for the note; static storage. */
typedef json_t *(*mcinit_yaml_lookup)(void *ctx, const char *ref, const char **what);

/*
 * Parses text[0..len).  Returns 0 and fills *out (free with
 * mcinit_yaml_destroy), or -1 with err set (MCINIT_E_PARSE, with its line and column)
 * when the text is not one well-formed YAML document, or when aliases
 * expand too far or refer to themselves.  lookup may be NULL.
 */
int mcinit_yaml_parse(const char *text, size_t len, mcinit_yaml_lookup lookup, void *ctx,
                      struct mcinit_yaml *out, struct mcinit_err *err);

/* As mcinit_yaml_parse, typed as yaml.safe_load types it when pyyaml (the
 * file a ConfigContainer's from_yaml, or Megatron-LM's --yaml-cfg, reads):
 * `3e-4`, a float to OmegaConf's loader, is the string it is to PyYAML,
 * with a note. */
int mcinit_yaml_parse_as(const char *text, size_t len, bool pyyaml, mcinit_yaml_lookup lookup,
                         void *ctx, struct mcinit_yaml *out, struct mcinit_err *err);

/* The OmegaConf interpolations of one string s that no file holds (an
 * override's value), every reference resolved by lookup: 1 with *out (a new
 * reference, typed as its target when s is one whole interpolation); 0 with
 * *why (malloc'd) when s holds a resolver (`${oc.env:HOME}`), evaluated only
 * when Bridge runs; -1 with *why when a reference is unknown. */
int mcinit_yaml_interpolate(const char *s, mcinit_yaml_lookup lookup, void *ctx, json_t **out,
                            char **why);

/* Frees what *y owns and zeroes it; y may be NULL. */
void mcinit_yaml_destroy(struct mcinit_yaml *y);

#endif
