// SPDX-License-Identifier: Apache-2.0
// One call's launch plan timed on the device, step by step: what ipt-kernel-bench's
// stages and plans modes measure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"
#include "support/device_pattern.hpp"

namespace ipt::bench {

struct PlanTiming {
  std::vector<double> totals;                     // each run, from a marker to its last event
  std::vector<std::vector<double>> step_seconds;  // each step's kernel, each run
  std::string check;                              // "ok", "off" or "WRONG: ..."
  bool wrong() const { return check.rfind("WRONG", 0) == 0; }
};

// Runs `prepared` (the plan of a rows x cols call) on a new buffer of exactly the matrix
// (`exact_buffer`: a padded plan keeps its extra elements in scratch) or with room for
// its padding, filled on the device from `seed`: one warm-up, checked on the device when
// `verify` (the matrix transposed, the bytes past it as they were), then `repetitions`
// timed runs.
PlanTiming time_plan(const cl::CommandQueue& queue, const cl::Context& context,
                     support::DevicePattern& pattern, const runtime::PreparedPlan& prepared,
                     std::uint64_t rows, std::uint64_t cols, std::size_t elem_size, int repetitions,
                     bool verify, bool exact_buffer, std::uint64_t seed);

}  // namespace ipt::bench
