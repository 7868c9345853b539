#!/usr/bin/env bash
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
mkdir -p "$OUT"
nvidia-smi > "$OUT/smi.txt" 2>&1
timeout 420 python3 bench/results/2026-11-30-templates-hints-h200/experiments/exp.py ${EXP:-softmax layernorm} > "$OUT/exp.log" 2>&1; echo "exp rc=$?" >> "$OUT/exp.log"
tail -5 "$OUT/exp.log"
