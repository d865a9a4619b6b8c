#!/bin/sh
# params.sh — mcinit's own memory model, its first term (issue 42): the
# parameters of each kind of rank under --memory-model mcinit, equal on
# every stage to what Megatron-Core 0.19.2 allocated when
# tests/oracle/params-diff.py built the same flags on the CPU (TP, PP,
# virtual PP, uneven stages, layouts, EP, ETP; dense, GQA, MLA, MoE, MTP),
# as recorded in tests/memory/params-core.tsv; the same for Megatron-Bridge
# 0.6.2's ConfigContainers against the model Bridge's own provider built
# (tests/memory/params-bridge.tsv); and what is not counted says why
# instead of giving a number.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
rows="$srcdir/tests/memory/params-core.tsv"

# same JSON DTYPE STAGES: derived.memory.parameters gives, for every stage
# listed (STAGE:total:embedding:...:expert), that stage's kind's figures
same() {
	python3 -c '
import json, sys
keys = ["total", "embedding", "attention", "mlp", "experts", "norms", "output", "mtp", "expert"]
par = (json.load(open(sys.argv[1]))["derived"].get("memory") or {}).get("parameters")
if not par:
    sys.exit("no parameters: %s" % open(sys.argv[1]).read()[-400:])
if par["dtype"] != sys.argv[2]:
    sys.exit("dtype %s, Megatron-Core %s" % (par["dtype"], sys.argv[2]))
got = {}
for r in par["ranks"]:
    for s in r["stages"]:
        got[s] = [r[k] for k in keys]
        if r["by_dtype"] != {par["dtype"]: r["total"]} or r["dense"] + r["expert"] != r["total"]:
            sys.exit("stage %d: dtype or dense/expert split does not add up: %s" % (s, r))
bad = []
for st in sys.argv[3].split():
    f = [int(x) for x in st.split(":")]
    if got.get(f[0]) != f[1:]:
        bad.append("stage %d: mcinit %s, Megatron-Core %s" % (f[0], got.get(f[0]), f[1:]))
if len(got) != len(sys.argv[3].split()):
    bad.append("stages: mcinit %s" % sorted(got))
sys.exit("; ".join(bad) if bad else 0)' "$@"
}

grep -v '^#' "$rows" | tail -n +2 >"$tmp/rows"
check rows-listed test "$(wc -l <"$tmp/rows")" -ge 100
while IFS="$(printf '\t')" read -r case world dtype flags stages; do
	# shellcheck disable=SC2086 # the flags are words
	$M validate --world-size "$world" --memory-model mcinit --format json -- $flags \
		>"$tmp/p.json" 2>/dev/null
	check "core-case-$case" same "$tmp/p.json" "$dtype" "$stages"
done <"$tmp/rows"

# Megatron-Bridge 0.6.2's ConfigContainers: a recipe dump with overrides,
# equal on every stage to what Bridge's own provider built on the CPU
# (tests/oracle/bridge/params_diff.py, tests/memory/params-bridge.tsv).
grep -v '^#' "$srcdir/tests/memory/params-bridge.tsv" | tail -n +2 >"$tmp/brows"
check bridge-rows-listed test "$(wc -l <"$tmp/brows")" -ge 30
while IFS="$(printf '\t')" read -r case world dtype base words stages; do
	# shellcheck disable=SC2086 # the overrides are words
	HOME=/nonexistent $M validate "$srcdir/tests/bridge/0.6.2/$base" --world-size "$world" \
		--memory-model mcinit --format json $words >"$tmp/p.json" 2>/dev/null
	check "bridge-case-$case" same "$tmp/p.json" "$dtype" "$stages"
done <"$tmp/brows"

# The text block: one line per kind of rank (stages 1-2 alike here).
MOE="--num-layers 8 --hidden-size 64 --num-attention-heads 4 --seq-length 32 \
--max-position-embeddings 64 --micro-batch-size 1 --global-batch-size 8 --train-iters 10 \
--vocab-size 250 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 --bf16 \
--swiglu --disable-bias-linear --normalization RMSNorm --num-experts 4 \
--expert-model-parallel-size 2 --moe-ffn-hidden-size 32 --moe-shared-expert-intermediate-size 32 \
--mtp-num-layers 1 --position-embedding-type rope"
# shellcheck disable=SC2086
golden params-text 0 $M validate --world-size 16 --memory-model mcinit -- $MOE

