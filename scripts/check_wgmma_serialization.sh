#!/bin/sh
# Fails when ptxas serializes the wgmma of a shipped sm_90a template (its C7520 "wgmma.mma_async
# instructions are serialized" note): the kernel still runs and verifies but loses a third of its
# speed or more, as a wgmma put on a divergent path did to gemm_sm90 (bench/results/
# 2026-12-04-gemm-sm90-split-h200). Compiles each template whose spec says `arch: sm_90a` at its
# source defaults and at each extra point given as TEMPLATE:-DNAME=V,... arguments.
# Usage: scripts/check_wgmma_serialization.sh [TEMPLATE:-DA=1,-DB=2 ...]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
points=""
for f in "$root"/templates/*.cu; do
  grep -q '^arch: sm_90a' "$f" && points="$points $(basename "$f" .cu):"
done
points="$points $*"
failed=0
checked=0
for p in $points; do
  t=${p%%:*}
  defines=$(echo "${p#*:}" | tr ',' ' ')
  # shellcheck disable=SC2086
  if ! "$nvcc" -cubin -arch=sm_90a -std=c++17 -Xptxas -v $defines "$root/templates/$t.cu" \
      -o "$work/k.cubin" >"$work/log" 2>&1; then
    echo "FAIL $t $defines: does not compile"; sed -n 1,20p "$work/log"; failed=$((failed + 1))
  elif grep -q "C7520" "$work/log"; then
    echo "FAIL $t $defines: ptxas serializes its wgmma"; grep "C7520" "$work/log"; failed=$((failed + 1))
  fi
  checked=$((checked + 1))
done
echo "$checked sm_90a template points checked, $failed with serialized or failing wgmma"
[ "$failed" -eq 0 ]
