#!/bin/bash
# Run by srun from ../srun-child.sh, on each node.
torchrun --nnodes "${SLURM_NNODES:-1}" --nproc_per_node "${1:-1}" pretrain_gpt.py $MODEL
