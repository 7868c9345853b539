#!/usr/bin/env bash
# The second device call (OUT set), from the repository root: the probe at 8 and 32 MiB, then
# the flush's GPU tests (the write-back charge twice) on the tree with the demotion.
set -u
export PATH=/usr/local/cuda/bin:$PATH
d=bench/results/2026-12-07-evict-last-flush
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; git status --short; } > "$OUT/tree.txt" 2>/dev/null
b=/tmp/kev-build
(cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF > /dev/null &&
  ninja -C $b -j15 kernelevo kernelevo_gpu_tests > "$OUT/build.log" 2>&1) &
bpid=$!
nvcc -O2 -arch=sm_90 $d/evict_last_probe.cu -o /tmp/probe && /tmp/probe | tee "$OUT/probe.txt"
wait $bpid; echo "build exit $? after $(( $(date +%s) - start )) s"; tail -1 "$OUT/build.log"
timeout 100 $b/tests/kernelevo_gpu_tests --gtest_filter='EvictLast*:WriteBack*:DirtyL2*' --gtest_repeat=2 > "$OUT/gtest.txt" 2>&1
echo "gtest exit $? after $(( $(date +%s) - start )) s"
grep -E "^\[ +(OK|FAILED|PASSED) |^\[(evict-last|dirty-l2|write-back)|Failure|Expected|actual" "$OUT/gtest.txt" | head -40
