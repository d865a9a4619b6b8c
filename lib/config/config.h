/*
 * config.h — the configuration model (one value per schema.def row) and its
 * loaders: JSON files, `section.field=value` overrides, Megatron-LM flags,
 * launch scripts and Python argparse lint.
 *
 * Ownership: struct mcinit_config owns every value, every source name and
 * env_vars; free it with mcinit_config_destroy.  Loaders report problems in
 * the input as diagnostics (and keep going, so a run reports everything) and
 * return -1 only when an input cannot be used at all (missing file, not
 * parseable), with err->code MCINIT_E_NOINPUT or MCINIT_E_PARSE.
 */
#ifndef MCINIT_CONFIG_H
#define MCINIT_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/diag.h"
#include "config/mflags.h"
#include "core/util.h"

#define MCINIT_NOLIM LLONG_MIN

/*
 * The field universe, generated at build time (build-aux/gen-tables.py) from
 * src/schema.def (mcinit's own rows) and the facts: every field of
 * Megatron-Bridge's ConfigContainer and every Megatron-LM flag dest.  The id
 * of a schema.def row is MCINIT_F_<name>; a generated field that a flag sets
 * is MCINIT_F_<dest>, the others MCINIT_F_<name> (or <section>_<name> where a
 * name is in several sections).  Where a schema.def row's name is not the
 * dest, MCINIT_F_<dest> names the same field.
 */
enum mcinit_field {
#define MCINIT_FIELD_ROW(id, ...) MCINIT_F_##id,
#include "config/fields.inc"
#undef MCINIT_FIELD_ROW
	MCINIT_F_COUNT,
#define MCINIT_FIELD_ALIAS(alias, id) MCINIT_F_##alias = MCINIT_F_##id,
#include "config/fields.inc"
#undef MCINIT_FIELD_ALIAS
};

/* Where a field comes from. */
enum mcinit_field_origin {
	MCINIT_FO_SCHEMA,   /* a row of src/schema.def */
	MCINIT_FO_BRIDGE,   /* a field of Bridge's ConfigContainer (bridge-config-fields.tsv) */
	MCINIT_FO_MEGATRON, /* a Megatron-LM flag dest no Bridge field carries */
};

/* What a type alternative accepts (see schema.def, TYPE column). */
enum mcinit_base {
	MCINIT_B_NULL,
	MCINIT_B_BOOL,
	MCINIT_B_INT,
	MCINIT_B_FLOAT,
	MCINIT_B_STR,
	MCINIT_B_ENUM,
	MCINIT_B_SIGNAL,
	MCINIT_B_DTYPE,
	MCINIT_B_ANY,    /* any JSON value (callables, dicts, classes mcinit does not model) */
	MCINIT_B_LAYOUT, /* a pipeline layout: Megatron's string, or Megatron-Core's list of
	                    stages of layer names, held as the string */
};

struct mcinit_alt {
	enum mcinit_base base;
	bool list;
	int fixed; /* exact list length, 0 = any */
};

struct mcinit_type {
	struct mcinit_alt alt[8];
	int nalt;
};

/* A field's row: each string as 1 + its offset in mcinit_field_text, 0 for
 * NULL (read them with mcinit_field_s).  Offsets, not pointers: the 1,260
 * rows of pointers were 11,000 relocations the loader applied, and 30 pages
 * it wrote, at every start (gen-tables.py's MCINIT_FIELD_OFFS). */
struct mcinit_field_info {
	uint32_t section, name, type_text, def, flags;
	long long lo, hi; /* MCINIT_NOLIM = unbounded */
	uint32_t choices, help;
	uint32_t aliases; /* other accepted "section.name" keys, `|`-separated, or NULL */
	uint32_t dest;    /* the Megatron-LM args attribute it is set from, or NULL */
	enum mcinit_field_origin origin;
};

/* The schema, indexed by enum mcinit_field, and its strings. */
extern const struct mcinit_field_info mcinit_fields[MCINIT_F_COUNT];
extern const char mcinit_field_text[];

