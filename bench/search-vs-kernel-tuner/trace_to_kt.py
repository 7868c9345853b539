"""Writes a kernelevo trace (JSON Lines, docs/trace-format.md) as a Kernel Tuner cachefile,
so Kernel Tuner's simulation mode searches the same recorded configurations.

Usage: trace_to_kt.py TRACE.jsonl.gz OUT.json
Failed configurations keep their place in the space (time "RuntimeFailedConfig" or
"CompilationFailedConfig"), as in Kernel Tuner's own cachefiles; times become ms.
"""
import gzip
import json
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    opener = gzip.open if src.endswith(".gz") else open
    header = None
    cache = {}
    with opener(src, "rt") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a killed run's cut-off last line
            if header is None:
                header = rec
                keys = [d["name"] for d in header["dims"]]
                continue
            if "params" not in rec:
                continue
            params = rec["params"]
            key = ",".join(str(params[k]) for k in keys)
            entry = {k: params[k] for k in keys}
            if rec.get("disposition") == "passed" and rec.get("time_us") is not None:
                entry["time"] = rec["time_us"] / 1000.0
                entry["times"] = [t / 1000.0 for t in rec.get("samples_us") or [rec["time_us"]]]
            elif rec.get("disposition") == "compile_failed":
                entry["time"] = "CompilationFailedConfig"
            else:
                entry["time"] = "RuntimeFailedConfig"
            entry.update(compile_time=0, verification_time=0, benchmark_time=0)
            cache[key] = entry
    out = dict(device_name=header.get("device", "unknown"), kernel_name=header["kernel"],
               problem_size=[1], tune_params_keys=keys,
               tune_params={d["name"]: d["values"] for d in header["dims"]},
               objective="time", cache=cache)
    with open(dst, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
