// SPDX-License-Identifier: Apache-2.0
// Undoing a call part-way (planner::rollback_plan): for every plan class and every point
// at which a command can fail, the steps already enqueued followed by their undo leave
// every element, and every borrowed byte past the matrix, where it started (host model,
// plan_model.hpp), on the scratch the plan already holds.
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "helpers/plan_model.hpp"
#include "helpers/random_shapes.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/launch_plan.hpp"

using namespace ipt::planner;
using ipt::test::random_call;

namespace {

using u64 = std::uint64_t;

constexpr u64 kUnlimited = ~u64{0};
constexpr std::size_t kElemSizes[] = {1, 2, 4, 8, 16};

std::string call_text(const char* profile, const CallShape& call) {
  return std::string(profile) + ", " + std::to_string(call.rows) + " x " +
         std::to_string(call.cols) + ", elem_size " + std::to_string(call.elem_size) + ", offset " +
         std::to_string(call.offset) + ", capacity " +
         (call.capacity == kUnlimited ? std::string("unlimited") : std::to_string(call.capacity));
}

// Empty if every prefix of the plan rolls back (the last step has no undo: see
// LaunchPlan::undo), else the first problem with the call and the plan.
std::string rollback_problem(const char* profile, const LaunchPlan& plan, const CallShape& call,
                             u64 max_full, u64 samples, u64 seed = 1) {
  const std::size_t steps = plan.steps.size();
  const std::string where = "\n  in " + call_text(profile, call) + "\n  " + describe(plan);
  if (plan.undo.size() + 1 != steps && !(steps == 0 && plan.undo.empty()))
    return std::to_string(plan.undo.size()) + " undo steps for " + std::to_string(steps) +
           " steps" + where;
  for (std::size_t i = 0; i < plan.undo.size(); ++i) {
    const Step& undo = plan.undo[i];
    // Nothing zeroes an undo step's flags but its own fill; it zeroes nothing for others.
    if (!undo.zeroes.empty()) return "undo " + std::to_string(i) + " zeroes words" + where;
    if (undo.flags.bytes != undo.fill_before.bytes ||
        undo.flags.offset != undo.fill_before.offset ||
        undo.flags.buffer != undo.fill_before.buffer)
      return "undo " + std::to_string(i) + " does not fill its own flags" + where;
  }
  // The plan itself transposes: steps that moved nothing, undone by undo steps that move
  // nothing, would pass every rollback below.
  if (std::string bad =
          check_plan(plan, call.rows, call.cols, call.capacity, max_full, samples, seed);
      !bad.empty())
    return "the plan: " + bad + where;
  for (std::size_t done = 1; done < steps; ++done) {
    const std::string problem =
        check_rollback(plan, done, call.rows, call.cols, call.capacity, max_full, samples, seed);
    if (!problem.empty()) return problem + where;
  }
  return "";
}

std::string full_rollback_problem(const char* profile, const LaunchPlan& plan,
                                  const CallShape& call) {
  return rollback_problem(profile, plan, call, kUnlimited, 0);
}

PlanOverrides forced(Sequence sequence) {
  PlanOverrides overrides;
  overrides.request.auto_sequence = false;
  overrides.request.sequence = sequence;
  return overrides;
}

}  // namespace

TEST_CASE("every prefix of 2 x 10^4 random plans rolls back", "[planner][rollback]") {
  constexpr u64 kShapes = 20000, kMaxFull = 4096, kSamples = 128;
  const auto devices = ipt::test::gpu_profiles();
  const u64 per_combination = kShapes / (devices.size() * std::size(kElemSizes));
  IPT_TEST_SEED(seed, 20261125);
  std::mt19937_64 random(seed);
  u64 multi_step = 0;
  for (const ipt::test::NamedProfile& profile : devices) {
    for (std::size_t elem_size : kElemSizes) {
      for (u64 k = 0; k < per_combination; ++k) {
        CallShape call = random_call(random, elem_size);
        for (u64 capacity : {call.rows * call.cols, kUnlimited}) {
          call.capacity = capacity;
          LaunchPlan plan;
          try {
            plan = plan_call(profile.device, call);
          } catch (const ResourceError&) {
            continue;  // beyond the kernels' counters (test_plan_model.cpp checks when)
          }
          REQUIRE(rollback_problem(profile.name, plan, call, kMaxFull, kSamples, k) == "");
          if (plan.steps.size() > 1) ++multi_step;
        }
      }
    }
  }
  CHECK(multi_step > kShapes / 2);
}

TEST_CASE("each sequence, forced, rolls back from every step, every element",
          "[planner][rollback]") {
  const Sequence sequences[] = {Sequence::kOneStage, Sequence::k21, Sequence::k22, Sequence::k31,
                                Sequence::k32,       Sequence::k41, Sequence::k42};
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (Sequence sequence : sequences) {
      INFO("sequence " << sequence_name(sequence));
      int planned = 0;
      for (std::size_t elem_size : kElemSizes) {
        for (auto [rows, cols] : {std::pair<u64, u64>{1000, 600}, {96, 80}, {36, 2000}}) {
          const CallShape call{rows, cols, elem_size, 3, 0};
          LaunchPlan plan;
          try {
            plan = plan_call(profile.device, call, forced(sequence));
          } catch (const std::invalid_argument&) {
            continue;  // no factors whose tiles fit this element size
          }
          REQUIRE(full_rollback_problem(profile.name, plan, call) == "");
          ++planned;
        }
      }
      CHECK(planned >= 6);
    }
  }
}

