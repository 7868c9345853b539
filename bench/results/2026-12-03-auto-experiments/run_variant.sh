#!/bin/bash
# usage: run.sh NAME SEEDS [tune|held|all] ; env X_* passed through
name=$1; seeds=${2:-20}; set=${3:-tune}
S=/work/shared/data/spaces
T=$S/convolution_A100.json.gz,$S/convolution_MI250X.json.gz,$S/convolution_W6600.json.gz,$S/dedispersion_MI250X.json.gz
H=$S/convolution_A4000.json.gz,$S/convolution_A6000.json.gz,$S/convolution_W7800.json.gz,$S/dedispersion_W6600.json.gz,$S/dedispersion_W7800.json.gz
cd /work/t20
case $set in
 tune) args=(t=$T);;
 held) args=(h=$H h200=bench/traces/sgemm.h200.jsonl.gz);;
 all) args=(t=$T h=$H h200=bench/traces/sgemm.h200.jsonl.gz);;
esac
start=$(date +%s.%N)
build-bench/bench/kernelevo_strategy_table --seeds $seeds --strategies ${STRATS:-auto,random} --csv build-bench/exp/$name.csv "${args[@]}" >/dev/null
end=$(date +%s.%N)
echo "== $name $(env | grep '^X_' | tr '\n' ' ') ($(echo "$end - $start" | bc)s)"
python3 build-bench/exp/eval.py build-bench/exp/$name.csv
