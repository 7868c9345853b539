#!/usr/bin/env bash
# The `kernelevo evolve` demonstration on a GPU: the scripted OpenAI-compatible server
# (tests/llm/scripted_server.py) answers with optimisation ideas, a coalesced float4
# rewrite of bench/evolve/chunked_scale.cu, a cheating variant (skips work after the first
# launch) and one that does not compile; evolve must verify, measure and adopt only the
# rewrite. Then bench/evolve/app is built twice with kernelevo_optimize(): with the
# lockfile evolve wrote (the variant) and without one (the original), and each build runs,
# and `kernelevo check` on the evolved project measures the variant against its record.
# Usage: bench/evolve/run.sh KERNELEVO_BINARY OUT_DIR
set -euo pipefail
kev=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out/work" "$out/requests"
cp "$here/chunked_scale.cu" "$out/work/"
python3 "$repo/tests/llm/scripted_server.py" "$here/script.json" "$out/requests" > "$out/server.port" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q PORT "$out/server.port" 2>/dev/null && break; sleep 0.1; done
port=$(awk '{print $2}' "$out/server.port")
cd "$out/work"
set +e
KERNELEVO_LLM_URL="http://127.0.0.1:$port/v1" KERNELEVO_LLM_MODEL=scripted \
  "$kev" evolve chunked_scale.cu --generations 1 --candidates 3 --variant-budget 3 \
  --report "$out/evolve-report.json" --lockfile "$out/work/kernelevo.lock.json" \
  > "$out/evolve-summary.txt" 2> "$out/evolve-progress.txt"
rc=$?
set -e
echo "exit code $rc" >> "$out/evolve-summary.txt"
cat "$out/evolve-progress.txt" "$out/evolve-summary.txt"
[ "$rc" -eq 0 ] || exit $rc

# The program built with the lockfile (the variant) and without (the original).
cp "$here/app/CMakeLists.txt" "$here/app/main.cpp" "$out/work/"
app_rc=0
: > "$out/app-runs.txt"
for build in variant original; do
  lock="$out/work/kernelevo.lock.json"
  [ "$build" = original ] && lock="$out/no-lockfile/kernelevo.lock.json"
  if cmake -S "$out/work" -B "$out/app-$build" -DCMAKE_BUILD_TYPE=Release \
       -DKERNELEVO_EXECUTABLE="$kev" -DKERNELEVO_MODULE="$repo/cmake/KernelEvo.cmake" \
       -DEVOLVE_APP_LOCKFILE="$lock" > "$out/app-$build.log" 2>&1 &&
     cmake --build "$out/app-$build" >> "$out/app-$build.log" 2>&1; then
    grep -h "kernelevo:" "$out/app-$build.log" | sed "s/^/[$build build] /" >> "$out/app-runs.txt" || true
    run_out=$("$out/app-$build/evolve_app" 2>&1) || app_rc=1
    echo "[$build build] $run_out" >> "$out/app-runs.txt"
  else
    tail -20 "$out/app-$build.log" >> "$out/app-runs.txt"
    app_rc=1
  fi
done
cat "$out/app-runs.txt"

# The gate on the evolved project measures what the build compiles: the variant.
(cd "$out/work" && "$kev" check chunked_scale.cu --lockfile kernelevo.lock.json --rounds 5 \
  --report-json "$out/check-report.json") > "$out/check.txt" 2>&1 || app_rc=1
cat "$out/check.txt"
exit $app_rc
