#!/bin/bash
SCALE="8B"
ARGS=()
case "${SCALE}" in
    "800M")
        TP=1
        ;;
    "8B"|"8b")
        TP=4
        ARGS+=(--bf16) ;;
    8*) TP=99 ;;
    *)
        echo "Invalid"
        exit 1
        ;;
esac
case $UNKNOWN_ENV in
    a) ARGS+=(--a) ;;
    b) ARGS+=(--b) ;;
esac
case x in x) ARGS+=(--inline);; esac
torchrun --nproc_per_node 2 pretrain_gpt.py --tensor-model-parallel-size $TP "${ARGS[@]}"
