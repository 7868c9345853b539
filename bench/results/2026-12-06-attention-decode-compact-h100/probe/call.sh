#!/usr/bin/env bash
# Decode probe: compact (rolled copy/merge loops) against unrolled, beside cuDNN.
set -u
cp "$0" "$OUT/call.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
git log -1 --format=%H > "$OUT/tree.txt" 2>/dev/null; git status --short >> "$OUT/tree.txt" 2>/dev/null
base='"ATT_DEC_BN": 32, "ATT_DEC_MIN_TILES": 1, "ATT_DEC_CLUSTER": 1'
declare -A v
v[w8s1]="{$base, \"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_STAGES\": 1, \"ATT_DEC_WARPS_N\": 8, \"ATT_DEC_COMPACT\": 0}"
v[w8s1c]="{$base, \"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_STAGES\": 1, \"ATT_DEC_WARPS_N\": 8, \"ATT_DEC_COMPACT\": 1}"
v[w4s3]="{$base, \"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_STAGES\": 3, \"ATT_DEC_WARPS_N\": 4, \"ATT_DEC_COMPACT\": 0}"
v[w4s3c]="{$base, \"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_STAGES\": 3, \"ATT_DEC_WARPS_N\": 4, \"ATT_DEC_COMPACT\": 1}"
v[w4s2c264]="{$base, \"ATT_DEC_BLOCKS\": 264, \"ATT_DEC_STAGES\": 2, \"ATT_DEC_WARPS_N\": 4, \"ATT_DEC_COMPACT\": 1}"
v[w8s1c_cl8]="{\"ATT_DEC_BN\": 32, \"ATT_DEC_MIN_TILES\": 1, \"ATT_DEC_CLUSTER\": 8, \"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_STAGES\": 1, \"ATT_DEC_WARPS_N\": 8, \"ATT_DEC_COMPACT\": 1}"
run() {  # name shapes pass
  local d=$OUT/$3/$1-$2
  timeout 120 python3 bench/templates/attention_sdpa.py --out "$d" --spec-json bench/.spec.json \
    --shapes "$2" --kernels attention_decode_bf16 --params "attention_decode_bf16=${v[$1]}" --rep-ms 30 > "$d.log" 2>&1
  echo "== $3 $1 $2: exit $?"
  grep -E '^\| (decode|attention_decode)' "$d/attention.md" 2>/dev/null | head -12 || tail -5 "$d.log"
}
mkdir -p "$OUT/p1" "$OUT/p2"
for n in w8s1c w8s1c_cl8 w4s3c w4s2c264; do run $n validate p1; done
for n in w8s1 w8s1c w4s3 w4s3c w4s2c264 w8s1c_cl8; do run $n decode p1; done
for n in w8s1c w8s1 w4s3c w4s3; do run $n decode p2; done
