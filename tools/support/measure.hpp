// SPDX-License-Identifier: Apache-2.0
// Timing helpers shared by the tools: kernel time from OpenCL profiling events and the
// device's copy bandwidth, the reference of their "% of copy" figures.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::support {

// Seconds between CL_PROFILING_COMMAND_START and _END of a completed event.
double event_seconds(cl_event event);

// Seconds from the end of `marker` to the end of `last` (both completed, same in-order
// queue): the device time of everything enqueued between them.
double after_seconds(cl_event marker, cl_event last);

// Seconds from the start of `first` to the end of `last` (both completed).
double span_seconds(cl_event first, cl_event last);

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0;
};
Stats stats_of(std::vector<double> values);

// The device's copy bandwidth, measured the same way by every tool so that their "% of
// copy" figures compare: clEnqueueCopyBuffer between two device buffers of `bytes`, one
// warm-up copy, then kCopyRepetitions timed ones (profiling events); GB/s = 2 * bytes
// (read + written) / median time, in 1e9 bytes per second.
constexpr int kCopyRepetitions = 10;
struct CopyBandwidth {
  double gbs = 0;
  std::size_t bytes = 0;
  int repetitions = 0;
};

// The copy size for matrices of up to `largest_bytes` bytes: that size, but at least 1 MiB
// (smaller copies measure the launch, not the memory) and at most 1 GiB (larger copies
// gain nothing and have hung a driver).
std::size_t copy_bytes_for(std::size_t largest_bytes);

CopyBandwidth measure_copy_bandwidth(const Session& session, std::size_t bytes);

// "612.3 GB/s (clEnqueueCopyBuffer of 64.0 MiB between two device buffers, bytes read +
// written / median time of 10 copies after a warm-up)": the figure with how it was taken.
std::string describe(const CopyBandwidth& copy);

}  // namespace ipt::support
