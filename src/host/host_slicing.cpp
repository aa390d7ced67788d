// SPDX-License-Identifier: Apache-2.0
#include "host/host_slicing.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/transpose_plan.hpp"

namespace ipt::host {
namespace {

std::uint64_t slice_factor(std::uint64_t side, unsigned slices) {
  std::uint64_t best = 1;
  for (const std::uint64_t d : planner::divisors(side))
    if (d <= kSliceFactor && side / d >= slices) best = d;
  return best;
}

std::vector<std::uint64_t> cuts(std::uint64_t blocks, unsigned slices) {
  std::vector<std::uint64_t> at(slices + 1);
  for (unsigned q = 0; q <= slices; ++q) at[q] = blocks * q / slices;
  return at;
}

}  // namespace

planner::Stage HostSlicing::middle() const {
  return {planner::Stage::Kind::k0100, 1, rows / m, cols / n, n * m};
}

planner::Stage HostSlicing::last(std::uint64_t first, std::uint64_t end) const {
  return {planner::Stage::Kind::k0100, end - first, rows / m, n, m};
}

HostSlicing plan_host_slicing(std::uint64_t rows, std::uint64_t cols, unsigned slices) {
  if (slices == 0 || slices > kMaxHostSlices || rows == 0 || cols == 0)
    throw std::invalid_argument("no slicing of " + std::to_string(rows) + " x " +
                                std::to_string(cols) + " into " + std::to_string(slices) +
                                " slices");
  HostSlicing slicing;
  slicing.rows = rows;
  slicing.cols = cols;
  slicing.m = slice_factor(rows, slices);
  slicing.n = slice_factor(cols, slices);
  if (slicing.m * slicing.n < kMinSliceSuper) slicing.m = slicing.n = 1;
  slicing.upload = cuts(rows / slicing.m, slices);
  slicing.download = cuts(cols / slicing.n, slices);
  return slicing;
}

HostSlicing plan_host_streaming(std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
                                std::uint64_t part_bytes) {
  if (rows == 0 || cols == 0 || elem_size == 0 || part_bytes == 0)
    throw std::invalid_argument("no streaming of " + std::to_string(rows) + " x " +
                                std::to_string(cols) + " in parts of " +
                                std::to_string(part_bytes) + " bytes");
  // The largest divisor of `side` up to kStreamFactor whose block of `other` fits a part.
  const auto factor = [&](std::uint64_t side, std::uint64_t other) {
    std::uint64_t best = 1;
    for (const std::uint64_t d : planner::divisors(side))
      if (d <= kStreamFactor && d * other * elem_size <= part_bytes) best = d;
    return best;
  };
  HostSlicing slicing;
  slicing.rows = rows;
  slicing.cols = cols;
  slicing.m = factor(rows, cols);
  slicing.n = factor(cols, rows);
  if (slicing.m * slicing.n < kMinSliceSuper || slicing.m * cols * elem_size > part_bytes ||
      slicing.n * rows * elem_size > part_bytes)
    slicing.m = slicing.n = 1;
  // Parts of as many whole blocks as fit.
  const auto parts = [&](std::uint64_t blocks, std::uint64_t block_bytes) {
    const std::uint64_t per_part = std::max<std::uint64_t>(1, part_bytes / block_bytes);
    std::vector<std::uint64_t> at;
    for (std::uint64_t b = 0; b < blocks; b += per_part) at.push_back(b);
    at.push_back(blocks);
    return at;
  };
  slicing.upload = parts(rows / slicing.m, slicing.m * cols * elem_size);
  slicing.download = parts(cols / slicing.n, slicing.n * rows * elem_size);
  return slicing;
}

}  // namespace ipt::host
