#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
# srun starting a script of the repository on each node: the launch inside
# it is the job's, after srun's words; Slurm's variables reach it.
# oracle: all known
MODEL="--num-layers 4 --hidden-size 128 --num-attention-heads 4"
export MODEL
srun --ntasks-per-node=1 bash child/node.sh "$SLURM_GPUS_ON_NODE"
