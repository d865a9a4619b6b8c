/*
 * rules.h — cross-field checking: repairs, derived values and the rule
 * table (rules.md).  Each rule is one function listed in mcinit_rules[] with
 * its code, the fields it reads, a one-line doc, an example and its fix; that
 * table (with mcinit_repairs[] and mcinit_notes[]) is also the source of the
 * rule documentation in mcinit-config(5), rendered by mcinit_rules_doc().
 *
 * Order of work in mcinit_check(): repairs R1-R6 and R8 (each reported as a
 * note MC101-MC108 when it changes a value — never silently), then the derived
 * values D1-D12 (R7 needs the virtual pipeline size, so it runs after D2),
 * then every rule of the table.  A rule whose read fields were rejected by a
 * loader (config->invalid[]) is skipped; a rule that needs a derived value
 * checks its *_ok flag, so one mistake is reported once.
 *
 * Ownership: nothing here allocates memory that outlives a call; struct
 * mcinit_derived holds no pointers except world_size_source (static text, or
 * the config's launch_source) and world_size_loc.source (owned by the config).  No destroy is
 * needed.
 */
#ifndef MCINIT_RULES_H
#define MCINIT_RULES_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "config/config.h"
#include "core/diag.h"

/* What the caller knows beyond the config: mcinit's own options and, for
 * `run`, what it found on the machine.  Zero-initialised means "not given". */
struct mcinit_check_opts {
	long long world_size; /* --world-size, 0 = not given */
	/* where world_size came from (NULL: --world-size): mcinit run's
	 * launcher environment */
	const char *world_size_source;
	long long nnodes;         /* --nnodes, 0 = not given */
	long long nproc_per_node; /* --nproc-per-node, 0 = not given */
	bool bridge_defaults;     /* --bridge-defaults: Megatron-Bridge's ETP default (R3) */
	char *const *envp;        /* environment to read (NULL: the process's) */
	/* Filled by `run` after probing the GPU; validate leaves them zero. */
	bool cuda_probed;   /* cuda_devices is meaningful */
	int cuda_devices;   /* CUDA devices visible to this process */
	int gpu_arch;       /* compute capability x10 of the local GPU, 0 = unknown */
	bool run_mode;      /* MC045 is an error (not a warning) ... */
	bool allow_no_cuda; /* ... unless --allow-no-cuda */
	/* --memory-model: none, Megatron-LM's own estimate (memory.c),
	 * Megatron-Bridge's (memory-bridge.c) or mcinit's own
	 * (memory-params.c: so far the parameters per rank); --gpu-memory:
	 * the GPU's bytes, 0 = unknown (MC063 then says nothing; given
	 * without a model, the estimate of the config's kind is used:
	 * Bridge's for a ConfigContainer, else Megatron's) */
	enum mcinit_memory_model {
		MCINIT_MEM_NONE,
		MCINIT_MEM_MEGATRON,
		MCINIT_MEM_BRIDGE,
		MCINIT_MEM_MCINIT,
	} memory_model;
	long long gpu_memory;
};

/* Most (pipeline stage x virtual stage) chunks whose layer counts are kept. */
#define MCINIT_MAX_CHUNKS 1024

/* The kinds a rank's parameters are counted by (memory-params.c). */
enum mcinit_param_kind {
	MCINIT_PK_EMBEDDING, /* word and learned position embeddings */
	MCINIT_PK_ATTENTION, /* attention projections and their biases */
	MCINIT_PK_MLP,       /* dense MLP; in MoE layers the router and shared experts */
	MCINIT_PK_EXPERTS,   /* the routed experts this rank holds */
	MCINIT_PK_NORMS,     /* layer norms (input, pre-MLP, q/k, final) */
	MCINIT_PK_OUTPUT,    /* the output layer (untied, or the tied copy past stage 0) */
	MCINIT_PK_MTP,       /* multi-token prediction layers, whole */
	MCINIT_PK_COUNT
};

