// SPDX-License-Identifier: Apache-2.0
#include "planner/crowded_onchip.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace ipt::planner {
namespace {

bool crowded(const Step& step, const DeviceProfile& device) {
  return step.family == Family::kOnChip &&
         std::find(device.crowded_onchip.begin(), device.crowded_onchip.end(), step.options) !=
             device.crowded_onchip.end();
}

// The crowded on-chip steps of `plan` (its undo's too), added to `avoided`: one step for
// each program.
void add_crowded(const LaunchPlan& plan, const DeviceProfile& device, std::vector<Step>& avoided) {
  for (const auto* list : {&plan.steps, &plan.undo})
    for (const Step& step : *list)
      if (crowded(step, device) &&
          std::none_of(avoided.begin(), avoided.end(),
                       [&step](const Step& known) { return known.options == step.options; }))
        avoided.push_back(step);
}

}  // namespace

bool runs_crowded_onchip(const LaunchPlan& plan, const DeviceProfile& device) {
  for (const auto* list : {&plan.steps, &plan.undo})
    for (const Step& step : *list)
      if (crowded(step, device)) return true;
  return false;
}

LaunchPlan plan_around_crowded(const DeviceProfile& device, const PlanOverrides& overrides,
                               const CallPlanner& plan_of) {
  LaunchPlan plan = plan_of(device, overrides);
  if (device.crowded_onchip.empty() || !device.resident_groups ||
      overrides.request.onchip == OnChip::kForce || !runs_crowded_onchip(plan, device))
    return plan;
  std::vector<Step> avoided;
  add_crowded(plan, device, avoided);
  // What the last on-chip plan tried went around: the programs of the plans before it.
  std::vector<Step> around;
  if (device.onchip_groups != 1) {
    DeviceProfile one_group = device;
    one_group.onchip_groups = 1;
    plan = plan_of(one_group, overrides);
    if (!runs_crowded_onchip(plan, device)) {
      plan.avoided = std::move(avoided);
      return plan;
    }
    around = avoided;
    add_crowded(plan, device, avoided);
  }
  PlanOverrides without = overrides;
  without.request.onchip = OnChip::kOff;
  try {
    LaunchPlan off = plan_of(device, without);
    off.avoided = std::move(avoided);
    return off;
  } catch (...) {
    // No plan without the on-chip kernel (a sequence the caller forced whose tiles fit no
    // work-group; `plan_of` may report that in its own error type): the last on-chip plan,
    // whose kernel follows the cycles where its groups do not all run at once, slowly but
    // right, rather than a refusal.
    plan.avoided = std::move(around);
    return plan;
  }
}

}  // namespace ipt::planner
