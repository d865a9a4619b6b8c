#!/bin/bash
# shape: one judgment per script.  Two launches, the first valid, the
# second not (a global batch of 12 over 8 data-parallel ranks): the script
# fails as its worst launch does (exit status, JSON "valid"), and each
# launch keeps its own derived values in "results", in bash's order.
# oracle: all known
export CUDA_DEVICE_MAX_CONNECTIONS=1
M="--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 10"
for gbs in 16 12; do
	torchrun --nproc_per_node 8 pretrain_gpt.py $M --global-batch-size $gbs
done
