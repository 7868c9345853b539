#!/usr/bin/env python3
"""Times several configurations of one template beside torch.compile of the same PyTorch
code, in one process, on the same inputs, with compare_torch.py's cold-L2 timer: for asking
whether a change to a template's structure (a new parameter, a new value) pays before it is
tuned, and for keeping the generated Triton code that it is measured against.

  variants.py --out DIR --kernelevo BIN | --scan-json F  [--lockfile F] TEMPLATE
              [--grid NAME=v1,v2,...]...

Every combination of the --grid values is laid over each shape's base configuration (the
lockfile's winner for this GPU, for an entry with a winner per bucket the one serving the
shape, else the source defaults), compiled with the size define of the bucket serving the shape
as kernelevo compiles its winner (-DKERNELEVO_SIZE_<dim>=<size> for a one-size bucket; see
buckets.size_define). Each variant is checked against eager
PyTorch before it is timed. Writes DIR/variants_TEMPLATE.json and .md, and the code that
Inductor generated for each shape (DIR/inductor_TEMPLATE_<shape>.py).
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare_torch as ct  # noqa: E402
import cuda_launch  # noqa: E402
import entries as entries_mod  # noqa: E402


def parse_grid(items):
    grid = []
    for item in items:
        name, _, values = item.partition("=")
        parts = values.split(",")
        if not name or not values or "" in parts:
            raise SystemExit(f"variants: --grid wants NAME=v1,v2 (got '{item}')")
        if name in (n for n, _ in grid):
            raise SystemExit(f"variants: --grid names {name} twice")
        grid.append((name, [int(v) if v.lstrip("-").isdigit() else v for v in parts]))
    return grid


def variants_of(base, grid):
    """Every combination of the grid's values laid over the base configuration, in the
    grid's order (the last name varying fastest); the base alone for an empty grid."""
    names = [n for n, _ in grid]
    return [{**base, **dict(zip(names, vs))} for vs in itertools.product(*[v for _, v in grid])]


def markdown(rows, grid, timers=("clean",)):
    """The table of variants_TEMPLATE.md: a row per shape and variant, the grid's values,
    our time (or why there is none), torch.compile's and the ratio, by the first timer; then
    the same three by each further timer."""
    names = [n for n, _ in grid]
    more = list(timers[1:])
    head = "".join(f" {t} us | {t} torch.compile us | {t} compile/ours |" for t in more)
    lines = [f"| shape | {' | '.join(names)} | us | torch.compile us | compile/ours |{head}",
             "|---|" + "---|" * (len(names) + 3 + 3 * len(more))]
    for r in rows:
        cells = [str(r["params"].get(n)) for n in names]
        us = f"{r['us']:.1f}" if r.get("us") else r.get("error", "disagrees")[:40]
        ratio = f"{r['ratio_compile']:.3f}" if r.get("ratio_compile") else "-"
        tail = ""
        for t in more:
            m = r.get("more_timers", {}).get(t)
            tail += (f" {m['us']:.1f} | {m['compile_us']:.1f} | {m['compile_us'] / m['us']:.3f} |" if m
                     else " - | - | - |")
        lines.append(f"| {shape_name(r['shape'])} | {' | '.join(cells)} | {us} | {r['compile_us']:.1f} | {ratio} |"
                     + tail)
    return "\n".join(lines) + "\n"


def with_grid(specs, grid):
    """The (entry, spec) pairs whose kernel the grid's names belong to: a template's other
    kernels (gemm_sm90's bf16 beside its fp16, each with its own parameter names) are left
    out; a kernel with some of the names but not all, or a grid no kernel has, is an error."""
    names = [n for n, _ in grid]
    kept = []
    for entry, spec in specs:
        missing = [n for n in names if n not in spec["defaults"]]
        if not missing:
            kept.append((entry, spec))
        elif len(missing) < len(names):
            raise SystemExit(f"variants: {spec['id']} has no parameter {', '.join(missing)}")
    if not kept:
        ids = ", ".join(spec["id"] for _, spec in specs)
        raise SystemExit(f"variants: no kernel of the template ({ids}) has parameter {', '.join(names)}")
    return kept


def base_of(defaults, lock_entry, dims):
    """A shape's base configuration: the source defaults under the lockfile winner serving
    it (its bucket's for an entry with buckets, the nearest bucket's outside them all)."""
    return {**defaults, **(ct.served_by(lock_entry, dims)["params"] or {})}


