#!/bin/bash
NP=16
mpirun -np $NP -x NCCL_P2P_NET_CHU-geNCCL_DEBUGnv NCCL_DDBUG WARN pytho/ pretrain_gpt.py --num-layers 4 --seed 7
