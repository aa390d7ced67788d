// SPDX-License-Identifier: Apache-2.0
// plan_call: from a call's shape to its launch plan. The sequence comes from
// plan_transpose; this file lays out the call's scratch and turns the sequence into
// steps, deciding which kernel zeroes which flags so that a call needs as few commands
// as possible.
#include "planner/launch_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "planner/batch_plan.hpp"
#include "planner/kernel_variants.hpp"
#include "planner/narrow_words.hpp"

namespace ipt::planner {
namespace {

// Hands out aligned regions of the call scratch and of the zero scratch.
class ScratchLayout {
 public:
  Region take(Buffer buffer, std::uint64_t bytes) {
    if (bytes == 0) return {};
    std::uint64_t& total = buffer == Buffer::kZeroScratch ? zero_total_ : total_;
    const Region region{buffer, total, bytes};
    total += scratch_aligned(bytes);
    return region;
  }
  std::uint64_t total() const { return total_; }
  std::uint64_t zero_total() const { return zero_total_; }

 private:
  std::uint64_t total_ = 0, zero_total_ = 0;
};

// Whether a stage's kernel can zero words of another buffer on the way: the BS and the
// on-chip kernels can.
bool zeroes_on_the_way(const Stage& stage, const DeviceProfile& device, std::size_t elem_size) {
  return stage.onchip ||
         (stage.kind == Stage::Kind::k010 && bs_fits(device, stage.B, stage.C, elem_size));
}

// The stages that launch a kernel (a factor of 1 moves nothing).
std::vector<const Stage*> moving_stages(const TransposePlan& plan) {
  std::vector<const Stage*> stages;
  for (const Stage& stage : plan.stages)
    if (!stage.identity()) stages.push_back(&stage);
  return stages;
}

// Narrow elements in wider words. A 0100! stage moves super-elements of C contiguous
// elements: when C elements of 1 or 2 bytes make whole 4-byte (or 2-byte) words, and the
// matrix's offset and a split fall on word boundaries (word_factor), the SoA kernel moves
// such words instead, the same permutation with fewer and wider accesses: element by
// element it moved 2-byte elements at 60% of the throughput of 4-byte ones, 1-byte ones
// at 40%. The others move in the words of their destination (SoaConfig::words), except
// in a split matrix.
struct SoaLaunch {
  std::uint64_t word = 1;  // elements per word
  std::size_t word_bytes = 1;
  SoaConfig config;  // for the words
};

SoaLaunch soa_launch(const Stage& stage, const StepSite& site, const DeviceProfile& device) {
  SoaLaunch launch;
  launch.word = word_factor(device, site.elem_size, stage.C, site.offset, site.split);
  launch.word_bytes = site.elem_size * launch.word;
  launch.config = choose_soa(device, stage.C / launch.word, launch.word_bytes, site);
  return launch;
}

// Flag bytes of a stage's cycle following (0100! stages; 010! by PTTWAC with global
// flags), 0 for the others.
std::uint64_t stage_flag_bytes(const Stage& stage, const DeviceProfile& device,
                               const StepSite& site) {
  if (stage.identity() || stage.onchip) return 0;
  const std::size_t elem_size = site.elem_size;
  if (stage.kind == Stage::Kind::k0100) {
    const SoaLaunch soa = soa_launch(stage, site, device);
    return soa_launch_flag_bytes(soa.config, device.local_mem_bytes, soa.word_bytes, stage.I,
                                 stage.A, stage.B, stage.C / soa.word);
  }
  if (bs_fits(device, stage.B, stage.C, elem_size)) return 0;
  return pttwac_launch_flag_bytes(choose_pttwac(device, stage.B, stage.C), device.local_mem_bytes,
                                  elem_size, stage.I * stage.A, stage.B, stage.C);
}

// A 010! stage of a split matrix (a padded plan in a buffer of just the caller's matrix)
// in two kernels: the instances that lie wholly before the split, in the buffer alone,
// then the others (all but the last one or two lie before it). A split kernel chooses the
// buffer at every access (of a word, where it moves words or blocks): on an H200 such
// on-chip stages ran at half the speed of the same ones unsplit (1-byte elements in word
// tiles), a fifth slower (4-byte); in two kernels the padded shapes took 5-21%
// less time (docs/results/split-stage.log). 8-byte elements lost nothing to the split and
// would pay the extra launch, so wider elements keep one kernel. A BS kernel chooses the
// buffer once per chunk of tiles (kernels/bs.cl), so only its word tiles of 1- and 2-byte
// elements, which need one buffer, gain from a kernel without the split. The instances
// before the split; 0 where the stage stays whole: no split, wide elements, BS without
// word tiles, a cycle-following 010! (its flags are one launch's), or too few bytes
// before the split to pay for a launch.
constexpr std::uint64_t kSplitStageFromBytes = std::uint64_t{16} << 20;
std::uint64_t instances_before_split(const Stage& stage, const StepSite& site,
                                     const DeviceProfile& device) {
  if (site.split == 0 || site.elem_size > 4 || stage.kind != Stage::Kind::k010 || stage.identity())
    return 0;
  if (!stage.onchip &&
      (!bs_fits(device, stage.B, stage.C, site.elem_size) ||
       !choose_bs(device, stage.I * stage.A, stage.B, stage.C, site.elem_size).words ||
       narrow_word(site.elem_size, site.offset, false, stage.B * stage.C) == 1))
    return 0;
  const std::uint64_t instances = stage.I * stage.A, each = stage.B * stage.C;
  // The rest starts before the split (split 0 would say "no split" to its kernel).
  const std::uint64_t before = std::min(instances, (site.split - 1) / each);
  if (before == instances || before * each * site.elem_size < kSplitStageFromBytes) return 0;
  return before;
}

// A split at the caller's M * N elements (a padded plan in a buffer of just the matrix)
// rarely falls on a word of 1- or 2-byte elements, and a 100! kernel then moves them
// element by element (on an H200 the 100! stage of 19101 x 15761 bytes took 0.365 ms so
// against 0.220 ms in words), an on-chip kernel without blocks (the instance that reaches
// past the buffer ran at 14-17% of copy in 1-byte word tiles). The stages can split
// instead where a word starts: the caller's elements past that point (fewer than a word)
// are copied to scratch before the first stage, just before the tail, and back after the
// last. The elements kept so: the fewest that give a 100! stage wider words and every
// on-chip stage its blocks, 0 where none gains or the matrix is too small for two more
// launches to pay (kSplitStageFromBytes).
std::uint64_t split_kept_elements(const std::vector<const Stage*>& stages, std::uint64_t split,
                                  std::uint64_t offset, std::size_t elem_size,
                                  const DeviceProfile& device, TileLayout onchip_tiles) {
  if (split * elem_size < kSplitStageFromBytes) return 0;
  // Words of elements, powers of two: a split on the widest is on each of the others.
  std::uint64_t word = 1;
  const OnChipConfig onchip = choose_onchip(device, elem_size, onchip_tiles);
  for (const Stage* stage : stages)
    if (stage->onchip)
      word = std::max(word, onchip_block(onchip, elem_size, offset, stage->B, stage->C));
  const std::uint64_t widest =
      widest_word_factor(site_word_bytes(device.word_bytes, true), elem_size);
  for (std::uint64_t w = widest; w > word && split % w != 0; w /= 2)
    if (std::any_of(stages.begin(), stages.end(), [&](const Stage* stage) {
          return stage->kind == Stage::Kind::k0100 &&
                 word_factor(device, elem_size, stage->C, offset, split - split % w) >
                     word_factor(device, elem_size, stage->C, offset, split);
        })) {
      word = w;
      break;
    }
  return split % word;
}

Step stage_step(const StepSite& site, const DeviceProfile& device, const Stage& stage, Region flags,
                Region zeroes, const PlanOverrides& overrides) {
  const std::size_t elem_size = site.elem_size;
  if (stage.onchip)
    return onchip_step(site, stage.I * stage.A, stage.B, stage.C,
                       choose_onchip(device, elem_size, overrides.request.onchip_tiles), flags,
                       zeroes, overrides.onchip_abort);
  if (stage.kind == Stage::Kind::k010) {
    const std::uint64_t tiles = stage.I * stage.A;
    if (bs_fits(device, stage.B, stage.C, elem_size))
      return bs_step(site, tiles, stage.B, stage.C,
                     choose_bs(device, tiles, stage.B, stage.C, elem_size), zeroes);
    if (!zeroes.empty()) throw std::logic_error("PTTWAC 010! asked to zero words");
    return pttwac_step(site, tiles, stage.B, stage.C, choose_pttwac(device, stage.B, stage.C),
                       flags);
  }
  if (!zeroes.empty()) throw std::logic_error("SoA-ASTA asked to zero words");
  const SoaLaunch soa = soa_launch(stage, site, device);
  return soa_step(site, stage.I, stage.A, stage.B, stage.C, soa.config, flags, soa.word);
}

// The undo of `forward`: `inverse`, the step of the inverse transposition, unless that is
// an on-chip step of another program than forward's (blocks or word tiles that fit a
// shape one way only); then the same transposition by the kernel's cycle following alone
// (onchip_cycles_step). Every call builds its undo programs before its first command, so
// that undoing it never builds anything, yet runs them only when a later command fails;
// such inverse programs of 1-byte elements, in word tiles, took the driver of an H200
// 2.5-5 s each to build with its cache cold, most of their calls' first-call time.
Step undo_step(const Step& forward, Step inverse, const StepSite& site, const DeviceProfile& device,
               const PlanOverrides& overrides) {
  if (inverse.family != Family::kOnChip || variant_of(inverse) == variant_of(forward))
    return inverse;
  // An on-chip step's move is the transposition of its I instances of A x B.
  const Move& move = inverse.move;
  return onchip_cycles_step(site, move.I, move.A, move.B,
                            choose_onchip(device, site.elem_size, overrides.request.onchip_tiles),
                            inverse.flags);
}

// A stage's step and its undo.
std::pair<Step, Step> stage_and_undo(const StepSite& site, const DeviceProfile& device,
                                     const Stage& stage, Region flags, Region zeroes,
                                     const PlanOverrides& overrides) {
  Step step = stage_step(site, device, stage, flags, zeroes, overrides);
  Step undo = undo_step(step, stage_step(site, device, inverse(stage), flags, {}, overrides), site,
                        device, overrides);
  return {std::move(step), std::move(undo)};
}

// "010! on (I, B, C), its <which>: " and what the family says of the part's kernel.
void name_stage_part(Step& step, const Stage& stage, const std::string& which) {
  const std::size_t colon = step.what.find(": ");
  const std::string own = step.what.rfind("010! on ", 0) == 0 && colon != std::string::npos
                              ? step.what.substr(colon + 2)
                              : step.what;
  step.what = "010! on (" + std::to_string(stage.I * stage.A) + ", " + std::to_string(stage.B) +
              ", " + std::to_string(stage.C) + "), its " + which + ": " + own;
}

// A stage's kernels (each with its undo) for its first `before` instances, in the buffer
// alone, and for the rest, from the first element after them (instances_before_split).
std::array<std::pair<Step, Step>, 2> stage_in_two(const StepSite& site, const DeviceProfile& device,
                                                  const Stage& stage, std::uint64_t before,
                                                  Region head_flags, Region rest_flags,
                                                  Region head_zeroes, Region rest_zeroes,
                                                  const PlanOverrides& overrides) {
  Stage head = stage, rest = stage;
  head.I = rest.I = 1;
  head.A = before;
  rest.A = stage.I * stage.A - before;
  StepSite head_site = site, rest_site = site;
  head_site.split = 0;
  head_site.tail = {};
  const std::uint64_t skip = before * stage.B * stage.C;
  rest_site.offset += skip;
  rest_site.split -= skip;
  auto first = stage_and_undo(head_site, device, head, head_flags, head_zeroes, overrides);
  name_stage_part(first.first, stage,
                  "first " + std::to_string(head.A) + " instances (in the buffer)");
  auto last = stage_and_undo(rest_site, device, rest, rest_flags, rest_zeroes, overrides);
  for (Step* step : {&last.first, &last.second}) {
    step->move.base = skip;  // its moves count from its own first element
    step->touches += skip;
    name_stage_part(*step, stage, "last " + std::to_string(rest.A) + " (reaching past the buffer)");
  }
  return {std::move(first), std::move(last)};
}

// The steps of a plan whose every kernel runs (not the whole-matrix on-chip kernel).
//
// Room: the padded matrix runs past the caller's. Where the buffer has room for it
// (`room` elements from the matrix's start), the elements there are kept in scratch and
// given back at the end (borrowed), so that the buffer beyond the matrix is as the caller
// left it. Where it has not, the padded matrix is split: its elements past the caller's
// live in call scratch, and every kernel addresses them there (kernels/common.cl).
//
// Zeroing: the flags of the call scratch must be zero before the kernels that use them. A
// call that borrows saves the borrowed bytes first, and that copy zeroes them; a call
// that starts with a BS or on-chip kernel has that kernel zero them; otherwise one fill
// does (a command: on an H200 the first kernel started 23-27 us after the call's marker
// with a fill before it, 10-13 us without). When the last kernel can zero words on the
// way (BS or on-chip, and not also the first) and no unpad follows it, the earlier
// steps' flags (its stages' and a pad's) live in zero scratch instead, which they find
// zero and that last kernel leaves zero for the next call: a call starting with a
// cycle-following stage (2.2), or with a pad, needs no fill either.
void add_sequence_steps(LaunchPlan& launch, const DeviceProfile& device,
                        const PlanOverrides& overrides, std::uint64_t room, const CallShape& call) {
  const bool undo_last = call.undo_last;
  const TransposePlan& plan = launch.transpose;
  const std::size_t elem_size = launch.elem_size;
  const std::uint64_t M = plan.rows, N = plan.cols;
  // The stages share the index width of the padded matrix; the other steps take their
  // own extent's.
  StepSite site{elem_size, launch.offset, device.local_mem_bytes, false};
  ScratchLayout layout;
  const std::uint64_t extra = plan.padded_elements() - M * N;
  const bool split = plan.padded_elements() > room;
  const std::uint64_t tail = split ? 0 : extra;  // borrowed elements
  const std::vector<const Stage*> stages = moving_stages(plan);
  // The caller's last elements that the stages keep in scratch with the tail
  // (split_kept_elements); the pad and the unpad split at M * N.
  const std::uint64_t kept = split ? split_kept_elements(stages, M * N, launch.offset, elem_size,
                                                         device, overrides.request.onchip_tiles)
                                   : 0;
  const Region saved = layout.take(Buffer::kScratch, (extra + kept) * elem_size);
  launch.borrowed_bytes = tail * elem_size;
  if (split) {
    site.split = launch.split = M * N;
    site.tail =
        launch.split_tail = {saved.buffer, saved.offset + kept * elem_size, extra * elem_size};
  }
  StepSite stage_site = site;
  stage_site.index64 = needs_index64(launch.offset, plan.batch_elements());
  if (kept > 0) {
    stage_site.split = M * N - kept;
    stage_site.tail = saved;
  }
  const std::uint64_t flags_start = layout.total();
  const RestrideConfig restride = choose_restride(device, elem_size, plan.padded_elements());
  const bool pads = plan.padded_cols != N, unpads = plan.padded_rows != M;
  const bool square = plan.sequence == Sequence::kSquare;
  // An unpad runs after the last stage, so its flags could not be zeroed by it.
  const bool by_last = call.zero_scratch_flags && !unpads && stages.size() >= 2 &&
                       zeroes_on_the_way(*stages.back(), device, elem_size);
  Region pad_flags, unpad_flags;
  if (pads && M > 1)
    pad_flags = layout.take(by_last ? Buffer::kZeroScratch : Buffer::kScratch,
                            restride_scratch_bytes(restride, M * N));
  std::vector<Region> stage_flags(stages.size());
  // Flags the last kernel leaves zero go first in the zero scratch (the pad's above), in
  // one range that holds no on-chip stage's words (that kernel must not clear its own
  // scratch).
  if (by_last)
    for (std::size_t i = 0; i < stages.size(); ++i)
      if (!stages[i]->onchip)
        stage_flags[i] =
            layout.take(Buffer::kZeroScratch, stage_flag_bytes(*stages[i], device, stage_site));
  const Region zeroed_by_last{Buffer::kZeroScratch, 0, layout.zero_total()};
  // A stage in two kernels (instances_before_split): each on-chip kernel its own scratch.
  std::vector<std::uint64_t> before(stages.size());
  std::vector<Region> rest_flags(stages.size());
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const Stage& stage = *stages[i];
    before[i] = instances_before_split(stage, stage_site, device);
    if (stage.onchip) {
      const std::uint64_t bytes = onchip_scratch_bytes(
          choose_onchip(device, elem_size, overrides.request.onchip_tiles), elem_size);
      stage_flags[i] = layout.take(Buffer::kZeroScratch, bytes);
      if (before[i] != 0) rest_flags[i] = layout.take(Buffer::kZeroScratch, bytes);
    } else if (!by_last) {
      stage_flags[i] = layout.take(Buffer::kScratch, stage_flag_bytes(stage, device, stage_site));
    }
  }
  if (unpads && N > 1)
    unpad_flags = layout.take(Buffer::kScratch, restride_scratch_bytes(restride, M * N));
  const Region flags{Buffer::kScratch, flags_start, layout.total() - flags_start};

