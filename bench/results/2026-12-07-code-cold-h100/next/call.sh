#!/usr/bin/env bash
# Not yet run (no device time left). From the repository root on an sm_90 GPU, after
#   kernelevo scan templates/bias_gelu.cu templates/layernorm_bf16.cu templates/softmax.cu \
#     --format json > bench/.spec-rows.json
# run as the device call (OUT set): bash bench/results/2026-12-07-code-cold-h100/next/call.sh
# ncu of ours and torch.compile's kernels at the three mid-size shapes of issue 22.
set -u
export PATH=/usr/local/cuda/bin:$PATH
cp "$0" "$OUT/call.sh"; cp bench/results/2026-12-07-code-cold-h100/next/ncu_rows.py "$OUT/probe_ncu.py"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
{ date -u +%FT%TZ; git log -1 --format=%H; git status --short; } > "$OUT/tree.txt" 2>/dev/null
TORCHINDUCTOR_COMPILE_THREADS=1 timeout 170 ncu --clock-control none --target-processes application-only --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum \
  -o "$OUT/rows" python3 bench/results/2026-12-07-code-cold-h100/next/ncu_rows.py > "$OUT/ncu.log" 2>&1
echo "ncu exit $?"
tail -5 "$OUT/ncu.log"
ncu --import "$OUT/rows.ncu-rep" --page details --print-units base > "$OUT/details.txt" 2>&1
ncu --import "$OUT/rows.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed > "$OUT/raw.csv" 2>&1
grep -E "^  [a-z_]+|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|Executed Ipc|Elapsed Cycles" "$OUT/details.txt" | head -90
