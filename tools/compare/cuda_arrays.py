#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ipt.cuda.transpose on PyTorch tensors, beside the same call on the imported cl_mem and
the CUDA peers, on the shapes ipt-bench timed.

For each shape of a shapes file (``ROWS COLS`` a line, as ``ipt-bench --shapes-out``
writes them), in one exportable allocation (ipt.cuda.empty) holding random data:
  - ipt.cuda:  ipt.cuda.transpose(x), host time of the whole call (it waits for the
               stream, transposes, and returns once the result is in place);
  - imported:  ipt_transpose on the allocation's imported OpenCL buffer, host time from
               the enqueue to the end of clWaitForEvents: the same call without the
               framework around it;
  - cl_mem:    ipt_transpose on a buffer of OpenCL's own (clCreateBuffer) of the same
               size, timed the same way: the call ipt.cuda is to match within 5%;
  - torch:     ``y.copy_(x.t())`` (a second matrix: 100% extra memory), CUDA events;
  - geam:      cuBLAS geam through CuPy (100% extra memory), CUDA events (f32, f64).
Each is called three times to warm up, then REPS times in a row; the median counts. Every libipt result is checked against
the transpose PyTorch computed out of place. The copy bandwidth (a 1 GiB device-to-device
copy) is measured first, in the same process. Throughput is 2 * rows * cols * elem / t.

    cuda_arrays.py --shapes FILE [--type f32|f64|u8|f16] [--reps 15] [--csv OUT.csv]
"""
import argparse
import csv
import ctypes
import statistics
import sys
import time

import torch

import ipt.cuda
from ipt import _library, _opencl

from cuda_peers import run_geam, run_torch
from cuda_timing import copy_bandwidth

TYPES = {"f32": torch.float32, "f64": torch.float64, "u8": torch.uint8, "f16": torch.float16}


def plain_buffer(context, nbytes):
    """A buffer of OpenCL's own (clCreateBuffer, read-write) of `nbytes` bytes."""
    lib = _opencl.library()
    lib.clCreateBuffer.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t,
                                   ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32)]
    lib.clCreateBuffer.restype = ctypes.c_void_p
    status = ctypes.c_int32()
    buffer = lib.clCreateBuffer(context, 1, nbytes, None, ctypes.byref(status))
    _opencl.check(status.value, "clCreateBuffer")
    return buffer


def transposed_on(queue, buffer, shape, elem):
    """ipt_transpose of the rows x cols matrix `shape` in `buffer`, waited for; returns
    the new shape."""
    event = _library.cl_handle()
    status = _library.lib.ipt_transpose(queue, buffer, 0, shape[0], shape[1], 0, None,
                                        ctypes.byref(event), elem)
    if status != 0:
        raise RuntimeError("ipt_transpose: status %d" % status)
    _opencl.wait_and_release(event.value)
    return [shape[1], shape[0]]


