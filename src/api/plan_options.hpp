// SPDX-License-Identifier: Apache-2.0
// Conversions between the C API's plan types (ipt_plan_options, ipt_sequence) and the
// planner's, with their validation; the .cpp also defines ipt_sequence_name from them.
#pragma once

#include "ipt/ipt.h"
#include "planner/transpose_plan.hpp"

namespace ipt::api {

// The planner request for `options` (NULL or IPT_SEQUENCE_AUTO: automatic, with `m`, `n`
// still honoured as hints for nothing). Throws ipt::Error(IPT_INVALID_VALUE) for a
// sequence outside the enum.
planner::PlanRequest plan_request_of(const ipt_plan_options* options);

ipt_sequence sequence_of(planner::Sequence sequence);

}  // namespace ipt::api
