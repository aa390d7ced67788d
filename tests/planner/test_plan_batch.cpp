// SPDX-License-Identifier: Apache-2.0
// Plans of batches (planner/batch_plan.hpp): which plan a batch gets on each profile, and
// every batched plan checked by the host model (each matrix of the batch transposed in
// its place, nothing touched past the batch), its rollbacks too.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "helpers/plan_checks.hpp"
#include "helpers/plan_model.hpp"
#include "helpers/random_shapes.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/batch_plan.hpp"
#include "planner/launch_plan.hpp"

using ipt::planner::CallShape;
using ipt::planner::Family;
using ipt::planner::LaunchPlan;
using ipt::planner::plan_batched_transpose;
using ipt::planner::plan_call;
using ipt::planner::Sequence;
using u64 = std::uint64_t;

namespace {

std::string check_batch(const ipt::planner::DeviceProfile& device, const CallShape& call) {
  const LaunchPlan plan = plan_call(device, call);
  if (plan.transpose.batch != call.batch) return "the plan is for a batch of another size";
  // A batch in parts of one matrix pads each in scratch (split tails of its own steps).
  if (plan.borrowed_bytes != 0 || plan.split != 0 ||
      (plan.transpose.padded() && plan.part_matrices != 1))
    return "a batched plan pads or borrows";
  if (std::string bad = ipt::test::launch_problem(plan); !bad.empty()) return bad;
  if (std::string bad = ipt::test::scratch_problem(plan, call); !bad.empty()) return bad;
  if (std::string bad = ipt::planner::check_plan(plan, call.rows, call.cols, 0); !bad.empty())
    return bad;
  for (std::size_t done = 1; done < plan.steps.size(); ++done)
    if (std::string bad = ipt::planner::check_rollback(plan, done, call.rows, call.cols, 0);
        !bad.empty())
      return bad;
  return "";
}

// A CPU device: no resident groups, so no on-chip kernel.
ipt::planner::DeviceProfile cpu_like() {
  ipt::planner::DeviceProfile cpu = ipt::test::nvidia_like();
  cpu.resident_groups = false;
  return cpu;
}

Family only_family(const LaunchPlan& plan) {
  REQUIRE(plan.steps.size() == 1);
  return plan.steps.front().family;
}

}  // namespace

TEST_CASE("batches of small matrices take one BS kernel whatever the shape", "[planner][batch]") {
  for (const auto& [name, device] : ipt::test::gpu_profiles()) {
    INFO(name);
    for (const auto& [rows, cols] : {std::pair<u64, u64>{64, 100}, {97, 89}, {1, 7}, {31, 31}}) {
      const LaunchPlan plan = plan_call(device, {rows, cols, 4, 0, 0, 10000});
      if (rows == 1) {
        CHECK(plan.steps.empty());  // a row is its own transpose
        continue;
      }
      // One kernel: a BS tile per matrix where local memory holds one (always on the
      // NVIDIA-like profile's 48 KiB for these), else the on-chip kernel.
      const Family family = only_family(plan);
      CHECK((family == Family::kBs ||
             (family == Family::kOnChip && name != std::string("NVIDIA-like"))));
      CHECK(plan.scratch_bytes == 0);
      CHECK(plan.steps.front().global[0] > 0);
    }
  }
}

TEST_CASE("batches of larger matrices: square kernel, on chip, or the stages times the batch",
          "[planner][batch]") {
  const auto device = ipt::test::nvidia_like();
  // Square: one tiled-swap kernel over every matrix's pairs.
  const LaunchPlan square = plan_call(device, {1000, 1000, 4, 0, 0, 7});
  CHECK(only_family(square) == Family::kSquare);
  // Non-square, on the device's registers: one on-chip kernel, rounds of whole matrices,
  // also for prime sides.
  for (const auto& [rows, cols] : {std::pair<u64, u64>{1009, 1013}, {600, 400}, {3, 20011}}) {
    const LaunchPlan plan = plan_call(device, {rows, cols, 4, 0, 0, 50});
    CHECK(only_family(plan) == Family::kOnChip);
  }
  // Too large for the registers: the matrix's unpadded plan, each stage over the batch.
  const LaunchPlan large = plan_call(device, {4000, 3000, 4, 0, 0, 3});
  CHECK(large.transpose.batch == 3);
  CHECK(!large.transpose.padded());
  CHECK(large.steps.size() >= 2);
  // Without resident groups (a CPU device), no on-chip kernel.
  const LaunchPlan cpu = plan_call(cpu_like(), {600, 400, 4, 0, 0, 50});
  for (const auto& step : cpu.steps) CHECK(step.family != Family::kOnChip);
}

