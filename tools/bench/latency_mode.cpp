#include "latency_mode.hpp"

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
double timed_call(const support::Session& session, cl_mem buffer, std::size_t n,
                  std::size_t elem_size) {
  const auto start = clock_type::now();
  cl_event done = nullptr;
  if (ipt_transpose(session.queue(), buffer, 0, n, n, 0, nullptr, &done, elem_size) !=
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
  report("first call, kernel compiled from source", timed_call(session, buffer, n, elem_size));
  report("second call, program cached in memory", timed_call(session, buffer, n, elem_size));

  setenv("IPT_CACHE_DIR", dir.c_str(), 1);
  ipt_clear_cache();
  report("first call with an empty IPT_CACHE_DIR (compile + store)",
         timed_call(session, buffer, n, elem_size));
  ipt_clear_cache();
  report("first call with a filled IPT_CACHE_DIR (binary loaded)",
         timed_call(session, buffer, n, elem_size));
  unsetenv("IPT_CACHE_DIR");

  ipt_clear_cache();
  const auto start = clock_type::now();
  const bool warmed =
      ipt_warmup(session.context(), session.device(), n, n, elem_size) == IPT_SUCCESS;
  report("ipt_warmup (compile from source)", warmed ? ms_since(start) : -1);
  report("first call after ipt_warmup", timed_call(session, buffer, n, elem_size));

  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  clReleaseMemObject(buffer);
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
