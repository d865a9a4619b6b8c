#!/bin/bash
# shape: the DeepSpeed launcher.  --num_nodes 2 --num_gpus 4: 8 ranks, the
# hosts those of its hostfile (/job/hostfile, read when the job runs).
# The entry point takes DeepSpeed's own flags: the Megatron-DeepSpeed fork.
# oracle: all known
set -euo pipefail
GPUS_PER_NODE=4
NNODES=2
ds_args="--num_gpus $GPUS_PER_NODE --num_nodes $NNODES --master_port 29501"
deepspeed $ds_args pretrain_gpt.py --num-layers 4 --hidden-size 256 \
	--num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 \
	--micro-batch-size 1 --global-batch-size 16 --train-iters 10 \
	--tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 \
	--deepspeed --deepspeed_config ds_config.json --zero-stage 1
