// SPDX-License-Identifier: Apache-2.0
// PTTWAC (kernels/pttwac.cl): 010! by cycle following with flags in local memory.
#include "planner/families/pttwac.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/soa.hpp"
#include "planner/families/step_building.hpp"
#include "planner/work_limits.hpp"

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

std::uint64_t pttwac_flag_words(std::uint64_t n, std::size_t spreading, bool padding) {
  // Same map as flag_word() of kernels/pttwac.cl, applied to the last position.
  const std::uint64_t word = (n - 1) * spreading / 32;
  return word + (padding ? word / 32 : 0) + 1;
}

PttwacConfig choose_pttwac(const DeviceProfile& device, std::uint64_t B, std::uint64_t C) {
  PttwacConfig config;
  const std::uint64_t n = B * C;
  config.work_group = std::min<std::size_t>(
      kMaxDefaultWorkGroup, floor_pow2(std::max<std::size_t>(1, device.max_work_group_size)));
  config.padding = true;
  // The widest spreading (up to 16: PPoPP found 32 no better, and it costs as much local
  // memory as BS) whose flags take at most half the local memory; else R = 1 if the
  // flags fit at all; else global flags.
  for (std::size_t r : {16, 8, 4, 2, 1}) {
    if (pttwac_flag_words(n, r, true) * 4 <= device.local_mem_bytes / 2) {
      config.spreading = r;
      return config;
    }
  }
  config.spreading = 1;
  config.global_flags = pttwac_flag_words(n, 1, true) * 4 > usable_local_bytes(device);
  return config;
}

std::uint64_t pttwac_launch_flag_bytes(const PttwacConfig& config, std::size_t local_mem_bytes,
                                       std::size_t elem_size, std::uint64_t A, std::uint64_t B,
                                       std::uint64_t C) {
  if (!config.global_flags || A == 0 || B <= 1 || C <= 1) return 0;
  return soa_launch_flag_bytes(pttwac_global_soa(config), local_mem_bytes, elem_size, A, B, C, 1);
}

}  // namespace ipt::planner