/* The named terms of the activations a forward pass saves for backward,
 * per micro-batch (memory-act.c). */
enum mcinit_act_term {
	MCINIT_AT_EMBEDDING, /* token and position ids, the vocabulary mask (TP > 1) */
	MCINIT_AT_NORMS,     /* what the layer norms keep (input, statistics) */
	MCINIT_AT_ATTENTION, /* q/k/v, rotary tables, scores, probabilities, mask, proj input */
	MCINIT_AT_MLP,       /* fc1 input, activation input and output, fc2 input */
	MCINIT_AT_DROPOUT,   /* the dropout masks of embedding and residual adds */
	MCINIT_AT_RECOMPUTE, /* the inputs full recompute keeps of each checkpoint */
	MCINIT_AT_LOGITS,    /* the output layer's input and the loss's fp32 softmax */
	MCINIT_AT_MTP,       /* the MTP layers, their logits and losses (last stage) */
	MCINIT_AT_COUNT
};

/* Most distinct kinds of rank whose parameters are kept. */
#define MCINIT_MAX_RANK_KINDS 32

/* The parameters of one kind of rank: every rank of the pipeline stages
 * whose rank_kind is its index (all TP, CP, DP, EP ranks of a stage hold the
 * same counts).  dense: replicated over DP; expert: over expert DP. */
struct mcinit_rank_params {
	long long by_kind[MCINIT_PK_COUNT];
	/* expert: what Megatron-Core reduces over expert DP (the routed
	 * experts when EP > 1 or ETP != TP), dense the rest */
	long long total, dense, expert;
	/* the weights of the linear layers (attention, MLP, experts, MTP's
	 * projection): what fp8/fp4 training keeps low-precision copies of */
	long long linear;
	long long first_stage; /* its lowest stage: dv->layers of that stage */
	long long nstages;
};

/* The activations of one kind of rank per micro-batch, in bytes: the
 * pipeline stages whose act_kind is its index. */
struct mcinit_rank_act {
	long long by_term[MCINIT_AT_COUNT];
	long long total;
	/* the high end: total, or the local spec's figure when the spec is
	 * not certain (struct mcinit_memory act_spec_range), or with
	 * act_te_norms the same spec with torch's norms */
	long long total_hi;
	long long first_stage, nstages;
};

/* The named terms of a rank's peak (memory-peak.c): what it holds for the
 * whole step, then what the allocator and the libraries add around it.
 * Exact terms have low == high; the overheads are modelled ranges. */
enum mcinit_peak_term {
	MCINIT_PT_PARAMS,        /* the parameters, by dtype */
	MCINIT_PT_GRADS,         /* DDP's main-grad buffer */
	MCINIT_PT_OPTIMIZER,     /* main parameters and states, dense and expert shards */
	MCINIT_PT_LOWP,          /* fp8/fp4 weight copies and their transposes */
	MCINIT_PT_ACTIVATIONS,   /* activations x micro-batches in flight */
	MCINIT_PT_CONTEXT,       /* the CUDA context and its modules */
	MCINIT_PT_NCCL,          /* NCCL's buffers, per communicator */
	MCINIT_PT_USERBUFFERS,   /* tp-comm-overlap's userbuffers */
	MCINIT_PT_GRAPHS,        /* CUDA graphs' private pools */
	MCINIT_PT_FRAGMENTATION, /* the caching allocator's reserved, not allocated */
	MCINIT_PT_COUNT
};

/* One kind of rank's peak: the pipeline stages whose stage_peak is its
 * index.  lo/hi: each term's bytes; total_lo/total_hi their sums (the
 * terms not counted left out). */
