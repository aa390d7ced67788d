// SPDX-License-Identifier: Apache-2.0
#include "api/plan_options.hpp"

#include <optional>
#include <string>

#include "api/validate.hpp"
#include "runtime/error.hpp"

namespace ipt::api {

namespace {

// The planner's sequence that an ipt_sequence value names; none for IPT_SEQUENCE_AUTO,
// IPT_SEQUENCE_ON_CHIP (a planner option, not a sequence) and values outside the enum.
std::optional<planner::Sequence> planner_sequence_of(int sequence) {
  using planner::Sequence;
  switch (sequence) {
    case IPT_SEQUENCE_SQUARE:
      return Sequence::kSquare;
    case IPT_SEQUENCE_ONE_STAGE:
      return Sequence::kOneStage;
    case IPT_SEQUENCE_2_1:
      return Sequence::k21;
    case IPT_SEQUENCE_2_2:
      return Sequence::k22;
    case IPT_SEQUENCE_3_1:
      return Sequence::k31;
    case IPT_SEQUENCE_3_2:
      return Sequence::k32;
    case IPT_SEQUENCE_4_1:
      return Sequence::k41;
    case IPT_SEQUENCE_4_2:
      return Sequence::k42;
    default:
      return std::nullopt;
  }
}

}  // namespace

planner::PlanRequest plan_request_of(const ipt_plan_options* options) {
  planner::PlanRequest request;
  if (options == nullptr) return request;
  const int padding = raw_value(options->padding);
  const int sequence = raw_value(options->sequence);
  switch (padding) {
    case IPT_PADDING_AUTO:
      break;
    case IPT_PADDING_OFF:
      request.padding = planner::Padding::kOff;
      break;
    default:
      fail(IPT_INVALID_VALUE, "unknown ipt_padding " + std::to_string(padding));
  }
  request.padded_rows = options->padded_rows;
  request.padded_cols = options->padded_cols;
  request.m = options->m;
  request.n = options->n;
  if (sequence == IPT_SEQUENCE_AUTO) return request;
  request.auto_sequence = false;
  if (const auto planned = planner_sequence_of(sequence)) {
    request.sequence = *planned;
  } else if (sequence == IPT_SEQUENCE_ON_CHIP) {  // one kernel, its fallback inside
    request.auto_sequence = true;
    request.onchip = planner::OnChip::kForce;
  } else {
    fail(IPT_INVALID_VALUE, "unknown ipt_sequence " + std::to_string(sequence));
  }
  return request;
}

ipt_sequence sequence_of(planner::Sequence sequence) {
  using planner::Sequence;
  switch (sequence) {
    case Sequence::kSquare:
      return IPT_SEQUENCE_SQUARE;
    case Sequence::kOneStage:
      return IPT_SEQUENCE_ONE_STAGE;
    case Sequence::k21:
      return IPT_SEQUENCE_2_1;
    case Sequence::k22:
      return IPT_SEQUENCE_2_2;
    case Sequence::k31:
      return IPT_SEQUENCE_3_1;
    case Sequence::k32:
      return IPT_SEQUENCE_3_2;
    case Sequence::k41:
      return IPT_SEQUENCE_4_1;
    case Sequence::k42:
      return IPT_SEQUENCE_4_2;
  }
  return IPT_SEQUENCE_AUTO;
}

}  // namespace ipt::api

extern "C" const char* ipt_sequence_name(ipt_sequence sequence) {
  const int value = ipt::api::raw_value(sequence);
  if (const auto planned = ipt::api::planner_sequence_of(value))
    return ipt::planner::sequence_name(*planned);
  if (value == IPT_SEQUENCE_AUTO) return "auto";
  if (value == IPT_SEQUENCE_ON_CHIP) return "on-chip";
  return "unknown";
}
