"""Kernel Tuner's strategies in simulation mode over recorded spaces.

For each space, strategy, seed and budget: the fraction of the optimum a tune_kernel run in
simulation mode reached, optimum_time / best_time among the first `budget` unique
configurations it evaluated (strategy_options max_fevals, which Kernel Tuner counts as
unique configurations). Writes one CSV line per space, strategy, seed and budget:
space,strategy,seed,budget,fraction,unique_evaluations (those the run had used by then;
fewer than the budget where the strategy stopped by itself),seconds (of the run).

Usage: kt_run.py --out FILE --strategies a,b [--seeds N] [--seeds-for bayes_opt=5]
                 [--budgets 25,50] [--per-budget a,b] [--jobs J] FILE.json.gz...
"""
import argparse
import gzip
import json
import math
import multiprocessing
import os
import random
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.optimize

# The space is exactly the recorded configurations, failed ones included: a configuration
# that failed costs an evaluation, as it does in kernelevo's replay. (Kernel Tuner's own
# tune_cache leaves failed configurations out of the space, which would make them free.)
from constraint import FunctionConstraint  # noqa: E402
from kernel_tuner import tune_kernel, util  # noqa: E402

# dual_annealing hands scipy maxfun = max_fevals, and scipy counts every call, repeats of
# configurations already evaluated included, so it stopped well short of `budget` unique
# configurations. The budget is enforced by Kernel Tuner's own counter of unique
# evaluations (TuningBudget), so scipy's limit is raised far above it (50x, so a search stuck
# on repeats still ends).
_dual_annealing = scipy.optimize.dual_annealing


def _dual_annealing_unique(*args, maxfun=None, **kwargs):
    return _dual_annealing(*args, maxfun=50 * (maxfun or 1000), **kwargs)


scipy.optimize.dual_annealing = _dual_annealing_unique

# Every tune_kernel call parses its cachefile again (tens of MB of JSON: most of a short
# run's time). In simulation mode the parsed cache is only read, so one parse per process
# serves every run.
_read_cache = util.read_cache
_parsed = {}


def _read_cache_once(cachefile, open_cache=True):
    if open_cache:
        return _read_cache(cachefile, open_cache)
    if cachefile not in _parsed:
        _parsed[cachefile] = _read_cache(cachefile, open_cache)
    return _parsed[cachefile]


util.read_cache = _read_cache_once

_SPACE = {}


def load(path, tmpdir):
    """Decompresses a cachefile into a .json of this process (tune_kernel wants a plain file,
    and appends to it)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    data = json.loads(text)
    name = os.path.basename(path).split(".json")[0]
    file = os.path.join(tmpdir, f"{name}.{os.getpid()}.json")
    with open(file, "w") as f:
        f.write(text)
    keys = data["tune_params_keys"]
    members = {tuple(entry[k] for k in keys) for entry in data["cache"].values()}
    times = [e["time"] for e in data["cache"].values() if not isinstance(e["time"], str)]
    return dict(name=name, file=file, data=data, members=members, optimum=min(times))


def run_one(job):
    """One tune_kernel run with max_fevals = max(budgets); a row per budget."""
    space_path, strategy, seed, budgets = job
    s = _SPACE[space_path]
    data = s["data"]
    members = s["members"]
    random.seed(seed)
    np.random.seed(seed)
    args = util.infer_args_from_cache(data)
    restriction = FunctionConstraint(lambda *values: values in members)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        results, _ = tune_kernel(**args, cache=s["file"], restrictions=[restriction],
                                 simulation_mode=True, strategy=strategy,
                                 strategy_options=dict(max_fevals=max(budgets)), quiet=True)
        seconds = time.perf_counter() - start
    keys = list(data["tune_params"].keys())
    seen = set()
    found = []  # best time after each unique configuration, in evaluation order
    best = math.inf
    for r in results:
        key = tuple(r[k] for k in keys)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        if "__error__" not in r and isinstance(t, (int, float)) and math.isfinite(t):
            best = min(best, t)
        found.append(best)
    rows = []
    for b in budgets:
        used = min(b, len(found))
        best_b = found[used - 1] if used else math.inf
        fraction = s["optimum"] / best_b if math.isfinite(best_b) else 0.0
        rows.append((s["name"], strategy, seed, b, fraction, used, seconds))
    return rows


def init(paths, tmpdir):
    for p in paths:
        _SPACE[p] = load(p, tmpdir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budgets", default="25,50,100,200,400")
    ap.add_argument("--strategies", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seeds-for", default="", help="STRATEGY=N,... fewer seeds for slow ones")
    ap.add_argument("--per-budget", default="simulated_annealing",
                    help="strategies whose schedule depends on max_fevals: one run per budget")
    ap.add_argument("spaces", nargs="+")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    strategies = a.strategies.split(",")
    seeds_for = dict(x.split("=") for x in a.seeds_for.split(",") if x)
    per_budget = set(a.per_budget.split(","))
    # Strategies that only stop at max_fevals behave the same with any budget until they
    # reach it, so one run at the largest budget gives every smaller one (its prefix).
    # Bayesian optimisation (by far the slowest) last, so the others' numbers come first.
    jobs = []
    for st in strategies:
        groups = [[b] for b in budgets] if st in per_budget else [budgets]
        for g in groups:
            for sp in a.spaces:
                for seed in range(1, int(seeds_for.get(st, a.seeds)) + 1):
                    jobs.append((sp, st, seed, g))
    jobs.sort(key=lambda j: (j[1] == "bayes_opt", -max(j[3])))
    # Resumes: runs already in --out (a run is one space, strategy, seed and largest budget)
    # are kept and not run again.
    kept = []
    if os.path.exists(a.out):
        with open(a.out) as f:
            next(f, None)
            kept = [line for line in f if line.endswith("\n") and line.count(",") == 6]
    have = {}
    for line in kept:
        sp, st, seed, b = line.split(",")[:4]
        have.setdefault((sp, st, int(seed)), set()).add(int(b))
    name = {p: os.path.basename(p).split(".json")[0] for p in a.spaces}
    jobs = [j for j in jobs if not set(j[3]) <= have.get((name[j[0]], j[1], j[2]), set())]
    start = time.time()
    done = 0
    with tempfile.TemporaryDirectory(prefix="kev-kt-") as tmpdir, \
            multiprocessing.Pool(a.jobs, initializer=init, initargs=(a.spaces, tmpdir)) as pool, \
            open(a.out, "w") as out:
        out.write("space,strategy,seed,budget,fraction,unique_evaluations,seconds\n")
        out.writelines(kept)
        for rows in pool.imap_unordered(run_one, jobs, chunksize=1):
            for row in rows:
                out.write("%s,%s,%d,%d,%.6f,%d,%.3f\n" % row)
            out.flush()
            done += 1
            if done % 50 == 0 or done == len(jobs):
                print(f"kernel tuner: {done}/{len(jobs)} runs, {time.time() - start:.0f}s",
                      file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
