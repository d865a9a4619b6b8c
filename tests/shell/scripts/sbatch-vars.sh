#!/bin/bash
#SBATCH --job-name=gpt
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=4
# A Slurm batch script: the variables Slurm sets from the #SBATCH lines
# (before the first command, as sbatch reads them) give torchrun its sizes
# under srun: 2 nodes x 4 GPUs.
GPUS_PER_NODE=$SLURM_GPUS_ON_NODE
torchrun_args=(--nnodes "$SLURM_NNODES" --nproc_per_node "$GPUS_PER_NODE")
srun torchrun "${torchrun_args[@]}" pretrain_gpt.py --num-layers 4 --hidden-size 256 \
	--num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 \
	--micro-batch-size 1 --train-iters 10 --tensor-model-parallel-size 4 \
	--pipeline-model-parallel-size 2