TEST_CASE("padded plans roll back, borrowed or split, every element", "[planner][rollback]") {
  PlanOverrides no_onchip;
  no_onchip.request.onchip = OnChip::kOff;
  const std::pair<u64, u64> shapes[] = {{1009, 991}, {991, 1009}, {10007, 211}, {211, 10007}};
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (std::size_t elem_size : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
      for (auto [rows, cols] : shapes) {
        for (u64 capacity : {u64{0}, kUnlimited}) {
          const CallShape call{rows, cols, elem_size, 5, capacity};
          const LaunchPlan plan = plan_call(profile.device, call, no_onchip);
          CHECK(plan.transpose.padded());
          CHECK((plan.split != 0) == (capacity == 0));
          CHECK(plan.steps.size() >= 3);
          // Every element of the smaller ones; 2 * 10^4 of each larger one.
          const u64 max_full = rows * cols < 1500000 / elem_size ? kUnlimited : 0;
          REQUIRE(rollback_problem(profile.name, plan, call, max_full, 20000) == "");
        }
      }
    }
  }
}

TEST_CASE("a square padded to a larger square rolls back", "[planner][rollback]") {
  PlanOverrides padded;
  padded.request.padded_rows = padded.request.padded_cols = 1013;
  for (u64 capacity : {u64{1013 * 1013}, kUnlimited}) {
    const CallShape call{1009, 1013, 4, 0, capacity};
    const LaunchPlan plan = plan_call(ipt::test::nvidia_like(), call, padded);
    CHECK(plan.transpose.sequence == Sequence::kSquare);
    CHECK(full_rollback_problem("NVIDIA-like", plan, call) == "");
  }
}

TEST_CASE("plans with on-chip 010! stages roll back", "[planner][rollback]") {
  // Shapes of the random protocol whose NVIDIA-like plans run the on-chip kernel in a
  // stage, in buffers of exactly the matrix and with room.
  const std::pair<u64, u64> shapes[] = {{17887, 5910}, {19101, 1519}, {13591, 9429}, {7908, 7043}};
  const DeviceProfile device = ipt::test::nvidia_like();
  int onchip = 0;
  for (auto [rows, cols] : shapes) {
    for (u64 capacity : {u64{0}, kUnlimited}) {
      const CallShape call{rows, cols, 4, 0, capacity};
      const LaunchPlan plan = plan_call(device, call);
      if (plan.uses_onchip()) ++onchip;
      REQUIRE(rollback_problem("NVIDIA-like", plan, call, 0, 20000) == "");
    }
  }
  CHECK(onchip >= 6);
}

TEST_CASE("an on-chip step whose inverse runs another program is undone by cycle following",
          "[planner][rollback]") {
  // 1- and 2-byte stages in blocks whose inverse shape takes none (its rows not a multiple
  // of the block), split or not: the undo runs the kernel's cycle following alone, a
  // program of its own that builds fast, instead of an inverse in word tiles or element by
  // element. Where the inverse runs the forward's program (floats), it stays the undo.
  const DeviceProfile device = ipt::test::nvidia_like();
  int cycles = 0, shared = 0;
  for (const auto& [rows, cols, elem_size] :
       std::vector<std::tuple<u64, u64, std::size_t>>{{6762, 13709, 1},
                                                      {7811, 7167, 1},
                                                      {6763, 13709, 2},
                                                      {17887, 5910, 4},
                                                      {19101, 1519, 4}}) {
    for (u64 capacity : {u64{0}, kUnlimited}) {
      CallShape call{rows, cols, elem_size, 0, capacity};
      call.undo_last = true;
      const LaunchPlan plan = plan_call(device, call);
      INFO(call_text("NVIDIA-like", call) << "\n  " << describe(plan));
      REQUIRE(plan.undo.size() == plan.steps.size());
      for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const Step &step = plan.steps[i], &undo = plan.undo[i];
        if (step.family != Family::kOnChip) continue;
        INFO(step.what << " [" << step.options << "], undone by " << undo.what << " ["
                       << undo.options << "]");
        const bool by_cycles = undo.options.find("-DIPT_CYCLES_ONLY=1") != std::string::npos;
        CHECK(by_cycles == (undo.options != step.options));
        CHECK(undo.family == Family::kOnChip);
        CHECK(undo.move.I * undo.move.A * undo.move.B == step.move.I * step.move.A * step.move.B);
        cycles += by_cycles;
        shared += !by_cycles;
      }
      for (std::size_t done = 1; done <= plan.steps.size(); ++done)
        CHECK(check_rollback(plan, done, rows, cols, capacity, 0, 20000) == "");
    }
  }
  CHECK(cycles >= 6);
  CHECK(shared >= 2);
}

TEST_CASE("a plan with no undo for a step refuses to roll back past it", "[planner][rollback]") {
  const CallShape call{1000, 600, 4, 0, 0};
  LaunchPlan plan = plan_call(ipt::test::nvidia_like(), call, forced(Sequence::k31));
  REQUIRE(plan.steps.size() == 3);
  CHECK_THROWS_AS(rollback_plan(plan, 3), std::logic_error);
  CHECK(check_rollback(plan, 2, 1000, 600, 0) == "");
  // An undo that does not invert its step: the model sees the elements misplaced.
  std::swap(plan.undo[0], plan.undo[1]);
  CHECK(check_rollback(plan, 2, 1000, 600, 0) != "");
  // An undo whose flags nothing zeroes.
  plan = plan_call(ipt::test::nvidia_like(), call, forced(Sequence::k31));
  bool cleared = false;
  for (Step& undo : plan.undo)
    if (!undo.fill_before.empty()) {
      undo.fill_before = {};
      cleared = true;
    }
  REQUIRE(cleared);
  CHECK(check_rollback(plan, 2, 1000, 600, 0) != "");
}
