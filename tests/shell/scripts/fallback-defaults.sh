#!/bin/bash
MASTER_ADDR=${MASTER_ADDR:-"localhost"}
NNODES=${SLURM_NNODES:-"1"}
GPUS_PER_NODE=${GPUS:-2}
torchrun --nproc-per-node ${GPUS_PER_NODE} --nnodes ${NNODES} --master-addr "$MASTER_ADDR" --master-port=6000 pretrain_gpt.py --num-layers 4 --micro-batch-size $((GPUS_PER_NODE / 2))
