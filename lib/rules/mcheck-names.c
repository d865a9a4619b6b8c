/*
 * mcheck-names.c — what a name in a Megatron check expression stands for:
 * a value mcinit derives or maps (the specials), a config field of the
 * selected Megatron-LM release, a constant, a calculator parameter or a
 * module function.  Under mchecks.c (which asks whether a row's names all
 * resolve, to know it can be ported) and rules-mcheck.c (which evaluates).
 */
#include "rules/rules-impl.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/mflags.h"
#include "rules/mchecks.h"

/* Sorted bytewise, for bisection (test-rules checks the order).  The
 * cuda-graph names (cuda_graph_impl, inference_cuda_graph_scope,
 * enable_cuda_graph, external_cuda_graph) are the deprecated flags mapped
 * over; rows reading the value as given use cuda_graph_impl_given
 * (data/megatron-checks-port.tsv). */
static const struct {
	const char *name;
	enum mcinit_special s;
} specials[] = {
    {"_is_global_batch_size_explicitly_specified", S_GBS_EXPLICIT},
    {"_num_layers_from_encoder", S_NL_FROM_ENC},
    {"_seq_length_from_encoder", S_SEQ_FROM_ENC},
    {"activation_func", S_ACTIVATION},
    {"apply_rope_fusion", S_ROPE_FUSION},
    {"batch_p2p_comm", S_BATCH_P2P},
    {"bias_activation_fusion", S_BIAS_ACT_FUSION},
    {"cpu_offloading", S_CPU_OFFLOAD},
    {"cuda_graph_impl", S_LOCAL},
    {"data_parallel_size", S_DP},
    {"enable_cuda_graph", S_DELETED},
    {"exp_avg_dtype", S_TORCH_DTYPE},
    {"exp_avg_sq_dtype", S_TORCH_DTYPE},
    {"experimental_attention_variant", S_EXP_ATTN},
    {"expert_gtp_weight_remat_size", S_GTP},
    {"expert_tensor_parallel_size", S_ETP},
    {"external_cuda_graph", S_DELETED},
    {"ffn_hidden_size", S_FFN},
    {"fp4_param", S_FP4_PARAM},
    {"fp8_param", S_FP8_PARAM},
    {"gated_linear_unit", S_GLU},
    {"get_device_arch_version()", S_ARCH},
    {"get_te_version()", S_TE_VERSION},
    {"get_torch_version()", S_TORCH_VERSION},
    {"global_batch_size", S_GBS},
    {"grad_reduce_in_fp32", S_GRAD_FP32},
    {"gtp_weight_remat_size", S_GTP},
    {"inference_cuda_graph_scope", S_LOCAL},
    {"is_hybrid_model", S_HYBRID},
    {"kv_channels", S_KV},
    {"main_grads_dtype", S_TORCH_DTYPE},
    {"main_params_dtype", S_TORCH_DTYPE},
    {"moe_aux_loss_coeff", S_COLLAPSE},
    {"moe_router_load_balancing_type", S_COLLAPSE},
    {"moe_router_padding_for_quantization", S_PAD_QUANT},
    {"num_query_groups", S_NQG},
    {"params_dtype", S_PARAMS_DTYPE},
    {"pipeline_dtype", S_PIPELINE_DTYPE},
    {"position_embedding_type", S_POS_EMB},
    {"rank", S_RANK},
    {"rope_type", S_ROPE_TYPE},
    {"transformer_pipeline_model_parallel_size", S_PP},
    {"use_dist_ckpt", S_USE_DIST_CKPT},
    {"virtual_pipeline_model_parallel_size", S_VPP},
    {"world_size", S_WORLD},
};

enum mcinit_special
mcinit_mcheck_special(const char *name)
{
	size_t n = sizeof specials / sizeof specials[0];
	size_t i = mcinit_lower_bound_str(specials, n, sizeof specials[0],
	                                  offsetof(__typeof__(specials[0]), name), name);

	return i < n && strcmp(specials[i].name, name) == 0 ? specials[i].s : S_NONE;
}

