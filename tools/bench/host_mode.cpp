#include "host_mode.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ipt/ipt.h"
#include "support/host_reference.hpp"
#include "support/random_data.hpp"

namespace ipt::bench {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// The median of `repetitions` runs of `run` (each returns its seconds, negative on failure).
template <typename Run>
double median_seconds(int repetitions, Run run) {
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const double t = run();
    if (t < 0) return -1;
    times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// A naive in-place transposition of a square matrix: the swap loop of the
// square-transposition report, one thread.
template <typename T>
void naive_square(T* a, std::size_t n) {
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = r + 1; c < n; ++c) std::swap(a[r * n + c], a[c * n + r]);
}

void naive_square_bytes(void* a, std::size_t n, std::size_t elem_size) {
  switch (elem_size) {
    case 1:
      return naive_square(static_cast<std::uint8_t*>(a), n);
    case 2:
      return naive_square(static_cast<std::uint16_t*>(a), n);
    case 4:
      return naive_square(static_cast<std::uint32_t*>(a), n);
    default:
      return naive_square(static_cast<std::uint64_t*>(a), n);  // 8 bytes
  }
}

// The host's copy bandwidth: `threads` threads each copying its share with memcpy.
void threaded_copy(unsigned char* to, const unsigned char* from, std::size_t bytes,
                   unsigned threads) {
  const std::size_t share = (bytes + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads && t * share < bytes; ++t)
    pool.emplace_back(
        [=] { std::memcpy(to + t * share, from + t * share, std::min(share, bytes - t * share)); });
  for (std::thread& thread : pool) thread.join();
}

}  // namespace

int run_host(const support::Session& session,
             const std::vector<std::pair<std::size_t, std::size_t>>& shapes, std::size_t elem_size,
             int repetitions, unsigned threads) {
  const unsigned cpu_threads = threads != 0 ? threads : std::thread::hardware_concurrency();
  std::printf(
      "device: %s\nlibipt %s, mode host, %zu-byte elements, median of %d runs; GB/s = 2 * rows "
      "* cols * elem_size / t, t from the CPU's view (the call, blocking)\n"
      "CPU path: %u threads; device: pinned through CL_MEM_USE_HOST_PTR, and not pinned; "
      "transfers: upload + download of the same bytes (pageable host memory); copy: the host "
      "copying the same bytes once on as many threads (memcpy)\n\n",
      session.description().c_str(), ipt_version_string(), elem_size, repetitions, cpu_threads);
  std::printf("%-20s %10s %12s %12s %12s %12s %12s %12s\n", "shape", "MB", "device GB/s",
              "not pinned", "transfers", "CPU GB/s", "copy", "naive loop");
  int failures = 0;
  for (const auto& [rows, cols] : shapes) {
    const std::size_t bytes = rows * cols * elem_size;
    const std::vector<unsigned char> original =
        support::random_matrix(rows, cols, elem_size, rows * 31 + cols);
    const std::vector<unsigned char> expected =
        support::transpose_reference(original, rows, cols, elem_size);
    std::vector<unsigned char> host = original;
    bool forward = true;  // host holds the original (true) or its transpose
    const auto host_call = [&](ipt_host_scheme scheme,
                               ipt_host_pinning pinning = IPT_HOST_PIN_AUTO) {
      const ipt_host_options options{scheme, threads, pinning};
      const auto start = clock_type::now();
      const std::size_t r = forward ? rows : cols, c = forward ? cols : rows;
      if (ipt_transpose_host(session.queue(), host.data(), r, c, elem_size, &options) !=
          IPT_SUCCESS) {
        std::fprintf(stderr, "ipt-bench: %s\n", ipt_last_error_message());
        return -1.0;
      }
      const double t = seconds_since(start);
      forward = !forward;
      if (host != (forward ? original : expected)) {
        std::fprintf(stderr, "ipt-bench: %zu x %zu: WRONG result\n", rows, cols);
        return -1.0;
      }
      return t;
    };
    const double device_t = median_seconds(repetitions, [&] { return host_call(IPT_HOST_DEVICE); });
    const double unpinned_t =
        median_seconds(repetitions, [&] { return host_call(IPT_HOST_DEVICE, IPT_HOST_PIN_OFF); });
    const double cpu_t = median_seconds(repetitions, [&] { return host_call(IPT_HOST_CPU); });

    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
    const double transfer_t = code != CL_SUCCESS ? -1.0 : median_seconds(repetitions, [&] {
      const auto start = clock_type::now();
      if (clEnqueueWriteBuffer(session.queue(), buffer, CL_FALSE, 0, bytes, host.data(), 0, nullptr,
                               nullptr) != CL_SUCCESS ||
          clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, host.data(), 0, nullptr,
                              nullptr) != CL_SUCCESS)
        return -1.0;
      return seconds_since(start);
    });
    if (buffer != nullptr) clReleaseMemObject(buffer);
    std::vector<unsigned char> copy(bytes);
    const double memcpy_t = median_seconds(repetitions, [&] {
      const auto start = clock_type::now();
      threaded_copy(copy.data(), host.data(), bytes, cpu_threads);
      return seconds_since(start);
    });
    double naive_t = 0;
    if (rows == cols && elem_size <= 8)
      naive_t = median_seconds(1, [&] {
        const auto start = clock_type::now();
        naive_square_bytes(copy.data(), rows, elem_size);
        return seconds_since(start);
      });
    const double gigabytes = static_cast<double>(bytes) * 1e-9;
    const auto gbs = [&](double t) { return t > 0 ? 2.0 * gigabytes / t : 0.0; };
    if (device_t < 0 || unpinned_t < 0 || cpu_t < 0 || transfer_t < 0) ++failures;
    const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
    std::printf("%-20s %10.1f %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f\n", shape.c_str(),
                gigabytes * 1e3, gbs(device_t), gbs(unpinned_t), gbs(transfer_t), gbs(cpu_t),
                gbs(memcpy_t), gbs(naive_t));
  }
  std::printf("\n%s\n", failures == 0 ? "all results verified" : "FAILURES (see above)");
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