TEST_CASE("every batched plan transposes each matrix in its place", "[planner][batch]") {
  std::mt19937_64 random(2718);
  std::vector<ipt::test::NamedProfile> profiles = ipt::test::gpu_profiles();
  profiles.push_back({"CPU-like", cpu_like()});
  std::size_t checked = 0;
  for (const auto& [name, device] : profiles) {
    for (int k = 0; k < 60; ++k) {
      const u64 rows = ipt::test::any_magnitude(random, 3000);
      const u64 cols = ipt::test::any_magnitude(random, 3000);
      const u64 batch = 1 + static_cast<u64>(k % 7) * (k % 3 + 1);
      const std::size_t elem = std::size_t{1} << (k % 5);
      const CallShape call{rows, cols, elem, static_cast<u64>(k % 3), 0, batch};
      INFO(name << ": batch of " << batch << " x " << rows << " x " << cols << ", " << elem
                << " bytes");
      CHECK(check_batch(device, call) == "");
      ++checked;
    }
    for (const auto& [rows, cols] :
         {std::pair<u64, u64>{1009, 1013}, {64, 100}, {1000, 1000}, {2, 65537}, {4099, 4}}) {
      const CallShape call{rows, cols, 4, 0, 0, 5};
      INFO(name << ": batch of 5 x " << rows << " x " << cols);
      CHECK(check_batch(device, call) == "");
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("a batch is refused a padded shape and sizes past one allocation", "[planner][batch]") {
  auto device = ipt::test::nvidia_like();
  device.max_alloc_bytes = std::uint64_t{37} << 30;
  ipt::planner::PlanRequest padded;
  padded.padded_rows = 1010;
  CHECK_THROWS_AS(plan_batched_transpose(device, 4, 1009, 1013, 4, padded), std::invalid_argument);
  CHECK_THROWS_AS(plan_call(device, {1u << 20, 1u << 20, 4, 0, 0, 1u << 20}),
                  ipt::planner::ResourceError);
  CHECK_THROWS_AS(plan_call(device, {3, 3, 4, 0, 0, ~u64{0} / 2}), ipt::planner::ResourceError);
  CHECK_THROWS_AS(plan_call(device, {3, 3, 4, 0, 0, 0}), std::invalid_argument);
}

TEST_CASE("a batched plan says so in words", "[planner][batch]") {
  const LaunchPlan plan = plan_call(ipt::test::nvidia_like(), {64, 100, 4, 0, 0, 10000});
  const std::string text = describe(plan);
  CHECK(text.find("a batch of 10000 matrices of 64 x 100") == 0);
}

TEST_CASE("a batch whose flags would pass the memory budget is transposed in parts",
          "[planner][batch][memory]") {
  // Prime sides beyond the registers: one flag bit per element of the batch (3.1% of f32
  // matrices) as one part; single matrices, padded in scratch, as parts.
  const auto nvidia = ipt::test::nvidia_like();
  const CallShape primes{4001, 4003, 4, 5, 0, 4};
  const LaunchPlan plan = plan_call(nvidia, primes);
  CHECK(plan.part_matrices == 1);
  CHECK(plan.transpose.batch == 4);
  CHECK(ipt::test::extra_fraction(plan, primes) <= ipt::test::kLargeExtraFraction);
  CHECK(check_batch(nvidia, primes) == "");
  CHECK(describe(plan).find("in 4 parts of 1 matrix") != std::string::npos);
  // 1-byte elements on a device without the on-chip kernel: parts of several matrices.
  const auto amd = ipt::test::amd_like();
  auto no_onchip = amd;
  no_onchip.resident_groups = false;
  const CallShape small{701, 1409, 1, 0, 0, 100};
  const LaunchPlan parts = plan_call(no_onchip, small);
  CHECK(parts.part_matrices > 1);
  CHECK(parts.part_matrices < 100);
  CHECK(ipt::test::extra_fraction(parts, small) <= ipt::test::kLargeExtraFraction);
  CHECK(check_batch(no_onchip, small) == "");
  // A forced sequence stays one part; so does a batch under 10^6 elements.
  ipt::planner::PlanOverrides forced;
  forced.request.auto_sequence = false;
  forced.request.sequence = Sequence::kOneStage;
  CHECK(plan_call(nvidia, primes, forced).part_matrices == 0);
  CHECK(plan_call(no_onchip, {701, 1409, 1, 0, 0, 1}).part_matrices == 0);
}

TEST_CASE("random batches of 10^6 elements or more stay within the memory bound",
          "[planner][batch][memory]") {
  IPT_TEST_SEED(seed, 20261129);
  std::mt19937_64 random(seed);
  std::size_t large = 0, in_parts = 0;
  for (const auto& [name, device] : ipt::test::gpu_and_cpu_profiles()) {
    for (int k = 0; k < 150; ++k) {
      const u64 rows = 200 + random() % 5000, cols = 200 + random() % 5000;
      const u64 batch = 2 + random() % 30;
      const std::size_t elem = std::size_t{1} << (random() % 5);
      const CallShape call{rows, cols, elem, random() % 3, 0, batch};
      if (batch * rows * cols < ipt::test::kLargeElements) continue;
      INFO(name << ": batch of " << batch << " x " << rows << " x " << cols << ", " << elem
                << " bytes");
      const LaunchPlan plan = plan_call(device, call);
      INFO(describe(plan));
      ++large;
      if (plan.part_matrices != 0) ++in_parts;
      if (std::string(name) != "CPU-like")
        CHECK(ipt::test::extra_fraction(plan, call) <= ipt::test::kLargeExtraFraction);
      if (k % 10 == 0) CHECK(check_batch(device, call) == "");
    }
  }
  CHECK(large > 300);
  CHECK(in_parts > 0);
}