  const bool first_zeroes = tail == 0 && !pads && !square && !stages.empty() &&
                            zeroes_on_the_way(*stages.front(), device, elem_size);
  if (tail == 0 && !first_zeroes) launch.fill = flags;
  // Each step with the step that undoes it. Identities (a dimension of 1 in a step's
  // view) launch nothing.
  const auto add = [&launch](Step step, Step undo) {
    if (step.noop()) return;
    if (undo.noop() || !undo.zeroes.empty())
      throw std::logic_error("the inverse of " + step.what + " launches nothing or zeroes words");
    undo.fill_before = undo.flags;
    undo.what = "undo " + step.what;
    launch.steps.push_back(std::move(step));
    launch.undo.push_back(std::move(undo));
  };
  const std::uint64_t saved_at = saved.offset / elem_size;
  if (tail > 0)
    add(copy_step(site, Buffer::kMatrix, M * N, Buffer::kScratch, saved_at, tail, flags),
        copy_step(site, Buffer::kScratch, saved_at, Buffer::kMatrix, M * N, tail));
  if (pads)
    add(restride_step(site, M, N, N, plan.padded_cols, restride, pad_flags),
        restride_step(site, M, N, plan.padded_cols, N, restride, pad_flags));
  // The caller's elements the stages find in scratch: there for the stages, back after.
  StepSite plain = site;
  plain.split = 0;
  plain.tail = {};
  const auto keep_for_stages = [&](bool in) {
    const auto copy = [&](bool into_scratch) {
      Step step = into_scratch ? copy_step(plain, Buffer::kMatrix, M * N - kept, Buffer::kScratch,
                                           saved.offset / elem_size, kept)
                               : copy_step(plain, Buffer::kScratch, saved.offset / elem_size,
                                           Buffer::kMatrix, M * N - kept, kept);
      step.what = std::string(into_scratch ? "keep " : "give back ") + "the matrix's last " +
                  std::to_string(kept) + " element(s)" +
                  (into_scratch ? " in scratch, so that the stages split it on a word"
                                : " kept in scratch");
      return step;
    };
    add(copy(in), copy(!in));
  };
  if (kept > 0) keep_for_stages(true);
  if (square) {
    SquarePlan square_plan;
    try {
      square_plan = plan_square(device, plan.padded_rows, elem_size, overrides.square_tile,
                                overrides.square_wg_rows, overrides.square_tiles);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("square kernel: ") + e.what());
    }
    if (overrides.square_vectors) square_plan.vectors = *overrides.square_vectors;
    if (overrides.square_bands)
      square_plan.band = *overrides.square_bands ? square_band(elem_size) : 0;
    if (plan.batch > 1)
      square_plan =
          complete_square_plan(square_plan, plan.padded_rows, std::uint64_t{1} << 20, plan.batch);
    const Step swap = square_step(site, plan.padded_rows, square_plan);
    add(swap, swap);  // its own inverse
  }
  for (std::size_t i = 0; i < stages.size(); ++i) {
    Region zeroes;
    if (i == 0 && first_zeroes) zeroes = flags;
    const bool last_zeroes = i + 1 == stages.size() && i > 0 && by_last && !zeroed_by_last.empty();
    if (last_zeroes) zeroes = zeroed_by_last;
    const Stage& stage = *stages[i];
    if (before[i] == 0) {
      auto [step, undo] =
          stage_and_undo(stage_site, device, stage, stage_flags[i], zeroes, overrides);
      add(std::move(step), std::move(undo));
      continue;
    }
    // The first kernel zeroes what the stage's first would, the last what its last would.
    for (auto& [step, undo] :
         stage_in_two(stage_site, device, stage, before[i], stage_flags[i], rest_flags[i],
                      last_zeroes ? Region{} : zeroes, last_zeroes ? zeroes : Region{}, overrides))
      add(std::move(step), std::move(undo));
  }
  if (kept > 0) keep_for_stages(false);
  // The padded transpose has padded_cols rows of padded_rows; the first N are ours.
  if (unpads)
    add(restride_step(site, N, M, plan.padded_rows, M, restride, unpad_flags),
        restride_step(site, N, M, M, plan.padded_rows, restride, unpad_flags));
  if (tail > 0)
    add(copy_step(site, Buffer::kScratch, saved_at, Buffer::kMatrix, M * N, tail),
        copy_step(site, Buffer::kMatrix, M * N, Buffer::kScratch, saved_at, tail));
  // With two splits, each move says which is its own (Move::split), from where its tail
  // starts: the tail of the split at M * N starts `kept` elements into `saved`.
  if (kept > 0)
    for (auto* list : {&launch.steps, &launch.undo})
      for (Step& step : *list)
        if (!step.tail.empty()) {
          const std::uint64_t own_split =
              M * N - (launch.split_tail.offset - step.tail.offset) / elem_size;
          step.move.split = own_split - step.move.base;
          step.move.tail_at = step.tail.offset / elem_size;
        }
  // The last step needs none: when its command fails, every other one has been enqueued
  // and is undone; when it is enqueued, the call has succeeded. Unless more follow.
  if (!launch.undo.empty() && !undo_last) launch.undo.pop_back();
  launch.scratch_bytes = layout.total();
  launch.zero_scratch_bytes = layout.zero_total();
}

