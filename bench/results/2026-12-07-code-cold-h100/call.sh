#!/usr/bin/env bash
# Code-cold timing: the probes (decode: five flushes, COMPACT 0/1; rows: ours and torch.compile
# at mid-size shapes), every GPU gtest, then the decode buckets re-tuned with the code-evicting
# flush beside SDPA.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
cp "$0" "$OUT/call.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; git status --short; } > "$OUT/tree.txt" 2>/dev/null
timeout 150 python3 bench/results/2026-12-06-attention-decode-balanced-h100/probe/decode_code_cold.py > "$OUT/probe.txt" 2>&1
echo "probe exit $? after $(( $(date +%s) - start )) s"; tail -8 "$OUT/probe.txt"
timeout 150 python3 bench/results/2026-12-07-code-cold/probe/rows_code_cold.py > "$OUT/probe-rows.txt" 2>&1
echo "rows probe exit $? after $(( $(date +%s) - start )) s"; tail -22 "$OUT/probe-rows.txt"
PER_SHAPE=1 KERNELS=attention_decode_bf16 COMPARE=attention_decode_bf16 SHAPES=decode VALIDATE=0 LAUNCHERS= \
  MEMCHECK=0 GPU_TESTS='*' TUNE_TIMEOUT=90s STRATEGY=auto BUDGET=150 TUNE_TIME=30s REP_MS=30 TUNES_END=290 \
  timeout 440 bash bench/templates/attention-run.sh "$OUT/att" > "$OUT/att.log" 2>&1
echo "attention-run exit $? after $(( $(date +%s) - start )) s"
tail -40 "$OUT/att.log"
rm -f "$OUT/att/kernelevo"
