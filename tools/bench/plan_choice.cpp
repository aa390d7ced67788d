// SPDX-License-Identifier: Apache-2.0
#include "plan_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "plan_timing.hpp"
#include "planner/cost_model.hpp"
#include "planner/launch_plan.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"
#include "support/device_pattern.hpp"
#include "support/measure.hpp"

namespace ipt::bench {
namespace {

struct Candidate {
  std::optional<planner::PlanRequest> forced;  // none: the call's own plan
  planner::TransposePlan plan;
  // The cost model's estimate, in copies of the matrix; none for the whole matrix on chip,
  // which the planner takes by its kernel count, not by the model.
  std::optional<double> cost;
  double seconds = 0;  // measured: the median call
  std::string check;
};

// The plan's first line without the shape: "sequence 2.1, m = 294", "padded to ...".
std::string label(const planner::TransposePlan& plan) {
  if (plan.onchip) return "on chip, in one kernel";
  std::string line = planner::describe(plan);
  line = line.substr(0, line.find('\n'));
  const std::string shape = std::to_string(plan.rows) + " x " + std::to_string(plan.cols);
  if (line.rfind(shape, 0) == 0) line = line.substr(shape.size());
  return line.substr(line.find_first_not_of(": "));
}

bool same_plan(const planner::TransposePlan& a, const planner::TransposePlan& b) {
  return a.sequence == b.sequence && a.m == b.m && a.n == b.n && a.onchip == b.onchip &&
         a.padded_rows == b.padded_rows && a.padded_cols == b.padded_cols;
}

// Up to `others` of `found`, the cheapest by the cost model, after `list`.
void add_cheapest(std::vector<Candidate>& list, std::vector<Candidate> found, std::size_t others) {
  std::stable_sort(found.begin(), found.end(),
                   [](const Candidate& a, const Candidate& b) { return *a.cost < *b.cost; });
  if (found.size() > others) found.resize(others);
  list.insert(list.end(), found.begin(), found.end());
}

// The call's plan for a buffer of `capacity` elements, then the two-stage plans of every
// factor that the planner takes when forced, those without padding, cheapest by the cost
// model first, `others` of them; with `padded`, then the plans of the padded shapes that
// the planner weighs (each with the factors it chooses for that shape), `others` of them.
std::vector<Candidate> candidates(const planner::DeviceProfile& profile, std::uint64_t rows,
                                  std::uint64_t cols, std::size_t elem_size, std::size_t others,
                                  std::uint64_t capacity, bool padded) {
  std::vector<Candidate> list(1);
  list[0].plan =
      runtime::plan_for_call(profile, rows, cols, elem_size, 0, nullptr, capacity).transpose;
  if (!list[0].plan.onchip)
    list[0].cost = planner::estimated_cost(profile, list[0].plan, elem_size);
  const auto forced = [&](const planner::PlanRequest& request) -> std::optional<Candidate> {
    Candidate c;
    try {
      c.plan =
          runtime::plan_for_call(profile, rows, cols, elem_size, 0, &request, capacity).transpose;
    } catch (const Error&) {
      return std::nullopt;  // neither local memory nor the device holds its 010! tiles
    }
    if (same_plan(c.plan, list[0].plan)) return std::nullopt;
    c.forced = request;
    c.cost = planner::estimated_cost(profile, c.plan, elem_size);
    return c;
  };
  std::vector<Candidate> two_stage;
  for (const auto sequence : {planner::Sequence::k21, planner::Sequence::k22}) {
    const std::uint64_t side = sequence == planner::Sequence::k21 ? rows : cols;
    for (const std::uint64_t f : planner::divisors(side)) {
      if (f < planner::FactorLimits{}.min_factor || f == side) continue;
      planner::PlanRequest request;
      request.auto_sequence = false;
      request.sequence = sequence;
      (sequence == planner::Sequence::k21 ? request.m : request.n) = f;
      const std::optional<Candidate> c = forced(request);
      if (c && !c->plan.padded() && c->plan.stages.size() == 2) two_stage.push_back(*c);
    }
  }
  add_cheapest(list, two_stage, others);
  if (!padded) return list;
  // As a call weighs them: the factors' floor of its size, any room (automatic padding
  // keeps what a buffer cannot hold in scratch).
  planner::FactorLimits limits;
  limits.min_factor = planner::min_factor_for(limits, rows, cols, elem_size);
  std::vector<Candidate> padded_plans;
  for (const auto& [padded_rows, padded_cols] :
       planner::padded_shapes(profile, rows, cols, elem_size, limits, runtime::kUnlimited)) {
    planner::PlanRequest request;
    request.padded_rows = padded_rows;
    request.padded_cols = padded_cols;
    const std::optional<Candidate> c = forced(request);
    if (c) padded_plans.push_back(*c);
  }
  add_cheapest(list, padded_plans, others);
  return list;
}

}  // namespace

int run_plan_choice(const support::Session& session,
                    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes,
                    std::size_t elem_size, int repetitions, double copy_gbs, bool verify,
                    std::size_t others, bool exact_buffer) {
  const cl::CommandQueue queue(session.queue(), true);
  const cl::Context context(session.context(), true);
  const auto profile = runtime::query_device_profile(session.device());
  support::DevicePattern pattern(session);
  int failed = 0;
  std::uint64_t seed = 7;
  std::vector<double> regrets;  // the planner's time over the fastest, shapes with others
  std::size_t model_fastest = 0;
  for (const auto& [rows, cols] : shapes) {
    std::vector<Candidate> list;
    std::vector<std::string> refused;  // forced plans the device cannot run, and why
    const std::uint64_t capacity = exact_buffer ? rows * cols : runtime::kUnlimited;
    for (Candidate& c :
         candidates(profile, rows, cols, elem_size, others, capacity, !exact_buffer)) {
      std::optional<runtime::PreparedPlan> prepared;
      try {
        prepared = runtime::prepare_for_call(queue, profile, rows, cols, elem_size, 0,
                                             c.forced ? &*c.forced : nullptr, capacity);
      } catch (const Error& e) {
        if (!c.forced) throw;  // the call itself would fail
        refused.push_back(label(c.plan) + ": " + e.what());
        continue;
      }
      if (prepared->plan.steps.empty()) break;  // the call's plan moves nothing
      c.plan = prepared->plan.transpose;        // what ran (another plan where the device refused)
      const PlanTiming timing = time_plan(queue, context, pattern, *prepared, rows, cols, elem_size,
                                          repetitions, verify, exact_buffer, seed++);
      c.seconds = support::stats_of(timing.totals).median;
      c.check = timing.check;
      if (timing.wrong()) ++failed;
      list.push_back(c);
    }
    if (list.empty()) {
      std::printf("%llu x %llu: no kernel to time\n", static_cast<unsigned long long>(rows),
                  static_cast<unsigned long long>(cols));
      continue;
    }
    const double planner_seconds = list[0].seconds;
    std::stable_sort(list.begin(), list.end(),
                     [](const Candidate& a, const Candidate& b) { return a.seconds < b.seconds; });
    const double fastest = list[0].seconds;
    std::printf(
        "%llu x %llu, %s buffer: the call's plan (*) and %zu other plan(s), fastest first\n",
        static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols),
        exact_buffer ? "exact" : "padded", list.size() - 1);
    std::printf("    time ms  / fastest      GB/s  %% copy  model cost  check  plan\n");
    const double bytes = 2.0 * static_cast<double>(rows * cols * elem_size);
    for (const Candidate& c : list) {
      char cost[32] = "-";
      if (c.cost) std::snprintf(cost, sizeof cost, "%.3f", *c.cost);
      std::printf("  %s %8.3f %9.3f %9.1f %6.1f%% %11s  %-5s  %s\n", c.forced ? " " : "*",
                  c.seconds * 1e3, c.seconds / fastest, bytes / c.seconds * 1e-9,
                  100 * bytes / c.seconds * 1e-9 / copy_gbs, cost, c.check.c_str(),
                  label(c.plan).c_str());
    }
    for (const std::string& why : refused) std::printf("    skipped: %s\n", why.c_str());
    if (list.size() > 1) {
      regrets.push_back(planner_seconds / fastest);
      const auto cheaper = [](const Candidate& a, const Candidate& b) {
        return a.cost && (!b.cost || *a.cost < *b.cost);
      };
      if (std::min_element(list.begin(), list.end(), cheaper) == list.begin() && list[0].cost)
        ++model_fastest;
    }
  }
  if (!regrets.empty()) {
    double sum = 0;
    for (const double r : regrets) sum += r;
    const auto within =
        std::count_if(regrets.begin(), regrets.end(), [](double r) { return r <= 1.02; });
    const support::Stats stats = support::stats_of(regrets);
    std::printf(
        "\nthe call's plan against the fastest of its shape, on the %zu shape(s) with other "
        "plans: median %.3f, mean %.3f, p90 %.3f, max %.3f of its time; within 2%% on %lld; the "
        "cost model's cheapest plan was the fastest on %zu\n",
        regrets.size(), stats.median, sum / static_cast<double>(regrets.size()), stats.p90,
        stats.max, static_cast<long long>(within), model_fastest);
  }
  if (failed > 0) {
    std::fprintf(stderr, "ipt-kernel-bench: %d plan(s) gave WRONG results\n", failed);
    return 1;
  }
  return 0;
}

}  // namespace ipt::bench
