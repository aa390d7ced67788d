#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's out-of-place permute on the cases ipt-bench permute timed.

Reads the CSV of ``ipt-bench permute --csv FILE`` (one case a line: name, dims, perm,
elem_size, libipt's median seconds, ...), times ``y = x.permute(perm).contiguous()`` on
each case's tensor with CUDA events (one warm-up call, then the median of REPS), checks
``y`` against ``x.permute(perm)`` element for element, and prints each case's throughput
(2 * bytes / t) beside libipt's, with their ratio (PyTorch's time over libipt's: above 1,
libipt is faster). The copy bandwidth (cudaMemcpy device to device of 1 GiB, bytes read +
written) is measured first, in the same process. PyTorch keeps a second tensor: 100%
extra memory.

    torch_permute.py --cases FILE [--reps 5] [--csv OUT.csv]
"""
import argparse
import csv
import statistics
import sys

import torch

from cuda_timing import copy_bandwidth, event_time

DTYPES = {1: torch.uint8, 2: torch.float16, 4: torch.float32, 8: torch.float64}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", required=True, help="the CSV of ipt-bench permute --csv")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--csv", help="one line per case: libipt's and PyTorch's figures")
    args = p.parse_args()
    cases = list(csv.DictReader(open(args.cases)))
    copy_gbs = copy_bandwidth()
    print(f"device: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, copy bandwidth "
          f"(cudaMemcpy device to device of 1 GiB, read + write, median of 5): {copy_gbs:.1f} GB/s")
    print(f"{'case':36} {'dims':20} {'perm':10} {'libipt GB/s':>11} {'torch GB/s':>10} "
          f"{'% copy':>7} {'torch/ipt':>9} {'ok':>3}")
    ratios, fractions, failures = [], [], 0
    rows = []
    for c in cases:
        dims = [int(d) for d in c["dims"].split("x")]
        perm = [int(a) for a in c["perm"].split(",")]
        elem = int(c["elem_size"])
        dtype = DTYPES[elem]
        if dtype == torch.uint8:
            x = torch.randint(0, 256, dims, dtype=dtype, device="cuda")
        else:
            x = torch.randn(dims, dtype=dtype, device="cuda")
        holder = {}
        t = event_time(lambda: holder.__setitem__("y", x.permute(perm).contiguous()), args.reps)
        ok = torch.equal(holder["y"], x.permute(perm))
        failures += not ok
        bytes_ = x.numel() * elem
        gbs = 2 * bytes_ / t / 1e9
        ipt_s = float(c["seconds"])
        ratio = t / ipt_s if ipt_s > 0 else float("nan")
        ratios.append(ratio)
        fractions.append(gbs / copy_gbs)
        print(f"{c['name']:36} {c['dims']:20} {'(' + c['perm'] + ')':10} {float(c['gbs']):11.1f} "
              f"{gbs:10.1f} {gbs / copy_gbs:6.1%} {ratio:9.2f} {'yes' if ok else 'NO':>3}")
        rows.append([c["name"], c["dims"], c["perm"], elem, c["seconds"], c["gbs"], f"{t:.9g}",
                     f"{gbs:.2f}", f"{copy_gbs:.1f}", f"{ratio:.4f}", int(ok)])
        del x, holder
        torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["name", "dims", "perm", "elem_size", "ipt_seconds", "ipt_gbs", "torch_seconds",
                        "torch_gbs", "copy_gbs", "torch_over_ipt", "verified"])
            w.writerows(rows)
    ahead = sum(r > 1 for r in ratios)
    print(f"\n{len(ratios)} cases: PyTorch median {statistics.median(fractions):.1%} of copy; "
          f"its time over libipt's: median {statistics.median(ratios):.2f}, min {min(ratios):.2f}, "
          f"max {max(ratios):.2f}; libipt faster on {ahead} of {len(ratios)}; "
          f"{failures} wrong results")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
