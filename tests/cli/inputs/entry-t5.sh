#!/bin/bash
torchrun --nproc_per_node 2 examples/t5/pretrain_t5.py --encoder-num-layers 2 --decoder-num-layers 2 --hidden-size 64 --num-attention-heads 4 --kv-channels 16 --ffn-hidden-size 256 --encoder-seq-length 128 --decoder-seq-length 64 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1
