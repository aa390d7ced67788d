// SPDX-License-Identifier: Apache-2.0
// Host transposition (ipt_transpose_host): a matrix in host memory becomes its transpose
// in the same host memory, through the device (upload, transpose in place, download) or
// on the CPU (cpu/cpu_transpose.hpp). The call blocks until the host holds the result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ipt/ipt.h"

namespace ipt::host {

struct HostRequest {
  cl_command_queue queue = nullptr;  // NULL: the CPU path
  void* host = nullptr;
  std::uint64_t rows = 0, cols = 0;
  std::size_t elem_size = 0;
  ipt_host_scheme scheme = IPT_HOST_AUTO;
  ipt_host_pinning pinning = IPT_HOST_PIN_AUTO;
  unsigned threads = 0;  // the CPU path's (0: the hardware's)
  unsigned slices = 0;   // the device path's Q (0: host_slices' choice; 1: synchronous)
  // (tests) the asynchronous scheme's chunks, at most kStagingBytes (0: that), so that a
  // small matrix takes many rounds.
  std::uint64_t chunk_bytes = 0;
  // (tests) the device path streams the matrix in parts of this many bytes
  // (host_streamed.hpp) even when one allocation of the device holds it (0: only then).
  std::uint64_t part_bytes = 0;
};

// The parts in which the device path streams this request's matrix (host_streamed.hpp):
// the request's part_bytes, or for a matrix larger than one allocation of the device
// holds, half of that allocation; 0 when the matrix goes up whole.
std::uint64_t host_stream_part(const HostRequest& request);

// The way a call of this shape is made: IPT_HOST_DEVICE or IPT_HOST_CPU (the request's,
// or for IPT_HOST_AUTO: the CPU without a queue, for a square matrix and for one of fewer
// than kHostDeviceFrom bytes; else the device, which streams a matrix larger than one of
// its allocations). With 16 cores and a GPU behind PCIe (pageable host memory, ipt-bench
// host) the upload and download alone ran at 7-10 GB/s (2 * bytes / t), the CPU moved
// square matrices at 5-59 GB/s (35-59 from 2048^2 on) and other shapes at 0.2-13 GB/s,
// through the device 1.4-9.8 GB/s: the CPU won on 200 x 300 floats (4.6 against
// 3.3 GB/s), the device from 300 x 500 (4.9 against 3.1).
ipt_host_scheme host_scheme(const HostRequest& request);
inline constexpr std::uint64_t kHostDeviceFrom = std::uint64_t{256} << 10;

// The device path's slices for this request: its own, or for 0, kHostSlices from
// kHostSlicedFrom bytes on (the asynchronous scheme), else 1 (the synchronous scheme).
// With a GPU behind PCIe and 16 cores (ipt-bench host) Q = 2, 3 and 4 ran within 10% of
// each other and 1.3-2.3 times as fast as the synchronous scheme (pinned) from 16 MB on
// (16.4 MB: 14.1 against 10.9 GB/s), faster than Q = 8, 12 and 16 (the copies use every
// core whatever Q is). Smaller matrices were not measured.
unsigned host_slices(const HostRequest& request);
inline constexpr unsigned kHostSlices = 4;
inline constexpr std::uint64_t kHostSlicedFrom = std::uint64_t{16} << 20;

// Matrices from which IPT_HOST_PIN_AUTO pins the host memory for the transfers.
inline constexpr std::uint64_t kHostPinFrom = std::uint64_t{4} << 20;

// Transposes; the request's sizes and element size must have been checked. Given a
// queue, every way first waits for the queue's earlier commands. Throws ipt::Error or
// cl::Error. The host memory is written only by the last step, the
// download of a transposition that completed (or by the CPU path, which throws only
// before it moves anything), so a call that fails leaves it as it was.
void execute_host_transpose(const HostRequest& request);

}  // namespace ipt::host
