#!/usr/bin/env bash
# Strategy quality on the recorded spaces: builds kernelevo_strategy_table (Release) and
# writes bench/results/strategies.md and strategies.csv.
# Usage: bench/strategies.sh [SPACES_DIR] [SEEDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spaces=${1:-$root/../shared/data/spaces}
seeds=${2:-50}
build=${KERNELEVO_BENCH_BUILD:-$root/build-bench}
out=$root/bench/results
mkdir -p "$out"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_TESTS=OFF \
  -DKERNELEVO_WITH_CUDA=OFF >/dev/null
ninja -C "$build" kernelevo_strategy_table >/dev/null

conv="$spaces/convolution_A100_T4.json.gz"
for gpu in A4000 A6000 MI250X W6600 W7800; do conv+=",$spaces/convolution_$gpu.json.gz"; done
dedisp="$spaces/dedispersion_MI250X.json.gz,$spaces/dedispersion_W6600.json.gz,$spaces/dedispersion_W7800.json.gz"
strategies=auto,local,evolve,anneal,random
cmd=("$build/bench/kernelevo_strategy_table" --seeds "$seeds" --strategies "$strategies"
     --csv "$out/strategies.csv" "convolution=$conv" "dedispersion=$dedisp")

start=$(date +%s)
table=$("${cmd[@]}")
seconds=$(( $(date +%s) - start ))
{
  echo "# Search strategies on recorded spaces"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "- revision: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- command: bench/strategies.sh $spaces $seeds  (runs: ${cmd[*]#$root/})"
  echo "- run time: ${seconds}s"
  echo
  echo "Each cell: mean over $seeds seeds of optimum_time / found_time after that many"
  echo "evaluations (1.000 = the recorded optimum), ± the half-width of its 95% confidence"
  echo "interval. Replay without noise; failed configurations cost an evaluation. The"
  echo "convolution group reads convolution_A100 through its T4 file (the Kernel Tuner"
  echo "cachefile of A100 gives identical numbers). \`auto\`'s parameters were chosen on"
  echo "convolution_A100, convolution_MI250X, convolution_W6600 and dedispersion_MI250X; the others"
  echo "are held out (bench/results/search-vs-kernel-tuner.md shows them apart, beside Kernel Tuner)."
  echo "$table"
} > "$out/strategies.md"
echo "wrote $out/strategies.md and $out/strategies.csv (${seconds}s)"

# The SGEMM space recorded on the H200 (shipped in the repository; partial until its
# recording is complete): larger budgets, its own file.
sgemm_trace=$root/bench/traces/sgemm.h200.jsonl.gz
sgemm_cmd=("$build/bench/kernelevo_strategy_table" --seeds "$seeds" --strategies "$strategies"
           --budgets 100,200,400,800 --csv "$out/strategies-sgemm-h200.csv" "sgemm_h200=$sgemm_trace")
recorded=$(zcat "$sgemm_trace" | grep -c '"params"')
start=$(date +%s)
table=$("${sgemm_cmd[@]}")
seconds=$(( $(date +%s) - start ))
{
  echo "# Search strategies on the SGEMM space recorded on an H200"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- machine: $(uname -srm), $(nproc) CPUs"
  echo "- revision: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- command: bench/strategies.sh  (runs: ${sgemm_cmd[*]//$root\//})"
  echo "- run time: ${seconds}s"
  echo
  echo "The space: templates/sgemm.cu on an NVIDIA H200, $recorded of its 17034 configurations"
  echo "recorded (bench/traces/sgemm.h200.jsonl.gz, exhaustive order; recorded with"
  echo "scripts/gpu-check's sgemm section, bench/results/2026-11-30-gpus-evolve-h200x2 and"
  echo "bench/results/2026-11-30-sgemm-space-h200x2). The strategies search the recorded"
  echo "configurations only, so the optimum is the best of those. Each cell: mean over $seeds"
  echo "seeds of optimum_time / found_time after that many evaluations, ± the half-width of"
  echo "its 95% confidence interval; replay without noise."
  echo "$table"
} > "$out/strategies-sgemm-h200.md"
echo "wrote $out/strategies-sgemm-h200.md (${seconds}s)"
