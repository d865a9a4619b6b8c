#!/bin/sh
# CLI tests for Megatron-Bridge-shaped configs: every ConfigContainer section,
# _target_ classes, aliases, and --print-config round trips; and the typing
# of every Megatron-LM flag as argparse types it.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
base="--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 10"

# The bundled Bridge examples validate with no error and no warning, and
# --print-config is a fixed point: what it prints validates to itself.
for ex in "$srcdir"/examples/bridge/*.json; do
	n=$(basename "$ex" .json)
	check "example-$n-clean" sh -c "$M validate '$ex' >'$tmp/$n.out' 2>&1 && ! grep -q 'error\\|warning' '$tmp/$n.out'"
	check "example-$n-round-trip" sh -c "$M validate --print-config '$ex' >'$tmp/$n.1.json' 2>/dev/null &&
		$M validate --print-config '$tmp/$n.1.json' >'$tmp/$n.2.json' 2>/dev/null &&
		cmp '$tmp/$n.1.json' '$tmp/$n.2.json'"
done
check dump-keeps-targets sh -c "$M validate --print-config '$srcdir/examples/bridge/gpt-moe-dump.json' 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"dataset\"][\"_target_\"].endswith(\"MockGPTDatasetConfig\"); assert d[\"mixed_precision\"] == \"bf16_mixed\"; assert d[\"optimizer\"][\"lr\"] == 0.0001; assert d[\"model\"][\"params_dtype\"] == \"bf16\"'"

# Keys of no class, keys of another class, a class's own types, aliases.
golden bridge-mistakes 1 $M validate bridge-mistakes.json

# Bridge's YAML conventions (Python's reading of values, instantiation dicts,
# layouts as lists, mixed-precision recipes) and their failing neighbours;
# a field of Bridge main is one with --bridge-version main.
golden bridge-conventions 0 $M validate --world-size 2 yaml/bridge-conventions.yaml
golden bridge-conventions-bad 1 $M validate --world-size 2 yaml/bridge-conventions-bad.yaml
check bridge-main-field sh -c "cd '$srcdir/tests/cli/inputs' && printf 'model:\n  mtp_hsm: false\n' >'$tmp/m.yaml' &&
	$M validate --bridge-version main '$tmp/m.yaml' -- $base 2>&1 | grep -v MC003 >/dev/null &&
	! $M validate --bridge-version main '$tmp/m.yaml' -- $base 2>&1 | grep -q MC003 &&
	$M validate --bridge-version 0.6.2 '$tmp/m.yaml' -- $base 2>&1 | grep -q 'MC003.*only of main'"
# A builder-style model config (Bridge main's llama recipes; a class Bridge
# 0.6.2 accepts too): the transformer's fields read under model.transformer
# and located there, what instantiate drops said so.
golden bridge-builder 1 $M validate --bridge-version main --world-size 4 yaml/bridge-builder.yaml
check bridge-builder-062 sh -c "sed -e 's/megatron[.]bridge[.]models[.]gpt[.]model_config[.]BridgeGPTModelConfig/megatron.training.models.gpt.GPTModelConfig/' \
	-e '/^  _builder_:/d' '$srcdir/tests/cli/inputs/yaml/bridge-builder.yaml' >'$tmp/b062.yaml' &&
	$M validate --bridge-version 0.6.2 --world-size 4 '$tmp/b062.yaml' >'$tmp/b062.out' 2>&1;
	{ grep -q 'b062.yaml:17:33: error.MC014.: num_attention_heads 6 is not divisible by tensor_model_parallel_size 4' '$tmp/b062.out' &&
	! grep -q 'MC008' '$tmp/b062.out' || { cat '$tmp/b062.out'; false; }; }"
# A file merged over a builder-style dump (Bridge's --config-file): OmegaConf
# merges into the model's mapping, whose class stays the dump's; Bridge main
# (merge_apply.py) refuses TP 4 at world size 2, skips transformer.foo.
check bridge-builder-merge sh -c "printf 'model:\n  transformer:\n    tensor_model_parallel_size: 4\n    foo: 1\n' >'$tmp/mm.yaml' &&
	{ $M validate --bridge-version main --world-size 2 '$srcdir/tests/bridge/main/llama2_7b_pretrain.yaml' '$tmp/mm.yaml' >'$tmp/mm.out' 2>&1; test \$? -eq 1; } &&
	grep -q 'mm.yaml:3:33: error.MC010.: world size 2' '$tmp/mm.out' &&
	grep -q \"mm.yaml:4:5: warning.MC003.: unknown key 'foo' in 'model.transformer': TransformerConfig\" '$tmp/mm.out' || { cat '$tmp/mm.out'; false; }"
# Hydra words on a builder-style dump, each with Bridge main's verdict
# (process_config_with_overrides, then runtime_config_update): the OmegaConf
# has model.transformer.X, not model.X, which only + or ++ adds (and
# apply_overrides then sets, the class handing it to transformer).
for w in 'accept model.transformer.num_layers=30' 'reject model.num_layers=30' \
	'accept +model.num_layers=30' 'accept ++model.num_layers=30' \
	'reject model.transformer.tensor_model_parallel_size=4' 'reject ++model.tensor_model_parallel_size=4' \
	'reject model.transformer.foo=1' 'accept ++model.transformer.foo=1' \
	'reject model.transformer.seq_length=8' 'accept ++model.transformer.seq_length=8' \
	'reject model.transformer.num_attention_heads=5'; do
	want=${w%% *} word=${w#* }
	check "bridge-builder-word-$want-$word" sh -c "$M validate --bridge-version main --world-size 2 \
		'$srcdir/tests/bridge/main/llama2_7b_pretrain.yaml' '$word' >/dev/null 2>&1; test \$? -eq $([ "$want" = accept ] && echo 0 || echo 1)"
done
check bridge-version-unknown sh -c "$M validate --bridge-version 0.9 -- $base >/dev/null 2>&1; test \$? -eq 64"
check megatron-release-number sh -c "$M validate --megatron-version 0.19.2 -- $base >/dev/null 2>&1 &&
	$M validate --megatron-version core_v0.17.0 -- $base >/dev/null 2>&1"
check layout-list-is-string sh -c "$M validate --print-config --world-size 2 '$srcdir/tests/cli/inputs/yaml/bridge-conventions.yaml' 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"pipeline_model_parallel_layout\"] == \"Etttt|ttttL\", d[\"model\"][\"pipeline_model_parallel_layout\"]; assert d[\"optimizer\"][\"grad_norm_skip_threshold\"] == \"inf\"; assert d[\"model\"][\"fp8\"] == \"hybrid\"'"

# Every Megatron-LM flag is typed, as argparse types it.
golden flags-typed 1 $M validate -- $base --lr abc --lr-decay-style cosin --adam-beta1 x \
	--empty-unused-memory-level 3 --rampup-batch-size 1 2 --fp16=yes --lr-warmup-fraction
check flags-typed-no-unchecked-note sh -c "! $M validate -- $base --lr 1e-4 --use-flash-attn 2>&1 | grep -q 'not checked'"
check lazy-store-true-on-r017 sh -c "$M validate --megatron-version r0.17 -- $base --lazy-mpu-init 2>&1 | grep -qv MC001"
check r019-known sh -c "$M validate --megatron-version r0.19 -- $base >/dev/null 2>&1"
check flag-sets-bridge-mirror sh -c "$M validate --print-config -- $base --bf16 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"bf16\"] and d[\"optimizer\"][\"bf16\"] and d[\"mixed_precision\"][\"bf16\"]'"

# A mixed-precision preset is resolved and copied onto model, optimizer and
# ddp as runtime_config_update does (Bridge 0.6.2 accepts the file; with
# bf16_mixed it refuses moe_router_padding_for_quantization without fp8,
# as mcinit does); an unknown preset is Bridge's ValueError.
fp8=$srcdir/tests/cli/inputs/yaml/bridge-fp8-preset.yaml
check preset-applied-clean sh -c "$M validate '$fp8' >'$tmp/fp8.out' 2>&1 && ! grep -q 'error\\|warning' '$tmp/fp8.out'"
check preset-copied sh -c "$M validate --print-config '$fp8' 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"fp8\"] == \"hybrid\" and d[\"model\"][\"bf16\"] and d[\"optimizer\"][\"bf16\"] and d[\"model\"][\"num_layers_at_start_in_bf16\"] == 1 and d[\"mixed_precision\"] == \"bf16_with_fp8_current_scaling_mixed\"'"
sed 's/^mixed_precision: .*/mixed_precision: bf16_mixed/' "$fp8" >"$tmp/bf16.yaml"
check preset-bf16-no-fp8-refused sh -c "$M validate '$tmp/bf16.yaml' 2>&1 | grep -q 'error\\[MC201\\].*fp8/fp4 must be specified'"
sed 's/^mixed_precision: .*/mixed_precision: bf16-with-fp8-current-scaling-mixed/' "$fp8" >"$tmp/hyphen.yaml"
check preset-hyphen-spelling sh -c "$M validate '$tmp/hyphen.yaml' >/dev/null 2>&1"
sed 's/^mixed_precision: .*/mixed_precision: bf16_mixd/' "$fp8" >"$tmp/typo.yaml"
check preset-unknown sh -c "$M validate '$tmp/typo.yaml' 2>&1 | grep -q \"error\\[MC005\\]: unknown mixed-precision recipe 'bf16_mixd'\""

