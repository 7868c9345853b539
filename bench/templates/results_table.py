"""Writes the comparison as templates.md (a Markdown table) and templates.json."""

import json
import os

COLUMNS = ["template", "shape", "served by", "ours us", "defaults us", "PyTorch us", "ratio torch/ours", "torch.compile us",
           "ratio compile/ours", "GB/s", "% of copy", "tuned vs defaults", "do_bench: ours us",
           "do_bench: PyTorch us", "do_bench: ratio", "do_bench: torch.compile us", "do_bench: ratio compile/ours",
           "max error", "agree", "compile agree"]


def shape_text(dims):
    """4096x8192 for rows/cols (and rows/hidden), 4096x(32+8)x128 for tokens x (heads +
    kv_heads) x head_dim, else name=value pairs; "-" for none."""
    if not dims:
        return "-"
    if set(dims) == {"rows", "cols"}:
        return f"{dims['rows']}x{dims['cols']}"
    if set(dims) == {"rows", "hidden"}:
        return f"{dims['rows']}x{dims['hidden']}"
    if set(dims) == {"tokens", "heads", "kv_heads", "head_dim"}:  # rope: tokens x (q + k heads) x head_dim
        return f"{dims['tokens']}x({dims['heads']}+{dims['kv_heads']})x{dims['head_dim']}"
    return ",".join(f"{k}={v}" for k, v in sorted(dims.items()))


def _num(value, fmt):
    return "-" if value is None else format(value, fmt)


def _yes_no(value):
    return "-" if value is None else ("yes" if value else "NO")


def _cell(text):
    return text.replace("|", "/").replace("\n", " ")


def compile_failure(row, limit=120):
    """The torch.compile cell of a shape it failed on: 'failed: ' and the error's first line."""
    first = (row.get("compile_error") or "").strip().splitlines() or ["?"]
    text = first[0]
    return _cell("failed: " + (text if len(text) <= limit else text[:limit - 3] + "..."))


def served_text(row):
    """Which winner timed a shape as ours: the bucket of a lockfile entry with buckets
    ("cols [1024, 1025)", "(nearest)" when the shape lies outside every bucket), "one winner"
    for an entry without, "defaults" with no entry."""
    if row.get("served_by"):
        return row["served_by"] + ("" if row.get("bucket_inside", True) else " (nearest)")
    return "defaults" if row.get("winner_params") is None else "one winner"


def host_bound(host_us, clearing_us):
    """Whether do_bench's figure for a call may hold host time: issuing it takes the host longer
    than do_bench's L2 clearing keeps the GPU busy (compare_torch.host_bound)."""
    return host_us is not None and clearing_us is not None and host_us >= clearing_us


def dobench_cell(us, host_us, clearing_us):
    """A do_bench figure, marked † where issuing the call may have been charged (host_bound)."""
    text = _num(us, ".1f")
    if text != "-" and host_bound(host_us, clearing_us):
        text += "†"
    return text


def host_bound_note(clearing_us, also=""):
    """The footnote of a table with † cells; `also` follows its sentence."""
    return (f"†: issuing the call took the host longer than do_bench's L2 clearing keeps the GPU busy "
            f"({clearing_us:.0f} us), so that do_bench figure may hold host time, not only the kernels'{also}.")


def _dobench(row, key, meta):
    return dobench_cell(row.get(f"{key}_us_dobench"), row.get(f"{key}_host_us"), (meta or {}).get("clearing_us"))


def row_cells(row, meta=None):
    """The Markdown cells of one result row (see compare_torch.measure_shape for the keys)."""
    shape = shape_text(row["shape"]) + ("*" if row.get("tuned_shape") else "")
    if row.get("status", "ok") != "ok":
        return [row["template"], shape, _cell(f"{row['status']}: {row.get('error', '')}")] + [""] * (len(COLUMNS) - 3)
    failed = row.get("compile_error") is not None
    return [
        row["template"],
        shape,
        served_text(row),
        _num(row.get("ours_us"), ".1f"),
        _num(row.get("defaults_us"), ".1f"),
        _num(row.get("torch_us"), ".1f"),
        _num(row.get("ratio"), ".2f"),
        compile_failure(row) if failed else _num(row.get("compile_us"), ".1f"),
        _num(row.get("ratio_compile"), ".2f"),
        _num(row.get("gbps"), ".0f"),
        _num(row.get("copy_fraction") and 100 * row["copy_fraction"], ".1f"),
        _num(row.get("speedup_vs_defaults"), ".2f") + ("x" if row.get("speedup_vs_defaults") else ""),
        _dobench(row, "ours", meta),
        _dobench(row, "torch", meta),
        _num(row.get("ratio_dobench"), ".2f"),
        "failed" if failed else _dobench(row, "compile", meta),
        _num(row.get("ratio_compile_dobench"), ".2f"),
        _num(row.get("max_error"), ".2e"),
        _yes_no(row.get("agree")),
        _yes_no(row.get("compile_agree")),
    ]


def markdown(meta, rows):
    lines = ["# Templates against PyTorch", ""]
    for key in ("device", "date", "torch", "timer", "second_timer", "rounds", "compile", "copy_gbps", "budget", "command"):
        if meta.get(key) is not None:
            value = meta[key]
            if key == "copy_gbps" and isinstance(value, (int, float)):
                value = f"{value:.0f} GB/s (kernelevo devices)"
            lines.append(f"- {key.replace('_', ' ')}: {value}")
    lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row_cells(r, meta)) + " |" for r in rows]
    lines += ["", "ours: the tuned configuration from the lockfile (served by: the bucket whose winner served",
              "the shape, for an entry with a winner per bucket; the buckets' parameters are in the notes);",
              "defaults: the template compiled with no parameter set; ratio > 1: ours is faster. GB/s and",
              "% of copy are ours, from the spec's metrics.bytes and the measured copy bandwidth. * marks a",
              "shape the tune measured; the others run the winner of their bucket (or the one winner)",
              "untuned. The do_bench columns time ours and PyTorch again under triton's do_bench, whose L2",
              "clearing leaves dirty lines for the timed run to write back.",
              "torch.compile: the same PyTorch code compiled per shape (memory-bound templates; '-' for the",
              "others), checked against eager (compile agree) and timed by both timers; ratio compile/ours > 1:",
              "ours is faster."]
    if any("†" in line for line in lines):
        lines += ["", host_bound_note(meta["clearing_us"])]
    notes = meta.get("notes") or []
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def _json_safe(value):
    """NaN and infinities (an output with NaN where PyTorch has none) become null: JSON has
    no such numbers."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def write(out_dir, meta, rows):
    with open(os.path.join(out_dir, "templates.md"), "w") as f:
        f.write(markdown(meta, rows))
    with open(os.path.join(out_dir, "templates.json"), "w") as f:
        json.dump(_json_safe({"meta": meta, "rows": rows}), f, indent=2, sort_keys=True, allow_nan=False)
        f.write("\n")
