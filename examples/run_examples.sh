#!/bin/sh
# Builds the kernelevo tool and the softmax-app example four ways, then runs each app:
# with the lockfile (sm_90), without it (source defaults), for 80;90, and for 80 only
# (on an sm_90 GPU the last runs the compute_80 PTX, with the sm_80 values).
# Usage: [KERNELEVO_EXECUTABLE=path] examples/run_examples.sh [BUILD_ROOT]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/kernelevo-examples}
mkdir -p "$out"
. "$root/examples/build_tool.sh"  # $KERNELEVO_EXECUTABLE, else one built here
status=0
run() {  # name, source dir, extra cmake args...
  name=$1; src=$2; shift 2
  echo "=== $name"
  cmake -S "$src" -B "$out/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKERNELEVO_EXECUTABLE="$tool" "$@" >"$out/$name.log" 2>&1 &&
    cmake --build "$out/$name" >>"$out/$name.log" 2>&1 ||
    { tail -20 "$out/$name.log"; status=1; return; }
  grep -h "warning" "$out/$name.log"
  "$out/$name/softmax_app" 2>/dev/null || "$out/$name/softmax-app/softmax_app" || status=1
}
run locked "$root/examples/softmax-app" -DCMAKE_CUDA_ARCHITECTURES=90
run defaults "$root/examples/softmax-app" -DCMAKE_CUDA_ARCHITECTURES=90 -DSOFTMAX_APP_LOCKFILE="$out/no-lockfile/kernelevo.lock.json"
run multiarch "$root/examples/softmax-app-multiarch"
run sm80-only "$root/examples/softmax-app" -DCMAKE_CUDA_ARCHITECTURES=80
exit $status
