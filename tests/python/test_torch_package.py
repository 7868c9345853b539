#!/usr/bin/env python3
"""Tests of the package `kernelevo export --torch` writes, without a GPU.

  python3 tests/python/test_torch_package.py KERNELEVO_BINARY

Exports tests/fixtures/torch_export/gated.cu with its lockfile (the CUDA toolkit compiles
the cubins; no GPU is used), then checks the package's argument checks, problem sizes,
launch geometry, bucket and architecture choice on stand-in tensors (no torch needed). With
torch importable (a CPU build is enough), also the registered operator: its schema, a call
through a fake driver that computes the kernel with torch on the CPU, torch.compile
(fullgraph, aot_eager) and torch.library.opcheck, and the error for CPU tensors on the real
driver. Parts that need what is missing are skipped and counted. Exit 77 when the binary
cannot export (built without CUDA).
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "torch_export")

try:
    import torch  # noqa: F401
except ImportError:
    torch = None


class Skip(Exception):
    pass


class FakeTensor:
    """Enough of a tensor for the checks: shape, dtype, numel(), is_contiguous()."""

    def __init__(self, shape, dtype="float32", contiguous=True):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self._contiguous = contiguous

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_contiguous(self):
        return self._contiguous


def export(binary, out, extra=()):
    work = tempfile.mkdtemp(prefix="kev_torch_export_")
    shutil.copy(os.path.join(FIXTURES, "gated.cu"), os.path.join(work, "gated.cu"))
    shutil.copy(os.path.join(FIXTURES, "gated.lock.json"), os.path.join(work, "kernelevo.lock.json"))
    r = subprocess.run([binary, "export", "--torch", "gated", "--out", out, *extra], cwd=work,
                       capture_output=True, text=True, timeout=300)
    shutil.rmtree(work, ignore_errors=True)
    return r


def load(out):
    sys.path.insert(0, out)
    try:
        for name in [m for m in sys.modules if m == "gated" or m.startswith("gated.")]:
            del sys.modules[name]
        return importlib.import_module("gated")
    finally:
        sys.path.remove(out)


def raises(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        return f"{type(e).__name__}: {e}"
    raise AssertionError(f"no error from {fn.__name__}{args}")


# ------------------------------------------------------------------ without torch


def bound(pkg, x, w, acc, **kw):
    return pkg.kernel.bind((x, w, acc), kw)


def test_package_files(pkg, out):
    # (__pycache__ is the test's own import of the package, where bytecode is written)
    files = sorted(f for f in os.listdir(os.path.join(out, "gated")) if f != "__pycache__")
    assert files == ["__init__.py", "_buckets.py", "_cuda_launch.py", "_runtime.py", "_spec_expr.py", "bench.py",
                     "cubins", "kernel.json", "test.py"], files
    meta = json.load(open(os.path.join(out, "gated", "kernel.json")))
    assert sorted(meta["archs"]) == ["sm_80", "sm_90"]
    assert meta["archs"]["sm_90"]["by"] == "hidden"
    assert [v["params"]["GATED_BLOCK"] for v in meta["archs"]["sm_90"]["variants"]] == [64, 256]
    for arch in meta["archs"].values():  # every cubin is there and matches its hash
        for image in arch["variants"] + [arch["reference"]]:
            assert pkg.kernel.image(image)[:4] == b"\x7fELF"


def test_problem_sizes_and_geometry(pkg):
    k = pkg.kernel
    # (batch, seq, 2*hidden): rows is the product of the leading axes.
    p = k.prepare(bound(pkg, FakeTensor((4, 6, 10)), FakeTensor((5,)), FakeTensor((4, 6, 5)), steps=2), "sm_90")
    assert p.dims == {"hidden": 5, "rows": 24, "steps": 2}, p.dims
    assert p.image["cubin"] == "cubins/sm_90.0.cubin"  # hidden 5: the bucket [0, 512)
    assert p.grid == [1] and p.block == [64] and p.shared == 0  # ceil_div(120, 64 * 2)
    assert p.values[5:] == [24, 5, 120, 2, 0.5], p.values  # rows, hidden, total, steps, scale
    outs = [(name, shape, dtype, zero) for _, name, shape, dtype, zero in p.allocate]
    assert outs == [("y", (4, 6, 5), "float32", False), ("tmp", (64,), "float32", True)], outs
    p = k.prepare(bound(pkg, FakeTensor((3, 2000)), FakeTensor((1000,)), FakeTensor((3000,)), steps=1,
                        scale=2.0), "sm_90")
    assert p.image["cubin"] == "cubins/sm_90.1.cubin" and p.grid == [12] and p.block == [256]
    assert p.values[-1] == 2.0
    assert p.allocate[0][2] == (3, 1000)
    ref = k.prepare(bound(pkg, FakeTensor((3, 2000)), FakeTensor((1000,)), FakeTensor((3000,)), steps=1),
                    "sm_90", reference=True)
    assert ref.image["function"] == "gated_naive" and ref.block == [128] and ref.grid == [24]


def test_architectures(pkg):
    k = pkg.kernel
    b = bound(pkg, FakeTensor((3, 2000)), FakeTensor((1000,)), FakeTensor((3000,)), steps=1)
    assert k.prepare(b, "sm_86").image["cubin"] == "cubins/sm_80.0.cubin"  # a later minor runs sm_80
    assert k.prepare(b, "sm_80").block == [256]
    msg = raises(k.prepare, b, "sm_100")
    assert "holds cubins for sm_80, sm_90, not for this GPU's sm_100; export it again with --archs sm_100" in msg, msg


def test_argument_checks(pkg):
    k = pkg.kernel
    x, w, acc = FakeTensor((3, 10)), FakeTensor((5,)), FakeTensor((3, 5))
    cases = [
        (lambda: k.prepare(bound(pkg, FakeTensor((3, 10), "float16"), w, acc, steps=1), "sm_90"),
         "gated: tensor 'x' must have dtype torch.float32 (the spec's float), got torch.float16"),
        (lambda: k.prepare(bound(pkg, FakeTensor((3, 10), contiguous=False), w, acc, steps=1), "sm_90"),
         "gated: tensor 'x' must be contiguous"),
        (lambda: k.prepare(bound(pkg, FakeTensor((30,)), w, acc, steps=1), "sm_90"),
         "gated: tensor 'x' must have at least 2 dimensions (rows, 2*hidden) (its count is rows*2*hidden), "
         "got shape (30,)"),
        (lambda: k.prepare(bound(pkg, FakeTensor((3, 9)), w, acc, steps=1), "sm_90"),
         "axis group 2*hidden has size 9, not a multiple of 2"),
        (lambda: k.prepare(bound(pkg, x, FakeTensor((6,)), acc, steps=1), "sm_90"),
         "gated: tensor 'w' has 6 elements (shape (6,)); the spec's count hidden is 5 at hidden=5, rows=3, steps=1"),
        (lambda: k.prepare(bound(pkg, x, w, FakeTensor((5, 3)), steps=1), "sm_90"),
         "gated: tensor 'acc' of shape (5, 3) does not match (rows, hidden)"),
        (lambda: k.prepare(bound(pkg, x, "not a tensor", acc, steps=1), "sm_90"),
         "gated: argument 'w' must be a tensor, got str"),
        (lambda: bound(pkg, x, w, acc), "gated: missing argument 'steps', the problem dimension"),
        (lambda: bound(pkg, x, w, acc, steps=1, stpes=2), "gated: unknown argument 'stpes'"),
        (lambda: k.bind((x, w, acc, x), {"steps": 1}), "gated: takes 3 tensor argument(s) (x, w, acc), got 4"),
        (lambda: k.prepare(bound(pkg, x, w, acc, steps=-1), "sm_90"),
         "gated: problem dimension 'steps' must not be negative"),
    ]
    for fn, want in cases:
        msg = raises(fn)
        assert "KernelArgumentError" in msg and want in msg, f"{msg!r} lacks {want!r}"
    # A flat inout is fine: only its element count is checked then.
    k.prepare(bound(pkg, x, w, FakeTensor((15,)), steps=1), "sm_90")


def test_repeated_calls_keep_checking(pkg):
    """The per-shape plan a call keeps must not let a later call skip a check or reuse
    another call's scalars."""
    k = pkg.kernel
    x, w, acc = FakeTensor((3, 10)), FakeTensor((5,)), FakeTensor((3, 5))
    first = k.prepare(bound(pkg, x, w, acc, steps=1, scale=0.25), "sm_90")
    again = k.prepare(bound(pkg, x, w, acc, steps=1, scale=4.0), "sm_90")
    assert first.values[-1] == 0.25 and again.values[-1] == 4.0
    assert again.values[0] is x and again.grid == first.grid
    other = k.prepare(bound(pkg, x, w, acc, steps=3), "sm_90")
    assert other.dims["steps"] == 3 and other.values[-2] == 3
    cases = [
        (lambda: k.prepare(bound(pkg, FakeTensor((3, 10), "float16"), w, acc, steps=1), "sm_90"),
         "must have dtype torch.float32"),
        (lambda: k.prepare(bound(pkg, FakeTensor((3, 10), contiguous=False), w, acc, steps=1), "sm_90"),
         "must be contiguous"),
        (lambda: k.prepare(bound(pkg, x, FakeTensor((6,)), acc, steps=1), "sm_90"),
         "tensor 'w' has 6 elements"),
        (lambda: k.prepare(bound(pkg, x, w, acc, steps=1.0), "sm_90"),
         "problem dimension 'steps' must be an int"),
    ]
    for fn, want in cases:
        msg = raises(fn)
        assert "KernelArgumentError" in msg and want in msg, f"{msg!r} lacks {want!r}"
    runtime = sys.modules[type(k).__module__]
    for rows in range(1, runtime.PLAN_CACHE_SIZE + 20):  # memory stays bounded
        k.prepare(bound(pkg, FakeTensor((rows, 10)), w, FakeTensor((rows, 5)), steps=1), "sm_90")
    assert 0 < len(k._plans) <= runtime.PLAN_CACHE_SIZE


