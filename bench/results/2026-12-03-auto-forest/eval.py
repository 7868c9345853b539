"""Compare a kev CSV (strategy table) to KT bars: per space margins vs max(random, KT best)."""
import csv, sys, collections
kev_path = sys.argv[1]
strat = sys.argv[2] if len(sys.argv) > 2 else "auto"
import os
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") + "/"
runs = collections.defaultdict(list)
for p in ["search-vs-kernel-tuner-kt-runs.csv", "search-vs-kernel-tuner-kt-runs-sgemm.csv"]:
    for r in csv.DictReader(open(root + p)):
        runs[(r["space"], r["strategy"], int(r["budget"]))].append(float(r["fraction"]))
kt = {k: sum(v) / len(v) for k, v in runs.items()}
kev = {}
for r in csv.DictReader(open(kev_path)):
    kev[(r["space"], r["strategy"], int(r["budget"]))] = float(r["mean"])
budgets = [25, 50, 100, 200, 400]
spaces = sorted({k[0] for k in kev if not k[0].startswith("**")})
ktstr = sorted({k[1] for k in kt})
tot = collections.defaultdict(float); totb = collections.defaultdict(float)
print("%-22s" % "space", " ".join("%14d" % b for b in budgets))
for s in spaces:
    cells = []
    for b in budgets:
        a = kev.get((s, strat, b), float("nan"))
        best = max(kt.get((s, st, b), 0) for st in ktstr)
        rnd = max(kev.get((s, "random", b), 0), kt.get((s, "random_sample", b), 0))
        tot[b] += a; totb[b] += best
        flag = "!" if a < rnd else ("-" if a < best else " ")
        cells.append("%.3f%+.3f%s" % (a, a - best, flag))
    print("%-22s" % s, " ".join("%14s" % c for c in cells))
n = len(spaces)
print("%-22s" % "avg", " ".join("%14s" % ("%.3f/%.3f" % (tot[b] / n, totb[b] / n)) for b in budgets))
