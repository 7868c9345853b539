#!/bin/bash
# compare on a kernel with buckets: base = the committed softmax-app, head = the same with
# bucket [0, 2048)'s winner replaced by the source defaults.
set -u
root=$(pwd)
cmake -S . -B /tmp/t -G Ninja -DCMAKE_BUILD_TYPE=Release -DKERNELEVO_BUILD_TESTS=OFF -DKERNELEVO_BUILD_BENCH=OFF > /tmp/t.log 2>&1 && ninja -C /tmp/t kernelevo >> /tmp/t.log 2>&1 || { tail -20 /tmp/t.log; exit 1; }
rm -rf /tmp/cmp && cp -r examples/softmax-app /tmp/cmp && cd /tmp/cmp
g() { git -c user.email=k@example.invalid -c user.name=kernelevo "$@"; }
g init -q && g add -A && g commit -qm base
python3 - <<'PY'
import json
p='kernelevo.lock.json'
d=json.load(open(p))
b=d['kernels']['softmax_rows']['targets']['sm_90']['NVIDIA H200']['buckets'][0]
b['params']={"SOFTMAX_BLOCK":256,"SOFTMAX_ROW_THREADS":256,"SOFTMAX_UNROLL":8,"SOFTMAX_VEC":4}
json.dump(d,open(p,'w'),indent=2)
PY
g commit -qam "head: bucket [0, 2048) back to the source defaults"
/tmp/t/tool/kernelevo compare src/softmax.cu --base HEAD~1 --rounds 5 --report-md "$OUT/compare.md" --report-json "$OUT/compare.json" > "$OUT/compare.out" 2>&1
echo "compare rc=$?" >> "$OUT/compare.out"