/* The string of a row's column (1 + offset, or 0 for NULL). */
static inline const char *
mcinit_field_str(uint32_t off)
{
	return off != 0 ? mcinit_field_text + off - 1 : NULL;
}

/* The string column m (section, name, type_text, def, flags, choices, help,
 * aliases, dest) of field f, or NULL. */
#define mcinit_field_s(f, m) mcinit_field_str(mcinit_fields[f].m)
const struct mcinit_type *mcinit_field_type(enum mcinit_field f);
/* "model.tensor_model_parallel_size" into buf. */
const char *mcinit_field_key(enum mcinit_field f, char *buf, size_t len);
/* Field by "section.name" key (aliases included: *alias set when the key
 * is one), or by bare name when section is NULL; -1 if none. */
int mcinit_field_lookup(const char *section, const char *name);
int mcinit_field_lookup_key(const char *section, const char *name, bool *alias);
/* Field whose FLAGS column lists `flag`; -1 if none.  *is_false set for
 * store_false spellings (--no-…, --disable-…). */
int mcinit_field_by_flag(const char *flag, bool *is_false);
/* The fields a Megatron-LM dest sets: its home first, then the Bridge
 * fields set straight from it.  Returns how many (0 if none), at most max. */
int mcinit_fields_by_dest(const char *dest, enum mcinit_field *out, int max);
/* The first field (in table order) whose dest column is `dest`; -1 if none. */
int mcinit_field_by_dest_column(const char *dest);

/* Config sections: Bridge's ConfigContainer sections, mcinit's launch, and
 * `megatron` (Megatron-LM args no Bridge section carries). */
enum mcinit_section_kind {
	MCINIT_SK_REQUIRED, /* Bridge: a required section */
	MCINIT_SK_FACTORY,  /* Bridge: present by default */
	MCINIT_SK_OPTIONAL, /* Bridge: None by default (null is accepted) */
	MCINIT_SK_MAP,      /* env_vars: a plain mapping */
	MCINIT_SK_MCINIT,   /* mcinit's own (launch) */
	MCINIT_SK_MEGATRON, /* Megatron-LM args with no Bridge field */
};
struct mcinit_section_info {
	const char *name;
	enum mcinit_section_kind kind;
	bool str_ok;           /* a string may stand for the section (mixed_precision presets) */
	const char *bridge_ty; /* Bridge's annotation, or NULL */
};
extern const struct mcinit_section_info mcinit_sections[];
extern const size_t mcinit_nsections;
const struct mcinit_section_info *mcinit_section_find(const char *name);

enum mcinit_vkind {
	MCINIT_V_NULL,
	MCINIT_V_BOOL,
	MCINIT_V_INT,
	MCINIT_V_FLOAT,
	MCINIT_V_STR,
	MCINIT_V_LIST,
	MCINIT_V_JSON,
};

struct mcinit_value {
	enum mcinit_vkind kind;
	long long i;                /* BOOL and INT */
	double d;                   /* FLOAT */
	char *s;                    /* STR, owned */
	json_t *j;                  /* JSON (a value of type any), one reference owned */
	struct mcinit_value *items; /* LIST, owned */
	size_t n;
};

void mcinit_value_clear(struct mcinit_value *v);

/* Field f's default on Megatron-LM version v (a bit of enum mcinit_mversion)
 * into out; 0, or -1 with *why (caller frees) when the type refuses it. */
int mcinit_field_default(enum mcinit_field f, unsigned v, struct mcinit_value *out, char **why);
/* The same as JSON text: the parser default on v of the first of the
 * field's flags that is a flag of v with the field's dest, else the
 * DEFAULT column (generated: gen-tables.py fields, MCINIT_FIELD_VDEF). */
const char *mcinit_field_default_text(enum mcinit_field f, unsigned v);

enum mcinit_origin {
	MCINIT_ORIG_DEFAULT,
	MCINIT_ORIG_FILE,
	MCINIT_ORIG_OVERRIDE,
	MCINIT_ORIG_ARGV,
	MCINIT_ORIG_OPTION, /* mcinit's own command-line option, e.g. --world-size */
	MCINIT_ORIG_ENV,
	MCINIT_ORIG_REPAIR,
};

