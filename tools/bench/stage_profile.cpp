// SPDX-License-Identifier: Apache-2.0
#include "stage_profile.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "plan_timing.hpp"
#include "planner/launch_plan.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/device_query.hpp"
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
    const PlanTiming timing = time_plan(queue, context, pattern, prepared, rows, cols, elem_size,
                                        repetitions, verify, exact_buffer, seed++);
    if (timing.wrong()) ++failed;
    const double bytes = 2.0 * static_cast<double>(rows * cols * elem_size);
    const double total = support::stats_of(timing.totals).median;
    std::printf("%s\n  %s buffer, total %.3f ms, %.1f GB/s (%.1f%% of copy %.0f)\n  check %s\n",
                planner::describe(plan.transpose).c_str(), exact_buffer ? "exact" : "padded",
                total * 1e3, bytes / total * 1e-9, 100 * bytes / total * 1e-9 / copy_gbs, copy_gbs,
                timing.check.c_str());
    double sum = 0;
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
      const double t = support::stats_of(timing.step_seconds[s]).median;
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
