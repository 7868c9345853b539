#!/usr/bin/env bash
# The `kernelevo evolve` demonstration on a GPU: the scripted OpenAI-compatible server
# (tests/llm/scripted_server.py) answers with optimisation ideas, a coalesced float4
# rewrite of bench/evolve/chunked_scale.cu, a cheating variant (skips work after the first
# launch) and one that does not compile; evolve must verify, measure and adopt only the
# rewrite. Usage: bench/evolve/run.sh KERNELEVO_BINARY OUT_DIR
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
exit $rc
