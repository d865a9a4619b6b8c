/*
 * rules-launch.c — the rules about the node and the launch: CUDA_DEVICE_MAX_CONNECTIONS, the CUDA
 * device, tensor-parallel groups inside a node, the world against the launcher, lazy MPU
 * initialization. Each rule is its function with its table row beside it; rules.c lists the rows in
 * the order they run.
 */
#include "rules/rules-table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/mflags.h"
#include "topo/topology.h"

/* The GPU architecture (x10): the probed device, else launch.gpu_arch. */
static int
gpu_arch(struct mcinit_rule_ctx *x)
{
	if (x->o->gpu_arch > 0)
		return x->o->gpu_arch;
	if (!BAD(gpu_arch) && !NUL(gpu_arch))
		return (int)I(gpu_arch);
	return 0;
}

static void
mc044(struct mcinit_rule_ctx *x)
{
	bool fsdp = B(use_torch_fsdp2) || B(use_megatron_fsdp), from_cfg, set;
	long long tp = I(tensor_model_parallel_size), cp = I(context_parallel_size);
	int arch = gpu_arch(x);
	char val[64];
	struct mcinit_diag *g;

	set = mcinit_rule_job_env(x, "CUDA_DEVICE_MAX_CONNECTIONS", val, sizeof val, &from_cfg);
	if (fsdp) {
		if (set && strcmp(val, "1") == 0)
			mcinit_diag_hint(
			    mcinit_rule_report_loc(
			        x, from_cfg ? &x->c->env_vars_loc : &mcinit_rules_env_loc,
			        "%s needs CUDA_DEVICE_MAX_CONNECTIONS > 1, but "
			        "it is 1%s",
			        B(use_torch_fsdp2) ? "use_torch_fsdp2" : "use_megatron_fsdp",
			        from_cfg ? " (env_vars)" : " in the environment"),
			    "unset CUDA_DEVICE_MAX_CONNECTIONS or set it to e.g. 32");
		return;
	}
	/* Megatron only warns when overlap_moe_expert_parallel_comm wants a larger
	 * CUDA_DEVICE_MAX_CONNECTIONS (validate_args; MC250 quotes the warning). */
	if ((tp <= 1 && cp <= 1) || arch >= 100 || (set && strcmp(val, "1") == 0) ||
	    B(overlap_moe_expert_parallel_comm))
		return;
	if (arch == 0) {
		g = mcinit_rule_report_sev(
		    x, MCINIT_WARNING,
		    mcinit_rule_written(x, F(tensor_model_parallel_size), F(context_parallel_size)),
		    "TP = %lld, CP = %lld: on GPUs older than Blackwell Megatron requires "
		    "CUDA_DEVICE_MAX_CONNECTIONS=1, which is %s (GPU architecture "
		    "unknown)",
		    tp, cp, set ? val : "not set");
		mcinit_diag_hint(g, "set env_vars.CUDA_DEVICE_MAX_CONNECTIONS=\"1\", or "
		                    "launch.gpu_arch (e.g. 90 for Hopper, 100 for Blackwell)");
		return;
	}
	g = mcinit_rule_report(
	    x, mcinit_rule_written(x, F(tensor_model_parallel_size), F(context_parallel_size)),
	    "TP = %lld, CP = %lld on GPU architecture %d (< 100): Megatron requires "
	    "CUDA_DEVICE_MAX_CONNECTIONS=1, which is %s",
	    tp, cp, arch, set ? val : "not set");
	mcinit_diag_hint(g, "export CUDA_DEVICE_MAX_CONNECTIONS=1, or set "
	                    "env_vars.CUDA_DEVICE_MAX_CONNECTIONS=\"1\" in the config");
}

const struct mcinit_rule mcinit_rule_mc044 = {
    "MC044",
    MCINIT_ERROR,
    "TP > 1 or CP > 1 on GPUs before Blackwell (arch < 100) without FSDP needs "
    "CUDA_DEVICE_MAX_CONNECTIONS=1 (a warning when the arch is unknown); FSDP needs it "
    "unset or > 1",
    "launch.gpu_arch=90 -- --tensor-model-parallel-size 2",
    "export CUDA_DEVICE_MAX_CONNECTIONS=1 or set it in env_vars",
    READS(TP, CP, F(use_torch_fsdp2), F(use_megatron_fsdp), F(overlap_moe_expert_parallel_comm)),
    mc044};

/* validate runs where there may be no GPU at all, so without a probe it
 * only speaks up when the environment hides every device. */
static void
mc045(struct mcinit_rule_ctx *x)
{
	const char *be = mcinit_cfg_str(x->c, F(distributed_backend));
	const char *vis = mcinit_rules_env_get(x->o, "CUDA_VISIBLE_DEVICES");
	bool none;

	if (be == NULL || strcmp(be, "nccl") != 0)
		return;
	if (x->o->cuda_probed)
		none = x->o->cuda_devices <= 0;
	else
		none = vis != NULL && (*vis == '\0' || strcmp(vis, "-1") == 0 ||
		                       strcasecmp(vis, "NoDevFiles") == 0);
	if (!none)
		return;
	mcinit_diag_hint(
	    mcinit_rule_report_sev(
	        x, x->o->run_mode && !x->o->allow_no_cuda ? MCINIT_ERROR : MCINIT_WARNING,
	        F(distributed_backend), "distributed_backend nccl needs a CUDA device, but %s",
	        x->o->cuda_probed ? "none is present" : "CUDA_VISIBLE_DEVICES hides every device"),
	    "run on a GPU node, use --distributed-backend gloo for a CPU-only test, "
	    "or pass --allow-no-cuda to `mcinit run`");
}

