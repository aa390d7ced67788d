// SPDX-License-Identifier: Apache-2.0
// Planner and launch-size arithmetic at the edge of 64 bits: calls whose matrices
// approach 2^63 bytes either get a plan whose every launch is representable (global
// sizes, 32-bit index arguments only in 32-bit steps, one index-width rule) and that
// the host model finds right, or a clean refusal, never a wrapped product.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

#include "helpers/plan_checks.hpp"
#include "helpers/plan_model.hpp"
#include "helpers/random_shapes.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/launch_plan.hpp"

using namespace ipt::planner;
using ipt::test::in_range;

namespace {

using u64 = std::uint64_t;

// plan_call's answer for a call, in words: "" for a plan that checks out, "refused" for
// a clean refusal, else the problem.
std::string outcome(const DeviceProfile& device, const CallShape& call) {
  ipt::test::PlanOutcome planned;
  try {
    planned = ipt::test::try_plan_call(device, call);
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
  if (!planned.plan) return "refused";
  const LaunchPlan& plan = *planned.plan;
  if (std::string bad = ipt::test::launch_problem(plan); !bad.empty()) return bad;
  if (std::string bad = ipt::test::scratch_problem(plan, call); !bad.empty()) return bad;
  return check_plan(plan, call.rows, call.cols, call.capacity, 0, 64, call.rows ^ call.cols);
}

std::string call_text(const CallShape& call) {
  return std::to_string(call.rows) + " x " + std::to_string(call.cols) + ", elem_size " +
         std::to_string(call.elem_size) + ", offset " + std::to_string(call.offset);
}

}  // namespace

TEST_CASE("calls of 2^36 to 2^63 bytes plan cleanly or are refused", "[planner][limits]") {
  IPT_TEST_SEED(seed, 63);
  std::mt19937_64 random(seed);
  const std::size_t sizes[] = {1, 2, 4, 8, 16};
  int planned = 0;
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    // The profiles' own allocation limit, and none (a device that claims any size).
    for (u64 max_alloc : {profile.device.max_alloc_bytes, u64{0}}) {
      DeviceProfile device = profile.device;
      device.max_alloc_bytes = max_alloc;
      for (int k = 0; k < 60; ++k) {
        CallShape call;
        call.elem_size = sizes[random() % 5];
        // Bytes from 2^36 to just under 2^63 (beyond about 2^50 the kernels' item counters
        // refuse), split into sides of every magnitude.
        const u64 log_bytes = in_range(random, 36, 63);
        const u64 elements =
            (in_range(random, u64{1} << log_bytes, u64{1} << (log_bytes + 1)) / call.elem_size) | 1;
        // Sides of at most 2^36: the factor search divides up to the square root of a
        // side (a profile without an allocation limit plans any size; a real device
        // refuses a matrix beyond one allocation first).
        const u64 log_elements = 63 - static_cast<u64>(__builtin_clzll(elements));
        const u64 low = log_elements > 36 ? log_elements - 36 : 0;
        const u64 log_rows = in_range(random, low, std::min<u64>(36, log_elements) + 1);
        call.rows = in_range(random, u64{1} << log_rows, u64{1} << (log_rows + 1));
        call.cols = elements / call.rows;
        if (call.cols == 0 || call.cols > (u64{1} << 37)) continue;
        if (random() % 2 == 0) std::swap(call.rows, call.cols);
        call.offset = random() % 3 == 0 ? in_range(random, 1, 1u << 20) : 0;
        call.capacity = random() % 2 == 0 ? 0 : ~u64{0};
        INFO(profile.name << ", max_alloc " << max_alloc << ": " << call_text(call));
        const std::string result = outcome(device, call);
        if (result != "refused") CHECK(result == "");
        planned += result.empty();
      }
    }
  }
  CHECK(planned > 40);  // most of them get a plan
}