GPT="--num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 32 \
--max-position-embeddings 64 --micro-batch-size 1 --global-batch-size 8 --train-iters 10 \
--vocab-size 250"
# A layer pattern written as Megatron-LM's list expression counts as the
# list it makes.
PAT="--num-experts 4 --disable-bias-linear --pipeline-model-parallel-size 2"
# shellcheck disable=SC2086
$M validate --world-size 2 --memory-model mcinit --format json -- $GPT $PAT \
	--moe-layer-freq "([1]*2+[0])+[1]" >"$tmp/expr.json" 2>/dev/null
# shellcheck disable=SC2086
$M validate --world-size 2 --memory-model mcinit --format json -- $GPT $PAT \
	--moe-layer-freq "[1,1,0,1]" >"$tmp/list.json" 2>/dev/null
check pattern-expression python3 -c '
import json, sys
p = [json.load(open(f))["derived"]["memory"].get("parameters") for f in sys.argv[1:]]
sys.exit(0 if p[0] and p[0] == p[1] and p[0]["ranks"][0]["experts"] > 0 else p)' \
	"$tmp/expr.json" "$tmp/list.json"

# Not counted, with the reason, never a number.
. "$srcdir/tests/memory/lib.sh"
# shellcheck disable=SC2086
{
B="$srcdir/tests/bridge/0.6.2"
not_counted parameters not-bridge-provider "provider other than" --world-size 2 \
	"$B/gemma2_2b_pretrain_2gpu_h100_bf16.yaml"
not_counted parameters not-bridge-hybrid "provider other than" --world-size 2 \
	"$B/nemotronh_8b_pretrain_2gpu_h100_bf16.yaml"
not_counted parameters not-bridge-te-full "full layer spec" --world-size 32 \
	"$B/gpt3_175b_pretrain_32gpu_h100_bf16.yaml"
not_counted parameters not-bridge-spec "transformer_layer_spec other than" --world-size 2 \
	"$B/llama3_8b_pretrain_2gpu_h100_bf16.yaml" \
	model.transformer_layer_spec=megatron.bridge.models.gpt_provider.local_layer_spec
not_counted parameters not-softmax-learnable "softmax_type learnable" --world-size 16 \
	"$B/gpt_oss_20b_pretrain_16gpu_h100_bf16.yaml"
not_counted parameters not-bridge-mla-q-norm "no q_lora_rank" --world-size 8 \
	"$B/deepseek_v2_lite_pretrain_8gpu_h100_bf16.yaml"
not_counted parameters not-bridge-release "0.6.2" --bridge-version 0.5.1 --world-size 2 \
	"$B/llama3_8b_pretrain_2gpu_h100_bf16.yaml"
not_counted parameters not-bridge-vocab "tokenizer loads" --world-size 4 \
	"$B/qwen3_8b_pretrain_4gpu_h100_bf16.yaml"
not_counted parameters not-old-release "before r0.19" --megatron-version r0.18 --world-size 1 -- $GPT
not_counted parameters not-hybrid "hybrid" --world-size 1 -- $GPT --hybrid-override-pattern "M*M*"
not_counted parameters not-latent-moe "latent MoE" --world-size 1 -- $GPT --num-experts 4 \
	--disable-bias-linear --moe-latent-size 16
not_counted parameters not-shared-bias "shared experts" --world-size 1 -- $GPT --num-experts 4 \
	--moe-shared-expert-intermediate-size 32
not_counted parameters not-moe-bias-etp "ETP > 1" --world-size 2 -- $GPT --num-experts 4 \
	--tensor-model-parallel-size 2 --expert-tensor-parallel-size 2
not_counted parameters not-mla-q-norm "no q_lora_rank" --world-size 1 -- $GPT --multi-latent-attention \
	--qk-layernorm --kv-lora-rank 16 --position-embedding-type rope
not_counted parameters not-heads-tp "not divisible by TP" --world-size 8 -- $GPT \
	--tensor-model-parallel-size 8
not_counted parameters not-moe-freq "moe_layer_freq" --world-size 1 -- $GPT --num-experts 4 \
	--disable-bias-linear --moe-layer-freq "[1,0]"
not_counted parameters not-empty-stage "without layers" --world-size 2 -- $GPT \
	--pipeline-model-parallel-size 2 --decoder-first-pipeline-num-layers 0 \
	--decoder-last-pipeline-num-layers 4
}

# Not asked for: no parameters (and Megatron's own model is unchanged).
# shellcheck disable=SC2086
$M validate --world-size 1 --memory-model megatron --format json -- $GPT >"$tmp/m.json" 2>/dev/null
check megatron-model-alone python3 -c "
import json, sys
m = json.load(open('$tmp/m.json'))['derived']['memory']
sys.exit(0 if m['model'] == 'megatron' and 'parameters' not in m else m)"
finish
