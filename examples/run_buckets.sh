#!/bin/sh
# Per-shape winners in examples/softmax-app, on a GPU, in one run: tunes the app twice from
# no lockfile, with its softmax spec as committed (`dispatch`: a winner per bucket of cols)
# and with the `dispatch` line removed (one winner for both shapes, as before buckets), then
# builds and runs the app three ways: per bucket, one configuration, the source defaults.
# Each app checks softmax and RMSNorm against the CPU at both tuned shapes and at an untuned
# one between the buckets, and times them (cold L2, median of 20).
# Usage: [KERNELEVO_EXECUTABLE=path] [TUNE_ARGS="--strategy;exhaustive"] examples/run_buckets.sh [OUT]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/kernelevo-buckets}
mkdir -p "$out"
. "$root/examples/build_tool.sh"  # $KERNELEVO_EXECUTABLE, else one built here
tune_args=${TUNE_ARGS:---strategy;exhaustive}
status=0
# name, tune (yes/no), strip-dispatch (yes/no)
build() {
  name=$1 tune=$2 strip=$3
  src="$out/$name-src" bin="$out/$name"
  rm -rf "$src" "$bin"
  cp -r "$root/examples/softmax-app" "$src"
  rm -f "$src/kernelevo.lock.json"
  [ "$strip" = yes ] && sed -i '/^dispatch:/d' "$src/src/softmax.cu"
  echo "=== $name: configure" >&2
  cmake -S "$src" -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DKERNELEVO_EXECUTABLE="$tool" -DKERNELEVO_MODULE="$root/cmake/KernelEvo.cmake" \
    "-DKERNELEVO_TUNE_ARGS=$tune_args" >"$out/$name.log" 2>&1 || { tail -20 "$out/$name.log"; status=1; return; }
  if [ "$tune" = yes ]; then
    echo "=== $name: kernelevo-tune" >&2
    start=$(date +%s)
    cmake --build "$bin" --target kernelevo-tune >"$out/$name-tune.log" 2>&1 ||
      { tail -30 "$out/$name-tune.log"; status=1; return; }
    echo "$name: kernelevo-tune took $(($(date +%s) - start)) s" >&2
    cp "$src/kernelevo.lock.json" "$out/$name.lock.json"
  fi
  echo "=== $name: build" >&2
  cmake --build "$bin" >>"$out/$name.log" 2>&1 || { tail -20 "$out/$name.log"; status=1; return; }
}
run() {
  echo "=== $1"
  "$out/$1/softmax_app" || status=1
}
build buckets yes no
build single yes yes
build defaults no no
# The three apps one after the other, twice, so that drift between them shows.
for round in 1 2; do
  echo "##### round $round"
  run buckets
  run single
  run defaults
done
exit $status
