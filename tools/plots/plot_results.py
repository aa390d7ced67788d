#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plot ipt-bench CSV results (figures in the style of the TPDS 2015 / PPoPP 2014 papers).

Usage:
    plot_results.py [--trust-unverified] OUT_DIR CSV [CSV...]

Every CSV has the ipt-bench header

    mode,library,variant,param,type,elem_size,rows,cols,sequence,m,n,padded_rows,
    padded_cols,time_s,wall_s,throughput_gbs,copy_gbs,fraction_of_copy,memory_bytes,verified

(columns that are missing are read as empty; a missing `library` reads as "libipt" and a
missing `variant` as "auto").  Rows are grouped by (mode, type) and one PNG is written per
group into OUT_DIR:

    random / skinny / square / shapes (and unknown modes)  MODE-TYPE-histogram.png
    sequences                                              sequences-TYPE.png
    tiles                                                  tiles-TYPE.png
    padding                                                padding-TYPE.png
    kernels                                                kernels-TYPE.png

Rows with throughput_gbs <= 0 (or empty) or verified == 0 are failures: they are counted in
the summary table printed to stdout but left out of every statistic and figure.  With
--trust-unverified a row with verified == 0 but a positive throughput is kept (for runs made
with --no-verify, which write verified 0).

Only the Python standard library and matplotlib (Agg backend) are needed.
"""

import argparse
import csv
import math
import os
import re
import statistics
import sys
from collections import OrderedDict, defaultdict

COLUMNS = [
    "mode", "library", "variant", "param", "type", "elem_size", "rows", "cols", "sequence",
    "m", "n", "padded_rows", "padded_cols", "time_s", "wall_s", "throughput_gbs", "copy_gbs",
    "fraction_of_copy", "memory_bytes", "verified",
]
HISTOGRAM_MODES = ("random", "skinny", "square", "shapes")
MODE_ORDER = ("random", "skinny", "square", "shapes", "sequences", "tiles", "padding", "kernels")
SEQUENCE_ORDER = ("2.1", "2.2", "3.1", "3.2", "4.1", "4.2", "1", "square", "auto")
LIBRARY_ORDER = ("libipt", "clblast-omatcopy", "oop-kernel", "catanzaro")
FALSE_WORDS = ("0", "false", "no", "fail", "failed", "n")


# --------------------------------------------------------------------------------------
# reading


def to_float(text):
    if text is None:
        return None
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isnan(value) or math.isinf(value):
        return None
    return value


def to_int(text):
    value = to_float(text)
    return None if value is None else int(round(value))


class Row:
    __slots__ = ("mode", "library", "variant", "param", "type", "elem_size", "rows", "cols",
                 "sequence", "m", "n", "padded_rows", "padded_cols", "throughput", "copy",
                 "fraction", "verified", "failed", "source")

    def pct_of_copy(self):
        if self.throughput is None:
            return None
        if self.copy and self.copy > 0:
            return 100.0 * self.throughput / self.copy
        if self.fraction is not None:
            return 100.0 * self.fraction
        return None

    def shape(self):
        return (self.rows, self.cols, self.elem_size)


def shape_label(shape):
    rows, cols, _ = shape
    return "%s\u00d7%s" % ("?" if rows is None else rows, "?" if cols is None else cols)


def read_csvs(paths, trust_unverified):
    result = []
    for path in paths:
        try:
            handle = open(path, newline="")
        except OSError as error:
            print("warning: cannot read %s: %s" % (path, error), file=sys.stderr)
            continue
        with handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in (reader.fieldnames or [])]
            if "mode" not in header or "throughput_gbs" not in header:
                print("warning: %s has no mode/throughput_gbs columns, skipped" % path,
                      file=sys.stderr)
                continue
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                print("note: %s lacks columns %s (read as empty)" % (path, ",".join(missing)),
                      file=sys.stderr)
            reader.fieldnames = header
            for raw in reader:
                get = lambda key: (raw.get(key) or "").strip()
                mode = get("mode")
                if not mode:
                    continue
                row = Row()
                row.source = path
                row.mode = mode
                row.library = get("library") or "libipt"
                row.variant = get("variant") or "auto"
                row.param = to_float(get("param"))
                row.elem_size = to_int(get("elem_size"))
                row.type = get("type") or ("%sB" % row.elem_size if row.elem_size else "?")
                row.rows = to_int(get("rows"))
                row.cols = to_int(get("cols"))
                row.sequence = get("sequence")
                row.m = to_int(get("m"))
                row.n = to_int(get("n"))
                row.padded_rows = to_int(get("padded_rows"))
                row.padded_cols = to_int(get("padded_cols"))
                row.throughput = to_float(get("throughput_gbs"))
                row.copy = to_float(get("copy_gbs"))
                row.fraction = to_float(get("fraction_of_copy"))
                verified = get("verified").lower()
                row.verified = verified not in FALSE_WORDS
                row.failed = (row.throughput is None or row.throughput <= 0
                              or (not row.verified and not trust_unverified))
                result.append(row)
    return result


# --------------------------------------------------------------------------------------
# statistics


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    data = sorted(values)
    if not data:
        return None
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ordered(keys, order):
    rank = {k: i for i, k in enumerate(order)}
    return sorted(keys, key=lambda k: (rank.get(k, len(order)), str(k)))


def group_sort_key(key):
    mode, dtype = key
    rank = MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER)
    return (rank, mode, dtype)


def fmt(value, spec="%.1f"):
    return "-" if value is None else spec % value


def print_summary(groups):
    header = "%-10s %-6s %-18s %-22s %6s %5s %9s %9s %9s %9s %9s %7s" % (
        "mode", "type", "library", "variant", "count", "fail", "median", "p10", "p90", "min",
        "max", "%copy")
    print("throughput in GB/s (failures excluded from the statistics)")
    print(header)
    print("-" * len(header))
    for key in sorted(groups, key=group_sort_key):
        rows = groups[key]
        series = defaultdict(list)
        for row in rows:
            series[(row.library, row.variant)].append(row)
        libs = ordered({lib for lib, _ in series}, LIBRARY_ORDER)
        for lib in libs:
            variants = [v for l, v in series if l == lib]
            for variant in ordered(variants, SEQUENCE_ORDER):
                members = series[(lib, variant)]
                good = [r for r in members if not r.failed]
                tp = [r.throughput for r in good]
                pct = [r.pct_of_copy() for r in good]
                print("%-10s %-6s %-18s %-22s %6d %5d %9s %9s %9s %9s %9s %7s" % (
                    key[0], key[1], lib[:18], variant[:22], len(members),
                    len(members) - len(good), fmt(median(tp)), fmt(percentile(tp, 10)),
                    fmt(percentile(tp, 90)), fmt(min(tp) if tp else None),
                    fmt(max(tp) if tp else None), fmt(median(pct))))
    print()


# --------------------------------------------------------------------------------------
# plotting helpers


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        print("error: matplotlib is not installed for %s; run tools/plots/plot.sh, or "
              "apt-get install python3-matplotlib" % sys.executable, file=sys.stderr)
        sys.exit(3)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text) or "x"


def series_label(library, variant):
    if variant in ("", "auto", library):
        return library
    return "%s (%s)" % (library, variant)


def hist_edges(values, count=None):
    lo, hi = min(values), max(values)
    if hi - lo < 1e-9 * max(1.0, abs(hi)):
        lo, hi = lo - 0.5, hi + 0.5
    if count is None:
        count = int(min(50, max(8, round(2 * math.sqrt(len(values))))))
    step = (hi - lo) / count
    return [lo + i * step for i in range(count)] + [hi]


def copy_reference(rows):
    return median([r.copy for r in rows if r.copy and r.copy > 0])


def group_best(rows):
    """Median throughput of repeated (valid) rows."""
    return median([r.throughput for r in rows])


def save(fig, out_dir, name, written):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    written.append(path)


# --------------------------------------------------------------------------------------
# 1. histograms (random / skinny / square / shapes)


def plot_histogram(plt, mode, dtype, rows, out_dir, written, notes):
    series = OrderedDict()
    keys = {(r.library, r.variant) for r in rows}
    for lib in ordered({k[0] for k in keys}, LIBRARY_ORDER):
        for variant in ordered([k[1] for k in keys if k[0] == lib], SEQUENCE_ORDER):
            series[(lib, variant)] = [r for r in rows if (r.library, r.variant) == (lib, variant)]
    all_tp = [r.throughput for r in rows]
    copy_all = copy_reference(rows)
    span = all_tp + ([copy_all] if copy_all else [])
    edges = hist_edges(all_tp)
    count = len(series)
    fig, axes = plt.subplots(count, 1, sharex=True, squeeze=False,
                             figsize=(9, 1.2 + 2.3 * count))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, ((lib, variant), members) in enumerate(series.items()):
        ax = axes[i][0]
        tp = [r.throughput for r in members]
        color = colors[i % len(colors)]
        ax.hist(tp, bins=edges, color=color, alpha=0.75, edgecolor="black", linewidth=0.4)
        med = statistics.median(tp)
        pct = median([r.pct_of_copy() for r in members])
        label = "median %.1f GB/s" % med
        if pct is not None:
            label += " (%.0f%% of copy)" % pct
        ax.axvline(med, color="black", linewidth=1.6, label=label)
        copy = copy_reference(members) or copy_all
        if copy:
            ax.axvline(copy, color="red", linestyle="--", linewidth=1.2,
                       label="copy bandwidth %.1f GB/s" % copy)
        ax.set_ylabel("shapes")
        ax.set_title("%s: %d shapes" % (series_label(lib, variant), len(tp)), fontsize=10,
                     loc="left")
        ax.legend(fontsize=8, loc="best")
        ax.grid(axis="x", alpha=0.3)
        notes.append("%s %s %s: median %.1f GB/s%s" % (
            mode, dtype, series_label(lib, variant), med,
            "" if pct is None else " (%.1f%% of copy)" % pct))
    lo, hi = min(span), max(span)
    pad = 0.04 * (hi - lo if hi > lo else 1.0)
    axes[-1][0].set_xlim(max(0.0, lo - pad) if lo >= 0 else lo - pad, hi + pad)
    axes[-1][0].set_xlabel("throughput (GB/s, read + write)")
    fig.suptitle("%s shapes, %s: throughput histogram" % (mode, dtype))
    fig.tight_layout()
    save(fig, out_dir, "%s-%s-histogram.png" % (safe_name(mode), safe_name(dtype)), written)
    plt.close(fig)


# --------------------------------------------------------------------------------------
# 2. sequences


def plot_sequences(plt, dtype, rows, out_dir, written, notes):
    by_shape = defaultdict(lambda: defaultdict(list))
    for r in rows:
        name = r.variant if r.library == "libipt" else r.library
        by_shape[r.shape()][name].append(r)
    table = {s: {name: group_best(rs) for name, rs in d.items()} for s, d in by_shape.items()}
    sequences = ordered({r.variant for r in rows if r.library == "libipt"}, SEQUENCE_ORDER)
    others = ordered({r.library for r in rows if r.library != "libipt"}, LIBRARY_ORDER)
    forced = [s for s in sequences if s != "auto"]

    def sort_key(shape):
        entry = table[shape]
        if "auto" in entry:
            return (0, entry["auto"])
        return (1, max(entry.values()))

    shapes = sorted(table, key=sort_key)
    wins = OrderedDict((s, 0) for s in forced)
    auto_ratio = []
    for shape in shapes:
        entry = table[shape]
        candidates = [(entry[s], s) for s in forced if s in entry]
        if candidates:
            best_tp, best = max(candidates)
            wins[best] += 1
            if "auto" in entry:
                auto_ratio.append(entry["auto"] / best_tp)

    width = max(9.0, min(26.0, 4.0 + 0.28 * len(shapes)))
    fig, (ax, axw) = plt.subplots(2, 1, figsize=(width, 9),
                                  gridspec_kw={"height_ratios": [3, 2]})
    markers = "o^sv<>DphH*"
    x = list(range(len(shapes)))
    for i, name in enumerate(sequences + others):
        xs = [i_ for i_, s in zip(x, shapes) if name in table[s]]
        ys = [table[s][name] for s in shapes if name in table[s]]
        if not xs:
            continue
        if name == "auto":
            ax.plot(xs, ys, color="black", linewidth=1.4, marker="o", markersize=4,
                    label="auto (heuristic)", zorder=3)
        elif name in others:
            ax.plot(xs, ys, linestyle="none", marker="x", color="0.45", markersize=6,
                    label=name)
        else:
            ax.plot(xs, ys, linestyle="none", marker=markers[i % len(markers)], markersize=5,
                    alpha=0.8, label="sequence %s" % name)
    copy = copy_reference(rows)
    if copy:
        ax.axhline(copy, color="red", linestyle="--", linewidth=1.0,
                   label="copy %.1f GB/s" % copy)
    ax.set_ylabel("throughput (GB/s)")
    if len(shapes) <= 40:
        ax.set_xticks(x)
        ax.set_xticklabels([shape_label(s) for s in shapes], rotation=90, fontsize=7)
        ax.set_xlabel("shape (rows\u00d7cols), sorted by auto's throughput")
    else:
        ax.set_xlabel("shape index, sorted by auto's throughput")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    ax.set_title("throughput of each forced sequence per shape (%d shapes)" % len(shapes),
                 fontsize=10)

    if wins:
        names = list(wins)
        bars = axw.bar(range(len(names)), [wins[n] for n in names], color="tab:blue")
        for bar, n in zip(bars, names):
            axw.annotate(str(wins[n]), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                         ha="center", va="bottom", fontsize=8)
        axw.set_xticks(range(len(names)))
        axw.set_xticklabels(names)
        axw.set_xlabel("forced sequence")
        axw.set_ylabel("shapes where fastest")
        text = "fastest forced sequence per shape"
        if auto_ratio:
            within = sum(1 for v in auto_ratio if v >= 0.95)
            text += ("\nauto / best forced: median %.1f%%, within 5%% of best in %d/%d shapes"
                     % (100 * statistics.median(auto_ratio), within, len(auto_ratio)))
            notes.append("sequences %s: auto/best median %.1f%%, within 5%% in %d/%d; wins %s" % (
                dtype, 100 * statistics.median(auto_ratio), within, len(auto_ratio),
                ", ".join("%s=%d" % kv for kv in wins.items())))
        axw.set_title(text, fontsize=10)
        axw.grid(axis="y", alpha=0.3)
    else:
        axw.set_axis_off()
        axw.text(0.5, 0.5, "no forced-sequence rows", ha="center", va="center")
    fig.suptitle("sequences, %s" % dtype)
    fig.tight_layout()
    save(fig, out_dir, "sequences-%s.png" % safe_name(dtype), written)
    plt.close(fig)


# --------------------------------------------------------------------------------------
# 3. tiles


def plot_tiles(plt, dtype, rows, out_dir, written, notes):
    libipt = [r for r in rows if r.library == "libipt"] or rows
    heuristic = defaultdict(list)
    pairs = defaultdict(list)
    for r in libipt:
        if r.variant == "heuristic":
            heuristic[r.shape()].append(r)
        elif r.variant == "pair":
            pairs[r.shape()].append(r)
    losses, points, chose_best = [], [], 0
    incomplete = 0
    for shape in set(heuristic) | set(pairs):
        if shape not in heuristic or shape not in pairs:
            incomplete += 1
            continue
        h = group_best(heuristic[shape])
        by_pair = defaultdict(list)
        for r in pairs[shape]:
            by_pair[(r.m, r.n)].append(r)
        best_pair = max(by_pair, key=lambda k: group_best(by_pair[k]))
        best = group_best(by_pair[best_pair])
        losses.append(100.0 * (1.0 - h / best))
        points.append((best, h))
        chosen = {(r.m, r.n) for r in heuristic[shape] if r.m is not None}
        if best_pair in chosen:
            chose_best += 1
    if not losses:
        notes.append("tiles %s: no shape has both a heuristic and a pair row; no figure" % dtype)
        return
    fig, (ah, ac, asc) = plt.subplots(1, 3, figsize=(15, 4.6))
    med = statistics.median(losses)
    ah.hist(losses, bins=hist_edges(losses), color="tab:orange", edgecolor="black",
            linewidth=0.4)
    ah.axvline(med, color="black", linewidth=1.6, label="median loss %.1f%%" % med)
    ah.axvline(0, color="0.5", linewidth=0.8)
    ah.set_xlabel("loss of the heuristic vs best (m, n) pair (%)")
    ah.set_ylabel("shapes")
    ah.legend(fontsize=8)
    ah.set_title("histogram", fontsize=10)

    data = sorted(losses)
    ys = [(i + 1) / len(data) for i in range(len(data))]
    ac.step(data, ys, where="post", color="tab:orange")
    ac.axvline(med, color="black", linewidth=1.6, label="median %.1f%%" % med)
    ac.axhline(0.5, color="0.6", linewidth=0.8, linestyle=":")
    ac.set_xlabel("loss (%)")
    ac.set_ylabel("fraction of shapes with loss \u2264 x")
    ac.set_ylim(0, 1.02)
    ac.grid(alpha=0.3)
    ac.legend(fontsize=8, loc="lower right")
    ac.set_title("CDF", fontsize=10)

    bx = [p[0] for p in points]
    hy = [p[1] for p in points]
    asc.scatter(bx, hy, s=14, color="tab:orange", edgecolor="black", linewidth=0.3)
    lo, hi = min(bx + hy), max(bx + hy)
    asc.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, label="y = x")
    asc.set_xlabel("best forced pair (GB/s)")
    asc.set_ylabel("heuristic (GB/s)")
    asc.legend(fontsize=8, loc="upper left")
    asc.grid(alpha=0.3)
    asc.set_title("per shape", fontsize=10)
    within = sum(1 for v in losses if v <= 5.0)
    title = ("tile size heuristic, %s: %d shapes, median loss %.1f%%, p90 %.1f%%, "
             "within 5%% in %d" % (dtype, len(losses), med, percentile(losses, 90), within))
    if any(r.m is not None for rs in heuristic.values() for r in rs):
        title += ", picks the best pair in %d" % chose_best
    if incomplete:
        title += " (%d shapes incomplete)" % incomplete
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    notes.append(title)
    save(fig, out_dir, "tiles-%s.png" % safe_name(dtype), written)
    plt.close(fig)


# --------------------------------------------------------------------------------------
# 4. padding


def plot_padding(plt, dtype, rows, out_dir, written, notes):
    libipt = [r for r in rows if r.library == "libipt"] or rows
    padded = defaultdict(list)
    unpadded = defaultdict(list)
    for r in libipt:
        if r.variant == "padded":
            padded[r.shape()].append(r)
        elif r.variant == "unpadded":
            unpadded[r.shape()].append(r)
    shapes = sorted(set(padded) & set(unpadded), key=lambda s: tuple(v or 0 for v in s))
    if not shapes:
        notes.append("padding %s: no shape has both padded and unpadded rows; no figure" % dtype)
        return
    # A shape the planner does not pad runs the same plan both ways: its "speed-up" is
    # run-to-run noise, so only the shapes whose padded plan really pads are drawn.
    def pads(r):
        return (r.padded_rows is not None and r.padded_cols is not None and r.rows is not None
                and r.cols is not None and r.padded_rows * r.padded_cols > r.rows * r.cols)
    measured = len(shapes)
    shapes = [s for s in shapes if any(pads(r) for r in padded[s])]
    if not shapes:
        notes.append("padding %s: the planner pads none of the %d shapes; no figure"
                     % (dtype, measured))
        return
    u = [group_best(unpadded[s]) for s in shapes]
    p = [group_best(padded[s]) for s in shapes]
    speedup = [pp / uu for pp, uu in zip(p, u)]
    fig, (asc, ah) = plt.subplots(1, 2, figsize=(12, 5))
    colors = ["tab:green" if s >= 1 else "tab:red" for s in speedup]
    asc.scatter(u, p, s=16, c=colors, edgecolor="black", linewidth=0.3)
    lo, hi = min(u + p), max(u + p)
    asc.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, label="y = x")
    pad = 0.04 * (hi - lo if hi > lo else 1.0)
    asc.set_xlim(lo - pad, hi + pad)
    asc.set_ylim(lo - pad, hi + pad)
    asc.set_aspect("equal", adjustable="box")
    asc.set_xlabel("unpadded (GB/s)")
    asc.set_ylabel("padded (GB/s)")
    asc.grid(alpha=0.3)
    asc.legend(fontsize=8, loc="upper left")
    asc.set_title("per shape (green: padding helps)", fontsize=10)
    if len(shapes) <= 12:
        for x_, y_, s in zip(u, p, shapes):
            asc.annotate(shape_label(s), (x_, y_), fontsize=6, xytext=(3, 3),
                         textcoords="offset points")
    med = statistics.median(speedup)
    ah.hist(speedup, bins=hist_edges(speedup), color="tab:green", edgecolor="black",
            linewidth=0.4)
    ah.axvline(med, color="black", linewidth=1.6, label="median speed-up %.2f\u00d7" % med)
    ah.axvline(1.0, color="0.5", linewidth=0.8, linestyle=":")
    ah.set_xlabel("speed-up padded / unpadded")
    ah.set_ylabel("shapes")
    ah.legend(fontsize=8)
    ah.set_title("histogram", fontsize=10)
    helped = sum(1 for s in speedup if s > 1.0)
    title = ("padding, %s: the %d padded shapes of %d, median speed-up %.2f\u00d7, faster "
             "padded in %d (min %.2f\u00d7, max %.2f\u00d7)" % (dtype, len(shapes), measured, med,
                                                              helped, min(speedup),
                                                              max(speedup)))
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    notes.append(title)
    save(fig, out_dir, "padding-%s.png" % safe_name(dtype), written)
    plt.close(fig)


# --------------------------------------------------------------------------------------
# 5. kernels


def kernel_group(variant):
    prefix = variant.split()[0] if variant.split() else variant
    low = prefix.lower()
    if low.startswith("100!"):
        return "100! (param: super-element size C)"
    if low in ("bs", "pttwac") or low.startswith("bs") or low.startswith("pttwac"):
        return "BS / PTTWAC (param: tile elements)"
    return prefix


def plot_kernels(plt, dtype, rows, out_dir, written, notes):
    lines = defaultdict(lambda: defaultdict(list))   # group -> label -> rows
    references = defaultdict(list)                   # label -> rows (no param / baselines)
    for r in rows:
        if r.library != "libipt":
            references[series_label(r.library, r.variant)].append(r)
        else:
            lines[kernel_group(r.variant)][r.variant].append(r)
    if not lines:
        lines["kernels"] = {}
    groups = sorted(lines)
    shapes = {r.shape() for r in rows}
    fig, axes = plt.subplots(len(groups), 1, figsize=(10, 1 + 4.2 * len(groups)),
                             squeeze=False)
    copy = copy_reference(rows)
    for ax, group in zip((a[0] for a in axes), groups):
        has_param = False
        for label in sorted(lines[group]):
            members = lines[group][label]
            by_param = defaultdict(list)
            flat = []
            for r in members:
                if r.param is not None and r.param > 0:
                    by_param[r.param].append(r)
                else:
                    flat.append(r)
            if by_param:
                has_param = True
                xs = sorted(by_param)
                ys = [group_best(by_param[x]) for x in xs]
                line, = ax.plot(xs, ys, marker="o", markersize=4, label=label)
                best = max(range(len(xs)), key=lambda i: ys[i])
                ax.plot([xs[best]], [ys[best]], marker="*", markersize=11,
                        color=line.get_color(), linestyle="none")
                notes.append("kernels %s %s: best %.1f GB/s at param %g" % (
                    dtype, label, ys[best], xs[best]))
            if flat:
                ax.axhline(group_best(flat), linestyle=":", linewidth=1.2,
                           label="%s (no param)" % label)
        for label in sorted(references):
            ax.axhline(group_best(references[label]), color="0.4", linestyle="-.",
                       linewidth=1.0, label=label)
        if copy:
            ax.axhline(copy, color="red", linestyle="--", linewidth=1.0,
                       label="copy %.1f GB/s" % copy)
        if has_param:
            ax.set_xscale("log", base=2)
        ax.set_xlabel("param (%s)" % (group.split("param: ")[-1].rstrip(")")
                                      if "param: " in group else "swept size"))
        ax.set_ylabel("throughput (GB/s)")
        ax.set_title(group, fontsize=10, loc="left")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, ncol=2, loc="best")
    title = "kernels, %s" % dtype
    if len(shapes) > 1:
        title += ": median over %d shapes per point (\u2605 = best per variant)" % len(shapes)
    else:
        shape = next(iter(shapes))
        title += ": %s (\u2605 = best per variant)" % shape_label(shape)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    save(fig, out_dir, "kernels-%s.png" % safe_name(dtype), written)
    plt.close(fig)


# --------------------------------------------------------------------------------------


def main(argv):
    parser = argparse.ArgumentParser(
        description="Plot ipt-bench CSV files (one PNG per mode and type).")
    parser.add_argument("out_dir", metavar="OUT_DIR")
    parser.add_argument("csvs", metavar="CSV", nargs="+")
    parser.add_argument("--trust-unverified", action="store_true",
                        help="keep rows with verified 0 (runs made with --no-verify)")
    args = parser.parse_args(argv)

    rows = read_csvs(args.csvs, args.trust_unverified)
    if not rows:
        print("error: no rows read from %s" % " ".join(args.csvs), file=sys.stderr)
        return 1
    groups = defaultdict(list)
    for r in rows:
        groups[(r.mode, r.type)].append(r)
    print_summary(groups)

    plt = import_pyplot()
    os.makedirs(args.out_dir, exist_ok=True)
    written, notes = [], []
    plotters = {"sequences": plot_sequences, "tiles": plot_tiles, "padding": plot_padding,
                "kernels": plot_kernels}
    for key in sorted(groups, key=group_sort_key):
        mode, dtype = key
        good = [r for r in groups[key] if not r.failed]
        failed = len(groups[key]) - len(good)
        if not good:
            notes.append("%s %s: all %d rows failed; no figure" % (mode, dtype, failed))
            continue
        try:
            if mode in plotters:
                plotters[mode](plt, dtype, good, args.out_dir, written, notes)
            else:
                if mode not in HISTOGRAM_MODES:
                    notes.append("%s %s: unknown mode, drawn as a histogram" % (mode, dtype))
                plot_histogram(plt, mode, dtype, good, args.out_dir, written, notes)
        except Exception as error:  # keep going with the other groups
            notes.append("%s %s: plotting failed: %s: %s" % (mode, dtype,
                                                             type(error).__name__, error))
            plt.close("all")
        if failed:
            notes.append("%s %s: %d failed rows left out" % (mode, dtype, failed))
    for note in notes:
        print(note)
    print()
    for path in written:
        print("wrote %s" % path)
    if not written:
        print("no figures written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
