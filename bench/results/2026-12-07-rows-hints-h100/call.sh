#!/usr/bin/env bash
# Issue 22 on the device: ncu of ours and torch.compile's kernels at the three mid-size shapes
# (with Inductor's generated code logged), then all twelve memory-bound templates tuned per
# shape from a dirty L2 and compared beside torch.compile and eager in one run (the six not run
# on the H200 with the dirty timers), after a probe of the cache-hint variants at the mid sizes.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
cp "$0" "$OUT/call.sh"; cp bench/results/2026-12-07-code-cold-h100/next/ncu_rows.py "$OUT/probe_ncu.py"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; git status --short; } > "$OUT/tree.txt" 2>/dev/null
build=/tmp/kernelevo-bench-build
(cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_TESTS=OFF -DKERNELEVO_BUILD_BENCH=OFF >/dev/null && ninja -C $build -j16 kernelevo > "$OUT/build.log" 2>&1) &
bpid=$!
mkdir -p "$OUT/ncu"
TORCH_LOGS=output_code TORCHINDUCTOR_COMPILE_THREADS=1 timeout 170 ncu --clock-control none --target-processes application-only --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum \
  -o "$OUT/ncu/rows" python3 bench/results/2026-12-07-code-cold-h100/next/ncu_rows.py > "$OUT/ncu/ncu.log" 2>&1
echo "ncu exit $? after $(( $(date +%s) - start )) s"
tail -5 "$OUT/ncu/ncu.log"
ncu --import "$OUT/ncu/rows.ncu-rep" --page details --print-units base > "$OUT/ncu/details.txt" 2>&1
ncu --import "$OUT/ncu/rows.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed > "$OUT/ncu/raw.csv" 2>&1
cut -c1-300 "$OUT/ncu/raw.csv"
OUT=$OUT timeout 200 python3 bench/.hint_probe.py > "$OUT/hint_probe.log" 2>&1
echo "hint probe exit $? after $(( $(date +%s) - start )) s"; cp bench/.hint_probe.py "$OUT/"
grep -vE "^\[|Warning|warn" "$OUT/hint_probe.log" | tail -70
wait $bpid; echo "build exit $? after $(( $(date +%s) - start )) s"
kev=$build/tool/kernelevo
T="layernorm rmsnorm rmsnorm_bf16 softmax_bf16 add_rmsnorm_bf16 transpose"
# shellcheck disable=SC2086
KERNELEVO=$kev L2=dirty PER_SHAPE=1 BUDGET=200 TUNE_TIME=4s TUNE_ONLY=1 timeout 150 bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-tune.log" 2>&1
echo "tune exit $? after $(( $(date +%s) - start )) s"
# shellcheck disable=SC2086
KERNELEVO=$kev L2=dirty PER_SHAPE=1 COMPARE_ONLY=1 REP_MS=60 timeout $((580 - ($(date +%s) - start))) bench/templates/run.sh "$OUT/mb" $T > "$OUT/mb-compare.log" 2>&1
echo "compare exit $? after $(( $(date +%s) - start )) s"
grep -E '^\|' "$OUT/mb/templates.md" | head -70
