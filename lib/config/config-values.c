/* config-values.c — the values of fields: a JSON value converted to a
 * field's type (with the diagnostics of a value it refuses), and values
 * copied, compared, cleared and written back as JSON.  See config.h. */
#include "config/config.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config-impl.h"
#include "input/hydra.h"
#include "input/jpos.h"

void
mcinit_value_clear(struct mcinit_value *v)
{
	size_t i;

	free(v->s);
	json_decref(v->j);
	for (i = 0; i < v->n; i++)
		mcinit_value_clear(&v->items[i]);
	free(v->items);
	memset(v, 0, sizeof *v);
}

int
mcinit_bool_word(const char *w)
{
	static const char *const yes[] = {"true", "1", "yes", "y", "on", "t"};
	static const char *const no[] = {"false", "0", "no", "n", "off", "f", ""};
	size_t i;

	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (strcasecmp(w, yes[i]) == 0)
			return 1;
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		if (strcasecmp(w, no[i]) == 0)
			return 0;
	return -1;
}

/* Signal name -> number: "SIGTERM", "term", "usr1", "SIGRTMIN+2", "15". */
static int
signal_from_name(const char *s)
{
	char *end;
	long n;
	int i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	n = strtol(s, &end, 10);
	if (*s && *end == '\0')
		return n > 0 && n < NSIG ? (int)n : -1;
	if (strncasecmp(s, "RTMIN", 5) == 0 || strncasecmp(s, "RTMAX", 5) == 0) {
		int base = toupper((unsigned char)s[3]) == 'I' ? SIGRTMIN : SIGRTMAX;

		n = s[5] ? strtol(s + 5, &end, 10) : 0;
		if (s[5] && *end != '\0')
			return -1;
		n += base;
		return n >= SIGRTMIN && n <= SIGRTMAX ? (int)n : -1;
	}
	for (i = 1; i < NSIG; i++) {
		const char *abbr = sigabbrev_np(i);

		if (abbr != NULL && strcasecmp(abbr, s) == 0)
			return i;
	}
	return -1;
}

static char *
signal_name(int sig)
{
	const char *abbr = sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbr != NULL)
		return mcx_xasprintf("SIG%s", abbr);
	if (sig == SIGRTMIN)
		return mcx_xstrdup("SIGRTMIN");
	return mcx_xasprintf("SIGRTMIN+%d", sig - SIGRTMIN);
}

static char *
signal_list(void)
{
	struct mcx_buf b = {0};
	int i;

	for (i = 1; i < SIGRTMIN; i++) {
		const char *abbr = sigabbrev_np(i);

		if (abbr != NULL)
			mcx_buf_printf(&b, "%sSIG%s", b.len ? ", " : "", abbr);
	}
	mcx_buf_adds(&b, ", SIGRTMIN..SIGRTMAX (as SIGRTMIN+n), or a number 1-");
	mcx_buf_add_long(&b, NSIG - 1);
	mcx_buf_cstr(&b);
	return b.data;
}

/* Megatron-Bridge accepts many spellings of a dtype; canonical fp32/fp16/bf16. */
static const char *
dtype_canonical(const char *s)
{
	static const struct {
		const char *spelling, *canon;
	} map[] = {
	    {"fp32", "fp32"},           {"float32", "fp32"},       {"32", "fp32"},
	    {"32-true", "fp32"},        {"torch.float32", "fp32"}, {"float", "fp32"},
	    {"fp16", "fp16"},           {"float16", "fp16"},       {"16", "fp16"},
	    {"16-mixed", "fp16"},       {"half", "fp16"},          {"torch.float16", "fp16"},
	    {"bf16", "bf16"},           {"bfloat16", "bf16"},      {"bf16-mixed", "bf16"},
	    {"torch.bfloat16", "bf16"},
	};
	size_t i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcasecmp(map[i].spelling, s) == 0)
			return map[i].canon;
	return NULL;
}

static const char *const base_desc[] = {
    [MCINIT_B_NULL] = "null",
    [MCINIT_B_BOOL] = "a boolean",
    [MCINIT_B_INT] = "an integer",
    [MCINIT_B_FLOAT] = "a number",
    [MCINIT_B_STR] = "a string",
    [MCINIT_B_ENUM] = "one of",
    [MCINIT_B_SIGNAL] = "a signal name or number",
    [MCINIT_B_DTYPE] = "a dtype (fp32, fp16, bf16)",
    [MCINIT_B_ANY] = "any value",
    [MCINIT_B_LAYOUT] = "a pipeline layout (a string, or a list of stages of layer names)",
};

/* "an integer, a list of strings or null" — the type in words. */
static char *
type_words(enum mcinit_field f)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	struct mcx_buf b = {0};
	int i;

	for (i = 0; i < t->nalt; i++) {
		const struct mcinit_alt *a = &t->alt[i];

		if (i > 0)
			mcx_buf_adds(&b, i == t->nalt - 1 ? " or " : ", ");
		if (a->list && a->fixed)
			mcx_buf_printf(&b, "a list of exactly %d ", a->fixed);
		else if (a->list)
			mcx_buf_adds(&b, "a list of ");
		if (a->list)
			mcx_buf_printf(&b, "%ss",
			               a->base == MCINIT_B_INT     ? "integer"
			               : a->base == MCINIT_B_FLOAT ? "number"
			               : a->base == MCINIT_B_BOOL  ? "boolean"
			               : a->base == MCINIT_B_ANY   ? "value"
			                                           : "string");
		else if (a->base == MCINIT_B_ENUM)
			mcx_buf_printf(&b, "one of %s", mcinit_field_s(f, choices));
		else
			mcx_buf_adds(&b, base_desc[a->base]);
	}
	mcx_buf_cstr(&b);
	return b.data;
}

