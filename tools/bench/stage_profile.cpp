#include "stage_profile.hpp"

#include <cstdio>
#include <string>

#include "planner/elementary_configs.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/device_profile.hpp"
#include "runtime/opencl.hpp"
#include "runtime/plan_executor.hpp"
#include "runtime/restride_launcher.hpp"
#include "runtime/transpose.hpp"
#include "support/measure.hpp"
#include "support/random_data.hpp"

namespace ipt::bench {
namespace {

std::string stage_name(const planner::Stage& s) {
  if (s.kind == planner::Stage::Kind::k010)
    return "010! " + std::to_string(s.B) + "x" + std::to_string(s.C);
  return (s.I > 1 ? "0100! " : "100! ") + std::to_string(s.A) + "x" + std::to_string(s.B) +
         " C=" + std::to_string(s.C);
}

}  // namespace

int run_stage_profile(const support::Session& session,
                      const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes,
                      std::size_t elem_size, int repetitions, double copy_gbs) {
  const cl::CommandQueue queue(session.queue(), true);
  const cl::Context context(session.context(), true);
  const auto profile = runtime::query_device_profile(session.device());
  std::uint64_t seed = 7;  // a different random array per shape
  for (const auto& [rows, cols] : shapes) {
    const auto plan =
        runtime::plan_for_call(profile, rows, cols, elem_size, nullptr, runtime::kUnlimited);
    if (plan.stages.empty()) {
      std::printf("%llu x %llu: %s plan, no stages\n", (unsigned long long)rows,
                  (unsigned long long)cols, plan.onchip ? "whole-matrix on-chip" : "square");
      continue;
    }
    const std::uint64_t padded = plan.padded_rows * plan.padded_cols;
    auto data = support::random_bytes(padded * elem_size, seed++);
    cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size(), data.data());
    // The padding and unpadding kernels as the executor runs them (without the copies of
    // the borrowed bytes), each stage's kernel event kept.
    const auto restride = planner::choose_restride(profile, elem_size);
    std::vector<std::string> names;
    if (plan.padded_cols != cols)
      names.push_back("pad " + std::to_string(cols) + "->" + std::to_string(plan.padded_cols));
    for (const auto& stage : plan.stages)
      names.push_back(stage_name(stage) + (stage.onchip ? " on chip" : ""));
    if (plan.padded_rows != rows)
      names.push_back("unpad " + std::to_string(plan.padded_rows) + "->" + std::to_string(rows));
    const auto run = [&](std::vector<cl::Event>* events) {
      std::vector<cl::Event> after;
      if (plan.padded_cols != cols) {
        after = {runtime::enqueue_restride(queue, buffer, 0, rows, cols, cols, plan.padded_cols,
                                           elem_size, restride, {})};
        if (events) events->push_back(after.front());
      }
      runtime::PlanRun plan_run;
      plan_run.stage_events = events;
      after = {runtime::enqueue_plan(queue, buffer, 0, elem_size, plan, profile, after, plan_run)};
      if (plan.padded_rows != rows) {
        after = {runtime::enqueue_restride(queue, buffer, 0, cols, rows, plan.padded_rows, rows,
                                           elem_size, restride, after)};
        if (events) events->push_back(after.front());
      }
      return after.front();
    };
    run(nullptr).wait();
    std::vector<std::vector<double>> stage_seconds(names.size());
    std::vector<double> totals;
    for (int r = 0; r < repetitions; ++r) {
      cl::Event marker;
      queue.enqueueMarkerWithWaitList(nullptr, &marker);
      std::vector<cl::Event> events;
      const cl::Event last = run(&events);
      queue.finish();
      for (std::size_t s = 0; s < events.size() && s < names.size(); ++s)
        stage_seconds[s].push_back(support::event_seconds(events[s]()));
      totals.push_back(support::after_seconds(marker(), last()));
    }
    const double bytes = 2.0 * static_cast<double>(rows * cols * elem_size);
    const double total = support::stats_of(totals).median;
    std::printf("%llu x %llu: %s\n  total %.3f ms, %.1f GB/s (%.1f%% of copy %.0f)\n",
                (unsigned long long)rows, (unsigned long long)cols, planner::describe(plan).c_str(),
                total * 1e3, bytes / total * 1e-9, 100 * bytes / total * 1e-9 / copy_gbs, copy_gbs);
    double sum = 0;
    for (std::size_t s = 0; s < names.size(); ++s) {
      const double t = support::stats_of(stage_seconds[s]).median;
      sum += t;
      std::printf("  stage %zu %-22s %8.3f ms %8.1f GB/s %5.1f%%\n", s + 1, names[s].c_str(),
                  t * 1e3, bytes / t * 1e-9, 100 * bytes / t * 1e-9 / copy_gbs);
    }
    std::printf("  outside the stage kernels (fills, gaps) %.3f ms\n", (total - sum) * 1e3);
  }
  return 0;
}

}  // namespace ipt::bench
