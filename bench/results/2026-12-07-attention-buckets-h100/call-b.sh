#!/usr/bin/env bash
# Device call B (OUT set), from the repository root, on the machine call A left warm (its
# kernelevo and lockfile reused; built afresh when the machine is not the same): issue 22's
# static-shape probe (patch_static.py on this copy of templates/, variants.py at the three
# mid-size shapes, X_STATIC 0 and 1 over the per-shape winners, three timers), then issue 24:
# the attention kernels tuned per batch bucket and compared beside SDPA's fastest backend.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
d=bench/results/2026-12-07-h200-run
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))"; }
cp "$0" "$OUT/call-b.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
b=/tmp/kev-build
kev_env=()
[[ -x $b/tool/kernelevo ]] && kev_env=("KEV=$b/tool/kernelevo")
echo "reusing: ${kev_env[*]:-(nothing: building)}"
# Issue 24 first, in the background of nothing else: it holds the GPU alone.
env "${kev_env[@]}" BUILD_DIR=$b PER_SHAPE=1 KERNELS="attention_fwd_sm90 attention_decode_bf16" \
  COMPARE=attention_fwd_sm90,attention_decode_bf16 VALIDATE=0 SHAPES=all LAUNCHERS= MEMCHECK=0 TUNE_TIMEOUT=90s \
  STRATEGY=auto BUDGET=100 TUNE_TIME="${TUNE_TIME:-30s}" TUNES_END="${TUNES_END:-300}" REP_MS=30 \
  timeout "${ATT_TIMEOUT:-430}" bash bench/templates/attention-run.sh "$OUT/att" > "$OUT/att.log" 2>&1
echo "attention-run exit $? after $(el) s"
grep -vE "^\s*$" "$OUT/att.log" | tail -45
(cd "$OUT" && [[ -d att/r ]] && tar czf att.tgz att && rm -rf att)
lock=/tmp/keep/kernelevo.lock.json
if [[ -f $lock && -x $b/tool/kernelevo ]]; then
  python3 $d/patch_static.py
  mkdir -p "$OUT/static"
  for p in "bias_gelu BIAS_GELU ROWS=1,2,4,8" "layernorm_bf16 LAYERNORM_BF16 UNROLL=2,4,8" "softmax SOFTMAX UNROLL=2,4,8"; do
    read -r t m work <<< "$p"
    [[ $(el) -gt 540 ]] && break
    $b/tool/kernelevo scan "templates/$t.cu" --format json > "$OUT/static/$t.spec.json"
    timeout 90 python3 bench/templates/variants.py --out "$OUT/static" --scan-json "$OUT/static/$t.spec.json" \
      --lockfile $lock --rep-ms 30 --timers dirty,do_bench,clean --grid "${m}_STATIC=0,1" --grid "${m}_${work}" "$t" > "$OUT/static/$t.log" 2>&1
    echo "variants $t exit $? after $(el) s"
    cat "$OUT/static/variants_$t.md" 2>/dev/null
  done
  git checkout -- templates
  (cd "$OUT" && tar czf static.tgz static && rm -rf static)
fi