/* A refusal kept for later (struct mcinit_config's pending). */
struct mcinit_pending {
	const char *code; /* static: MC004, or MC005 */
	char *why;        /* the message after "key: ", owned */
	char *str;        /* the str given, owned (the bool hint reads it) */
	struct mcinit_loc loc;
	bool has_loc; /* the input gave loc (else none) */
};

struct mcinit_config {
	struct mcinit_value val[MCINIT_F_COUNT];
	struct mcinit_loc loc[MCINIT_F_COUNT]; /* where each value was written */
	enum mcinit_origin origin[MCINIT_F_COUNT];
	bool invalid[MCINIT_F_COUNT]; /* an input for it was rejected: rules skip it */
	/* given a value a launch script computes at run time ($1, $(...)):
	 * invalid too (rules skip it), but set, so never "not set" (MC008) */
	bool runtime[MCINIT_F_COUNT];
	/* holds a scalar of another type than the field's (a float in an int
	 * field, 'inf' in a float one), kept as Python holds it because a
	 * Megatron-Bridge dataclass does not check its annotation (issue 38):
	 * invalid too, so that mcinit's native rules, derived values and
	 * estimates take it as unknown rather than reading 0 from it; the
	 * ported checks (Bridge's and Megatron-Core's, as Python) read it */
	bool pyval[MCINIT_F_COUNT];
	/* An input's refusal that waits for Megatron-Bridge's own
	 * runtime_config_update (a str where Bridge declares a number,
	 * config-values.c): Bridge keeps the str, and training's TypeError on
	 * it comes only if its finalize has not replaced it.  Meanwhile the
	 * field is as an input refused it (invalid, its former value); an
	 * assignment to the field drops the record (mcinit_cfg_drop_pending),
	 * mcinit_config_pending_errors reports those left.  Owned, NULL for
	 * most fields. */
	struct mcinit_pending *pending[MCINIT_F_COUNT];
	json_t *env_vars; /* object, owned */
	/* What a section holds beyond its standard fields, kept for
	 * --print-config: {section: {"_target_": ..., key: value}} for the keys
	 * of a Bridge class the standard fields do not have.  Owned. */
	json_t *extras;
	struct mcinit_loc env_vars_loc;
	unsigned mversion; /* enum mcinit_mversion bit */
	unsigned bversion; /* the Megatron-Bridge release: a bit of mcinit_bversion_* */
	/* A Megatron-Bridge ConfigContainer: an input's root names it as
	 * _target_ (what Bridge's to_yaml writes and from_yaml requires).
	 * Bridge's own checks apply (MC300-MC351), and the fields it does not
	 * write start at Bridge's defaults. */
	bool bridge;
	/* How each section was written, {section: "object" | "null" |
	 * "string"}; a section not written is absent.  Owned. */
	json_t *sections;
	/* Where mixed_precision names a preset ("bf16_mixed"), and whether
	 * mcinit_config_bridge_precision found it (its fields are then the
	 * preset's). */
	struct mcinit_loc preset_loc;
	bool preset_known;
	/* --bridge-recipe: where the model's shape comes from when the recipe
	 * runs (its HF model, or NULL: its provider's code, recipe_provider),
	 * for the note on the required fields still known only then; static
	 * storage.  recipe_loc: the recipe's source. */
	bool recipe_shape;
	const char *recipe_hf, *recipe_provider;
	struct mcinit_loc recipe_loc;
	/* The Megatron-LM entry point (enum mcinit_mentry bit): its extra flags
	 * parse, its args_defaults apply.  mentry_fixed: given by the caller
	 * (--entry-point), so a launch script's `python pretrain_X.py` does not
	 * change it. */
	unsigned mentry;
	bool mentry_fixed;
	/* Megatron-LM flags were parsed (a launch script, `--`): the entry
	 * point's args_defaults apply (Bridge's loaders do not apply them). */
	bool megatron_argv;
	int nsources; /* inputs seen so far: gives each its sort order */
	char **names; /* owned source names that locs point into */
	size_t nnames;
	/* The job's environment as a launch script sets it (export, unset,
	 * V=1 prefixes, env, mpirun -x): it wins over the process environment
	 * and env_vars.  value NULL: unset by the script. */
	struct mcinit_jobenv {
		char *name, *value;
		struct mcinit_loc loc;
	} * job_env;
	size_t njob_env;
	/* How the script's launcher gives the world size ("torchrun --nnodes 1
	 * --nproc_per_node 8"), for launch.world_size written at its loc. */
	char *launch_source;
	struct mcinit_loc launch_source_loc;
	/* That world size rests on a Slurm variable's default (the script has
	 * no #SBATCH): the run's is known only then, so nothing is judged by it. */
	bool launch_assumed;
	/* The arguments launch scripts are read as run with (NULL: none). */
	char *script_args;
	/* Which launch of a script that launches several times is checked (1
	 * ..., 0: the first), and the most launches a script made (0: one). */
	int script_launch;
	size_t script_nlaunches;
	/* Launch scripts read in which no launch and no flag was found. */
	size_t scripts_unlaunched;
	/* Flags of a launch hold a variable that a sourced file mcinit could
	 * not read may set: a required field may be among them, so none is
	 * said to be missing (mcinit_config_finish). */
	bool flags_unread;
	/* A launch script's reading stopped early (its expansion budget or
	 * command bound): its flags may be incomplete, so the same holds. */
	bool flags_partial;
	/* Flags of a launch hold the script's own arguments ("$@"), which
	 * mcinit was not given: the same holds. */
	bool flags_args;
};

