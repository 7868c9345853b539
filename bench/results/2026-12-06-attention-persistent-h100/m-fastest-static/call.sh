#!/usr/bin/env bash
export PATH=/usr/local/cuda/bin:$PATH
WIN='"ATT90_BN":128,"ATT90_CONSUMERS":2,"ATT90_STAGES":2,"ATT90_OVERLAP":1,"ATT90_PINGPONG":1,"ATT90_LAZY":1'
mkdir -p $OUT/launch
( for c in "132 -DATT90_PINGPONG=1 -DATT90H_PINGPONG=1" "132 -DATT90_CONSUMERS=1 -DATT90_BN=64 -DATT90_STAGES=1 -DATT90H_CONSUMERS=1"; do
    n=$(echo $c | tr -dc 'A-Z0-9_' | head -c 40)
    nvcc -arch=sm_90a -O2 -DATT90_CTAS=${c%% *} -DATT90H_CTAS=${c%% *} ${c#* } -o /tmp/al_$n tests/cmake/attention_launch/main.cu templates/attention_fwd.cu > $OUT/launch/$n.build 2>&1 &
  done; wait
  for f in /tmp/al_*; do timeout 120 $f > $OUT/launch/$(basename $f).out 2>&1; echo "$(basename $f): exit $? agree $(grep -c agrees $OUT/launch/$(basename $f).out) differ $(grep -c 'DIFFERS\|launch failed' $OUT/launch/$(basename $f).out)"; done ) > $OUT/launch/summary.txt 2>&1 &
out=$OUT; build=/tmp/kernelevo-attention-build; r=$OUT
source bench/gpu-run-common.sh
build_kernelevo kernelevo
timeout 300 python3 bench/templates/attention_sdpa.py --out "$OUT/validate" --kernelevo "$kev" --shapes validate \
  --kernels attention_fwd_sm90 --params "attention_fwd_sm90={$WIN,\"ATT90_CTAS\":132}" > $OUT/validate.log 2>&1
echo "validate exit $?"; grep -c "| yes" $OUT/validate/attention.md; grep "| no\|mismatch" $OUT/validate/attention.md | head
for rnd in 1 2; do for c in 0 132; do
  d=$OUT/cmp-$rnd-ctas$c; mkdir -p $d
  timeout 200 python3 bench/templates/attention_sdpa.py --out $d --kernelevo "$kev" --shapes prefill --kernels attention_fwd_sm90 \
    --rep-ms 30 --params "attention_fwd_sm90={$WIN,\"ATT90_CTAS\":$c}" > $d/compare.log 2>&1
  echo "== round $rnd CTAS=$c exit $?"; grep "^| attention" $d/attention.md | cut -d'|' -f3,5,7,8,11,12,13,14,15
done; done
wait; cat $OUT/launch/summary.txt
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv
