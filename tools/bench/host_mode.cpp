// SPDX-License-Identifier: Apache-2.0
#include "host_mode.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ipt/ipt.h"
#include "support/host_reference.hpp"
#include "support/random_data.hpp"
#include "support/transpose_run.hpp"

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

// In-place transpositions of a square matrix on one thread, the loops of the
// square-transposition report: the naive swap loop, and the blocked one (tile pairs of
// kBlock x kBlock swapped across the diagonal, each tile's swaps in cache).
constexpr std::size_t kBlock = 32;

template <typename T>
void naive_square(T* a, std::size_t n) {
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = r + 1; c < n; ++c) std::swap(a[r * n + c], a[c * n + r]);
}

template <typename T>
void blocked_square(T* a, std::size_t n) {
  for (std::size_t r0 = 0; r0 < n; r0 += kBlock)
    for (std::size_t c0 = r0; c0 < n; c0 += kBlock)
      for (std::size_t r = r0; r < std::min(r0 + kBlock, n); ++r)
        for (std::size_t c = std::max(c0, r + 1); c < std::min(c0 + kBlock, n); ++c)
          std::swap(a[r * n + c], a[c * n + r]);
}

template <template <typename> class Loop>
void square_bytes(void* a, std::size_t n, std::size_t elem_size) {
  switch (elem_size) {
    case 1:
      return Loop<std::uint8_t>::run(static_cast<std::uint8_t*>(a), n);
    case 2:
      return Loop<std::uint16_t>::run(static_cast<std::uint16_t*>(a), n);
    case 4:
      return Loop<std::uint32_t>::run(static_cast<std::uint32_t*>(a), n);
    default:
      return Loop<std::uint64_t>::run(static_cast<std::uint64_t*>(a), n);  // 8 bytes
  }
}
template <typename T>
struct Naive {
  static void run(T* a, std::size_t n) { naive_square(a, n); }
};
template <typename T>
struct Blocked {
  static void run(T* a, std::size_t n) { blocked_square(a, n); }
};

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

// Upload then download of `bytes` from `host` (pageable, or mapped pinned memory) into a
// device buffer of the same size: the transfer-only bound of a call on that memory.
double transfer_seconds(const support::Session& session, cl_mem buffer, void* host,
                        std::size_t bytes) {
  const auto start = clock_type::now();
  if (clEnqueueWriteBuffer(session.queue(), buffer, CL_FALSE, 0, bytes, host, 0, nullptr,
                           nullptr) != CL_SUCCESS ||
      clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr) !=
          CL_SUCCESS)
    return -1.0;
  return seconds_since(start);
}

// The transfer-only bound from pinned memory (mapped from a CL_MEM_ALLOC_HOST_PTR buffer):
// what the link itself moves.
double pinned_transfer_seconds(const support::Session& session, cl_mem buffer, std::size_t bytes,
                               int repetitions) {
  cl_int code = CL_SUCCESS;
  cl_mem pinned = clCreateBuffer(session.context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                 bytes, nullptr, &code);
  if (code != CL_SUCCESS) return -1.0;
  void* mapped = clEnqueueMapBuffer(session.queue(), pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                    bytes, 0, nullptr, nullptr, &code);
  double t = -1.0;
  if (code == CL_SUCCESS) {
    std::memset(mapped, 0x5a, bytes);
    t = median_seconds(repetitions,
                       [&] { return transfer_seconds(session, buffer, mapped, bytes); });
    clEnqueueUnmapMemObject(session.queue(), pinned, mapped, 0, nullptr, nullptr);
    clFinish(session.queue());
  }
  clReleaseMemObject(pinned);
  return t;
}

}  // namespace

