#!/bin/bash
# Variables with defaults, a list-expression layer pattern, uneven pipeline, expert grid.
TP=${TP:-2}; PP=4
MOE="--num-experts 16 --moe-router-topk 4 --moe-layer-freq ([0]*2+[1]*6)*1"
torchrun --nproc_per_node=8 --nnodes=2 pretrain_gpt.py --num-layers 8 --hidden-size 2048 \
  --num-attention-heads 16 --group-query-attention --num-query-groups 4 --seq-length 2048 \
  --vocab-size 50257 --make-vocab-size-divisible-by 128 --tensor-model-parallel-size $TP \
  --pipeline-model-parallel-size $PP --decoder-first-pipeline-num-layers 1 $MOE \
  --expert-model-parallel-size 2 --expert-tensor-parallel-size 1 --context-parallel-size 1 \
  --micro-batch-size 2 --global-batch-size 64 --recompute-granularity full --fp16
