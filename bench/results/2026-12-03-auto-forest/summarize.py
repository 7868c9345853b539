"""One Markdown row per variant CSV (kernelevo_strategy_table --csv): auto's mean fraction of the
optimum averaged over the spaces in the file, at each budget, +- the half-width of a 95% interval
of that average (the spaces' own half-widths combined as independent: sqrt(sum hw^2) / n)."""
import csv, math, sys
budgets = ["25", "50", "100", "200", "400"]
for path in sys.argv[1:]:
    rows = [r for r in csv.DictReader(open(path))
            if r["strategy"] == "auto" and not r["space"].startswith("**")]
    cells = []
    for b in budgets:
        v = [r for r in rows if r["budget"] == b]
        mean = sum(float(r["mean"]) for r in v) / len(v)
        hw = math.sqrt(sum(((float(r["ci_high"]) - float(r["ci_low"])) / 2) ** 2 for r in v)) / len(v)
        cells.append("%.3f ± %.3f" % (mean, hw))
    name = path.split("/")[-1][:-4]
    print("| %s | %s | %s |" % (name, " | ".join(cells), rows[0]["seeds"]))
