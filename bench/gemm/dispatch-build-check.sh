#!/usr/bin/env bash
# Builds a dispatching copy of gemm_sm90.cu (made by `kernelevo init --template gemm_sm90
# --dispatch M`) with a lockfile in a small CMake project through kernelevo_optimize, for
# sm_90a, and lists what the build compiled: one renamed variant of each kernel per distinct
# winner, and none of the original entry names. No GPU needed.
#   bench/gemm/dispatch-build-check.sh SOURCE LOCKFILE WORK_DIR [KERNELEVO]
set -euo pipefail
src=$(realpath "${1:?usage: dispatch-build-check.sh SOURCE LOCKFILE WORK_DIR [KERNELEVO]}")
lock=$(realpath "${2:?lockfile}")
work=${3:?work dir}/dispatch-build-check
kev=$(realpath "${4:-${KEV:-$(dirname "$0")/../../build/tool/kernelevo}}")
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work/app"
cp "$src" "$work/app/gemm_sm90.cu"
cp "$lock" "$work/app/kernelevo.lock.json"
cat > "$work/app/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
set(CMAKE_CUDA_ARCHITECTURES 90a)
project(gemm_dispatch LANGUAGES CXX CUDA)
include("$root/cmake/KernelEvo.cmake")
add_library(gemm_kernels STATIC gemm_sm90.cu)
kernelevo_optimize(gemm_kernels)
CMAKE
cmake -S "$work/app" -B "$work/build" -G Ninja -DKERNELEVO_EXECUTABLE="$kev" > "$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log"; exit 1; }
ninja -C "$work/build" > "$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
echo "compiled: $(grep -o 'gemm_sm90_kev[0-9]*\.cu' "$work/build.log" | sort -u | tr '\n' ' ')"
grep -h "variant [0-9]*:\|unused copy\|Unused" "$work/build/kernelevo/gemm_kernels/gemm_sm90_cu/variants/"*.cu
echo "entry symbols (nm: the host stubs nvcc emits for each extern \"C\" kernel):"
objs=("$work"/build/CMakeFiles/gemm_kernels.dir/kernelevo/gemm_kernels/gemm_sm90_cu/variants/*.o)
for o in "${objs[@]}"; do
  echo "$(basename "$o"): $(nm "$o" | awk '$2 == "T" {print $3}' | grep '^gemm_sm90' | sort | tr '\n' ' ')"
done
if nm "${objs[@]}" | awk '$2 == "T" {print $3}' | grep -qE '^gemm_sm90_(f16|bf16|fp8|bf16_gelu)(_naive)?$'; then
  echo "FAIL: an original entry name was compiled"
  exit 1
fi
dups=$(nm "${objs[@]}" | awk '$2 == "T" {print $3}' | sort | uniq -d)
[[ -z $dups ]] || { echo "FAIL: defined twice: $dups"; exit 1; }
echo "ok: each entry once, renamed per variant"
