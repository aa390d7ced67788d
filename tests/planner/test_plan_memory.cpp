// SPDX-License-Identifier: Apache-2.0
// The memory a call costs beyond the caller's matrix (call scratch, zeroed scratch and
// bytes borrowed past the matrix), over 10^5 random calls with buffers of exactly the
// matrix, as an NVIDIA-like and an AMD-like device would plan them: at most 0.1% of the
// matrix at the median of the random protocol and 0.6% for any matrix of 10^6 elements or
// more; and no plan that follows single-element cycles where another plan fits.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "helpers/plan_checks.hpp"
#include "helpers/random_shapes.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/launch_plan.hpp"

using namespace ipt::planner;
using ipt::test::extra_fraction;

namespace {

using u64 = std::uint64_t;

std::string call_text(const char* profile, const CallShape& call) {
  return std::string(profile) + ", " + std::to_string(call.rows) + " x " +
         std::to_string(call.cols) + ", elem_size " + std::to_string(call.elem_size) + ", offset " +
         std::to_string(call.offset);
}

// Kernels count items in 32 bits: only matrices far beyond 2^32 elements are refused.
std::optional<LaunchPlan> plan_or_refusal(const DeviceProfile& device, const CallShape& call) {
  try {
    return plan_call(device, call, {});
  } catch (const ResourceError& e) {
    INFO(e.what());
    CHECK(call.rows * call.cols > (u64{1} << 32));
    return std::nullopt;
  }
}

// A plan whose one kernel follows the cycles of single elements across the matrix.
bool single_element_cycles(const LaunchPlan& plan) {
  return plan.transpose.sequence == Sequence::kOneStage && !plan.transpose.onchip &&
         !plan.steps.empty();
}

}  // namespace

TEST_CASE("exact-buffer plans of 10^5 random calls stay within the memory bounds",
          "[planner][memory][large]") {
  constexpr u64 kShapes = 100000, kLarge = ipt::test::kLargeElements;
  constexpr double kLargeBound = ipt::test::kLargeExtraFraction;
  constexpr std::size_t kElemSizes[] = {1, 2, 4, 8, 16};
  const auto devices = ipt::test::gpu_profiles();
  const u64 per_combination = kShapes / (devices.size() * std::size(kElemSizes));
  IPT_TEST_SEED(seed, 20261125);
  std::mt19937_64 random(seed);
  u64 planned = 0, large = 0;
  for (const ipt::test::NamedProfile& profile : devices) {
    for (std::size_t elem_size : kElemSizes) {
      for (u64 k = 0; k < per_combination; ++k) {
        const CallShape call = ipt::test::random_call(random, elem_size);
        const std::optional<LaunchPlan> plan = plan_or_refusal(profile.device, call);
        if (!plan) continue;
        ++planned;
        INFO(call_text(profile.name, call) << "\n  " << describe(*plan));
        REQUIRE_FALSE(single_element_cycles(*plan));
        if (call.rows * call.cols < kLarge) continue;
        ++large;
        REQUIRE(extra_fraction(*plan, call) <= kLargeBound);
      }
    }
  }
  CHECK(planned * 100 > 99 * kShapes);
  CHECK(large * 3 > kShapes);  // the bound saw many large matrices
}

TEST_CASE("the large benchmark shapes cost at most 0.6% more memory", "[planner][memory]") {
  const std::pair<u64, u64> shapes[] = {
      {65537, 65539}, {100003, 43003}, {90001, 100003}, {3, 1431655769}, {46349, 46349}};
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles())
    for (std::size_t elem_size : {4, 8})
      for (auto [rows, cols] : shapes) {
        CallShape call;
        call.rows = rows;
        call.cols = cols;
        call.elem_size = elem_size;
        const LaunchPlan plan = plan_call(profile.device, call, {});
        INFO(call_text(profile.name, call) << "\n  " << describe(plan));
        CHECK_FALSE(single_element_cycles(plan));
        CHECK(extra_fraction(plan, call) <= ipt::test::kLargeExtraFraction);
      }
}

// The room ipt_padded_size asks for: what the plan of a buffer without limit borrows
// past the matrix (src/api/transpose_api.cpp).
std::uint64_t padded_buffer_elements(const DeviceProfile& device, CallShape call) {
  call.capacity = kNoBuffer;
  return call.rows * call.cols + plan_call(device, call, {}).borrowed_bytes / call.elem_size;
}