struct mcinit_rank_peak {
	double lo[MCINIT_PT_COUNT], hi[MCINIT_PT_COUNT];
	double total_lo, total_hi;
	/* of total_lo, what is certain before the activations: the
	 * parameters, gradients, optimizer state and fp8/fp4 copies (exact)
	 * and the overheads at their least; MC063's error judges it */
	double total_certain;
	double params_lowp;           /* of the parameters' bytes, those of fp8 weights */
	double opt_dense, opt_expert; /* the optimizer's dense and expert shards */
	double logits;                /* of the activations, the logits and the loss */
	long long in_flight;          /* micro-batches (model chunks) in flight */
	long long first_stage, nstages;
};

/* Memory per GPU of the most loaded rank, in bytes, as the model named
 * estimates it (memory.c).  ok: estimated; else why (static) says why
 * not, or is NULL when no estimate was asked for. */
struct mcinit_memory {
	double weights_and_optimizer, activations, total;
	const char *model;
	bool ok;
	const char *why;
	/* bridge (memory-bridge.c): estimate_training_memory's components,
	 * dense (with the embeddings) and routed experts (experts: whether
	 * Bridge lists that component), each as its MemoryComponentEstimate:
	 * the global parameter count, the count on the most loaded shard, the
	 * bytes per parameter and the bytes; the model's parameters; the
	 * assumptions Bridge states, one bit each (MCINIT_MEM_A_*). */
	struct mcinit_memory_component {
		double params, params_per_gpu, bytes_per_param, bytes;
	} dense, expert;
	bool experts;
	double total_params;
	unsigned assumptions;
	/* --memory-model mcinit (memory-params.c): the exact parameters of each
	 * distinct kind of rank, as Megatron-Core allocates them; params_ok,
	 * else params_why (static) says why not */
	bool params_ok;
	const char *params_why;
	const char *params_dtype; /* "bf16", "fp16" or "fp32": every parameter's */
	size_t nkinds;
	struct mcinit_rank_params kinds[MCINIT_MAX_RANK_KINDS];
	short stage_kind[MCINIT_MAX_CHUNKS]; /* each pipeline stage's index in kinds */
	/* --memory-model mcinit (memory-act.c): the bytes a forward pass of one
	 * micro-batch saves for backward on each distinct kind of rank;
	 * act_ok, else act_why (static) says why not */
	bool act_ok;
	const char *act_why;
	const char *act_recompute; /* "none", "selective", "full uniform", "full block" */
	/* the layer spec by_term describes: "transformer_engine" (fused or
	 * flash attention) or "local" (unfused, as measured); act_spec_range
	 * (static): why the spec is not certain, the high end (total_hi) then
	 * the local spec's figure, else NULL */
	const char *act_spec;
	const char *act_spec_range;
	/* by_term and total count the norms as Transformer Engine's fused
	 * modules save them, total_hi as torch's (memory-act.c norm()) */
	bool act_te_norms;
	size_t nact;
	struct mcinit_rank_act act[MCINIT_MAX_RANK_KINDS];
	short stage_act[MCINIT_MAX_CHUNKS]; /* each pipeline stage's index in act */
	/* the micro-batches (with a virtual pipeline: model chunks, each
	 * counted as 1/vp of the stage's bytes) whose activations a stage
	 * holds at once under the schedule; 0 when unknown */
	long long in_flight[MCINIT_MAX_CHUNKS];
	/* --memory-model mcinit (memory-peak.c): each distinct kind of rank's
	 * peak; peak_ok, else peak_why (static) says why not.  not_counted[t]
	 * (static): why term t is left out of the sums, NULL when counted;
	 * complete: every term counted (MC063 judges only then) */
	bool peak_ok, complete;
	const char *peak_why;
	const char *not_counted[MCINIT_PT_COUNT];
	const char *grad_dtype;     /* the main grads' dtype: "fp32", "bf16", "fp16" */
	const char *optimizer;      /* "adam", "sgd", ... */
	long long shard_dense;      /* the optimizer's dense shards: DP x CP (1: not sharded) */
	long long shard_expert;     /* its expert shards: expert DP */
	double opt_bytes_per_param; /* main parameters and states, before sharding */
	double offload;             /* the share of the optimizer on the CPU */
	unsigned comms;             /* NCCL communicators of more than one rank, a bit each */
	double nccl_lo, nccl_hi;    /* per communicator */
	double frag_share;          /* fragmentation's high end, a share of the allocated */
	size_t npeak;
	struct mcinit_rank_peak peak[MCINIT_MAX_RANK_KINDS];
	short stage_peak[MCINIT_MAX_CHUNKS]; /* each pipeline stage's index in peak */
	size_t worst;                        /* the kind whose total_hi is largest */
};

