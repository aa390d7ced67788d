#include "planner/host_slicing.hpp"

#include <stdexcept>
#include <string>

#include "planner/transpose_plan.hpp"

namespace ipt::planner {
namespace {

std::uint64_t slice_factor(std::uint64_t side, unsigned slices) {
  std::uint64_t best = 1;
  for (const std::uint64_t d : divisors(side))
    if (d <= kSliceFactor && side / d >= slices) best = d;
  return best;
}

std::vector<std::uint64_t> cuts(std::uint64_t blocks, unsigned slices) {
  std::vector<std::uint64_t> at(slices + 1);
  for (unsigned q = 0; q <= slices; ++q) at[q] = blocks * q / slices;
  return at;
}

}  // namespace

Stage HostSlicing::middle() const { return {Stage::Kind::k0100, 1, rows / m, cols / n, n * m}; }

Stage HostSlicing::last(std::uint64_t first, std::uint64_t end) const {
  return {Stage::Kind::k0100, end - first, rows / m, n, m};
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

}  // namespace ipt::planner
