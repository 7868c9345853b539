#!/usr/bin/env bash
# The flush and evict_last: the probe, the GPU tests of the flush on the fixed tree, then the
# mid-size hint probe again with the comparison's demotion.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
cp "$0" "$OUT/call.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader | tee "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; git status --short; } > "$OUT/tree.txt" 2>/dev/null
b=/tmp/kev-build
(cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF > /dev/null &&
  ninja -C $b -j15 kernelevo kernelevo_gpu_tests > "$OUT/build.log" 2>&1) &
bpid=$!
nvcc -O2 -arch=sm_90 bench/results/2026-12-07-evict-last-flush/evict_last_probe.cu -o /tmp/probe && /tmp/probe | tee "$OUT/probe.txt"
wait $bpid; echo "build exit $? after $(( $(date +%s) - start )) s"; tail -1 "$OUT/build.log"
timeout 150 $b/tests/kernelevo_gpu_tests --gtest_filter='EvictLast*:DirtyL2*:CodeCold*:WriteBack*' > "$OUT/gtest.txt" 2>&1
echo "gtest exit $? after $(( $(date +%s) - start )) s"
grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |^\[(evict-last|dirty-l2|code-cold|writeback)|Failure|Expected|Which is|actual" "$OUT/gtest.txt" | head -40
{
  OUT=$OUT timeout $((330 - ($(date +%s) - start))) python3 bench/.hint_probe.py > "$OUT/hint_probe.log" 2>&1
  echo "hint probe exit $? after $(( $(date +%s) - start )) s"
  grep -vE "^\[|Warning|warn" "$OUT/hint_probe.log" | tail -50
}
