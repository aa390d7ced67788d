// SPDX-License-Identifier: Apache-2.0
#include "stage_profile.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "planner/launch_plan.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"
#include "support/device_pattern.hpp"
#include "support/measure.hpp"
#include "support/step_run.hpp"

namespace ipt::bench {

int run_stage_profile(const support::Session& session,
                      const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes,
                      std::size_t elem_size, int repetitions, double copy_gbs, bool verify,
                      bool exact_buffer) {
  const cl::CommandQueue queue(session.queue(), true);
  const cl::Context context(session.context(), true);
  const auto profile = runtime::query_device_profile(session.device());
  // Data made and checked on the device: a host check of the large shapes profiled here
  // takes seconds each.
  support::DevicePattern pattern(session);
  {
    // The driver's floor for a call, timed as the calls below: a command that moves
    // nothing (a 4-byte fill), from a marker to its end. A small matrix's call cannot take
    // less.
    cl::Buffer word(context, CL_MEM_READ_WRITE, 4);
    std::vector<double> floor;
    for (int r = -2; r < std::max(repetitions, 10); ++r) {
      cl::Event marker, done;
      queue.enqueueMarkerWithWaitList(nullptr, &marker);
      queue.enqueueFillBuffer(word, cl_uint{0}, 0, 4, nullptr, &done);
      done.wait();
      if (r >= 0) floor.push_back(support::after_seconds(marker(), done()));
    }
    std::printf("driver floor: a 4-byte fill, from a marker to its end, %.1f us\n",
                support::stats_of(floor).median * 1e6);
  }
  int failed = 0;
  std::uint64_t seed = 7;  // a different array per shape
  for (const auto& [rows, cols] : shapes) {
    // The plan of a call on this buffer, every step included. Built and checked once, as
    // a call would (another plan where the device refuses a kernel): the runs below only
    // enqueue.
    const runtime::PreparedPlan prepared =
        runtime::prepare_for_call(queue, profile, rows, cols, elem_size, 0, nullptr,
                                  exact_buffer ? rows * cols : runtime::kUnlimited);
    const planner::LaunchPlan& plan = prepared.plan;
    if (plan.steps.empty()) {
      std::printf("%s\n  no kernel to time\n", planner::describe(plan.transpose).c_str());
      continue;
    }
    // The matrix and, with room, the elements past it that a padded plan borrows.
    const std::uint64_t elements =
        exact_buffer ? rows * cols : std::max(rows * cols, plan.transpose.padded_elements());
    const std::size_t matrix_bytes = static_cast<std::size_t>(rows * cols) * elem_size;
    const std::size_t buffer_bytes = static_cast<std::size_t>(elements) * elem_size;
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, buffer_bytes);
    pattern.fill(buffer(), 0, static_cast<std::size_t>(elements), elem_size, seed);
    std::vector<unsigned char> borrowed(buffer_bytes - matrix_bytes);
    if (!borrowed.empty())
      queue.enqueueReadBuffer(buffer, CL_TRUE, matrix_bytes, borrowed.size(), borrowed.data());

    runtime::enqueue_plan(queue, buffer, prepared, {}).wait();  // warm-up, checked
    std::string check = "off";
    if (verify) {
      check = pattern.check_transposed(buffer(), 0, static_cast<std::size_t>(rows),
                                       static_cast<std::size_t>(cols), elem_size, seed);
      if (!borrowed.empty()) {
        std::vector<unsigned char> after(borrowed.size());
        queue.enqueueReadBuffer(buffer, CL_TRUE, matrix_bytes, after.size(), after.data());
        if (after != borrowed)
          check += std::string(check.empty() ? "" : "; ") + "the bytes past the matrix changed";
      }
      if (check.empty()) {
        check = "ok";
      } else {
        check = "WRONG: " + check;
        ++failed;
      }
    }
    ++seed;

    std::vector<std::vector<double>> step_seconds(plan.steps.size());
    std::vector<double> totals;
    for (int r = 0; r < repetitions; ++r) {
      cl::Event marker;
      queue.enqueueMarkerWithWaitList(nullptr, &marker);
      std::vector<cl::Event> events;  // one per step, in order
      runtime::EnqueueOptions options;
      options.step_events = &events;
      const cl::Event last = runtime::enqueue_plan(queue, buffer, prepared, {}, options);
      queue.finish();
      for (std::size_t s = 0; s < events.size() && s < plan.steps.size(); ++s)
        step_seconds[s].push_back(support::event_seconds(events[s]()));
      totals.push_back(support::after_seconds(marker(), last()));
    }
    const double bytes = 2.0 * static_cast<double>(rows * cols * elem_size);
    const double total = support::stats_of(totals).median;
    std::printf("%s\n  %s buffer, total %.3f ms, %.1f GB/s (%.1f%% of copy %.0f)\n  check %s\n",
                planner::describe(plan.transpose).c_str(), exact_buffer ? "exact" : "padded",
                total * 1e3, bytes / total * 1e-9, 100 * bytes / total * 1e-9 / copy_gbs, copy_gbs,
                check.c_str());
    double sum = 0;
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
      const double t = support::stats_of(step_seconds[s]).median;
      sum += t;
      // What this kernel moves: a stage in two kernels moves part of the matrix in each, a
      // copy only the elements a padded plan keeps in scratch.
      const double moved =
          2.0 * static_cast<double>(support::moved_elements(plan.steps[s].move) * elem_size);
      std::printf("  step %zu %8.3f ms %8.1f GB/s %5.1f%%  %s\n", s + 1, t * 1e3, moved / t * 1e-9,
                  100 * moved / t * 1e-9 / copy_gbs, plan.steps[s].what.c_str());
    }
    std::printf("  outside the step kernels (fills, gaps) %.3f ms\n", (total - sum) * 1e3);
  }
  if (failed > 0) {
    std::fprintf(stderr, "ipt-kernel-bench: %d shape(s) gave WRONG results\n", failed);
    return 1;
  }
  return 0;
}

}  // namespace ipt::bench
