#include "latency_mode.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ipt/ipt.h"

namespace ipt::bench {
namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// Host time of one call until its event completes, in ms; negative on failure.
double timed_call(const support::Session& session, cl_mem buffer, std::size_t rows,
                  std::size_t cols, std::size_t elem_size) {
  const auto start = clock_type::now();
  cl_event done = nullptr;
  if (ipt_transpose(session.queue(), buffer, 0, rows, cols, 0, nullptr, &done, elem_size) !=
      IPT_SUCCESS) {
    std::fprintf(stderr, "ipt-bench: %s\n", ipt_last_error_message());
    return -1;
  }
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
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
  report("first call, kernel compiled from source", timed_call(session, buffer, n, n, elem_size));
  report("second call, program cached in memory", timed_call(session, buffer, n, n, elem_size));

  setenv("IPT_CACHE_DIR", dir.c_str(), 1);
  ipt_clear_cache();
  report("first call with an empty IPT_CACHE_DIR (compile + store)",
         timed_call(session, buffer, n, n, elem_size));
  ipt_clear_cache();
  report("first call with a filled IPT_CACHE_DIR (binary loaded)",
         timed_call(session, buffer, n, n, elem_size));
  unsetenv("IPT_CACHE_DIR");

  ipt_clear_cache();
  const auto start = clock_type::now();
  const bool warmed = ipt_warmup(session.context(), session.device(), elem_size) == IPT_SUCCESS;
  report("ipt_warmup (compile from source)", warmed ? ms_since(start) : -1);
  report("first call after ipt_warmup", timed_call(session, buffer, n, n, elem_size));

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
      "against a repeated call of it (the call between them transposes back)\n\n",
      session.description().c_str(), ipt_version_string(), shapes.size(), protocol.c_str(),
      elem_size);
  unsetenv("IPT_CACHE_DIR");
  ipt_clear_cache();
  int failures = 0;
  if (warmup) {
    const auto start = clock_type::now();
    if (ipt_warmup(session.context(), session.device(), elem_size) != IPT_SUCCESS) {
      std::fprintf(stderr, "ipt-bench: %s\n", ipt_last_error_message());
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
    if (timed_call(session, buffer, 1024, 1000, elem_size) < 0) ++failures;
    clReleaseMemObject(buffer);
    std::printf("the process's first call (1024 x 1000): %.1f ms\n\n", ms_since(start));
  }
  struct Row {
    std::size_t rows, cols;
    double first, repeated;
  };
  std::vector<Row> rows;
  for (const auto& [r, c] : shapes) {
    cl_int code = CL_SUCCESS;
    cl_mem buffer =
        clCreateBuffer(session.context(), CL_MEM_READ_WRITE, r * c * elem_size, nullptr, &code);
    support::check(code, "clCreateBuffer");
    const double first = timed_call(session, buffer, r, c, elem_size);
    const double back = timed_call(session, buffer, c, r, elem_size);
    const double repeated = timed_call(session, buffer, r, c, elem_size);
    clReleaseMemObject(buffer);
    if (first < 0 || back < 0 || repeated < 0) {
      ++failures;
      continue;
    }
    rows.push_back({r, c, first, repeated});
  }
  if (rows.empty()) return 1;
  std::vector<double> overhead;
  for (const Row& row : rows) overhead.push_back(row.first - row.repeated);
  std::vector<double> sorted = overhead;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&sorted](double q) {
    const auto index = static_cast<std::size_t>(q * static_cast<double>(sorted.size()));
    return sorted[std::min(sorted.size() - 1, index)];
  };
  std::size_t over_1 = 0, over_20 = 0;
  for (double ms : overhead) {
    over_1 += ms > 1.0;
    over_20 += ms > 20.0;
  }
  std::printf(
      "first-call overhead (first - repeated), ms: median %.3f, p90 %.3f, p99 %.3f, "
      "max %.3f\nshapes over 1 ms: %zu of %zu; over 20 ms: %zu\n\n",
      at(0.5), at(0.9), at(0.99), sorted.back(), over_1, rows.size(), over_20);
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&overhead](std::size_t a, std::size_t b) { return overhead[a] > overhead[b]; });
  std::printf("%-16s %12s %12s %12s\n", "slowest shapes", "first ms", "repeated ms", "overhead ms");
  for (std::size_t k = 0; k < std::min<std::size_t>(10, order.size()); ++k) {
    const Row& row = rows[order[k]];
    const std::string shape = std::to_string(row.rows) + " x " + std::to_string(row.cols);
    std::printf("%-16s %12.3f %12.3f %12.3f\n", shape.c_str(), row.first, row.repeated,
                overhead[order[k]]);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