static const char *
json_kind_name(json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "a list";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

struct conv {
	const char *code; /* set on failure */
	char *why;
	long long lo, hi;    /* the field's range (MCINIT_NOLIM: none) */
	const char *choices; /* the field's choices, or NULL */
	char *note;          /* py: a warning about a value Python takes as it is */
	bool py;             /* read by Python (a config file, an override) */
	bool bridge;         /* into a Megatron-Bridge ConfigContainer (py too) */
	/* bridge: the value is kept, but its refusal (code, why) waits for
	 * Bridge's finalize (struct mcinit_config's pending) */
	bool pending;
};

static int
conv_fail(struct conv *cv, const char *code, char *why)
{
	if (cv->why == NULL || strcmp(code, "MC005") == 0) {
		/* A range/choices complaint says more than "wrong type": keep it. */
		free(cv->why);
		cv->code = code;
		cv->why = why;
	} else {
		free(why);
	}
	return -1;
}

/* Whole-word match of flag inside a `|`-separated list. */
static bool
in_bar_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p && *p) {
		size_t m = strcspn(p, "|");

		if (m == n && strncmp(p, word, n) == 0)
			return true;
		p += m + (p[m] == '|');
	}
	return false;
}

/*
 * The fields whose minimum in schema.def is Megatron-LM's use of the value,
 * with the minimum a ConfigContainer's reader needs instead: Bridge reads
 * them behind a truth test, where 0 means "off".
 */
static const struct {
	enum mcinit_field f;
	long long lo;
} bridge_lo[] = {
    /* data/loaders.py:129 and train.py:659 (0.6.2): `if eval_interval:`
     * before dividing (Megatron-LM's training.py divides unguarded); a
     * negative one still counts negative evaluation samples */
    {MCINIT_F_eval_interval, 0},
};

static int
check_range(enum mcinit_field f, long long v, struct conv *cv)
{
	long long lo = cv->lo;
	size_t i;

	for (i = 0; cv->bridge && i < sizeof bridge_lo / sizeof bridge_lo[0]; i++)
		if (bridge_lo[i].f == f)
			lo = bridge_lo[i].lo;
	if (lo != MCINIT_NOLIM && v < lo)
		return conv_fail(cv, "MC005",
		                 mcx_xasprintf("%lld is below the minimum %lld", v, lo));
	if (cv->hi != MCINIT_NOLIM && v > cv->hi)
		return conv_fail(cv, "MC005",
		                 mcx_xasprintf("%lld is above the maximum %lld", v, cv->hi));
	return 0;
}

/*
 * Whether f is a field of one of a Megatron-Bridge ConfigContainer's
 * sections: the facts' fields, and schema.def's rows in those sections
 * (which model a Bridge field too: dist.distributed_backend is
 * DistributedInitConfig's), not mcinit's own launch section nor the
 * Megatron-LM arguments with no Bridge field.  Bridge's loader hands such a
 * field's value to the dataclass unchecked.
 */
static bool
bridge_dataclass_field(enum mcinit_field f)
{
	const struct mcinit_section_info *si;

	if (mcinit_fields[f].origin == MCINIT_FO_BRIDGE)
		return true;
	if (mcinit_fields[f].origin != MCINIT_FO_SCHEMA)
		return false;
	si = mcinit_section_find(mcinit_field_s(f, section));
	return si != NULL && si->kind != MCINIT_SK_MCINIT && si->kind != MCINIT_SK_MEGATRON;
}

/* schema.def's rows whose Bridge annotation allows None where the row's
 * type does not (validation.eval_iters: int | None): fields.inc. */
static const enum mcinit_field bridge_null[] = {
#define MCINIT_FIELD_BRIDGE_NULL(id) MCINIT_F_##id,
#include "config/fields.inc"
#undef MCINIT_FIELD_BRIDGE_NULL
};

static bool
bridge_null_ok(enum mcinit_field f)
{
	size_t i;

	for (i = 0; i < sizeof bridge_null / sizeof bridge_null[0]; i++)
		if (bridge_null[i] == f)
			return true;
	return false;
}

static int
check_choice(enum mcinit_field f, const char *s, struct conv *cv)
{
	if (cv->choices == NULL || in_bar_list(cv->choices, s))
		return 0;
	/* A Megatron-Bridge field's choices are its Literal[...] annotation,
	 * which nothing checks when Bridge reads a config: a warning (a value
	 * Bridge rejects is its checks' to refuse, MC300-MC351).  The same for
	 * a field of schema.def's own in a ConfigContainer: its choices model
	 * the annotation, which Bridge does not check either. */
	if (cv->py && (mcinit_fields[f].origin == MCINIT_FO_BRIDGE ||
	               (cv->bridge && bridge_dataclass_field(f)))) {
		free(cv->note);
		cv->note = mcx_xasprintf("%s: '%s' is not one of the values Megatron-Bridge "
		                         "declares (%s); Bridge does not check it",
		                         mcinit_field_s(f, name), s, cv->choices);
		return 0;
	}
	return conv_fail(cv, "MC005", mcx_xasprintf("'%s' is not one of %s", s, cv->choices));
}

