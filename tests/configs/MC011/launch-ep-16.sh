#!/bin/bash
# Its passing neighbour: 2 nodes of 8 ranks, 16 = ETP x EP x PP.
NODES=${NODES:-2}
GPUS=8
torchrun --nnodes "$NODES" --nproc_per_node "$GPUS" pretrain_gpt.py \
	--num-layers 2 --hidden-size 64 --num-attention-heads 4 \
	--seq-length 64 --max-position-embeddings 64 \
	--micro-batch-size 1 --train-iters 1 --disable-bias-linear \
	--num-experts 8 --expert-model-parallel-size 8 \
	--tensor-model-parallel-size 2 --sequence-parallel
