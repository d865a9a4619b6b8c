#!/bin/bash
# `bash FILE "$@"`: a child shell gets the exported variables only (NPROC,
# not LOCAL_ONLY), the script's arguments, and its assignments and
# functions stay its own.
# script-args: --lr 0.0002 --train-iters 10
# oracle: all known
export NPROC=4
LOCAL_ONLY=yes
log() { echo "$@"; }
bash -x ./child/train.sh --num-layers 2 --hidden-size 64 --num-attention-heads 4 "$@"
torchrun --nproc_per_node "$NPROC" pretrain_gpt.py --num-layers 3 --exit-interval "${CHILD_SET:-5}"
