#!/usr/bin/env bash
export KERNELS=attention_fwd_sm90 COMPARE=attention_fwd_sm90 SHAPES=prefill VALIDATE=0 \
  LAUNCHERS=attention_launch MEMCHECK=0 STRATEGY=exhaustive BUDGET=220 TUNE_TIME=240s REP_MS=30
bash bench/templates/attention-run.sh "$OUT" 2>&1 | tail -40
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv
