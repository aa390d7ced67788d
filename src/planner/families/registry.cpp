// SPDX-License-Identifier: Apache-2.0
// The kernel families, one row each: the kernels/<source>.cl file, its __kernel function,
// whether its steps can transform the values they store (transformed_step), and its
// kernel variants (families/variants.hpp).
#include "planner/families/variants.hpp"
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
  FamilyVariants variants;
};

constexpr FamilyRow kFamilies[] = {
    {Family::kSquare, "square", "ipt_square_swap", true, square_variants},
    {Family::kBs, "bs", "ipt_bs_010", true, bs_variants},
    {Family::kPttwac, "pttwac", "ipt_pttwac_010", false, nullptr},
    {Family::kSoa, "soa_asta", "ipt_soa_100", true, soa_variants},
    {Family::kOnChip, "onchip", "ipt_onchip", false, onchip_variants},
    {Family::kRestride, "restride", "ipt_restride", true, restride_variants},
    {Family::kCopy, "copy", "ipt_copy", false, copy_variants},
    {Family::kScale, "scale", "ipt_scale", true, nullptr},
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

FamilyVariants family_variants(Family family) {
  const FamilyRow* row = row_of(family);
  return row != nullptr ? row->variants : nullptr;
}

std::vector<FamilyVariants> every_family_variants() {
  std::vector<FamilyVariants> all;
  for (const FamilyRow& row : kFamilies)
    if (row.variants != nullptr) all.push_back(row.variants);
  return all;
}

bool can_transform(const Step& step) {
  const FamilyRow* row = row_of(step.family);
  return !step.noop() && row != nullptr && row->transforms;
}

}  // namespace ipt::planner
