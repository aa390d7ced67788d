// SPDX-License-Identifier: Apache-2.0
#include "helpers/step_check.hpp"

#include "helpers/test_support.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "support/step_run.hpp"

namespace ipt::test {

planner::StepSite site_of(std::size_t elem_size, std::uint64_t offset, bool index64) {
  return {elem_size, offset, device_local_mem(), index64};
}

std::uint64_t row_length_of(const planner::Move& move) {
  switch (move.kind) {
    case planner::Move::Kind::kPermute:
      return move.B * move.C;
    case planner::Move::Kind::kRestride:
      return move.s_in;
    case planner::Move::Kind::kCopy:
      break;
  }
  return 0;
}

std::string check_steps(const std::vector<planner::Step>& steps, const planner::StepSite& site,
                        std::uint64_t elements, std::size_t after_bytes, std::uint64_t seed,
                        const runtime::EnqueueOptions& options) {
  const std::size_t elem_size = site.elem_size;
  // The data's rows are the first move's, so that no element equals its neighbours there
  // (GuardedMatrix separates them); only check_holds follows, which reads the shape as
  // `elements` elements.
  std::uint64_t row = steps.empty() ? 0 : row_length_of(steps.front().move);
  if (row == 0 || elements % row != 0) row = elements;
  GuardedMatrix m(static_cast<std::size_t>(row == 0 ? 1 : elements / row),
                  static_cast<std::size_t>(row), elem_size, static_cast<std::size_t>(site.offset),
                  after_bytes, seed);
  std::vector<unsigned char> expected = m.matrix_before();
  for (const planner::Step& step : steps) {
    if (step.touches > elements)
      return "a step touches " + std::to_string(step.touches) + " elements, the matrix has " +
             std::to_string(elements);
    expected = support::reference_of(expected, step.move, elem_size);
  }
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(m.buffer(), true);
  try {
    support::run_steps(queue, buffer, steps, elem_size, site.offset, {}, options).wait();
  } catch (const Error& e) {
    return "refused (status " + std::to_string(e.status()) + "): " + e.what();
  }
  return m.check_holds(expected);
}

std::string check_step(const planner::Step& step, const planner::StepSite& site,
                       std::uint64_t elements, std::size_t after_bytes, std::uint64_t seed,
                       const runtime::EnqueueOptions& options) {
  return check_steps({step}, site, elements, after_bytes, seed, options);
}

std::string check_refused(const planner::Step& step, const planner::StepSite& site,
                          std::uint64_t elements, std::size_t after_bytes, std::uint64_t seed) {
  GuardedMatrix m(1, static_cast<std::size_t>(elements), site.elem_size,
                  static_cast<std::size_t>(site.offset), after_bytes, seed);
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(m.buffer(), true);
  try {
    support::run_steps(queue, buffer, {step}, site.elem_size, site.offset).wait();
    return "accepted: " + step.what;
  } catch (const Error& e) {
    if (e.status() != IPT_OUT_OF_RESOURCES)
      return "refused with status " + std::to_string(e.status()) + ": " + e.what();
  }
  return m.check_unchanged();
}

}  // namespace ipt::test
