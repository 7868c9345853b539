#!/usr/bin/env bash
# On an H200 (or any sm_90 GPU), one call: builds kernelevo (Release), runs the GPU tests,
# tunes gemm_sm90.cu's kernels and times every gemm_sm90 kernel beside cuBLAS
# (bench/templates/compare_torch.py: A @ B for fp16/bf16, torch._scaled_mm for fp8), then packs
# everything into OUT_DIR/results.tgz with the comparison table beside it.
#   bench/gemm/sm90-run.sh OUT_DIR
# Environment: KERNELS (the spec ids to tune, default gemm_sm90_fp8; empty: no tune, the source
# defaults are compared), BUDGET (default 60), TUNE_TIME (default 150s, each kernel), REP_MS
# (default 150), SKIP_TESTS=1 to leave the GPU tests out, BEFORE=DIR to time DIR/templates/
# gemm_sm90.cu (an earlier version) at its source defaults too, just before ours
# (r/before/templates.md), VARIANTS="--grid NAME=v1,v2 ..." to time a grid of the fp16
# kernel's configurations (bench/templates/variants.py, r/variants/), DISPATCH_BUCKETS="[[0, 64],
# [64, null]]" to tune and compare a copy made by `kernelevo init --template gemm_sm90
# --dispatch M` with those buckets of M (a winner per bucket, each kernel; r/dispatch/ holds the
# copy), and BUILD_CHECK=1 to build that copy with the tuned lockfile in a CMake project
# (kernelevo_optimize: one compiled variant per winner, r/build_check.txt lists the symbols).
set -uo pipefail
out=${1:?usage: bench/gemm/sm90-run.sh OUT_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
r=$out/r
mkdir -p "$r"
build=${BUILD_DIR:-/tmp/kernelevo-fp8-build}
# shellcheck source=bench/gpu-run-common.sh
source bench/gpu-run-common.sh
# shellcheck disable=SC2046
build_kernelevo kernelevo $([[ ${SKIP_TESTS:-0} == 1 ]] || echo kernelevo_gpu_tests)
if [[ ${SKIP_TESTS:-0} != 1 ]]; then
  step "GPU tests"
  (cd "$build" && ctest -L gpu --timeout 120) > "$r/ctest_gpu.log" 2>&1
  tail -4 "$r/ctest_gpu.log"
fi
"$kev" devices --format json > "$r/devices.json" 2>&1
source_root=.
if [[ -n ${DISPATCH_BUCKETS:-} ]]; then
  source_root=.bench-dispatch  # inside the project: the lockfile names a tuned source by its path
  rm -rf "$source_root"
  "$kev" init --template gemm_sm90 --dispatch M "$source_root/templates/" > /dev/null &&
    sed -i "s/buckets: per_problem\([,}]\)/buckets: $DISPATCH_BUCKETS\1/" "$source_root/templates/gemm_sm90.cu" ||
    exit 1
  grep -n "dispatch:" "$source_root/templates/gemm_sm90.cu"
  # A template whose dispatch line changed shape would otherwise be tuned per problem, silently.
  if grep -q "buckets: per_problem" "$source_root/templates/gemm_sm90.cu"; then
    echo "sm90-run.sh: DISPATCH_BUCKETS not applied: a dispatch line still says per_problem" >&2
    exit 1
  fi
  mkdir -p "$r/dispatch" && cp "$source_root/templates/gemm_sm90.cu" "$r/dispatch/"
fi
for k in ${KERNELS-gemm_sm90_fp8}; do
  step "tune $k"
  "$kev" tune "$source_root/templates/gemm_sm90.cu" --kernel "$k" --strategy auto --budget "${BUDGET:-60}" \
    --time "${TUNE_TIME:-150s}" --trace "$r/trace_$k.jsonl" --lockfile "$r/kernelevo.lock.json" \
    --format json > "$r/tune_$k.json" 2> "$r/tune_$k.log"
  tail -4 "$r/tune_$k.log"
done
if [[ -n ${BEFORE:-} ]]; then
  step "$BEFORE/templates/gemm_sm90.cu, source defaults"
  mkdir -p "$r/before"
  python3 bench/templates/compare_torch.py --out "$r/before" --kernelevo "$kev" --rep-ms "${REP_MS:-150}" \
    --source-root "$BEFORE" --no-compile --command "$BEFORE/templates/gemm_sm90.cu" gemm_sm90 \
    > "$r/before/compare.log" 2>&1
  rm -rf "$r/before/cubins"
fi
if [[ -n ${VARIANTS:-} ]]; then
  step "variants: $VARIANTS"
  # shellcheck disable=SC2086
  python3 bench/templates/variants.py --out "$r/variants" --kernelevo "$kev" --rep-ms 80 $VARIANTS \
    gemm_sm90 > "$r/variants.log" 2>&1
  cat "$r/variants/variants_gemm_sm90.md" 2>/dev/null || tail -5 "$r/variants.log"
  rm -rf "$r/variants/cubins"
fi
step "compare with cuBLAS"
python3 bench/templates/compare_torch.py --out "$r" --kernelevo "$kev" --rep-ms "${REP_MS:-150}" \
  --source-root "$source_root" --no-compile --command "bench/gemm/sm90-run.sh" gemm_sm90 > "$r/compare.log" 2>&1
tail -5 "$r/compare.log"
cp "$r/templates.md" "$out/templates.md" 2>/dev/null
cat "$r/templates.md"
# The fp8 winner's matrix instructions (QGMMA: wgmma on fp8), and no HGMMA/HMMA fallback.
for c in "$r"/cubins/*fp8*; do
  echo "$(basename "$c"): $(cuobjdump -sass "$c" | grep -o '[QH]GMMA\.[0-9A-Zx.]*' | sort | uniq -c | tr '\n' ' ')"
done | tee "$r/sass_fp8.txt"
rm -rf "$r/cubins"
if [[ ${BUILD_CHECK:-0} == 1 && -n ${DISPATCH_BUCKETS:-} ]]; then
  step "build the dispatching copy with the tuned lockfile"
  bench/gemm/dispatch-build-check.sh "$source_root/templates/gemm_sm90.cu" "$r/kernelevo.lock.json" \
    "$build" "$kev" > "$r/build_check.txt" 2>&1
  tail -12 "$r/build_check.txt"
fi
step finished
(cd "$out" && tar czf results.tgz r && rm -rf r)
