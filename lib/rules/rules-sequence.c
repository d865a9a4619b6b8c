/*
 * rules-sequence.c — the rules about the sequence: context parallelism, sequence parallelism and
 * the position embeddings. Each rule is its function with its table row beside it; rules.c lists
 * the rows in the order they run.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

static void
seq_hint(struct mcinit_rule_ctx *x, struct mcinit_diag *g, long long seq)
{
	struct mcx_buf b = {0};

	if (!x->dv->seq_multiple_ok)
		return;
	mcinit_diag_hint(g, "nearest valid seq_length: %s (multiples of %lld)",
	                 mcinit_rule_near_values(&b, seq, x->dv->seq_multiple, 0),
	                 x->dv->seq_multiple);
	mcx_buf_free(&b);
}

static void
mc026(struct mcinit_rule_ctx *x)
{
	long long cp = I(context_parallel_size), seq = I(seq_length);

	if (cp <= 1 || seq % (2 * cp) == 0)
		return;
	seq_hint(x,
	         mcinit_rule_report(
	             x, mcinit_rule_written(x, F(seq_length), F(context_parallel_size)),
	             "seq_length %lld is not divisible by 2 x context_parallel_size = %lld", seq,
	             2 * cp),
	         seq);
}

const struct mcinit_rule mcinit_rule_mc026 = {"MC026",
                                              MCINIT_ERROR,
                                              "with CP > 1, seq_length is a multiple of 2 x CP",
                                              "--context-parallel-size 4 --seq-length 8196",
                                              "use one of the suggested sequence lengths",
                                              READS(CP, F(seq_length)),
                                              mc026};

static void
mc027(struct mcinit_rule_ctx *x)
{
	long long cp = I(context_parallel_size), tp = I(tensor_model_parallel_size),
	          seq = I(seq_length);

	if (!B(sequence_parallel) || tp <= 1 || seq % (cp * tp) == 0)
		return;
	if (cp > 1)
		seq_hint(x,
		         mcinit_rule_report(
		             x, mcinit_rule_written(x, F(seq_length), F(sequence_parallel)),
		             "with sequence_parallel, seq_length %lld must be divisible by CP x "
		             "TP = %lld x %lld = %lld (each context-parallel chunk is split "
		             "across the tensor-parallel ranks)",
		             seq, cp, tp, cp * tp),
		         seq);
	else
		seq_hint(x,
		         mcinit_rule_report(
		             x, mcinit_rule_written(x, F(seq_length), F(sequence_parallel)),
		             "with sequence_parallel, seq_length %lld must be divisible by "
		             "tensor_model_parallel_size %lld",
		             seq, tp),
		         seq);
}

const struct mcinit_rule mcinit_rule_mc027 = {
    "MC027",
    MCINIT_ERROR,
    "with sequence parallelism, seq_length is a multiple of TP (of CP x TP with context "
    "parallelism)",
    "--tensor-model-parallel-size 8 --sequence-parallel --seq-length 4100",
    "use one of the suggested sequence lengths",
    READS(F(sequence_parallel), CP, TP, F(seq_length)),
    mc027};

static bool
cp_comm_has(struct mcinit_rule_ctx *x, const char *kind)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(cp_comm_type));
	size_t i;

	if (v->kind == MCINIT_V_STR)
		return strcmp(v->s, kind) == 0;
	for (i = 0; v->kind == MCINIT_V_LIST && i < v->n; i++)
		if (v->items[i].s && strcmp(v->items[i].s, kind) == 0)
			return true;
	return false;
}

static void
mc028(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *h = mcinit_cfg_val(x->c, F(hierarchical_context_parallel_sizes));
	long long cp = I(context_parallel_size), prod = 1;
	struct mcx_buf b = {0};
	size_t i;

	if (h->kind != MCINIT_V_LIST) {
		if (cp_comm_has(x, "a2a+p2p"))
			mcinit_diag_hint(
			    mcinit_rule_report(
			        x, F(cp_comm_type),
			        "cp_comm_type a2a+p2p needs "
			        "hierarchical_context_parallel_sizes, which is not set"),
			    "add --hierarchical-context-parallel-sizes A B with A x B = "
			    "context_parallel_size %lld (A: a2a inside a node)",
			    cp);
		return;
	}
	for (i = 0; i < h->n; i++) {
		mcx_buf_printf(&b, "%s%lld", i ? " x " : "", h->items[i].i);
		prod *= h->items[i].i;
	}
	if (prod != cp)
		mcinit_rule_report(
		    x,
		    mcinit_rule_written(x, F(hierarchical_context_parallel_sizes),
		                        F(context_parallel_size)),
		    "hierarchical_context_parallel_sizes %s = %lld, but context_parallel_size "
		    "is %lld",
		    mcx_buf_cstr(&b), prod, cp);
	mcx_buf_free(&b);
}

const struct mcinit_rule mcinit_rule_mc028 = {
    "MC028",
    MCINIT_ERROR,
    "hierarchical_context_parallel_sizes multiply to CP; cp_comm_type a2a+p2p needs them",
    "--context-parallel-size 8 --hierarchical-context-parallel-sizes 2 2",
    "make the product equal context_parallel_size",
    READS(F(hierarchical_context_parallel_sizes), CP, F(cp_comm_type)),
    mc028};

static void
mc029(struct mcinit_rule_ctx *x)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, F(cp_comm_type));

	/* Megatron-LM turns a one-element list into the plain string;
	 * Megatron-Bridge (ConfigContainer._validate_cp_comm_type) does not. */
	if (I(context_parallel_size) <= 1 || v->kind != MCINIT_V_LIST ||
	    (v->n == 1 && !x->c->bridge) || (long long)v->n == I(num_layers))
		return;
	mcinit_diag_hint(
	    mcinit_rule_report(x, F(cp_comm_type),
	                       "cp_comm_type lists %zu values but there are %lld layers", v->n,
	                       I(num_layers)),
	    "give one value for all layers, or exactly one per layer");
}

const struct mcinit_rule mcinit_rule_mc029 = {
    "MC029",
    MCINIT_ERROR,
    "with CP > 1, a cp_comm_type list has one entry per layer (a one-entry list stands for all "
    "layers, except in a Megatron-Bridge ConfigContainer)",
    "--num-layers 4 --context-parallel-size 2 --cp-comm-type p2p a2a",
    "give one value, or exactly num_layers values",
    READS(F(cp_comm_type), CP, NL),
    mc029};

static void
mc030(struct mcinit_rule_ctx *x)
{
	long long mp, seq = I(seq_length);

	if (NUL(max_position_embeddings))
		return;
	mp = I(max_position_embeddings);
	if (mp >= seq)
		return;
	mcinit_diag_hint(mcinit_rule_report_lm(
	                     x, mcinit_rule_written(x, F(max_position_embeddings), F(seq_length)),
	                     "max_position_embeddings %lld is smaller than seq_length %lld", mp,
	                     seq),
	                 "set max_position_embeddings to at least %lld", seq);
}

const struct mcinit_rule mcinit_rule_mc030 = {
    "MC030",
    MCINIT_ERROR,
    "max_position_embeddings >= seq_length (Megatron-LM's validate_args; a warning for a "
    "Megatron-Bridge ConfigContainer)",
    "--seq-length 8192 --max-position-embeddings 4096",
    "raise max_position_embeddings to at least seq_length",
    READS(F(max_position_embeddings), F(seq_length)),
    mc030};
