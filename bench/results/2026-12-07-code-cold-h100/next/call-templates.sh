#!/usr/bin/env bash
# Not yet run (no device time left): as the device call, from the repository root (OUT set).
# gpu-check builds kernelevo into /tmp/kernelevo-attention-build first; about 9-10 minutes.
# The GPU tests with the code-evicting flush, then issue 22: all twelve
# memory-bound templates, per shape, dirty L2, beside torch.compile, one run.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
cp "$0" "$OUT/call.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; git status --short; } > "$OUT/tree.txt" 2>/dev/null
kev=/tmp/kernelevo-attention-build/tool/kernelevo
BUILD_DIR=/tmp/kernelevo-attention-build SECTIONS=tests timeout 290 scripts/gpu-check "$OUT/check" > "$OUT/check.log" 2>&1
echo "gpu-check exit $? after $(( $(date +%s) - start )) s"
tail -15 "$OUT/check.log"; grep -E "tests passed|tests failed|\(Failed|\(Timeout" "$OUT/check/ctest_gpu.log" | head
grep -E '^\[code-cold\]' "$OUT/check/ctest_gpu.log"
(cd "$OUT" && tar czf check.tgz check && rm -rf check)
T="swiglu sum rope_bf16 bias_gelu layernorm_bf16 softmax layernorm rmsnorm rmsnorm_bf16 softmax_bf16 add_rmsnorm_bf16 transpose"
# shellcheck disable=SC2086
KERNELEVO=$kev L2=dirty PER_SHAPE=1 BUDGET=200 TUNE_TIME=4s TUNE_ONLY=1 timeout 150 bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-tune.log" 2>&1
echo "tune exit $? after $(( $(date +%s) - start )) s"
# shellcheck disable=SC2086
KERNELEVO=$kev L2=dirty PER_SHAPE=1 COMPARE_ONLY=1 REP_MS=60 timeout $((570 - ($(date +%s) - start))) bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-compare.log" 2>&1
echo "compare exit $? after $(( $(date +%s) - start )) s"
grep -E '^\|' "$OUT/mb/templates.md" | head -70
cd "$OUT" && tar czf mb.tgz mb && rm -rf mb
