// SPDX-License-Identifier: Apache-2.0
// The steps of each kernel family: from a shape and a launch configuration to the exact
// launch (build options, NDRange, arguments in the kernel's order, scratch regions).
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "planner/launch_plan.hpp"
#include "planner/narrow_words.hpp"

namespace ipt::planner {
namespace {

using Kind = KernelArg::Kind;

KernelArg buffer_arg(Buffer buffer) { return {Kind::kBuffer, buffer, 0}; }
KernelArg index_arg(std::uint64_t value) { return {Kind::kIndex, Buffer::kNone, value}; }
KernelArg uint_arg(std::uint64_t value) { return {Kind::kUint, Buffer::kNone, value}; }
KernelArg ulong_arg(std::uint64_t value) { return {Kind::kUlong, Buffer::kNone, value}; }
KernelArg local_arg(std::uint64_t bytes) { return {Kind::kLocal, Buffer::kNone, bytes}; }

std::string element_options(std::size_t elem_size, bool index64) {
  return "-DIPT_ELEM_BYTES=" + std::to_string(elem_size) +
         " -DIPT_INDEX_64=" + (index64 ? "1" : "0");
}

void check_elem_size(std::size_t elem_size) {
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    throw std::invalid_argument("element size " + std::to_string(elem_size) +
                                " is not 1, 2, 4, 8 or 16");
}

// The kernels of a split matrix take the tail's buffer, its first element there and the
// split after their own arguments, and touch no more of the matrix's buffer than `split`.
Step with_split(Step step, const StepSite& site) {
  if (site.split == 0 || step.noop()) return step;
  if (site.tail.buffer != Buffer::kScratch || site.tail.offset % site.elem_size != 0)
    throw std::logic_error("a split matrix's tail must be call scratch, aligned");
  step.options += " -DIPT_SPLIT=1";
  step.args.insert(step.args.end(),
                   {buffer_arg(site.tail.buffer), ulong_arg(site.tail.offset / site.elem_size),
                    index_arg(site.split)});
  step.touches = std::min(step.touches, site.split);
  step.tail = site.tail;
  return step;
}

// The step every family starts from: a 1-D launch of `groups` groups of `work_group`.
Step launch(Family family, const StepSite& site, bool index64, std::string options,
            std::uint64_t groups, std::uint64_t work_group) {
  Step step;
  step.family = family;
  step.index64 = index64;
  step.unit_bytes = site.elem_size;
  step.options = element_options(site.elem_size, index64) + options;
  step.global[0] = groups * work_group;
  step.local[0] = work_group;
  return step;
}

// An identity: nothing to launch (Step::noop).
Step nothing(Family family, const char* what) {
  Step step;
  step.family = family;
  step.what = what;
  return step;
}

// The region given, or the start of `buffer` with `bytes` when none was.
Region placed(Region given, Buffer buffer, std::uint64_t bytes) {
  if (given.buffer == Buffer::kNone) return {buffer, 0, bytes};
  if (given.bytes < bytes || given.offset % 16 != 0)
    throw std::logic_error("a scratch region holds fewer than " + std::to_string(bytes) +
                           " bytes or is misplaced");
  return given;
}

// The zeroing arguments of the kernels that clear words on the way (BS, copy, on-chip):
// the buffer, its first word and the word count (none: the matrix, and no word).
void add_zeroing(Step& step, const Region& zeroes) {
  if (zeroes.empty()) {
    step.args.insert(step.args.end(), {buffer_arg(Buffer::kMatrix), ulong_arg(0), ulong_arg(0)});
    return;
  }
  if (zeroes.offset % 4 != 0 || zeroes.bytes % 4 != 0)
    throw std::logic_error("words to zero that are not whole 32-bit words");
  step.zeroes = zeroes;
  step.args.insert(step.args.end(), {buffer_arg(zeroes.buffer), ulong_arg(zeroes.offset / 4),
                                     ulong_arg(zeroes.bytes / 4)});
}

// The transform's build options and its two arguments (alpha's bits), which the kernels
// take before SPLIT_PARAMS (kernels/common.cl, TRANSFORM_PARAMS); none for the identity.
void add_transform(Step& step, const ElementTransform& transform, std::size_t elem_size) {
  if (transform.identity()) return;
  if (scalar_bytes(transform.scalar) != elem_size ||
      (transform.conjugate && !is_complex(transform.scalar)))
    throw std::invalid_argument("a transform of " + std::to_string(elem_size) +
                                "-byte elements that does not fit their scalar type");
  step.options += transform.options();
  step.transformed = true;
  const std::size_t split_args = step.tail.empty() ? 0 : 3;  // with_split's, last
  step.args.insert(step.args.end() - static_cast<std::ptrdiff_t>(split_args),
                   {ulong_arg(transform.alpha[0]), ulong_arg(transform.alpha[1])});
  step.what += ", " + transform.what();
}

std::string shape_text(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ")";
}

Move permute(std::uint64_t I, std::uint64_t A, std::uint64_t B, std::uint64_t C) {
  Move move;
  move.kind = Move::Kind::kPermute;
  move.I = I;
  move.A = A;
  move.B = B;
  move.C = C;
  return move;
}

}  // namespace

const char* family_source(Family family) {
  switch (family) {
    case Family::kSquare:
      return "square";
    case Family::kBs:
      return "bs";
    case Family::kPttwac:
      return "pttwac";
    case Family::kSoa:
      return "soa_asta";
    case Family::kOnChip:
      return "onchip";
    case Family::kRestride:
      return "restride";
    case Family::kCopy:
      return "copy";
    case Family::kScale:
      return "scale";
  }
  return "?";
}

const char* family_kernel(Family family) {
  switch (family) {
    case Family::kSquare:
      return "ipt_square_swap";
    case Family::kBs:
      return "ipt_bs_010";
    case Family::kPttwac:
      return "ipt_pttwac_010";
    case Family::kSoa:
      return "ipt_soa_100";
    case Family::kOnChip:
      return "ipt_onchip";
    case Family::kRestride:
      return "ipt_restride";
    case Family::kCopy:
      return "ipt_copy";
    case Family::kScale:
      return "ipt_scale";
  }
  return "?";
}

bool needs_index64(std::uint64_t offset, std::uint64_t elements, bool strides) {
  std::uint64_t end = 0;
  // An extent past 2^64 (a fuzzed offset) needs 64-bit indices too; the allocation
  // checks refuse it afterwards.
  if (__builtin_add_overflow(offset, elements, &end)) return true;
  return end >= (std::uint64_t{1} << (strides ? 31 : 32));
}

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

namespace {

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
  Step step =
      launch(Family::kSoa, site, index64,
             " -DVW=" + std::to_string(config.vw) + " -DUNITS=" + std::to_string(config.units) +
                 " -DREGS=" + std::to_string(config.regs),
             groups, config.vw * config.units);
  // Register tiling needs no local tiles; a local argument may not be empty, so it gets
  // one element it never touches.
  step.local_bytes = config.regs > 0 ? elem_size : 2 * std::uint64_t{config.units} * L * elem_size;
  // One bit per item and the start counter after them.
  step.flags = placed(flags, Buffer::kScratch, soa_flag_bytes(items));
  step.args = {buffer_arg(Buffer::kMatrix),
               index_arg(site.offset),
               index_arg(A),
               index_arg(B),
               index_arg(C),
               index_arg(L),
               index_arg(K),
               index_arg(items),
               buffer_arg(step.flags.buffer),
               ulong_arg(step.flags.offset / 4),
               local_arg(step.local_bytes),
               uint_arg(slice_shift)};
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

Step onchip_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                 std::uint64_t cols, const OnChipConfig& config, Region scratch, Region zeroes,
                 bool give_up) {
  check_elem_size(site.elem_size);
  if (!onchip_fits(config, rows, cols) || instances == 0 || instances > UINT32_MAX)
    throw std::logic_error("an on-chip step for a matrix that does not fit");
  const OnChipTile tile = onchip_tile(config, rows, cols);
  const std::size_t group_tiles = onchip_group_tiles(config, tile);
  const std::uint64_t per_round =
      std::min(instances, config.groups * group_tiles / onchip_tiles(config, rows, cols));
  const bool index64 = site.index64 || needs_index64(site.offset, instances * rows * cols);
  Step step =
      launch(Family::kOnChip, site, index64,
             " -DWG=" + std::to_string(config.work_group) + " -DTR=" + std::to_string(tile.rows) +
                 " -DTC=" + std::to_string(tile.cols) + " -DTILES=" + std::to_string(group_tiles) +
                 " -DSTAGE=" + std::to_string(onchip_stage_tiles(config, tile)) +
                 (tile.word > 1 ? " -DIPT_WORDS=" + std::to_string(tile.word)
                                : std::string(tile_layout_option(config.layout))),
             config.groups, config.work_group);
  step.flags = placed(scratch, Buffer::kZeroScratch, kOnChipScratchBytes);
  if (step.flags.buffer != Buffer::kZeroScratch)
    throw std::logic_error("the on-chip kernel's scratch is not zero scratch");
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset), uint_arg(rows), uint_arg(cols),
               uint_arg(instances), uint_arg(per_round), buffer_arg(step.flags.buffer),
               ulong_arg(step.flags.offset / 4),
               // Waiting for one group more than launched never ends: the fallback.
               uint_arg(config.groups + (give_up ? 1 : 0)),
               uint_arg(give_up ? 16u : config.patience)};
  add_zeroing(step, zeroes);
  step.args.push_back(buffer_arg(Buffer::kReport));
  step.touches = instances * rows * cols;
  step.move = permute(instances, rows, cols, 1);
  if (instances == 1)
    step.what =
        "on chip, in one kernel (one pass: every element read, a grid barrier, every "
        "element written; when the device cannot run every work-group at once, the same "
        "kernel follows the permutation's cycles instead)";
  else
    step.what = "010! on " + shape_text(instances, rows, cols) + ": on chip, rounds of whole " +
                std::to_string(rows) + " x " + std::to_string(cols) +
                " instances (cycle following in the same kernel if the device cannot run every "
                "work-group at once)";
  if (config.layout == TileLayout::kSwizzled) step.what += "; swizzled tiles";
  if (tile.word > 1)
    step.what += "; moved as 4-byte words, tiles of " + std::to_string(tile.rows) + " x " +
                 std::to_string(tile.cols);
  return with_split(std::move(step), site);
}