TEST_CASE("buffers of ipt_padded_size bytes cost at most 0.6% more memory with their room",
          "[planner][memory]") {
  // The room past the matrix counts, and so does its copy in scratch. 10319 x 11429 once
  // took 0.98% with such a buffer: padded to 10368 x 11429, 0.47% of room plus 0.51% of
  // scratch. Where borrowing passes the bound, ipt_padded_size asks for no room and the
  // call keeps its padding in scratch, as in a buffer of just the matrix.
  constexpr u64 kShapes = 4000;
  IPT_TEST_SEED(seed, 20261129);
  std::mt19937_64 random(seed);
  u64 large = 0, borrowing = 0;
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (u64 k = 0; k < kShapes; ++k) {
      CallShape call = ipt::test::random_call(random, std::size_t{1} << (k % 5));
      if (k == 0) {
        call.rows = 10319;
        call.cols = 11429;
        call.elem_size = 4;
      }
      if (call.rows * call.cols < ipt::test::kLargeElements) continue;
      if (call.rows * call.cols > (u64{1} << 32)) continue;  // plan_or_refusal's refusals
      ++large;
      const u64 matrix = call.rows * call.cols;
      call.capacity = padded_buffer_elements(profile.device, call);
      const LaunchPlan plan = plan_call(profile.device, call, {});
      INFO(call_text(profile.name, call)
           << ", capacity " << call.capacity << "\n  " << describe(plan));
      // The call borrows all the room it was sized for, or there is none.
      REQUIRE(plan.borrowed_bytes == (call.capacity - matrix) * call.elem_size);
      borrowing += plan.borrowed_bytes != 0;
      const double room = static_cast<double>((call.capacity - matrix) * call.elem_size);
      REQUIRE((room + static_cast<double>(plan.scratch_bytes + plan.zero_scratch_bytes)) /
                  (static_cast<double>(matrix) * static_cast<double>(call.elem_size)) <=
              ipt::test::kLargeExtraFraction);
    }
  }
  CHECK(large * 2 > kShapes);
  CHECK(borrowing * 20 > large);  // padded plans that borrow are among them
}

TEST_CASE("padding leaves room for the flags of 1-byte elements within 0.6%", "[planner][memory]") {
  // Up to 0.5% of padding with a flag bit per super-element of 96 bytes (0.13%) once took
  // 0.65% and 0.63% for these shapes on the NVIDIA-like profile. Found by
  // tests/fuzz/fuzz_planner.cpp.
  const std::pair<u64, u64> shapes[] = {{44922, 56554}, {48841, 44333}};
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles())
    for (auto [rows, cols] : shapes) {
      CallShape call;
      call.rows = rows;
      call.cols = cols;
      call.elem_size = 1;
      const LaunchPlan plan = plan_call(profile.device, call, {});
      INFO(call_text(profile.name, call) << "\n  " << describe(plan));
      CHECK_FALSE(single_element_cycles(plan));
      CHECK(extra_fraction(plan, call) <= ipt::test::kLargeExtraFraction);
    }
  // Where the flags alone take more than the padding leaves, no padding is left: the
  // budget of padding once went negative here, and the planner converted it to an
  // unsigned count (undefined; UBSan's float-cast-overflow check in the fuzz build).
  DeviceProfile small;
  small.simd_width = 1;
  CallShape call;
  call.rows = 504;
  call.cols = 2221;
  call.elem_size = 1;
  const LaunchPlan plan = plan_call(small, call, {});
  INFO(describe(plan));
  CHECK(plan.transpose.padded_elements() - call.rows * call.cols <= call.rows * call.cols / 200);
}

TEST_CASE("the random protocol's median extra memory is at most 0.1% of the matrix",
          "[planner][memory]") {
  constexpr u64 kShapes = 10000;
  constexpr double kMedianBound = 0.001;
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (std::size_t elem_size : {4, 8}) {
      IPT_TEST_SEED(seed, elem_size);
      std::mt19937_64 random(seed);
      std::vector<double> fractions;
      for (u64 k = 0; k < kShapes; ++k) {
        const CallShape call = ipt::test::protocol_call(random, elem_size);
        fractions.push_back(extra_fraction(plan_call(profile.device, call, {}), call));
      }
      std::nth_element(fractions.begin(), fractions.begin() + kShapes / 2, fractions.end());
      INFO(profile.name << ", elem_size " << elem_size);
      CHECK(fractions[kShapes / 2] <= kMedianBound);
    }
  }
}
