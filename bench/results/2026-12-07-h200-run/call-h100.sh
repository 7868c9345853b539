#!/usr/bin/env bash
# Device call on an H100 (OUT set), from the repository root, while no H200 came: the flush's
# GPU tests twice (evict-last demotion, write-back charge, dirty L2); the three templates where
# torch.compile led at mid sizes on the H200 tuned per shape from a dirty L2 (evict-last store
# no longer searched); the static-shape probe (patch_static.py: rows and cols compiled as
# constants) over those winners beside torch.compile by three timers; then every GPU test
# (scripts/gpu-check's tests section) in the time left. Everything archived under $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
d=bench/results/2026-12-07-h200-run
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))"; }
cp "$0" "$OUT/call-h100.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; scripts/tree-id; git status --short; } > "$OUT/tree.txt" 2>/dev/null
b=/tmp/kev-build
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF > /dev/null &&
  ninja -C $b -j16 kernelevo kernelevo_gpu_tests > "$OUT/build.log" 2>&1
echo "build exit $? after $(el) s"; tail -1 "$OUT/build.log"
timeout 120 $b/tests/kernelevo_gpu_tests --gtest_filter='EvictLast*:WriteBack*:DirtyL2*' --gtest_repeat=2 > "$OUT/gtest.txt" 2>&1
echo "gtest exit $? after $(el) s"
grep -E "^\[ +(OK|FAILED|PASSED) |^\[(evict-last|dirty-l2|write-back)|Failure|Expected|actual" "$OUT/gtest.txt" | head -30
T="bias_gelu layernorm_bf16 softmax"
# shellcheck disable=SC2086
KERNELEVO=$b/tool/kernelevo L2=dirty PER_SHAPE=1 BUDGET=150 TUNE_TIME=4s TUNE_ONLY=1 timeout 90 bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-tune.log" 2>&1
echo "tune exit $? after $(el) s"
grep -E "^- " "$OUT/mb-tune.log" | cut -c1-400
lock=$OUT/mb/kernelevo.lock.json
python3 $d/patch_static.py
mkdir -p "$OUT/static"
for p in "bias_gelu BIAS_GELU ROWS=1,2,4,8" "layernorm_bf16 LAYERNORM_BF16 UNROLL=2,4,8" "softmax SOFTMAX UNROLL=2,4,8"; do
  read -r t m work <<< "$p"
  $b/tool/kernelevo scan "templates/$t.cu" --format json > "$OUT/static/$t.spec.json"
  timeout 90 python3 bench/templates/variants.py --out "$OUT/static" --scan-json "$OUT/static/$t.spec.json" \
    --lockfile "$lock" --rep-ms 30 --timers dirty,do_bench,clean --grid "${m}_STATIC=0,1" --grid "${m}_${work}" "$t" > "$OUT/static/$t.log" 2>&1
  echo "variants $t exit $? after $(el) s"
  cat "$OUT/static/variants_$t.md" 2>/dev/null
done
git checkout -- templates
left=$((${DEADLINE:-575} - $(el)))
echo "gpu-check tests with $left s left"
BUILD_DIR=$b SECTIONS=tests timeout "$left" scripts/gpu-check "$OUT/check" > "$OUT/check.log" 2>&1
echo "gpu-check exit $? after $(el) s"
grep -E "tests passed|tests failed|\(Failed|\(Timeout|Not Run" "$OUT/check/ctest_gpu.log" | head
cd "$OUT" && tar czf results.tgz mb static check 2>/dev/null && rm -rf mb static check
