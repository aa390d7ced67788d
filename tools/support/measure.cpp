// SPDX-License-Identifier: Apache-2.0
#include "support/measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ipt::support {
namespace {

cl_ulong profiling(cl_event event, cl_profiling_info what) {
  cl_ulong value = 0;
  check(clGetEventProfilingInfo(event, what, sizeof(value), &value, nullptr),
        "clGetEventProfilingInfo");
  return value;
}

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] * (1 - weight) + sorted[above] * weight;
}

}  // namespace

double event_seconds(cl_event event) {
  return static_cast<double>(profiling(event, CL_PROFILING_COMMAND_END) -
                             profiling(event, CL_PROFILING_COMMAND_START)) *
         1e-9;
}

double after_seconds(cl_event marker, cl_event last) {
  return static_cast<double>(profiling(last, CL_PROFILING_COMMAND_END) -
                             profiling(marker, CL_PROFILING_COMMAND_END)) *
         1e-9;
}

double span_seconds(cl_event first, cl_event last) {
  return static_cast<double>(profiling(last, CL_PROFILING_COMMAND_END) -
                             profiling(first, CL_PROFILING_COMMAND_START)) *
         1e-9;
}

Stats stats_of(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return {quantile(values, 0.5), quantile(values, 0.1), quantile(values, 0.9), values.front(),
          values.back()};
}

std::size_t copy_bytes_for(std::size_t largest_bytes) {
  return std::clamp<std::size_t>(largest_bytes, std::size_t{1} << 20, std::size_t{1} << 30);
}

CopyBandwidth measure_copy_bandwidth(const Session& session, std::size_t bytes) {
  const int repetitions = kCopyRepetitions;
  cl_int code = CL_SUCCESS;
  cl_mem source = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
  check(code, "clCreateBuffer");
  cl_mem target = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
  if (code != CL_SUCCESS) {
    clReleaseMemObject(source);
    check(code, "clCreateBuffer");
  }
  const unsigned char pattern = 0x5a;
  check(clEnqueueFillBuffer(session.queue(), source, &pattern, 1, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
  std::vector<double> seconds;
  for (int i = 0; i <= repetitions; ++i) {  // the first copy is a warm-up
    cl_event event = nullptr;
    check(clEnqueueCopyBuffer(session.queue(), source, target, 0, 0, bytes, 0, nullptr, &event),
          "clEnqueueCopyBuffer");
    check(clWaitForEvents(1, &event), "clWaitForEvents");
    if (i > 0) seconds.push_back(event_seconds(event));
    clReleaseEvent(event);
  }
  clReleaseMemObject(source);
  clReleaseMemObject(target);
  return {2.0 * static_cast<double>(bytes) / stats_of(seconds).median * 1e-9, bytes, repetitions};
}

std::string describe(const CopyBandwidth& copy) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%.1f GB/s (clEnqueueCopyBuffer of %.1f MiB between two device buffers, bytes "
                "read + written / median time of %d copies after a warm-up)",
                copy.gbs, static_cast<double>(copy.bytes) / (1 << 20), copy.repetitions);
  return text;
}

}  // namespace ipt::support