// A matrix larger than one allocation: refused before the factor search, whose time grows
// with the square root of the sides, unless it lies in a buffer that holds it (`capacity`
// elements from its start). Some drivers (NVIDIA's) allocate buffers past the
// CL_DEVICE_MAX_MEM_ALLOC_SIZE they report; a buffer still cannot pass the device's
// memory, which OpenCL keeps within 4 such allocations: the bound for those.
void check_one_allocation(const DeviceProfile& device, const char* what, std::uint64_t rows,
                          std::uint64_t cols, std::size_t elem_size, std::uint64_t offset,
                          std::uint64_t capacity = 0) {
  std::uint64_t elements = 0, matrix = 0, bytes = 0, most = device.max_alloc_bytes;
  const bool overflow = __builtin_mul_overflow(rows, cols, &matrix) ||
                        __builtin_add_overflow(matrix, offset, &elements) ||
                        __builtin_mul_overflow(elements, std::uint64_t{elem_size}, &bytes);
  const bool in_buffer = capacity != kNoBuffer && capacity >= matrix;
  if (!overflow && in_buffer && most != 0 && most <= UINT64_MAX / 4) most *= 4;
  if (overflow || (most != 0 && bytes > most))
    throw MatrixTooLarge(
        std::string(what) + " of " + std::to_string(rows) + " x " + std::to_string(cols) +
        " elements of " + std::to_string(elem_size) + " bytes (" +
        (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
        " bytes with its offset of " + std::to_string(offset) +
        " elements) is larger than one allocation of the device holds (" +
        std::to_string(device.max_alloc_bytes) + " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)" +
        (in_buffer ? ", times 4 for a buffer that holds it" : ""));
}

// The plan of a call (plan_call, past its checks) with automatic padding within `padding`.
LaunchPlan plan_with_padding(const DeviceProfile& device, const CallShape& call,
                             const PlanOverrides& overrides, const PaddingLimits& padding) {
  LaunchPlan launch;
  launch.elem_size = call.elem_size;
  launch.offset = call.offset;
  // Automatic padding may keep what does not fit the buffer in scratch (a split matrix),
  // so it plans as for a buffer with room; a forced padded shape needs the room.
  // The buffer holds the matrix (the API checks it): a capacity below it (a caller's
  // max_bytes smaller than the matrix) lends nothing past it, as a capacity of 0 does.
  const PlanRequest& request = overrides.request;
  const bool forced_shape = request.padded_rows != 0 || request.padded_cols != 0;
  const std::uint64_t room = std::max(call.capacity, call.rows * call.cols);
  launch.transpose = plan_transpose(device, call.rows, call.cols, call.elem_size, request, {},
                                    forced_shape ? room : ~std::uint64_t{0}, padding);
  const TransposePlan& plan = launch.transpose;
  if (plan.onchip) {
    // One command, which falls back by itself; it needs no call scratch, so nothing to
    // zero before it.
    const StepSite site{call.elem_size, call.offset, device.local_mem_bytes, false};
    const OnChipConfig config = choose_onchip(device, call.elem_size, request.onchip_tiles);
    launch.steps.push_back(
        onchip_step(site, 1, plan.rows, plan.cols, config, {}, {}, overrides.onchip_abort));
    launch.zero_scratch_bytes = launch.steps.back().flags.bytes;
    if (call.undo_last) {
      // The transposed matrix transposed back, in the same zero scratch, which the
      // runtime zeroes before it as before any undo.
      Step undo = undo_step(launch.steps.back(),
                            onchip_step(site, 1, plan.cols, plan.rows, config, {}, {}, false), site,
                            device, overrides);
      undo.fill_before = undo.flags;
      undo.what = "undo " + launch.steps.back().what;
      launch.undo.push_back(std::move(undo));
    }
    return launch;
  }
  add_sequence_steps(launch, device, overrides, room, call);
  return launch;
}

}  // namespace

