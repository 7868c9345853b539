#!/usr/bin/env python3
"""CPU test of bench/triton/compare.py: the Triton signature it builds from `kernelevo scan`
of the shipped Triton templates (a regression: the spec's int32_t dimensions were typed fp32,
so Triton refused `x + row * cols` and every Triton column read "failed").

  python3 bench/triton/test_compare.py KERNELEVO_BINARY
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import compare  # noqa: E402

WANT = {
    "softmax_rows_triton": [["x", "*fp32"], ["y", "*fp32"], ["rows", "i32"], ["cols", "i32"]],
    "rmsnorm_rows_triton": [["x", "*fp32"], ["gamma", "*fp32"], ["y", "*fp32"], ["rows", "i32"],
                            ["cols", "i32"], ["eps", "fp32"]],
    "bias_gelu_triton": [["x", "*fp32"], ["bias", "*fp32"], ["y", "*fp32"], ["rows", "i32"],
                         ["cols", "i32"]],
}


def main():
    binary = sys.argv[1]
    for _, source, kid, _, _ in compare.PAIRS:
        r = subprocess.run([binary, "scan", source, "--format", "json"], cwd=ROOT, capture_output=True,
                           text=True, check=True)
        spec = next(k for k in json.loads(r.stdout)["kernels"] if k["id"] == kid)
        got = [[a["name"], compare.triton_type(a)] for a in spec["args"]]
        assert got == WANT[kid], (kid, got)
    try:
        compare.triton_type({"name": "n", "type": "size_t", "pointer": False})
    except ValueError as e:
        assert "no Triton type for the spec's 'size_t'" in str(e), e
    else:
        raise AssertionError("an unknown type must be an error, not fp32")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
