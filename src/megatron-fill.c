/*
 * megatron-fill.c — the values Megatron-LM's validate_args fills in before
 * it checks that the required ones are set: num_layers from a hybrid layer
 * pattern (core_r0.17 on: the pattern always wins, with a warning when
 * --num-layers disagrees), num_layers from --encoder-num-layers and
 * seq_length from --encoder-seq-length (T5 and BERT style).  Without this,
 * the configurations Megatron's own CI runs for hybrid and T5 models would
 * be reported as missing required fields (MC008).
 */
#include <string.h>

#include "config.h"

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
