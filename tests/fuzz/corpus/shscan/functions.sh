#!/bin/bash
# Functions with their own positional parameters, `local`, `shift` and
# `set --`, a launch inside a function called once, and "$@" of a script
# run with no arguments (bash: nothing).
set -- --num-layers 4 --hidden-size 256
COMMON=("$@")
set --
run() {
	local tp=$1 pp=$2
	shift 2
	torchrun --nproc_per_node $((tp * pp)) pretrain_gpt.py "${COMMON[@]}" \
		--tensor-model-parallel-size $tp --pipeline-model-parallel-size $pp "$@"
}
tp=99
run 2 1 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 \
	--micro-batch-size 1 --train-iters 10 "$@"
# the function's `local tp` is gone: tp is 99 again
echo "tp=$tp"
