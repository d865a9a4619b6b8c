#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks=16
#SBATCH --gpus-per-task=1
# shape: Slurm's own sizing. --gpus-per-task with 16 tasks over 2 nodes:
# 8 tasks and 8 GPUs on each node; srun runs one rank per task.
# oracle: all known
srun python pretrain_gpt.py --num-layers 4 --hidden-size 256 --num-attention-heads 8 \
	--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 \
	--train-iters 10 --tensor-model-parallel-size "$SLURM_GPUS_ON_NODE" \
	--global-batch-size "$SLURM_NTASKS" --num-workers "$SLURM_GPUS_PER_TASK"
