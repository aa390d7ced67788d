// SPDX-License-Identifier: Apache-2.0
#include "latency_mode.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ipt/ipt.h"
#include "support/transpose_run.hpp"

namespace ipt::bench {
namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// Host times of one call, in ms: until ipt_transpose returns (planning, preparing and
// enqueueing) and until its event completes; negative on failure.
struct CallTimes {
  double enqueue = -1, total = -1;
};

CallTimes timed_call(const support::Session& session, cl_mem buffer, std::size_t rows,
                     std::size_t cols, std::size_t elem_size) {
  const auto start = clock_type::now();
  cl_event done = nullptr;
  const ipt_status status =
      ipt_transpose(session.queue(), buffer, 0, rows, cols, 0, nullptr, &done, elem_size);
  if (status != IPT_SUCCESS) {
    std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(status).c_str());
    return {};
  }
  CallTimes times;
  times.enqueue = ms_since(start);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  times.total = ms_since(start);
  return times;
}

// A buffer of exactly rows x cols elements that holds data, as a caller's does: NVIDIA's
// driver allocates a buffer's memory at its first use, which would otherwise be counted
// as the first call's.
cl_mem filled_buffer(const support::Session& session, std::size_t elements, std::size_t elem_size) {
  cl_int code = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(session.context(), CL_MEM_READ_WRITE, elements * elem_size, nullptr, &code);
  support::check(code, "clCreateBuffer");
  const cl_uchar pattern = 0x5a;
  support::check(clEnqueueFillBuffer(session.queue(), buffer, &pattern, 1, 0, elements * elem_size,
                                     0, nullptr, nullptr),
                 "clEnqueueFillBuffer");
  support::check(clFinish(session.queue()), "clFinish");
  return buffer;
}

// Host time of planning rows x cols for a buffer of exactly the matrix (ipt_plan: the
// planner alone, nothing built or enqueued), in ms.
double planning_ms(const support::Session& session, std::size_t rows, std::size_t cols,
                   std::size_t elem_size) {
  ipt_plan_options options{};  // all automatic
  options.max_bytes = rows * cols * elem_size;
  ipt_plan_info info;
  const auto start = clock_type::now();
  if (ipt_plan(session.device(), rows, cols, elem_size, &options, &info) != IPT_SUCCESS) return -1;
  return ms_since(start);
}

}  // namespace

int run_latency(const support::Session& session, std::size_t n, std::size_t elem_size) {
  cl_int code = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(session.context(), CL_MEM_READ_WRITE, n * n * elem_size, nullptr, &code);
  support::check(code, "clCreateBuffer");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ipt-bench-cache-" +
                    std::to_string(std::chrono::system_clock::now().time_since_epoch().count()));
  std::printf(
      "device: %s\nlibipt %s, mode latency, %zu x %zu, %zu-byte elements; host time "
      "from the call to the completion of its event\n\n",
      session.description().c_str(), ipt_version_string(), n, n, elem_size);
  std::printf("%-58s %10s\n", "call", "ms");
  int failures = 0;
  auto report = [&](const char* what, double ms) {
    if (ms < 0) ++failures;
    std::printf("%-58s %10.2f\n", what, ms);
  };

  unsetenv("IPT_CACHE_DIR");
  ipt_clear_cache();
  report("first call, kernel compiled from source",
         timed_call(session, buffer, n, n, elem_size).total);
  report("second call, program cached in memory",
         timed_call(session, buffer, n, n, elem_size).total);

  setenv("IPT_CACHE_DIR", dir.c_str(), 1);
  ipt_clear_cache();
  report("first call with an empty IPT_CACHE_DIR (compile + store)",
         timed_call(session, buffer, n, n, elem_size).total);
  ipt_clear_cache();
  report("first call with a filled IPT_CACHE_DIR (binary loaded)",
         timed_call(session, buffer, n, n, elem_size).total);
  unsetenv("IPT_CACHE_DIR");

  ipt_clear_cache();
  const auto start = clock_type::now();
  const bool warmed = ipt_warmup(session.context(), session.device(), elem_size) == IPT_SUCCESS;
  report("ipt_warmup (compile from source)", warmed ? ms_since(start) : -1);
  report("first call after ipt_warmup", timed_call(session, buffer, n, n, elem_size).total);

  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  clReleaseMemObject(buffer);
  return failures == 0 ? 0 : 1;
}

