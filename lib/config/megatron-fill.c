/*
 * megatron-fill.c — the values Megatron-LM's validate_args fills in before
 * it checks that the required ones are set: num_layers from a hybrid layer
 * pattern (core_r0.17 on: the pattern always wins, with a warning when
 * --num-layers disagrees), num_layers from --encoder-num-layers and
 * seq_length from --encoder-seq-length (T5 and BERT style).  Without this,
 * the configurations Megatron's own CI runs for hybrid and T5 models would
 * be reported as missing required fields (MC008).  First, the entry
 * point's args_defaults (pretrain_gpt.py: tokenizer_type GPT2BPETokenizer;
 * gpt_static_inference.py: micro_batch_size 1 ...), which validate_args
 * sets where the parsed value is None and warns about where it is not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* Python's str() of a JSON scalar, as Megatron's format() prints it. */
static void
py_str(json_t *j, char *buf, size_t n)
{
	char *t;

	if (json_is_string(j))
		snprintf(buf, n, "%s", json_string_value(j));
	else if (json_is_boolean(j))
		snprintf(buf, n, "%s", json_is_true(j) ? "True" : "False");
	else if (j == NULL || json_is_null(j))
		snprintf(buf, n, "None");
	else if ((t = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT)) != NULL) {
		snprintf(buf, n, "%s", t);
		free(t);
	} else
		snprintf(buf, n, "?");
}

/* validate_args' "Set input defaults" loop (arguments.py:657 on main). */
static void
fill_entry_defaults(struct mcinit_config *c, struct mcinit_diags *d)
{
	const struct mcinit_loc nowhere = {0};
	const char *key;
	json_t *o, *v;

	if (!c->megatron_argv)
		return;
	o = json_loads(mcinit_mentry_defaults(c->mentry, c->mversion), 0, NULL);
	json_object_foreach(o, key, v)
	{
		enum mcinit_field f;
		json_t *cur;
		char want[128], have[128];

		/* a dest of no field (none today) is not modelled: nothing to check */
		if (mcinit_fields_by_dest(key, &f, 1) != 1 || c->invalid[f])
			continue;
		if (mcinit_cfg_null(c, f)) {
			mcinit_config_set_json(c, f, v, MCINIT_ORIG_REPAIR, &nowhere, d);
			continue;
		}
		cur = mcinit_value_to_json(mcinit_cfg_val(c, f));
		py_str(v, want, sizeof want);
		py_str(cur, have, sizeof have);
		json_decref(cur);
		mcinit_diag_hint(mcinit_diag_add(d, MCINIT_WARNING, "MC250", &c->loc[f],
		                                 "Megatron-LM validate_args "
		                                 "(megatron/training/arguments.py:662): Overriding "
		                                 "default arguments for %s:%s with %s:%s",
		                                 key, want, key, have),
		                 "%s's args_defaults set %s; the value given wins",
		                 mcinit_mentry_name(c->mentry), key);
	}
	json_decref(o);
}

/* get_hybrid_total_layer_count: the main pattern (before the first MTP
 * separator '/') without its pipeline separators '|'. */
static long long
hybrid_layers(const char *pattern)
{
	long long n = 0;

	for (; *pattern && *pattern != '/'; pattern++)
		n += *pattern != '|';
	return n;
}

static void
fill_from(struct mcinit_config *c, enum mcinit_field to, enum mcinit_field from, long long v)
{
	mcinit_cfg_set_int(c, to, v, MCINIT_ORIG_REPAIR, &c->loc[from]);
}

static void
fill_hybrid(struct mcinit_config *c, struct mcinit_diags *d)
{
	enum mcinit_field f = !mcinit_cfg_null(c, MCINIT_F_hybrid_override_pattern)
	                          ? MCINIT_F_hybrid_override_pattern
	                          : MCINIT_F_hybrid_layer_pattern;
	const char *p;
	long long n;

	if (c->mversion < MCINIT_MV_R017 || c->invalid[f] || mcinit_cfg_null(c, f) ||
	    c->val[f].kind != MCINIT_V_STR)
		return;
	p = mcinit_cfg_str(c, f);
	n = hybrid_layers(p);
	if (!mcinit_cfg_null(c, MCINIT_F_num_layers) && !c->invalid[MCINIT_F_num_layers] &&
	    mcinit_cfg_int(c, MCINIT_F_num_layers) != n) {
		struct mcinit_diag *g = mcinit_diag_add(
		    d, MCINIT_WARNING, "MC250", &c->loc[MCINIT_F_num_layers],
		    "Megatron-LM validate_args (megatron/training/arguments.py:792): "
		    "--hybrid-layer-pattern is set; ignoring --num-layers (%lld) and using the "
		    "layer count derived from the pattern (%lld)",
		    mcinit_cfg_int(c, MCINIT_F_num_layers), n);

		mcinit_diag_key(g, "model.num_layers");
		mcinit_diag_hint(g, "drop --num-layers, or make it %lld", n);
	}
	if (n > 0)
		fill_from(c, MCINIT_F_num_layers, f, n);
}

void
mcinit_config_fill_megatron(struct mcinit_config *c, struct mcinit_diags *d)
{
	fill_entry_defaults(c, d);
	fill_hybrid(c, d);
	if (mcinit_cfg_null(c, MCINIT_F_num_layers) &&
	    !mcinit_cfg_null(c, MCINIT_F_encoder_num_layers) &&
	    !c->invalid[MCINIT_F_encoder_num_layers])
		fill_from(c, MCINIT_F_num_layers, MCINIT_F_encoder_num_layers,
		          mcinit_cfg_int(c, MCINIT_F_encoder_num_layers));
	if (mcinit_cfg_null(c, MCINIT_F_seq_length) &&
	    !mcinit_cfg_null(c, MCINIT_F_encoder_seq_length) &&
	    !c->invalid[MCINIT_F_encoder_seq_length])
		fill_from(c, MCINIT_F_seq_length, MCINIT_F_encoder_seq_length,
		          mcinit_cfg_int(c, MCINIT_F_encoder_seq_length));
}
