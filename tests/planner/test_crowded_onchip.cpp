// SPDX-License-Identifier: Apache-2.0
// Plans around crowded on-chip programs (planner/crowded_onchip.hpp): two groups per
// compute unit, then one, then no on-chip kernel, as the device profile's verdicts say;
// nothing changes where the caller forced the on-chip kernel or the device promises no
// resident groups.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers/test_profiles.hpp"
#include "planner/crowded_onchip.hpp"

namespace ip = ipt::planner;

namespace {

ip::LaunchPlan plan_of(const ip::DeviceProfile& device, const ip::PlanOverrides& overrides) {
  return ip::plan_call(device, {300, 211, 4, 3, 300 * 211 + 10, 1}, overrides);
}

// The work-group of the plan's on-chip step (0: none) and its build options.
std::size_t onchip_group(const ip::LaunchPlan& plan, std::string* options = nullptr) {
  for (const ip::Step& step : plan.steps)
    if (step.family == ip::Family::kOnChip) {
      if (options != nullptr) *options = step.options;
      return static_cast<std::size_t>(step.work_group());
    }
  return 0;
}

}  // namespace

TEST_CASE("plans go around crowded on-chip programs: one group per unit, then none",
          "[planner][onchip]") {
  ip::DeviceProfile device = ipt::test::eight_resident_units();
  const ip::PlanOverrides overrides;
  std::string two_groups, one_group;
  const ip::LaunchPlan first = ip::plan_around_crowded(device, overrides, plan_of);
  REQUIRE(onchip_group(first, &two_groups) == 512);
  CHECK(first.avoided.empty());
  CHECK_FALSE(ip::runs_crowded_onchip(first, device));

  device.crowded_onchip = {"-DSOMETHING_ELSE"};  // another program's verdict changes nothing
  CHECK(onchip_group(ip::plan_around_crowded(device, overrides, plan_of)) == 512);

  device.crowded_onchip = {two_groups};
  CHECK(ip::runs_crowded_onchip(first, device));
  const ip::LaunchPlan second = ip::plan_around_crowded(device, overrides, plan_of);
  REQUIRE(onchip_group(second, &one_group) == 1024);
  CHECK(one_group != two_groups);
  REQUIRE(second.avoided.size() == 1);
  CHECK(second.avoided[0].options == two_groups);

  device.crowded_onchip = {two_groups, one_group};
  const ip::LaunchPlan third = ip::plan_around_crowded(device, overrides, plan_of);
  CHECK(onchip_group(third) == 0);
  CHECK_FALSE(third.steps.empty());
  REQUIRE(third.avoided.size() == 2);
  CHECK(third.avoided[0].options == two_groups);
  CHECK(third.avoided[1].options == one_group);

  // One group per unit chosen by the caller: crowded, straight to no on-chip kernel.
  ip::DeviceProfile one = device;
  one.onchip_groups = 1;
  one.crowded_onchip = {one_group};
  const ip::LaunchPlan without = ip::plan_around_crowded(one, overrides, plan_of);
  CHECK(onchip_group(without) == 0);
  CHECK(without.avoided.size() == 1);

  // A planner with no plan without the on-chip kernel (a forced sequence whose tiles fit
  // no work-group): the last on-chip plan tried, which runs its crowded program (the
  // kernel's fallback keeps it right), having gone around the ones before it only.
  const ip::CallPlanner needs_onchip = [](const ip::DeviceProfile& d, const ip::PlanOverrides& o) {
    if (o.request.onchip == ip::OnChip::kOff) throw std::invalid_argument("no tile fits");
    return plan_of(d, o);
  };
  const ip::LaunchPlan kept_onchip = ip::plan_around_crowded(device, overrides, needs_onchip);
  CHECK(onchip_group(kept_onchip) == 1024);
  REQUIRE(kept_onchip.avoided.size() == 1);
  CHECK(kept_onchip.avoided[0].options == two_groups);
  const ip::LaunchPlan one_kept = ip::plan_around_crowded(one, overrides, needs_onchip);
  CHECK(onchip_group(one_kept) == 1024);
  CHECK(one_kept.avoided.empty());

  // A forced on-chip kernel, or a device that promises no resident groups: as planned.
  ip::PlanOverrides forced;
  forced.request.onchip = ip::OnChip::kForce;
  const ip::LaunchPlan kept = ip::plan_around_crowded(device, forced, plan_of);
  CHECK(onchip_group(kept) == onchip_group(plan_of(device, forced)));
  CHECK(kept.avoided.empty());
  ip::DeviceProfile promised_nothing = device;
  promised_nothing.resident_groups = false;
  const ip::LaunchPlan as_planned = ip::plan_around_crowded(promised_nothing, overrides, plan_of);
  CHECK(onchip_group(as_planned) == onchip_group(plan_of(promised_nothing, overrides)));
  CHECK(as_planned.avoided.empty());
}
