// SPDX-License-Identifier: Apache-2.0
// Checks of launch plans beyond where their elements end (plan_model.hpp's check_plan),
// shared by the planner tests and the planner fuzzer (tests/fuzz) so that both hold
// plans to the same rules: launches the device can take, memory a small fraction of the
// matrix, and only the planner's documented refusals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "planner/launch_plan.hpp"

namespace ipt::test {

// Empty when every step's launch (and every undo step's) is representable and its index
// width follows the one rule (planner::needs_index64), else the first problem.
std::string launch_problem(const planner::LaunchPlan& plan);

// Empty when the call scratch stays within an eighth of the matrix's bytes plus 1 MiB
// (a flag bit per element at most, and the padding): a product that wrapped would ask
// for far more or far less. Else the problem.
std::string scratch_problem(const planner::LaunchPlan& plan, const planner::CallShape& call);

// Bytes a call costs beyond the caller's matrix: call scratch, zero scratch and bytes
// borrowed past the matrix.
std::uint64_t extra_bytes(const planner::LaunchPlan& plan);

// extra_bytes as a fraction of the matrix's bytes.
double extra_fraction(const planner::LaunchPlan& plan, const planner::CallShape& call);

// The bound the project asserts on exact-buffer plans of the GPU profiles
// (test_profiles.hpp): at most 0.6% extra memory for any matrix of 10^6 elements or more.
inline constexpr std::uint64_t kLargeElements = 1000000;
inline constexpr double kLargeExtraFraction = 0.006;

// How plan_call declined a call: one of the exceptions it documents, which the runtime
// turns into a status (src/runtime/transpose.cpp): a launch beyond the device
// (planner::ResourceError: IPT_OUT_OF_RESOURCES), a forced padded shape without room
// (std::length_error: IPT_BUFFER_TOO_SMALL), forced choices that cannot work
// (std::invalid_argument: IPT_INVALID_VALUE).
enum class Refusal { kNone, kResources, kNoRoom, kInvalid };
const char* refusal_name(Refusal refusal);

struct PlanOutcome {
  std::optional<planner::LaunchPlan> plan;  // the plan, or none with the refusal
  Refusal refusal = Refusal::kNone;
  std::string message;  // the refusal's what()
};

// plan_call, with its documented refusals caught; anything else it throws (a
// std::logic_error the runtime reports as IPT_INTERNAL_ERROR) propagates.
PlanOutcome try_plan_call(const planner::DeviceProfile& device, const planner::CallShape& call,
                          const planner::PlanOverrides& overrides = {});

}  // namespace ipt::test