TEST_CASE("sides at the 32-bit boundaries get 64-bit steps", "[planner][limits]") {
  // Each side or the product just below, at and above 2^31 and 2^32.
  const DeviceProfile device = ipt::test::nvidia_like();
  int planned = 0;
  for (u64 edge : {u64{1} << 31, u64{1} << 32}) {
    for (u64 delta : {u64{0}, u64{1}, u64{3}}) {
      for (const auto& [rows, cols] : {std::pair<u64, u64>{edge - delta, 3},
                                       {3, edge + delta},
                                       {2, (edge - delta) / 2},
                                       {65536, (edge + delta) / 65536 + 1},
                                       {46349, 46349 + delta}}) {
        for (std::size_t elem_size : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
          const CallShape call{rows, cols, elem_size, delta, 0};
          INFO(call_text(call));
          const std::string result = outcome(device, call);
          if (result != "refused") CHECK(result == "");
          planned += result.empty();
        }
      }
    }
  }
  CHECK(planned > 60);
}

TEST_CASE("a matrix larger than one allocation is refused at once", "[planner][limits]") {
  DeviceProfile device = ipt::test::nvidia_like();
  device.max_alloc_bytes = u64{1} << 35;
  CHECK(outcome(device, {u64{1} << 33, 2, 4, 0, 0}) == "refused");
  CHECK(outcome(device, {(u64{1} << 33) - 1, 4, 1, 5, 0}) == "refused");  // with its offset
  CHECK(outcome(device, {~u64{0} / 3, 5, 1, 0, 0}) == "refused");         // rows * cols wraps
  CHECK(outcome(device, {u64{1} << 31, 3, 4, 0, 0}) == "");
  // So is a forced padded shape beyond one allocation, whatever room the call claims.
  PlanOverrides padded;
  padded.request.padded_rows = ~u64{0};
  CHECK(ipt::test::try_plan_call(device, {1, 1, 1, 0, ~u64{0}}, padded).refusal ==
        ipt::test::Refusal::kResources);
  padded.request.padded_rows = 5;
  padded.request.padded_cols = u64{1} << 34;
  CHECK(ipt::test::try_plan_call(device, {3, 5, 4, 0, ~u64{0}}, padded).refusal ==
        ipt::test::Refusal::kResources);
}

TEST_CASE("a padded shape whose size passes 2^64 elements is never chosen", "[planner][limits]") {
  // (2k - 1) x (2^32 + k): the square padding's (2^32 + k)^2 elements wrap to about
  // 2^33 k, a little more than the matrix, and were once taken for a 0.05% padding, a
  // plan that lost elements. Found by tests/fuzz/fuzz_planner.cpp under UBSan's
  // unsigned-integer-overflow check.
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    DeviceProfile device = profile.device;
    device.max_alloc_bytes = 0;  // a device that claims any size
    for (u64 k : {u64{1000}, u64{3000}, u64{20000}}) {
      const CallShape call{2 * k - 1, (u64{1} << 32) + k, 1, 0, 0};
      INFO(profile.name << ": " << call_text(call));
      const std::string result = outcome(device, call);
      if (result != "refused") CHECK(result == "");
    }
  }
}

TEST_CASE("an empty matrix is refused at once", "[planner][limits]") {
  // Calls return before planning an empty matrix; ipt_plan once planned it, dividing by
  // the zero side (2^64 - 1 x 0 searched divisors for minutes first). Found by
  // tests/fuzz/fuzz_api.cpp.
  for (const auto& [rows, cols] :
       {std::pair<u64, u64>{0, 5}, {5, 0}, {0, 0}, {~u64{0}, 0}, {0, ~u64{0}}, {100000, 0}}) {
    INFO(rows << " x " << cols);
    const ipt::test::PlanOutcome planned =
        ipt::test::try_plan_call(ipt::test::nvidia_like(), {rows, cols, 4, 0, 0});
    CHECK(planned.refusal == ipt::test::Refusal::kInvalid);
  }
}
