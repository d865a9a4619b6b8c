#!/bin/bash
python3 -m torch.distributed.launch --use_env --nproc_per_node 2 pretrain_bert.py --num-layers 2
