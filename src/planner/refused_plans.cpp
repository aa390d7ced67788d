// SPDX-License-Identifier: Apache-2.0
#include "planner/refused_plans.hpp"

namespace ipt::planner {

bool plan_and_prepare(DeviceProfile device, PlanOverrides overrides, const CallPlanner& plan_of,
                      const PlanPreparer& prepare) {
  const bool forced_onchip = overrides.request.onchip == OnChip::kForce;
  const bool forced_square = overrides.square_tile != 0 || overrides.square_wg_rows != 0;
  for (;;) {
    const LaunchPlan plan = plan_around_crowded(device, overrides, plan_of);
    Refusal refusal;
    if (prepare(plan, refusal)) return true;
    if (!forced_onchip && plan.uses_onchip()) {
      overrides.request.onchip = OnChip::kOff;
      continue;
    }
    const std::size_t limit = refusal.work_group_limit;
    if (forced_square || limit == 0 || limit >= device.max_work_group_size) return false;
    device.max_work_group_size = limit;
  }
}

}  // namespace ipt::planner
