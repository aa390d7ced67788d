#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The stage profile of docs/performance.md, from `ipt-kernel-bench stages` logs.

    stage_table.py LOG...

Each LOG is the text output of `ipt-kernel-bench stages --shapes ... [--type T]`: per
shape, the whole call's time and each step's (kernel time, 2*rows*cols*elem_size/t, and
that as a percentage of the copy bandwidth measured in the same run). Prints one Markdown
row per log: the shapes, the whole call's median percentage of copy, and for each kind of
pass the median percentage (the lowest in brackets) over the steps of that kind:
  on-chip 010!   the on-chip kernel's 010! stages (rounds of whole instances);
  100! >= 256 B  SoA 100! and 0100! stages whose super-elements have 256 bytes or more;
  100! < 256 B   the same with smaller super-elements;
  pad, unpad     rows spread to or closed up from a padded width.
Steps that move a few elements (the bytes a padded plan keeps in scratch) are left out.
A log with a wrong result is refused.
"""
import os
import re
import statistics
import sys

SHAPE = re.compile(r"^(\d+) x (\d+)(?: padded to \d+ x \d+)?: ")
HEADER = re.compile(r"^mode stages, (\d+)-byte elements")
COPY = re.compile(r"^copy bandwidth: ([\d.]+) GB/s")
TOTAL = re.compile(r"^  (?:exact|padded) buffer, total [\d.]+ ms, [\d.]+ GB/s \(([\d.]+)% of copy")
STEP = re.compile(r"^  step \d+ +[\d.]+ ms +[\d.]+ GB/s +([\d.]+)%  (.*)$")
SUPER = re.compile(r"super-elements of (\d+)")
KINDS = ["on-chip 010!", "100! >= 256 B", "100! < 256 B", "pad", "unpad"]


def kind_of(what, elem_size):
    if "on chip" in what and what.startswith("010!"):
        return "on-chip 010!"
    if what.startswith("100!") or what.startswith("0100!"):
        match = SUPER.search(what)
        if match:
            return "100! >= 256 B" if int(match.group(1)) * elem_size >= 256 else "100! < 256 B"
    if what.startswith("pad:"):
        return "pad"
    if what.startswith("unpad:"):
        return "unpad"
    return None


def profile(path):
    elem_size, copy, shapes, totals, passes = None, None, 0, [], {k: [] for k in KINDS}
    with open(path) as log:
        for line in log:
            line = line.rstrip("\n")
            if (m := HEADER.match(line)):
                elem_size = int(m.group(1))
            elif (m := COPY.match(line)):
                copy = float(m.group(1))
            elif SHAPE.match(line):
                shapes += 1
            elif (m := TOTAL.match(line)):
                totals.append(float(m.group(1)))
            elif line.startswith("  check ") and line != "  check ok":
                sys.exit(f"stage_table.py: {path}: {line.strip()}")
            elif (m := STEP.match(line)):
                kind = kind_of(m.group(2), elem_size)
                if kind:
                    passes[kind].append(float(m.group(1)))
    if elem_size is None or copy is None or not totals:
        sys.exit(f"stage_table.py: {path}: not the output of ipt-kernel-bench stages")
    return elem_size, copy, shapes, totals, passes


def cell(values):
    if not values:
        return "—"
    return f"{statistics.median(values):.0f}% ({min(values):.0f}%)"


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("| log | element | shapes | whole call | " + " | ".join(KINDS) + " | copy GB/s |")
    print("|---" * (len(KINDS) + 5) + "|")
    for path in paths:
        elem_size, copy, shapes, totals, passes = profile(path)
        cells = [cell(passes[k]) for k in KINDS]
        print(f"| {os.path.basename(path)} | {elem_size} B | {shapes} | {cell(totals)} | "
              + " | ".join(cells) + f" | {copy:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
