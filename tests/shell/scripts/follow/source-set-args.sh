#!/bin/bash
# `. FILE ARGS` whose file runs `set --`: bash keeps what it set; `. FILE`
# without arguments sees (and may change) the caller's.
# script-args: --lr 1e-4
# oracle: all known
. ./config/set-args.sh --seed 7
. ./config/shift-one.sh
torchrun pretrain_gpt.py --num-layers 2 "$@" ${SEEN:+--log-interval "$SEEN"}
