#!/usr/bin/env bash
# Device call (OUT set), from the repository root, any sm_90 GPU: Stream-K over the last round
# (ATT90_STREAM, commits 52c495f and 467aeec, not yet run on a GPU) checked and measured beside
# whole tiles. attention-configs.sh's defaults and Stream-K schedules (every launcher, odd,
# causal, grouped and empty shapes against attention in double) while kernelevo builds; then
# attention_sdpa.py at the twelve prefill shapes three times: the source defaults (whole
# tiles), with Stream-K, and with Stream-K and the hand-off, each beside SDPA's fastest
# backend in alternating rounds, both timers, every row verified; the GPU's clocks and power
# sampled throughout (clocks.csv, marks.txt). About 330-370 s on an H100's timings.
# Shorter: CONFIGS (the configurations' regular expression), CONFIGS_TIME (their limit, s),
# RUNS (the runs, in order, of whole, stream and stream_handoff), RUN_TIME (each run's limit).
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))"; }
cp "$0" "$OUT/call-stream.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
{ date -u +%FT%TZ; git log -1 --format=%H; scripts/tree-id; git status --short; } > "$OUT/environment.txt" 2>/dev/null
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 > "$OUT/clocks.csv" 2>&1 &
smi=$!
b=/tmp/kev-build
{ cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_BENCH=OFF > /dev/null &&
  ninja -C $b -j8 kernelevo > "$OUT/build.log" 2>&1; echo "build exit $? after $(el) s"; } &
build=$!
ONLY=${CONFIGS:-'^(defaults|stream.*)$'} timeout "${CONFIGS_TIME:-240}" bash bench/templates/attention-configs.sh "$OUT/configs" > "$OUT/configs.log" 2>&1
echo "configs exit $? after $(el) s"; cat "$OUT/configs/summary.txt"
# Fewer files come back than a run writes: each step's folder packed as soon as it ends.
pkill -f "$OUT/configs/" || true  # programs the limit left running would share the GPU with the timing
(cd "$OUT" && tar czf configs.tgz configs && rm -rf configs)
wait $build
run() {  # name, then attention_sdpa.py arguments
  local name=$1; shift
  echo "== $name from $(el) s" >> "$OUT/marks.txt"; date -u +%T >> "$OUT/marks.txt"
  timeout "${RUN_TIME:-120}" python3 bench/templates/attention_sdpa.py --out "$OUT/$name" --kernelevo $b/tool/kernelevo \
    --shapes prefill --kernels attention_fwd_sm90 --rep-ms 30 "$@" > "$OUT/$name.log" 2>&1
  echo "$name exit $? after $(el) s"
  grep -E '^\| attention' "$OUT/$name/attention.md" | awk -F'|' '{print $3,$4,$6,$7,$8,$11,$12,$13,$14}'
  (cd "$OUT" && [[ -d $name ]] && cp "$name/attention.md" "$name.md"; tar czf "$name.tgz" "$name" && rm -rf "$name")
}
declare -A params=([whole]='' [stream]='{"ATT90_STREAM": 1}' [stream_handoff]='{"ATT90_STREAM": 1, "ATT90_HANDOFF": 1}')
for r in ${RUNS:-whole stream stream_handoff}; do
  if [[ -n ${params[$r]} ]]; then run "$r" --params "attention_fwd_sm90=${params[$r]}"; else run "$r"; fi
done
kill $smi
