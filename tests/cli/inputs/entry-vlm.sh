#!/bin/bash
# pretrain_vlm.py adds --dataloader-seq-length (add_vlm_extra_args)
python pretrain_vlm.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1 --dataloader-seq-length 64
