#!/bin/bash
# a whole options string expanded unquoted, as Megatron's mamba example does
SEQ_LEN=4096
options=" \
       --tensor-model-parallel-size 1 \
       --seq-length ${SEQ_LEN} \
       --max-position-embeddings ${SEQ_LEN} \
       --tokenizer-type GPT2BPETokenizer"
torchrun --nproc_per_node 8 ../../pretrain_mamba.py ${options}