# --bridge-recipe NAME starts from the recipe's literal values.
check recipe-values sh -c "cd '$srcdir/tests/cli/inputs' && $M validate --print-config --bridge-recipe llama32_1b_pretrain_config recipe-model.json 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"seq_length\"] == 8192 and d[\"train\"][\"global_batch_size\"] == 512 and d[\"dataset\"][\"_target_\"].endswith(\"GPTDatasetConfig\")'"
check recipe-files-win sh -c "cd '$srcdir/tests/cli/inputs' && $M validate --print-config --bridge-recipe llama32_1b_pretrain_config recipe-model.json model.seq_length=4096 2>/dev/null |
	python3 -c 'import json,sys; assert json.load(sys.stdin)[\"model\"][\"seq_length\"] == 4096'"
golden recipe-unknown 1 $M validate --bridge-recipe llama32_1b_pretrain_confg recipe-model.json
# The model's shape: a recipe that reads it from a Hugging Face config when
# it runs leaves it known only at run time (not "required field not set"),
# until an input sets it; a recipe whose code sets it, likewise.
check recipe-hf-shape-runtime sh -c "$M validate --world-size 2 --bridge-recipe llama3_8b_pretrain_config >'$tmp/r.out' 2>&1 &&
	grep -q 'warning\[MC009\]: required fields not checked (model.num_layers, model.hidden_size, model.num_attention_heads): the recipe reads them from the Hugging Face config of meta-llama/Meta-Llama-3-8B' '$tmp/r.out' && ! grep -q MC008 '$tmp/r.out'"
