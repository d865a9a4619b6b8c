/*
 * bridge.h — Megatron-Bridge's classes of a ConfigContainer section (the
 * `_target_` a section names: 56 model providers, 20 dataset configs, 5 PEFT
 * methods) and its recipes.  Generated from data/bridge-variant-fields.tsv
 * and data/bridge-recipes.tsv (build-aux/gen-tables.py).  All returned
 * pointers are to static data.
 */
#ifndef MCINIT_BRIDGE_H
#define MCINIT_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "config/config.h"

/* A class a section can hold.  base_pos: where its nearest ancestor sits in
 * the section's default class's MRO (0 = the default class itself), -1 when
 * it shares none of it (it has only the fields of its own rows). */
struct mcinit_vclass {
	const char *section, *name;
	int base_pos;
};

/* A field of a class that differs from (or is missing in) the section's
 * standard fields. */
/* A class's field: its strings are offsets into one blob (mcinit_vstr),
 * so that the table of some 2,500 rows has no pointer for the loader to
 * relocate at every start. */
struct mcinit_vfield {
	unsigned short cls;                /* index of its class */
	uint32_t name, type, choices, def; /* mcinit_vstr; choices may be none */
};
/* The string at off of a variant field (vf->name, ->type, ->choices,
 * ->def); NULL for none (MCINIT_NOSTR). */
const char *mcinit_vstr(uint32_t off);

/* The class of `section` a `_target_` names (full dotted name or the class
 * name alone); NULL when none. */
const struct mcinit_vclass *mcinit_vclass_find(const char *section, const char *target);
/* The section's default class (what it holds without a `_target_`); NULL for
 * sections with a single class. */
const struct mcinit_vclass *mcinit_vclass_default(const char *section);
/* "FluxProvider": the class name without its module. */
const char *mcinit_vclass_short(const struct mcinit_vclass *k);
/* The row of class k for `key`, or NULL. */
const struct mcinit_vfield *mcinit_vclass_field(const struct mcinit_vclass *k, const char *key);
/* True when class k has standard field f (of its own section). */
bool mcinit_vclass_has_std(const struct mcinit_vclass *k, enum mcinit_field f);
/* The first class of section with a row for key (for a key no standard
 * field has); NULL when no class has it. */
const struct mcinit_vclass *mcinit_vclass_with_key(const char *section, const char *key,
                                                   const struct mcinit_vfield **vf);
/* A builder-style model config (Megatron-LM's GPTModelConfig and Bridge's
 * subclasses) holds the transformer's fields in a field of its own,
 * `transformer: TransformerConfig`.  For class k's field `key`: the
 * position in the section's default MRO of the class its type names, or
 * -1 when it names none (the key holds no nested config of that chain). */
int mcinit_vclass_nested(const struct mcinit_vclass *k, const char *key);
/* Whether standard field f is a field of the class at MRO position pos
 * (mcinit_vclass_nested): declared there or further down the chain. */
bool mcinit_field_in_nested(enum mcinit_field f, int pos);
/* The default (JSON text) of standard field f in the nested class at MRO
 * position pos when the section's default class overrides it there
 * (attention_softmax_in_fp32: GPTModelProvider False, TransformerConfig
 * True); NULL when the standard default is the nested class's too. */
const char *mcinit_field_nested_default(enum mcinit_field f, int pos);
/* True when section has classes besides its default (model, dataset, peft). */
bool mcinit_section_has_classes(const char *section);
/* Calls fn(name, arg) for every variant field name of section. */
void mcinit_vfield_each(const char *section, void *arg, void (*fn)(const char *, void *));

/* ---- what Bridge's loader (from_yaml -> instantiate) does with names ----
 * (data/bridge-loader.tsv, per release) */

/* Whether class `target` (a full dotted name) takes **kwargs in Bridge
 * release v: an unknown key is then passed on and the constructor refuses
 * it, where every other class drops it with a log warning. */
bool mcinit_bridge_keeps_unknown_keys(const char *target, unsigned v);
/* Whether Bridge release v's model configs make an unset
 * expert_tensor_parallel_size 1 when expert_model_parallel_size > 1 (before
 * Megatron-Core's __post_init__ would make it TP). */
bool mcinit_bridge_etp_one_with_ep(unsigned v);
/* Why Bridge release v refuses to instantiate `target` found under the key
 * `key` (the last component of its path): a malloc'd sentence the caller
 * frees, or NULL when Bridge goes on to import it. */
char *mcinit_bridge_target_refusal(const char *target, const char *key, unsigned v);

/* Starts c from Megatron-Bridge's recipe `name` (bridge-recipes.tsv): the
 * parallel sizes, sequence lengths, batch sizes and classes it writes as
 * literals, each located at "bridge-recipe NAME".  Returns 0, or -1 after an
 * MC003 error (with a did-you-mean) when no recipe has that name. */
int mcinit_config_apply_recipe(struct mcinit_config *c, const char *name, struct mcinit_diags *d);

/* What Megatron-Bridge's runtime_config_update does to a ConfigContainer's
 * precision before it validates it: a mixed_precision preset's name becomes
 * the preset (training/mixed_precision.py; data/bridge-mixed-precision.tsv,
 * per release), MixedPrecisionConfig.finalize fills fp8_param and fp4_param
 * from the param-gather switches, and setup copies every field of the
 * mixed_precision section onto the model, optimizer and ddp fields of the
 * same name.  Copied values are located at the mixed_precision section.
 * A preset no release knows is an MC005 error, as Bridge's ValueError. */
void mcinit_config_bridge_precision(struct mcinit_config *c, struct mcinit_diags *d);

#endif