Step onchip_probe_step(const Step& onchip, ProbeGroups groups) {
  if (onchip.family != Family::kOnChip) throw std::logic_error("a probe of a non-on-chip step");
  Step probe = onchip;
  if (groups == ProbeGroups::kOne) probe.global[0] = probe.local[0];
  const std::uint64_t launched = probe.global[0] / probe.local[0];
  const std::uint64_t awaited = launched + (groups == ProbeGroups::kOneMore ? 1 : 0);
  probe.args = {buffer_arg(Buffer::kMatrix),
                index_arg(0),
                uint_arg(1),
                uint_arg(1),
                uint_arg(1),
                uint_arg(1),
                buffer_arg(Buffer::kZeroScratch),
                ulong_arg(0),
                uint_arg(awaited),
                uint_arg(kOnChipPatience),
                buffer_arg(Buffer::kZeroScratch),
                ulong_arg(0),
                ulong_arg(0),
                buffer_arg(Buffer::kReport)};
  probe.flags = {Buffer::kZeroScratch, 0, kOnChipScratchBytes};
  probe.zeroes = {};
  probe.touches = 1;
  probe.move = permute(1, 1, 1, 1);
  if (!onchip.tail.empty())  // a split kernel's tail, never reached
    probe.args.insert(probe.args.end(),
                      {buffer_arg(Buffer::kZeroScratch), ulong_arg(0), index_arg(1)});
  probe.what = "probe of the on-chip kernel";
  return probe;
}