/* ---- Megatron-Bridge releases (data/releases/, fields.inc) ---- */

/* A release by name: "0.6", "0.6.2", "v0.6.2", "main"; 0 with its bit in
 * *out, -1 if unknown. */
int mcinit_bversion_parse(const char *s, unsigned *out);
/* The newest release (not main): what a config is checked against unless
 * told otherwise. */
unsigned mcinit_bversion_default(void);
const char *mcinit_bversion_name(unsigned v);
/* "0.6, main" into buf. */
const char *mcinit_bversion_list(char *buf, size_t len);
/* The Megatron-Core release Bridge release v pins and installs ("r0.18"
 * for 0.5.1), as mcinit_mversion_parse reads it; NULL if v is none. */
const char *mcinit_bversion_core(unsigned v);
/* The newest Bridge release that pins Megatron release mv: 0 with it in
 * *out, -1 when none does. */
int mcinit_bversion_of_core(unsigned mv, unsigned *out);
/* In a Bridge release where a field is a property of another (0.5.1's
 * dataset.seq_length of dataset.sequence_length), the one the inputs wrote
 * is the value of both.  After every input, before the checks. */
void mcinit_config_bridge_aliases(struct mcinit_config *c);
/* Whether field f exists in Bridge release v (fields that are no Bridge
 * field exist in all). */
bool mcinit_field_in_bridge(enum mcinit_field f, unsigned v);
/* Whether Bridge's dataclass declares field f field(init=False), a value it
 * computes itself (scheduler.lr_decay_steps, dataset.token_dtype_code): its
 * from_yaml drops a file's key of it, an override sets it. */
bool mcinit_field_bridge_init_false(enum mcinit_field f);

/* A ConfigContainer's defaults: the fields still at their default take
 * Megatron-Bridge's dataclass default where it differs (gen-tables.py
 * MCINIT_FIELD_BDEF), and c->bridge is set. */
void mcinit_config_bridge_container(struct mcinit_config *c);
/* Every field of section sec back to its default (Bridge's in a
 * ConfigContainer), what it holds beyond them dropped: the section is
 * replaced, not merged into (a preset's name or a `_target_` mapping merged
 * over it, which Bridge's apply_overrides sets as a new object). */
void mcinit_config_reset_section(struct mcinit_config *c, const char *sec);
/* Whether section sec holds a value in a ConfigContainer: written as an
 * object or a string (a mixed-precision preset), or not written and not
 * None by default (Bridge's Optional sections are None). */
bool mcinit_config_section_set(const struct mcinit_config *c, const char *sec);

/* The script-set value of an environment variable: 1 and *value (NULL when
 * the script unsets it), or 0 when the script does not touch it. */
