#!/usr/bin/env bash
# issue 24 on the device: per-batch tunes of the decode kernel (clusters new) and the Hopper
# prefill kernel, beside SDPA at every shape, then the dispatch CMake program if time is left.
set -u
export PATH=/usr/local/cuda/bin:$PATH KERNELEVO_TEMPLATES_DIR=$PWD/templates
start=$(date +%s)
T=${T:-540}
PER_SHAPE=1 KERNELS="attention_decode_bf16 attention_fwd_sm90" COMPARE=attention_fwd_sm90,attention_decode_bf16 \
  SHAPES=all VALIDATE=0 LAUNCHERS= MEMCHECK=0 STRATEGY=auto BUDGET=100 TUNE_TIME=45s REP_MS=30 \
  timeout $((T - 120)) bash bench/templates/attention-run.sh $OUT/att > $OUT/att.log 2>&1
echo "attention-run exit $? after $(( $(date +%s) - start )) s"
tail -60 $OUT/att.log
left=$(( T - 25 - ($(date +%s) - start) ))
if [[ -x $OUT/att/kernelevo && $left -gt 30 ]]; then
  timeout $left cmake -DKERNELEVO=$OUT/att/kernelevo -DSOURCE_DIR=$PWD -DCUDA_COMPILER=$(command -v nvcc) \
    -DWORK_DIR=/tmp/kev-dispatch -P tests/cmake/attention_dispatch.cmake > $OUT/attention_dispatch.log 2>&1
  echo "attention_dispatch exit $?"; tail -15 $OUT/attention_dispatch.log
fi
rm -f $OUT/att/kernelevo
cd $OUT && [[ -d att/r ]] && tar czf att-partial.tgz att/r && rm -rf att/r
ls -la $OUT $OUT/att