Step restride_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t s_in,
                   std::uint64_t s_out, const RestrideConfig& config, Region scratch) {
  check_elem_size(site.elem_size);
  if (config.work_group == 0 || config.per_item == 0)
    throw std::invalid_argument("restride: work_group and per_item must be positive");
  if (s_in < len || s_out < len)
    throw std::invalid_argument("restride: a stride is shorter than the row");
  if (rows <= 1 || len == 0 || s_in == s_out)
    return nothing(Family::kRestride, "restride: nothing moves");
  // 1- and 2-byte elements move in 4-byte words (1-byte ones at least in pairs) where
  // every row starts on a unit's boundary in both layouts and is whole units long: the
  // restride of those units, with the same bytes per work-item, so the same chunks and
  // flags. Moved one by one, 1-byte rows closed up at a third of a float row's speed. A
  // split matrix (kernels/common.cl) keeps its units whole where the split and the tail's
  // place are multiples of the unit.
  const std::uint64_t run = std::gcd(std::gcd(len, config.per_item), std::gcd(s_in, s_out));
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
  const std::uint64_t chunk = config.work_group * config.per_item;
  const std::uint64_t chunks = (rows * len + chunk - 1) / chunk;
  Step step = launch(Family::kRestride, at, index64,
                     " -DWG=" + std::to_string(config.work_group) +
                         " -DPER_ITEM=" + std::to_string(config.per_item / unit),
                     chunks, config.work_group);
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
  const std::uint64_t touches = step.touches;  // elements, not units
  step = with_split(std::move(step), at);
  step.touches = site.split == 0 ? touches : std::min(touches, site.split);
  return step;
}

