#!/bin/sh
# CLI tests for --entry-point: the extra flags each Megatron-LM script adds
# to the training parser (extra_args_provider) parse only for that script,
# its args_defaults apply, and a launch script's `python pretrain_X.py`
# chooses it when --entry-point is not given.  Facts:
# data/megatron-entry-points.tsv, data/megatron-entry-flags.tsv (read from
# each release's real parser); the unit tests in test-config.c check every
# row (default accepted, unknown to the other entry points).
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
A="--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1"
flags="$srcdir/data/megatron-entry-flags.tsv"

# Per entry point with extra flags on main: its first flag (with its
# default, or alone) is accepted there and is MC003 for pretrain_gpt.
for e in $(awk -F'\t' 'NR > 1 && $9 ~ /main/ {print $1}' "$flags" | sort -u); do
	words=$(awk -F'\t' -v e="$e" 'NR > 1 && $1 == e && $9 ~ /main/ && ($4 == "store_true" || ($4 == "value" && $7 != "")) {
		print $2 ($4 == "value" ? " " $7 : ""); exit }' "$flags")
	check "entry-$e-accepts-${words%% *}" $M validate --entry-point "$e" -- $A $words
	check "entry-gpt-rejects-$e-${words%% *}" sh -c "$M validate -- $A $words 2>&1 | grep -q 'error\[MC003\]: ${words%% *} is not a flag of Megatron-LM main.s pretrain_gpt (.*$e.* adds it)'"
done
golden entry-gpt-rejects-vlm-flag 1 $M validate -- $A --dataloader-seq-length 64
golden entry-vlm-mistyped 1 $M validate --entry-point pretrain_vlm -- $A --dataloader-seq-length abc
check entry-name-with-py $M validate --entry-point pretrain_vlm.py -- $A --dataloader-seq-length 64
golden entry-unknown 64 $M validate --entry-point pretrain_nope -- $A
# A release where the script does not exist yet knows none of its flags.
check entry-offline-r015-unknown sh -c "! $M validate --megatron-version r0.15 --entry-point offline_inference -- $A --async-mode >/dev/null 2>&1"
check entry-offline-main $M validate --entry-point offline_inference -- $A --async-mode

# args_defaults: set where the value is None, a warning where it is not.
check entry-gpt-tokenizer-default sh -c "$M validate --print-config -- $A 2>/dev/null | grep -q '\"tokenizer_type\": \"GPT2BPETokenizer\"'"
check entry-bert-tokenizer-default sh -c "$M validate --print-config --entry-point pretrain_bert -- $A 2>/dev/null | grep -q '\"tokenizer_type\": \"BertWordPieceLowerCase\"'"
check entry-rl-no-tokenizer-default sh -c "$M validate --print-config --entry-point train_rl -- $A 2>/dev/null | grep -q '\"tokenizer_type\": null'"
check entry-rl-r015-tokenizer-default sh -c "$M validate --megatron-version r0.15 --print-config --entry-point train_rl -- $A 2>/dev/null | grep -q '\"tokenizer_type\": \"GPT2BPETokenizer\"'"
golden entry-tokenizer-override 0 $M validate --entry-point pretrain_t5 -- $A --tokenizer-type BertWordPieceCase
# gpt_static_inference.py defaults micro_batch_size to 1: not a missing field.
check entry-static-inference-mbs sh -c "$M validate --entry-point gpt_static_inference -- $(echo $A | sed 's/--micro-batch-size 1//') 2>&1 | grep -vq 'MC008'"
check entry-gpt-needs-mbs sh -c "$M validate -- $(echo $A | sed 's/--micro-batch-size 1//') 2>&1 | grep -q 'error\[MC008\]: required field train.micro_batch_size'"
# Bridge configs do not go through validate_args' defaults loop.
check entry-bridge-no-defaults sh -c "$M validate --print-config recipe-model.json 2>/dev/null | grep -q '\"tokenizer_type\": null'"

# From a launch script: the script's entry point, unless --entry-point.
golden entry-script-vlm 0 $M validate entry-vlm.sh
golden entry-script-vlm-overridden 1 $M validate --entry-point pretrain_gpt entry-vlm.sh
golden entry-script-t5 0 $M validate entry-t5.sh
check entry-script-modelopt $M validate entry-modelopt.sh
# pretrain_mamba.py runs pretrain_hybrid.py on every release (a wrapper of it
# from r0.18 on, git show core_r0.18:pretrain_mamba.py)
for r in r0.15 r0.18 r0.19 main; do
	check "entry-script-mamba-$r" sh -c "$M validate --megatron-version $r entry-mamba.sh 2>&1 | grep -q 'pretrain_mamba.py is Megatron-LM.s pretrain_hybrid entry point'"
done
check entry-script-t5-tokenizer sh -c "$M validate --print-config entry-t5.sh 2>/dev/null | grep -q '\"tokenizer_type\": \"BertWordPieceLowerCase\"'"

# The option is known to --help, the man page and the completions.
check entry-in-help sh -c "$M validate --help | grep -q -- '--entry-point=NAME'"
check entry-in-man sh -c "$M man validate | grep -qF 'entry\-point'"
check entry-completes-names sh -c "$M complete -- validate --entry-point pretrain_ | grep -qx pretrain_vlm"
check entry-completes-flags sh -c "$M complete -- validate --entry-point pretrain_vlm -- --dataloader-s | grep -qx -- --dataloader-seq-length"
check entry-completes-gpt-without sh -c "! $M complete -- validate -- --dataloader-s | grep -q -- --dataloader-seq-length"
finish