int mcinit_config_job_env(const struct mcinit_config *c, const char *name, const char **value,
                          const struct mcinit_loc **loc);

/* Defaults from schema.def; required fields start null. */
void mcinit_config_init(struct mcinit_config *c, unsigned mversion);
void mcinit_config_destroy(struct mcinit_config *c);

/* A source name owned by c (interned), with the next sort order. */
struct mcinit_loc mcinit_config_source(struct mcinit_config *c, const char *name);

/* Typed access.  Callers check mcinit_cfg_null first for nullable fields. */
bool mcinit_cfg_null(const struct mcinit_config *c, enum mcinit_field f);
long long mcinit_cfg_int(const struct mcinit_config *c, enum mcinit_field f);
/* FLOAT, or an INT read as a float. */
double mcinit_cfg_float(const struct mcinit_config *c, enum mcinit_field f);
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
/* As mcinit_value_from_json; py: with Python's reading of a config file's
 * value (Megatron-Bridge hands it to the dataclass unchecked: an integral
 * float is an int, a number stands for a bool, a special float string is a
 * float, ...).  *note (caller frees) may say what Python makes of it. */
/* A deep copy of src into dst (which holds nothing). */
void mcinit_value_copy(struct mcinit_value *dst, const struct mcinit_value *src);
/* Whether a scalar value's kind (bool, int, float, str) is one that field
 * f's type holds (an int a float field holds too); any other kind
 * (null, a list, JSON) true. */
bool mcinit_value_fits(enum mcinit_field f, const struct mcinit_value *v);
/* Whether a ported check cannot read field f: its input was rejected (not
 * a value Python would hold: pyval ones are). */
static inline bool
mcinit_cfg_unreadable(const struct mcinit_config *c, enum mcinit_field f)
{
	return c->invalid[f] && !c->pyval[f];
}
/* Whether a and b are the same value: same kind, same scalar, same
 * string, equal items, equal JSON. */
bool mcinit_value_equal(const struct mcinit_value *a, const struct mcinit_value *b);
/* The defaults of Megatron-LM version v (a bit of enum mcinit_mversion), a
 * value per field, as mcinit_config_init starts a config with: built once
 * per process and never freed; the caller must not change them. */
const struct mcinit_value *mcinit_config_defaults(unsigned v);
int mcinit_value_from_json_py(enum mcinit_field f, json_t *j, bool py, struct mcinit_value *out,
                              const char **code, char **why, char **note);
int mcinit_value_from_json(enum mcinit_field f, json_t *j, struct mcinit_value *out,
                           const char **code, char **why);
/* As mcinit_value_from_json_py (py), for a field of a Megatron-Bridge
 * ConfigContainer: what Bridge's reading of it takes beyond the annotation
 * (None for a string setting, a range that is Megatron-LM's use alone).
 * 0 with *why set (caller frees; *code its code): Bridge keeps the value
 * (out), but it is refused unless Bridge's own finalize replaces it (a str
 * where a number is declared: struct mcinit_config's pending). */
int mcinit_value_from_json_bridge(enum mcinit_field f, json_t *j, struct mcinit_value *out,
                                  const char **code, char **why, char **note);
/* Checks JSON value j against a type in the notation of schema.def (and
 * choices, `|`-separated, or NULL): 0, or -1 with *why (caller frees). */
int mcinit_type_check(const char *type_text, const char *choices, json_t *j, char **why);
/* The value as a new JSON reference. */
json_t *mcinit_value_to_json(const struct mcinit_value *v);

/* Stores a JSON value into field f, or reports MC004/MC005 at loc. */
/* Sets field f to j as it is (a value of type any), for a value that a
 * Bridge class's own annotation of the field allows. */
void mcinit_config_set_raw(struct mcinit_config *c, enum mcinit_field f, json_t *j,
                           enum mcinit_origin o, const struct mcinit_loc *loc);
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
/* `${section.field}` against config ctx (a const struct mcinit_config *):
 * the value mcinit holds so far, as a new reference, or NULL; *what says
 * whence.  An mcinit_yaml_lookup. */
