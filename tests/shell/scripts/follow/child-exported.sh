#!/bin/bash
# A script run by its path and by `sh`: exported variables reach it,
# others do not; a prefix assignment is exported to that command alone.
# oracle: all known
export TP=2
PP=4
MODEL="--num-layers 8 --hidden-size 256 --num-attention-heads 8"
export MODEL
PP=2 ./child/parallel.sh 16
sh ./child/posix.sh
