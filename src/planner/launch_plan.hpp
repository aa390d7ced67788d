// SPDX-License-Identifier: Apache-2.0
// A launch plan: everything one call enqueues, in order, decided here and nowhere else.
// Each step (planner/step.hpp) is one kernel launch, described down to its build options,
// NDRange, index width, arguments and the scratch regions it uses, so that the runtime
// builds its kernels once, checks them, allocates the scratch the plan asks for and
// enqueues the steps in one loop without deciding anything. Each family's step builder is
// declared in its planner/families/<family>.hpp. Pure C++: computed and tested without a
// device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/element_transform.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/copy.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/scale.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"
#include "planner/step.hpp"
#include "planner/transpose_plan.hpp"

namespace ipt::planner {

struct LaunchPlan {
  TransposePlan transpose;  // the sequence and factors the steps carry out
  std::size_t elem_size = 0;
  std::uint64_t offset = 0;  // the matrix's first element in its buffer
  std::vector<Step> steps;   // in order; none is a noop
  std::uint64_t scratch_bytes = 0, zero_scratch_bytes = 0;
  // Call scratch the runtime zeroes before the first step (empty: none); a batch in parts
  // zeroes its later parts' by their first steps' fill_before.
  Region fill;
  // Bytes of the caller's buffer past the matrix used as workspace and given back.
  std::uint64_t borrowed_bytes = 0;
  // A padded plan on a buffer without room for it: the padded matrix's elements from
  // `split` on (the caller's rows * cols) live in `split_tail`, call scratch (0: none).
  std::uint64_t split = 0;
  Region split_tail;
  // undo[i] undoes steps[i] on the same buffers and scratch: the same family on the
  // transposed view (a square swap is its own inverse; a restride and a copy go back),
  // with its flags zeroed by its fill_before. Every step but the last has one: when a
  // command fails part-way, the runtime enqueues the inverses of the steps already
  // enqueued, last first (rollback_plan), and the buffer returns to its original bytes.
  std::vector<Step> undo;
  // A batch transposed in parts, one after the other and sharing one scratch: the
  // matrices of each part (the last may have fewer); 0 when the plan is one part.
  // `transpose` is then a part's plan, its batch the whole batch.
  std::uint64_t part_matrices = 0;
  // The on-chip steps this plan was planned around, their programs found crowded
  // (crowded_onchip.hpp): the runtime probes those again once their verdicts are old.
  std::vector<Step> avoided;
  // Whether a step is the on-chip kernel.
  bool uses_onchip() const;
};

// The plan that undoes the first `done` steps of `plan` once they have run: their
// inverses, last first, on the plan's scratch (no fill of its own: each inverse zeroes
// its flags by fill_before). It leaves the zero scratch dirty: the runtime drops that
// buffer instead of keeping it. Throws std::logic_error if `plan` has no undo for them.
LaunchPlan rollback_plan(const LaunchPlan& plan, std::size_t done);

// Thrown for a launch that a kernel cannot take (a chunk larger than a unit holds, more
// items than its counters count): the runtime reports IPT_OUT_OF_RESOURCES. A config
// that makes no sense (a spreading factor that is not a power of two) is
// std::invalid_argument instead.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown for a matrix (or batch) larger than the device can hold, whatever the plan: the
// runtime reports IPT_MATRIX_TOO_LARGE, which no other plan or retry can change.
class MatrixTooLarge : public ResourceError {
 public:
  using ResourceError::ResourceError;
};

// Whether a step can transform the values it stores, each exactly once: restride, BS,
// square, and SoA (which transforms the super-elements that stay in place apart); not
// PTTWAC's cycles, nor the on-chip kernel's fallback, which skip the elements that stay.
bool can_transform(const Step& step);
// The step storing transformed values (ElementTransform): a call's last step, which has
// no undo. Throws std::logic_error for a step that cannot (can_transform).
Step transformed_step(Step step, const ElementTransform& transform, std::size_t elem_size);

// A plan of the given steps alone (kernel tests, benchmarks): noops dropped, scratch
// sized to the regions they use, every call-scratch region they use zeroed by a fill.
LaunchPlan plan_of_steps(std::vector<Step> steps, std::size_t elem_size, std::uint64_t offset);

// One stage alone, `offset` elements into its buffer, as a plan's stages run (the
// kernel family and config the planner picks for it, its flags in call scratch): the
// phases of host_slicing.hpp. No undo: nothing follows it that could fail half-way.
LaunchPlan plan_stage(const DeviceProfile& device, const Stage& stage, std::size_t elem_size,
                      std::uint64_t offset);

// plan_stage with the step that undoes it: a part of a composed plan (permute_plan.hpp).
LaunchPlan plan_stage_part(const DeviceProfile& device, const Stage& stage, std::size_t elem_size,
                           std::uint64_t offset);

// Appends `part`, a plan whose matrix starts `base` elements after the plan's, to `plan`:
// the parts run one after the other on one scratch (each leaves its zero scratch zero, and
// the call scratch it finds zero at its start is zeroed before its first step), every
// step with its undo. The plan's scratch is the largest part's.
void append_part(LaunchPlan& plan, LaunchPlan part, std::uint64_t base);

// The capacity of a call with no buffer (ipt_plan, ipt_padded_size): room without limit,
// and a matrix bound by one allocation of the device, since no buffer shows that the
// driver allocates more.
inline constexpr std::uint64_t kNoBuffer = ~std::uint64_t{0};

// What a call asks for: the matrix, and the room its buffer has.
struct CallShape {
  std::uint64_t rows = 0, cols = 0;
  std::size_t elem_size = 4;
  std::uint64_t offset = 0;  // in elements
  // Elements the buffer holds from the matrix's start (0, or anything below rows * cols:
  // exactly the matrix; kNoBuffer).
  std::uint64_t capacity = 0;
  // Matrices of rows x cols back to back from `offset`, each transposed in place
  // (batch_plan.hpp); a batch never borrows the room past its last matrix.
  std::uint64_t batch = 1;
  // An undo for the last step too (the undo vector as long as the steps): for a plan
  // that more steps follow (imatcopy_plan.hpp).
  bool undo_last = false;
  // Whether earlier stages may keep their flags in zero scratch, which the last kernel
  // clears on the way (no fill). A part of a composed plan (permute_plan.hpp) keeps them in
  // call scratch instead, which the parts share: one part's flags in zero scratch and
  // another's in call scratch would together pass the memory bound each keeps alone.
  bool zero_scratch_flags = true;
};

// Caller-forced choices (tests, tuning; IPT_OVERRIDES and ipt_plan_options).
struct PlanOverrides {
  std::size_t square_tile = 0;     // TILE of kernels/square.cl (0: the planner's)
  std::size_t square_wg_rows = 0;  // WG_ROWS of kernels/square.cl
  PlanRequest request;             // forced sequence, factors, padding, on-chip use and tiles
  bool onchip_abort = false;       // on-chip kernels always take their fallback
  // IPT_SWIZZLE of kernels/square.cl (the on-chip kernel's: request.onchip_tiles).
  TileLayout square_tiles = TileLayout::kPadded;
  // The square kernel's vector rows of 4-byte elements (unset: the planner's choice).
  std::optional<bool> square_vectors;
  // The square kernel's tile pairs in bands of tile columns (unset: the planner's choice).
  std::optional<bool> square_bands;
};

// The plan of a whole call: plan_transpose's sequence, then its steps: the copy of the
// borrowed bytes past the matrix (a padded plan), padding, the stages (or the square or
// on-chip kernel), unpadding, the copy back. Throws std::invalid_argument for forced
// choices that cannot work and for an empty matrix (the API returns before planning
// one), std::length_error for a forced padded shape without room, ResourceError for a
// matrix or a forced padded shape larger than one allocation of the device holds.
LaunchPlan plan_call(const DeviceProfile& device, const CallShape& call,
                     const PlanOverrides& overrides = {});

// Each scratch buffer is one allocation, which the device caps
// (CL_DEVICE_MAX_MEM_ALLOC_SIZE): throws ResourceError for a plan that needs more, before
// anything runs.
void check_allocations(const LaunchPlan& launch, const DeviceProfile& device);

// The plan in words: the sequence (describe(TransposePlan)) and a line per step.
std::string describe(const LaunchPlan& plan);

}  // namespace ipt::planner
