#!/usr/bin/env bash
# Tunes the Triton templates (templates/softmax_triton.py, rmsnorm_triton.py, bias_gelu_triton.py)
# and their CUDA twins (softmax.cu, rmsnorm.cu, bias_gelu.cu) on one GPU, verifies the winners
# with `kernelevo check`, and times them beside torch.compile and eager PyTorch in one process
# (bench/triton/compare.py). Writes OUT_DIR/triton.md, OUT_DIR/triton.json, the lockfile,
# traces and every step's log. About 8 minutes on an H200 at the default budget.
#
#   KERNELEVO=build/tool/kernelevo PYTHON=/path/to/venv/bin/python bench/triton/run.sh OUT_DIR
#
# Environment: KERNELEVO (the binary, required: a build with CUDA), PYTHON (an interpreter
# with torch and triton 3.6; also what kernelevo compiles Triton kernels with, as
# KERNELEVO_PYTHON), BUDGET (evaluations per tune, default 100), TUNE_TIME (wall-time limit
# of each tune, default 60s), REP_MS (timing per measurement, default 200), TORCH_COMPILE=0 to
# leave out torch.compile. A second run into the same OUT_DIR resumes each tune.
set -uo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: KERNELEVO=... bench/triton/run.sh OUT_DIR" >&2
  exit 2
fi
out=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
kev="${KERNELEVO:?set KERNELEVO to the kernelevo binary}"
python="${PYTHON:-python3}"
export KERNELEVO_PYTHON="$python"
budget="${BUDGET:-100}"
tune_time="${TUNE_TIME:-60s}"
start_all=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start_all)) s)" >&2; }
cd "$root" || exit 1
lock="$out/kernelevo.lock.json"

step "kernelevo devices"
"$kev" devices --format json > "$out/devices.json" 2> "$out/devices.log" || { cat "$out/devices.log" >&2; exit 3; }
rc=0
for src in templates/softmax_triton.py templates/rmsnorm_triton.py templates/bias_gelu_triton.py \
           templates/softmax.cu templates/rmsnorm.cu templates/bias_gelu.cu; do
  name="$(basename "$src")"
  step "tune $src (budget $budget, at most $tune_time)"
  resume=()
  [[ -s "$out/trace.$name.jsonl" ]] && resume=(--resume "$out/trace.$name.jsonl")
  if ! "$kev" tune "$src" --budget "$budget" --time "$tune_time" --lockfile "$lock" \
       --trace "$out/trace.$name.jsonl" "${resume[@]}" --format json \
       > "$out/tune.$name.json" 2> "$out/tune.$name.log"; then
    echo "tune of $src failed: see $out/tune.$name.log" >&2
    tail -5 "$out/tune.$name.log" >&2
    rc=1
  fi
done
step "kernelevo check (the winners verified and re-measured)"
if ! "$kev" check templates/softmax_triton.py templates/rmsnorm_triton.py \
     templates/bias_gelu_triton.py templates/softmax.cu templates/rmsnorm.cu templates/bias_gelu.cu \
     --lockfile "$lock" > "$out/check.txt" 2> "$out/check.log"; then
  echo "check failed: see $out/check.log" >&2
  tail -5 "$out/check.log" >&2
  rc=1
fi
step "compare with PyTorch"
extra=()
[[ "${TORCH_COMPILE:-1}" == 0 ]] && extra=(--no-compile)
if ! "$python" "$here/compare.py" --out "$out" --kernelevo "$kev" --lockfile "$lock" \
     --rep-ms "${REP_MS:-200}" "${extra[@]}" 2> "$out/compare.log"; then
  echo "compare failed: see $out/compare.log" >&2
  tail -20 "$out/compare.log" >&2
  rc=1
fi
step "done: $out/triton.md"
exit $rc
