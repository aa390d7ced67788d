// SPDX-License-Identifier: Apache-2.0
// The kernel families, one row each: the kernels/<source>.cl file, its __kernel function,
// and whether its steps can transform the values they store (transformed_step).
#include "planner/launch_plan.hpp"

namespace ipt::planner {
namespace {

struct FamilyRow {
  Family family;
  const char* source;
  const char* kernel;
  // Stores each value exactly once: restride, BS, square, and SoA (which transforms the
  // super-elements that stay in place apart); not PTTWAC's cycles, nor the on-chip
  // kernel's fallback, which skip the elements that stay.
  bool transforms;
};

constexpr FamilyRow kFamilies[] = {
    {Family::kSquare, "square", "ipt_square_swap", true},
    {Family::kBs, "bs", "ipt_bs_010", true},
    {Family::kPttwac, "pttwac", "ipt_pttwac_010", false},
    {Family::kSoa, "soa_asta", "ipt_soa_100", true},
    {Family::kOnChip, "onchip", "ipt_onchip", false},
    {Family::kRestride, "restride", "ipt_restride", true},
    {Family::kCopy, "copy", "ipt_copy", false},
    {Family::kScale, "scale", "ipt_scale", true},
};

const FamilyRow* row_of(Family family) {
  for (const FamilyRow& row : kFamilies)
    if (row.family == family) return &row;
  return nullptr;
}

}  // namespace

const char* family_source(Family family) {
  const FamilyRow* row = row_of(family);
  return row != nullptr ? row->source : "?";
}

const char* family_kernel(Family family) {
  const FamilyRow* row = row_of(family);
  return row != nullptr ? row->kernel : "?";
}

bool can_transform(const Step& step) {
  const FamilyRow* row = row_of(step.family);
  return !step.noop() && row != nullptr && row->transforms;
}

}  // namespace ipt::planner
