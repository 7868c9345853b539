#!/usr/bin/env bash
# One device call (OUT set) for whichever GPU comes: call-a.sh on an H200 (issue 22's run of
# all twelve templates), call-h100.sh otherwise. DEADLINE: seconds from the start by which the
# call's last step ends (the call's own limit less the transfers).
set -u
d=bench/results/2026-12-07-h200-run
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash $d/call-a.sh
fi
exec bash $d/call-h100.sh
