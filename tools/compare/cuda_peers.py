#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Out-of-place transposes of the CUDA peers on the shapes ipt-bench timed.

Times cuBLAS geam (through CuPy) and PyTorch's ``y.copy_(x.t())`` on each shape of a
shapes file (one ``ROWS COLS`` a line, as ``ipt-bench --shapes-out`` writes them), with
CUDA events: one warm-up call, then the median of REPS timed calls. Every result is
checked against the input, element for element. The device's copy bandwidth
(``cudaMemcpy`` device to device of 1 GiB, bytes read + written) is measured first, in
the same process, so that each throughput is also a fraction of it. Both peers keep a
second matrix: 100% extra memory.

    cuda_peers.py --shapes FILE --type f32|f64|u8|f16 [--peers geam,torch] [--reps 3]
                  [--seconds 120] [--mode random] --csv OUT.csv

Throughput is 2 * rows * cols * elem_size / t (GB/s). geam has no 1- or 2-byte type.
"""
import argparse
import csv
import statistics
import sys
import time

import cupy
import torch

from cuda_timing import copy_bandwidth, event_time

try:  # cuBLAS's wrappers: a submodule that `import cupy` does not load
    from cupy import cublas
except ImportError:
    from cupyx import cublas

TYPES = {"f32": (torch.float32, "float32"), "f64": (torch.float64, "float64"),
         "u8": (torch.uint8, "uint8"), "f16": (torch.float16, "float16")}


def random_matrix(rows, cols, dtype):
    if dtype == torch.uint8:
        return torch.randint(0, 256, (rows, cols), dtype=dtype, device="cuda")
    return torch.randn(rows, cols, dtype=dtype, device="cuda")


def run_torch(x, reps):
    y = torch.empty(x.shape[1], x.shape[0], dtype=x.dtype, device="cuda")
    t = event_time(lambda: y.copy_(x.t()), reps)
    ok = torch.equal(y, x.t())
    return t, ok


def run_geam(x, reps):
    a = cupy.asarray(x)  # shares the memory (DLPack / CUDA array interface)
    out = cupy.empty((x.shape[1], x.shape[0]), dtype=a.dtype)
    zero = cupy.zeros((x.shape[1], x.shape[0]), dtype=a.dtype)
    # geam reads its operands column-major: the row-major rows x cols matrix is a
    # column-major cols x rows one, and its transpose is the row-major transpose.
    t = event_time(lambda: cublas.geam("T", "N", 1.0, a, 0.0, zero, out=out), reps)
    ok = bool(cupy.array_equal(out, a.T))
    return t, ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shapes", required=True)
    p.add_argument("--type", required=True, choices=sorted(TYPES))
    p.add_argument("--peers", default="geam,torch")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seconds", type=float, default=120, help="time box; later shapes are left out")
    p.add_argument("--mode", default="random")
    p.add_argument("--csv", required=True)
    args = p.parse_args()
    dtype, _ = TYPES[args.type]
    elem = torch.tensor([], dtype=dtype).element_size()
    peers = [s for s in args.peers.split(",") if s and not (s == "geam" and elem < 4)]
    shapes = []
    for line in open(args.shapes):
        line = line.split("#")[0].split()
        if len(line) == 2:
            shapes.append((int(line[0]), int(line[1])))
    copy_gbs = copy_bandwidth()
    print(f"device: {torch.cuda.get_device_name()}, copy bandwidth (cudaMemcpy device to "
          f"device of 1 GiB, read + write, median of 5): {copy_gbs:.1f} GB/s")
    start = time.time()
    results = {peer: [] for peer in peers}
    failures = 0
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "library", "type", "rows", "cols", "time_s", "throughput_gbs",
                    "copy_gbs", "fraction_of_copy", "extra_fraction", "verified"])
        for rows, cols in shapes:
            if time.time() - start > args.seconds:
                print(f"time box of {args.seconds} s reached after {len(results[peers[0]])} shapes")
                break
            x = random_matrix(rows, cols, dtype)
            for peer in peers:
                t, ok = (run_geam if peer == "geam" else run_torch)(x, args.reps)
                gbs = 2 * rows * cols * elem / t / 1e9
                failures += not ok
                results[peer].append(gbs)
                w.writerow([args.mode, "cublas-geam" if peer == "geam" else "pytorch", args.type,
                            rows, cols, f"{t:.9g}", f"{gbs:.2f}", f"{copy_gbs:.1f}",
                            f"{gbs / copy_gbs:.4f}", 1, int(ok)])
            del x
            torch.cuda.empty_cache()
    for peer, values in results.items():
        if values:
            print(f"{args.mode} {args.type} {peer}: {len(values)} shapes, median "
                  f"{statistics.median(values):.1f} GB/s ({statistics.median(values) / copy_gbs:.1%} "
                  f"of copy), min {min(values):.1f}")
    print(f"{failures} wrong results")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