/* The NCCL communicators memory-peak.c counts (struct mcinit_memory comms). */
enum {
	MCINIT_COMM_TP,
	MCINIT_COMM_CP,
	MCINIT_COMM_DP,
	MCINIT_COMM_PP,
	MCINIT_COMM_EP,
	MCINIT_COMM_EDP,
	MCINIT_COMM_EMBEDDING,
	MCINIT_COMM_COUNT
};

/* Bridge's assumption lines (memory-bridge.c mcinit_memory_assumption). */
enum {
	MCINIT_MEM_A_SHARD = 1u << 0,
	MCINIT_MEM_A_ADAM = 1u << 1,
	MCINIT_MEM_A_EMBEDDING = 1u << 2,
	MCINIT_MEM_A_EXPERTS = 1u << 3,
	MCINIT_MEM_A_CP = 1u << 4,
	MCINIT_MEM_A_ACTIVATION = 1u << 5,
	MCINIT_MEM_A_COUNT = 6,
};
/* The text of assumption bit i (0 .. MCINIT_MEM_A_COUNT-1), as Bridge
 * words it. */
const char *mcinit_memory_assumption(int i);

/* Values Megatron derives (rules.md D1-D12).  A value is meaningful only
 * when its *_ok flag is set: a derived value whose inputs are invalid is not
 * computed, so rules that need it are skipped rather than cascading. */
struct mcinit_derived {
	/* D12 */
	long long world_size;
	const char *world_size_source; /* "--world-size", "WORLD_SIZE", ..., "default" */
	struct mcinit_loc world_size_loc;
	bool world_ok;
	/* D1 */
	long long dp; /* data_parallel_size */
	bool dp_ok;
	/* R3 */
	long long etp; /* expert_tensor_parallel_size after repair R3 */
	bool etp_ok;
	/* D3 */
	long long edp; /* expert_data_parallel_size */
	bool edp_ok;
	/* gtp_weight_remat_size and its expert twin (r0.19+): the weight shards
	 * over TP (ETP); 1 before r0.19 and when the shards are not set.  They
	 * count toward the model size, so DP and EDP are the replicate degrees. */
	long long gtp, egtp;
	/* D2: 0 = no virtual pipeline (Megatron's None; 1 is folded into it) */
	long long vpp;
	const char *vpp_source; /* the field it came from, NULL when none */
	bool vpp_ok;
	/* D4 */
	long long ffn_hidden_size;
	bool ffn_ok;
	long long moe_ffn_hidden_size; /* ffn_hidden_size when null and MoE is on */
	bool moe_ffn_ok;
	/* D5 */
	long long kv_channels;
	bool kv_ok;
	/* D6, D7 (running_gbs: after decrease_batch_size_if_needed) */
	long long gbs, running_gbs;
	bool gbs_ok;
	long long num_micro_batches;
	bool nmb_ok;
	/* D8: layers[pp * chunks_per_stage + vstage] transformer layers; the
	 * embedding, loss and MTP layers of a layout are not counted. */
	long long pp;               /* pipeline stages */
	long long chunks_per_stage; /* max(1, vpp) */
	int layers[MCINIT_MAX_CHUNKS];
	bool layers_ok;
	/* D9 */
	long long seq_multiple;
	bool seq_multiple_ok;
	/* D10, for rank 0 and the largest base seed of any rank */
	long long seed, seed_model_parallel, seed_expert_parallel, seed_max;
	bool seeds_ok;
	/* D11 */
	long long train_iters;
	bool train_iters_ok;
	/* after repair R1 */
	bool sequence_parallel;
	bool sp_ok;
	/* MC049: the vocabulary padded, and the one it pads (model.vocab_size;
	 * for a Megatron-Bridge ConfigContainer, Bridge's setup takes
	 * tokenizer.vocab_size instead when use_tokenizer_vocab_size is set or
	 * model.vocab_size is not, and pads only that one) */
	long long padded_vocab_size;
	long long vocab_size;
	bool vocab_from_tokenizer;
	bool vocab_ok;
	/* issue 42: with --memory-model or --gpu-memory */
	struct mcinit_memory mem;
};

