// SPDX-License-Identifier: Apache-2.0
// The plan of a whole transposition: which sequence of elementary transpositions
// (Sung, Gómez-Luna et al., TPDS 2015 §4) turns the rows x cols row-major matrix into its
// transpose, with which factors m | rows and n | cols, and the view of every stage.
// Pure C++: computed and unit-tested without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/padding_plan.hpp"
#include "planner/sequence.hpp"
#include "planner/tile_layout.hpp"

namespace ipt::planner {

// The one-pass on-chip attempt (families/onchip.hpp) before a plan's stages.
enum class OnChip {
  kAuto,   // on GPUs: the whole matrix when it fits and the regular plan is slow, and
           // 010! stages whose tiles fit the device but not a work-group
  kOff,    // never (neither the whole matrix nor a stage)
  kForce,  // the whole matrix (it must fit): tests, tuning
};

enum class Padding {
  kAuto,  // pad when the buffer has room and the planner expects it to be faster
  kOff,   // never pad
};

// What a caller may force (tests, tuning; IPT_OVERRIDES keys sequence, m, n, padding,
// padded_rows, padded_cols). Zero or kAuto = the planner decides. A forced sequence is
// planned for the caller's shape, unless padded_rows/padded_cols are also given.
struct PlanRequest {
  bool auto_sequence = true;
  Sequence sequence = Sequence::kOneStage;
  std::uint64_t m = 0, n = 0;
  Padding padding = Padding::kAuto;
  std::uint64_t padded_rows = 0, padded_cols = 0;  // forced padded shape (0: planner's)
  OnChip onchip = OnChip::kAuto;
  // How the on-chip kernel stages its tiles (IPT_OVERRIDES onchip.tiles): it decides which
  // tiles fit local memory, hence which matrices fit on chip.
  TileLayout onchip_tiles = TileLayout::kPadded;
};

// Tuning of the factor search (TPDS Algorithm 2): factors strictly inside (min, max).
struct FactorLimits {
  std::uint64_t min_factor = 4;  // smaller tiles make the 100! stages crawl
};

// The extra memory (call and zero scratch: the padding's extra elements and every flag) a
// plan may take for a matrix of kMemoryBudgetFrom elements or more, as a fraction of the
// matrix: README's promise.
inline constexpr double kMaxExtraMemory = 0.006;
inline constexpr std::uint64_t kMemoryBudgetFrom = 1000000;

// The smallest factor a matrix may take for a 100! stage: a flag bit per super-element
// costs 1 / (8 * bytes) of the matrix, so under the memory budget super-elements of fewer
// than 21 bytes would take more than the budget in flags alone (1- and 2-byte elements;
// for 4-byte ones that rules out factors 4 and 5 only). limits.min_factor below that.
std::uint64_t min_factor_for(const FactorLimits& limits, std::uint64_t rows, std::uint64_t cols,
                             std::size_t elem_size);

// The plan for rows x cols elements of elem_size bytes on `device`. Square shapes take
// kSquare; a matrix that fits local memory whole is one BS tile (2.1 with m = rows).
// Otherwise three candidates, each with divisors from min_factor up (TPDS Algorithm 2's
// eligible factors) whose BS tiles fit local memory: 2.1 with the largest m whose m x N
// tile fits, 2.2 with the largest n whose M x n tile fits, and 3.x with the pair (m, n)
// whose two 100! stages the cost model expects to be fastest (then the larger tile;
// without a cache line size in the profile, about the pair whose smaller factor is
// largest), 3.1 if m < n else 3.2 (TPDS Algorithm 3). Among the three, the one whose
// smallest 100! super-element is largest wins, fewer stages on ties: on GPUs the
// cycle-following stages set the time, and their speed grows with the super-element.
// Without any candidate (prime sides), kOneStage. This is the plan for exactly rows x
// cols; see plan_transpose for padding. A forced sequence or factor that cannot work
// throws std::invalid_argument.
TransposePlan plan_sequence(const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols,
                            std::size_t elem_size, const PlanRequest& request = {},
                            const FactorLimits& limits = {});

// The plan for a call: plan_sequence, and with automatic padding (padding_plan.hpp) the
// padded shape whose estimated time (cost_model.hpp), padding and unpadding included, is
// lowest, when that beats the unpadded plan clearly. `capacity` is how many elements the
// buffer holds from the matrix's start; padding never plans beyond it (0: exactly
// rows * cols, no room to pad). With OnChip::kAuto, on a device with resident_groups, a
// non-square matrix that fits on chip and whose plan has three kernels or more (or is
// the one-stage cycle following) gets the on-chip attempt, with the unpadded plan as its
// fallback; OnChip::kForce asks for it (std::invalid_argument if it cannot fit).
// `padding` bounds the automatic padding.
TransposePlan plan_transpose(const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols,
                             std::size_t elem_size, const PlanRequest& request = {},
                             const FactorLimits& limits = {}, std::uint64_t capacity = 0,
                             const PaddingLimits& padding = {});

// The padded shapes that plan_transpose's automatic padding weighs for a rows x cols
// matrix (none for a square, a single row or a single column), in its order: every pair
// of padded sides (each side's candidates: where its best factor grows, and multiples of
// a cache line) that padding_allowed keeps within `capacity` (0: rows * cols) and
// `padding`, then the square of the longer side. The factors are bounded below by
// limits.min_factor (min_factor_for's, as a call plans).
std::vector<std::pair<std::uint64_t, std::uint64_t>> padded_shapes(
    const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
    const FactorLimits& limits, std::uint64_t capacity, const PaddingLimits& padding = {});

// The divisors of x in increasing order (1 and x included).
std::vector<std::uint64_t> divisors(std::uint64_t x);

// The plan in words, for ipt-plan and error messages.
std::string describe(const TransposePlan& plan);

}  // namespace ipt::planner