static int
check_int_choice(enum mcinit_field f, long long v, struct conv *cv)
{
	char buf[24];

	if (cv->choices == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%lld", v);
	return check_choice(f, buf, cv);
}

/* Megatron-Core's LayerType names and the letters of its layout string. */
static const struct {
	const char *name;
	char letter;
} layer_names[] = {{"embedding", 'E'}, {"decoder", 't'}, {"mtp", 'm'}, {"loss", 'L'}};

/*
 * A pipeline layout: Megatron's string as it is, or Megatron-Core's list
 * of stages, each a list of layer names (what Bridge's YAML dumps hold),
 * turned into the equivalent string, stages joined by `|`, so that one
 * parser (mcinit_layout_parse) reads both.
 */
static int
conv_layout(json_t *j, struct mcinit_value *out, struct conv *cv)
{
	struct mcx_buf b = {0};
	size_t i, k, n;
	json_t *stage, *layer;

	if (json_is_string(j)) {
		out->kind = MCINIT_V_STR;
		out->s = mcx_xstrdup(json_string_value(j));
		return 0;
	}
	if (!json_is_array(j))
		return -1;
	json_array_foreach(j, i, stage)
	{
		if (!json_is_array(stage))
			goto bad;
		if (i > 0)
			mcx_buf_addc(&b, '|');
		json_array_foreach(stage, k, layer)
		{
			for (n = 0; n < sizeof layer_names / sizeof layer_names[0]; n++)
				if (json_is_string(layer) &&
				    strcmp(json_string_value(layer), layer_names[n].name) == 0)
					break;
			if (n == sizeof layer_names / sizeof layer_names[0])
				goto bad;
			mcx_buf_addc(&b, layer_names[n].letter);
		}
	}
	out->kind = MCINIT_V_STR;
	out->s = mcx_xstrdup(mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return 0;
bad:
	mcx_buf_free(&b);
	return conv_fail(cv, "MC005",
	                 mcx_xstrdup("a layout list holds one list per stage, of the layer "
	                             "names embedding, decoder, mtp and loss"));
}

/* One scalar against one base type. */
static int
conv_scalar(enum mcinit_field f, enum mcinit_base base, json_t *j, struct mcinit_value *out,
            struct conv *cv)
{
	memset(out, 0, sizeof *out);
	switch (base) {
	case MCINIT_B_NULL:
		if (!json_is_null(j))
			return -1;
		out->kind = MCINIT_V_NULL;
		return 0;
	case MCINIT_B_BOOL:
		if (!json_is_boolean(j))
			return -1;
		out->kind = MCINIT_V_BOOL;
		out->i = json_is_true(j);
		return 0;
	case MCINIT_B_INT:
		if (!json_is_integer(j))
			return -1;
		if (check_range(f, json_integer_value(j), cv) < 0 ||
		    check_int_choice(f, json_integer_value(j), cv) < 0)
			return -1;
		out->kind = MCINIT_V_INT;
		out->i = json_integer_value(j);
		return 0;
	case MCINIT_B_FLOAT:
		/* a Python float JSON has no number for (inf, nan) */
		if (mcinit_json_pyfloat_value(j, &out->d)) {
			out->kind = MCINIT_V_FLOAT;
			return 0;
		}
		if (!json_is_number(j))
			return -1;
		out->kind = MCINIT_V_FLOAT;
		out->d = json_number_value(j);
		return 0;
	case MCINIT_B_ANY:
		if (mcinit_json_pyfloat_value(j, &out->d)) {
			out->kind = MCINIT_V_FLOAT;
			return 0;
		}
		out->kind = MCINIT_V_JSON;
		out->j = json_incref(j);
		return 0;
	case MCINIT_B_STR:
	case MCINIT_B_ENUM:
		if (!json_is_string(j) || check_choice(f, json_string_value(j), cv) < 0)
			return -1;
		out->kind = MCINIT_V_STR;
		out->s = mcx_xstrdup(json_string_value(j));
		return 0;
	case MCINIT_B_SIGNAL: {
		int sig = json_is_integer(j)
		              ? (json_integer_value(j) > 0 && json_integer_value(j) < NSIG
		                     ? (int)json_integer_value(j)
		                     : -1)
		          : json_is_string(j) ? signal_from_name(json_string_value(j))
		                              : -2;
		if (sig == -2)
			return -1;
		if (sig < 0) {
			char *list = signal_list();
			char *bad = json_dumps(j, JSON_ENCODE_ANY);

			conv_fail(cv, "MC005",
			          mcx_xasprintf("%s is not a signal of this platform; valid: %s",
			                        bad, list));
			free(list);
			free(bad);
			return -1;
		}
		out->kind = MCINIT_V_STR;
		out->s = signal_name(sig);
		return 0;
	}
	case MCINIT_B_LAYOUT:
		return conv_layout(j, out, cv);
	case MCINIT_B_DTYPE: {
		char tmp[24];
		const char *canon;

		/* Bridge's YAML dumps write a torch dtype as an object that
		 * OmegaConf instantiates: {_target_: torch.bfloat16, _call_: false}. */
		if (json_is_object(j) && json_is_string(json_object_get(j, "_target_")))
			j = json_object_get(j, "_target_");
		if (json_is_integer(j))
			snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(j));
		else if (json_is_string(j))
			snprintf(tmp, sizeof tmp, "%s", json_string_value(j));
		else
			return -1;
		canon = dtype_canonical(tmp);
		if (canon == NULL)
			return conv_fail(cv, "MC005",
			                 mcx_xasprintf("'%s' is not a dtype (fp32, fp16, bf16, "
			                               "float32, bfloat16, bf16-mixed, 16-mixed, "
			                               "torch.bfloat16, ...)",
			                               tmp));
		out->kind = MCINIT_V_STR;
		out->s = mcx_xstrdup(canon);
		return 0;
	}
	}
	return -1;
}

static int
conv_alt(enum mcinit_field f, const struct mcinit_alt *a, json_t *j, struct mcinit_value *out,
         struct conv *cv)
{
	size_t i, n;

	if (!a->list)
		return conv_scalar(f, a->base, j, out, cv);
	if (!json_is_array(j))
		return -1;
	n = json_array_size(j);
	if (a->fixed && n != (size_t)a->fixed)
		return conv_fail(cv, "MC005",
		                 mcx_xasprintf("expected exactly %d values, got %zu", a->fixed, n));
	memset(out, 0, sizeof *out);
	out->kind = MCINIT_V_LIST;
	out->items = mcx_xcalloc(n, sizeof *out->items);
	for (i = 0; i < n; i++) {
		if (conv_scalar(f, a->base, json_array_get(j, i), &out->items[i], cv) < 0) {
			out->n = i;
			mcinit_value_clear(out);
			return -1;
		}
	}
	out->n = n;
	return 0;
}

/* OmegaConf's special floats, as Bridge's YAML writes them (and Python's
 * float() spellings): +-inf and nan. */
static bool
special_float(const char *s, double *out)
{
	static const struct {
		const char *word;
		double v;
	} words[] = {{".inf", INFINITY},     {"+.inf", INFINITY},
	             {"-.inf", -INFINITY},   {"inf", INFINITY},
	             {"+inf", INFINITY},     {"-inf", -INFINITY},
	             {"infinity", INFINITY}, {"-infinity", -INFINITY},
	             {".nan", NAN},          {"nan", NAN}};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(s, words[i].word) == 0) {
			*out = words[i].v;
			return true;
		}
	return false;
}

