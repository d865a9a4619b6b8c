#!/bin/bash
#SBATCH --job-name=gres
#SBATCH -N 2 --ntasks-per-node=1
#SBATCH --gres=gpu:h100:4,shard:2
#SBATCH -c 16
# shape: Slurm's own sizing. sbatch sets SLURM_GPUS_ON_NODE from --gres
# (gpu:TYPE:N in a list of resources) and SLURM_CPUS_PER_TASK from -c:
# torchrun gets 2 nodes x 4 GPUs.
# oracle: all known
export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
srun torchrun --nnodes "$SLURM_NNODES" --nproc_per_node "$SLURM_GPUS_ON_NODE" \
	pretrain_gpt.py --num-layers 4 --hidden-size 256 --num-attention-heads 8 \
	--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 \
	--train-iters 10 --tensor-model-parallel-size 4 --pipeline-model-parallel-size 2