void check_allocations(const LaunchPlan& launch, const DeviceProfile& device) {
  if (device.max_alloc_bytes == 0) return;
  for (const std::uint64_t bytes : {launch.scratch_bytes, launch.zero_scratch_bytes})
    if (bytes > device.max_alloc_bytes)
      throw ResourceError("the plan needs " + std::to_string(bytes) +
                          " bytes of scratch in one allocation; the device allows " +
                          std::to_string(device.max_alloc_bytes));
}

bool LaunchPlan::uses_onchip() const {
  for (const Step& step : steps)
    if (step.family == Family::kOnChip) return true;
  return false;
}

LaunchPlan plan_of_steps(std::vector<Step> steps, std::size_t elem_size, std::uint64_t offset) {
  LaunchPlan plan;
  plan.elem_size = elem_size;
  plan.offset = offset;
  std::uint64_t fill_begin = ~std::uint64_t{0}, fill_end = 0;
  for (Step& step : steps) {
    if (step.noop()) continue;
    for (const Region* region : {&step.flags, &step.zeroes}) {
      if (region->empty()) continue;
      const std::uint64_t end = region->offset + region->bytes;
      if (region->buffer == Buffer::kZeroScratch)
        plan.zero_scratch_bytes = std::max(plan.zero_scratch_bytes, end);
      if (region->buffer != Buffer::kScratch) continue;
      plan.scratch_bytes = std::max(plan.scratch_bytes, end);
      fill_begin = std::min(fill_begin, region->offset);
      fill_end = std::max(fill_end, end);
    }
    // A split matrix's tail is data in the call scratch: sized, never filled.
    if (!step.tail.empty())
      plan.scratch_bytes = std::max(plan.scratch_bytes, step.tail.offset + step.tail.bytes);
    // A copy to or from scratch needs that scratch too (its range is data, not flags; an
    // element at least: the kernel's argument names the buffer even when it copies none).
    const Move& move = step.move;
    if (move.kind == Move::Kind::kCopy)
      for (const auto& [buffer, at] : {std::pair{move.from, move.from_at}, {move.to, move.to_at}}) {
        const std::uint64_t end = (at + std::max<std::uint64_t>(move.count, 1)) * elem_size;
        if (buffer == Buffer::kScratch) plan.scratch_bytes = std::max(plan.scratch_bytes, end);
        if (buffer == Buffer::kZeroScratch)
          plan.zero_scratch_bytes = std::max(plan.zero_scratch_bytes, end);
      }
    plan.steps.push_back(std::move(step));
  }
  if (fill_end > 0) plan.fill = {Buffer::kScratch, fill_begin, fill_end - fill_begin};
  return plan;
}