struct mcinit_rule_ctx;

struct mcinit_rule {
	const char *code;
	enum mcinit_severity sev;
	const char *doc;                /* one line: what must hold */
	const char *example;            /* a violating input */
	const char *fix;                /* how to fix it */
	const enum mcinit_field *reads; /* terminated by MCINIT_F_COUNT */
	void (*check)(struct mcinit_rule_ctx *x);
};

/* Every rule, in the order it runs (rules.c); each row is beside its
 * function in a rules-*.c file. */
extern const struct mcinit_rule *const mcinit_rules[];
extern const size_t mcinit_nrules;

/* Diagnostics that are not rules: repairs (MC101-MC108) and the notes about
 * derived values (MC109-MC112), documented alongside the rules. */
extern const struct mcinit_code_doc mcinit_repairs[];
extern const size_t mcinit_nrepairs;

/* The rule with this code, or NULL. */
const struct mcinit_rule *mcinit_rule_find(const char *code);

/* Repairs, derived values, then every rule; all findings go to d.  c is
 * modified by the repairs (origin MCINIT_ORIG_REPAIR).  Returns 0; -1 only
 * on internal failure (err). */
int mcinit_check(struct mcinit_config *c, const struct mcinit_check_opts *o,
                 struct mcinit_derived *dv, struct mcinit_diags *d, struct mcinit_err *err);

/* The derived values as a new JSON object with Megatron's attribute names
 * (caller owns the reference).  Values that could not be derived are null. */
json_t *mcinit_derived_to_json(const struct mcinit_derived *dv);
/* --memory-model mcinit: derived.memory.peak as a new JSON object (caller
 * owns it), for `mcinit topology`; NULL when there is no peak. */
json_t *mcinit_derived_peak_json(const struct mcinit_derived *dv);
/* A short aligned table. */
void mcinit_derived_print(const struct mcinit_derived *dv, FILE *out);
/* The rows of derived.def, for documentation: the i-th value's JSON name
 * (static) and its one-line help in *help; NULL past the last. */
size_t mcinit_derived_count(void);
const char *mcinit_derived_doc(size_t i, const char **help);

/* Swiglu-aware default MLP size, exactly as Megatron-LM's validate_args:
 * int((4*h*2/3)/64)*64 with swiglu, else 4*h. */
long long mcinit_default_ffn_hidden_size(long long hidden, bool swiglu);
/* Megatron's vocabulary padding: the next multiple of divisible_by * tp. */
long long mcinit_padded_vocab_size(long long vocab, long long divisible_by, long long tp);

/* Parses a pipeline_model_parallel_layout string the way Megatron-Core's
 * PipelineParallelLayerLayout.parse_str_to_list does (commas dropped, `(..)*n`
 * then `x*n` unrolled, split at `|`).  On success returns the number of
 * stages and, when t_counts is not NULL, stores each stage's count of `t`
 * (transformer layers) in t_counts[0 .. min(stages, max)-1].  Returns -1 with
 * a message in why (caller frees) for a character other than E L t m, or
 * when the unrolled layout would exceed 1 MiB. */
long mcinit_layout_parse(const char *layout, int *t_counts, size_t max, char **why);

#endif