Step copy_step(const StepSite& site, Buffer from, std::uint64_t from_at, Buffer to,
               std::uint64_t to_at, std::uint64_t count, Region zeroes) {
  check_elem_size(site.elem_size);
  const std::uint64_t zero_words = zeroes.bytes / 4;
  if (count == 0 && zero_words == 0) return nothing(Family::kCopy, "copy: nothing");
  // The matrix's offsets count from its start; the kernel's from its buffer's.
  const std::uint64_t src = from == Buffer::kMatrix ? site.offset + from_at : from_at;
  const std::uint64_t dst = to == Buffer::kMatrix ? site.offset + to_at : to_at;
  const bool index64 = site.index64 || needs_index64(std::max(src, dst), count);
  constexpr std::uint64_t kWorkGroup = 256;
  // A few elements per work-item for large copies; a grid of at most 1024 groups.
  const std::uint64_t items = std::max(count, zero_words);
  const std::uint64_t groups = std::min<std::uint64_t>(1024, (items + kWorkGroup - 1) / kWorkGroup);
  Step step = launch(Family::kCopy, site, index64, "", groups, kWorkGroup);
  step.args = {buffer_arg(from), index_arg(src), buffer_arg(to), index_arg(dst), index_arg(count)};
  add_zeroing(step, zeroes);
  step.touches = std::max(from == Buffer::kMatrix ? from_at + count : 0,
                          to == Buffer::kMatrix ? to_at + count : 0);
  step.move.kind = Move::Kind::kCopy;
  step.move.from = from;
  step.move.to = to;
  step.move.from_at = from_at;
  step.move.to_at = to_at;
  step.move.count = count;
  step.what = std::string(to == Buffer::kMatrix ? "give back " : "keep ") + std::to_string(count) +
              " element(s) past the matrix" + (to == Buffer::kMatrix ? "" : " in scratch");
  return step;
}

