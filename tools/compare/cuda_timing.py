# SPDX-License-Identifier: Apache-2.0
"""How the peer scripts time CUDA work, in one place: CUDA events around each call (one
warm-up call, then the median of `reps`), and the device's copy bandwidth (cudaMemcpy
device to device of 1 GiB, bytes read + written, median of 5) that each throughput is a
fraction of."""
import statistics

import torch


def event_time(fn, reps):
    """Median seconds of `reps` calls of fn() after one warm-up call."""
    times = []
    fn()  # warm-up
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def copy_bandwidth():
    """GB/s of a 1 GiB device-to-device copy, bytes read + written."""
    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    t = event_time(lambda: b.copy_(a), 5)
    del a, b
    torch.cuda.empty_cache()
    return 2 * n / t / 1e9
