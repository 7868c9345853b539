"""What bench/templates/compare_torch.py measures: each template, its shapes and the PyTorch
code that computes the same thing.

`torch_fn(a, d)` gets the kernel's arguments by name (`a`: pointer arguments as flat torch
tensors, scalar arguments as numbers) and the shape's dimensions (`d`), and returns the
expected contents of the kernel's outputs, in the order the spec lists its output arguments.
It is both the reference and PyTorch's timed code. Shapes the spec does not tune are still
measured with the tuned configuration.

Run as a script, prints the template names (one a line), for run.sh; with `--dispatch-by
TEMPLATE`, the dimension of that template's per-shape form (nothing when it has none).
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional


@dataclass
class Entry:
    template: str  # templates/<template>.cu
    kernel: str  # the spec's id
    shapes: List[Dict[str, int]]
    torch_fn: Callable
    torch_name: str  # what PyTorch runs, for the table's notes
    rtol: Optional[float] = None  # None: by the output's dtype (TOLERANCES)
    atol: Optional[float] = None
    notes: str = ""
    # Memory-bound: torch_fn is also timed under torch.compile (the GEMMs call cuBLAS either way).
    memory_bound: bool = True
    # The problem dimension of the per-shape form (run.sh's PER_SHAPE=1: the template copied
    # by `kernelevo init --dispatch DIM`, a winner per listed size of DIM); None: none.
    dispatch_by: Optional[str] = None
    # Other PyTorch code timed beside torch_fn on the same inputs, by label (row["LABEL_us"]).
    also_timed: Dict[str, Callable] = field(default_factory=dict)


# rtol, atol per output dtype name (the spec's C type), against PyTorch's result.
TOLERANCES = {
    "float": (1e-4, 1e-5),
    "double": (1e-10, 1e-12),
    "__half": (1e-2, 1e-3),
    "__nv_bfloat16": (1.6e-2, 1e-2),
}


def _rows(t, d, cols="cols"):
    return t.view(d["rows"], d[cols])


def _softmax(a, d):
    import torch

    return [torch.softmax(_rows(a["x"], d), dim=-1)]


def _layernorm(a, d):
    import torch.nn.functional as F

    return [F.layer_norm(_rows(a["x"], d), (d["cols"],), a["gamma"], a["beta"], a.get("eps", 1e-5))]


def _rmsnorm(a, d):
    import torch
    import torch.nn.functional as F

    x, eps = _rows(a["x"], d), a.get("eps", 1e-5)
    if hasattr(F, "rms_norm"):
        return [F.rms_norm(x, (d["cols"],), a["gamma"], eps)]
    return [x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps).to(x.dtype) * a["gamma"]]


def _add_rmsnorm(a, d):
    import torch.nn.functional as F

    s = _rows(a["x"], d) + _rows(a["residual"], d)
    return [s, F.rms_norm(s, (d["cols"],), a["weight"], a.get("eps", 1e-5))]


def _rope(a, d):
    """NeoX / LLaMA rotate-half RoPE as Hugging Face writes it (`q * cos + rotate_half(q) *
    sin`), on q and k, with the fp32 cos/sin tables gathered at `positions`; the bf16 values
    meet the fp32 tables in fp32 and the result is rounded to bf16."""
    import torch

    t, dim = d["tokens"], d["head_dim"]
    half = dim // 2
    cos = a["cos_cache"].view(-1, half).index_select(0, a["positions"])
    sin = a["sin_cache"].view(-1, half).index_select(0, a["positions"])
    cos = torch.cat((cos, cos), dim=-1).unsqueeze(1)  # [tokens, 1, head_dim]
    sin = torch.cat((sin, sin), dim=-1).unsqueeze(1)

    def rotate_half(x):
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    def apply(x, heads):
        x = x.view(t, heads, dim)
        return (x * cos + rotate_half(x) * sin).to(x.dtype)

    return [apply(a["q"], d["heads"]), apply(a["k"], d["kv_heads"])]


def _sum(a, d):
    return [a["x"].sum().view(1)]


def _transpose(a, d):
    return [_rows(a["x"], d).t().contiguous()]


def _bias_gelu(a, d):
    import torch.nn.functional as F

    return [F.gelu(_rows(a["x"], d) + a["bias"])]


def _swiglu(a, d):
    import torch.nn.functional as F

    h = d["hidden"]
    x = a["x"].view(d["rows"], 2 * h)
    return [F.silu(x[:, :h]) * x[:, h:]]


def _matmul_fp32(a, d):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # cuBLAS fp32, not TF32
    return [a["A"].view(d["M"], d["K"]) @ a["B"].view(d["K"], d["N"])]


def _matmul_fp32_out(a, d):
    # The kernel writes fp32, so cuBLAS is asked for an fp32 output from the same fp16/bf16
    # inputs (fp32 accumulation): one GEMM, no cast kernel charged to cuBLAS alone.
    # torch.mm's out_dtype (PyTorch 2.8 and later) calls cublasGemmEx with an fp32 C.
    import torch

    A = a["A"].view(d["M"], d["K"])
    B = a["B"].view(d["K"], d["N"])
    if A.device.type != "cuda":  # the CPU tests: no fp32-output GEMM for half inputs there
        return [(A.float() @ B.float())]
    return [torch.mm(A, B, out_dtype=torch.float32)]


def _scaled_mm(fast_accum):
    """torch._scaled_mm (cuBLASLt FP8): A [M, K] row-major, B given as [N, K] (column-major
    K x N, as _scaled_mm requires), per-tensor scales, bf16 out. fast_accum: wgmma's own
    accumulation, as the template does; without it cuBLASLt adds partial sums in fp32."""

    def fn(a, d):
        import torch

        A = a["A"].view(d["M"], d["K"])
        Bt = a["B"].view(d["N"], d["K"])
        if A.device.type != "cuda":  # the CPU tests
            out = (A.float() @ Bt.float().t()) * a["scale_a"].float() * a["scale_b"].float()
            return [out.to(torch.bfloat16)]
        return [torch._scaled_mm(A, Bt.t(), scale_a=a["scale_a"].view(()), scale_b=a["scale_b"].view(()),
                                 out_dtype=torch.bfloat16, use_fast_accum=fast_accum)]

    return fn


def _matmul_same_type(a, d):
    # The kernel writes its input type, as cuBLAS's A @ B does: cuBLAS is timed alone.
    A = a["A"].view(d["M"], d["K"])
    B = a["B"].view(d["K"], d["N"])
    if A.device.type != "cuda":  # the CPU tests
        return [(A.float() @ B.float()).to(A.dtype)]
    return [A @ B]


def _gelu_tanh_float(x):
    import torch

    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _addmm_gelu(fused):
    """C = GELU(A @ B + bias), GELU's tanh form, bf16 out. fused: torch._addmm_activation
    (cuBLASLt's GELU_BIAS epilogue: one kernel, the same work as the template's); else eager
    PyTorch's two kernels, addmm then gelu."""

    def fn(a, d):
        import torch
        import torch.nn.functional as F

        A = a["A"].view(d["M"], d["K"])
        B = a["B"].view(d["K"], d["N"])
        if A.device.type != "cuda":  # the CPU tests
            return [_gelu_tanh_float(A.float() @ B.float() + a["bias"].float()).to(A.dtype)]
        if fused:
            return [torch._addmm_activation(a["bias"], A, B, use_gelu=True)]
        return [F.gelu(torch.addmm(a["bias"], A, B), approximate="tanh")]

    return fn


