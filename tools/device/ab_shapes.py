#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-shape comparison of two builds' ipt-bench runs (tools/device/ab_run.sh).

    ab_shapes.py OLD_CSV[,OLD_CSV...] NEW_CSV[,NEW_CSV...]

Each CSV is what `ipt-bench ... --csv` wrote for one run; the runs cover the same shapes.
For each shape (libipt's rows, by type, rows and columns), each build's median time over
its runs and the ratio new / old. Prints the median of those ratios over all shapes and
per sequence (the new build's), and, for a build run more than once, the median ratio of
its first run's times to its second's: the drift between runs of one build, against which
a difference stands. Whole-run medians of GB/s drift by about 1% between runs of one
build; per-shape ratios resolve smaller differences. A shape left unverified in any run,
or missing from one, is refused.
"""
import csv
import statistics
import sys


def load(path):
    times = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["library"] != "libipt":
                continue
            key = (row["type"], int(row["rows"]), int(row["cols"]))
            if row["verified"] != "1":
                sys.exit(f"{path}: {key[1]} x {key[2]} {key[0]} was not verified")
            times[key] = (float(row["time_s"]), row["sequence"])
    if not times:
        sys.exit(f"{path}: no libipt rows")
    return times


def runs_of(arg):
    runs = [load(path) for path in arg.split(",") if path]
    for run in runs[1:]:
        if run.keys() != runs[0].keys():
            sys.exit(f"the runs of {arg} cover different shapes")
    return runs


def drift(runs):
    first, second = runs[0], runs[1]
    return statistics.median(first[k][0] / second[k][0] for k in first)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    old, new = runs_of(argv[1]), runs_of(argv[2])
    if old[0].keys() != new[0].keys():
        sys.exit("the old and new runs cover different shapes")
    ratios = {}
    for key in new[0]:
        t_new = statistics.median(run[key][0] for run in new)
        t_old = statistics.median(run[key][0] for run in old)
        ratios.setdefault(new[0][key][1], []).append(t_new / t_old)
    every = [r for rs in ratios.values() for r in rs]
    print(f"new/old time per shape, median of {len(every)} shapes: "
          f"{statistics.median(every):.3f} (mean {statistics.mean(every):.3f})")
    for sequence, rs in sorted(ratios.items()):
        print(f"  sequence {sequence}: {statistics.median(rs):.3f} ({len(rs)} shapes)")
    for name, runs in (("old", old), ("new", new)):
        if len(runs) > 1:
            print(f"  {name} run 1 / run 2 (drift): {drift(runs):.3f}")


if __name__ == "__main__":
    main(sys.argv)
