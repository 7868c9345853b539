"""The comparison table: kernelevo's strategies (kernelevo_strategy_table's CSV) beside
Kernel Tuner's (kt_run.py's per-run CSV), per space and budget, and per budget averaged over
spaces. Writes FILE.md and FILE.csv.

Usage: compare.py --kev KEV.csv --kt KT.csv --out FILE (no extension) --header HEADER.md
                  --tuned space,space --budgets 25,50,...
"""
import argparse
import collections
import csv
import math
import statistics


def ci95(values):
    """Mean and the half-width of its 95% interval (Student t approximated as in
    bench/strategy_table.cpp: 1.96 + 2.4/(n-1))."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    sd = statistics.stdev(values)
    return mean, (1.96 + 2.4 / (n - 1)) * sd / math.sqrt(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kev", required=True)
    ap.add_argument("--kt", required=True, nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--tuned", required=True)
    ap.add_argument("--budgets", default="25,50,100,200,400")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    tuned = set(a.tuned.split(","))

    # kev[(space, strategy, budget)] = (mean, half, seeds)
    kev = {}
    with open(a.kev) as f:
        for r in csv.DictReader(f):
            if r["space"].startswith("**"):
                continue
            mean = float(r["mean"])
            kev[(r["space"], r["strategy"], int(r["budget"]))] = (
                mean, mean - float(r["ci_low"]), int(r["seeds"]))
    runs = collections.defaultdict(list)
    used = collections.defaultdict(list)
    for path in a.kt:
        with open(path) as f:
            for r in csv.DictReader(f):
                k = (r["space"], r["strategy"], int(r["budget"]))
                runs[k].append(float(r["fraction"]))
                used[k].append(int(r["unique_evaluations"]))
    kt = {k: (*ci95(v), len(v)) for k, v in runs.items()}

    spaces = sorted({k[0] for k in kev})
    spaces = [s for s in spaces if any((s, st, b) in kt for st in {k[1] for k in kt} for b in budgets)]
    kev_strategies = sorted({k[1] for k in kev}, key=lambda s: (s != "auto", s))
    kt_strategies = sorted({k[1] for k in kt})

    def kt_best(space, b):
        cands = [(kt[(space, st, b)][0], st) for st in kt_strategies if (space, st, b) in kt]
        return max(cands) if cands else (float("nan"), "-")

    rows = []  # csv rows
    lines = []
    shortfalls = []
    groups = [("chosen on (tuning spaces)", [s for s in spaces if s in tuned]),
              ("held out (not tuned on; looked at, see above)", [s for s in spaces if s not in tuned])]
    lines.append("## Per budget, averaged over spaces\n")
    lines.append("Mean over spaces of each space's mean fraction of the optimum. `KT best per space` "
                 "is, for each space and budget, the best Kernel Tuner strategy's mean on that space, "
                 "averaged over the spaces (a per-space oracle choice, which no single strategy is).\n")
    head = "| spaces | what | " + " | ".join(str(b) for b in budgets) + " |"
    lines.append(head)
    lines.append("|---|---|" + "---|" * len(budgets))
    for label, members in groups + [("all", spaces)]:
        if not members:
            continue
        def avg(f):
            return [sum(f(s, b) for s in members) / len(members) for b in budgets]
        series = [("kernelevo auto", avg(lambda s, b: kev[(s, "auto", b)][0])),
                  ("kernelevo random", avg(lambda s, b: kev[(s, "random", b)][0])),
                  ("KT random_sample", avg(lambda s, b: kt.get((s, "random_sample", b), (0,))[0])),
                  ("KT best per space", avg(lambda s, b: kt_best(s, b)[0]))]
        for st in kt_strategies:
            if all((s, st, b) in kt for s in members for b in budgets):
                series.append((f"KT {st}", avg(lambda s, b, st=st: kt[(s, st, b)][0])))
        for name, vals in series:
            lines.append(f"| {label} ({len(members)}) | {name} | " +
                         " | ".join(f"{v:.3f}" for v in vals) + " |")
            rows.append(dict(table="average", spaces=label, space="", side=name.split()[0],
                             strategy=name, **{str(b): f"{v:.5f}" for b, v in zip(budgets, vals)}))
    lines.append("")

    lines.append("## Per space\n")
    lines.append("Each cell: mean fraction of the optimum ± the half-width of its 95% confidence "
                 "interval (seeds in the last column). **auto vs bar**: auto's mean minus the higher "
                 "of random sampling's mean (kernelevo's and Kernel Tuner's) and the KT best per space; "
                 "negative where auto falls short.\n")
    for label, members in groups:
        if not members:
            continue
        lines.append(f"### {label}\n")
        for s in members:
            lines.append(f"#### {s}\n")
            lines.append("| strategy | " + " | ".join(str(b) for b in budgets) + " | seeds |")
            lines.append("|---|" + "---|" * len(budgets) + "---|")
            for st in kev_strategies:
                cells = [kev[(s, st, b)] for b in budgets]
                name = f"kernelevo **{st}**" if st == "auto" else f"kernelevo {st}"
                lines.append(f"| {name} | " + " | ".join(f"{m:.3f} ± {h:.3f}" for m, h, _ in cells) +
                             f" | {cells[0][2]} |")
                rows.append(dict(table="space", spaces=label, space=s, side="kernelevo", strategy=st,
                                 **{str(b): f"{c[0]:.5f}" for b, c in zip(budgets, cells)}))
            for st in kt_strategies:
                if not all((s, st, b) in kt for b in budgets):
                    continue
                cells = [kt[(s, st, b)] for b in budgets]
                mean_used = [statistics.mean(used[(s, st, b)]) for b in budgets]
                stopped = "" if all(u >= b - 0.5 for u, b in zip(mean_used, budgets)) else \
                    " (stops early: " + ", ".join(f"{u:.0f}" for u in mean_used) + " used)"
                lines.append(f"| KT {st}{stopped} | " +
                             " | ".join(f"{m:.3f} ± {h:.3f}" for m, h, _ in cells) +
                             f" | {cells[0][2]} |")
                rows.append(dict(table="space", spaces=label, space=s, side="kernel_tuner",
                                 strategy=st, **{str(b): f"{c[0]:.5f}" for b, c in zip(budgets, cells)}))
            best = [kt_best(s, b) for b in budgets]
            lines.append("| KT best per space | " + " | ".join(f"{m:.3f} ({st})" for m, st in best) +
                         " | |")
            margin = []
            for b, (bm, bst) in zip(budgets, best):
                auto = kev[(s, "auto", b)][0]
                rnd = max(kev[(s, "random", b)][0], kt.get((s, "random_sample", b), (0,))[0])
                bar = max(rnd, bm)
                margin.append(auto - bar)
                if auto < rnd:
                    shortfalls.append(f"{s} at {b}: auto {auto:.3f} below random {rnd:.3f}")
                if auto < bm:
                    shortfalls.append(f"{s} at {b}: auto {auto:.3f} below KT best {bm:.3f} ({bst})")
            lines.append("| **auto vs bar** | " + " | ".join(f"{m:+.3f}" for m in margin) + " | |")
            lines.append("")

    summary = ["## Where auto falls short\n"]
    if shortfalls:
        summary += [f"- {x}" for x in shortfalls]
    else:
        summary.append("Nowhere: on every space and budget auto's mean is at least random "
                       "sampling's and Kernel Tuner's best strategy's on that space.")
    summary.append("")

    with open(a.header) as f:
        header = f.read()
    with open(a.out + ".md", "w") as f:
        f.write(header + "\n" + "\n".join(summary) + "\n" + "\n".join(lines) + "\n")
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["table", "spaces", "space", "side", "strategy"] +
                           [str(b) for b in budgets])
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