class SymbolicSize(int):
    """An int that, like torch.compile's SymInt, cannot be hashed."""

    __hash__ = None


def test_fake_with_symbolic_sizes(pkg):
    """torch.compile traces the fake with symbolic sizes: the fake must not try to keep a plan
    for them (a regression: 'unhashable type: non-nested SymInt')."""
    k = pkg.kernel
    rows, hidden = SymbolicSize(3), SymbolicSize(5)
    x = FakeTensor((rows, 2 * hidden))
    x.shape = (rows, SymbolicSize(10))
    p = k.prepare(bound(pkg, x, FakeTensor((5,)), FakeTensor((rows, hidden)), steps=1), None,
                  check_counts=False)
    assert [a[2] for a in p.allocate][0] == (3, 5), p.allocate
    assert not any(key[0] is None for key in k._plans)
    x2 = FakeTensor((3, 10))
    x2.shape = (SymbolicSize(3), 10)  # a real call with an unhashable size still runs, unkept
    before = len(k._plans)
    k.prepare(bound(pkg, x2, FakeTensor((5,)), FakeTensor((3, 5)), steps=1), "sm_90")
    assert len(k._plans) == before


def test_damaged_cubin(pkg, out):
    k = pkg.kernel
    image = dict(k.meta["archs"]["sm_80"]["reference"])
    image["sha256"] = "sha256:" + "0" * 64
    k._images.pop(image["cubin"], None)
    assert "does not match kernel.json's sha256" in raises(k.image, image)