const char *
mcinit_mcheck_special_at(size_t i)
{
	return i < sizeof specials / sizeof specials[0] ? specials[i].name : NULL;
}

/* The Megatron-Bridge section that mirrors the dataclass whose
 * __post_init__ row `id` is in (Bridge's ConfigContainer holds the
 * dataclass itself as that section), or NULL. */
const char *
mcinit_mcheck_row_section(const char *id)
{
	static const char *const map[][2] = {
	    {"megatron/core/transformer/", "model"},
	    {"megatron/core/model_parallel_config.py", "model"},
	    {"megatron/core/distributed/distributed_data_parallel_config.py", "ddp"},
	};
	size_t i;

	for (i = 0; id != NULL && i < sizeof map / sizeof map[0]; i++)
		if (strncmp(id, map[i][0], strlen(map[i][0])) == 0)
			return map[i][1];
	return NULL;
}

/* Each row's section, worked out once: every check run asks for it of
 * each row it evaluates. */
static const char **row_sections;
static pthread_once_t row_sections_once = PTHREAD_ONCE_INIT;

static void
make_row_sections(void)
{
	row_sections = calloc(mcinit_nmchecks, sizeof *row_sections);
	for (size_t i = 0; row_sections != NULL && i < mcinit_nmchecks; i++)
		row_sections[i] = mcinit_mcheck_row_section(mcinit_mchecks[i].id);
}

const char *
mcinit_mcheck_row_section_at(size_t row)
{
	pthread_once(&row_sections_once, make_row_sections);
	return row_sections != NULL ? row_sections[row]
	                            : mcinit_mcheck_row_section(mcinit_mchecks[row].id);
}

/* The config field a Megatron name stands for in `version`: the field set
 * by the flag whose dest it is (an args attribute of that version), else a
 * field of mcinit's own schema of that name (Megatron-Core attribute
 * names, such as num_moe_experts), else, in a dataclass's own row
 * (section not NULL), the Bridge field of that section: a dataclass
 * attribute that no Megatron-LM flag sets (cpu_offloading, num_buckets)
 * is what a Bridge config sets, and its default (the dataclass default)
 * is what Megatron-LM's flags leave it at.  Only the row's own section:
 * the same name can mean another thing in another section.  -1 if none. */
int
mcinit_mcheck_field(const char *name, unsigned version, const char *section)
{
	int f;

	if (mcinit_mflag_by_dest(name, version) != NULL &&
	    (f = mcinit_field_by_dest_column(name)) >= 0)
		return f;
	f = mcinit_field_lookup(NULL, name);
	if (f >= 0 && mcinit_fields[f].origin == MCINIT_FO_SCHEMA)
		return f;
	if (section == NULL)
		return -1;
	f = mcinit_field_lookup(section, name);
	return f >= 0 && mcinit_fields[f].origin == MCINIT_FO_BRIDGE ? f : -1;
}

/* `torch.bfloat16`, `AttnBackend.local`: constants that compare as text. */
bool
mcinit_mcheck_constant(const char *name)
{
	const char *dot = strchr(name, '.');

	if (dot == NULL || strchr(dot + 1, '.') != NULL)
		return false;
	return strncmp(name, "torch.", 6) == 0 || isupper((unsigned char)name[0]);
}

/* The parameters of the micro-batch calculator's functions: bare names
 * that stand for the config values of the same name (rank is 0). */
static const char *const calc_params[] = {"%rank",
                                          "%rampup_batch_size",
                                          "%global_batch_size",
                                          "%micro_batch_size",
                                          "%data_parallel_size",
                                          "%decrease_batch_size_if_needed",
                                          "%step_batch_size_schedule",
                                          "%seq_length",
                                          NULL};

/* Functions transformer_config.py imports and compares activation_func
 * with by identity: they stand for the activation's name (S_ACTIVATION). */
static const char *const module_functions[] = {"%quick_gelu", NULL};

/* Whether name is one of the NULL-terminated list. */
static bool
listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

