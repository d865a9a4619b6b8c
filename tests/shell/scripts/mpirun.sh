#!/bin/bash
NP=16
mpirun -np $NP -x CUDA_DEVICE_MAX_CONNECTIONS=1 --mca btl ^openib --bind-to none \
	-genv NCCL_DEBUG WARN python pretrain_gpt.py --num-layers 4 --seed 7
