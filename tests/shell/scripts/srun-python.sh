#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node 8
srun -u --mpi=pmix python pretrain_gpt.py --tensor-model-parallel-size 8 --num-layers 4