Step scale_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t stride,
                const ElementTransform& transform) {
  check_elem_size(site.elem_size);
  if (stride < len) throw std::invalid_argument("scale: the stride is shorter than the row");
  if (rows == 0 || len == 0 || transform.identity())
    return nothing(Family::kScale, "scale: nothing to do");
  const std::uint64_t extent = (rows - 1) * stride + len;
  const bool index64 = site.index64 || needs_index64(site.offset, extent);
  constexpr std::uint64_t kWorkGroup = 256;
  // A few elements per work-item for large matrices: a grid of at most 4096 groups.
  const std::uint64_t groups =
      std::min<std::uint64_t>(4096, (rows * len + kWorkGroup - 1) / kWorkGroup);
  Step step = launch(Family::kScale, site, index64, "", groups, kWorkGroup);
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset), index_arg(rows), index_arg(len),
               index_arg(stride)};
  step.touches = extent;
  step.move = permute(1, 1, 1, 1);  // values change, places do not
  step.what = std::to_string(rows) + " rows of " + std::to_string(len) + " elements (stride " +
              std::to_string(stride) + ")";
  add_transform(step, transform, site.elem_size);
  return step;
}

bool can_transform(const Step& step) {
  return !step.noop() && (step.family == Family::kRestride || step.family == Family::kBs ||
                          step.family == Family::kSquare || step.family == Family::kSoa ||
                          step.family == Family::kScale);
}

Step transformed_step(Step step, const ElementTransform& transform, std::size_t elem_size) {
  if (!can_transform(step))
    throw std::logic_error("a transform asked of " + step.what + ", which stores no value once");
  if (step.transformed) throw std::logic_error("a transform asked twice of " + step.what);
  if (step.unit_bytes != elem_size)
    throw std::logic_error("a transform of " + std::to_string(elem_size) +
                           "-byte elements asked of " + step.what + ", which moves other units");
  add_transform(step, transform, elem_size);
  return step;
}

Step square_step(const StepSite& site, std::uint64_t n, const SquarePlan& plan) {
  check_elem_size(site.elem_size);
  if (plan.layout == TileLayout::kSwizzled && (plan.tile & (plan.tile - 1)) != 0)
    throw std::invalid_argument("square: swizzled tiles need a power-of-two tile, not " +
                                std::to_string(plan.tile));
  // Every index the kernel forms is below offset + matrices * n * n; the pair arithmetic
  // stays far below it.
  const std::uint64_t elements = plan.matrices * n * n;
  const bool index64 = site.index64 || needs_index64(site.offset, elements, /*strides=*/false);
  // Word tiles keep the work-group's size: TILE / word x WG_ROWS * word work-items.
  const std::size_t word =
      square_words(plan, n, site.elem_size, site.offset, site.split != 0, site.local_mem_bytes);
  const std::size_t rows = plan.wg_rows * word;
  Step step = launch(Family::kSquare, site, index64,
                     " -DTILE=" + std::to_string(plan.tile) + " -DWG_ROWS=" + std::to_string(rows) +
                         (word > 1 ? " -DIPT_WORDS=" + std::to_string(word)
                                   : std::string(tile_layout_option(plan.layout))),
                     plan.grid_x, plan.tile / word);
  step.dims = 2;
  step.global[1] = plan.grid_y * rows;
  step.local[1] = rows;
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset), index_arg(n),
               index_arg(plan.num_pairs), index_arg(plan.matrices)};
  step.touches = elements;
  step.move = permute(plan.matrices, n, n, 1);
  step.what = "tiled swap across the diagonal: tiles of " + std::to_string(plan.tile) + " x " +
              std::to_string(plan.tile) + ", work-groups of " + std::to_string(plan.tile / word) +
              " x " + std::to_string(rows);
  if (plan.layout == TileLayout::kSwizzled) step.what += ", swizzled tiles";
  if (word > 1) step.what += ", moved as 4-byte words";
  if (plan.matrices > 1) step.what += ", " + std::to_string(plan.matrices) + " matrices";
  return with_split(std::move(step), site);
}

}  // namespace ipt::planner
