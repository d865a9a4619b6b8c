#!/bin/bash
# shape: a launch behind wrappers.  The wrapper script of the repository
# (tools/pywrap.sh: python3 -u "$@") runs behind singularity exec and
# numactl, whose own options (-B a:b, -N 0) and image are not its words:
# it is followed with its arguments, its export included.
# oracle: all known
WRAPPER="$(dirname "$0")/tools/pywrap.sh"
CMD="pretrain_gpt.py --num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 10"
singularity exec --nv -B /data:/data /images/pytorch.sif "$WRAPPER" $CMD --lr 1e-4
numactl -N 0 --membind 0 "$WRAPPER" $CMD --lr 2e-4