static bool
has_base(const struct mcinit_type *t, enum mcinit_base b, bool list)
{
	int i;

	for (i = 0; i < t->nalt; i++)
		if (t->alt[i].base == b && t->alt[i].list == list)
			return true;
	return false;
}

/* The value an instantiation dict of Bridge's YAML stands for, where mcinit
 * models it: a signal.Signals written {_call_: true, _name_: SIGTERM,
 * _args_: [15]} is its name.  NULL when j is no such dict. */
static json_t *
instantiated(json_t *j)
{
	json_t *name = json_object_get(j, "_name_"), *args = json_object_get(j, "_args_");

	if (!json_is_object(j))
		return NULL;
	if (json_is_string(name))
		return json_incref(name);
	if (json_is_array(args) && json_array_size(args) == 1)
		return json_incref(json_array_get(args, 0));
	return NULL;
}

static int try_alts(enum mcinit_field f, const struct mcinit_type *t, json_t *j,
                    struct mcinit_value *out, struct conv *cv);

/* A list with a boolean among integers (Python's bool is an int: a
 * List[int] annotation takes [True, False]) as the integers Python reads;
 * NULL when j has no boolean or an item that is neither. */
static json_t *
bools_as_ints(json_t *j)
{
	json_t *k, *it;
	size_t i;
	bool any = false;

	json_array_foreach(j, i, it)
	{
		if (json_is_boolean(it))
			any = true;
		else if (!json_is_integer(it))
			return NULL;
	}
	if (!any)
		return NULL;
	k = json_array();
	json_array_foreach(j, i, it) json_array_append_new(
	    k, json_is_boolean(it) ? json_integer(json_is_true(it)) : json_incref(it));
	return k;
}

/* Whether a type is one of plain scalars (and None): what a dataclass
 * annotated int, float, str or bool (Optional or not) is to mcinit. */
static bool
plain_type(const struct mcinit_type *t)
{
	int i;

	for (i = 0; i < t->nalt; i++)
		if (t->alt[i].list ||
		    (t->alt[i].base != MCINIT_B_NULL && t->alt[i].base != MCINIT_B_BOOL &&
		     t->alt[i].base != MCINIT_B_INT && t->alt[i].base != MCINIT_B_FLOAT &&
		     t->alt[i].base != MCINIT_B_STR && t->alt[i].base != MCINIT_B_ENUM))
			return false;
	return t->nalt > 0;
}

static void py_scalar(json_t *j, struct mcinit_value *out);

