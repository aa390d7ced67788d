#include "api/plan_options.hpp"

#include <string>

#include "runtime/error.hpp"

namespace ipt::api {

planner::PlanRequest plan_request_of(const ipt_plan_options* options) {
  planner::PlanRequest request;
  if (options == nullptr || options->sequence == IPT_SEQUENCE_AUTO) return request;
  using planner::Sequence;
  request.auto_sequence = false;
  switch (options->sequence) {
    case IPT_SEQUENCE_SQUARE:
      request.sequence = Sequence::kSquare;
      break;
    case IPT_SEQUENCE_ONE_STAGE:
      request.sequence = Sequence::kOneStage;
      break;
    case IPT_SEQUENCE_2_1:
      request.sequence = Sequence::k21;
      break;
    case IPT_SEQUENCE_2_2:
      request.sequence = Sequence::k22;
      break;
    case IPT_SEQUENCE_3_1:
      request.sequence = Sequence::k31;
      break;
    case IPT_SEQUENCE_3_2:
      request.sequence = Sequence::k32;
      break;
    default:
      fail(IPT_INVALID_VALUE,
           "unknown ipt_sequence " + std::to_string(static_cast<int>(options->sequence)));
  }
  request.m = options->m;
  request.n = options->n;
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
  }
  return IPT_SEQUENCE_AUTO;
}

}  // namespace ipt::api
