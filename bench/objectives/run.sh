#!/usr/bin/env bash
# Secondary objectives on a real GPU: tunes copies of templates with an `objectives` line
# added to their spec, and keeps each tune's text output (the Pareto front and the rule's
# pick), its JSON, its trace (every passed configuration's registers, shared and local
# bytes) and its report (the speedup's 95% interval from the run's own measurements).
#   bench/objectives/run.sh DEST
# Environment: KERNELEVO (the tool, default build/tool/kernelevo), TUNE_TIME (each tune's
# wall limit, default 120s), BUDGET (default 150).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:?usage: bench/objectives/run.sh DEST}
kev=${KERNELEVO:-$root/build/tool/kernelevo}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d)
git -C "$work" init -q

# template  objectives line (inserted after the spec's tolerance line)
runs=(
  "softmax|objectives: {minimize: [registers], within: 0.02}"
  "rmsnorm_bf16|objectives: {minimize: [registers, shared_bytes], within: 0.02}"
  "sgemm|objectives: {minimize: [registers, local_bytes], within: 0.03}"
)
for run in "${runs[@]}"; do
  name=${run%%|*} line=${run#*|}
  python3 - "$root/templates/$name.cu" "$work/$name.cu" "$line" <<'PY'
import sys
src, out, line = sys.argv[1:]
text = open(src).read()
lines = text.split("\n")
at = next(i for i, l in enumerate(lines) if l.startswith("tolerance:"))
lines.insert(at + 1, line)
open(out, "w").write("\n".join(lines))
PY
  echo "== $name: $line" >&2
  (cd "$work" && "$kev" tune "$name.cu" --strategy auto --budget "${BUDGET:-150}" --time "${TUNE_TIME:-120s}" \
     --trace "$dest/trace_$name.jsonl" --lockfile "$dest/objectives.lock.json" --report "$dest/report_$name") \
     > "$dest/tune_$name.txt" 2> "$dest/tune_$name.log" || echo "tune $name failed: exit $?" >&2
  cat "$dest/tune_$name.txt" >&2
done
rm -rf "$work"
