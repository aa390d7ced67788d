// Caller-forced planning choices (tests, tuning). Zero means "let the planner choose".
// Parsed from the IPT_OVERRIDES environment variable by the runtime.
#pragma once

#include <cstddef>

#include "planner/transpose_plan.hpp"

namespace ipt::planner {

struct PlanOverrides {
  std::size_t square_tile = 0;     // TILE of kernels/square.cl
  std::size_t square_wg_rows = 0;  // WG_ROWS of kernels/square.cl
  PlanRequest request;             // forced sequence and factors m, n
  bool onchip_abort = false;       // on-chip attempts always give up (tests of the fallback)
};

}  // namespace ipt::planner