int run_latency_protocol(const support::Session& session,
                         const std::vector<std::pair<std::size_t, std::size_t>>& shapes,
                         std::size_t elem_size, const std::string& protocol, bool warmup) {
  std::printf(
      "device: %s\nlibipt %s, mode latency, %zu %s shapes, %zu-byte elements, exact buffers;\n"
      "host time from the call to the completion of its event: a new shape's first call\n"
      "against a repeated call of it (the call between them transposes back); each buffer\n"
      "holds data before its first call, as a caller's does\n\n",
      session.description().c_str(), ipt_version_string(), shapes.size(), protocol.c_str(),
      elem_size);
  unsetenv("IPT_CACHE_DIR");
  ipt_clear_cache();
  int failures = 0;
  if (warmup) {
    const auto start = clock_type::now();
    const ipt_status status = ipt_warmup(session.context(), session.device(), elem_size);
    if (status != IPT_SUCCESS) {
      std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(status).c_str());
      return 1;
    }
    std::printf("ipt_warmup: %.1f ms\n", ms_since(start));
  }
  // The process's first call: another shape, so that what follows is per shape (after
  // ipt_warmup, its time is the first call's with nothing to build).
  {
    const auto start = clock_type::now();
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, 1024 * 1000 * elem_size,
                                   nullptr, &code);
    support::check(code, "clCreateBuffer");
    if (timed_call(session, buffer, 1024, 1000, elem_size).total < 0) ++failures;
    clReleaseMemObject(buffer);
    std::printf("the process's first call (1024 x 1000): %.1f ms\n\n", ms_since(start));
  }
  struct Row {
    std::size_t rows, cols;
    CallTimes first, repeated;
    double planning;
    double overhead() const { return first.total - repeated.total; }
    double host_overhead() const { return first.enqueue - repeated.enqueue; }
  };
  std::vector<Row> rows;
  for (const auto& [r, c] : shapes) {
    cl_mem buffer = filled_buffer(session, r * c, elem_size);
    const CallTimes first = timed_call(session, buffer, r, c, elem_size);
    const CallTimes back = timed_call(session, buffer, c, r, elem_size);
    const CallTimes repeated = timed_call(session, buffer, r, c, elem_size);
    clReleaseMemObject(buffer);
    const double planning = planning_ms(session, r, c, elem_size);
    if (first.total < 0 || back.total < 0 || repeated.total < 0 || planning < 0) {
      ++failures;
      continue;
    }
    rows.push_back({r, c, first, repeated, planning});
  }
  if (rows.empty()) return 1;
  const auto distribution = [&rows](const char* what, double (*value)(const Row&)) {
    std::vector<double> sorted;
    for (const Row& row : rows) sorted.push_back(value(row));
    std::sort(sorted.begin(), sorted.end());
    const auto at = [&sorted](double q) {
      const auto index = static_cast<std::size_t>(q * static_cast<double>(sorted.size()));
      return sorted[std::min(sorted.size() - 1, index)];
    };
    std::printf("%-44s median %.3f, p90 %.3f, p99 %.3f, max %.3f\n", what, at(0.5), at(0.9),
                at(0.99), sorted.back());
  };
  std::printf("ms over the %zu shapes:\n", rows.size());
  distribution("first-call overhead (first - repeated):",
               [](const Row& r) { return r.overhead(); });
  distribution("  of it until the call returns (host):",
               [](const Row& r) { return r.host_overhead(); });
  distribution("planning alone (ipt_plan):", [](const Row& r) { return r.planning; });
  std::size_t over_1 = 0, over_20 = 0;
  for (const Row& row : rows) {
    over_1 += row.overhead() > 1.0;
    over_20 += row.overhead() > 20.0;
  }
  std::printf("shapes over 1 ms: %zu of %zu; over 20 ms: %zu\n\n", over_1, rows.size(), over_20);
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&rows](std::size_t a, std::size_t b) {
    return rows[a].overhead() > rows[b].overhead();
  });
  std::printf("%-18s %10s %11s %11s %11s %14s %11s\n", "slowest shapes", "first ms", "repeated ms",
              "overhead ms", "first: host", "repeated: host", "planning ms");
  for (std::size_t k = 0; k < std::min<std::size_t>(10, order.size()); ++k) {
    const Row& row = rows[order[k]];
    const std::string shape = std::to_string(row.rows) + " x " + std::to_string(row.cols);
    std::printf("%-18s %10.3f %11.3f %11.3f %11.3f %14.3f %11.3f\n", shape.c_str(), row.first.total,
                row.repeated.total, row.overhead(), row.first.enqueue, row.repeated.enqueue,
                row.planning);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
