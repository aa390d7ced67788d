// SPDX-License-Identifier: Apache-2.0
#include "helpers/plan_checks.hpp"

#include <stdexcept>

namespace ipt::test {

using namespace ipt::planner;
using u64 = std::uint64_t;

std::string launch_problem(const LaunchPlan& plan) {
  const u64 limit = u64{1} << 63;
  for (const auto* steps : {&plan.steps, &plan.undo}) {
    for (const Step& step : *steps) {
      const std::string name = step.what;
      if (step.local[0] == 0 || step.local[1] == 0) return name + ": an empty work-group";
      for (unsigned d = 0; d < step.dims; ++d)
        if (step.global[d] >= limit || step.global[d] % step.local[d] != 0)
          return name + ": global size " + std::to_string(step.global[d]) + " in dimension " +
                 std::to_string(d);
      if (!step.index64 && needs_index64(plan.offset, step.touches, step.family != Family::kSquare))
        return name + ": 32-bit indices over " + std::to_string(step.touches) + " elements";
      for (const KernelArg& arg : step.args)
        if (arg.kind == KernelArg::Kind::kIndex && !step.index64 && arg.value >= (u64{1} << 32))
          return name + ": index argument " + std::to_string(arg.value) + " in 32 bits";
    }
  }
  return "";
}

std::string scratch_problem(const LaunchPlan& plan, const CallShape& call) {
  const u64 bytes = call.batch * call.rows * call.cols * call.elem_size;
  if (plan.scratch_bytes > bytes / 8 + (u64{1} << 20))
    return "scratch of " + std::to_string(plan.scratch_bytes) + " bytes";
  return "";
}

u64 extra_bytes(const LaunchPlan& plan) {
  return plan.scratch_bytes + plan.zero_scratch_bytes + plan.borrowed_bytes;
}

double extra_fraction(const LaunchPlan& plan, const CallShape& call) {
  return static_cast<double>(extra_bytes(plan)) /
         (static_cast<double>(call.batch) * static_cast<double>(call.rows) *
          static_cast<double>(call.cols) * static_cast<double>(call.elem_size));
}

const char* refusal_name(Refusal refusal) {
  switch (refusal) {
    case Refusal::kNone:
      return "none";
    case Refusal::kResources:
      return "ResourceError";
    case Refusal::kNoRoom:
      return "std::length_error";
    case Refusal::kInvalid:
      return "std::invalid_argument";
  }
  return "?";
}

PlanOutcome try_plan_call(const DeviceProfile& device, const CallShape& call,
                          const PlanOverrides& overrides) {
  PlanOutcome outcome;
  try {
    outcome.plan = plan_call(device, call, overrides);
  } catch (const ResourceError& e) {
    outcome.refusal = Refusal::kResources;
    outcome.message = e.what();
  } catch (const std::length_error& e) {
    outcome.refusal = Refusal::kNoRoom;
    outcome.message = e.what();
  } catch (const std::invalid_argument& e) {
    outcome.refusal = Refusal::kInvalid;
    outcome.message = e.what();
  }
  return outcome;
}

}  // namespace ipt::test