LaunchPlan plan_stage(const DeviceProfile& device, const Stage& stage, std::size_t elem_size,
                      std::uint64_t offset) {
  const std::uint64_t elements = stage.I * stage.A * stage.B * stage.C;
  const StepSite site{elem_size, offset, device.local_mem_bytes, needs_index64(offset, elements)};
  std::vector<Step> steps;
  if (!stage.identity()) steps.push_back(stage_step(site, device, stage, {}, {}, {}));
  LaunchPlan plan = plan_of_steps(std::move(steps), elem_size, offset);
  check_allocations(plan, device);
  return plan;
}

LaunchPlan plan_stage_part(const DeviceProfile& device, const Stage& stage, std::size_t elem_size,
                           std::uint64_t offset) {
  LaunchPlan plan = plan_stage(device, stage, elem_size, offset);
  if (plan.steps.empty()) return plan;
  const Step& step = plan.steps.front();
  const StepSite site{elem_size, offset, device.local_mem_bytes, step.index64};
  Step undo = undo_step(step, stage_step(site, device, inverse(stage), step.flags, {}, {}), site,
                        device, {});
  undo.fill_before = undo.flags;
  undo.what = "undo " + step.what;
  plan.undo.push_back(std::move(undo));
  return plan;
}

LaunchPlan rollback_plan(const LaunchPlan& plan, std::size_t done) {
  if (done > plan.undo.size()) throw std::logic_error("no undo for a step of the plan");
  LaunchPlan rollback;
  rollback.transpose = plan.transpose;
  rollback.elem_size = plan.elem_size;
  rollback.offset = plan.offset;
  rollback.split = plan.split;
  rollback.split_tail = plan.split_tail;
  rollback.borrowed_bytes = plan.borrowed_bytes;
  rollback.part_matrices = plan.part_matrices;
  rollback.scratch_bytes = plan.scratch_bytes;
  rollback.zero_scratch_bytes = plan.zero_scratch_bytes;
  for (std::size_t i = done; i-- > 0;) rollback.steps.push_back(plan.undo[i]);
  return rollback;
}

