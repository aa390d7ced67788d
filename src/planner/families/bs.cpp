// SPDX-License-Identifier: Apache-2.0
// BS (kernels/bs.cl): 010! by tiles of B x C staged in local memory.
#include "planner/families/bs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"
#include "planner/narrow_words.hpp"
#include "planner/work_limits.hpp"

namespace ipt::planner {

using namespace steps;

Step bs_step(const StepSite& site, std::uint64_t A, std::uint64_t B, std::uint64_t C,
             const BsConfig& config, Region zeroes) {
  check_elem_size(site.elem_size);
  if (config.work_group == 0 || config.tiles_per_group == 0)
    throw std::invalid_argument("BS: work_group and tiles_per_group must be positive");
  if (A == 0 || B <= 1 || C <= 1) {
    if (!zeroes.empty()) throw std::logic_error("BS: words to zero, but an identity");
    return nothing(Family::kBs, "010!: an identity");
  }
  const std::uint64_t n = B * C;
  const bool index64 = site.index64 || config.force_index64 || needs_index64(site.offset, A * n);
  const std::uint64_t tiles = std::min(config.tiles_per_group, A);
  const std::uint64_t chunks = (A + tiles - 1) / tiles;
  // The kernel grid-strides over chunks, so a capped grid is always enough.
  const std::uint64_t groups =
      std::min(chunks, config.max_groups == 0 ? std::uint64_t{65536} : config.max_groups);
  // 1- and 2-byte elements move in 4-byte words where every tile fills whole words and
  // the matrix starts on a 4-byte boundary of one buffer (kernels/bs.cl).
  const std::size_t word =
      config.words ? narrow_word(site.elem_size, site.offset, site.split != 0, n) : 1;
  Step step = launch(Family::kBs, site, index64,
                     word > 1 ? " -DIPT_WORDS=" + std::to_string(word) : std::string(), groups,
                     config.work_group);
  step.local_bytes = bs_local_elements(n, tiles) * site.elem_size;
  if (word > 1) step.local_bytes = (step.local_bytes + 3) / 4 * 4;  // read as words
  step.args = {buffer_arg(Buffer::kMatrix),
               index_arg(site.offset),
               index_arg(A),
               index_arg(B),
               index_arg(C),
               index_arg(tiles),
               local_arg(step.local_bytes)};
  add_zeroing(step, zeroes);
  step.touches = A * n;
  step.move = permute(A, B, C, 1);
  step.what = "010! on " + shape_text(A, B, C) + ": BS tiles of " + std::to_string(B) + " x " +
              std::to_string(C);
  if (word > 1) step.what += ", moved as 4-byte words";
  return with_split(std::move(step), site);
}

std::uint64_t bs_local_elements(std::uint64_t tile_elements, std::uint64_t tiles_per_group) {
  // PAD(x) = x + x / 32 of kernels/bs.cl, applied to the last slot, plus one.
  const std::uint64_t last = tile_elements * tiles_per_group - 1;
  return last + last / 32 + 1;
}

bool bs_fits(const DeviceProfile& device, std::uint64_t B, std::uint64_t C, std::size_t elem_size) {
  if (B == 0 || C == 0) return false;
  // A tile of more elements than local memory has bytes never fits; deciding that first
  // keeps the products below from wrapping (a tile of about 2^60 16-byte elements once
  // "fitted" in 528 bytes).
  const std::uint64_t usable = usable_local_bytes(device);
  if (B > usable || C > usable / B) return false;
  return bs_local_elements(B * C, 1) * elem_size <= usable;
}

BsConfig choose_bs(const DeviceProfile& device, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                   std::size_t elem_size) {
  BsConfig config;
  const std::uint64_t n = B * C;
  const std::size_t max_wg = std::max<std::size_t>(1, device.max_work_group_size);
  config.words = device.word_bytes >= 4;  // IPT_OVERRIDES word=1: element by element
  if (n < 512) {
    // Small tiles: about 1024 elements per group, so every lane moves ~4 elements, and at
    // most half the local memory so that two groups share a compute unit. (One 16 x 16
    // tile per group of 128 ran at 57% of copy, four tiles per group at 79%.)
    std::uint64_t tiles = std::max<std::uint64_t>(1, 1024 / n);
    tiles = std::min<std::uint64_t>(tiles, std::max<std::uint64_t>(A, 1));
    while (tiles > 1 && bs_local_elements(n, tiles) * elem_size > device.local_mem_bytes / 2)
      tiles /= 2;
    config.tiles_per_group = tiles;
    config.work_group = std::min<std::size_t>(kMaxDefaultWorkGroup, floor_pow2(max_wg));
  } else {
    // One tile per group; about four elements per work-item, 128..256 work-items.
    const std::uint64_t wanted = std::clamp<std::uint64_t>(n / 4, 128, kMaxDefaultWorkGroup);
    config.work_group =
        std::min<std::size_t>(floor_pow2(static_cast<std::size_t>(wanted)), floor_pow2(max_wg));
  }
  return config;
}

double bs_efficiency(const DeviceProfile& device, std::uint64_t B, std::uint64_t C,
                     std::size_t elem_size) {
  return bs_fits(device, B, C, elem_size) ? 0.85 : 0.1;
}

// 2 x 2 tiles fill whole words of 1- and 2-byte elements, 3 x 3 ones do not.
void bs_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out) {
  out.push_back(bs_step(at, 1, 2, 2, choose_bs(device, 1, 2, 2, at.elem_size)));
  out.push_back(bs_step(at, 1, 3, 3, choose_bs(device, 1, 3, 3, at.elem_size)));
}

}  // namespace ipt::planner
