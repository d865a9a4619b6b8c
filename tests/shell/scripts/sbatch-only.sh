#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks=16
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun python3 pretrain_gpt.py --num-layers 4