namespace {

// A batch as one part: plan_batched_transpose's plan, its stages' steps as for one matrix
// (no padding, so nothing borrowed and nothing split).
LaunchPlan plan_whole_batch(const DeviceProfile& device, const CallShape& call,
                            const PlanOverrides& overrides) {
  LaunchPlan launch;
  launch.elem_size = call.elem_size;
  launch.offset = call.offset;
  launch.transpose = plan_batched_transpose(device, call.batch, call.rows, call.cols,
                                            call.elem_size, overrides.request);
  add_sequence_steps(launch, device, overrides, call.rows * call.cols, call);
  return launch;
}

std::uint64_t extra_bytes(const LaunchPlan& plan) {
  return plan.scratch_bytes + plan.zero_scratch_bytes;
}

// Matrices first .. first + count - 1 of the batch as a part: a smaller batch, or one
// matrix planned as a call of its own (padded, its padding in scratch); its buffer ends
// with its last matrix. Every step has an undo, since more parts may follow.
LaunchPlan plan_part(const DeviceProfile& device, const CallShape& call,
                     const PlanOverrides& overrides, std::uint64_t first, std::uint64_t count) {
  CallShape part = call;
  part.batch = count;
  part.offset = call.offset + first * call.rows * call.cols;
  part.capacity = count * call.rows * call.cols;
  part.undo_last = true;
  return count == 1 ? plan_call(device, part, overrides)
                    : plan_whole_batch(device, part, overrides);
}

}  // namespace

