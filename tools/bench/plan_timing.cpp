// SPDX-License-Identifier: Apache-2.0
#include "plan_timing.hpp"

#include <algorithm>

#include "planner/launch_plan.hpp"
#include "runtime/executor.hpp"
#include "support/measure.hpp"

namespace ipt::bench {

PlanTiming time_plan(const cl::CommandQueue& queue, const cl::Context& context,
                     support::DevicePattern& pattern, const runtime::PreparedPlan& prepared,
                     std::uint64_t rows, std::uint64_t cols, std::size_t elem_size, int repetitions,
                     bool verify, bool exact_buffer, std::uint64_t seed) {
  const planner::LaunchPlan& plan = prepared.plan;
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

  PlanTiming timing;
  runtime::enqueue_plan(queue, buffer, prepared, {}).wait();  // warm-up, checked
  timing.check = "off";
  if (verify) {
    std::string problems =
        pattern.check_transposed(buffer(), 0, static_cast<std::size_t>(rows),
                                 static_cast<std::size_t>(cols), elem_size, seed);
    if (!borrowed.empty()) {
      std::vector<unsigned char> after(borrowed.size());
      queue.enqueueReadBuffer(buffer, CL_TRUE, matrix_bytes, after.size(), after.data());
      if (after != borrowed)
        problems += std::string(problems.empty() ? "" : "; ") + "the bytes past the matrix changed";
    }
    timing.check = problems.empty() ? "ok" : "WRONG: " + problems;
  }

  timing.step_seconds.resize(plan.steps.size());
  for (int r = 0; r < repetitions; ++r) {
    cl::Event marker;
    queue.enqueueMarkerWithWaitList(nullptr, &marker);
    std::vector<cl::Event> events;  // one per step, in order
    runtime::EnqueueOptions options;
    options.step_events = &events;
    const cl::Event last = runtime::enqueue_plan(queue, buffer, prepared, {}, options);
    queue.finish();
    for (std::size_t s = 0; s < events.size() && s < plan.steps.size(); ++s)
      timing.step_seconds[s].push_back(support::event_seconds(events[s]()));
    timing.totals.push_back(support::after_seconds(marker(), last()));
  }
  return timing;
}

}  // namespace ipt::bench