def host_times(calls, reps):
    """Median host seconds of each of `calls`: each after three warm-up calls (both
    orientations planned, and the buffer hot), then `reps` calls in a row."""
    medians = []
    for call in calls:
        for _ in range(3):
            call()
        samples = []
        for _ in range(reps):
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
        medians.append(statistics.median(samples))
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", required=True)
    parser.add_argument("--type", default="f32", choices=TYPES)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--csv")
    args = parser.parse_args()
    dtype = TYPES[args.type]
    elem = torch.empty((), dtype=dtype).element_size()
    shapes = [tuple(int(v) for v in line.split()[:2]) for line in open(args.shapes)
              if line.strip() and not line.startswith("#")]
    copy = copy_bandwidth()
    print("copy bandwidth %.0f GB/s; %d shapes, %s, reps %d" % (copy, len(shapes), args.type,
                                                                args.reps))
    rows_out = []
    for rows, cols in shapes:
        x = ipt.cuda.empty((rows, cols), dtype)
        if dtype == torch.uint8:
            x.copy_(torch.randint(0, 256, (rows, cols), dtype=dtype, device="cuda"))
        else:
            x.copy_(torch.randn(rows, cols, device="cuda").to(dtype))
        expected = x.t().contiguous()
        context, device, queue = ipt.cuda._opencl_of(x.device.index)
        own = plain_buffer(context, rows * cols * elem)
        state = {"a": x, "own": [rows, cols]}

        def through_ipt_cuda():
            state["a"] = ipt.cuda.transpose(state["a"])

        def on_cl_mem():
            state["own"] = transposed_on(queue, own, state["own"], elem)
        try:
            t_raw, t_cuda = host_times([on_cl_mem, through_ipt_cuda], args.reps)
        finally:
            _opencl.release_buffer(own)
        a = state["a"]
        if tuple(a.shape) == (rows, cols):  # an even number of calls
            a = ipt.cuda.transpose(a)
        ok = torch.equal(a, expected)
        # The same call on the imported buffer, without the framework around it.
        allocation = ipt.cuda._allocation_of(ipt.cuda._Array(a, "bench"), "bench")
        imported_queue, imported = ipt.cuda._opencl_for(allocation)
        torch.cuda.synchronize()
        state["imported"] = [cols, rows]

        def on_imported():
            state["imported"] = transposed_on(imported_queue, imported, state["imported"], elem)
        (t_imported,) = host_times([on_imported], args.reps)
        source = expected.t().contiguous()  # rows x cols, for the peers
        t_torch, ok_torch = run_torch(source, args.reps)
        t_geam, ok_geam = (run_geam(source, args.reps) if dtype in (torch.float32, torch.float64)
                           else (float("nan"), True))
        bytes_moved = 2 * rows * cols * elem
        row = {"rows": rows, "cols": cols, "type": args.type,
               "ipt_cuda_gbs": bytes_moved / t_cuda / 1e9,
               "imported_gbs": bytes_moved / t_imported / 1e9,
               "cl_mem_gbs": bytes_moved / t_raw / 1e9,
               "ratio": t_raw / t_cuda, "torch_gbs": bytes_moved / t_torch / 1e9,
               "geam_gbs": bytes_moved / t_geam / 1e9, "copy_gbs": copy,
               "verified": ok and ok_torch and ok_geam}
        rows_out.append(row)
        print("%6d x %-6d ipt.cuda %6.0f GB/s  imported %6.0f  cl_mem %6.0f  ratio %.3f  "
              "torch %6.0f  geam %6.0f  %s"
              % (rows, cols, row["ipt_cuda_gbs"], row["imported_gbs"], row["cl_mem_gbs"],
                 row["ratio"],
                 row["torch_gbs"], row["geam_gbs"], "ok" if row["verified"] else "WRONG"),
              flush=True)
        del x, a, expected, source, state
        torch.cuda.empty_cache()
    med = {k: statistics.median(r[k] for r in rows_out)
           for k in ("ipt_cuda_gbs", "imported_gbs", "cl_mem_gbs", "ratio", "torch_gbs")}
    print("median: ipt.cuda %.0f GB/s (%.1f%% of copy), imported %.0f, cl_mem %.0f, "
          "ipt.cuda / cl_mem throughput %.3f (min %.3f), torch %.0f; extra memory: ipt.cuda 0 "
          "(plus libipt's scratch), peers 100%%; %d of %d verified"
          % (med["ipt_cuda_gbs"], 100 * med["ipt_cuda_gbs"] / copy, med["imported_gbs"],
             med["cl_mem_gbs"],
             med["ratio"], min(r["ratio"] for r in rows_out), med["torch_gbs"],
             sum(r["verified"] for r in rows_out), len(rows_out)))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows_out[0]))
            writer.writeheader()
            writer.writerows(rows_out)
    return 0 if all(r["verified"] for r in rows_out) else 1


if __name__ == "__main__":
    sys.exit(main())