def test_without_torch(pkg):
    if torch is not None:
        raise Skip("torch is importable")
    assert pkg.op is None  # the checks work, the operator needs torch


# ------------------------------------------------------------------ with torch


class TorchFake:
    """The driver replaced: computes gated with torch on the CPU, records each launch."""

    def __init__(self):
        self.launches = []

    def check_device(self, kernel, tensors):
        pass

    def arch(self, torch_, device):
        return "sm_90"

    def launch(self, torch_, kernel, device, prepared, args, values):
        x, w, y, acc, tmp, rows, hidden, total, steps, scale = values
        x2 = x.reshape(rows, 2 * hidden)
        v = (x2[:, :hidden] * x2[:, hidden:] * w.reshape(-1) * scale).reshape(-1)
        y.reshape(-1).copy_(v)
        acc.reshape(-1).add_(steps * v)
        self.launches.append((prepared.image["cubin"], prepared.grid, prepared.block))


def expected(x, w, acc, steps, scale=0.5):
    h = w.numel()
    x2 = x.reshape(-1, 2 * h)
    y = x2[:, :h] * x2[:, h:] * w * scale
    return y.reshape(acc.shape), acc + steps * y.reshape(acc.shape)


def with_fake(pkg, fn):
    from_runtime = pkg._runtime
    previous = from_runtime.set_backend(TorchFake())
    try:
        return fn(from_runtime.get_backend())
    finally:
        from_runtime.set_backend(previous)


def need_torch():
    if torch is None:
        raise Skip("torch is not importable")


