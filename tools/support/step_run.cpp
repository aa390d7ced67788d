// SPDX-License-Identifier: Apache-2.0
#include "support/step_run.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "support/host_reference.hpp"

namespace ipt::support {

std::uint64_t moved_elements(const planner::Move& move) {
  using Kind = planner::Move::Kind;
  if (move.kind == Kind::kPermute) return move.I * move.A * move.B * move.C;
  if (move.kind == Kind::kRestride) return move.rows * move.len;
  return move.count;
}

std::vector<unsigned char> reference_of(const std::vector<unsigned char>& in,
                                        const planner::Move& move, std::size_t elem_size) {
  using Kind = planner::Move::Kind;
  if (move.kind == Kind::kPermute) {
    const std::size_t bytes = static_cast<std::size_t>(moved_elements(move)) * elem_size;
    if (in.size() < bytes) throw std::invalid_argument("reference_of: too few bytes");
    std::vector<unsigned char> head(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(bytes));
    std::vector<unsigned char> out = in;
    const auto moved = permute_0100(head, move.I, move.A, move.B, move.C, elem_size);
    std::copy(moved.begin(), moved.end(), out.begin());
    return out;
  }
  if (move.kind == Kind::kRestride) {
    std::vector<unsigned char> out = in;
    const std::size_t row = static_cast<std::size_t>(move.len) * elem_size;
    const std::uint64_t extent = move.rows * std::max(move.s_in, move.s_out);
    if (in.size() < extent * elem_size) throw std::invalid_argument("reference_of: too few bytes");
    for (std::uint64_t r = 0; r < move.rows; ++r)
      std::memcpy(out.data() + r * move.s_out * elem_size, in.data() + r * move.s_in * elem_size,
                  row);
    return out;
  }
  throw std::invalid_argument("reference_of: a copy involves scratch, not modelled here");
}

cl::Event run_steps(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                    std::vector<planner::Step> steps, std::size_t elem_size, std::uint64_t offset,
                    const std::vector<cl::Event>& wait, const runtime::EnqueueOptions& options) {
  const runtime::PreparedPlan prepared =
      runtime::prepare_plan(queue, planner::plan_of_steps(std::move(steps), elem_size, offset));
  return runtime::enqueue_plan(queue, buffer, prepared, wait, options);
}

}  // namespace ipt::support
