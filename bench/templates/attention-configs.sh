#!/usr/bin/env bash
# On an sm_90 GPU: the Hopper attention kernels' and the decode kernel's code paths, each
# checked against attention in double. tests/cmake/attention_launch's program (every launcher,
# grouped-query and causal shapes, empty sequences) is built with templates/attention_fwd.cu
# once per configuration below, the same values for the bf16 (ATT90_*) and fp16 (ATT90H_*)
# kernels, DEC_ settings for the decode kernel (ATT_DEC_*), and run; the
# tuner verifies the points it times, this covers the schedules before a tune reaches them.
#   bench/templates/attention-configs.sh OUT_DIR
# Writes OUT_DIR/NAME.out per configuration and OUT_DIR/summary.txt. Exit 1 if any differs.
# ONLY (a bash regular expression) keeps the configurations whose names match it; RUN_JOBS
# (default 4) programs run at once once built.
set -uo pipefail
out=${1:?usage: bench/templates/attention-configs.sh OUT_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
: > "$out/summary.txt"
export PATH=/usr/local/cuda/bin:$PATH
# Each within the spec's constraints (shared memory: (64 CONSUMERS + 2 STAGES BN) * 256 bytes
# for head_dim 128 at most 227 KiB; a consumer's registers: BN / 2 + 104 at most its share):
# a launch the spec would never make fails as "invalid argument" or tests a schedule no tune
# runs. bench/templates/test_attention_sdpa.py checks the list against the spec.
configs=(
  # The defaults are persistent (CTAS=132) with ping-pong; CTAS=0 is a block per query tile.
  "defaults="
  "tile_per_block=CTAS=0 PINGPONG=0"
  "pingpong=CTAS=0"
  "no_overlap=CTAS=0 PINGPONG=0 OVERLAP=0"
  "c1_bn64_s1=CTAS=0 PINGPONG=0 CONSUMERS=1 BN=64 STAGES=1"
  "c3_bn64_s3=CTAS=0 PINGPONG=0 CONSUMERS=3 BN=64 STAGES=3"
  "c1_bn192_s2=CTAS=0 PINGPONG=0 CONSUMERS=1 BN=192 STAGES=2"
  "pingpong_bn192_s1=CTAS=0 BN=192 STAGES=1"
  "pingpong_bn176_s2=CTAS=0 BN=176 STAGES=2"
  "c1_bn176_s2_no_overlap=CTAS=0 PINGPONG=0 CONSUMERS=1 BN=176 STAGES=2 OVERLAP=0"
  "c3_bn64_s1_no_overlap=CTAS=0 PINGPONG=0 CONSUMERS=3 BN=64 STAGES=1 OVERLAP=0"
  "pingpong_s3_eager=CTAS=0 STAGES=3 LAZY=0"
  "no_overlap_eager=CTAS=0 PINGPONG=0 OVERLAP=0 LAZY=0"
  "persistent=PINGPONG=0"
  "persistent_c3_bn64_s1_no_overlap=PINGPONG=0 CONSUMERS=3 BN=64 STAGES=1 OVERLAP=0"
  "persistent_c1_bn192_s2=PINGPONG=0 CONSUMERS=1 BN=192 STAGES=2"
  # Ping-pong's hand-off between tiles, persistent and a block a tile.
  "handoff=HANDOFF=1"
  "pingpong_handoff=CTAS=0 HANDOFF=1"
  # Stream-K over the persistent blocks: with the hand-off, without ping-pong, three consumers.
  "stream=STREAM=1 HANDOFF=1"
  "stream_no_pingpong=STREAM=1 PINGPONG=0"
  "stream_c3_bn64_s1_no_overlap=STREAM=1 PINGPONG=0 CONSUMERS=3 BN=64 STAGES=1 OVERLAP=0"
  # The decode kernel's (DEC_ settings, ATT_DEC_ in the source): fine splits (up to 64 a
  # query block, a tile each), unrolled copies with two stages, and clustered splits.
  # (The defaults are one stage, its K and V waited for apart, and eight warps: these name
  # their stages and warps.)
  "dec_fine=DEC_BLOCKS=2112 DEC_MIN_TILES=1 DEC_WARPS_N=1 DEC_BN=32 DEC_STAGES=3"
  "dec_unrolled=DEC_COMPACT=0 DEC_BLOCKS=264 DEC_STAGES=2 DEC_WARPS_N=4"
  "dec_cluster4=DEC_CLUSTER=4 DEC_BLOCKS=528 DEC_STAGES=3 DEC_WARPS_N=4"
  # One stage, several tiles a split, and the finest split.
  "dec_one_stage=DEC_STAGES=1 DEC_WARPS_N=8 DEC_BLOCKS=132 DEC_MIN_TILES=1"
  "dec_one_stage_fine=DEC_STAGES=1 DEC_WARPS_N=2 DEC_BN=64 DEC_BLOCKS=2112"
)
if [[ -n ${ONLY:-} ]]; then
  kept=()
  for c in "${configs[@]}"; do [[ ${c%%=*} =~ $ONLY ]] && kept+=("$c"); done
  configs=("${kept[@]}")
fi
build() {  # name, then NAME=VALUE settings
  local name=$1 defines=() kv
  shift
  rm -f "$out/$name.rc"  # an earlier run's into the same folder
  for kv in "$@"; do
    if [[ $kv == DEC_* ]]; then defines+=("-DATT_$kv"); else defines+=("-DATT90_$kv" "-DATT90H_$kv"); fi
  done
  nvcc -arch=sm_90a -O2 "${defines[@]}" -o "$out/$name" "$root/tests/cmake/attention_launch/main.cu" \
    "$root/templates/attention_fwd.cu" > "$out/$name.build.log" 2>&1 || echo "$name: build failed"
}
for c in "${configs[@]}"; do
  # shellcheck disable=SC2086
  build "${c%%=*}" ${c#*=} &
done
wait
# The programs check, they do not time: RUN_JOBS (default 4) of them share the GPU at once.
run_one() {  # name: its output, and its exit status in NAME.rc
  timeout 120 "$out/$1" > "$out/$1.out" 2>&1
  echo $? > "$out/$1.rc"
  rm -f "$out/$1"
}
for c in "${configs[@]}"; do
  name=${c%%=*}
  [[ -x $out/$name ]] || continue
  while (( $(jobs -rp | wc -l) >= ${RUN_JOBS:-4} )); do wait -n; done
  run_one "$name" &
done
wait
status=0
for c in "${configs[@]}"; do
  name=${c%%=*}
  [[ -f $out/$name.rc ]] || { echo "$name (${c#*=}): not built" | tee -a "$out/summary.txt"; status=1; continue; }
  rc=$(cat "$out/$name.rc")
  differs=$(grep -c "DIFFERS\|launch failed" "$out/$name.out")
  agrees=$(grep -c "agrees" "$out/$name.out")
  echo "$name (${c#*=}): exit $rc, $agrees agree, $differs differ or fail" | tee -a "$out/summary.txt"
  [[ $rc == 0 && $differs == 0 ]] || status=1
done
exit $status