def test_operator_schema(pkg):
    need_torch()
    assert pkg.op is not None and pkg.gated is pkg.op
    schema = str(torch.ops.kernelevo.gated.default._schema)
    assert schema == ("kernelevo::gated(Tensor x, Tensor w, Tensor(a2!) acc, *, float scale=0.5, "
                      "SymInt steps) -> Tensor"), schema


def test_operator_call(pkg):
    need_torch()

    def run(fake):
        x, w, acc = torch.randn(4, 6, 10), torch.rand(5), torch.randn(4, 6, 5)
        want_y, want_acc = expected(x, w, acc, 3)
        y = pkg.gated(x, w, acc, steps=3)
        assert y.shape == (4, 6, 5) and y.dtype == torch.float32
        assert torch.allclose(y, want_y) and torch.allclose(acc, want_acc)
        assert fake.launches[-1] == ("cubins/sm_90.0.cubin", [1], [64])
        msg = raises(pkg.gated, x.double(), w, acc, steps=3)
        assert "gated: tensor 'x' must have dtype torch.float32" in msg, msg
        msg = raises(pkg.gated, x.transpose(0, 1), w, acc, steps=3)
        assert "gated: tensor 'x' must be contiguous" in msg, msg

    with_fake(pkg, run)


def test_torch_compile(pkg):
    need_torch()

    def run(fake):
        def f(x, w, acc):
            return pkg.gated(x, w, acc, steps=2) * 2 + 1

        compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
        x, w = torch.randn(3, 2000), torch.rand(1000)
        acc_a, acc_b = torch.zeros(3, 1000), torch.zeros(3, 1000)
        assert torch.allclose(compiled(x, w, acc_a), f(x, w, acc_b))
        assert torch.allclose(acc_a, acc_b)  # the in-place update survives tracing
        assert fake.launches[-1][0] == "cubins/sm_90.1.cubin"

    with_fake(pkg, run)


def test_opcheck(pkg):
    need_torch()

    def run(fake):
        x, w, acc = torch.randn(3, 10), torch.rand(5), torch.randn(3, 5)
        torch.library.opcheck(pkg.op, (x, w, acc), {"steps": 2},
                              test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_static"))

    with_fake(pkg, run)


def test_cpu_tensors_on_the_driver(pkg):
    need_torch()
    msg = raises(pkg.gated, torch.randn(3, 10), torch.rand(5), torch.randn(3, 5), steps=1)
    assert "gated: tensor 'x' must be on a CUDA device, got cpu" in msg, msg


# ------------------------------------------------------------------ the CLI's package


def test_replaces_only_its_own_package(binary, out):
    r = export(binary, out)
    assert r.returncode == 0, r.stderr
    mine = tempfile.mkdtemp(prefix="kev_torch_mine_")
    os.makedirs(os.path.join(mine, "gated"))
    r = export(binary, mine)
    shutil.rmtree(mine)
    assert r.returncode == 2 and "exists and is not a package kernelevo exported" in r.stderr, r.stderr


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    out = tempfile.mkdtemp(prefix="kev_torch_pkg_")
    try:
        r = export(binary, out)
        if r.returncode == 3:
            print("skipped: this kernelevo cannot export (" + r.stderr.strip().splitlines()[-1] + ")")
            return 77
        if r.returncode != 0:
            print("export failed:\n" + r.stderr)
            return 1
        pkg = load(out)
        tests = [
            (test_package_files, (pkg, out)), (test_problem_sizes_and_geometry, (pkg,)),
            (test_architectures, (pkg,)), (test_argument_checks, (pkg,)),
            (test_repeated_calls_keep_checking, (pkg,)), (test_fake_with_symbolic_sizes, (pkg,)), (test_damaged_cubin, (pkg, out)),
            (test_without_torch, (pkg,)), (test_operator_schema, (pkg,)), (test_operator_call, (pkg,)),
            (test_torch_compile, (pkg,)), (test_opcheck, (pkg,)), (test_cpu_tensors_on_the_driver, (pkg,)),
            (test_replaces_only_its_own_package, (binary, out)),
        ]
        passed = failed = skipped = 0
        for fn, args in tests:
            try:
                fn(*args)
            except Skip as s:
                skipped += 1
                print(f"skip {fn.__name__}: {s}")
            except Exception:  # noqa: BLE001 - every failure is reported and counted
                failed += 1
                print(f"FAIL {fn.__name__}")
                traceback.print_exc()
            else:
                passed += 1
                print(f"ok   {fn.__name__}")
        print(f"{passed} passed, {failed} failed, {skipped} skipped")
        return 1 if failed else 0
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
