// SPDX-License-Identifier: Apache-2.0
// Copy (kernels/copy.cl): elements between the matrix and scratch, zeroing words on the way.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"

namespace ipt::planner {

using namespace steps;

Step copy_step(const StepSite& site, Buffer from, std::uint64_t from_at, Buffer to,
               std::uint64_t to_at, std::uint64_t count, Region zeroes) {
  check_elem_size(site.elem_size);
  const std::uint64_t zero_words = zeroes.bytes / 4;
  if (count == 0 && zero_words == 0) return nothing(Family::kCopy, "copy: nothing");
  // The matrix's offsets count from its start; the kernel's from its buffer's.
  const std::uint64_t src = from == Buffer::kMatrix ? site.offset + from_at : from_at;
  const std::uint64_t dst = to == Buffer::kMatrix ? site.offset + to_at : to_at;
  const bool index64 = site.index64 || needs_index64(std::max(src, dst), count);
  constexpr std::uint64_t kWorkGroup = 256;
  // A few elements per work-item for large copies; a grid of at most 1024 groups.
  const std::uint64_t items = std::max(count, zero_words);
  const std::uint64_t groups = std::min<std::uint64_t>(1024, (items + kWorkGroup - 1) / kWorkGroup);
  Step step = launch(Family::kCopy, site, index64, "", groups, kWorkGroup);
  step.args = {buffer_arg(from), index_arg(src), buffer_arg(to), index_arg(dst), index_arg(count)};
  add_zeroing(step, zeroes);
  step.touches = std::max(from == Buffer::kMatrix ? from_at + count : 0,
                          to == Buffer::kMatrix ? to_at + count : 0);
  step.move.kind = Move::Kind::kCopy;
  step.move.from = from;
  step.move.to = to;
  step.move.from_at = from_at;
  step.move.to_at = to_at;
  step.move.count = count;
  step.what = std::string(to == Buffer::kMatrix ? "give back " : "keep ") + std::to_string(count) +
              " element(s) past the matrix" + (to == Buffer::kMatrix ? "" : " in scratch");
  return step;
}

// One program for every shape; a split site (its tail in scratch) is never a copy's.
void copy_variants(const DeviceProfile&, const StepSite& at, std::vector<Step>& out) {
  if (at.split != 0) return;
  out.push_back(copy_step(at, Buffer::kMatrix, 0, Buffer::kScratch, 0, 1));
}

}  // namespace ipt::planner
