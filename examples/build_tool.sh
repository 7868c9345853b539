# Sourced by the example scripts: sets `tool` to $KERNELEVO_EXECUTABLE, else builds kernelevo
# from this tree into "$out/tool" (needs `root` and `out`; exits on a failed build).
tool=${KERNELEVO_EXECUTABLE:-}
if [ -z "$tool" ]; then
  cmake -S "$root" -B "$out/tool" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKERNELEVO_BUILD_TESTS=OFF -DKERNELEVO_BUILD_BENCH=OFF >"$out/tool.log" 2>&1 &&
    cmake --build "$out/tool" --target kernelevo >>"$out/tool.log" 2>&1 ||
    { tail -20 "$out/tool.log"; exit 1; }
  tool="$out/tool/tool/kernelevo"
fi
