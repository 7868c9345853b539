#!/usr/bin/env bash
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
timeout 200 python3 bench/results/2026-11-30-templates-hints-h200/experiments/exp3.py > "$OUT/exp3.log" 2>&1; echo "rc=$?" >> "$OUT/exp3.log"
grep -A14 "==" "$OUT/exp3.log"; tail -3 "$OUT/exp3.log"
