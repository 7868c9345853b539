#!/usr/bin/env bash
# kernelevo's search strategies beside Kernel Tuner's, on the same recorded spaces, budgets
# and seeds; CPU only. Writes bench/results/search-vs-kernel-tuner.md and .csv (and the
# per-run Kernel Tuner results, search-vs-kernel-tuner-kt-runs*.csv, which a later run
# resumes from: delete them to run Kernel Tuner again).
# Usage: bench/search-vs-kernel-tuner/run.sh [SPACES_DIR] [SEEDS]
#   SPACES_DIR  the recorded spaces (default ../shared/data/spaces beside the repository)
#   SEEDS       seeds per strategy and space for kernelevo's strategies and for Kernel Tuner's
#               genetic_algorithm and dual_annealing, its best here, which set the bar, and
#               random_sample, which sets the never-below-random bar (default 20)
# Environment: KT_SEEDS (Kernel Tuner's other strategies, default 10), KT_BO_SEEDS (its
# bayes_opt, up to a minute a run, default 2), KT_JOBS (its processes, default 2),
# KERNELEVO_BENCH_BUILD. On 2 idle cores Kernel Tuner's part takes about 20 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
spaces=${1:-$root/../shared/data/spaces}
seeds=${2:-20}
kt_seeds=${KT_SEEDS:-10}
bo_seeds=${KT_BO_SEEDS:-2}
jobs=${KT_JOBS:-2}
build=${KERNELEVO_BENCH_BUILD:-$root/build-bench}
out=$root/bench/results
work=$here/work
mkdir -p "$out" "$work"
budgets=25,50,100,200,400
kt_strategies=genetic_algorithm,dual_annealing,simulated_annealing,pso,greedy_ils,mls,random_sample,bayes_opt
kev_strategies=auto,local,evolve,anneal,random
# The spaces `auto`'s parameters were chosen on; every other space is held out.
tuned=convolution_A100,convolution_MI250X,convolution_W6600,dedispersion_MI250X
start_all=$(date +%s)

# 1. Kernel Tuner in its own virtual environment (ignored by git), pinned.
venv=$here/.venv
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import kernel_tuner' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
fi
kt_version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("kernel_tuner"))')

# 2. The spaces: Kernel Tuner cachefiles as shipped, and the H200 SGEMM trace written as one.
recorded=()
for f in convolution_A100 convolution_A4000 convolution_A6000 convolution_MI250X \
         convolution_W6600 convolution_W7800 dedispersion_MI250X dedispersion_W6600 \
         dedispersion_W7800; do
  [[ -f $spaces/$f.json.gz ]] || { echo "missing $spaces/$f.json.gz" >&2; exit 2; }
  recorded+=("$spaces/$f.json.gz")
done
sgemm_trace=$root/bench/traces/sgemm.h200.jsonl.gz
sgemm_kt=$work/sgemm.h200.json
[[ -f $sgemm_kt && $sgemm_kt -nt $sgemm_trace ]] ||
  "$venv/bin/python" "$here/trace_to_kt.py" "$sgemm_trace" "$sgemm_kt"

# 3. Kernel Tuner's strategies (resumes from the per-run files).
start_kt=$(date +%s)
kt_cmd=("$venv/bin/python" "$here/kt_run.py" --seeds "$kt_seeds"
        --seeds-for "genetic_algorithm=$seeds,dual_annealing=$seeds,random_sample=$seeds,bayes_opt=$bo_seeds"
        --budgets "$budgets" --strategies "$kt_strategies" --jobs "$jobs")
"${kt_cmd[@]}" --out "$out/search-vs-kernel-tuner-kt-runs.csv" "${recorded[@]}"
"${kt_cmd[@]}" --out "$out/search-vs-kernel-tuner-kt-runs-sgemm.csv" "$sgemm_kt"
kt_seconds=$(( $(date +%s) - start_kt ))

# 4. kernelevo's strategies on the same files (the A100 space through its Kernel Tuner
# cachefile, the SGEMM space through its trace), budgets and seeds.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_TESTS=OFF \
  -DKERNELEVO_WITH_CUDA=OFF >/dev/null
ninja -C "$build" kernelevo_strategy_table >/dev/null
start_kev=$(date +%s)
all=$(IFS=,; echo "${recorded[*]}")
kev_cmd=("$build/bench/kernelevo_strategy_table" --seeds "$seeds" --strategies "$kev_strategies"
         --budgets "$budgets" --csv "$work/kev.csv" "recorded=$all" "h200=$sgemm_trace")
"${kev_cmd[@]}" >/dev/null
kev_seconds=$(( $(date +%s) - start_kev ))
all_seconds=$(( $(date +%s) - start_all ))

kt_cpu=$(awk -F, 'NR > 1 && !seen[$1 FS $2 FS $3 FS $7]++ { s += $7 } END { printf "%.0f", s }' \
  "$out"/search-vs-kernel-tuner-kt-runs*.csv)
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain -- tool bench/search-vs-kernel-tuner bench/strategy_table.cpp 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
{
  echo "# kernelevo's search beside Kernel Tuner's, on recorded spaces"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') (shared with other work)"
  echo "- revision: $rev$dirty"
  echo "- command: bench/search-vs-kernel-tuner/run.sh ${1:-} ${2:-}"
  echo "  - Kernel Tuner: ${kt_cmd[*]//$root\//} --out ... SPACES"
  echo "  - kernelevo: ${kev_cmd[*]//$root\//}"
  echo "- run time: ${all_seconds}s in all (Kernel Tuner ${kt_seconds}s in this run, $kt_cpu s of"
  echo "  Kernel Tuner runs in the per-run files, which earlier runs may have filled; kernelevo ${kev_seconds}s)"
  echo "- Kernel Tuner $kt_version (pinned in bench/search-vs-kernel-tuner/requirements.txt), in simulation"
  echo "  mode; seeds per space: $seeds for genetic_algorithm and dual_annealing (its best strategies"
  echo "  here, which set the bar) and for random_sample (the never-below-random bar), $kt_seeds for the"
  echo "  others, $bo_seeds for bayes_opt (up to a minute a run); kernelevo: $seeds seeds (1..$seeds) per"
  echo "  strategy and space"
  echo
  cat "$here/method.md"
} > "$work/header.md"
"$venv/bin/python" "$here/compare.py" --kev "$work/kev.csv" --kt "$out"/search-vs-kernel-tuner-kt-runs*.csv \
  --out "$out/search-vs-kernel-tuner" --header "$work/header.md" --tuned "$tuned" --budgets "$budgets"
echo "wrote $out/search-vs-kernel-tuner.md and .csv (${all_seconds}s)"
