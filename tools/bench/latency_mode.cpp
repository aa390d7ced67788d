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

int run_latency_one(const support::Session& session, std::size_t rows, std::size_t cols,
                    std::size_t elem_size, bool warmup) {
  cl_mem buffer = filled_buffer(session, rows * cols, elem_size);
  double warmup_ms = 0;
  if (warmup) {
    const auto start = clock_type::now();
    const ipt_status status = ipt_warmup(session.context(), session.device(), elem_size);
    if (status != IPT_SUCCESS) {
      std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(status).c_str());
      clReleaseMemObject(buffer);
      return 1;
    }
    warmup_ms = ms_since(start);
  }
  const CallTimes first = timed_call(session, buffer, rows, cols, elem_size);
  const CallTimes back = timed_call(session, buffer, cols, rows, elem_size);
  const CallTimes repeated = timed_call(session, buffer, rows, cols, elem_size);
  clReleaseMemObject(buffer);
  if (first.total < 0 || back.total < 0 || repeated.total < 0) return 1;
  std::printf("warmup %.3f first %.3f repeated %.3f\n", warmup_ms, first.total, repeated.total);
  return 0;
}

namespace {

// How a platform's driver cache of compiled kernels is turned off for one process, by
// an environment variable read when the driver starts; empty where none is known.
std::string driver_cache_off(const std::string& description) {
  if (description.find("NVIDIA") != std::string::npos) return "CUDA_CACHE_DISABLE=1";
  if (description.find("Portable Computing Language") != std::string::npos)
    return "POCL_KERNEL_CACHE=0";
  return "";
}

struct OneRun {
  double warmup = -1, first = -1, repeated = -1;
};

// Runs `self` (this tool) as `latency --one` in a process of its own, with `env`
// (assignments and env -u options) before it, and reads its figures.
OneRun run_child(const std::string& self, const std::string& env, std::size_t rows,
                 std::size_t cols, std::size_t elem_size, bool warmup) {
  const std::string command = "env " + env + " '" + self + "' latency --one " +
                              (warmup ? "warmup" : "first") + " --shapes " + std::to_string(rows) +
                              "x" + std::to_string(cols) + " --type " + std::to_string(elem_size);
  OneRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char line[256] = {0};
  bool read = false;
  while (std::fgets(line, sizeof line, pipe) != nullptr)
    if (std::sscanf(line, "warmup %lf first %lf repeated %lf", &run.warmup, &run.first,
                    &run.repeated) == 3)
      read = true;
  if (pclose(pipe) != 0 || !read) return {};
  return run;
}

}  // namespace

int run_latency(const support::Session& session, const std::string& self,
                const std::vector<LatencyShape>& shapes, std::size_t elem_size) {
  const std::string cache_off = driver_cache_off(session.description());
  std::printf(
      "device: %s\nlibipt %s, mode latency, %zu-byte elements, exact buffers; host time from\n"
      "the call to the completion of its event, in ms, each figure a process of its own\n",
      session.description().c_str(), ipt_version_string(), elem_size);
  if (cache_off.empty())
    std::printf(
        "cold: this platform's driver cache cannot be turned off from here; cold figures are\n"
        "with whatever it holds\n\n");
  else
    std::printf("cold: the driver's cache off (%s)\n\n", cache_off.c_str());
  std::printf(
      "columns: cold (driver cache off, empty disk cache), cold + disk (driver cache off,\n"
      "the disk cache filled by the cold run), warm (driver cache filled by an earlier\n"
      "process, disk cache off), warm + disk (both filled), repeated (the same call again\n"
      "in one process); one uncounted process first loads the driver's compiler from disk\n\n");
  std::printf("%-16s %-16s %10s %12s %10s %12s %10s\n", "plan class", "shape", "cold",
              "cold + disk", "warm", "warm + disk", "repeated");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ipt-bench-cache-" +
                    std::to_string(std::chrono::system_clock::now().time_since_epoch().count()));
  const std::string disk = "IPT_CACHE_DISABLE=0 IPT_CACHE_DIR='" + dir.string() + "'";
  const std::string no_disk = "IPT_CACHE_DISABLE=1";
  const std::string cold = cache_off.empty() ? "" : cache_off + " ";
  // A process of its own first, not counted: the first process after a machine starts
  // also reads the driver's compiler from disk into the OS's file cache (0.25 s of an
  // H200's first cold call).
  run_child(self, cold + no_disk, 64, 64, elem_size, false);
  int failures = 0;
  const auto figure = [&failures](double ms) {
    if (ms < 0) ++failures;
    return ms;
  };
  for (const LatencyShape& shape : shapes) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    const auto run = [&](const std::string& env) {
      return run_child(self, env, shape.rows, shape.cols, elem_size, false);
    };
    const OneRun cold_run = run(cold + disk);  // fills the disk cache
    const OneRun cold_disk = run(cold + disk);
    run(no_disk);  // fills the driver's cache
    const OneRun warm = run(no_disk);
    const OneRun warm_disk = run(disk);
    const std::string size = std::to_string(shape.rows) + " x " + std::to_string(shape.cols);
    std::printf("%-16s %-16s %10.1f %12.1f %10.1f %12.1f %10.2f\n", shape.plan_class.c_str(),
                size.c_str(), figure(cold_run.first), figure(cold_disk.first), figure(warm.first),
                figure(warm_disk.first), figure(warm.repeated));
  }
  // ipt_warmup, then a first call of the last shape: the first call of a new shape once
  // its programs exist.
  if (!shapes.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    const LatencyShape& last = shapes.back();
    const auto run = [&](const std::string& env) {
      return run_child(self, env, last.rows, last.cols, elem_size, true);
    };
    const OneRun cold_run = run(cold + no_disk);
    run(no_disk);
    const OneRun warm = run(no_disk);
    std::printf("\n%-33s %10s %10s\n", "", "cold", "warm");
    std::printf("%-33s %10.1f %10.1f\n", "ipt_warmup", figure(cold_run.warmup),
                figure(warm.warmup));
    const std::string after = "first call after it (" + std::to_string(last.rows) + " x " +
                              std::to_string(last.cols) + ")";
    std::printf("%-33s %10.2f %10.2f\n", after.c_str(), figure(cold_run.first), figure(warm.first));
    std::printf("%-33s %10.2f %10.2f\n", "  a repeated call", figure(cold_run.repeated),
                figure(warm.repeated));
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
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