/*
 * Where Bridge's own setup reads a field kept with a value of another type
 * and fails on it, before training: Megatron-Core's
 * TransformerConfig.__post_init__ (0.19.2, transformer_config.py:2273;
 * Bridge finalizes the model config in runtime_config_update) sets the
 * output layer's init from scaled_init_method_normal(init_method_std,
 * num_layers): init_method_std / math.sqrt(2.0 * num_layers).  The reason
 * Python raises, or NULL when it does not.
 */
static const char *
setup_failure(enum mcinit_field f, const struct mcinit_value *v)
{
	if (f == MCINIT_F_num_layers && v->kind == MCINIT_V_STR)
		return "TypeError: can't multiply sequence by non-int of type 'float'";
	if (f == MCINIT_F_num_layers && v->kind == MCINIT_V_FLOAT && v->d < 0)
		return "ValueError: math domain error";
	if (f == MCINIT_F_init_method_std && v->kind == MCINIT_V_STR)
		return "TypeError: unsupported operand type(s) for /: 'str' and 'float'";
	return NULL;
}

/* Whether scalar j is, as Python holds it, of another type than plain type
 * t's (a value of the field's own type that the field refuses, 0 below its
 * minimum, is refused as before). */
static bool
other_type(enum mcinit_field f, const struct mcinit_type *t, json_t *j)
{
	struct mcinit_value v;
	bool other;

	if (!plain_type(t) || json_is_array(j) || json_is_object(j) || json_is_null(j))
		return false;
	py_scalar(j, &v);
	other = !mcinit_value_fits(f, &v);
	mcinit_value_clear(&v);
	return other;
}

/* A JSON scalar (not null) as Python holds it: str, bool, int, float
 * (inf and nan from their tag). */
static void
py_scalar(json_t *j, struct mcinit_value *out)
{
	memset(out, 0, sizeof *out);
	if (mcinit_json_pyfloat_value(j, &out->d)) {
		out->kind = MCINIT_V_FLOAT;
	} else if (json_is_string(j)) {
		out->kind = MCINIT_V_STR;
		out->s = mcx_xstrdup(json_string_value(j));
	} else if (json_is_boolean(j)) {
		out->kind = MCINIT_V_BOOL;
		out->i = json_is_true(j);
	} else if (json_is_integer(j)) {
		out->kind = MCINIT_V_INT;
		out->i = json_integer_value(j);
	} else {
		out->kind = MCINIT_V_FLOAT;
		out->d = json_number_value(j);
	}
}

static const char *
py_kind_name(const struct mcinit_value *v)
{
	return v->kind == MCINIT_V_STR     ? "a string"
	       : v->kind == MCINIT_V_BOOL  ? "a boolean"
	       : v->kind == MCINIT_V_INT   ? "an integer"
	       : v->kind == MCINIT_V_FLOAT ? "a float"
	                                   : "a value";
}

/* Python's repr of a scalar: 'x', True, 8, 1.5, inf. */
static char *
py_repr(const struct mcinit_value *v)
{
	char buf[40];

	switch (v->kind) {
	case MCINIT_V_STR:
		return mcx_xasprintf("'%s'", v->s);
	case MCINIT_V_BOOL:
		return mcx_xstrdup(v->i ? "True" : "False");
	case MCINIT_V_INT:
		return mcx_xasprintf("%lld", v->i);
	case MCINIT_V_FLOAT:
		mcinit_hy_float_repr(v->d, buf, sizeof buf);
		return mcx_xstrdup(buf);
	default:
		return mcx_xstrdup("None");
	}
}

/*
 * Python's reading of a config file's value (py): Megatron-Bridge hands it
 * to the dataclass unchecked, so what Python then does with it decides, not
 * the annotation.  An integral float is an int, a number stands for a bool
 * by its truth, a bool is the int 0 or 1 (with a warning), OmegaConf's
 * special floats' words are floats outside a ConfigContainer, an
 * instantiation dict is what it names, and a scalar stands where a tuple
 * is annotated.  0 when one applies.
 */
static int
py_coerce(enum mcinit_field f, const struct mcinit_type *t, json_t *j, struct mcinit_value *out,
          struct conv *cv)
{
	double d;
	json_t *k;
	int i, rc;

