#!/usr/bin/env bash
# Device call (OUT set), from the repository root, any sm_90 GPU: the decode kernel's
# staggered single stage (ATT_DEC_STAGGER). kernelevo built; the decode configurations of
# bench/templates/attention-configs.sh (the staggered ones among them) and the CMake
# attention launcher program checked against attention in double; the decode kernel tuned per
# batch bucket (the space now holding STAGGER 0 and 1) and compared beside SDPA's fastest
# backend at the four decode shapes; then the batch-1 winner timed with STAGGER 1 and 0 (both
# unsized, same timer, one process) when it is a single-stage schedule.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))"; }
cp "$0" "$OUT/call.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
b=/tmp/kev-build
ONLY='^dec_' BUILD_DIR=$b PER_SHAPE=1 KERNELS=attention_decode_bf16 COMPARE=attention_decode_bf16 \
  VALIDATE=0 SHAPES=decode LAUNCHERS=attention_launch CONFIGS=1 MEMCHECK=0 TUNE_TIMEOUT=90s \
  STRATEGY=auto BUDGET="${BUDGET:-150}" TUNE_TIME="${TUNE_TIME:-45s}" TUNES_END="${TUNES_END:-330}" REP_MS=30 \
  timeout "${ATT_TIMEOUT:-420}" bash bench/templates/attention-run.sh "$OUT/att" > "$OUT/att.log" 2>&1
echo "attention-run exit $? after $(el) s"
grep -vE "^\s*$" "$OUT/att.log" | tail -40
# The batch-1 schedule the last H100 tune locked, with and without the stagger: same process
# order, same timer, both compiled without a size define.
mkdir -p "$OUT/ab"
p0='{"ATT_DEC_BLOCKS": 132, "ATT_DEC_BN": 32, "ATT_DEC_CLUSTER": 1, "ATT_DEC_COMPACT": 1, "ATT_DEC_MIN_TILES": 1, "ATT_DEC_STAGES": 1, "ATT_DEC_WARPS_N": 8, "ATT_DEC_STAGGER": 0}'
for s in 0 1; do
  p=${p0/\"ATT_DEC_STAGGER\": 0/\"ATT_DEC_STAGGER\": $s}
  timeout $((595 - $(el))) python3 bench/templates/attention_sdpa.py --out "$OUT/ab" --kernelevo $b/tool/kernelevo \
    --source "$PWD/templates/attention_fwd.cu" --shapes decode --kernels attention_decode_bf16 \
    --params "attention_decode_bf16=$p" --rep-ms 30 > "$OUT/ab/stagger$s.log" 2>&1
  cat "$OUT/ab/attention.md" >> "$OUT/ab/stagger$s.md" 2>/dev/null
  echo "stagger $s after $(el) s"
  grep -E "^\| attention" "$OUT/ab/attention.md"
done
