// SPDX-License-Identifier: Apache-2.0
#include "planner/families/step_building.hpp"

#include <algorithm>
#include <stdexcept>

namespace ipt::planner {
namespace steps {
namespace {

using Kind = KernelArg::Kind;

std::string element_options(std::size_t elem_size, bool index64) {
  return "-DIPT_ELEM_BYTES=" + std::to_string(elem_size) +
         " -DIPT_INDEX_64=" + (index64 ? "1" : "0");
}

}  // namespace

KernelArg buffer_arg(Buffer buffer) { return {Kind::kBuffer, buffer, 0}; }
KernelArg index_arg(std::uint64_t value) { return {Kind::kIndex, Buffer::kNone, value}; }
KernelArg uint_arg(std::uint64_t value) { return {Kind::kUint, Buffer::kNone, value}; }
KernelArg ulong_arg(std::uint64_t value) { return {Kind::kUlong, Buffer::kNone, value}; }
KernelArg local_arg(std::uint64_t bytes) { return {Kind::kLocal, Buffer::kNone, bytes}; }

void check_elem_size(std::size_t elem_size) {
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    throw std::invalid_argument("element size " + std::to_string(elem_size) +
                                " is not 1, 2, 4, 8 or 16");
}

Step with_split(Step step, const StepSite& site) {
  if (site.split == 0 || step.noop()) return step;
  if (site.tail.buffer != Buffer::kScratch || site.tail.offset % site.elem_size != 0)
    throw std::logic_error("a split matrix's tail must be call scratch, aligned");
  step.options += " -DIPT_SPLIT=1";
  step.args.insert(step.args.end(),
                   {buffer_arg(site.tail.buffer), ulong_arg(site.tail.offset / site.elem_size),
                    index_arg(site.split)});
  step.touches = std::min(step.touches, site.split);
  step.tail = site.tail;
  return step;
}

Step launch(Family family, const StepSite& site, bool index64, std::string options,
            std::uint64_t groups, std::uint64_t work_group) {
  Step step;
  step.family = family;
  step.index64 = index64;
  step.unit_bytes = site.elem_size;
  step.options = element_options(site.elem_size, index64) + options;
  step.global[0] = groups * work_group;
  step.local[0] = work_group;
  return step;
}

Step nothing(Family family, const char* what) {
  Step step;
  step.family = family;
  step.what = what;
  return step;
}

Region placed(Region given, Buffer buffer, std::uint64_t bytes) {
  if (given.buffer == Buffer::kNone) return {buffer, 0, bytes};
  if (given.bytes < bytes || given.offset % 16 != 0)
    throw std::logic_error("a scratch region holds fewer than " + std::to_string(bytes) +
                           " bytes or is misplaced");
  return given;
}

void add_zeroing(Step& step, const Region& zeroes) {
  if (zeroes.empty()) {
    step.args.insert(step.args.end(), {buffer_arg(Buffer::kMatrix), ulong_arg(0), ulong_arg(0)});
    return;
  }
  if (zeroes.offset % 4 != 0 || zeroes.bytes % 4 != 0)
    throw std::logic_error("words to zero that are not whole 32-bit words");
  step.zeroes = zeroes;
  step.args.insert(step.args.end(), {buffer_arg(zeroes.buffer), ulong_arg(zeroes.offset / 4),
                                     ulong_arg(zeroes.bytes / 4)});
}

void add_transform(Step& step, const ElementTransform& transform, std::size_t elem_size) {
  if (transform.identity()) return;
  if (scalar_bytes(transform.scalar) != elem_size ||
      (transform.conjugate && !is_complex(transform.scalar)))
    throw std::invalid_argument("a transform of " + std::to_string(elem_size) +
                                "-byte elements that does not fit their scalar type");
  step.options += transform.options();
  step.transformed = true;
  const std::size_t split_args = step.tail.empty() ? 0 : 3;  // with_split's, last
  step.args.insert(step.args.end() - static_cast<std::ptrdiff_t>(split_args),
                   {ulong_arg(transform.alpha[0]), ulong_arg(transform.alpha[1])});
  step.what += ", " + transform.what();
}

std::string shape_text(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ")";
}

Move permute(std::uint64_t I, std::uint64_t A, std::uint64_t B, std::uint64_t C) {
  Move move;
  move.kind = Move::Kind::kPermute;
  move.I = I;
  move.A = A;
  move.B = B;
  move.C = C;
  return move;
}

}  // namespace steps

bool needs_index64(std::uint64_t offset, std::uint64_t elements, bool strides) {
  std::uint64_t end = 0;
  // An extent past 2^64 (a fuzzed offset) needs 64-bit indices too; the allocation
  // checks refuse it afterwards.
  if (__builtin_add_overflow(offset, elements, &end)) return true;
  return end >= (std::uint64_t{1} << (strides ? 31 : 32));
}

Step transformed_step(Step step, const ElementTransform& transform, std::size_t elem_size) {
  if (!can_transform(step))
    throw std::logic_error("a transform asked of " + step.what + ", which stores no value once");
  if (step.transformed) throw std::logic_error("a transform asked twice of " + step.what);
  if (step.unit_bytes != elem_size)
    throw std::logic_error("a transform of " + std::to_string(elem_size) +
                           "-byte elements asked of " + step.what + ", which moves other units");
  steps::add_transform(step, transform, elem_size);
  return step;
}

}  // namespace ipt::planner
