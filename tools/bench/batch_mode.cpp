// SPDX-License-Identifier: Apache-2.0
#include "batch_mode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/ipt.h"
#include "support/host_reference.hpp"
#include "support/measure.hpp"
#include "support/random_data.hpp"
#include "timed_runs.hpp"

namespace ipt::bench {
namespace {

// Uploads `data`, runs `enqueue` forward once and compares with `expected`.
bool verified(const support::Session& session, cl_mem buffer,
              const std::vector<unsigned char>& data, const std::vector<unsigned char>& expected,
              const Enqueue& enqueue) {
  support::check(clEnqueueWriteBuffer(session.queue(), buffer, CL_TRUE, 0, data.size(), data.data(),
                                      0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
  cl_event done = enqueue(true);
  if (done == nullptr) return false;
  clReleaseEvent(done);
  std::vector<unsigned char> now(data.size());
  support::check(clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, now.size(), now.data(), 0,
                                     nullptr, nullptr),
                 "clEnqueueReadBuffer");
  return now == expected;
}

// The divisor of `total` nearest its square root from below: the most nearly square
// matrix of `total` elements.
std::size_t squarest_side(std::size_t total) {
  for (auto a = static_cast<std::size_t>(std::sqrt(static_cast<double>(total))); a > 1; --a)
    if (total % a == 0) return a;
  return 1;
}

}  // namespace

int run_batched(const support::Session& session, std::size_t batch, std::size_t rows,
                std::size_t cols, std::size_t elem_size, int repetitions) {
  const std::size_t size = rows * cols, total = batch * size, bytes = total * elem_size;
  const auto copy = support::measure_copy_bandwidth(session, support::copy_bytes_for(bytes));
  const double copy_gbs = copy.gbs;
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
  support::check(code, "clCreateBuffer");
  ipt_plan_info info{};
  const bool planned =
      !failed(ipt_plan_batched(session.device(), batch, rows, cols, elem_size, nullptr, &info));
  std::printf(
      "device: %s\nlibipt %s, mode batched: %zu matrices of %zu x %zu, %zu-byte elements\n"
      "copy bandwidth: %s\n"
      "plan: %s\nextra device memory: %zu bytes (%.4f%% of the batch)\n\n",
      session.description().c_str(), ipt_version_string(), batch, rows, cols, elem_size,
      support::describe(copy).c_str(), planned ? info.description : "?",
      planned ? info.scratch_bytes : 0,
      planned ? 100.0 * static_cast<double>(info.scratch_bytes) / static_cast<double>(bytes) : 0.0);

  const cl_command_queue queue = session.queue();
  const auto one_call = [&](std::size_t offset, std::size_t r, std::size_t c) -> cl_event {
    cl_event done = nullptr;
    return failed(ipt_transpose(queue, buffer, offset, r, c, 0, nullptr, &done, elem_size))
               ? nullptr
               : done;
  };
  const Enqueue batched = [&](bool forward) -> cl_event {
    cl_event done = nullptr;
    return failed(ipt_transpose_batched(queue, buffer, 0, batch, forward ? rows : cols,
                                        forward ? cols : rows, 0, nullptr, &done, elem_size))
               ? nullptr
               : done;
  };
  const Enqueue loop = [&](bool forward) -> cl_event {
    for (std::size_t k = 0; k + 1 < batch; ++k) {
      cl_event done = one_call(k * size, forward ? rows : cols, forward ? cols : rows);
      if (done == nullptr) return nullptr;
      clReleaseEvent(done);
    }
    return one_call((batch - 1) * size, forward ? rows : cols, forward ? cols : rows);
  };
  const std::size_t a = squarest_side(total), b = total / a;
  const Enqueue single = [&](bool forward) -> cl_event {
    return one_call(0, forward ? a : b, forward ? b : a);
  };

  const auto data = support::random_matrix(batch * rows, cols, elem_size, 4242);
  const auto per_matrix = support::permute_010(data, batch, rows, cols, elem_size);
  struct Variant {
    std::string name;
    const Enqueue* enqueue;
    const std::vector<unsigned char>* expected;
  };
  const auto whole = support::permute_010(data, 1, a, b, elem_size);
  const std::vector<Variant> variants = {
      {"ipt_transpose_batched", &batched, &per_matrix},
      {"one matrix of " + std::to_string(a) + " x " + std::to_string(b), &single, &whole},
      {"a loop of " + std::to_string(batch) + " ipt_transpose calls", &loop, &per_matrix}};
  std::printf("%-44s %10s %10s %8s %9s\n", "variant", "median ms", "GB/s", "% copy", "verified");
  int failures = 0;
  std::vector<double> gbs;
  for (const Variant& v : variants) {
    const bool ok = verified(session, buffer, data, *v.expected, *v.enqueue);
    const auto seconds = time_runs(session, *v.enqueue, repetitions);
    if (!ok || seconds.empty()) ++failures;
    const double median = seconds.empty() ? 0 : support::stats_of(seconds).median;
    const double rate = median > 0 ? 2.0 * static_cast<double>(bytes) / median / 1e9 : 0;
    gbs.push_back(rate);
    std::printf("%-44s %10.3f %10.1f %7.1f%% %9s\n", v.name.c_str(), median * 1e3, rate,
                100 * rate / copy_gbs, ok ? "yes" : "FAILED");
  }
  if (gbs[1] > 0 && gbs[2] > 0)
    std::printf("\nbatched: %.1f%% of the one matrix's throughput, %.1fx the loop of calls\n",
                100 * gbs[0] / gbs[1], gbs[0] / gbs[2]);
  clReleaseMemObject(buffer);
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
