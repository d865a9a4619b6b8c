#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=8
MASTER_ADDR=localhost
MASTER_PORT=29500
NUM_NODES=1
WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))
DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr $MASTER_ADDR
    --master_port $MASTER_PORT
)
MODEL=(
    --num-layers 4 --hidden-size 256   # comment
    --step-batch-size-schedule "0:16 2.4B:320"
    --split "'99,1,0'"
)
QUOTED=("--fp8-format hybrid" "--ws $WORLD_SIZE" "--x $(( (3 + 4) * 2 ** 3 % 50 ))")
S="--split '99,1,0'"
torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py ${MODEL[@]} "${MODEL[@]}" ${QUOTED[@]} "${QUOTED[*]}" $S "$S" ${QUOTED[*]}
