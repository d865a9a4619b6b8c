#!/bin/bash
# A file that sources itself, guarded so bash stops: mcinit reads it once
# and warns instead of following it into itself.
# oracle: all known
. ./config/once.sh
torchrun pretrain_gpt.py --num-layers "$LAYERS" --hidden-size 64 --num-attention-heads 4
