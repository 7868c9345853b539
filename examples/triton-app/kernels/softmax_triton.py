# Row softmax, fp32, in Triton: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
# One program per row. A row of at most BLOCK columns is read once into registers and written
# once; a longer one takes an online softmax over BLOCK-wide chunks (a running max and sum per
# lane, then a second pass that writes), so every configuration is correct for every shape.
# The arguments, problems and validation shapes are those of softmax.cu, whose naive kernel is
# the reference: kernelevo tunes both on the same inputs and the same checks.
#
# kernelevo reads the spec below without running this file; tuning compiles each
# configuration with Triton in a separate Python process (docs/triton.md).
import triton
import triton.language as tl


# @kernelevo
# id: softmax_rows_triton
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
#   - {name: y, type: "float*", count: "rows*cols", output: true}
#   - {name: rows, type: int, value: rows}
#   - {name: cols, type: int, value: cols}
# launch:
#   grid: ["rows"]
# dispatch: {by: [cols], buckets: per_problem}
# reference: {source: softmax.cu, kernel: softmax_rows_naive}
# tolerance: {rtol: 1e-5, atol: 1e-6}
# metrics: {bytes: "2*rows*cols*4", flops: "5*rows*cols"}
@triton.jit
def softmax_rows_triton(x, y, rows, cols, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0).to(tl.int64)
    x_row = x + row * cols
    y_row = y + row * cols
    offs = tl.arange(0, BLOCK)
    if cols <= BLOCK:
        v = tl.load(x_row + offs, mask=offs < cols, other=-float("inf"))
        e = tl.exp(v - tl.max(v, axis=0))
        tl.store(y_row + offs, e / tl.sum(e, axis=0), mask=offs < cols)
    else:
        # The first chunk is full (cols > BLOCK), so every lane's running max is finite.
        m = tl.full([BLOCK], -float("inf"), tl.float32)
        s = tl.zeros([BLOCK], tl.float32)
        for start in range(0, cols, BLOCK):
            o = start + offs
            v = tl.load(x_row + o, mask=o < cols, other=-float("inf"))
            m_new = tl.maximum(m, v)
            s = s * tl.exp(m - m_new) + tl.exp(v - m_new)
            m = m_new
        row_m = tl.max(m, axis=0)
        inv = 1.0 / tl.sum(s * tl.exp(m - row_m), axis=0)
        for start in range(0, cols, BLOCK):
            o = start + offs
            v = tl.load(x_row + o, mask=o < cols, other=0.0)
            tl.store(y_row + o, tl.exp(v - row_m) * inv, mask=o < cols)
