#!/usr/bin/env bash
# On an H200 (or any sm_90 GPU), one call for templates/attention_fwd.cu: builds kernelevo
# (Release), checks the Hopper kernel (attention_fwd_sm90) at its source defaults on the
# validate shapes against PyTorch before spending time on it, tunes it, then times the
# prefill kernels beside PyTorch SDPA's fastest backend, and packs everything into
# OUT_DIR/results.tgz with the comparison table beside it.
#   bench/templates/attention-run.sh OUT_DIR
# Environment: KERNELS (spec ids to tune, default attention_fwd_sm90; empty: no tune),
# STRATEGY (default exhaustive), BUDGET (default 60), TUNE_TIME (default 170s, each kernel),
# MEMCHECK (default 1: the winner run once more under compute-sanitizer before it is locked),
# SHAPES (attention_sdpa.py's --shapes, default prefill), COMPARE (its --kernels, default
# attention_fwd_bf16,attention_fwd_sm90), PARAMS (its --params, e.g.
# 'attention_fwd_sm90={"ATT90_OVERLAP": 0}'), LOCKFILE (an earlier lockfile to start from),
# REP_MS (default 100), VALIDATE=0 to leave the validate step out, GPU_TESTS (a gtest filter: kernelevo_gpu_tests built too and those
# tests run after the validate step, e.g. 'WriteBack*:TimingCheats*'), LAUNCHERS (default "attention_launch attention_dispatch gemm_sm90_launch": the CMake
# launcher programs, built and run beside the validate step; empty: none), CONFIGS=1 to run
# bench/templates/attention-configs.sh beside them too (r/configs/), KEV and KEEP_KEV
# (bench/gpu-run-common.sh), PER_SHAPE=1 (tune and compare the per-shape copy that `kernelevo
# init --template attention_fwd --dispatch batch` makes in OUT_DIR/r/per-shape: a winner per
# batch of the spec's problems, each shape served by its bucket's), TUNE_TIMEOUT (kernelevo tune
# --timeout: one evaluation's limit, its reference's runs included), TUNES_END (seconds from
# the script's start by which every tune has ended, so the comparison that follows still runs
# inside a caller's limit: a tune still running then is stopped, its finished buckets kept in
# the lockfile). Each step has a time limit, so a hung kernel ends its step, not the run.
set -uo pipefail
out=${1:?usage: bench/templates/attention-run.sh OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)  # absolute: the tunes run from their project's folder
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
r=$out/r
mkdir -p "$r"
build=${BUILD_DIR:-/tmp/kernelevo-attention-build}
# shellcheck source=bench/gpu-run-common.sh
source bench/gpu-run-common.sh
# shellcheck disable=SC2046
build_kernelevo kernelevo $([[ -n ${GPU_TESTS:-} ]] && echo kernelevo_gpu_tests)
"$kev" devices --format json > "$r/devices.json" 2>&1
lock=$r/kernelevo.lock.json
[[ -n ${LOCKFILE:-} ]] && cp "$LOCKFILE" "$lock"
params=()
[[ -n ${PARAMS:-} ]] && params=(--params "$PARAMS")
src=$root/templates/attention_fwd.cu
project=$root  # where the tunes run: the lockfile names the source from there
if [[ ${PER_SHAPE:-0} == 1 ]]; then
  step "per-shape form: kernelevo init --template attention_fwd --dispatch batch"
  mkdir -p "$r/per-shape"
  (cd "$r/per-shape" && KERNELEVO_TEMPLATES_DIR="$root/templates" "$kev" init --template attention_fwd \
    --dispatch batch --force) || exit 1
  project=$r/per-shape
  src=$project/attention_fwd.cu
fi

step "attention_fwd_sm90 and its fp16 form at their source defaults on the validate shapes"
# shellcheck disable=SC2086
(run_launcher_programs ${LAUNCHERS-attention_launch attention_dispatch gemm_sm90_launch}
 if [[ ${CONFIGS:-0} == 1 ]]; then
   timeout 420 bench/templates/attention-configs.sh "$r/configs"
   echo "attention-configs: exit $?"
 fi) > "$r/launchers.txt" 2>&1 &
launchers=$!
if [[ ${VALIDATE:-1} != 0 ]]; then
  timeout 300 python3 bench/templates/attention_sdpa.py --out "$r/validate" --kernelevo "$kev" \
    --shapes validate --kernels attention_fwd_sm90,attention_fwd_sm90_f16 "${params[@]}" > "$r/validate.log" 2>&1
  echo "exit $?"
  cat "$r/validate/attention.md" 2>/dev/null || tail -20 "$r/validate.log"
  grep -o '"mismatch_o".*' "$r/validate.log" | cut -c1-600 | head -8
fi
wait "$launchers"
cat "$r/launchers.txt"
if [[ -n ${GPU_TESTS:-} ]]; then
  step "GPU tests $GPU_TESTS"
  timeout 240 "$build/tests/kernelevo_gpu_tests" --gtest_filter="$GPU_TESTS" > "$r/gpu_tests.log" 2>&1
  echo "exit $?"
  grep -E '^\[(write-back|dirty-l2|code-cold|timing-cheat|red-team)\]|FAILED|PASSED' "$r/gpu_tests.log" | head -40
fi

for k in ${KERNELS-attention_fwd_sm90}; do
  limit=600
  if [[ -n ${TUNES_END:-} ]]; then
    left=$((TUNES_END - ($(date +%s) - t0)))
    if ((left < 1)); then
      step "tune $k: not run (TUNES_END=$TUNES_END s reached)"
      continue
    fi
    ((left < limit)) && limit=$left
  fi
  step "tune $k (at most $limit s)"
  # shellcheck disable=SC2046
  # (the per-shape copy is its own project: a tune runs from the folder of the source it tunes)
  (cd "$project" && timeout "$limit" "$kev" tune "${src#"$project"/}" --kernel "$k" --strategy "${STRATEGY:-exhaustive}" \
    --budget "${BUDGET:-60}" --time "${TUNE_TIME:-170s}" --trace "$r/trace_$k.jsonl" --lockfile "$lock" \
    $([[ ${MEMCHECK:-1} == 1 ]] && echo --memcheck) ${TUNE_TIMEOUT:+--timeout "$TUNE_TIMEOUT"} --format json > "$r/tune_$k.json" 2> "$r/tune_$k.log")
  echo "exit $?"
  tail -6 "$r/tune_$k.log"
  gzip -f "$r/trace_$k.jsonl" 2>/dev/null
done

step "beside SDPA (${SHAPES:-prefill})"
lock_args=()
[[ -f $lock ]] && lock_args=(--lockfile "$lock")
timeout 900 python3 bench/templates/attention_sdpa.py --out "$r" --kernelevo "$kev" --source "$src" --shapes "${SHAPES:-prefill}" \
  --kernels "${COMPARE:-attention_fwd_bf16,attention_fwd_sm90}" --rep-ms "${REP_MS:-100}" \
  "${lock_args[@]}" "${params[@]}" > "$r/compare.log" 2>&1
echo "exit $?"
cp "$r/attention.md" "$out/attention.md" 2>/dev/null
cat "$r/attention.md" 2>/dev/null || tail -20 "$r/compare.log"
step finished
(cd "$out" && tar czf results.tgz r && rm -rf r)
