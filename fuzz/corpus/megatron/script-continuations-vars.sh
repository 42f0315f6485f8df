#!/bin/bash
# Megatron-LM example style: variables, arrays and continuations
GPUS_PER_NODE=8
NUM_NODES=2
MODEL_ARGS=(
    --num-layers 32   # a comment after a flag
    --hidden-size 4096
)
torchrun --nproc_per_node $GPUS_PER_NODE --nnodes ${NUM_NODES} pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    --num-attention-heads "32" --seq-length ${SEQ:-4096} --vocab-size=32000 \
    --moe-layer-freq '([0]*1+[1]*31)' --num-experts 8 \
    --normalization "RMSNorm"
