// SPDX-License-Identifier: Apache-2.0
// ipt-kernel-bench plans: the planner's choice of plan against the other two-stage plans
// of the same shape, each timed on the device.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

// For each rows x cols shape, in a buffer of exactly the matrix (`exact_buffer`) or with
// room for any padding: the plan of a call and up to `others` two-stage plans without
// padding (2.1 by each factor of the rows, 2.2 by each factor of the columns, that the
// planner accepts when forced), those the cost model ranks cheapest; with room, also up
// to `others` plans of the padded shapes that the planner weighs (planner::padded_shapes,
// each with the factors the planner chooses for it), the cheapest. Each is timed as the
// stages mode times a call (a warm-up checked on the device when `verify`, then
// `repetitions` runs, the median counts). Prints them fastest first, with the cost
// model's estimate, then how far the planner's plans were from the fastest measured.
// Throughput beside `copy_gbs`. Returns 0, or 1 when a check failed.
int run_plan_choice(const support::Session& session,
                    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes,
                    std::size_t elem_size, int repetitions, double copy_gbs, bool verify,
                    std::size_t others, bool exact_buffer);

}  // namespace ipt::bench