	if ((k = instantiated(j)) != NULL) {
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		return rc;
	}
	/* Not in a ConfigContainer: there a str is what the loaders made of
	 * the text, as Bridge's own do (yamlscalar.c: PyYAML's and OmegaConf's
	 * float words, `.inf` and `.nan`, already tagged floats; hydra.c:
	 * Hydra's FLOAT, `inf` and `nan` in any case), and any other spelling
	 * (`infinity`, `.inf` in a Hydra word, a quoted 'inf') stays the str
	 * the dataclass keeps: training's arithmetic on it raises TypeError
	 * (the other-type branch below). */
	if (!cv->bridge && json_is_string(j) && has_base(t, MCINIT_B_FLOAT, false) &&
	    special_float(json_string_value(j), &d)) {
		memset(out, 0, sizeof *out);
		out->kind = MCINIT_V_FLOAT;
		out->d = d;
		return 0;
	}
	if (json_is_real(j) && has_base(t, MCINIT_B_INT, false) &&
	    json_real_value(j) == floor(json_real_value(j)) && fabs(json_real_value(j)) < 0x1p62) {
		k = json_integer((json_int_t)json_real_value(j));
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		return rc;
	}
	/* A ConfigContainer's dataclass keeps the number itself (the
	 * other-type branch below): `variable_seq_lengths is True` is False
	 * for 1, as Megatron-Bridge 0.6.2 runs it. */
	if ((json_is_number(j) || mcinit_json_pyfloat_value(j, NULL)) &&
	    has_base(t, MCINIT_B_BOOL, false) &&
	    !(cv->bridge && bridge_dataclass_field(f) && plain_type(t))) {
		/* (inf and nan are true to Python) */
		memset(out, 0, sizeof *out);
		out->kind = MCINIT_V_BOOL;
		out->i = !json_is_number(j) || json_number_value(j) != 0;
		return 0;
	}
	if (json_is_boolean(j) && has_base(t, MCINIT_B_INT, false)) {
		k = json_integer(json_is_true(j));
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		if (rc == 0) {
			free(cv->note);
			cv->note = mcx_xasprintf("%s is a boolean where Megatron expects an "
			                         "integer: Python reads it as %d",
			                         mcinit_field_s(f, name), json_is_true(j) ? 1 : 0);
		}
		return rc;
	}
	if (json_is_array(j) && has_base(t, MCINIT_B_INT, true) && (k = bools_as_ints(j)) != NULL) {
		rc = try_alts(f, t, k, out, cv);
		json_decref(k);
		if (rc == 0) {
			free(cv->note);
			cv->note = mcx_xasprintf("%s has booleans where Megatron expects integers: "
			                         "Python reads them as 1 and 0",
			                         mcinit_field_s(f, name));
		}
		return rc;
	}
	if (json_is_null(j) && cv->bridge && bridge_null_ok(f)) {
		/* None is a value of the field's annotation: what refuses it is
		 * a check that reads it (train.micro_batch_size's), as in Bridge */
		memset(out, 0, sizeof *out);
		out->kind = MCINIT_V_NULL;
		return 0;
	}
	if (json_is_null(j) && cv->bridge && bridge_dataclass_field(f) &&
	    (has_base(t, MCINIT_B_STR, false) || has_base(t, MCINIT_B_ENUM, false) ||
	     has_base(t, MCINIT_B_BOOL, false) || cv->choices != NULL)) {
		/* A ConfigContainer's dataclass takes None unchecked, and a string
		 * or Literal setting is read by comparing it (== 'flex', in (...),
		 * > 0 for empty_unused_memory_level's Literal[0, 1, 2]), a bool
		 * one by its truth (`if cfg.x:`, false for None), which None
		 * fails quietly or a check refuses: what refuses it is a check
		 * that reads it (the ported checks), as in Bridge, not its
		 * annotation; the native rules read a null bool as false
		 * (mcinit_cfg_bool), as Python's truth test does.  As
		 * check_choice: schema.def's own rows in a ConfigContainer
		 * section too (dist.distributed_backend). */
		memset(out, 0, sizeof *out);
		out->kind = MCINIT_V_NULL;
		free(cv->note);
		cv->note = mcx_xasprintf(
		    "%s is null where Megatron-Bridge declares %s; Bridge does not check it%s",
		    mcinit_field_s(f, name),
		    cv->choices != NULL                 ? "one of its values"
		    : has_base(t, MCINIT_B_BOOL, false) ? "a bool"
		                                        : "a string",
		    has_base(t, MCINIT_B_BOOL, false) && cv->choices == NULL
		        ? ", and Python's truth test reads None as false"
		        : "");
		return 0;
	}
	if (!json_is_array(j) && !json_is_object(j))
		for (i = 0; i < t->nalt; i++)
			if (t->alt[i].list && conv_scalar(f, t->alt[i].base, j, out, cv) == 0)
				return 0;
	if (cv->bridge && (cv->choices != NULL || other_type(f, t, j)) &&
	    bridge_dataclass_field(f) && !json_is_array(j) && !json_is_object(j) &&
	    !json_is_null(j)) {
		/* A scalar of another type where Bridge's annotation is a plain
		 * int, float, str or bool, or a Literal ('2' for Literal[0, 1,
		 * 2], 1.5 for an int, inf for an int, 8 for a str): the
		 * dataclass keeps it as Python reads it, and only a check that
		 * reads it refuses it (flash_attention_version's `in (2, 3,
		 * 4)`, `train_iters <= 0`'s TypeError on a str).  Kept as that
		 * scalar, for the ported checks to see as Bridge's do; the
		 * native rules take it as unknown (config.c: pyval). */
		char *repr, *words;

		py_scalar(j, out);
		repr = py_repr(out);
		if (cv->choices == NULL && setup_failure(f, out) != NULL) {
			char *why = mcx_xasprintf(
			    "%s (%s) is kept by Megatron-Bridge's dataclass, but Megatron-Core's "
			    "TransformerConfig.__post_init__ fails on it in "
			    "scaled_init_method_normal (init_method_std / math.sqrt(2.0 * "
			    "num_layers)): %s",
			    repr, py_kind_name(out), setup_failure(f, out));

			free(repr);
			mcinit_value_clear(out);
			return conv_fail(cv, "MC004", why);
		}
		if (cv->choices == NULL && out->kind == MCINIT_V_STR &&
		    !has_base(t, MCINIT_B_STR, false) &&
		    (has_base(t, MCINIT_B_INT, false) || has_base(t, MCINIT_B_FLOAT, false))) {
			/* A str where a number is declared: Bridge keeps it, and the
			 * first arithmetic or ordering training does on it raises
			 * TypeError (Python compares and adds no str with a number):
			 * the job dies, only later (issue 38: `lr: 3e-4`, which
			 * PyYAML reads as a string, breaks the optimizer).  A float
			 * or a bool where an int is declared, by contrast, Python
			 * computes with.  Only if the str is still there when
			 * training reads it: Bridge's runtime_config_update sets
			 * some such fields itself (the mixed-precision preset's
			 * setup copies model.fp8_margin, optimizer.loss_scale, ...
			 * over what the config holds), so the refusal is kept
			 * pending with the str, and the config reports it only if
			 * mcinit's emulation of that update leaves the str
			 * (mcinit_config_pending_errors). */
			char *why;

			words = type_words(f);
			why = mcx_xasprintf(
			    "a string (%s%s) where Megatron-Bridge declares %s: Bridge keeps it, "
			    "and training's first arithmetic or comparison on it raises "
			    "TypeError (a str with a number)",
			    repr, out->s[0] == '\0' ? ": 'key=' sets ''" : "", words);
			free(words);
			free(repr);
			/* the refusal as conv_fail would leave it (an earlier
			 * alternative's complaint may be the one said), kept */
			conv_fail(cv, "MC004", why);
			free(cv->note);
			cv->note = NULL;
			cv->pending = true;
			return 0;
		}
		free(cv->note);
		cv->note = NULL;
		if (cv->choices == NULL &&
		    (out->kind == MCINIT_V_INT || out->kind == MCINIT_V_FLOAT) &&
		    has_base(t, MCINIT_B_BOOL, false)) {
			/* A number where a bool is declared (a recipe's own
			 * `manual_gc_eval: 100`): Python reads its truth wherever
			 * a bool is read; only `is True` tells them apart, and
			 * the ported checks evaluate that as Python does.
			 * Nothing to say. */
		} else if (cv->choices != NULL) {
			cv->note =
			    mcx_xasprintf("%s is %s where Megatron-Bridge declares one of %s; "
			                  "Bridge does not check it",
			                  mcinit_field_s(f, name), json_kind_name(j), cv->choices);
		} else {
			words = type_words(f);
			cv->note = mcx_xasprintf(
			    "%s is %s (%s%s) where Megatron-Bridge declares %s; Bridge does not "
			    "check it and keeps it as it is, for whatever reads it in training "
			    "to fail on; mcinit's own checks take the field as unknown",
			    mcinit_field_s(f, name), py_kind_name(out), repr,
			    out->kind == MCINIT_V_STR && out->s[0] == '\0' ? ": 'key=' sets ''"
			                                                   : "",
			    words);
			free(words);
		}
		free(repr);
		return 0;
	}
	return -1;
}

