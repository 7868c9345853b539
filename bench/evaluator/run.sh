#!/usr/bin/env bash
# The evaluator's integrity checks on a GPU, and what they cost: builds this tree and a
# baseline tree (the commit before them) side by side, runs the GPU tests of this tree (the
# red-team suites among them), then for each binary in turn, each with a fresh compile
# cache: evaluations per second and winners of an exhaustive softmax and rmsnorm tune and
# of 200 SGEMM evaluations (random, seed 1), and the same configuration timed in 5 separate
# processes. Writes everything under RESULTS_DIR; prints a summary table last.
#
#   bench/evaluator/run.sh RESULTS_DIR BASELINE_SOURCE_DIR [PART...]
#
# PART: build tests rates repeat (default: all four, in that order). JOBS (default 16).
# RATES: the tunes of the rates part (default "softmax rmsnorm sgemm").
set -uo pipefail
dest=$1 base_src=$2
shift 2
parts=" ${*:-build tests rates repeat} "
want() { [[ "$parts" == *" $1 "* ]]; }
rates=" ${RATES:-softmax rmsnorm sgemm} "
rated() { [[ "$rates" == *" $1 "* ]]; }
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
base_src="$(cd "$base_src" && pwd)"
jobs=${JOBS:-16}
t_all=$(date +%s)
step() { echo "== $* ($(($(date +%s) - t_all)) s)" >&2; }
status=0
new_build=/tmp/kev-eval-new old_build=/tmp/kev-eval-old

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader 2>&1
  nvcc --version 2>&1 | tail -1
  echo "baseline: $(cat "$base_src/.commit" 2>/dev/null || echo unknown)"
} > "$dest/environment.txt"

if want build; then
  step "build this tree and the baseline (-j$((jobs / 2)) each)"
  (cmake -S "$root" -B "$new_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF &&
     ninja -C "$new_build" -j$((jobs / 2)) kernelevo kernelevo_gpu_tests) > "$dest/build-new.log" 2>&1 &
  new_pid=$!
  (cmake -S "$base_src" -B "$old_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF \
     -DKERNELEVO_BUILD_TESTS=OFF && ninja -C "$old_build" -j$((jobs / 2)) kernelevo) > "$dest/build-old.log" 2>&1 &
  old_pid=$!
  wait $new_pid || { tail -20 "$dest/build-new.log"; exit 1; }
  wait $old_pid || { tail -20 "$dest/build-old.log"; exit 1; }
fi
new="$new_build/tool/kernelevo" old="$old_build/tool/kernelevo"

if want tests; then
  step "GPU tests of this tree"
  (cd "$new_build" && timeout 300 ctest -L gpu -V --timeout 280) > "$dest/ctest_gpu.log" 2>&1 || status=1
  grep -o '\[red-team\].*\|\[timing-cheat\].*' "$dest/ctest_gpu.log" > "$dest/redteam.txt"
  grep -E "tests passed|tests failed|\(Failed\)" "$dest/ctest_gpu.log" >&2
fi

run_tune() {  # label binary args...
  local label=$1 bin=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  KERNELEVO_CACHE_DIR="/tmp/kev-eval-cache-$label" "$bin" tune "$@" --format json \
    --lockfile "/tmp/kev-eval-$label.lock.json" > "$dest/$label.json" 2> "$dest/$label.log" || status=1
  t1=$(date +%s.%N)
  echo "$label $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")" >> "$dest/wall.txt"
}

if want rates; then
  : > "$dest/wall.txt"
  rm -rf /tmp/kev-eval-cache-* /tmp/kev-eval-*.lock.json
  for which in old new; do
    bin=$old; [[ $which == new ]] && bin=$new
    step "rates: $which"
    rated softmax && run_tune "softmax-$which" "$bin" "$root/templates/softmax.cu" --strategy exhaustive --time 60s
    rated rmsnorm && run_tune "rmsnorm-$which" "$bin" "$root/templates/rmsnorm.cu" --strategy exhaustive --time 60s
    rated sgemm && run_tune "sgemm-$which" "$bin" "$root/templates/sgemm.cu" --strategy random --budget 200 --seed 1 --time 120s
  done
fi

if want repeat; then
  for which in old new; do
    bin=$old; [[ $which == new ]] && bin=$new
    step "repeatability: $which, one configuration in 5 processes"
    for i in 1 2 3 4 5; do
      KERNELEVO_CACHE_DIR="/tmp/kev-eval-cache-repeat" "$bin" tune "$root/templates/softmax.cu" \
        --strategy random --budget 1 --seed 1 --format json --lockfile "/tmp/kev-eval-repeat-$which-$i.lock.json" \
        > "$dest/repeat-$which-$i.json" 2> "$dest/repeat-$which-$i.log" || status=1
    done
  done
fi

step "summary"
python3 "$root/bench/evaluator/summary.py" "$dest" | tee "$dest/summary.md"
exit $status
