#!/bin/bash
# A launch script as people write them: extra flags from an array whose
# assignment is commented out, the script's own arguments forwarded with
# "$@" (none: bash expands it to nothing), and a function whose first
# argument is a flag's value, shifted away before its "$@".
GPT_ARGS="--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128"
GPT_ARGS="$GPT_ARGS --max-position-embeddings 128 --micro-batch-size 1 --train-iters 10"
# PROFILE=(--profile --profile-step-start 3)
launch() {
	local tp=$1
	shift
	torchrun --nproc_per_node 2 pretrain_gpt.py $GPT_ARGS --tensor-model-parallel-size $tp \
		${PROFILE[@]} "$@"
}
launch 2 "$@"
