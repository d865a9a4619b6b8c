#!/bin/bash
torchrun --nnodes=1:4 --nproc_per_node=8 --max-restarts=3 train.py --num-layers 4