check recipe-shape-set-later sh -c "$M validate --world-size 2 --bridge-recipe llama3_8b_pretrain_config model.num_layers=32 2>&1 | grep -q 'not checked (model.hidden_size, model.num_attention_heads)'"
# ... every model field the recipe's literals leave: an MoE recipe's experts
# (num_moe_experts, from the HF config) are no "EP needs experts" error
check recipe-moe-shape-runtime sh -c "$M validate --world-size 8 --bridge-recipe qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config >'$tmp/q.out' 2>&1 || { cat '$tmp/q.out'; false; }"
check recipe-code-shape-runtime sh -c "$M validate --world-size 1 --bridge-recipe vanilla_gpt_pretrain_config 2>&1 | grep -q 'the recipe.s code sets them (megatron.bridge.models.gpt_provider.GPTModelProvider)'"
# A PEFT recipe leaves checkpoint.pretrained_checkpoint None, which Bridge's
# ConfigContainer.validate refuses ("PEFT requires a pretrained checkpoint
# path"); an SFT recipe's peft is None (no LoRA to ask it for); a path set
# after the recipe is read as set.
check recipe-peft-needs-checkpoint sh -c "$M validate --bridge-version 0.6.2 --world-size 1 --bridge-recipe llama3_8b_peft_config >'$tmp/p.out' 2>&1;
	test \$? -eq 1 && grep -q 'error\[MC300\]: .*PEFT requires a pretrained checkpoint path' '$tmp/p.out'"
check recipe-peft-checkpoint-given sh -c "$M validate --bridge-version 0.6.2 --world-size 1 --bridge-recipe llama3_8b_peft_config checkpoint.pretrained_checkpoint=/ckpt/llama3 2>&1 | grep -v -q 'PEFT requires'"
check recipe-sft-no-peft sh -c "$M validate --bridge-version 0.6.2 --world-size 2 --bridge-recipe llama3_8b_sft_config --print-config 2>/dev/null |
	python3 -c 'import json,sys; assert json.load(sys.stdin)[\"peft\"] is None'"
# Each Bridge release answers with its own recipes (its wheel's, through
# build-aux/extract-facts.py): 0.6.2's qwen35_vl_35b_a3b_sft_config has
# micro-batch 4, main's 1; a recipe only main has is no 0.6.2 recipe; a
# legacy name bound by assignment (NAME = RECIPE) is one.
check recipe-release-values sh -c "$M validate --bridge-version 0.6.2 --world-size 16 --bridge-recipe qwen35_vl_35b_a3b_sft_config --print-config 2>/dev/null |
	python3 -c 'import json,sys; assert json.load(sys.stdin)[\"train\"][\"micro_batch_size\"] == 4'"
check recipe-release-values-main sh -c "$M validate --bridge-version main --world-size 16 --bridge-recipe qwen35_vl_35b_a3b_sft_config --print-config 2>/dev/null |
	python3 -c 'import json,sys; assert json.load(sys.stdin)[\"train\"][\"micro_batch_size\"] == 1'"
