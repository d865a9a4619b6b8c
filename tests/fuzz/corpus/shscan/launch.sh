#!/bin/bash
# A Megatron-LM style launch script (mcinit extracts the flags after pretrain_gpt.py).
GPUS_PER_NODE=8
NUM_NODES=1
CHECKPOINT_PATH=$1

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
)

GPT_MODEL_ARGS=(
    --num-layers 24          # depth
    --hidden-size 1024
    --num-attention-heads 16
    --seq-length 2048
    --max-position-embeddings 2048
)

TRAINING_ARGS=(
    --micro-batch-size 4
    --global-batch-size 96
    --lazy-mpu-init False
    --lr 1.0e-4
)

MODEL_PARALLEL_ARGS="--tensor-model-parallel-size 2 --pipeline-model-parellel-size 2"

torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${GPT_MODEL_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    $MODEL_PARALLEL_ARGS \
    --save $CHECKPOINT_PATH
