#!/bin/sh
# Compiles every point of the row-wise fp32 templates' spaces (softmax, rmsnorm, layernorm)
# with nvcc -cubin, for sm_80 and sm_90, in parallel; prints each failure and a count.
# (tests/cuda/templates_compile_test compiles a sample of points of every template with
# NVRTC and nvcc; `kernelevo tune --strategy exhaustive` checks and times every point on a
# GPU.)
# Usage: scripts/check_templates.sh [JOBS]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${1:-$(nproc)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in softmax rmsnorm layernorm; do
  prefix=$(echo "$t" | tr a-z A-Z)
  for arch in sm_80 sm_90; do
    for b in 64 128 256 512 1024; do
      for rt in 256 512 1024; do
        for v in 1 2 4; do
          for u in 1 2 4 8 16; do
            [ $((v * u)) -le 32 ] || continue
            echo "$t $arch -D${prefix}_BLOCK=$b -D${prefix}_MAX_ROW_THREADS=$rt -D${prefix}_VEC=$v -D${prefix}_UNROLL=$u"
          done
        done
      done
    done
  done
done >"$work/points"
total=$(wc -l <"$work/points")
echo "compiling $total points with $nvcc on $jobs jobs"
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 sh -c '
  t=$1; arch=$2; shift 2
  out=$(mktemp -p "'"$work"'")
  if ! "'"$nvcc"'" -cubin -arch="$arch" -std=c++17 "$@" "'"$root"'/templates/$t.cu" -o "$out.cubin" >"$out.log" 2>&1; then
    echo "FAILED: $t $arch $*"; cat "$out.log"
  fi
  rm -f "$out" "$out.cubin" "$out.log"
' sh <"$work/points" | tee "$work/failures"
failed=$(grep -c '^FAILED' "$work/failures")
echo "$((total - failed)) of $total points compiled, $failed failed"
[ "$failed" -eq 0 ]
