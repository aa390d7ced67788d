// SPDX-License-Identifier: Apache-2.0
// Restride (kernels/restride.cl): rows moved to another row stride (pad and unpad).
#include "planner/families/restride.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>
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

// Elements per stored unit (kernels/restride.cl, IPT_UNITS) when rows of elem_size-byte
// elements close up into a compact matrix: those of the device's word (8 or 16 bytes)
// where a work-item's `per_item` elements are whole units, rows are at least a unit long
// and the first 2(U - 1) work-items can take the loose elements; 1 otherwise. One width
// per element size keeps it one build. On a split matrix every destination must lie
// before the split.
std::size_t stored_units(const RestrideConfig& config, std::size_t elem_size, std::uint64_t rows,
                         std::uint64_t len, std::uint64_t s_in, std::uint64_t s_out,
                         std::size_t per_item, std::uint64_t split) {
  const std::size_t word = std::min<std::size_t>(16, config.word_bytes);
  if (s_out != len || s_in <= len || word < 8 || elem_size > 4 ||
      (split != 0 && rows * len > split))
    return 1;
  const std::size_t u = word / elem_size;
  return per_item % u == 0 && len >= u && config.work_group >= 2 * (u - 1) ? u : 1;
}

// Rare-unit elements per work-item (kernels/restride.cl, IPT_RARE_ITEMS) where 1- and
// 2-byte units are loaded as the words around them: enough for a chunk's slots (one per
// row end inside it, three around a split, the matrix's last unit), at most
// kMaxRareItems; 0 for shorter rows, whose units' owners load their rare ones element by
// element.
constexpr std::uint64_t kMaxRareItems = 2;
std::uint64_t rare_items(std::size_t stored, std::size_t elem_size, std::uint64_t len,
                         std::uint64_t chunk, std::size_t work_group) {
  if (stored < 2 || elem_size >= 4) return 0;
  const std::uint64_t slots = (chunk - 1) / len + 1 + 4;
  const std::uint64_t items = (slots * stored + work_group - 1) / work_group;
  return items <= kMaxRareItems ? items : 0;
}

// Elements per work-item, and work-items per group, of a spread (a stride growing) or of
// a close-up.
std::size_t per_item_of(const RestrideConfig& config, bool spread) {
  return spread && config.spread_per_item != 0 ? config.spread_per_item : config.per_item;
}
std::size_t work_group_of(const RestrideConfig& config, bool spread) {
  return spread && config.spread_work_group != 0 ? config.spread_work_group : config.work_group;
}

}  // namespace

Step restride_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t s_in,
                   std::uint64_t s_out, const RestrideConfig& config, Region scratch) {
  check_elem_size(site.elem_size);
  if (config.work_group == 0 || config.per_item == 0)
    throw std::invalid_argument("restride: work_group and per_item must be positive");
  if (s_in < len || s_out < len)
    throw std::invalid_argument("restride: a stride is shorter than the row");
  if (rows <= 1 || len == 0 || s_in == s_out)
    return nothing(Family::kRestride, "restride: nothing moves");
  const std::size_t per_item = per_item_of(config, s_out > s_in);
  const std::size_t work_group = work_group_of(config, s_out > s_in);
  // Elements narrower than the device's word move in units of up to 4 elements
  // (word_factor) where every row starts on a unit's boundary in both layouts and is whole
  // units long: the restride of those units, with the same bytes per work-item, so the
  // same chunks and flags. Moved one by one, 1-byte rows closed up at a third of a float
  // row's speed. A split matrix (kernels/common.cl) keeps its units whole where the split
  // and the tail's place are multiples of the unit.
  const std::uint64_t run = std::gcd(std::gcd(len, per_item), std::gcd(s_in, s_out));
  std::size_t unit = static_cast<std::size_t>(
      word_factor(config.word_bytes, site.elem_size, run, site.offset, site.split));
  while (unit > 1 && site.tail.offset % (site.elem_size * unit) != 0) unit /= 2;
  StepSite at = site;
  at.elem_size = site.elem_size * unit;
  at.offset = site.offset / unit;
  at.split = site.split / unit;
  // The index width of the elements' restride, as every step decides it (a unit step could
  // index in 32 bits a little longer; one rule is worth more).
  const std::uint64_t extent = rows * std::max(s_in, s_out);
  const bool index64 = site.index64 || config.force_index64 || needs_index64(site.offset, extent);
  const std::uint64_t chunk = work_group * per_item;
  const std::uint64_t chunks = (rows * len + chunk - 1) / chunk;
  const std::size_t stored = stored_units(config, at.elem_size, rows, len / unit, s_in / unit,
                                          s_out / unit, per_item / unit, at.split);
  const std::uint64_t rare = rare_items(stored, at.elem_size, len / unit, chunk / unit, work_group);
  // With 64-bit indices, the offsets of a chunk's elements from its first row in 32 bits
  // where they fit (its elements, and its units, lie in fewer than chunk / len + 3 rows of
  // either stride): the kernel then carries 64 bits only per chunk. The spread of 90001 x
  // 100003 floats to rows of 100032 took 0.87 of the time (68% of copy to 78% on an
  // H100), closing up rows of 46351 and 100160 floats 0.99.
  const std::uint64_t widest = std::max(s_in, s_out) / unit;
  const bool relative32 = index64 && !config.force_offsets64 &&
                          chunk / unit / (len / unit) + 3 <= (std::uint64_t{1} << 32) / widest;
  Step step = launch(Family::kRestride, at, index64,
                     " -DWG=" + std::to_string(work_group) +
                         " -DPER_ITEM=" + std::to_string(per_item / unit) +
                         (stored > 1 ? " -DIPT_UNITS=" + std::to_string(stored) : "") +
                         (rare > 0 ? " -DIPT_RARE_ITEMS=" + std::to_string(rare) : "") +
                         (relative32 ? " -DIPT_RELATIVE32=1" : ""),
                     chunks, work_group);
  // The id counter, then one "read" flag per chunk.
  step.flags = placed(scratch, Buffer::kScratch, restride_scratch_bytes(config, rows * len));
  step.args = {
      buffer_arg(Buffer::kMatrix), index_arg(at.offset),          index_arg(rows),
      index_arg(len / unit),       index_arg(s_in / unit),        index_arg(s_out / unit),
      index_arg(chunks),           buffer_arg(step.flags.buffer), ulong_arg(step.flags.offset / 4)};
  // The last row ends at its length: the bytes past it (the gap its stride leaves) are the
  // caller's when the strides are an imatcopy's.
  step.touches = (rows - 1) * std::max(s_in, s_out) + len;
  step.move.kind = Move::Kind::kRestride;
  step.move.rows = rows;
  step.move.len = len;
  step.move.s_in = s_in;
  step.move.s_out = s_out;
  step.what = s_out > s_in ? "pad: rows spread from " + std::to_string(s_in) + " to " +
                                 std::to_string(s_out) + " elements"
                           : "unpad: rows closed up from " + std::to_string(s_in) + " to " +
                                 std::to_string(s_out) + " elements";
  if (unit > 1) step.what += "; moved as " + std::to_string(at.elem_size) + "-byte units";
  if (stored > 1)
    step.what += "; stored as " + std::to_string(at.elem_size * stored) + "-byte words";
  const std::uint64_t touches = step.touches;  // elements, not units
  step = with_split(std::move(step), at);
  step.touches = site.split == 0 ? touches : std::min(touches, site.split);
  return step;
}

