#!/usr/bin/env bash
# Device call (OUT set), from the repository root, any sm_90 GPU (made for issue 24's H200
# run): the whole table in one run. kernelevo built; the Hopper prefill kernel and the decode
# kernel tuned per batch bucket (at most 150 evaluations or TUNE_TIME a bucket, the decode's
# lone launches; KERNELS names the kernels tuned, empty: none, their source defaults); both
# beside SDPA's fastest backend at all sixteen shapes in one process, both timers, every row
# verified. About 300 s with both tunes on an H100 (build 65, prefill tune about 115,
# decode 75, comparison 45).
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
cp "$0" "$OUT/call.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
BUILD_DIR=/tmp/kev-build PER_SHAPE=1 KERNELS="${KERNELS-attention_fwd_sm90 attention_decode_bf16}" COMPARE=attention_fwd_sm90,attention_decode_bf16 \
  VALIDATE=0 SHAPES=all LAUNCHERS= CONFIGS=0 MEMCHECK=0 TUNE_TIMEOUT=90s STRATEGY=auto BUDGET=150 \
  TUNE_TIME="${TUNE_TIME:-30s}" TUNES_END="${TUNES_END:-270}" REP_MS=30 \
  timeout "${ATT_TIMEOUT:-400}" bash bench/templates/attention-run.sh "$OUT/att" > "$OUT/att.log" 2>&1
echo "attention-run exit $?"
grep -vE "^\s*$" "$OUT/att.log" | tail -42
