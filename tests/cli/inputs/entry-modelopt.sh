#!/bin/bash
torchrun --nproc_per_node 1 examples/post_training/modelopt/quantize.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1 --export-quant-cfg fp8
