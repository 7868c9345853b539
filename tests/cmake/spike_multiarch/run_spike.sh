#!/bin/sh
# Builds the spike for several architecture lists and runs each build (on a GPU, it prints
# which device image loaded and whether host and device agree on the tuned values).
# Usage: tests/cmake/spike_multiarch/run_spike.sh [BUILD_ROOT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-/tmp/kernelevo-spike}
status=0
for archs in "80;90" "80" "90" "80-real;90-virtual" "80-virtual"; do
  dir="$root/$(echo "$archs" | tr ';' '_')"
  echo "=== CMAKE_CUDA_ARCHITECTURES=$archs"
  cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES="$archs" >/dev/null &&
    cmake --build "$dir" >/dev/null || { echo "build failed"; status=1; continue; }
  "$dir/spike" || status=1
done
for archs in "80;90" "90"; do
  dir="$root/template_$(echo "$archs" | tr ';' '_')"
  echo "=== CMAKE_CUDA_ARCHITECTURES=$archs with a kernel template instantiated by host code"
  cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    -DSPIKE_TEMPLATE_LAUNCH=ON >/dev/null || { status=1; continue; }
  if cmake --build "$dir" >"$dir/build.log" 2>&1; then
    "$dir/spike" || status=1
  else
    echo "build refused:"; grep -m1 -o 'static assertion failed with "[^"]*"' "$dir/build.log"
  fi
done
exit $status
