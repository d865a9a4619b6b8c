#!/bin/bash
# shape: the DeepSpeed launcher on a hostfile of the repository
# (ds-hostfile: 8 + 8 + 4 slots), four GPUs of worker-0 and all of
# worker-1 included: 12 ranks, and a global batch of 16 that 12 data-parallel
# ranks do not divide, which Megatron-LM refuses.
# oracle: all known
export CUDA_DEVICE_MAX_CONNECTIONS=1
deepspeed --hostfile=ds-hostfile --include "worker-0:0,1,2,3@worker-1" \
	--master_addr worker-0 --no_local_rank pretrain_gpt.py --num-layers 4 \
	--hidden-size 256 --num-attention-heads 8 --seq-length 128 \
	--max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 16 \
	--train-iters 10
