#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The stage profile of docs/performance.md, from `ipt-kernel-bench stages` logs.

    stage_table.py LOG...

Each LOG is the text output of `ipt-kernel-bench stages --shapes ... [--type T]`: per
shape, the whole call's time and each step's (kernel time, 2*elements*elem_size/t of the
elements the step moves, and that as a percentage of the copy bandwidth measured in the
same run), named
stages-<type>.log (the random protocol) or stages-<protocol>-<type>.log. Prints one
Markdown row per log: the whole call's median percentage of copy, and for each kind of
pass the median percentage (the lowest in brackets) over the steps of that kind:
  on-chip 010!   the on-chip kernel's 010! stages (rounds of whole instances);
  100! >= 256 B  SoA 100! and 0100! stages whose super-elements have 256 bytes or more;
  100! < 256 B   the same with smaller super-elements;
  pad, unpad     rows spread to or closed up from a padded width.
Steps that move a few elements (the bytes a padded plan keeps in scratch) are left out.
A log with a wrong result is refused. tests/docs/check_stage_table.py checks that
docs/performance.md shows what this makes of the logs it links.
"""
import os
import re
import statistics
import sys

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
    elem_size, copy, totals, passes = None, None, [], {k: [] for k in KINDS}
    with open(path) as log:
        for line in log:
            line = line.rstrip("\n")
            if (m := HEADER.match(line)):
                elem_size = int(m.group(1))
            elif (m := COPY.match(line)):
                copy = float(m.group(1))
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
    return totals, passes


def cell(values):
    if not values:
        return "—"
    return f"{statistics.median(values):.0f}% ({min(values):.0f}%)"


def run_label(path):
    """stages-f32.log: "random f32"; stages-primes-f32.log: "primes f32"."""
    name = os.path.basename(path)
    name = name[len("stages-"):] if name.startswith("stages-") else name
    name = name[:-len(".log")] if name.endswith(".log") else name
    protocol, _, element = name.rpartition("-")
    return f"{protocol or 'random'} {element}"


TABLE_HEADER = ("| run | whole call | on-chip 010! | 100! (super-elements of 256 B or more) "
          "| 100! (smaller) | pad | unpad |")


def table(paths):
    """The table's lines, as docs/performance.md shows them."""
    lines = [TABLE_HEADER, "|---" * (len(KINDS) + 2) + "|"]
    for path in paths:
        totals, passes = profile(path)
        lines.append(f"| {run_label(path)} | {cell(totals)} | "
                     + " | ".join(cell(passes[k]) for k in KINDS) + " |")
    return lines


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("\n".join(table(paths)))


if __name__ == "__main__":
    main(sys.argv[1:])
