// SPDX-License-Identifier: Apache-2.0
// Plans again around what the device refuses (planner/refused_plans.hpp): without the
// on-chip kernel, then within a compiled kernel's work-group limit; a refusal the caller's
// forced choices rule out, or one that teaches nothing new, ends the rounds.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "helpers/test_profiles.hpp"
#include "planner/refused_plans.hpp"

namespace ip = ipt::planner;

namespace {

ip::LaunchPlan plan_of(const ip::DeviceProfile& device, const ip::PlanOverrides& overrides) {
  return ip::plan_call(device, {300, 211, 4, 3, 300 * 211 + 10, 1}, overrides);
}

ip::LaunchPlan square_of(const ip::DeviceProfile& device, const ip::PlanOverrides& overrides) {
  return ip::plan_call(device, {1024, 1024, 4, 0, 1024 * 1024, 1}, overrides);
}

std::uint64_t largest_group(const ip::LaunchPlan& plan) {
  std::uint64_t largest = 0;
  for (const auto* list : {&plan.steps, &plan.undo})
    for (const ip::Step& step : *list) largest = std::max(largest, step.work_group());
  return largest;
}

// A device that refuses every plan with the on-chip kernel, and every kernel given more
// than `limit` work-items; records what it was asked to prepare.
struct RefusingDevice {
  std::uint64_t limit;
  std::vector<ip::LaunchPlan> asked;
  bool operator()(const ip::LaunchPlan& plan, ip::Refusal& refusal) {
    asked.push_back(plan);
    if (plan.uses_onchip()) return false;
    if (largest_group(plan) > limit) {
      refusal.work_group_limit = static_cast<std::size_t>(limit);
      return false;
    }
    return true;
  }
};

}  // namespace

TEST_CASE("a refused plan is planned without the on-chip kernel, then within the limit",
          "[planner][onchip]") {
  const ip::DeviceProfile device = ipt::test::eight_resident_units();
  const ip::PlanOverrides overrides;
  REQUIRE(plan_of(device, overrides).uses_onchip());
  REQUIRE(largest_group(plan_of(device, overrides)) > 64);

  RefusingDevice onchip_only{device.max_work_group_size, {}};
  CHECK(ip::plan_and_prepare(device, overrides, plan_of, std::ref(onchip_only)));
  REQUIRE(onchip_only.asked.size() == 2);
  CHECK_FALSE(onchip_only.asked[1].uses_onchip());

  RefusingDevice small_groups{64, {}};
  CHECK(ip::plan_and_prepare(device, overrides, plan_of, std::ref(small_groups)));
  REQUIRE(small_groups.asked.size() >= 3);
  CHECK_FALSE(small_groups.asked.back().uses_onchip());
  CHECK(largest_group(small_groups.asked.back()) <= 64);
  CHECK(largest_group(small_groups.asked[1]) > 64);
}

TEST_CASE("a refusal the caller's choices rule out ends the rounds", "[planner][onchip]") {
  const ip::DeviceProfile device = ipt::test::eight_resident_units();
  ip::PlanOverrides forced_onchip;
  forced_onchip.request.onchip = ip::OnChip::kForce;
  RefusingDevice onchip_only{device.max_work_group_size, {}};
  CHECK_FALSE(ip::plan_and_prepare(device, forced_onchip, plan_of, std::ref(onchip_only)));
  CHECK(onchip_only.asked.size() == 1);

  // A square tile chosen by the caller keeps its work-group.
  ip::PlanOverrides forced_square;
  forced_square.square_tile = 32;
  forced_square.square_wg_rows = 8;
  RefusingDevice small_groups{64, {}};
  REQUIRE(largest_group(square_of(device, forced_square)) == 256);
  CHECK_FALSE(ip::plan_and_prepare(device, forced_square, square_of, std::ref(small_groups)));
  CHECK(small_groups.asked.size() == 1);

  // The same square, the planner's tile: planned within the limit.
  RefusingDevice planner_square{64, {}};
  CHECK(ip::plan_and_prepare(device, {}, square_of, std::ref(planner_square)));
  CHECK(largest_group(planner_square.asked.back()) <= 64);

  // A limit that is no lower than the profile's teaches nothing: no endless rounds.
  const auto no_news = [&device](const ip::LaunchPlan&, ip::Refusal& refusal) {
    refusal.work_group_limit = device.max_work_group_size;
    return false;
  };
  CHECK_FALSE(ip::plan_and_prepare(device, {}, square_of, no_news));
  const auto other = [](const ip::LaunchPlan&, ip::Refusal&) { return false; };
  CHECK_FALSE(ip::plan_and_prepare(device, {}, square_of, other));
}

TEST_CASE("what the preparer throws reaches the caller", "[planner][onchip]") {
  const auto fails = [](const ip::LaunchPlan&, ip::Refusal&) -> bool {
    throw std::runtime_error("build failed");
  };
  CHECK_THROWS_WITH(ip::plan_and_prepare(ipt::test::eight_resident_units(), {}, plan_of, fails),
                    "build failed");
}