bool
mcinit_mcheck_module_function(const char *name)
{
	return listed(module_functions, name);
}

bool
mcinit_mcheck_calc_param(const char *name)
{
	return listed(calc_params, name);
}

bool
mcinit_mcheck_name_known(const char *name, const char *id)
{
	if (name[0] == '%')
		return mcinit_mcheck_calc_param(name) || mcinit_mcheck_module_function(name) ||
		       mcinit_mcheck_local_known(name);
	return mcinit_mcheck_special(name) != S_NONE ||
	       mcinit_mcheck_field(name, mcinit_mversion_default(),
	                           mcinit_mcheck_row_section(id)) >= 0 ||
	       mcinit_mcheck_constant(name) || name[0] == '$';
}

static struct mcinit_mcheck_binding
decide(const char *name, unsigned version, const char *section)
{
	struct mcinit_mcheck_binding b = {.kind = MB_NONE, .s = S_NONE, .f = -1};

	if (mcinit_mcheck_module_function(name)) {
		b.kind = MB_FUNCTION;
		return b;
	}
	if (name[0] == '%') {
		if (!mcinit_mcheck_calc_param(name)) {
			b.kind = MB_LOCAL;
			return b;
		}
		b.skip = 1;
		name++;
	}
	if ((b.s = mcinit_mcheck_special(name)) != S_NONE)
		b.kind = MB_SPECIAL;
	else if (name[0] == '$')
		b.kind = MB_ENV;
	else if ((b.f = mcinit_mcheck_field(name, version, section)) >= 0)
		b.kind = MB_FIELD;
	else if (mcinit_mcheck_constant(name))
		b.kind = MB_CONSTANT;
	return b;
}

/* The kept bindings: an open-addressed table whose entries, once
 * published, are never changed or freed, so that a reader needs no lock.
 * The names of every check of every release fit many times over; should
 * a probe run out, the binding is decided again, not kept. */
struct kept {
	struct mcinit_mcheck_binding b;
	unsigned version;
	const char *section; /* compared by identity: row_section's own strings */
	uint64_t hash;
	char name[];
};
#define KEPT_SLOTS  8192
#define KEPT_PROBES 32
static _Atomic(struct kept *) kept[KEPT_SLOTS];

static uint64_t
bind_hash(const char *name, unsigned version, const char *section)
{
	uint64_t h = 1469598103934665603ull ^ version ^ ((uint64_t)(uintptr_t)section << 7);

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h ^ (h >> 29);
}

static bool
kept_is(const struct kept *k, uint64_t h, const char *name, unsigned version, const char *section)
{
	return k->hash == h && k->version == version && k->section == section &&
	       strcmp(k->name, name) == 0;
}

struct mcinit_mcheck_binding
mcinit_mcheck_bind(const char *name, unsigned version, const char *section)
{
	uint64_t h = bind_hash(name, version, section);
	struct kept *mine = NULL;
	size_t i = (size_t)h & (KEPT_SLOTS - 1);
	struct mcinit_mcheck_binding b;

	for (int probe = 0; probe < KEPT_PROBES; probe++, i = (i + 1) & (KEPT_SLOTS - 1)) {
		struct kept *k = atomic_load_explicit(&kept[i], memory_order_acquire);

		if (k == NULL) {
			if (mine == NULL) {
				size_t n = strlen(name) + 1;

				mine = malloc(sizeof *mine + n);
				if (mine == NULL)
					break;
				mine->b = decide(name, version, section);
				mine->version = version;
				mine->section = section;
				mine->hash = h;
				memcpy(mine->name, name, n);
			}
			if (atomic_compare_exchange_strong_explicit(
			        &kept[i], &k, mine, memory_order_acq_rel, memory_order_acquire))
				return mine->b;
			/* another thread filled the slot: k is its entry */
		}
		if (kept_is(k, h, name, version, section)) {
			free(mine);
			return k->b;
		}
	}
	b = mine != NULL ? mine->b : decide(name, version, section);
	free(mine);
	return b;
}