# The tuned problems, then two untuned ones shaped like a transformer MLP's projections.
GEMM_SHAPES = [{"M": 4096, "N": 4096, "K": 4096}, {"M": 8192, "N": 1024, "K": 4096},
               {"M": 4096, "N": 11008, "K": 4096}, {"M": 2048, "N": 4096, "K": 11008}]
# The Hopper template's: those and a decode-like one (16 rows).
GEMM_SM90_SHAPES = GEMM_SHAPES + [{"M": 16, "N": 4096, "K": 4096}]

ROWS3 = [{"rows": 4096, "cols": 8192}, {"rows": 32768, "cols": 1024}, {"rows": 8192, "cols": 16384}]
ROWS2 = ROWS3[:2]
# LLaMA-3-8B-like attention: 32 query heads, 8 key heads (GQA), head_dim 128.
ROPE_SHAPES = [{"tokens": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128},
               {"tokens": 16384, "heads": 32, "kv_heads": 8, "head_dim": 128}]

ENTRIES = [
    Entry("softmax", "softmax_rows", ROWS3, _softmax, "torch.softmax(x, -1)", dispatch_by="cols"),
    Entry("softmax_bf16", "softmax_rows_bf16", ROWS2, _softmax, "torch.softmax(x, -1), bf16", dispatch_by="cols"),
    Entry("layernorm", "layernorm_rows", ROWS3, _layernorm, "F.layer_norm", dispatch_by="cols"),
    Entry("layernorm_bf16", "layernorm_rows_bf16", ROWS2, _layernorm, "F.layer_norm, bf16", dispatch_by="cols"),
    Entry("rmsnorm", "rmsnorm_rows", ROWS3, _rmsnorm, "F.rms_norm", dispatch_by="cols"),
    Entry("rmsnorm_bf16", "rmsnorm_rows_bf16", ROWS2, _rmsnorm, "F.rms_norm, bf16", dispatch_by="cols"),
    Entry("add_rmsnorm_bf16", "add_rmsnorm_rows_bf16", ROWS2, _add_rmsnorm,
          "s = x + residual; F.rms_norm(s, (cols,), weight, eps), bf16", dispatch_by="cols"),
    Entry("rope_bf16", "rope_bf16", ROPE_SHAPES, _rope,
          "x * cos + rotate_half(x) * sin on q and k (fp32 cos/sin gathered at positions), bf16",
          dispatch_by="tokens"),
    # Integer-valued inputs (the spec's randint): both sums are exact unless one drops data.
    Entry("sum", "sum_reduce", [{"n": 2**28}, {"n": 2**24}], _sum, "torch.sum(x)", rtol=1e-5, atol=0.5,
          dispatch_by="n"),
    Entry("transpose", "transpose", [{"rows": 8192, "cols": 8192}, {"rows": 4096, "cols": 16384}], _transpose,
          "x.t().contiguous()", rtol=0.0, atol=0.0, dispatch_by="cols"),
    Entry("bias_gelu", "bias_gelu", [{"rows": 8192, "cols": 8192}, {"rows": 4096, "cols": 4096}], _bias_gelu,
          "F.gelu(x + bias)", dispatch_by="cols"),
    Entry("swiglu", "swiglu_bf16", [{"rows": 8192, "hidden": 14336}, {"rows": 2048, "hidden": 4096}], _swiglu,
          "F.silu(x[:, :h]) * x[:, h:], bf16", dispatch_by="hidden"),
    Entry("sgemm", "sgemm", GEMM_SHAPES, _matmul_fp32, "A @ B, fp32 (TF32 off)", rtol=1e-3, atol=1e-3,
          memory_bound=False),
    Entry("gemm_tc", "gemm_tc_f16", GEMM_SHAPES, _matmul_fp32_out, "torch.mm(A, B, out_dtype=float32), fp16 in (cuBLAS, fp32 out)",
          rtol=1e-2, atol=1e-2, memory_bound=False),
    Entry("gemm_tc", "gemm_tc_bf16", GEMM_SHAPES, _matmul_fp32_out, "torch.mm(A, B, out_dtype=float32), bf16 in (cuBLAS, fp32 out)",
          rtol=2e-2, atol=2e-2, memory_bound=False),
    Entry("gemm_wgmma", "gemm_wgmma_f16", GEMM_SHAPES, _matmul_fp32_out,
          "torch.mm(A, B, out_dtype=float32), fp16 in (cuBLAS, fp32 out)", rtol=1e-2, atol=1e-2, memory_bound=False),
    Entry("gemm_wgmma", "gemm_wgmma_bf16", GEMM_SHAPES, _matmul_fp32_out,
          "torch.mm(A, B, out_dtype=float32), bf16 in (cuBLAS, fp32 out)", rtol=2e-2, atol=2e-2, memory_bound=False),
    Entry("gemm_sm90", "gemm_sm90_f16", GEMM_SM90_SHAPES, _matmul_same_type, "A @ B, fp16 (cuBLAS, fp16 out)",
          rtol=1e-2, atol=1e-2, memory_bound=False),
    Entry("gemm_sm90", "gemm_sm90_bf16", GEMM_SM90_SHAPES, _matmul_same_type, "A @ B, bf16 (cuBLAS, bf16 out)",
          rtol=2e-2, atol=2e-2, memory_bound=False),
    # The FP8 kernel against cuBLASLt's fast accumulation (the same work as the template's);
    # its default mode (fp32 partial sums, more work) is timed beside it.
    Entry("gemm_sm90", "gemm_sm90_fp8", GEMM_SM90_SHAPES, _scaled_mm(True),
          "torch._scaled_mm, e4m3 in, bf16 out, use_fast_accum=True (cuBLASLt)",
          rtol=2e-2, atol=2e-2, memory_bound=False,
          also_timed={"scaled_mm_default_accum": _scaled_mm(False)}),
    Entry("gemm_sm90", "gemm_sm90_bf16_gelu", GEMM_SM90_SHAPES, _addmm_gelu(True),
          "torch._addmm_activation(bias, A, B, use_gelu=True), bf16 (cuBLASLt GELU_BIAS epilogue)",
          rtol=2e-2, atol=2e-2, memory_bound=False,
          also_timed={"eager_addmm_then_gelu": _addmm_gelu(False)}),
]


def by_template(name):
    for e in ENTRIES:
        if e.template == name:
            return e
    return None


def of_template(name):
    """Every entry of templates/<name>.cu (a file may hold several kernels)."""
    return [e for e in ENTRIES if e.template == name]


def template_names():
    names = []
    for e in ENTRIES:
        if e.template not in names:
            names.append(e.template)
    return names


def torch_equivalent(kernel, a, d):
    """What `kernelevo export --torch KERNEL --torch-equivalent bench/templates/entries.py`
    gives the package's benchmark: the PyTorch code of the entry of spec id `kernel` on its
    arguments (`a`, tensors flat) and dimensions (`d`), or None when there is none."""
    for e in ENTRIES:
        if e.kernel == kernel:
            return e.torch_fn(a, d)
    return None


def dispatch_dim(name):
    """The dimension the per-shape form of templates/<name>.cu dispatches by, or None (a file
    of several kernels dispatches only when they all name the same one)."""
    dims = {e.dispatch_by for e in of_template(name)}
    return dims.pop() if len(dims) == 1 else None


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--dispatch-by":
        print(dispatch_dim(sys.argv[2]) or "")
    else:
        for name in template_names():
            print(name)