def shape_configs(defaults, lock_entry, shapes, grid):
    """({shape name: (its variants, the size define they are compiled with: that of the bucket
    serving the shape, as compare_torch.served_by gives it)}, the distinct (variant, size define)
    pairs, each compiled once)."""
    per_shape = {shape_name(d): (variants_of(base_of(defaults, lock_entry, d), grid),
                                 ct.served_by(lock_entry, d)["size_define"]) for d in shapes}
    return per_shape, distinct([(v, d) for vs, d in per_shape.values() for v in vs])


def distinct(configs):
    out = []
    for c in configs:
        if c not in out:
            out.append(c)
    return out


def spec_of(a, entry):
    source = os.path.join("templates", entry.template + ".cu")
    if a.scan_json:
        with open(a.scan_json) as f:
            kernels = json.load(f)["kernels"]
        found = [k for k in kernels if k["id"] == entry.kernel]
        if not found:
            raise SystemExit(f"variants: {a.scan_json} has no kernel {entry.kernel}")
        return found[0]
    return ct.load_spec(a.kernelevo, source, entry.kernel)


def shape_name(dims):
    return "x".join(str(v) for v in dims.values())


def compile_with_code(torch, entry, values, dims):
    """(torch.compile of the entry for this shape, its first result, the Triton source
    Inductor generated for it)."""
    compiled = ct.compile_torch_fn(torch, entry.torch_fn)
    try:
        from torch._inductor.utils import run_and_get_code

        got, codes = run_and_get_code(compiled, values, dims)
        return compiled, got, "\n\n".join(codes)
    except Exception as e:  # the timing does not depend on the code
        return compiled, compiled(values, dims), f"# run_and_get_code failed: {ct.error_text(e, 500)}\n"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--kernelevo")
    p.add_argument("--scan-json")
    p.add_argument("--lockfile")
    p.add_argument("--rep-ms", type=int, default=200)
    p.add_argument("--grid", action="append", default=[])
    p.add_argument("--timers", default="clean",
                   help="comma-separated, the first ranks: clean (compare_torch's cold, clean L2, as kernelevo "
                        "times by default), charged (the same with the write-back the run leaves charged), "
                        "dirty (the same events, the L2 left full of dirty lines as do_bench leaves it), "
                        "do_bench (triton's)")
    p.add_argument("template")
    a = p.parse_args(argv)
    if not a.kernelevo and not a.scan_json:
        raise SystemExit("variants: give --kernelevo or --scan-json")
    os.makedirs(a.out, exist_ok=True)
    entries = entries_mod.of_template(a.template)
    if not entries:
        raise SystemExit(f"variants: {a.template} is not in entries.py")
    import torch

    torch.zeros(1, device="cuda")
    ct.use_device_sm_count(torch)

    driver = cuda_launch.Driver(torch.cuda.current_device())
    timers = make_timers(torch, a.timers.split(","), a.rep_ms)
    bench = timers[0][1]
    major, minor = torch.cuda.get_device_capability()
    device_arch = f"sm_{major}{minor}"
    lock = ct.load_json(a.lockfile) if a.lockfile else None
    grid = parse_grid(a.grid)
    rows = []
    for entry, spec in with_grid([(e, spec_of(a, e)) for e in entries], grid):
        defaults = spec["defaults"]
        arch = ct.kernel_arch(spec, device_arch)
        lock_entry, _ = ct.lock_entry(lock, spec["id"], arch, torch.cuda.get_device_name())
        per_shape, configs = shape_configs(defaults, lock_entry, entry.shapes, grid)
        cubins = os.path.join(a.out, "cubins")
        os.makedirs(cubins, exist_ok=True)
        source = os.path.join(ct.ROOT, "templates", entry.template + ".cu")
        cmds = [ct.nvcc_command(ct.find_nvcc(), source, arch, v, spec,
                                os.path.join(cubins, f"{entry.template}.{i}.cubin"), [d] if d else [])
                for i, (v, d) in enumerate(configs)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            compiled_configs = list(pool.map(lambda c: _try_compile(c), cmds))
        for dims in entry.shapes:
            variants, size_define = per_shape[shape_name(dims)]
            images = [compiled_configs[configs.index((v, size_define))] for v in variants]
            torch.manual_seed(1234)
            values, outputs, inouts = ct.make_args(torch, spec, dims, variants)
            expected = entry.torch_fn(values, dims)
            rtol, atol = ct.tolerance(entry, spec)
            stream = ct.current_stream(torch)
            compiled, got, code = compile_with_code(torch, entry, values, dims)
            with open(os.path.join(a.out, f"inductor_{entry.template}_{shape_name(dims)}.py"), "w") as f:
                f.write(code)
            for _ in range(ct.COMPILE_WARMUP_CALLS):
                compiled(values, dims)
            _, compile_agree = ct.compare(torch, [(str(i), g, w) for i, (g, w) in enumerate(zip(got, expected))],
                                          rtol, atol)
            compile_us = bench(lambda: compiled(values, dims))
            more = {name: (t, t(lambda: compiled(values, dims))) for name, t, _ in timers[1:]}
            print(f"{entry.template} {dims}: torch.compile {compile_us:.1f} us (agrees: {compile_agree})", flush=True)
            for i, (params, image) in enumerate(zip(variants, images)):
                row = {"template": entry.template, "shape": dims, "params": params, "size_define": size_define,
                       "compile_us": compile_us, "compile_agree": compile_agree}
                if isinstance(image, str):
                    row["error"] = image
                    rows.append(row)
                    continue
                def launch_of(image=image, params=params):
                    fn = driver.function(image, spec["kernel"])
                    names = ct.names_for(dims, params)
                    args = ct.kernel_args(spec, values, driver, names)
                    return ct.spec_launcher(driver, fn, spec, names, stream, args)[0]

                rows.append(measure_variant(
                    row, launch_of, lambda launch: ct.check(torch, launch, outputs, inouts, expected, rtol, atol),
                    bench, more if more else None))
                changed = {k: v for k, v in params.items() if k in dict(grid)}
                print(f"  {changed or 'base'}: {row.get('us') or float('nan'):.1f} us, agrees {row.get('agree')}"
                      f"{', ' + row['error'] if 'error' in row else ''}", flush=True)
            del values, outputs, inouts, expected, compiled
            torch.cuda.empty_cache()
    with open(os.path.join(a.out, f"variants_{a.template}.json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "grid": a.grid,
                   "timers": {name: desc for name, _, desc in timers}, "rows": rows}, f, indent=1)
    with open(os.path.join(a.out, f"variants_{a.template}.md"), "w") as f:
        f.write(markdown(rows, grid, [name for name, _, _ in timers]))
    return 0


def measure_variant(row, launch_of, check, bench, more_timers=None):
    """Fills `row` with one variant's agreement and time: launch_of() gives its launch, check(launch)
    (max error, agree), bench(launch) its time; `more_timers` {name: (bench, torch.compile's
    time by it)} adds row["more_timers"][name] = {us, compile_us}. A launch the driver refuses
    (more shared memory than the GPU gives a block, say: a point outside the spec's
    constraints) becomes the row's error instead of ending the run."""
    try:
        launch = launch_of()
        row["max_error"], row["agree"] = check(launch)
    except cuda_launch.DriverError as e:
        row["error"] = f"launch failed: {e}"
        return row
    row["us"] = bench(launch) if row["agree"] else None
    if row["us"]:
        row["ratio_compile"] = row["compile_us"] / row["us"]
    if more_timers is not None:
        row["more_timers"] = {}
        if row["agree"]:
            for name, (timer, compile_us) in more_timers.items():
                row["more_timers"][name] = {"us": timer(launch), "compile_us": compile_us}
    return row


def make_timers(torch, names, rep_ms):
    """[(name, fn -> median us, description)] for --timers."""
    out = []
    for name in names:
        if name == "clean":
            desc, t = ct.make_clean_timer(torch, rep_ms)
        elif name == "charged":
            desc, t = ct.make_clean_timer(torch, rep_ms, charge_writeback=True)
        elif name == "dirty":
            desc, t = ct.make_dirty_timer(torch, rep_ms)
        elif name == "do_bench":
            desc, t = ct.make_timer(torch, 25, rep_ms)
        else:
            raise SystemExit(f"variants: unknown timer '{name}' (clean, charged, dirty, do_bench)")
        out.append((name, t, desc))
    return out


def _try_compile(cmd):
    try:
        return ct.compile_cubin(cmd)
    except Exception as e:
        return f"compile failed: {e}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
