// SPDX-License-Identifier: Apache-2.0
// Plans again around what the device refuses. Preparing a plan (building its programs,
// checking their limits, probing on-chip programs) can find what the device profile did
// not say: a compiled kernel allows fewer work-items than the device's maximum (register
// pressure), or an on-chip plan cannot be prepared at all (its launch refused, no room
// for its probe). The order in which the planner goes around such a refusal lives here,
// beside plan_around_crowded; the runtime only prepares and reports.
#pragma once

#include <cstddef>
#include <functional>

#include "planner/crowded_onchip.hpp"

namespace ipt::planner {

// Why the device refused a plan.
struct Refusal {
  // A compiled kernel's work-group limit below what the plan gives it; 0 when the refusal
  // was of another kind (out of resources).
  std::size_t work_group_limit = 0;
};

// Prepares a plan on the device: true when it was prepared (the preparer keeps it), false
// with `refusal` filled when the device refused it. Other failures are thrown.
using PlanPreparer = std::function<bool(const LaunchPlan&, Refusal& refusal)>;

// Plans with plan_around_crowded and has `prepare` prepare the plan. A refused plan that
// uses the on-chip kernel is planned without it, unless the caller forced it; one refused
// for a work-group limit below the profile's is planned within that limit, unless the
// caller chose the square kernel's tile. Each round rules out something more, so the
// rounds end. Returns false when the last refusal cannot be gone around (the caller
// reports what the device said).
bool plan_and_prepare(DeviceProfile device, PlanOverrides overrides, const CallPlanner& plan_of,
                      const PlanPreparer& prepare);

}  // namespace ipt::planner
