#!/usr/bin/env bash
# issue 24 on the device: per-batch tunes (two decode buckets: batch 1 and 32, the decode space with
# ATT_DEC_COMPACT; three prefill buckets) and the comparison beside SDPA at every shape.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
repo=$PWD
T=${T:-560}
cp bench/.call-att.sh $OUT/call.sh
PER_SHAPE=1 KEEP_KEV=1 KERNELS="${KERNELS-attention_decode_bf16 attention_fwd_sm90}" COMPARE=${COMPARE:-attention_fwd_sm90,attention_decode_bf16} \
  VALIDATE=${VALIDATE:-0} SHAPES=${SHAPES:-all} LAUNCHERS= MEMCHECK=0 TUNE_TIMEOUT=90s STRATEGY=auto BUDGET=${BUDGET:-120} TUNE_TIME=${TUNE_TIME:-35s} REP_MS=30 \
  timeout $((T - 25)) bash bench/templates/attention-run.sh $OUT/att > $OUT/att.log 2>&1
echo "attention-run exit $? after $(( $(date +%s) - start )) s"
tail -70 $OUT/att.log
rm -f $OUT/att/kernelevo
cd $OUT && [[ -d att/r ]] && tar czf att-partial.tgz att/r && rm -rf att/r
ls -la $OUT $OUT/att
# Memory-bound templates (issue 22) with the same kernelevo build, when MB names them.
if [[ -n ${MB:-} ]]; then
  cd "$repo" || exit 1
  kev=/tmp/kernelevo-attention-build/tool/kernelevo
  mstart=$(date +%s)
  # shellcheck disable=SC2086
  KERNELEVO=$kev L2=dirty PER_SHAPE=1 BUDGET=${MB_BUDGET:-200} TUNE_TIME=${MB_TUNE_TIME:-6s} TUNE_ONLY=1 \
    timeout ${MB_TUNE_T:-200} bench/templates/run.sh $OUT/mb $MB > $OUT/mb-tune.log 2>&1
  echo "mb tune exit $? after $(( $(date +%s) - mstart )) s"
  # shellcheck disable=SC2086
  KERNELEVO=$kev L2=dirty PER_SHAPE=1 COMPARE_ONLY=1 REP_MS=${MB_REP_MS:-60} \
    timeout ${MB_COMPARE_T:-200} bench/templates/run.sh $OUT/mb $MB > $OUT/mb-compare.log 2>&1
  echo "mb compare exit $? after $(( $(date +%s) - mstart )) s"
  grep -E '^\|' $OUT/mb/templates.md | head -60
  cd $OUT && tar czf mb.tgz mb && rm -rf mb
fi
