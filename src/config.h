/*
 * config.h — the configuration model (one value per schema.def row) and its
 * loaders: JSON files, `section.field=value` overrides, Megatron-LM flags,
 * launch scripts and Python argparse lint.
 *
 * Ownership: struct mcinit_config owns every value, every source name and
 * env_vars; free it with mcinit_config_destroy.  Loaders report problems in
 * the input as diagnostics (and keep going, so a run reports everything) and
 * return -1 only when an input cannot be used at all (missing file, not
 * parseable), with err->code EX_NOINPUT or EX_DATAERR.
 */
#ifndef MCINIT_CONFIG_H
#define MCINIT_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "diag.h"
#include "mflags.h"
#include "util.h"

#define MCINIT_NOLIM LLONG_MIN

enum mcinit_field {
#define MCINIT_FIELD(sec, name, type, def, flags, lo, hi, choices, help) MCINIT_F_##name,
#include "schema.def"
#undef MCINIT_FIELD
	MCINIT_F_COUNT
};

/* What a type alternative accepts (see schema.def, TYPE column). */
enum mcinit_base {
	MCINIT_B_NULL,
	MCINIT_B_BOOL,
	MCINIT_B_INT,
	MCINIT_B_STR,
	MCINIT_B_ENUM,
	MCINIT_B_SIGNAL,
	MCINIT_B_DTYPE,
};

struct mcinit_alt {
	enum mcinit_base base;
	bool list;
	int fixed; /* exact list length, 0 = any */
};

struct mcinit_type {
	struct mcinit_alt alt[4];
	int nalt;
};

struct mcinit_field_info {
	const char *section, *name, *type_text, *def, *flags;
	long long lo, hi; /* MCINIT_NOLIM = unbounded */
	const char *choices, *help;
};

/* The schema, indexed by enum mcinit_field. */
extern const struct mcinit_field_info mcinit_fields[MCINIT_F_COUNT];
const struct mcinit_type *mcinit_field_type(enum mcinit_field f);
/* "model.tensor_model_parallel_size" into buf. */
const char *mcinit_field_key(enum mcinit_field f, char *buf, size_t len);
/* Field by "section.name" key, or by bare name; -1 if none. */
int mcinit_field_lookup(const char *section, const char *name);
/* Field whose FLAGS column lists `flag`; -1 if none.  *is_false set for
 * store_false spellings (--no-…, --disable-…). */
int mcinit_field_by_flag(const char *flag, bool *is_false);

enum mcinit_vkind { MCINIT_V_NULL, MCINIT_V_BOOL, MCINIT_V_INT, MCINIT_V_STR, MCINIT_V_LIST };

struct mcinit_value {
	enum mcinit_vkind kind;
	long long i;                /* BOOL and INT */
	char *s;                    /* STR, owned */
	struct mcinit_value *items; /* LIST, owned */
	size_t n;
};

void mcinit_value_clear(struct mcinit_value *v);

enum mcinit_origin {
	MCINIT_ORIG_DEFAULT,
	MCINIT_ORIG_FILE,
	MCINIT_ORIG_OVERRIDE,
	MCINIT_ORIG_ARGV,
	MCINIT_ORIG_OPTION, /* mcinit's own command-line option, e.g. --world-size */
	MCINIT_ORIG_ENV,
	MCINIT_ORIG_REPAIR,
};

struct mcinit_config {
	struct mcinit_value val[MCINIT_F_COUNT];
	struct mcinit_loc loc[MCINIT_F_COUNT]; /* where each value was written */
	enum mcinit_origin origin[MCINIT_F_COUNT];
	bool invalid[MCINIT_F_COUNT]; /* an input for it was rejected: rules skip it */
	json_t *env_vars;             /* object, owned */
	struct mcinit_loc env_vars_loc;
	unsigned mversion; /* enum mcinit_mversion bit */
	int nsources;      /* inputs seen so far: gives each its sort order */
	char **names;      /* owned source names that locs point into */
	size_t nnames;
	char **unchecked; /* Megatron flags accepted but not modelled */
	size_t nunchecked;
	struct mcinit_loc unchecked_loc;
};

/* Defaults from schema.def; required fields start null. */
void mcinit_config_init(struct mcinit_config *c, unsigned mversion);
void mcinit_config_destroy(struct mcinit_config *c);

/* A source name owned by c (interned), with the next sort order. */
struct mcinit_loc mcinit_config_source(struct mcinit_config *c, const char *name);