int run_host(const support::Session& session,
             const std::vector<std::pair<std::size_t, std::size_t>>& shapes, std::size_t elem_size,
             int repetitions, unsigned threads, const std::vector<unsigned>& slices) {
  const unsigned cpu_threads = threads != 0 ? threads : std::thread::hardware_concurrency();
  std::printf(
      "device: %s\nlibipt %s, mode host, %zu-byte elements, median of %d runs; GB/s = 2 * rows "
      "* cols * elem_size / t, t from the CPU's view (the call, blocking)\n"
      "sync: the synchronous scheme (slices 1), pinned through CL_MEM_USE_HOST_PTR and not "
      "pinned; Q=k: the asynchronous scheme on k slices; transfers: upload + download of the "
      "same bytes from the same pageable memory, and from pinned memory (the link's bound); "
      "CPU path: %u threads; copy: the host copying the same bytes once on as many threads "
      "(memcpy)\n\n",
      session.description().c_str(), ipt_version_string(), elem_size, repetitions, cpu_threads);
  std::printf("%-16s %8s %9s %9s", "shape", "MB", "sync pin", "sync page");
  for (const unsigned q : slices) std::printf(" %8s", ("Q=" + std::to_string(q)).c_str());
  std::printf(" %9s %9s %9s %9s %9s %9s\n", "xfer page", "xfer pin", "CPU", "copy", "naive",
              "blocked");
  int failures = 0;
  for (const auto& [rows, cols] : shapes) {
    const std::size_t bytes = rows * cols * elem_size;
    const std::vector<unsigned char> original =
        support::random_matrix(rows, cols, elem_size, rows * 31 + cols);
    const std::vector<unsigned char> expected =
        support::transpose_reference(original, rows, cols, elem_size);
    std::vector<unsigned char> host = original;
    bool forward = true;  // host holds the original (true) or its transpose
    const auto host_call = [&](ipt_host_scheme scheme, unsigned call_slices,
                               ipt_host_pinning pinning = IPT_HOST_PIN_AUTO) {
      const ipt_host_options options{scheme, threads, pinning, call_slices};
      const auto start = clock_type::now();
      const std::size_t r = forward ? rows : cols, c = forward ? cols : rows;
      const ipt_status status =
          ipt_transpose_host(session.queue(), host.data(), r, c, elem_size, &options);
      if (status != IPT_SUCCESS) {
        std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(status).c_str());
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
    std::vector<double> times;  // in the order of the columns
    times.push_back(median_seconds(repetitions, [&] { return host_call(IPT_HOST_DEVICE, 1); }));
    times.push_back(median_seconds(
        repetitions, [&] { return host_call(IPT_HOST_DEVICE, 1, IPT_HOST_PIN_OFF); }));
    for (const unsigned q : slices)
      times.push_back(median_seconds(repetitions, [&] { return host_call(IPT_HOST_DEVICE, q); }));

    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
    times.push_back(code != CL_SUCCESS ? -1.0 : median_seconds(repetitions, [&] {
      return transfer_seconds(session, buffer, host.data(), bytes);
    }));
    times.push_back(
        code != CL_SUCCESS ? -1.0 : pinned_transfer_seconds(session, buffer, bytes, repetitions));
    if (buffer != nullptr) clReleaseMemObject(buffer);
    times.push_back(median_seconds(repetitions, [&] { return host_call(IPT_HOST_CPU, 0); }));
    std::vector<unsigned char> copy(bytes);
    times.push_back(median_seconds(repetitions, [&] {
      const auto start = clock_type::now();
      threaded_copy(copy.data(), host.data(), bytes, cpu_threads);
      return seconds_since(start);
    }));
    double naive_t = 0, blocked_t = 0;
    if (rows == cols && elem_size <= 8) {
      naive_t = median_seconds(1, [&] {
        const auto start = clock_type::now();
        square_bytes<Naive>(copy.data(), rows, elem_size);
        return seconds_since(start);
      });
      blocked_t = median_seconds(1, [&] {
        const auto start = clock_type::now();
        square_bytes<Blocked>(copy.data(), rows, elem_size);
        return seconds_since(start);
      });
      // Transposed twice: the copy of `host` it was.
      if (copy != host) {
        std::fprintf(stderr, "ipt-bench: %zu x %zu: the naive or blocked loop is WRONG\n", rows,
                     cols);
        ++failures;
      }
    }
    const double gigabytes = static_cast<double>(bytes) * 1e-9;
    const auto gbs = [&](double t) { return t > 0 ? 2.0 * gigabytes / t : 0.0; };
    for (const double t : times)
      if (t < 0) ++failures;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    std::printf("%-16s %8.1f %9.1f %9.1f", shape.c_str(), gigabytes * 1e3, gbs(times[0]),
                gbs(times[1]));
    for (std::size_t k = 0; k < slices.size(); ++k) std::printf(" %8.1f", gbs(times[2 + k]));
    const std::size_t rest = 2 + slices.size();
    std::printf(" %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", gbs(times[rest]), gbs(times[rest + 1]),
                gbs(times[rest + 2]), gbs(times[rest + 3]), gbs(naive_t), gbs(blocked_t));
    std::fflush(stdout);
  }
  std::printf("\n%s\n", failures == 0 ? "all results verified" : "FAILURES (see above)");
  return failures == 0 ? 0 : 1;
}

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer: a value per index
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Element `index` of the original matrix: bytes of mix(index) (and of mix(~index) for
// 16-byte elements).
void element_value(std::uint64_t index, std::size_t elem_size, unsigned char* out) {
  const std::uint64_t words[2] = {mix(index), mix(~index)};
  std::memcpy(out, words, elem_size);
}

void parallel_rows(std::size_t rows, unsigned threads,
                   const std::function<void(std::size_t)>& row) {
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t r = t; r < rows; r += threads) row(r);
    });
  for (std::thread& thread : pool) thread.join();
}