const struct mcinit_rule mcinit_rule_mc045 = {
    "MC045",
    MCINIT_WARNING,
    "distributed_backend nccl needs a CUDA device (an error for mcinit run without "
    "--allow-no-cuda)",
    "CUDA_VISIBLE_DEVICES= mcinit validate job.json",
    "run on a GPU node, or use the gloo backend for CPU-only tests",
    READS(F(distributed_backend)),
    mc045};

static long long
launch_value(struct mcinit_rule_ctx *x, long long opt, enum mcinit_field f)
{
	if (opt > 0)
		return opt;
	if (!x->c->invalid[f] && !mcinit_cfg_null(x->c, f))
		return mcinit_cfg_int(x->c, f);
	return 0;
}

static void
human_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void
mc046(struct mcinit_rule_ctx *x)
{
	long long np = launch_value(x, x->o->nproc_per_node, F(nproc_per_node)),
	          tp = I(tensor_model_parallel_size), w = x->dv->world_size, k, span = 0, groups;
	struct mcinit_diag *g;

	if (np <= 0 || !x->dv->world_ok || tp <= 1 || w % tp != 0)
		return;
	/* TP is the fastest dimension in both rank orders: group k is ranks
	 * [k*TP, (k+1)*TP), and a node holds ranks [n*np, (n+1)*np). */
	groups = w / tp;
	for (k = 0; k < groups && k < (1LL << 22); k++)
		span += (k * tp) / np != (k * tp + tp - 1) / np;
	if (span == 0)
		return;
	if (!INVALID(x->c, F(hidden_size), F(seq_length), F(micro_batch_size)) &&
	    !NUL(hidden_size) && !NUL(seq_length) && !NUL(micro_batch_size)) {
		long long cp = I(context_parallel_size), s = I(seq_length) / cp,
		          bytes = B(bf16) || B(fp16) ? 2 : 4;
		double per = 2.0 * (double)(tp - 1) / (double)tp * (double)s *
		             (double)I(micro_batch_size) * (double)I(hidden_size) * (double)bytes;
		char a[32], b[32];

		human_bytes(a, sizeof a, per);
		human_bytes(b, sizeof b, 4 * per);
		g = mcinit_rule_report(
		    x, mcinit_rule_written(x, F(tensor_model_parallel_size), F(nproc_per_node)),
		    "%lld of %lld tensor-parallel groups span nodes (TP = %lld, %lld "
		    "processes per node): each tensor-parallel all-reduce sends 2 x "
		    "(TP-1)/TP x s x b x h x %lld bytes = %s per rank over the network (s = "
		    "%lld%s, b = %lld, h = %lld), about %s per layer (2 forward, 2 backward)",
		    span, groups, tp, np, bytes, a, s, cp > 1 ? " = seq_length/CP" : "",
		    I(micro_batch_size), I(hidden_size), b);
	} else {
		g = mcinit_rule_report(
		    x, mcinit_rule_written(x, F(tensor_model_parallel_size), F(nproc_per_node)),
		    "%lld of %lld tensor-parallel groups span nodes (TP = %lld, %lld "
		    "processes per node): tensor-parallel traffic crosses the network",
		    span, groups, tp, np);
	}
	mcinit_diag_hint(g, "keep TP <= %lld and a divisor of it", np);
}

const struct mcinit_rule mcinit_rule_mc046 = {
    "MC046",
    MCINIT_WARNING,
    "tensor-parallel groups stay inside a node (TP <= nproc_per_node and divides it)",
    "--nproc-per-node 8 -- --tensor-model-parallel-size 16",
    "keep TP within a node",
    READS(TP, CP, F(bf16), F(fp16)),
    mc046};

static void
mc047(struct mcinit_rule_ctx *x)
{
	struct mcinit_derived *dv = x->dv;
	long long nn = launch_value(x, x->o->nnodes, F(nnodes)),
	          np = launch_value(x, x->o->nproc_per_node, F(nproc_per_node)), prod;

	if (nn <= 0 || np <= 0 || __builtin_mul_overflow(nn, np, &prod) || !dv->world_ok ||
	    dv->world_size == prod || strcmp(dv->world_size_source, "default") == 0)
		return;
	mcinit_diag_hint(mcinit_rule_report_loc(x, &dv->world_size_loc,
	                                        "world size %lld (from %s) differs from nnodes x "
	                                        "nproc_per_node = %lld x %lld = %lld",
	                                        dv->world_size, dv->world_size_source, nn, np,
	                                        prod),
	                 "make them agree; a launcher starts nnodes x nproc_per_node processes");
}

const struct mcinit_rule mcinit_rule_mc047 = {
    "MC047",
    MCINIT_WARNING,
    "the world size equals nnodes x nproc_per_node when both are known",
    "--world-size 16 --nnodes 1 --nproc-per-node 8",
    "make them agree",
    READS(F(world_size)),
    mc047};

static void
mc048(struct mcinit_rule_ctx *x)
{
	if (!B(lazy_mpu_init))
		return;
	mcinit_rule_report(x, F(lazy_mpu_init),
	                   "lazy_mpu_init: until the model-parallel groups exist Megatron sets the "
	                   "tensor-parallel rank from the global rank, and the lazy path does not "
	                   "initialise tensor-parallel communication overlap%s",
	                   B(tp_comm_overlap) ? " (tp_comm_overlap is set and will not take effect)"
	                                      : "");
}

const struct mcinit_rule mcinit_rule_mc048 = {
    "MC048",
    MCINIT_NOTE,
    "lazy_mpu_init: the TP rank comes from the global rank until groups exist; TP comm "
    "overlap is not initialised on the lazy path",
    "--lazy-mpu-init",
    "none needed; be aware of the quirk",
    READS(F(lazy_mpu_init), F(tp_comm_overlap)),
    mc048};
