#!/usr/bin/env bash
# issue 24 on the device: the Hopper prefill kernel searched completely in each batch bucket
# (206 points a bucket), then beside SDPA at the prefill shapes.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
T=${T:-330}
cp bench/.call-ex.sh $OUT/call.sh
PER_SHAPE=1 KERNELS="attention_fwd_sm90" COMPARE=attention_fwd_sm90 VALIDATE=0 SHAPES=prefill LAUNCHERS= \
  MEMCHECK=0 TUNE_TIMEOUT=90s STRATEGY=exhaustive BUDGET=206 TUNE_TIME=${TUNE_TIME:-50s} REP_MS=30 \
  timeout $((T - 20)) bash bench/templates/attention-run.sh $OUT/att > $OUT/att.log 2>&1
echo "attention-run exit $? after $(( $(date +%s) - start )) s"
tail -40 $OUT/att.log
cd $OUT && [[ -d att/r ]] && tar czf att-partial.tgz att/r && rm -rf att/r
ls -la $OUT $OUT/att