std::uint64_t restride_scratch_bytes(const RestrideConfig& config, std::uint64_t elements) {
  const std::uint64_t chunk =
      std::min(std::uint64_t{work_group_of(config, true)} * per_item_of(config, true),
               std::uint64_t{work_group_of(config, false)} * per_item_of(config, false));
  return ((elements + chunk - 1) / chunk + 1) * 4;  // the id counter, a flag per chunk
}

RestrideConfig choose_restride(const DeviceProfile& device, std::size_t elem_size,
                               std::uint64_t elements) {
  RestrideConfig config;
  config.work_group = std::min<std::size_t>(
      kMaxDefaultWorkGroup, floor_pow2(std::max<std::size_t>(1, device.max_work_group_size)));
  const std::size_t size = std::max<std::size_t>(1, elem_size);
  const auto items = [&](std::size_t words) {
    return std::min<std::size_t>(
        {words * std::max<std::size_t>(1, 4 / size), kMaxRestrideItems, kMaxRestrideBytes / size});
  };
  config.per_item = items(16);
  if (elements > (std::uint64_t{1} << 31)) {
    config.spread_per_item = items(32);
    config.spread_work_group = std::min<std::size_t>(config.work_group, 64);
  }
  config.word_bytes = device.word_bytes;
  return config;
}

// Rows of up to 512 bytes from an early sweep; from 4 KiB, what the kernel reaches now on
// an H200: unpads 87-100% of copy for every element size, pads of 4- and 8-byte elements
// 79-92%, but pads of 2-byte elements 54% and of 1-byte ones 37-51% (their stores go
// element by element or in 2-byte units). With 70% for every long row, the planner padded
// too seldom where the unpadded plan's super-elements are small, and spread narrow rows
// where closing them up costs less; the plans this curve changes ran faster on the whole
// (docs/results/restride-cost.log: all of f32 and f64, most of f16 and u8).
double restride_efficiency(std::uint64_t row_bytes, std::size_t elem_size, bool spread) {
  static const std::pair<double, double> points[] = {{8, 0.1}, {40, 0.25}, {512, 0.7}, {4096, 0.9}};
  const double rows = interpolate_log2(points, std::size(points), static_cast<double>(row_bytes));
  if (!spread || elem_size > 2) return rows;
  return rows * (elem_size == 1 ? 0.45 : 0.6);
}

// Chunks of 16 elements or 4-byte words per work-item, twice that for spreads of more
// than 2^31 elements (64-bit only); rows that fill words of 2 or 4 elements move in
// those; rows closed up into a compact matrix are stored in wide words, with as many
// rare-unit items as their length needs.
void restride_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out) {
  for (const std::uint64_t elements : {std::uint64_t{1} << 20, (std::uint64_t{1} << 31) + 1})
    if (at.index64 || elements < (std::uint64_t{1} << 31))
      for (const std::uint64_t len : {1, 2, 4}) {
        const RestrideConfig config = choose_restride(device, at.elem_size, elements);
        out.push_back(restride_step(at, 2, len, len, 2 * len, config));
        // Strides so long that a chunk's offsets take 64 bits (imatcopy's strides, rows
        // of billions of elements; `far` below for the wide words).
        if (at.index64) {
          out.push_back(restride_step(at, 2, len, len, len << 32, config));
          out.push_back(restride_step(at, 2, len, len << 32, len, config));
        }
        // Rows of n such words closed up by one into a compact matrix: wide words, from
        // 17 words on, at lengths close enough together to meet every rare-unit count.
        for (std::uint64_t n = 16; n <= (std::uint64_t{1} << 20); n *= 2)
          for (const std::uint64_t words : {n + 1, n + n / 2 + 1})
            for (const std::uint64_t far : {std::uint64_t{0}, at.index64 ? len << 32 : 0})
              out.push_back(
                  restride_step(at, 2, words * len, (words + 1) * len + far, words * len, config));
      }
}

}  // namespace ipt::planner
