#!/usr/bin/env bash
# Device call A (OUT set), from the repository root: kernelevo and its GPU tests built; while
# they build, ncu of ours and torch.compile's kernels at the three mid-size shapes of issue 22
# (Inductor's code logged); then the flush's GPU tests (evict-last demotion, write-back
# charge, dirty L2) twice; then all twelve memory-bound templates tuned per shape from a dirty
# L2 and compared beside torch.compile and eager in one run. Everything archived under $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
d=bench/results/2026-12-07-h200-run
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))"; }
cp "$0" "$OUT/call-a.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; scripts/tree-id; git status --short; } > "$OUT/tree.txt" 2>/dev/null
b=/tmp/kev-build
(cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF > /dev/null &&
  ninja -C $b -j14 kernelevo kernelevo_gpu_tests > "$OUT/build.log" 2>&1) &
bpid=$!
mkdir -p "$OUT/ncu"
TORCH_LOGS=output_code TORCHINDUCTOR_COMPILE_THREADS=1 timeout 150 ncu --clock-control none --target-processes application-only \
  --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
  --section WarpStateStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,smsp__inst_executed.sum \
  -o "$OUT/ncu/rows" python3 bench/results/2026-12-07-code-cold-h100/next/ncu_rows.py $d/spec-rows.json > "$OUT/ncu/ncu.log" 2>&1
echo "ncu exit $? after $(el) s"
ncu --import "$OUT/ncu/rows.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed > "$OUT/ncu/raw.csv" 2>&1
cut -c1-400 "$OUT/ncu/raw.csv"
wait $bpid; echo "build exit $? after $(el) s"; tail -1 "$OUT/build.log"
timeout 120 $b/tests/kernelevo_gpu_tests --gtest_filter='EvictLast*:WriteBack*:DirtyL2*' --gtest_repeat=2 > "$OUT/gtest.txt" 2>&1
echo "gtest exit $? after $(el) s"
grep -E "^\[ +(OK|FAILED|PASSED) |^\[(evict-last|dirty-l2|write-back)|Failure|Expected|actual" "$OUT/gtest.txt" | head -30
T="swiglu sum rope_bf16 bias_gelu layernorm_bf16 softmax layernorm rmsnorm rmsnorm_bf16 softmax_bf16 add_rmsnorm_bf16 transpose"
# shellcheck disable=SC2086
KERNELEVO=$b/tool/kernelevo L2=dirty PER_SHAPE=1 BUDGET=200 TUNE_TIME=4s TUNE_ONLY=1 timeout $(( (${DEADLINE:-585} - $(el)) * 55 / 100 )) bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-tune.log" 2>&1
echo "tune exit $? after $(el) s"
# shellcheck disable=SC2086
KERNELEVO=$b/tool/kernelevo L2=dirty PER_SHAPE=1 COMPARE_ONLY=1 REP_MS=50 timeout $((${DEADLINE:-585} - $(el))) bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-compare.log" 2>&1
echo "compare exit $? after $(el) s"
grep -E '^\|' "$OUT/mb/templates.md" | head -70
mkdir -p /tmp/keep && cp "$OUT/mb/kernelevo.lock.json" /tmp/keep/ 2>/dev/null
cd "$OUT" && tar czf mb.tgz mb ncu && rm -rf mb ncu
