// SPDX-License-Identifier: Apache-2.0
// Plans around crowded on-chip programs. The on-chip kernel counts on every work-group
// running at once; where its probe found that they do not (DeviceProfile::crowded_onchip),
// the kernel would take its fallback, cycle following at a few percent of its speed, on
// every call. Such a call is planned with one group per compute unit instead of two
// (another program, with room for more registers), and where that one is crowded too,
// without the on-chip kernel.
#pragma once

#include <functional>

#include "planner/device_profile.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::planner {

// Makes a call's plan on a device profile with the caller's overrides (plan_call,
// plan_imatcopy, plan_stage, ...).
using CallPlanner = std::function<LaunchPlan(const DeviceProfile&, const PlanOverrides&)>;

// The plan of `plan_of`, around the on-chip programs that `device` lists as crowded, on
// a device where the planner counts on resident groups and unless the caller forced the
// on-chip kernel: planned again with one group per compute unit, then with the on-chip
// kernel off (a planner that must run it, as a lone stage's, still does; a sequence the
// caller forced whose tiles only the on-chip kernel moves keeps the last on-chip plan
// tried, whose kernel falls back to cycle following). The plan's `avoided` lists the
// on-chip steps it went around. Throws what `plan_of` throws.
LaunchPlan plan_around_crowded(const DeviceProfile& device, const PlanOverrides& overrides,
                               const CallPlanner& plan_of);

// Whether a step of `plan` (or of its undo) runs an on-chip program that `device` lists
// as crowded.
bool runs_crowded_onchip(const LaunchPlan& plan, const DeviceProfile& device);

}  // namespace ipt::planner
