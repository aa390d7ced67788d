// ipt-kernel-bench stages: where the time of a whole transposition goes, stage by stage.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

// Runs the automatic plan of each rows x cols shape (random data, one warm-up, then
// `repetitions` timed runs) and prints, per stage, its kernel's median time and its
// throughput 2 * rows * cols * elem_size / t beside `copy_gbs`, and what the whole call
// took from a marker to its last event (fills, launch gaps included). Returns 0.
int run_stage_profile(const support::Session& session,
                      const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes,
                      std::size_t elem_size, int repetitions, double copy_gbs);

}  // namespace ipt::bench
