#!/bin/bash
GPUS=4
NODES="1:2"
env OMP_NUM_THREADS=4 python -m torch.distributed.run --nproc_per_node=$GPUS --nnodes $NODES \
	--standalone pretrain_gpt.py --num-layers 4
