// SPDX-License-Identifier: Apache-2.0
// SoA-ASTA (kernels/soa_asta.cl): 100! and 0100! by cycle following of super-elements.
#include "planner/families/soa.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "planner/families/cost_curve.hpp"
#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"
#include "planner/narrow_words.hpp"
#include "planner/work_limits.hpp"

namespace ipt::planner {

using namespace steps;

namespace {

// The most items a 100! counts in 32 bits: a start is found from its flag word, up to 31
// items past the last, and that index must fit too.
constexpr std::uint64_t kMostItems32 = (std::uint64_t{1} << 32) - 32;

// soa_step on elements of site.elem_size bytes, whatever the plan's are.
Step soa_element_step(const StepSite& site, std::uint64_t I, std::uint64_t A, std::uint64_t B,
                      std::uint64_t C, const SoaConfig& config, Region flags) {
  check_elem_size(site.elem_size);
  if (config.vw == 0 || config.units == 0)
    throw std::invalid_argument("SoA-ASTA: vw and units must be positive");
  if (I == 0 || A <= 1 || B <= 1 || C == 0) return nothing(Family::kSoa, "0100!: an identity");
  // Chunk L: what the caller asked for, else as much of C as a unit holds. Never more
  // than a unit holds: that is where the authors' register tiling dropped elements.
  const std::size_t elem_size = site.elem_size;
  if (config.words && (elem_size >= 4 || config.regs == 0 || site.split != 0))
    throw std::logic_error("SoA-ASTA: words of 1- or 2-byte elements, in registers, unsplit");
  const std::uint64_t capacity = soa_chunk_capacity(config, site.local_mem_bytes, elem_size);
  const std::uint64_t L = soa_chunk(config, site.local_mem_bytes, elem_size, C);
  if (L == 0 || L > capacity)
    throw ResourceError("SoA-ASTA: a unit holds " + std::to_string(capacity) +
                        " elements, the chunk needs " + std::to_string(config.chunk));
  const std::uint64_t K = (C + L - 1) / L;
  const std::uint64_t items = I * K * A * B;
  const bool index64 =
      site.index64 || config.force_index64 || needs_index64(site.offset, I * A * B * C);
  // Flag words are counted in 32 bits (and start slices, checked below).
  if (items > (std::uint64_t{1} << 36))
    throw ResourceError("SoA-ASTA: more than 2^36 items (" + std::to_string(items) + ")");
  // Starts are handed out a slice of a flag word at a time: one unit per slice (more
  // would only start and stop), at most max_groups groups. Slices are cut for the units
  // that run at once, a quarter of max_groups' (the default is 64 groups per compute
  // unit, where a large GPU's compute unit holds about 25 of this kernel's): cutting them
  // for all of max_groups' units made stages of 10^5 items 7-10% slower (more starts
  // cutting chains that would have run on), while stages of 10^2-10^4 items gained 2-4x
  // either way.
  const std::uint64_t max_groups =
      config.max_groups == 0 ? std::uint64_t{65536} : config.max_groups;
  const std::uint64_t concurrent_units = std::max<std::uint64_t>(1, max_groups / 4) * config.units;
  const std::size_t slice_items =
      config.slice_items != 0 ? config.slice_items : soa_slice_items(items, concurrent_units);
  std::uint32_t slice_shift = 0;
  while ((std::size_t{32} >> slice_shift) > slice_items) ++slice_shift;
  if ((std::size_t{32} >> slice_shift) != slice_items)
    throw std::invalid_argument("SoA-ASTA: slice_items must be a power of two from 1 to 32");
  const std::uint64_t slices = ((items + 31) / 32) << slice_shift;
  if (slices + max_groups * config.units >= (std::uint64_t{1} << 32))
    throw ResourceError("SoA-ASTA: more start slices than a 32-bit counter holds");
  const std::uint64_t groups = std::min((slices + config.units - 1) / config.units, max_groups);
  // With 64-bit indices, the items in 32 bits where every item index fits (kMostItems32).
  // Measured on a GPU: a build of 16-byte words took 40 registers a work-item instead of
  // 56, and the 100! of 22501 x 100032 floats in super-elements of 64 ran at 75% of copy
  // instead of 69%, within 90001 x 100003 at 62.5% instead of 57%.
  const bool items32 = index64 && !config.force_items64 && items <= kMostItems32;
  const auto item_arg = [&](std::uint64_t value) {
    return items32 ? uint_arg(value) : index_arg(value);
  };
  Step step =
      launch(Family::kSoa, site, index64,
             " -DVW=" + std::to_string(config.vw) + " -DUNITS=" + std::to_string(config.units) +
                 " -DREGS=" + std::to_string(config.regs) +
                 (config.words ? " -DSHIFTED_WORDS=1" : "") + (items32 ? " -DIPT_ITEMS32=1" : ""),
             groups, config.vw * config.units);
  // Register tiling needs no local tiles; a local argument may not be empty, so it gets
  // one element it never touches.
  step.local_bytes = config.regs > 0 ? elem_size : 2 * std::uint64_t{config.units} * L * elem_size;
  // Claim bits, the start counter and started marks (soa_flag_bytes).
  const bool marks = soa_marks(L * elem_size);
  step.flags = placed(flags, Buffer::kScratch, soa_flag_bytes(items, marks));
  step.args = {buffer_arg(Buffer::kMatrix),
               index_arg(site.offset),
               item_arg(A),
               item_arg(B),
               index_arg(C),
               index_arg(L),
               item_arg(K),
               item_arg(items),
               buffer_arg(step.flags.buffer),
               ulong_arg(step.flags.offset / 4),
               local_arg(step.local_bytes),
               uint_arg(slice_shift),
               uint_arg(marks ? 1 : 0)};
  step.touches = I * A * B * C;
  step.move = permute(I, A, B, C);
  step.what = (I > 1 ? "0100! on (" + std::to_string(I) + " | " : std::string("100! on (")) +
              std::to_string(A) + ", " + std::to_string(B) + ", " + std::to_string(C) +
              "): super-elements of " + std::to_string(C);
  return with_split(std::move(step), site);
}

}  // namespace

Step soa_step(const StepSite& site, std::uint64_t I, std::uint64_t A, std::uint64_t B,
              std::uint64_t C, const SoaConfig& config, Region flags, std::uint64_t word) {
  if (word <= 1) return soa_element_step(site, I, A, B, C, config, flags);
  if (C % word != 0 || site.offset % word != 0 || site.split % word != 0)
    throw std::logic_error("SoA-ASTA: words of " + std::to_string(word) +
                           " elements that the super-elements, offset or split do not fill");
  StepSite words = site;
  words.elem_size = site.elem_size * word;
  words.offset = site.offset / word;
  words.split = site.split / word;
  Step step = soa_element_step(words, I, A, B, C / word, config, flags);
  if (step.noop()) return step;
  // The model and the extents count the plan's elements.
  step.touches = I * A * B * C;
  if (site.split != 0) step.touches = std::min(step.touches, site.split);
  step.move = permute(I, A, B, C);
  step.what = (I > 1 ? "0100! on (" + std::to_string(I) + " | " : std::string("100! on (")) +
              std::to_string(A) + ", " + std::to_string(B) + ", " + std::to_string(C) +
              "): super-elements of " + std::to_string(C) + ", moved as " +
              std::to_string(words.elem_size) + "-byte words";
  return step;
}

std::uint64_t soa_chunk_capacity(const SoaConfig& config, std::size_t local_mem_bytes,
                                 std::size_t elem_size) {
  if (config.regs > 0 && config.words)
    return (std::uint64_t{config.regs} * config.vw - 1) * (4 / elem_size) + 1;
  if (config.regs > 0) return std::uint64_t{config.regs} * config.vw;
  // The kernel's own local arrays: pub_base[2][UNITS] (64-bit at most), pub_state[2][UNITS]
  // and live[3].
  const std::size_t fixed = 2 * config.units * (8 + 4) + 3 * 4;
  if (local_mem_bytes <= fixed) return 0;
  return (local_mem_bytes - fixed) / (2 * config.units * elem_size);
}

std::uint64_t soa_chunk(const SoaConfig& config, std::size_t local_mem_bytes, std::size_t elem_size,
                        std::uint64_t C) {
  const std::uint64_t capacity = soa_chunk_capacity(config, local_mem_bytes, elem_size);
  return std::min(C, config.chunk == 0 ? capacity : config.chunk);
}

std::size_t soa_slice_items(std::uint64_t items, std::uint64_t launch_units) {
  const std::uint64_t words = (items + 31) / 32;
  std::size_t slice = 32;
  while (slice > 1 && words * (32 / (slice / 2)) <= launch_units) slice /= 2;
  return slice;
}

bool soa_marks(std::uint64_t chunk_bytes) {
  // A mark saves a read of a chunk (kernels/soa_asta.cl, "Started marks"); from 512 bytes
  // on, the marks take at most 1/4096 of the bytes they save reads of. Smaller chunks keep
  // one bit per item: the flags of super-elements of a few elements already take up to
  // 0.3% of the matrix, and the planner keeps a call's extra memory within 0.6%.
  constexpr std::uint64_t kMarkedChunkBytes = 512;
  return chunk_bytes >= kMarkedChunkBytes;
}

std::uint64_t soa_flag_bytes(std::uint64_t items, bool marks) {
  const std::uint64_t words = (items + 31) / 32;
  return ((marks ? 2 : 1) * words + 1) * 4;
}

std::uint64_t soa_launch_flag_bytes(const SoaConfig& config, std::size_t local_mem_bytes,
                                    std::size_t elem_size, std::uint64_t I, std::uint64_t A,
                                    std::uint64_t B, std::uint64_t C) {
  const std::uint64_t L =
      std::max<std::uint64_t>(1, soa_chunk(config, local_mem_bytes, elem_size, C));
  return soa_flag_bytes(I * A * B * ((C + L - 1) / L), soa_marks(L * elem_size));
}

SoaConfig choose_soa(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size,
                     const StepSite& site) {
  // 1- and 2-byte elements: the unit and registers of the words that a chunk of C elements
  // takes at most (it may start anywhere in a word), cut into chunks of equal length that
  // the words hold. Moved one by one, a unit held a quarter or half of the bytes of a
  // float's, and a super-element took as many more chunks, each a step of the chain.
  if (elem_size < 4 && site.split == 0 && C > 0) {
    const std::uint64_t per_word = 4 / elem_size;
    SoaConfig config = choose_soa(device, (C + 2 * per_word - 2) / per_word, 4, site);
    config.words = true;
    const std::uint64_t capacity = soa_chunk_capacity(config, 0, elem_size);
    const std::uint64_t chunks = (C + capacity - 1) / capacity;
    config.chunk = (C + chunks - 1) / chunks;
    return config;
  }
  SoaConfig config;
  const std::size_t simd = std::max<std::size_t>(1, device.simd_width);
  const std::size_t max_wg = std::max<std::size_t>(1, device.max_work_group_size);
  const std::size_t group = std::min<std::size_t>(kMaxDefaultWorkGroup, floor_pow2(max_wg));
  // Register tiling for every C (the kernel guards each lane's last, partial register, so
  // C need not divide or be a multiple of the unit width as in PPoPP §5.2): registers
  // spare the kernel a round trip through local memory and its barriers, and it ran
  // 1.1-2x faster than local-memory tiling at every C measured. The unit: the smallest
  // power of two from 4 lanes up to the SIMD width that holds C in about kLaneBytes per
  // lane (measured best at 16-24 bytes of f32 per lane: 4-6 registers; units narrower
  // than 4 lanes lost at every C, even C = 1). Wider C is cut into chunks of max_regs per
  // lane. (Units widened past the SIMD width, up to the group, so that one chunk holds a
  // super-element of up to 4 KiB of floats: the random protocol's f32 median no higher,
  // three of its shapes 22-32% slower.)
  // Matrices of 2^31 elements and more (64-bit indices) take twice that per lane, in units
  // of at least 8 lanes, so that a group holds up to twice the units and the chains in
  // flight: a chain's step costs more there (likely address translation over many GB).
  // On an H100, their 100! steps of 64-float super-elements (16-byte words: 8 lanes of 2
  // instead of 16 of 1) ran at 66.9% of copy instead of 62.4% on 9 G elements (36 GB),
  // 72.5% against 69.1% on 4.5 G and 78.0% against 75.9% on 2.25 G (64 bytes: no faster);
  // 160-float and 64-double super-elements took 0.97-0.98 of the time. Units of 4 lanes of
  // 8 words took 1.11 of the time (30 words: bytes of 90001 x 100003), hence the 8 lanes.
  // Smaller matrices keep 24 bytes: the random protocol's 100! steps took a median of
  // 1.000 of the time with 48.
  constexpr std::size_t kLaneBytes = 24, kLaneBytes64 = 48;
  constexpr std::size_t kMinLanes = 4, kMinLanes64 = 8;
  const std::size_t lane_bytes = site.index64 ? kLaneBytes64 : kLaneBytes;
  const std::size_t min_lanes = site.index64 ? kMinLanes64 : kMinLanes;
  const std::size_t lane_regs = std::clamp<std::size_t>(lane_bytes / elem_size, 1, 16);
  const std::size_t max_regs = std::clamp<std::size_t>(64 / elem_size, 2, 16);
  const std::size_t widest = std::min(simd, group);
  std::size_t vw = 1;
  while (vw < widest && (vw < min_lanes || (C + vw - 1) / vw > lane_regs)) vw *= 2;
  config.vw = vw;
  // Work-groups of 64 work-items: a group steps at the pace of its slowest unit (one
  // barrier per step), and groups of 64 ran every measured 0100! stage 5-13% faster than
  // groups of 256 (ipt-kernel-bench soa --soa-shapes); 64 is also the smallest size that
  // still fills a compute unit that holds at most 32 resident groups.
  constexpr std::size_t kSoaGroup = 64;
  config.units = std::max<std::size_t>(1, std::min(group, kSoaGroup) / vw);
  // Chunks of equal length: C = 539 floats in chunks of 512 and 27 moved a chunk of 108
  // bytes for every one of 2 KiB, and 27 bytes are a slow move. Cut into halves of 270
  // and 269, the 100! steps of 539, 579 and 532 (16-byte words) floats ran 8-15% faster
  // (ipt-kernel-bench stages, 40 random f32 shapes, two runs; no other step changed by
  // more than noise). The chunk count stays the same, and so does REGS below: more than
  // max_regs / 2 registers per lane remain.
  const std::uint64_t lane_share = (C + vw - 1) / vw;
  const std::uint64_t chunks = (lane_share + max_regs - 1) / max_regs;
  const auto regs = static_cast<std::size_t>((lane_share + chunks - 1) / chunks);
  config.chunk = std::min<std::uint64_t>(C, std::uint64_t{regs} * vw);
  // REGS is a build option: rounded up to a power of two (the kernel skips the registers
  // past a lane's share of the chunk), an element size has a few register counts per unit
  // width instead of sixteen, so that every variant can be built ahead of the calls
  // (kernel_variants.hpp). max_regs is a power of two, so the rounding stays within it.
  config.regs = ceil_pow2(regs);
  // Enough groups of 64 to fill every compute unit (2048 work-items each) twice.
  config.max_groups = std::max<std::uint64_t>(1, 64 * std::uint64_t{device.compute_units});
  return config;
}

SoaConfig pttwac_global_soa(const PttwacConfig& config) {
  SoaConfig soa;
  soa.vw = 1;
  soa.units = config.work_group;
  soa.regs = 1;
  soa.chunk = 1;
  soa.max_groups = config.max_groups;
  soa.force_index64 = config.force_index64;
  return soa;
}

double soa_efficiency(std::uint64_t super_element_bytes, bool line_aligned) {
  // 100! on (10000, 99, C) (ipt-kernel-bench soa --soa-shapes, f32 and f64, on a GPU of
  // 128-byte cache lines): 39-42% of copy at 120-136 bytes, 53-54% at 248-264, 62% at
  // 376-392, 67-68% at 504-520, 72% at 636-644, 74-75% at 760-776, 79% at 1020-1028,
  // where the super-elements straddle 128-byte lines; exactly 128, 256, 384, 512, 768 and
  // 1024 bytes ran at 50-52%, 67-72%, 73-74%, 81-85%, 89% and 91%. Below 120 bytes, from
  // the older 100! sweep. (Past 1 KiB, refitted to the random protocol's own 100! steps,
  // 79% of copy at 1-2 KiB, 71% at 2-4 KiB and 66% at 4-8 KiB, it changed 78 of its 300
  // f32 plans, and its f32 and f64 medians stayed within 0.5% of those without it.)
  static const std::pair<double, double> straddling[] = {
      {4, 0.02},   {16, 0.08},  {32, 0.16},  {48, 0.22},   {72, 0.26},   {128, 0.40},
      {256, 0.53}, {384, 0.62}, {512, 0.67}, {640, 0.715}, {768, 0.745}, {1024, 0.79}};
  static const std::pair<double, double> whole_lines[] = {{128, 0.51}, {256, 0.69}, {384, 0.735},
                                                          {512, 0.83}, {768, 0.89}, {1024, 0.91}};
  const auto x = static_cast<double>(super_element_bytes);
  if (line_aligned && x >= whole_lines[0].first)
    return interpolate_log2(whole_lines, std::size(whole_lines), x);
  return interpolate_log2(straddling, std::size(straddling), x);
}

// Every whole line counts, though super-elements of an odd number of 128-byte lines from
// 1152 bytes on ran barely faster than their neighbours: crediting only multiples of two
// lines changed 25 of the 300 random f32 plans, which ran as fast as before
// (median time ratio 1.003-1.007), and 8 f64 plans, which ran 7% slower.
bool line_aligned(const DeviceProfile& device, std::uint64_t super_element_bytes) {
  return device.line_bytes > 0 && super_element_bytes % device.line_bytes == 0;
}

double soa_efficiency(const DeviceProfile& device, std::uint64_t super_element_bytes) {
  return soa_efficiency(super_element_bytes, line_aligned(device, super_element_bytes));
}

double soa_stage_efficiency(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size) {
  // ipt-kernel-bench stages (8 random shapes, 2.x plans): the SoA kernel moved 2-byte
  // elements at 0.5-0.7 of the throughput of 4-byte ones on the same shapes, 1-byte ones
  // at 0.35-0.45. Charging that in full steered 1-byte plans to factors and paddings that
  // cost more elsewhere (random protocol, 60 shapes: median 346 GB/s against 409 without
  // words); a third of it steered best (437 GB/s; 2-byte: 808 against 772). Moved in the
  // words of their destination (SoaConfig::words), their steps lost less: 0.8 for 1-byte
  // words and 0.9 for 2-byte ones gave the random protocol's 300 u8 shapes a median of 649
  // GB/s against 634-641 (p10 453 against 417-419), f16 968 against 941-953 (p10 692
  // against 665-680); 0.9 and 1.0 for both steered worse (u8 622-630, f16 904-921).
  // 4-byte elements in 8-byte words ran their 100! steps 2-7 points of copy faster (of
  // about 70), in 16-byte words 6-10 points. Crediting about that (x1.06, x1.12) changed
  // the factor of 60 of the 300 random f32 shapes on an H200 to one whose super-elements
  // fill them: 65-75 shapes then ran more than 3% faster, 6 more than 3% slower; twice
  // the credit did no better. 8-byte elements gained nothing measurable from 16-byte words.
  const std::size_t word = elem_size * word_factor(device, elem_size, C);
  const double narrow = word >= 4 ? 1.0 : word == 2 ? 0.9 : 0.8;
  const double wide = elem_size != 4 ? 1.0 : word == 16 ? 1.12 : word == 8 ? 1.06 : 1.0;
  return soa_efficiency(device, C * elem_size) * narrow * wide;
}

// The unit width and register count follow C up to the widest unit's largest count, for
// the elements and for each wider word their super-elements move in (word_factor).
void soa_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out) {
  const std::uint64_t widest = std::max<std::size_t>(1, device.simd_width);
  const std::size_t word_bytes = site_word_bytes(device.word_bytes, at.split != 0);
  for (std::uint64_t word = 1; word <= widest_word_factor(word_bytes, at.elem_size); word *= 2) {
    StepSite words = at;
    words.elem_size = at.elem_size * word;
    // Narrow elements in words (SoaConfig::words) reach the widest unit's largest count
    // at 4 / elem_size times the elements.
    const std::uint64_t per_word = words.elem_size < 4 && at.split == 0 ? 4 / words.elem_size : 1;
    for (std::uint64_t C = 1; C <= (widest * 16 + 1) * per_word; ++C) {
      const SoaConfig config = choose_soa(device, C, words.elem_size, at);
      out.push_back(soa_step(words, 1, 2, 2, C, config));
      // With 64-bit indices, the build whose items take 64 bits too (more than
      // kMostItems32), for the super-elements of which that many fit the device's memory
      // (not its CL_DEVICE_MAX_MEM_ALLOC_SIZE, past which NVIDIA's driver allocates
      // buffers).
      const std::uint64_t L = soa_chunk(config, words.local_mem_bytes, words.elem_size, C);
      const std::uint64_t K = (C + L - 1) / L;  // chunks (items) per super-element
      const std::uint64_t super_elements = (kMostItems32 + 1 + K - 1) / K;
      if (at.index64 && (device.global_mem_bytes == 0 ||
                         super_elements * C * words.elem_size <= device.global_mem_bytes)) {
        SoaConfig wide = config;
        wide.force_items64 = true;
        out.push_back(soa_step(words, 1, 2, 2, C, wide));
      }
    }
  }
}

}  // namespace ipt::planner
