// SPDX-License-Identifier: Apache-2.0
// PTTWAC (kernels/pttwac.cl): 010! by cycle following with flags in local memory.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/step_building.hpp"

namespace ipt::planner {

using namespace steps;

Step pttwac_step(const StepSite& site, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                 const PttwacConfig& config, Region flags) {
  check_elem_size(site.elem_size);
  int log2_spreading = -1;
  for (int k = 0; k <= 5; ++k)
    if (config.spreading == (std::size_t{1} << k)) log2_spreading = k;
  if (log2_spreading < 0)
    throw std::invalid_argument("PTTWAC: spreading factor " + std::to_string(config.spreading) +
                                " is not 1, 2, 4, 8, 16 or 32");
  if (config.work_group == 0) throw std::invalid_argument("PTTWAC: work_group must be positive");
  if (A == 0 || B <= 1 || C <= 1) return nothing(Family::kPttwac, "010!: an identity");
  if (config.global_flags) {
    // 010! on (A, B, C) is 0100! on (A, B, C, 1): super-elements of one element, one unit
    // per work-item, flags in global memory.
    Step step = soa_step(site, A, B, C, 1, pttwac_global_soa(config), flags);
    step.what = "010! on " + shape_text(A, B, C) + ": cycle following with global flags";
    return step;
  }
  const std::uint64_t n = B * C;
  const bool index64 = site.index64 || config.force_index64 || needs_index64(site.offset, A * n);
  const std::uint64_t words = pttwac_flag_words(n, config.spreading, config.padding);
  const std::uint64_t groups =
      std::min(A, config.max_groups == 0 ? std::uint64_t{65536} : config.max_groups);
  Step step = launch(Family::kPttwac, site, index64,
                     " -DLOG2_SPREAD=" + std::to_string(log2_spreading) +
                         " -DFLAG_PADDING=" + (config.padding ? "1" : "0"),
                     groups, config.work_group);
  step.local_bytes = words * 4;
  step.args = {buffer_arg(Buffer::kMatrix),
               index_arg(site.offset),
               index_arg(A),
               index_arg(B),
               index_arg(C),
               index_arg(words),
               local_arg(words * 4)};
  step.touches = A * n;
  step.move = permute(A, B, C, 1);
  step.what = "010! on " + shape_text(A, B, C) + ": PTTWAC tiles of " + std::to_string(B) + " x " +
              std::to_string(C) + " (flags in local memory)";
  return with_split(std::move(step), site);
}

}  // namespace ipt::planner
