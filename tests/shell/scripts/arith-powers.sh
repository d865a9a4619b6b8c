#!/bin/bash
# Powers as bash computes them, modulo 2^64: one that wraps around, one
# with a huge exponent (bash squares: instant; a multiplication per unit of
# the exponent took minutes), a negative base.
# oracle: all known
BIG=$((3 ** 41))
HUGE=$((2 ** 9999999999))
ODD=$((-3 ** 3 + 7 ** 0))
ONE=$((1 ** 9223372036854775807))
python pretrain_gpt.py --seed $BIG --eval-iters $HUGE --eval-interval $ODD --train-iters $ONE
