# Bias add then GELU, fp32, in Triton: y[r, c] = gelu(x[r, c] + bias[c]) with the exact erf
# GELU, gelu(v) = v / 2 * (1 + erf(v / sqrt(2))) (the default of torch.nn.functional.gelu).
# A program owns a BLOCK_R x BLOCK_C tile. With num_ctas > 1 the program is a thread-block
# cluster: Triton splits the tile over that many CTAs and kernelevo launches the clusters. The
# bias is loaded in the tile's own layout (a 1 x BLOCK_C load broadcast over the rows): a
# separate 1-D load would need a layout conversion, which Triton 3.6 cannot make across the
# CTAs of a cluster. The arguments, problems and validation shapes are those of bias_gelu.cu,
# whose naive kernel (here alone in bias_gelu_naive.cu) is the reference.
#
# kernelevo reads the spec below without running this file; tuning compiles each
# configuration with Triton in a separate Python process (docs/triton.md).
import triton
import triton.language as tl


# @kernelevo
# id: bias_gelu_triton
# params:
#   BLOCK_R: [1, 2, 4, 8, 16]
#   BLOCK_C: [256, 512, 1024, 2048, 4096]
#   num_warps: [2, 4, 8, 16]
#   num_ctas: [1, 2]
# constraints:
#   - "BLOCK_R * BLOCK_C <= 16384"
#   - "BLOCK_R * BLOCK_C >= 32 * num_warps * num_ctas"
# problems:
#   - {rows: 8192, cols: 8192}
#   - {rows: 4096, cols: 4096}
# validate:
#   - {rows: 3, cols: 1000}
#   - {rows: 7, cols: 1001}
#   - {rows: 1000, cols: 3}
#   - {rows: 33, cols: 4100}
# args:
#   - {name: x, type: "const float*", count: "rows*cols", init: normal}
#   - {name: bias, type: "const float*", count: "cols", init: uniform}
#   - {name: y, type: "float*", count: "rows*cols", output: true}
#   - {name: rows, type: int, value: rows}
#   - {name: cols, type: int, value: cols}
# launch:
#   grid: ["ceil_div(rows, BLOCK_R)", "ceil_div(cols, BLOCK_C)"]
# dispatch: {by: [cols], buckets: per_problem}
# reference: {source: bias_gelu_naive.cu, kernel: bias_gelu_naive}
# tolerance: {rtol: 1e-5, atol: 1e-6}
# metrics: {bytes: "(2*rows*cols + cols)*4", flops: "12*rows*cols"}
@triton.jit
def bias_gelu_triton(x, bias, y, rows, cols, BLOCK_R: tl.constexpr = 4,
                     BLOCK_C: tl.constexpr = 1024):
    r = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    in_cols = (c < cols)[None, :]
    mask = (r < rows)[:, None] & in_cols
    offs = r[:, None] * cols + c[None, :]
    b = tl.load(bias + c[None, :], mask=in_cols, other=0.0)
    v = tl.load(x + offs, mask=mask, other=0.0, eviction_policy="evict_first") + b
    tl.store(y + offs, 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476)), mask=mask)
