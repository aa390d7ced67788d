#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/device/ab_shapes.py on made-up runs: the per-shape ratios, per sequence, the
drift between runs of one build, and the refusal of an unverified shape.

    check_ab_shapes.py SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

HEADER = ("mode,library,variant,param,type,elem_size,rows,cols,sequence,m,n,padded_rows,"
          "padded_cols,time_s,wall_s,throughput_gbs,copy_gbs,fraction_of_copy,memory_bytes,"
          "verified,extra_bytes\n")


def write(path, rows):
    # rows: (rows, cols, sequence, time_s, verified)
    with open(path, "w") as f:
        f.write(HEADER)
        for r, c, seq, t, ok in rows:
            f.write(f"random,libipt,auto,,f32,4,{r},{c},{seq},1,,{r},{c},{t},{t},1,1,1,1,{ok},0\n")


def run(script, old, new):
    return subprocess.run([sys.executable, script, old, new], capture_output=True, text=True)


def main():
    script = os.path.join(sys.argv[1], "tools", "device", "ab_shapes.py")
    shapes = [(100, 200, "2.1"), (300, 400, "2.1"), (500, 600, "2.2"), (700, 800, "2.2"),
              (900, 1000, "2.2")]
    failures = []
    with tempfile.TemporaryDirectory() as d:
        p = lambda name: os.path.join(d, name)
        # Old runs: 1.0 and 1.1 (median 1.05). New runs: 0.882 (0.84 of 1.05) on 2.1;
        # 1.05 and 1.155 on 2.2 (median 1.1025, 1.05 of 1.05).
        write(p("old1.csv"), [(r, c, s, 1.0, 1) for r, c, s in shapes])
        write(p("old2.csv"), [(r, c, s, 1.1, 1) for r, c, s in shapes])
        write(p("new1.csv"), [(r, c, s, 0.882 if s == "2.1" else 1.05, 1) for r, c, s in shapes])
        write(p("new2.csv"), [(r, c, s, 0.882 if s == "2.1" else 1.155, 1) for r, c, s in shapes])
        result = run(script, p("old1.csv") + "," + p("old2.csv"), p("new1.csv") + "," + p("new2.csv"))
        expected = ["median of 5 shapes: 1.050", "sequence 2.1: 0.840 (2 shapes)",
                    "sequence 2.2: 1.050 (3 shapes)", "old run 1 / run 2 (drift): 0.909",
                    "new run 1 / run 2 (drift): 0.909"]
        if result.returncode != 0:
            failures.append(f"exit {result.returncode}: {result.stderr}")
        failures += [f"missing {line!r} in:\n{result.stdout}" for line in expected
                     if line not in result.stdout]
        # A shape not verified in one run refuses the comparison.
        write(p("bad.csv"), [(r, c, s, 1.0, 0 if r == 500 else 1) for r, c, s in shapes])
        result = run(script, p("old1.csv"), p("bad.csv"))
        if result.returncode == 0 or "500 x 600 f32 was not verified" not in result.stderr:
            failures.append(f"an unverified shape was compared: {result.stdout}{result.stderr}")
        # Runs over other shapes are refused.
        write(p("other.csv"), [(r + 1, c, s, 1.0, 1) for r, c, s in shapes])
        result = run(script, p("old1.csv"), p("other.csv"))
        if result.returncode == 0 or "different shapes" not in result.stderr:
            failures.append(f"runs over other shapes were compared: {result.stdout}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"check_ab_shapes: {len(failures)} problems")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
