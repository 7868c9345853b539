# RMS norm with a learned scale, fp32, in Triton: y = x / sqrt(mean(x^2) + eps) * gamma.
# One program per row; a row of at most BLOCK columns is read once and kept in registers, a
# longer one is read twice (the sum of squares, then the scaled write), so every
# configuration is correct for every shape. The arguments, problems and validation shapes
# are those of rmsnorm.cu, whose naive kernel is the reference.
#
# kernelevo reads the spec below without running this file; tuning compiles each
# configuration with Triton in a separate Python process (docs/triton.md).
import triton
import triton.language as tl


# @kernelevo
# id: rmsnorm_rows_triton
# params:
#   BLOCK: [256, 512, 1024, 2048, 4096, 8192, 16384]
#   num_warps: [1, 2, 4, 8, 16, 32]
#   num_stages: [1, 2, 3]
# constraints:
#   - "BLOCK >= 32 * num_warps"
# problems:
#   - {rows: 4096, cols: 8192}
#   - {rows: 32768, cols: 1024}
#   - {rows: 8192, cols: 16384}
# validate:
#   - {rows: 3, cols: 1000}
#   - {rows: 7, cols: 1001}
#   - {rows: 2, cols: 40000}
#   - {rows: 65, cols: 96}
# args:
#   - {name: x, type: "const float*", count: "rows*cols", init: normal}
#   - {name: gamma, type: "const float*", count: "cols", init: uniform}
#   - {name: y, type: "float*", count: "rows*cols", output: true}
#   - {name: rows, type: int, value: rows}
#   - {name: cols, type: int, value: cols}
#   - {name: eps, type: float, value: 1e-5}
# launch:
#   grid: ["rows"]
# dispatch: {by: [cols], buckets: per_problem}
# reference: {source: rmsnorm.cu, kernel: rmsnorm_rows_naive}
# tolerance: {rtol: 1e-5, atol: 1e-6}
# metrics: {bytes: "(2*rows*cols + cols)*4", flops: "4*rows*cols"}
@triton.jit
def rmsnorm_rows_triton(x, gamma, y, rows, cols, eps, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0).to(tl.int64)
    x_row = x + row * cols
    y_row = y + row * cols
    offs = tl.arange(0, BLOCK)
    if cols <= BLOCK:
        mask = offs < cols
        v = tl.load(x_row + offs, mask=mask, other=0.0)
        g = tl.load(gamma + offs, mask=mask, other=0.0)
        r = 1.0 / tl.sqrt(tl.sum(v * v, axis=0) / cols + eps)
        tl.store(y_row + offs, v * r * g, mask=mask)
    else:
        acc = tl.zeros([BLOCK], tl.float32)
        for start in range(0, cols, BLOCK):
            o = start + offs
            v = tl.load(x_row + o, mask=o < cols, other=0.0)
            acc += v * v
        r = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
        for start in range(0, cols, BLOCK):
            o = start + offs
            mask = o < cols
            v = tl.load(x_row + o, mask=mask, other=0.0)
            g = tl.load(gamma + o, mask=mask, other=0.0)
            tl.store(y_row + o, v * r * g, mask=mask)
