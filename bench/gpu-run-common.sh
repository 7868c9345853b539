# shellcheck shell=bash disable=SC2154,SC2034
# Sourced by the one-call GPU runs (bench/gemm/sm90-run.sh, bench/templates/attention-run.sh):
# the device, date and tree (scripts/tree-id: its content's git tree hash, as the commit holding
# it names it, since on the device machine HEAD need not follow the tree) into $r/environment.txt, then kernelevo built (Release) into
# $build with the named targets, its log in $r/build.log; sets step(), kev and the compile
# cache. Expects r (the results folder) and build; ends the run when the build fails.
# KEV=PATH uses that kernelevo (one an earlier call built and kept with KEEP_KEV) and
# builds nothing; KEEP_KEV=1 keeps a stripped copy of the binary as $out/kernelevo.
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
step() { echo "== $* ($(($(date +%s) - t0)) s)"; }
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  scripts/tree-id
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
} > "$r/environment.txt" 2>&1
build_kernelevo() {
  if [[ -n ${KEV:-} ]]; then
    step "prebuilt $KEV"
    kev=$(realpath "$KEV")
    export KERNELEVO_TEMPLATES_DIR=$PWD/templates KERNELEVO_CACHE_DIR=$build/compile-cache
    mkdir -p "$build"
    return
  fi
  step build
  if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF &&
         ninja -C "$build" -j16 "$@"; } > "$r/build.log" 2>&1; then
    tail -30 "$r/build.log"
    exit 1
  fi
  kev=$build/tool/kernelevo
  export KERNELEVO_CACHE_DIR=$build/compile-cache
  if [[ ${KEEP_KEV:-0} == 1 ]]; then strip -o "$out/kernelevo" "$kev"; fi
}
# The CMake test programs that call the Hopper templates' launchers (tests/cmake/NAME.cmake),
# run with this kernelevo on this GPU; each one's log in $r/NAME.log.
run_launcher_programs() {
  local name
  for name in "$@"; do
    cmake -DKERNELEVO="$kev" -DSOURCE_DIR="$PWD" -DCUDA_COMPILER="$(command -v nvcc)" \
      -DWORK_DIR="/tmp/kernelevo-$name" -P "tests/cmake/$name.cmake" > "$r/$name.log" 2>&1
    echo "$name: exit $?"
  done
}
