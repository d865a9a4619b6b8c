#!/bin/bash
# shape: launches behind the wrappers of wrappers.def, each option of
# theirs that takes a value given one (nsys -o torchrun_prof is not the
# launcher), and behind a site's bind.sh that mcinit cannot read (a note
# says it was taken to run its arguments).
# oracle: all known
export CUDA_DEVICE_MAX_CONNECTIONS=1
M="--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 10"
nsys profile -t cuda,nvtx -o torchrun_prof --force-overwrite true torchrun --nproc_per_node 2 pretrain_gpt.py $M --tensor-model-parallel-size 2
taskset -c 0-31 apptainer exec --nv -B /a:/b /img.sif torchrun --nproc_per_node 4 pretrain_gpt.py $M --tensor-model-parallel-size 4
enroot start --mount /data:/data --env NCCL_DEBUG=INFO pytorch -- torchrun --nproc_per_node 8 pretrain_gpt.py $M --tensor-model-parallel-size 8
sh -c "bind.sh --cpu=node numactl --cpunodebind=0 python -u pretrain_gpt.py $M --tensor-model-parallel-size 1"