check recipe-other-release sh -c "$M validate --bridge-version 0.6.2 --world-size 8 --bridge-recipe gpt_oss_20b_sft_32k_config 2>&1 |
	grep -q \"error\[MC003\]: Megatron-Bridge 0.6 has no recipe named 'gpt_oss_20b_sft_32k_config'\""
check recipe-assigned-alias sh -c "$M validate --bridge-version 0.6.2 --world-size 8 --bridge-recipe nemotron_3_nano_gb200_pretrain_config >/dev/null 2>&1"
# A YAML over a recipe merges as --config-file does: a section or key the
# ConfigContainer lacks is dropped with Bridge's log warning, not refused.
check recipe-unknown-section-dropped sh -c "cd '$srcdir/tests/cli/inputs' && $M validate --world-size 2 --bridge-recipe llama3_8b_pretrain_config recipe-unknown-section.yaml >'$tmp/u.out' 2>&1 &&
	grep -q \"warning\[MC003\]: unknown section 'wandb'; Megatron-Bridge's apply_overrides skips it\" '$tmp/u.out' &&
	grep -q \"warning\[MC003\]: unknown key 'not_a_field' in section 'train'\" '$tmp/u.out'"
# A Bridge message names the locals of its function: the packed-sequence
# check says the lengths (it printed `<unknown name packed_sequence_size>`).
check packed-message-locals sh -c "$M validate --world-size 4 '$srcdir/tests/bridge/0.6.2/qwen3_8b_sft_4gpu_h100_bf16.yaml' train.micro_batch_size=2 >'$tmp/packed.out' 2>&1;
	grep -q 'Set packed sequence length to 4096 (currently 2048)' '$tmp/packed.out' && ! grep -q 'unknown name' '$tmp/packed.out'"
# A Bridge release is judged with the Megatron-Core release it pins, and a
# Megatron release selects its Bridge release, unless both are named: core
# 0.18.2 has no check of conflicting deprecated SM-count knobs (r0.19+), and
# checkpoint.also_save_hf_checkpoint is no field of Bridge 0.5.
sms="model.moe_deepep_num_sms=20 model.moe_hybridep_num_sms=32"
llama="$srcdir/examples/bridge/llama32_1b_pretrain.yaml"
check bridge-05-pins-core-018 sh -c "! $M validate --bridge-version 0.5 --world-size 8 '$llama' $sms 2>&1 | grep -q SM-count &&
	$M validate --bridge-version 0.6 --world-size 8 '$llama' $sms 2>&1 | grep -q SM-count &&
	$M validate --bridge-version 0.5 --megatron-version main --world-size 8 '$llama' $sms 2>&1 | grep -q SM-count"
check core-018-selects-bridge-05 sh -c "printf 'checkpoint:\n  also_save_hf_checkpoint: true\n' >'$tmp/hf.yaml' &&
	$M validate --megatron-version r0.18 --world-size 8 '$llama' '$tmp/hf.yaml' 2>&1 | grep -q 'not a field of Megatron-Bridge 0.5' &&
	! $M validate --megatron-version r0.18 --bridge-version 0.6 --world-size 8 '$llama' '$tmp/hf.yaml' 2>&1 | grep -q 'not a field' &&
	! $M validate --megatron-version r0.19 --world-size 8 '$llama' '$tmp/hf.yaml' 2>&1 | grep -q 'not a field'"
check version-says-pairs sh -c "$M --version | grep -q 'Bridge 0.5 with Megatron-Core r0.18'"
# A class of another release keeps the fields of the classes it extends,
# even where one of them moved: Bridge 0.5.1's HFDatasetConfig extends
# training.config.DataloaderConfig (data.base.DataloaderConfig now), whose
# num_workers, pin_memory ... were called unknown.
check hf-dataset-inherits-05 sh -c "$M validate --bridge-version 0.5 --world-size 8 '$srcdir/tests/cli/inputs/yaml/bridge05-hf-dataset.yaml' >'$tmp/hfds.out' 2>&1 &&
	! grep -q 'no such field' '$tmp/hfds.out'"
# A field that is a property of another in a release reads it: Bridge
# 0.5.1's dataset.seq_length is dataset.sequence_length (0.6.2's is a field
# of its own).
seqf="$srcdir/tests/cli/inputs/yaml/bridge05-sequence-length.yaml"
check sequence-length-alias-05 sh -c "$M validate --bridge-version 0.5 --print-config '$seqf' 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin)[\"dataset\"]; assert d[\"seq_length\"] == 8192, d' &&
	$M validate --bridge-version 0.6 --print-config '$seqf' 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin)[\"dataset\"]; assert d[\"seq_length\"] is None, d'"
finish
