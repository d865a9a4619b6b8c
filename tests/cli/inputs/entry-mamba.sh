#!/bin/bash
# r0.18 and later keep pretrain_mamba.py as a wrapper that runs pretrain_hybrid.py
torchrun --nproc_per_node 2 pretrain_mamba.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1