static int
try_alts(enum mcinit_field f, const struct mcinit_type *t, json_t *j, struct mcinit_value *out,
         struct conv *cv)
{
	int i;

	for (i = 0; i < t->nalt; i++)
		if (conv_alt(f, &t->alt[i], j, out, cv) == 0)
			return 0;
	return -1;
}

static int value_from_json(enum mcinit_field f, json_t *j, bool py, bool bridge,
                           struct mcinit_value *out, const char **code, char **why, char **note);

int
mcinit_value_from_json_py(enum mcinit_field f, json_t *j, bool py, struct mcinit_value *out,
                          const char **code, char **why, char **note)
{
	return value_from_json(f, j, py, false, out, code, why, note);
}

int
mcinit_value_from_json_bridge(enum mcinit_field f, json_t *j, struct mcinit_value *out,
                              const char **code, char **why, char **note)
{
	return value_from_json(f, j, true, true, out, code, why, note);
}

static int
value_from_json(enum mcinit_field f, json_t *j, bool py, bool bridge, struct mcinit_value *out,
                const char **code, char **why, char **note)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	struct conv cv = {.lo = mcinit_fields[f].lo,
	                  .hi = mcinit_fields[f].hi,
	                  .choices = mcinit_field_s(f, choices),
	                  .py = py,
	                  .bridge = bridge};

	json_t *word = NULL;
	double d;
	int rc;

	*note = NULL;
	*why = NULL;
	/* Outside a ConfigContainer, a Python float JSON has no number for
	 * is read as its word ("inf"), as mcinit's own fields always read it
	 * (a float field takes the word: special_float). */
	if (!bridge && mcinit_json_pyfloat_value(j, &d))
		j = word = json_string(isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
	rc = try_alts(f, t, j, out, &cv) == 0 || (py && py_coerce(f, t, j, out, &cv) == 0) ? 0 : -1;
	if (rc == 0) {
		json_decref(word);
		if (cv.pending) {
			*code = cv.code;
			*why = cv.why;
		} else {
			free(cv.why);
		}
		*note = cv.note;
		return 0;
	}
	free(cv.note);
	if (cv.why == NULL) {
		char *words = type_words(f);

		cv.code = "MC004";
		/* Hydra's `key=` sets the empty string, which "a string" does not
		 * make plain */
		if (py && json_is_string(j) && *json_string_value(j) == '\0')
			cv.why = mcx_xasprintf("expected %s, got the empty string ('key=' sets '')",
			                       words);
		else
			cv.why = mcx_xasprintf("expected %s, got %s", words, json_kind_name(j));
		free(words);
	}
	json_decref(word);
	*code = cv.code;
	*why = cv.why;
	return -1;
}

