// Timing helpers shared by ipt-demo and ipt-bench: kernel time from OpenCL profiling
// events and the device's copy bandwidth (clEnqueueCopyBuffer, bytes read + written).
#pragma once

#include <CL/cl.h>

#include <cstddef>
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

// Median copy bandwidth in GB/s (1e9 bytes/s) of copying `bytes` between two device
// buffers, counting the bytes read and written: 2 * bytes / time.
double copy_bandwidth_gbs(const Session& session, std::size_t bytes, int repetitions);

}  // namespace ipt::support
