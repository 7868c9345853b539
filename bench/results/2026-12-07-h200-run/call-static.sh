#!/usr/bin/env bash
# Device call (OUT set), from the repository root, H200 only: issue 22's run of all twelve
# memory-bound templates with one-size buckets compiled with their size defined
# (KERNELEVO_SIZE_<dim>): kernelevo and its GPU tests built; the flush's GPU tests; every
# template's per-shape form tuned from a dirty L2, then compared beside torch.compile and
# eager in one run, the comparison compiling each bucket's winner as the tune and the build
# do; each one-size bucket's winner is also timed without its size define and locked the faster
# way (sized.txt lists the choices). Everything archived under $OUT. DEADLINE: seconds from the
# start by which it ends, the last 160 s the comparison's (three rounds of timing: run.sh's
# ROUNDS); ANY_GPU=1 runs it on another GPU too (BUDGET and TUNE_TIME of each bucket's search).
set -u
if [[ ${ANY_GPU:-0} != 1 ]] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  nvidia-smi --query-gpu=name --format=csv,noheader; echo "not an H200: nothing run"; exit 3
fi
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))"; }
cp "$0" "$OUT/call-static.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; scripts/tree-id; git status --short; } > "$OUT/tree.txt" 2>/dev/null
b=/tmp/kev-build
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF > /dev/null &&
  ninja -C $b -j16 kernelevo kernelevo_gpu_tests > "$OUT/build.log" 2>&1
echo "build exit $? after $(el) s"; tail -1 "$OUT/build.log"
timeout 60 $b/tests/kernelevo_gpu_tests --gtest_filter='EvictLast*:WriteBack*:DirtyL2*' > "$OUT/gtest.txt" 2>&1
echo "gtest exit $? after $(el) s"
grep -E "^\[ +(OK|FAILED|PASSED) |Failure" "$OUT/gtest.txt" | head -12
T="${TEMPLATES:-bias_gelu layernorm_bf16 softmax swiglu sum rope_bf16 layernorm rmsnorm rmsnorm_bf16 softmax_bf16 add_rmsnorm_bf16 transpose}"
# shellcheck disable=SC2086
KERNELEVO=$b/tool/kernelevo L2=dirty PER_SHAPE=1 BUDGET=${BUDGET:-200} TUNE_TIME=${TUNE_TIME:-4s} TUNE_ONLY=1 timeout $(( ${DEADLINE:-585} - $(el) - 160 )) bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-tune.log" 2>&1
echo "tune exit $? after $(el) s"
grep -E "^== " "$OUT/mb-tune.log" | tail -3
# Each one-size bucket's winner timed with and without its size define, and how it is locked.
grep -h "without its size define" "$OUT"/mb/tune_*.log > "$OUT/sized.txt" 2>/dev/null
echo "buckets locked without their size define: $(grep -c "locked without it" "$OUT/sized.txt") of $(wc -l < "$OUT/sized.txt")"
# shellcheck disable=SC2086
KERNELEVO=$b/tool/kernelevo L2=dirty PER_SHAPE=1 COMPARE_ONLY=1 REP_MS=50 timeout $((${DEADLINE:-585} - $(el))) bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-compare.log" 2>&1
echo "compare exit $? after $(el) s"
grep -E '^\|' "$OUT/mb/templates.md" | head -70
cd "$OUT" && tar czf mb.tgz mb && rm -rf mb