// Whether `host` holds the rows x cols original (transposed: its cols x rows transpose).
bool holds(const unsigned char* host, std::size_t rows, std::size_t cols, std::size_t elem_size,
           bool transposed, unsigned threads) {
  std::atomic<bool> right{true};
  const std::size_t out_rows = transposed ? cols : rows, out_cols = transposed ? rows : cols;
  parallel_rows(out_rows, threads, [&](std::size_t r) {
    unsigned char want[16];
    for (std::size_t c = 0; c < out_cols && right.load(std::memory_order_relaxed); ++c) {
      element_value(transposed ? c * cols + r : r * cols + c, elem_size, want);
      if (std::memcmp(host + (r * out_cols + c) * elem_size, want, elem_size) != 0) right = false;
    }
  });
  return right;
}

}  // namespace

int run_host_large(const support::Session& session,
                   const std::vector<std::pair<std::size_t, std::size_t>>& shapes,
                   std::size_t elem_size, unsigned threads) {
  const unsigned cpu_threads = threads != 0 ? threads : std::thread::hardware_concurrency();
  cl_ulong max_alloc = 0;
  clGetDeviceInfo(session.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                  nullptr);
  std::printf(
      "device: %s (one allocation: %.1f GB)\nlibipt %s, mode host --large, %zu-byte elements, "
      "one run each after a warm-up (ipt_warmup, one call of 4096 x 4099); GB/s = 2 * rows * cols "
      "* elem_size / t, t the blocking call; elements "
      "computed from their index, checked by formula (no reference copy)\n"
      "device: ipt_transpose_host through the device (streamed in parts above one "
      "allocation); CPU: the CPU path on %u threads, transposing back\n\n",
      session.description().c_str(), static_cast<double>(max_alloc) * 1e-9, ipt_version_string(),
      elem_size, cpu_threads);
  // Warm: every kernel of the element size built, the asynchronous scheme's lanes made.
  ipt_status status = ipt_warmup(session.context(), session.device(), elem_size);
  if (status == IPT_SUCCESS) {
    std::vector<unsigned char> warm(std::size_t{4096} * 4099 * elem_size, 1);
    const ipt_host_options options{IPT_HOST_DEVICE, threads, IPT_HOST_PIN_AUTO, 0};
    status = ipt_transpose_host(session.queue(), warm.data(), 4096, 4099, elem_size, &options);
  }
  if (status != IPT_SUCCESS) {
    std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(status).c_str());
    return 1;
  }
  std::printf("%-18s %9s %12s %12s\n", "shape", "GB", "device GB/s", "CPU GB/s");
  int failures = 0;
  for (const auto& [rows, cols] : shapes) {
    const std::size_t bytes = rows * cols * elem_size;
    std::unique_ptr<unsigned char[]> host(new (std::nothrow) unsigned char[bytes]);
    if (!host) {
      std::fprintf(stderr, "ipt-bench: no host memory for %zu x %zu\n", rows, cols);
      ++failures;
      continue;
    }
    parallel_rows(rows, cpu_threads, [&](std::size_t r) {
      for (std::size_t c = 0; c < cols; ++c)
        element_value(r * cols + c, elem_size, host.get() + (r * cols + c) * elem_size);
    });
    const auto timed = [&](ipt_host_scheme scheme, std::size_t r, std::size_t c) {
      const ipt_host_options options{scheme, threads, IPT_HOST_PIN_AUTO, 0};
      const auto start = clock_type::now();
      const ipt_status call_status =
          ipt_transpose_host(session.queue(), host.get(), r, c, elem_size, &options);
      if (call_status != IPT_SUCCESS) {
        std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(call_status).c_str());
        return -1.0;
      }
      return seconds_since(start);
    };
    const double device_t = timed(IPT_HOST_DEVICE, rows, cols);
    const bool device_right =
        device_t > 0 && holds(host.get(), rows, cols, elem_size, true, cpu_threads);
    const double cpu_t = device_right ? timed(IPT_HOST_CPU, cols, rows) : -1.0;
    const bool cpu_right =
        cpu_t > 0 && holds(host.get(), rows, cols, elem_size, false, cpu_threads);
    if (!device_right || !cpu_right) {
      std::fprintf(stderr, "ipt-bench: %zu x %zu: WRONG result (%s)\n", rows, cols,
                   device_right ? "CPU" : "device");
      ++failures;
    }
    const double gigabytes = static_cast<double>(bytes) * 1e-9;
    const auto gbs = [&](double t) { return t > 0 ? 2.0 * gigabytes / t : 0.0; };
    const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    std::printf("%-18s %9.2f %12.2f %12.2f\n", shape.c_str(), gigabytes, gbs(device_t), gbs(cpu_t));
    std::fflush(stdout);
  }
  std::printf("\n%s\n", failures == 0 ? "all results verified" : "FAILURES (see above)");
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
