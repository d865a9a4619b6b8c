#!/bin/bash
# Loops as launch scripts write them: a for over an indexed array's
# indices with ${arr[$i]} in the body, a C-style for, a while loop that
# parses options with shift, break; every launch is judged on its own.
set -- --layers 4 --heads 8 --extra --seq-length --extra 128
while [ $# -gt 0 ]; do
	case $1 in
	--layers) LAYERS=$2; shift 2 ;;
	--heads) HEADS=$2; shift 2 ;;
	--extra) EXTRA+=("$2"); shift 2 ;;
	*) break ;;
	esac
done
model_parallel_gpus=(2 4)
pipeline=(1 2)
for i in "${!model_parallel_gpus[@]}"; do
	tp=${model_parallel_gpus[$i]}
	torchrun --nproc_per_node $((tp * ${pipeline[$i]})) pretrain_gpt.py \
		--num-layers $LAYERS --hidden-size 256 --num-attention-heads $HEADS \
		--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 \
		--train-iters 10 --tensor-model-parallel-size $tp \
		--pipeline-model-parallel-size ${pipeline[$i]} "${EXTRA[@]}"
done
for ((n = 1; n <= 8; n *= 2)); do
	[ $n -gt 2 ] && break
	SIZES="$SIZES $n"
done
for s in $SIZES; do
	echo "world $s"
done