// Appends `part`, whose matrix starts `base` elements after the plan's, to `plan`. The
// parts run one after the other on one scratch: each leaves its zero scratch zero, and
// the call scratch it finds zero at its start (its fill) is zeroed before its first step.
void append_part(LaunchPlan& plan, LaunchPlan part, std::uint64_t base) {
  if (!part.fill.empty() && !part.steps.empty()) {
    if (!part.steps.front().fill_before.empty())
      throw std::logic_error("a part's first step is zeroed before it already");
    part.steps.front().fill_before = part.fill;
  }
  for (auto* list : {&part.steps, &part.undo})
    for (Step& step : *list) {
      // The next part's matrix lies where this part's padding would: say where it is
      // (a part that is itself in parts says it of its own steps already, and a part
      // whose stages split elsewhere of every step), counted from the step's own first
      // element (a stage's kernel after the split: move.base).
      if (!step.tail.empty() && part.split != 0 && step.move.split == 0) {
        step.move.split = part.split - step.move.base;
        step.move.tail_at = part.split_tail.offset / part.elem_size;
      }
      step.move.base += base;
      step.touches += base;
    }
  plan.steps.insert(plan.steps.end(), part.steps.begin(), part.steps.end());
  plan.undo.insert(plan.undo.end(), part.undo.begin(), part.undo.end());
  plan.avoided.insert(plan.avoided.end(), part.avoided.begin(), part.avoided.end());
  plan.scratch_bytes = std::max(plan.scratch_bytes, part.scratch_bytes);
  plan.zero_scratch_bytes = std::max(plan.zero_scratch_bytes, part.zero_scratch_bytes);
}

namespace {

// Matrices a part of a batch over its memory budget holds. A part of one matrix is
// planned as a call of its own: padded, at the speed of single calls (a part of several
// follows single-element cycles, ten times slower), and with a matrix's flags only. So
// one matrix a part, unless the matrices are small and many (each part's kernels cost
// microseconds of launch): then as many as keep a part within the budget, fewer in
// proportion to its flags until one fits or holds one matrix.
std::uint64_t matrices_per_part(const DeviceProfile& device, const CallShape& call,
                                const PlanOverrides& overrides, double budget,
                                const LaunchPlan& whole) {
  constexpr std::uint64_t kSingleMatricesUpTo = 64;
  if (call.rows * call.cols >= kMemoryBudgetFrom || call.batch <= kSingleMatricesUpTo) return 1;
  std::uint64_t per_part = call.batch;
  std::uint64_t extra = extra_bytes(whole);
  while (per_part > 1 && static_cast<double>(extra) > budget) {
    const auto fitting = static_cast<std::uint64_t>(static_cast<double>(per_part) * budget /
                                                    static_cast<double>(extra));
    per_part = std::max<std::uint64_t>(1, std::min(fitting, per_part - 1));
    extra = extra_bytes(plan_part(device, call, overrides, 0, per_part));
  }
  return per_part;
}

// A batch. Matrices whose sides have no usable factor (primes) get a plan that follows
// the cycles of single elements, one flag bit per element of the whole batch; where that
// passes the extra memory a large call may take, the batch is transposed in parts, one
// after the other on one scratch (matrices_per_part). Plans forced to a sequence or to
// the on-chip kernel stay one part.
LaunchPlan plan_batch(const DeviceProfile& device, const CallShape& call,
                      const PlanOverrides& overrides) {
  std::uint64_t rows = 0;
  if (__builtin_mul_overflow(call.batch, call.rows, &rows))
    throw MatrixTooLarge("a batch of " + std::to_string(call.batch) + " matrices of " +
                         std::to_string(call.rows) + " x " + std::to_string(call.cols) +
                         " elements is larger than one allocation of the device holds");
  check_one_allocation(device, "a batch", rows, call.cols, call.elem_size, call.offset,
                       call.capacity);
  LaunchPlan whole = plan_whole_batch(device, call, overrides);
  const std::uint64_t elements = rows * call.cols;
  const double budget =
      kMaxExtraMemory * static_cast<double>(elements) * static_cast<double>(call.elem_size);
  const PlanRequest& request = overrides.request;
  const bool automatic = request.auto_sequence && request.onchip != OnChip::kForce;
  if (!automatic || elements < kMemoryBudgetFrom ||
      static_cast<double>(extra_bytes(whole)) <= budget) {
    check_allocations(whole, device);
    return whole;
  }
  const std::uint64_t per_part = matrices_per_part(device, call, overrides, budget, whole);
  LaunchPlan first = plan_part(device, call, overrides, 0, per_part);
  LaunchPlan launch;
  launch.elem_size = call.elem_size;
  launch.offset = call.offset;
  launch.transpose = first.transpose;
  launch.transpose.batch = call.batch;
  launch.part_matrices = per_part;
  launch.fill = first.fill;
  first.fill = {};
  const std::uint64_t matrix = call.rows * call.cols;
  for (std::uint64_t at = 0; at < call.batch; at += per_part) {
    const std::uint64_t count = std::min(per_part, call.batch - at);
    append_part(launch, at == 0 ? std::move(first) : plan_part(device, call, overrides, at, count),
                at * matrix);
  }
  if (!launch.undo.empty() && !call.undo_last) launch.undo.pop_back();
  check_allocations(launch, device);
  return launch;
}

}  // namespace

