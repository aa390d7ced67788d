// SPDX-License-Identifier: Apache-2.0
// ipt-kernel-bench stages: where the time of a whole transposition goes, step by step.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

// Runs the launch plan of a call for each rows x cols shape in a buffer of exactly the
// matrix (`exact_buffer`: a padded plan keeps its extra elements in scratch) or with room
// for any padding (every step: copies of the borrowed bytes, padding, stages, unpadding),
// prepared once: one warm-up, checked on the device when `verify` (the matrix
// transposed, the bytes past it as they were), then `repetitions` timed runs. Prints,
// per step, its kernel's median time and its throughput 2 * rows * cols * elem_size / t
// beside `copy_gbs`, and what the whole call took from a marker to its last event
// (fills, launch gaps included). Returns 0, or 1 when a check failed.
int run_stage_profile(const support::Session& session,
                      const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes,
                      std::size_t elem_size, int repetitions, double copy_gbs, bool verify,
                      bool exact_buffer);

}  // namespace ipt::bench