json_t *mcinit_config_ref(void *ctx, const char *ref, const char **what);
/* An override sec.key=v of a ConfigContainer's section, read as that key
 * in the section's file would be (the section's class, what Bridge's loader
 * drops), located at l.  v is borrowed. */
void mcinit_config_override_key(struct mcinit_config *c, const char *sec, const char *key,
                                json_t *v, const struct mcinit_loc *l, struct mcinit_diags *d);
/* When section sec holds a builder-style model config (its `_target_`
 * names one), the MRO position of the class of its nested `transformer`
 * (mcinit_vclass_nested); -1 otherwise. */
int mcinit_config_builder_nest(const struct mcinit_config *c, const char *sec);
void mcinit_config_load_tree(struct mcinit_config *c, struct mcinit_loc base, json_t *root,
                             struct mcinit_jpos *jp, struct mcinit_diags *d);
/* `section.field=value`; argi = index of the word in mcinit's argv. */
void mcinit_config_apply_override(struct mcinit_config *c, const char *kv, int argi,
                                  struct mcinit_diags *d);
/* Megatron-LM words.  locs[i] gives each word's place (argv index or script
 * line/col); opaque[i] (may be NULL) holds MCINIT_WORD_* bits: OPAQUE marks
 * words whose value is only known at run time (not type-checked), RESPLIT
 * words bash split out of a quoted string (said in the hint of a stray
 * word), UNREAD opaque words a sourced file mcinit could not read may set,
 * ARGS opaque words made from the script's arguments. */
#define MCINIT_WORD_OPAQUE  1
#define MCINIT_WORD_RESPLIT 2
#define MCINIT_WORD_UNREAD  4
#define MCINIT_WORD_ARGS    8 /* opaque: the script's arguments, not given */
void mcinit_config_apply_flags(struct mcinit_config *c, char *const *words,
                               const struct mcinit_loc *locs, const unsigned char *opaque, size_t n,
                               struct mcinit_diags *d);
int mcinit_config_load_script(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                              struct mcinit_err *err);
/* hold 1: from now on the launch script scanned last (all its launches, in
 * one reading) is kept, and loading the same path with the same script
 * arguments again takes it from there instead of reading and interpreting
 * the script once more; hold 0: forgets it.  For a caller that loads one
 * job once per launch of its script (mcinit validate): without it, a
 * script with N launches was interpreted N + 1 times.  Per thread. */
void mcinit_config_script_memo(int hold);
int mcinit_lint_python(struct mcinit_config *c, const char *path, struct mcinit_diags *d,
                       struct mcinit_err *err);

/* What Megatron-LM's validate_args fills in before its required-argument
 * check: num_layers from a hybrid layer pattern or --encoder-num-layers,
 * seq_length from --encoder-seq-length (megatron-fill.c).  The plan calls
 * it after every input and before mcinit_config_finish, which then sees
 * the filled values. */
void mcinit_config_fill_megatron(struct mcinit_config *c, struct mcinit_diags *d);
/* After all inputs and mcinit_config_fill_megatron: MC008 for required
 * fields still null. */
void mcinit_config_finish(struct mcinit_config *c, struct mcinit_diags *d);
/* Forgets field f's pending refusal: a value replaced the str it was on. */
void mcinit_cfg_drop_pending(struct mcinit_config *c, enum mcinit_field f);
/* Reports each pending refusal still standing (the field still holds its
 * str after mcinit's emulation of Bridge's runtime_config_update) as the
 * error it was, at its place, and forgets it.  After
 * mcinit_config_bridge_precision, before the checks. */
void mcinit_config_pending_errors(struct mcinit_config *c, struct mcinit_diags *d);

/* The resolved config as a JSON object {section: {field: value}} plus env_vars. */
json_t *mcinit_config_to_json(const struct mcinit_config *c);

/* Documentation of the input codes MC001-MC009. */
extern const struct mcinit_code_doc mcinit_input_codes[];
extern const size_t mcinit_ninput_codes;

/* Bool spellings accepted for the type=bool trap: 1 true-looking, 0
 * false-looking, -1 neither. */
int mcinit_bool_word(const char *w);

#endif
