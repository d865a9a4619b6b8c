#!/bin/bash
# Arithmetic commands: (( )) assignments and increments, and (( )) as the
# test of an if, of && and of a while loop.
NNODES=2
GPUS_PER_NODE=4
(( WORLD = NNODES * GPUS_PER_NODE ))
if (( WORLD >= 8 )); then TP=4; else TP=2; fi
(( NNODES > 4 )) && TP=8
pp=0
while (( pp < 2 )); do (( pp++ )); done
torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py \
	--tensor-model-parallel-size $TP --pipeline-model-parallel-size $pp \
	--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 \
	--max-position-embeddings 128 --micro-batch-size 1 --train-iters 10