LaunchPlan plan_call(const DeviceProfile& device, const CallShape& call,
                     const PlanOverrides& overrides) {
  // The factor search and the padding's sizes divide by the sides: an empty matrix would
  // divide by zero, or search the divisors of a 64-bit side for minutes.
  if (call.rows == 0 || call.cols == 0 || call.batch == 0)
    throw std::invalid_argument("an empty matrix (" + std::to_string(call.rows) + " x " +
                                std::to_string(call.cols) + ", batch " +
                                std::to_string(call.batch) + ") has no plan");
  if (call.batch > 1) return plan_batch(device, call, overrides);
  check_one_allocation(device, "a matrix", call.rows, call.cols, call.elem_size, call.offset,
                       call.capacity);
  // A forced padded shape is a matrix of the device too (ipt_plan, without a buffer, asks
  // for no room at all): 2^64 - 1 x 1 would search divisors for minutes.
  const PlanRequest& request = overrides.request;
  const bool forced_shape = request.padded_rows != 0 || request.padded_cols != 0;
  if (forced_shape)
    check_one_allocation(
        device, "the padded matrix", request.padded_rows != 0 ? request.padded_rows : call.rows,
        request.padded_cols != 0 ? request.padded_cols : call.cols, call.elem_size, call.offset);
  // The padding's extra elements come with the flags of the padded plan: where the two
  // pass the extra memory a large matrix may take (1-byte elements: a flag bit per
  // super-element of 96 is 0.13% of the matrix, on top of up to 0.5% of padding), the
  // padding is planned again within what is left, less each time, down to none.
  // Borrowed bytes count too: the caller's buffer holds them (ipt_padded_size asked for
  // them) and the call keeps a copy in scratch, so that a borrowed element costs twice
  // what one kept in scratch costs. Where borrowing passes the bound, the extra elements
  // are kept in scratch, as in a buffer of just the matrix, and ipt_padded_size then asks
  // for no room.
  const std::uint64_t elements = call.rows * call.cols;
  const double bytes = static_cast<double>(elements) * static_cast<double>(call.elem_size);
  const auto excess = [&](const LaunchPlan& plan) {
    return static_cast<double>(extra_bytes(plan) + plan.borrowed_bytes) - kMaxExtraMemory * bytes;
  };
  const bool bounded = !forced_shape && elements >= kMemoryBudgetFrom;
  CallShape planned = call;
  LaunchPlan launch = plan_with_padding(device, planned, overrides, {});
  if (bounded && launch.borrowed_bytes != 0 && excess(launch) > 0) {
    planned.capacity = 0;
    launch = plan_with_padding(device, planned, overrides, {});
  }
  PaddingLimits padding;
  while (bounded && launch.transpose.padded() && excess(launch) > 0) {
    const double padded = static_cast<double>(launch.transpose.padded_elements() - elements);
    const double per_element =
        static_cast<double>(call.elem_size) * (launch.borrowed_bytes != 0 ? 2.0 : 1.0);
    padding.max_overhead =
        std::max(0.0, (padded - excess(launch) / per_element) / static_cast<double>(elements));
    launch = plan_with_padding(device, planned, overrides, padding);
  }
  check_allocations(launch, device);
  return launch;
}

std::string describe(const LaunchPlan& plan) {
  // The sequence's first line, then what each step does; the whole-matrix on-chip
  // kernel is said in that first line already.
  const std::string sequence = describe(plan.transpose);
  std::string out = sequence.substr(0, sequence.find('\n'));
  if (plan.part_matrices != 0) {
    const std::uint64_t batch = plan.transpose.batch;
    const std::uint64_t parts = (batch + plan.part_matrices - 1) / plan.part_matrices;
    out += "\n  in " + std::to_string(parts) + " parts of " + std::to_string(plan.part_matrices) +
           (plan.part_matrices == 1 ? " matrix" : " matrices") +
           ", one after the other on one scratch (the first part's kernels below)";
  }
  if (plan.transpose.onchip) return out;
  // A plan in parts: the steps of its first part's matrices.
  const std::uint64_t first_part = plan.part_matrices * plan.transpose.rows * plan.transpose.cols;
  for (const Step& step : plan.steps)
    if (plan.part_matrices == 0 || step.move.base < first_part) out += "\n  " + step.what;
  return out;
}

}  // namespace ipt::planner
