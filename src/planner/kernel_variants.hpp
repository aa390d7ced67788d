// SPDX-License-Identifier: Apache-2.0
// The kernel programs of an element size: every (family, build options) pair that the
// library's own plans can launch for elements of that size on a device, so that the
// runtime can build them all at once, before any call needs one, and no call of a new
// shape ever waits for a compiler (a GPU driver takes 0.1-1.4 s to build one program).
//
// Shape-dependent values are kernel arguments; what stays a build option takes a few
// values per element size: the SoA unit width and its register count (a power of two),
// the on-chip tile shape, the restride chunk, and whether the matrix is split (a padded
// plan on an exact buffer) or needs 64-bit indices. Not included: what only forced plans
// use (IPT_OVERRIDES, ipt_plan_options: tile sizes and layouts of their own, PTTWAC, whose
// 010! tiles the planner never chooses: they fit BS tiles or go on chip) and imatcopy's
// scalar transforms, which depend on the scalar type, not the shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::planner {

struct KernelVariant {
  Family family = Family::kCopy;
  std::string options;                // as Step::options
  std::uint32_t groups_per_unit = 0;  // as Step::groups_per_unit

  bool operator<(const KernelVariant& other) const {
    return std::tie(family, options, groups_per_unit) <
           std::tie(other.family, other.options, other.groups_per_unit);
  }
  bool operator==(const KernelVariant& other) const {
    return family == other.family && options == other.options &&
           groups_per_unit == other.groups_per_unit;
  }
};

// The variant a step launches (its transform's options included, if any).
KernelVariant variant_of(const Step& step);

// The steps the variants below are those of: every family's, for small shapes chosen to
// reach each of its configurations (families/variants.hpp), at a whole site and at a split
// one, for indices of one width.
std::vector<Step> variant_steps(const DeviceProfile& device, std::size_t elem_size, bool index64);

// Every program that plan_call, plan_batched_call and plan_imatcopy without a transform
// can launch with default overrides for elem_size-byte elements on `device`, for indices
// of one width (index64) or both; sorted, without repeats. The SoA and restride
// kernels move runs of narrower elements in wider words (narrow_words.hpp), so the
// variants of an element size include their programs of those word sizes.
std::vector<KernelVariant> kernel_variants(const DeviceProfile& device, std::size_t elem_size,
                                           bool index64);
std::vector<KernelVariant> kernel_variants(const DeviceProfile& device, std::size_t elem_size);

}  // namespace ipt::planner
