// SPDX-License-Identifier: Apache-2.0
#include "planner/kernel_variants.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "planner/families/variants.hpp"

namespace ipt::planner {

KernelVariant variant_of(const Step& step) {
  return {step.family, step.options, step.groups_per_unit};
}

std::vector<Step> variant_steps(const DeviceProfile& device, std::size_t elem_size, bool index64) {
  // Each family's variants come from its own step builder (families/variants.hpp), so the
  // options are those of real steps, written in one place: at a whole site and at a split
  // one (a padded plan's matrix with its tail in scratch).
  std::vector<Step> steps;
  for (const bool split : {false, true}) {
    StepSite at{elem_size, 0, device.local_mem_bytes, index64};
    if (split) {
      at.split = 1u << 20;
      at.tail = {Buffer::kScratch, 0, std::uint64_t{1} << 20};
    }
    for (const FamilyVariants variants : every_family_variants()) variants(device, at, steps);
  }
  return steps;
}

std::vector<KernelVariant> kernel_variants(const DeviceProfile& device, std::size_t elem_size,
                                           bool index64) {
  std::vector<KernelVariant> all;
  for (const Step& step : variant_steps(device, elem_size, index64))
    if (!step.noop()) all.push_back(variant_of(step));
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}
std::vector<KernelVariant> kernel_variants(const DeviceProfile& device, std::size_t elem_size) {
  std::vector<KernelVariant> all = kernel_variants(device, elem_size, false);
  const std::vector<KernelVariant> wide = kernel_variants(device, elem_size, true);
  all.insert(all.end(), wide.begin(), wide.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace ipt::planner