int
mcinit_value_from_json(enum mcinit_field f, json_t *j, struct mcinit_value *out, const char **code,
                       char **why)
{
	char *note;
	int rc = mcinit_value_from_json_py(f, j, false, out, code, why, &note);

	free(note);
	return rc;
}

int
mcinit_type_check(const char *type_text, const char *choices, json_t *j, char **why)
{
	struct conv cv = {.lo = MCINIT_NOLIM, .hi = MCINIT_NOLIM, .choices = choices};
	struct mcinit_value v;
	struct mcinit_type t;
	int i;

	mcinit_config_parse_type(type_text, &t);
	for (i = 0; i < t.nalt; i++) {
		if (conv_alt(0, &t.alt[i], j, &v, &cv) == 0) {
			mcinit_value_clear(&v);
			free(cv.why);
			return 0;
		}
	}
	if (cv.why == NULL)
		cv.why = mcx_xasprintf("expected %s, got %s", type_text, json_kind_name(j));
	*why = cv.why;
	return -1;
}

json_t *
mcinit_value_to_json(const struct mcinit_value *v)
{
	json_t *arr;
	size_t i;

	switch (v->kind) {
	case MCINIT_V_BOOL:
		return json_boolean(v->i);
	case MCINIT_V_INT:
		return json_integer(v->i);
	case MCINIT_V_FLOAT:
		/* JSON has no infinity or NaN: Python's spellings, as strings
		 * (which a config file may hold for a float field). */
		if (!isfinite(v->d))
			return json_string(isnan(v->d) ? "nan" : v->d > 0 ? "inf" : "-inf");
		return json_real(v->d);
	case MCINIT_V_JSON:
		return json_incref(v->j);
	case MCINIT_V_STR:
		return json_string(v->s);
	case MCINIT_V_LIST:
		arr = json_array();
		for (i = 0; i < v->n; i++)
			json_array_append_new(arr, mcinit_value_to_json(&v->items[i]));
		return arr;
	default:
		return json_null();
	}
}

void
mcinit_value_copy(struct mcinit_value *dst, const struct mcinit_value *src)
{
	size_t i;

	*dst = *src;
	if (src->s)
		dst->s = mcx_xstrdup(src->s);
	if (src->j)
		json_incref(src->j);
	if (src->items) {
		dst->items = mcx_xcalloc(src->n ? src->n : 1, sizeof *dst->items);
		for (i = 0; i < src->n; i++)
			mcinit_value_copy(&dst->items[i], &src->items[i]);
	}
}

bool
mcinit_value_fits(enum mcinit_field f, const struct mcinit_value *v)
{
	const struct mcinit_type *t = mcinit_field_type(f);
	int i;

	if (v->kind != MCINIT_V_BOOL && v->kind != MCINIT_V_INT && v->kind != MCINIT_V_FLOAT &&
	    v->kind != MCINIT_V_STR)
		return true;
	for (i = 0; i < t->nalt; i++) {
		enum mcinit_base b = t->alt[i].base;

		/* (a scalar where a tuple is annotated reads as the scalar:
		 * py_coerce) */
		if (b == MCINIT_B_ANY || (v->kind == MCINIT_V_BOOL && b == MCINIT_B_BOOL) ||
		    (v->kind == MCINIT_V_INT && (b == MCINIT_B_INT || b == MCINIT_B_FLOAT)) ||
		    (v->kind == MCINIT_V_FLOAT && b == MCINIT_B_FLOAT) ||
		    (v->kind == MCINIT_V_STR &&
		     (b == MCINIT_B_STR || b == MCINIT_B_ENUM || b == MCINIT_B_SIGNAL ||
		      b == MCINIT_B_DTYPE || b == MCINIT_B_LAYOUT)))
			return true;
	}
	return false;
}

bool
mcinit_value_equal(const struct mcinit_value *a, const struct mcinit_value *b)
{
	size_t i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case MCINIT_V_BOOL:
	case MCINIT_V_INT:
		return a->i == b->i;
	case MCINIT_V_FLOAT:
		/* bit for bit: -0.0 is not 0.0 to a check that prints it */
		return memcmp(&a->d, &b->d, sizeof a->d) == 0;
	case MCINIT_V_STR:
		return a->s == b->s || (a->s != NULL && b->s != NULL && strcmp(a->s, b->s) == 0);
	case MCINIT_V_LIST:
		if (a->n != b->n)
			return false;
		for (i = 0; i < a->n; i++)
			if (!mcinit_value_equal(&a->items[i], &b->items[i]))
				return false;
		return true;
	case MCINIT_V_JSON:
		return json_equal(a->j, b->j) != 0;
	case MCINIT_V_NULL:
	default:
		return true;
	}
}
