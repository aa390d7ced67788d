// SPDX-License-Identifier: Apache-2.0
#include "planner/kernel_variants.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ipt::planner {
namespace {

// Each family's variants come from its own step function on a small shape chosen to
// reach each configuration its chooser can return, so the options are those of real
// steps, written in one place (planner/families/*.cpp).
class Collector {
 public:
  Collector(const DeviceProfile& device, bool index64) : device_(device), index64_(index64) {}

  // Where a step of elem_size-byte elements runs: whole, or split with its tail in scratch.
  StepSite site(std::size_t elem_size, bool split) const {
    StepSite s{elem_size, 0, device_.local_mem_bytes, index64_};
    if (split) {
      s.split = 1u << 20;
      s.tail = {Buffer::kScratch, 0, std::uint64_t{1} << 20};
    }
    return s;
  }

  void add(const Step& step) {
    if (!step.noop()) variants_.push_back(variant_of(step));
  }

  // Every family for one element size (the SoA kernel also for its words).
  void collect(std::size_t elem_size) {
    for (const bool split : {false, true}) {
      const StepSite at = site(elem_size, split);
      // 2 x 2 tiles fill whole words of 1- and 2-byte elements, 3 x 3 ones do not.
      add(bs_step(at, 1, 2, 2, choose_bs(device_, 1, 2, 2, elem_size)));
      add(bs_step(at, 1, 3, 3, choose_bs(device_, 1, 3, 3, elem_size)));
      // n = 64 takes word tiles where the element size has them, 65 never; an odd offset
      // moves the word tiles' plan element by element.
      for (const std::uint64_t n : {64, 65})
        add(square_step(at, n, plan_square(device_, n, elem_size)));
      StepSite odd = at;
      odd.offset = 1;
      add(square_step(odd, 64, plan_square(device_, 64, elem_size)));
      restrides(at);
      onchips(at);
      for (std::uint64_t word = 1; word == 1 || elem_size * word <= device_.word_bytes; word *= 2)
        soas(site(elem_size * word, split));
    }
    add(copy_step(site(elem_size, false), Buffer::kMatrix, 0, Buffer::kScratch, 0, 1));
  }

  std::vector<KernelVariant> sorted() {
    std::sort(variants_.begin(), variants_.end());
    variants_.erase(std::unique(variants_.begin(), variants_.end()), variants_.end());
    return variants_;
  }

 private:
  // Chunks of 16 words per work-item, or 32 for more than 2^31 elements (64-bit only);
  // rows of 1- and 2-byte elements that fill 4-byte words or pairs move in those.
  void restrides(const StepSite& at) {
    for (const std::uint64_t elements : {std::uint64_t{1} << 20, (std::uint64_t{1} << 31) + 1})
      if (index64_ || elements < (std::uint64_t{1} << 31))
        for (const std::uint64_t len : {1, 2, 4})
          add(restride_step(at, 2, len, len, 2 * len,
                            choose_restride(device_, at.elem_size, elements)));
  }

  // The unit width and register count follow C up to the widest unit's largest count.
  void soas(const StepSite& at) {
    const std::uint64_t widest = std::max<std::size_t>(1, device_.simd_width);
    for (std::uint64_t C = 1; C <= widest * 16 + 1; ++C)
      add(soa_step(at, 1, 2, 2, C, choose_soa(device_, C, at.elem_size)));
  }

  // 32 x 32 (or word) tiles, and the narrow (short) tiles of matrices with 2 to 31
  // columns (rows) that those do not fit on chip: one for each power of two up to 32. (A
  // single column or row moves nothing.)
  void onchips(const StepSite& at) {
    const OnChipConfig config = choose_onchip(device_, at.elem_size, TileLayout::kPadded);
    if (config.work_group == 0) return;
    if (onchip_fits(config, 64, 64)) add(onchip_step(at, 1, 64, 64, config));
    // Longer than the 32 x 32 tiles, or the word tiles along either side, hold.
    std::vector<std::uint64_t> lengths{kOnChipTile * (config.groups * config.tiles + 1)};
    if (config.word > 1) {
      const OnChipTile words = onchip_word_tile(config.word);
      const std::uint64_t beyond = config.groups * onchip_group_tiles(config, words) + 1;
      lengths.insert(lengths.end(), {words.rows * beyond, words.cols * beyond});
    }
    for (const std::uint64_t tall : lengths)
      for (std::uint64_t side = 2; side < kOnChipTile; ++side)
        for (const auto& [rows, cols] : {std::pair{tall, side}, std::pair{side, tall}})
          if (onchip_fits(config, rows, cols)) add(onchip_step(at, 1, rows, cols, config));
  }

  const DeviceProfile& device_;
  const bool index64_;
  std::vector<KernelVariant> variants_;
};

}  // namespace

KernelVariant variant_of(const Step& step) { return {step.family, step.options}; }

std::vector<KernelVariant> kernel_variants(const DeviceProfile& device, std::size_t elem_size,
                                           bool index64) {
  Collector collector(device, index64);
  collector.collect(elem_size);
  return collector.sorted();
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
