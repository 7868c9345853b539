#!/usr/bin/env bash
WIN='"ATT90_BN":128,"ATT90_CONSUMERS":2,"ATT90_STAGES":2,"ATT90_OVERLAP":1,"ATT90_PINGPONG":1,"ATT90_LAZY":1'
export LAUNCHERS=attention_launch CONFIGS=1 KERNELS= VALIDATE=1 SHAPES=prefill COMPARE=attention_fwd_sm90 REP_MS=30
export PARAMS="attention_fwd_sm90={$WIN,\"ATT90_CTAS\":132}"
bash bench/templates/attention-run.sh "$OUT/persistent" 2>&1 | tail -60
echo "=== the same schedule, a block per tile"
mkdir -p "$OUT/per-tile"
timeout 400 python3 bench/templates/attention_sdpa.py --out "$OUT/per-tile" --kernelevo /tmp/kernelevo-attention-build/tool/kernelevo \
  --shapes prefill --kernels attention_fwd_sm90 --rep-ms 30 --params "attention_fwd_sm90={$WIN,\"ATT90_CTAS\":0}" > "$OUT/per-tile/compare.log" 2>&1
echo "exit $?"; cat "$OUT/per-tile/attention.md" 2>/dev/null || tail -20 "$OUT/per-tile/compare.log"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv
