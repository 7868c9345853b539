#!/usr/bin/env bash
# issue 24 on the device: per-batch tunes (three prefill buckets: 16 x 1024, 4 x 4096, 1 x 16384;
# two decode buckets: batch 1 and 32) and the comparison beside SDPA at every shape.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
T=${T:-560}
cp bench/.call-att.sh $OUT/call.sh
PER_SHAPE=1 KEEP_KEV=1 KERNELS="attention_fwd_sm90 attention_decode_bf16" COMPARE=attention_fwd_sm90,attention_decode_bf16 \
  VALIDATE=${VALIDATE:-0} SHAPES=all LAUNCHERS= MEMCHECK=0 TUNE_TIMEOUT=90s STRATEGY=auto BUDGET=100 TUNE_TIME=${TUNE_TIME:-35s} REP_MS=30 \
  timeout $((T - 25)) bash bench/templates/attention-run.sh $OUT/att > $OUT/att.log 2>&1
echo "attention-run exit $? after $(( $(date +%s) - start )) s"
tail -70 $OUT/att.log
rm -f $OUT/att/kernelevo
cd $OUT && [[ -d att/r ]] && tar czf att-partial.tgz att/r && rm -rf att/r
ls -la $OUT $OUT/att
