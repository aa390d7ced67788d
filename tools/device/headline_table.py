#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The headline table of docs/performance.md, from the files of headline_run.sh.

    headline_table.py DIR

DIR holds ipt-bench's CSVs (<mode>-<type>.csv: libipt, CLBlast omatcopy and our
out-of-place kernel), the CUDA peers' (peers-<mode>-<type>.csv: cuBLAS geam, PyTorch)
and Catanzaro et al.'s (catanzaro-<mode>-<type>.csv). Prints one Markdown row per run:
medians of 2*rows*cols*elem_size/t in GB/s with the fraction of the copy bandwidth that
the same run measured, libipt's extra device memory (median and largest, as a fraction
of the matrix), and, for Catanzaro et al., how many shapes it finished in its time box
and libipt's speed-up over it on those shapes (median of the per-shape ratios). Peers
count only on the shapes libipt ran. A second table gives libipt's speed against the
out-of-place peers shape by shape, with the memory each needs.
Only verified results count; a wrong result anywhere is reported and fails the script.
"""
import csv
import os
import statistics
import sys

RUNS = [("random", "f32"), ("random", "f64"), ("random", "u8"), ("random", "f16"),
        ("primes", "f32"), ("skinny", "f32"), ("skinny", "f64"), ("square", "f32"),
        ("square", "f64"), ("large", "f32")]


def rows_of(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cell(rows, copy_key="copy_gbs"):
    if not rows:
        return "—"
    gbs = statistics.median(float(r["throughput_gbs"]) for r in rows)
    copy = statistics.median(float(r[copy_key]) for r in rows)
    return f"{gbs:.0f} ({gbs / copy:.0%})"


def extra_fractions(ipt):
    """libipt's extra device memory per shape, as a fraction of the matrix."""
    return [float(r["extra_bytes"] or 0) / (int(r["rows"]) * int(r["cols"]) * int(r["elem_size"]))
            for r in ipt]


def time_ratios(ipt, peers):
    """The peer's time over libipt's on each shape both ran, sorted."""
    mine = {(r["rows"], r["cols"]): float(r["time_s"]) for r in ipt}
    return sorted(float(r["time_s"]) / mine[(r["rows"], r["cols"])] for r in peers
                  if (r["rows"], r["cols"]) in mine)


def main(folder):
    wrong = 0
    print("| run | shapes | libipt GB/s (% of copy) | p10 / min | libipt extra memory: median / max "
          "| CLBlast `omatcopy` | cuBLAS `geam` | PyTorch | Catanzaro et al. (shapes) "
          "| libipt / Catanzaro | copy GB/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for mode, t in RUNS:
        bench = rows_of(os.path.join(folder, f"{mode}-{t}.csv"))
        peers = rows_of(os.path.join(folder, f"peers-{mode}-{t}.csv"))
        peer = rows_of(os.path.join(folder, f"catanzaro-{mode}-{t}.csv"))
        if not bench:
            continue
        wrong += sum(r["verified"] != "1" for r in bench + peers + peer)
        ipt = [r for r in bench if r["library"] == "libipt"]
        # Peers count on the shapes libipt ran (a peer's file may hold more).
        mine = {(r["rows"], r["cols"]) for r in ipt}
        peers = [r for r in peers if (r["rows"], r["cols"]) in mine]
        peer = [r for r in peer if (r["rows"], r["cols"]) in mine]
        gbs = sorted(float(r["throughput_gbs"]) for r in ipt)
        p10 = gbs[int(0.1 * (len(gbs) - 1))]
        extra = extra_fractions(ipt)
        ratio = "—"
        if peer:
            ratios = time_ratios(ipt, peer)
            ratio = f"{statistics.median(ratios):.1f}x (min {min(ratios):.1f}x)"
        print(f"| {mode} {t} | {len(ipt)} | **{cell(ipt)}** | {p10:.0f} / {gbs[0]:.0f} "
              f"| {statistics.median(extra):.4%} / {max(extra):.2%} "
              f"| {cell([r for r in bench if r['library'] == 'clblast-omatcopy'])} "
              f"| {cell([r for r in peers if r['library'] == 'cublas-geam'])} "
              f"| {cell([r for r in peers if r['library'] == 'pytorch'])} "
              f"| {cell(peer)}{f' ({len(peer)})' if peer else ''} | {ratio} "
              f"| {statistics.median(float(r['copy_gbs']) for r in ipt):.0f} |")
    print()
    ratio_table(folder)
    if wrong:
        print(f"{wrong} results were not verified", file=sys.stderr)
    return 1 if wrong else 0


def ratios_cell(ipt, peers):
    """libipt's speed over a peer's, shape by shape: the median ratio of the peer's time to
    libipt's, its 10th percentile and largest, and on how many shapes libipt was faster."""
    ratios = time_ratios(ipt, [r for r in peers if r["verified"] == "1"])
    if not ratios:
        return "—"
    p10 = ratios[int(0.1 * (len(ratios) - 1))]
    faster = sum(x > 1 for x in ratios)
    return (f"{statistics.median(ratios):.2f}x ({p10:.2f}x / {ratios[-1]:.2f}x); "
            f"faster on {faster} of {len(ratios)}")


def ratio_table(folder):
    """libipt against the out-of-place CUDA peers, per run, with the memory each needs."""
    print("| run | libipt / cuBLAS `geam`: median (p10 / max) | libipt / PyTorch: median "
          "(p10 / max) | extra memory: libipt median / max, peers |")
    print("|---|---|---|---|")
    for mode, t in RUNS:
        bench = rows_of(os.path.join(folder, f"{mode}-{t}.csv"))
        peers = rows_of(os.path.join(folder, f"peers-{mode}-{t}.csv"))
        ipt = [r for r in bench if r["library"] == "libipt" and r["verified"] == "1"]
        if not ipt or not peers:
            continue
        extra = extra_fractions(ipt)
        print(f"| {mode} {t} | {ratios_cell(ipt, [r for r in peers if r['library'] == 'cublas-geam'])} "
              f"| {ratios_cell(ipt, [r for r in peers if r['library'] == 'pytorch'])} "
              f"| {statistics.median(extra):.4%} / {max(extra):.2%}, 100% |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
