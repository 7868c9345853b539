#!/usr/bin/env bash
# One device call (OUT set) for whichever GPU comes: call-static.sh on an H200 (issue 22's run
# of all twelve templates; BUDGET, TUNE_TIME and DEADLINE as it reads them), call-stream.sh
# on any other sm_90 GPU (Stream-K beside whole tiles; CONFIGS, CONFIGS_TIME, RUNS, RUN_TIME).
set -u
d=$(dirname "$0")
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash "$d/call-static.sh"
fi
exec bash "$d/call-stream.sh"
