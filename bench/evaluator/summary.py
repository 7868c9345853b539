"""The table of bench/evaluator/run.sh: evaluations per second and winners, baseline against
this tree, and the repeatability of one configuration over 5 processes."""
import json
import os
import statistics
import sys

d = sys.argv[1]


def load(name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


walls = {}
try:
    for line in open(os.path.join(d, "wall.txt")):
        label, secs = line.split()
        walls[label] = float(secs)
except OSError:
    pass

print("| tune | binary | evaluations | wall s | evaluations/s | winner | winner us | 1st problem us |")
print("|---|---|---|---|---|---|---|---|")
rates = {}
for tune in ("softmax", "rmsnorm", "sgemm"):
    for which in ("old", "new"):
        t = load(f"{tune}-{which}.json")
        if not t or not t.get("kernels"):
            print(f"| {tune} | {which} | (no result) ||||")
            continue
        k = t["kernels"][0]
        wall = walls.get(f"{tune}-{which}")
        rate = k["evaluations"] / wall if wall else None
        rates[(tune, which)] = rate
        first = k["problems"][0] if k.get("problems") else {}
        print(f"| {tune} | {which} | {k['evaluations']} | {wall:.1f} | {rate:.2f} | "
              f"{json.dumps(k.get('winner'))} | {k.get('winner_us') or 0:.2f} | {first.get('time_us') or 0:.2f} |")
print()
for tune in ("softmax", "rmsnorm", "sgemm"):
    o, n = rates.get((tune, "old")), rates.get((tune, "new"))
    if o and n:
        print(f"{tune}: evaluations/s new/old = {n / o:.3f}")
print()
for which in ("old", "new"):
    times = []
    for i in range(1, 6):
        t = load(f"repeat-{which}-{i}.json")
        if t and t.get("kernels") and t["kernels"][0].get("problems"):
            times.append(t["kernels"][0]["problems"][0].get("time_us"))
    times = [x for x in times if x]
    if times:
        spread = (max(times) - min(times)) / statistics.median(times)
        print(f"repeat {which}: {', '.join(f'{x:.2f}' for x in times)} us; "
              f"max-min over median {100 * spread:.2f}%")
