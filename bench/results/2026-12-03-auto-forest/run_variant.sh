#!/bin/bash
# usage: run_variant.sh NAME SEEDS [tune|held] ; the X_* environment variables of
# experiment.patch are passed through. Needs build-bench (Release, no CUDA) with the patch applied:
#   git apply bench/results/2026-12-03-auto-forest/experiment.patch
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_TESTS=OFF \
#     -DKERNELEVO_WITH_CUDA=OFF && ninja -j2 -C build-bench kernelevo_strategy_table
name=$1; seeds=${2:-20}; set=${3:-tune}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
S=${SPACES:-$root/../shared/data/spaces}
T=$S/convolution_A100.json.gz,$S/convolution_MI250X.json.gz,$S/convolution_W6600.json.gz,$S/dedispersion_MI250X.json.gz
H=$S/convolution_A4000.json.gz,$S/convolution_A6000.json.gz,$S/convolution_W7800.json.gz,$S/dedispersion_W6600.json.gz,$S/dedispersion_W7800.json.gz
case $set in
  tune) args=(t=$T) ;;
  held) args=(h=$H h200=$root/bench/traces/sgemm.h200.jsonl.gz) ;;
esac
mkdir -p "$root/build-bench/exp"
csv=$root/build-bench/exp/$name.csv
start=$(date +%s.%N)
"$root/build-bench/bench/kernelevo_strategy_table" --seeds "$seeds" --strategies "${STRATS:-auto}" \
  --csv "$csv" "${args[@]}" >/dev/null
end=$(date +%s.%N)
echo "== $name $(env | grep '^X_' | tr '\n' ' ') ($(echo "$end - $start" | bc)s)"
python3 "$here/eval.py" "$csv"