/* Typed access.  Callers check mcinit_cfg_null first for nullable fields. */
bool mcinit_cfg_null(const struct mcinit_config *c, enum mcinit_field f);
long long mcinit_cfg_int(const struct mcinit_config *c, enum mcinit_field f);
bool mcinit_cfg_bool(const struct mcinit_config *c, enum mcinit_field f);
const char *mcinit_cfg_str(const struct mcinit_config *c, enum mcinit_field f);
const struct mcinit_value *mcinit_cfg_val(const struct mcinit_config *c, enum mcinit_field f);
void mcinit_cfg_set_int(struct mcinit_config *c, enum mcinit_field f, long long v,
                        enum mcinit_origin o, const struct mcinit_loc *loc);
void mcinit_cfg_set_bool(struct mcinit_config *c, enum mcinit_field f, bool v, enum mcinit_origin o,
                         const struct mcinit_loc *loc);
void mcinit_cfg_set_str(struct mcinit_config *c, enum mcinit_field f, const char *v,
                        enum mcinit_origin o, const struct mcinit_loc *loc);

/*
 * Converts a JSON value to field f's type.  Returns 0 and fills out, or -1
 * with *code = "MC004" (wrong type) or "MC005" (range/choices) and a message
 * in why (caller frees).
 */
int mcinit_value_from_json(enum mcinit_field f, json_t *j, struct mcinit_value *out,
                           const char **code, char **why);
/* The value as a new JSON reference. */
json_t *mcinit_value_to_json(const struct mcinit_value *v);

/* Stores a JSON value into field f, or reports MC004/MC005 at loc. */
int mcinit_config_set_json(struct mcinit_config *c, enum mcinit_field f, json_t *j,
                           enum mcinit_origin o, const struct mcinit_loc *loc,
                           struct mcinit_diags *d);

/* Loaders (load-json.c, load-yaml.c, load-args.c, load-python.c). */
int mcinit_config_load_json(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                            struct mcinit_err *err);
int mcinit_config_load_json_text(struct mcinit_config *c, const char *name, const char *text,
                                 size_t len, struct mcinit_diags *d, struct mcinit_err *err);
/* YAML (Megatron-Bridge's shape), read as Bridge's OmegaConf loader reads
 * it (yamltree.h); then walked like a JSON file. */
int mcinit_config_load_yaml(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                            struct mcinit_err *err);
int mcinit_config_load_yaml_text(struct mcinit_config *c, const char *name, const char *text,
                                 size_t len, struct mcinit_diags *d, struct mcinit_err *err);
/* Reads path whole and hands its text to load (one of the *_text loaders). */
typedef int mcinit_text_loader(struct mcinit_config *c, const char *name, const char *text,
                               size_t len, struct mcinit_diags *d, struct mcinit_err *err);
int mcinit_config_load_file(struct mcinit_config *c, const char *path, mcinit_text_loader *load,
                            struct mcinit_diags *d, struct mcinit_err *err);
/* The config walker both loaders share: root's sections into c, every
 * diagnostic located through jp (keyed by JSON Pointer into root); base is
 * the source (from mcinit_config_source). */
struct mcinit_jpos;
void mcinit_config_load_tree(struct mcinit_config *c, struct mcinit_loc base, json_t *root,
                             struct mcinit_jpos *jp, struct mcinit_diags *d);
/* `section.field=value`; argi = index of the word in mcinit's argv. */
void mcinit_config_apply_override(struct mcinit_config *c, const char *kv, int argi,
                                  struct mcinit_diags *d);
/* Megatron-LM words.  locs[i] gives each word's place (argv index or script
 * line/col); opaque[i] (may be NULL) marks words whose value is only known at
 * run time, whose values are then not type-checked. */
void mcinit_config_apply_flags(struct mcinit_config *c, char *const *words,
                               const struct mcinit_loc *locs, const unsigned char *opaque, size_t n,
                               struct mcinit_diags *d);
int mcinit_config_load_script(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                              struct mcinit_err *err);
int mcinit_lint_python(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                       struct mcinit_err *err);

/* After all inputs: MC008 for required fields still null, and the single
 * "not checked by mcinit" note. */
void mcinit_config_finish(struct mcinit_config *c, struct mcinit_diags *d);

/* The resolved config as a JSON object {section: {field: value}} plus env_vars. */
json_t *mcinit_config_to_json(const struct mcinit_config *c);

/* Documentation of the input codes MC001-MC009. */
extern const struct mcinit_code_doc mcinit_input_codes[];
extern const size_t mcinit_ninput_codes;

/* Bool spellings accepted for the type=bool trap: 1 true-looking, 0
 * false-looking, -1 neither. */
int mcinit_bool_word(const char *w);

#endif
