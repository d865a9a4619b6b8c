#!/bin/bash
# The expert grid does not divide the world: torchrun starts 4 ranks (the
# script's argument, 4 when it has none), and ETP x EP x PP = 2 x 8 x 1 =
# 16.  Megatron-LM's parse_args and validate_args accept it;
# initialize_model_parallel then refuses it ("world_size (4) is not
# divisible by expert_tensor_model_pipeline_parallel size (16)"), after the
# queue wait and the NCCL start.  With 16 ranks it is the passing neighbour.
set -euo pipefail
GPUS=${1:-4}
torchrun --nnodes 1 --nproc_per_node "$GPUS" pretrain_gpt.py \
	--num-layers 2 --hidden-size 64 --num-attention-heads 4 \
	--seq-length 64 --max-position-embeddings 64 \
	--micro-batch-size 1 --train-iters 1 --disable-bias-linear \
	--num-experts 8 --expert-model-parallel-size 8 \
	--tensor-model-parallel-size 2 --sequence-parallel
