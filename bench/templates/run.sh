#!/usr/bin/env bash
# Tunes each kernel template and times it beside its PyTorch equivalent, on one GPU, in one
# command. Writes OUT_DIR/templates.md and OUT_DIR/templates.json (and every tune's output).
#
#   bench/templates/run.sh OUT_DIR [TEMPLATE...]      # default: every template of entries.py
#
# Environment: KERNELEVO (the binary; default build/tool/kernelevo, built into BUILD_DIR,
# default /tmp/kernelevo-bench-build, when missing), BUDGET (evaluations per tune, default
# 40, a resumed trace's included: raise it to continue a tune), TUNE_TIME (wall-time limit
# of each tune, default 6s), REP_MS (do_bench time per measurement, default 200), ROUNDS
# (rounds of the comparison's timing, each figure the median of its rounds, default 3), JOBS,
# PYTHON (the interpreter with torch and triton, default python3), COMPARE_ONLY=1 to skip the
# tunes and time OUT_DIR's locked winners again, TORCH_COMPILE=0 to leave out the torch.compile
# column (each memory-bound shape's PyTorch code compiled and timed beside eager), TUNE_ONLY=1
# to tune and leave the comparison to a later COMPARE_ONLY=1 run over every template.
# PER_SHAPE=1 tunes each template's per-shape form instead: a copy in OUT_DIR/templates made by
# `kernelevo init --template T --dispatch DIM` (DIM: entries.py's dispatch_by; a template
# without one is copied plain), tuned from OUT_DIR (one search per bucket: BUDGET and TUNE_TIME
# apply to each) and compared with each shape's bucket winner; COMPARE_ONLY=1 PER_SHAPE=1 times
# those copies again. L2=dirty tunes with `kernelevo tune --l2 dirty` (every run timed from a
# cold L2 full of dirty lines, as do_bench times; docs/evaluator.md). COMPILER=nvrtc tunes with
# `kernelevo tune --compiler nvrtc` (default nvcc, the compiler of the comparison's cubins and of
# a CMake build; a trace of the other compiler's code is not resumed, and starts afresh).
# A second run into the same OUT_DIR resumes each tune from its trace.
set -uo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: bench/templates/run.sh OUT_DIR [TEMPLATE...]" >&2
  exit 2
fi
command="bench/templates/run.sh $*"
[[ "${PER_SHAPE:-0}" == 1 ]] && command="PER_SHAPE=1 $command"
[[ "${L2:-clean}" != clean ]] && command="L2=$L2 $command"
[[ "${COMPILER:-nvcc}" != nvcc ]] && command="COMPILER=$COMPILER $command"
out=$1
shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
budget="${BUDGET:-40}"
tune_time="${TUNE_TIME:-6s}"
start_all=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start_all)) s)" >&2; }
cd "$root" || exit 1

kev="${KERNELEVO:-$root/build/tool/kernelevo}"
if [[ ! -x "$kev" ]]; then
  build="${BUILD_DIR:-/tmp/kernelevo-bench-build}"
  step "no kernelevo at $kev: building it in $build (Release)"
  if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_TESTS=OFF \
           -DKERNELEVO_BUILD_BENCH=OFF && ninja -C "$build" -j"${JOBS:-16}" kernelevo; } > "$out/build.log" 2>&1; then
    tail -20 "$out/build.log" >&2
    echo "build failed: see $out/build.log" >&2
    exit 1
  fi
  kev="$build/tool/kernelevo"
fi
kev="$(cd "$(dirname "$kev")" && pwd)/$(basename "$kev")"  # the tunes of PER_SHAPE=1 run from OUT_DIR

if [[ $# -gt 0 ]]; then
  templates=("$@")
else
  mapfile -t templates < <("${PYTHON:-python3}" "$here/entries.py")
fi

step "kernelevo devices"
"$kev" devices --format json > "$out/devices.json" 2> "$out/devices.log" || echo "kernelevo devices failed: see $out/devices.log" >&2

per_shape="${PER_SHAPE:-0}"
project="$root"  # where the tunes run and the lockfile's sources lie: templates/T.cu
[[ "$per_shape" == 1 ]] && project="$out"
[[ "${COMPARE_ONLY:-0}" == 1 ]] && step "COMPARE_ONLY=1: no tunes, the winners of $out/kernelevo.lock.json"
for t in "${templates[@]}"; do
  [[ "${COMPARE_ONLY:-0}" == 1 ]] && break
  src="templates/$t.cu"
  if [[ ! -f "$src" ]]; then
    step "$t: $src does not exist (reported in the table)"
    continue
  fi
  if [[ "$per_shape" == 1 ]]; then
    dim="$("${PYTHON:-python3}" "$here/entries.py" --dispatch-by "$t")"
    step "per-shape form of $t: kernelevo init --template $t${dim:+ --dispatch $dim}"
    if ! KERNELEVO_TEMPLATES_DIR="$root/templates" "$kev" init --template "$t" ${dim:+--dispatch "$dim"} --force \
           "$out/templates/" > "$out/init_$t.log" 2>&1; then
      cat "$out/init_$t.log" >&2
      continue
    fi
  fi
  trace="$out/trace_$t.jsonl"
  resume=()
  # A template of several kernels keeps one trace per kernel (trace_T.<id>.jsonl).
  if [[ -s "$trace" ]] || compgen -G "$out/trace_$t.*.jsonl" > /dev/null; then resume=(--resume "$trace"); fi
  step "tune $t (budget $budget, at most $tune_time${resume:+, resuming})"
  tune() {
    (cd "$project" && "$kev" tune "$src" --strategy auto --budget "$budget" --time "$tune_time" --l2 "${L2:-clean}" \
      --compiler "${COMPILER:-nvcc}" --trace "$trace" "$@" \
      --lockfile "$out/kernelevo.lock.json" --format json > "$out/tune_$t.json" 2> "$out/tune_$t.log")
  }
  if ! tune "${resume[@]}"; then
    if [[ ${#resume[@]} -gt 0 ]]; then  # a trace of an older source does not resume: start over
      mv "$trace" "$trace.old"
      tune || echo "tune of $t failed: see $out/tune_$t.log" >&2
    else
      echo "tune of $t failed: see $out/tune_$t.log" >&2
    fi
  fi
done

if [[ "${TUNE_ONLY:-0}" == 1 ]]; then
  step "TUNE_ONLY=1: tuned into $out/kernelevo.lock.json, not compared"
  exit 0
fi
step "compare with PyTorch${TORCH_COMPILE:+ (TORCH_COMPILE=$TORCH_COMPILE)}"
compile_flag=()
[[ "${TORCH_COMPILE:-1}" == 0 ]] && compile_flag=(--no-compile)
per_what="per template"
[[ "$per_shape" == 1 ]] && per_what="per bucket of each template's per-shape form (PER_SHAPE=1)"
budget_note="kernelevo tune --strategy auto --budget $budget --time $tune_time --l2 ${L2:-clean} $per_what"
# A COMPARE_ONLY=1 run tuned nothing: the lockfile's tuned_with says how its winners were tuned.
[[ "${COMPARE_ONLY:-0}" == 1 ]] && budget_note="the lockfile's winners as an earlier run tuned them (their tuned_with), $per_what"
BUDGET_NOTE="$budget_note" \
  "${PYTHON:-python3}" "$here/compare_torch.py" --out "$out" --kernelevo "$kev" --rep-ms "${REP_MS:-200}" \
  --rounds "${ROUNDS:-3}" --source-root "$project" --command "$command" "${compile_flag[@]}" "${templates[@]}"
status=$?
step "done: $out/templates.md"
cat "$out/templates.md"
exit $status
