// SPDX-License-Identifier: Apache-2.0
// A launch plan: everything one call enqueues, in order, decided here and nowhere else.
// Each step is one kernel launch, described down to its build options, NDRange, index
// width, arguments and the scratch regions it uses, so that the runtime builds its
// kernels once, checks them, allocates the scratch the plan asks for and enqueues the
// steps in one loop without deciding anything. Pure C++: computed and tested without a
// device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/element_transform.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/onchip_plan.hpp"
#include "planner/square_plan.hpp"
#include "planner/transpose_plan.hpp"

namespace ipt::planner {

// The kernel families (one kernels/<source>.cl file and one kernel function each; their
// table: planner/families/registry.cpp).
enum class Family { kSquare, kBs, kPttwac, kSoa, kOnChip, kRestride, kCopy, kScale };
const char* family_source(Family family);  // "square", "bs", ... (the .cl file's stem)
const char* family_kernel(Family family);  // the __kernel function's name

// The buffers a plan addresses. kScratch: the call's scratch, undefined on arrival; the
// plan zeroes what must start zeroed (LaunchPlan::fill, or its first kernel on the way).
// kZeroScratch: all zero whenever no call uses it; the plan's kernels leave it so.
// kReport: a buffer that tests and benchmarks may bind (the on-chip kernel reports there
// which way it went); null otherwise. kNone: a null buffer argument.
enum class Buffer { kMatrix, kScratch, kZeroScratch, kReport, kNone };

// Scratch regions start at multiples of this: a multiple of every element size and of
// the flag words, and a cache line, so that no two regions share one.
inline constexpr std::uint64_t kScratchAlign = 128;
inline std::uint64_t scratch_aligned(std::uint64_t bytes) {
  return (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

// Bytes [offset, offset + bytes) of a buffer; offsets are multiples of 16.
struct Region {
  Buffer buffer = Buffer::kNone;
  std::uint64_t offset = 0, bytes = 0;
  bool empty() const { return bytes == 0; }
};

struct KernelArg {
  enum class Kind {
    kBuffer,  // `buffer`
    kIndex,   // idx_t: 64 bits in a step with index64, else 32
    kUint,    // cl_uint
    kUlong,   // cl_ulong
    kLocal,   // __local memory of `value` bytes
  };
  Kind kind = Kind::kUint;
  Buffer buffer = Buffer::kNone;
  std::uint64_t value = 0;
};

// What a step does to the data, for the tests' host model of a plan.
struct Move {
  enum class Kind {
    kPermute,   // 0100!: (I, A, B, C) -> (I, B, A, C) on the elements from the matrix start
    kRestride,  // `rows` rows of `len` elements from stride s_in to s_out
    kCopy,      // `count` elements from (from, from_at) to (to, to_at), in elements
  };
  Kind kind = Kind::kPermute;
  std::uint64_t I = 1, A = 1, B = 1, C = 1;
  std::uint64_t rows = 0, len = 0, s_in = 0, s_out = 0;
  Buffer from = Buffer::kMatrix, to = Buffer::kMatrix;
  std::uint64_t from_at = 0, to_at = 0, count = 0;
};

// One kernel launch. A step whose global size is 0 moves nothing (an identity: a
// dimension of 1) and is never enqueued.
struct Step {
  Family family = Family::kCopy;
  std::string options;  // build options: element size, index width, the family's knobs
  bool index64 = false;
  std::size_t unit_bytes = 0;  // the size of the units the kernel moves (IPT_ELEM_BYTES)
  bool transformed = false;    // it stores values scaled or conjugated (ElementTransform)
  unsigned dims = 1;
  std::uint64_t global[2] = {0, 1}, local[2] = {1, 1};
  // __local bytes the launch passes as arguments (checked against the device with the
  // kernel's own static local memory).
  std::uint64_t local_bytes = 0;
  std::vector<KernelArg> args;
  // Scratch the kernel uses, zero when it starts (in zero scratch the plan leaves it zero:
  // the on-chip kernel clears its own, the plan's last kernel the flags of earlier ones).
  Region flags;
  Region zeroes;  // words of scratch that the kernel zeroes on the way for other steps
  Region tail;    // a split matrix's elements past the buffer (StepSite::split), or none
  // Scratch the runtime zeroes with a fill command just before the kernel (the steps that
  // undo a call, whose flags nothing else zeroes), or none.
  Region fill_before;
  // Whether the runtime launches the program's probe (onchip_probe_step) before its first
  // use, which checks the launch itself: NVIDIA's driver under-reports the work-group
  // limit of the on-chip kernel, compiled for exactly its work-group, so the limit it
  // reports is not held against such a step.
  bool probed_launch = false;
  // Elements of the matrix's buffer, from the matrix's start, that the kernel may touch.
  std::uint64_t touches = 0;
  Move move;
  std::string what;  // the step in words

  bool noop() const { return global[0] == 0; }
  std::uint64_t work_group() const { return local[0] * local[1]; }
};

struct LaunchPlan {
  TransposePlan transpose;  // the sequence and factors the steps carry out
  std::size_t elem_size = 0;
  std::uint64_t offset = 0;  // the matrix's first element in its buffer
  std::vector<Step> steps;   // in order; none is a noop
  std::uint64_t scratch_bytes = 0, zero_scratch_bytes = 0;
  Region fill;  // call scratch the runtime zeroes before the first step (empty: none)
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

// Where a step runs: its element size, the matrix's offset in its buffer, the local
// memory the family sizes its tiles by, and whether its indices must be 64-bit whatever
// its own extent (a plan's stages share the width of the padded matrix; tests force it).
struct StepSite {
  StepSite() = default;
  StepSite(std::size_t elem_size_, std::uint64_t offset_, std::size_t local_mem_bytes_,
           bool index64_)
      : elem_size(elem_size_),
        offset(offset_),
        local_mem_bytes(local_mem_bytes_),
        index64(index64_) {}
  std::size_t elem_size = 4;
  std::uint64_t offset = 0;
  std::size_t local_mem_bytes = 48 * 1024;
  bool index64 = false;
  // A matrix split in two (kernels/common.cl, IPT_SPLIT): its elements from `split` on
  // live in `tail` (call scratch) instead of the matrix's buffer; 0: no split.
  std::uint64_t split = 0;
  Region tail;
};

// Whether a kernel over `elements` elements from `offset` needs 64-bit indices: when an
// index it forms could pass 32 bits. A kernel that strides over a grid forms indices up
// to a stride past the end, so 64-bit from offset + elements = 2^31; the square kernel
// (strides = false) forms none past the matrix, so from 2^32. The one rule of every step.
bool needs_index64(std::uint64_t offset, std::uint64_t elements, bool strides = true);

// Steps of each family, each defined in planner/families/<family>.cpp; the families' table
// (source, kernel, whether it can transform) is planner/families/registry.cpp. A region
// left with Buffer::kNone is placed at the start of the call scratch (the on-chip
// kernel's: of the zero scratch), as a kernel run alone needs.
Step bs_step(const StepSite& site, std::uint64_t A, std::uint64_t B, std::uint64_t C,
             const BsConfig& config, Region zeroes = {});
Step pttwac_step(const StepSite& site, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                 const PttwacConfig& config, Region flags = {});
// `word` > 1: the super-elements move as words of that many elements (word_factor; the
// config is the words' own), the move and extents still in elements.
Step soa_step(const StepSite& site, std::uint64_t I, std::uint64_t A, std::uint64_t B,
              std::uint64_t C, const SoaConfig& config, Region flags = {}, std::uint64_t word = 1);
Step onchip_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                 std::uint64_t cols, const OnChipConfig& config, Region scratch = {},
                 Region zeroes = {}, bool give_up = false);
Step restride_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t s_in,
                   std::uint64_t s_out, const RestrideConfig& config, Region scratch = {});
// Transforms, in place, `rows` rows of `len` elements at row stride `stride`.
Step scale_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t stride,
                const ElementTransform& transform);
// Whether a step can transform the values it stores, each exactly once: restride, BS,
// square, and SoA (which transforms the super-elements that stay in place apart); not
// PTTWAC's cycles, nor the on-chip kernel's fallback, which skip the elements that stay.
bool can_transform(const Step& step);
// The step storing transformed values (ElementTransform): a call's last step, which has
// no undo. Throws std::logic_error for a step that cannot (can_transform).
Step transformed_step(Step step, const ElementTransform& transform, std::size_t elem_size);
// Copies count elements; offsets in elements of each buffer (the matrix's from its start).
Step copy_step(const StepSite& site, Buffer from, std::uint64_t from_at, Buffer to,
               std::uint64_t to_at, std::uint64_t count, Region zeroes = {});
Step square_step(const StepSite& site, std::uint64_t n, const SquarePlan& plan);

// Scratch of the on-chip kernel, whatever the matrix: its polled words (tickets,
// decision, loads announced, groups gone, arrivals at the fallback's barrier) on a cache
// line of their own. Its fallback needs no flag per element (kernels/onchip.cl).
inline constexpr std::uint64_t kOnChipScratchBytes = 128;

// The on-chip kernel's probe: the kernel of `onchip` on a matrix of one element, with
// zero scratch of kOnChipScratchBytes, every group it launches awaited with the patience
// of a call. For tests, it can await one group more than it launches (a device that
// cannot hold them all, whatever the device) or launch one group only (a device that
// holds them). It reports, through Buffer::kReport, kOnChipAllResident if every work-group ran at
// once and the kernel's own fallback would never be taken for want of room, anything
// else if not. Launching it also shows whether the device accepts the kernel's
// work-group: NVIDIA's driver under-reports this kernel's limit, so asking is not enough.
inline constexpr std::uint32_t kOnChipAllResident = 1;  // DECISION_GO of kernels/onchip.cl
enum class ProbeGroups { kAll, kOneMore, kOne };
Step onchip_probe_step(const Step& onchip, ProbeGroups groups = ProbeGroups::kAll);

// A plan of the given steps alone (kernel tests, benchmarks): noops dropped, scratch
// sized to the regions they use, every call-scratch region they use zeroed by a fill.
LaunchPlan plan_of_steps(std::vector<Step> steps, std::size_t elem_size, std::uint64_t offset);

// One stage alone, `offset` elements into its buffer, as a plan's stages run (the
// kernel family and config the planner picks for it, its flags in call scratch): the
// phases of host_slicing.hpp. No undo: nothing follows it that could fail half-way.
LaunchPlan plan_stage(const DeviceProfile& device, const Stage& stage, std::size_t elem_size,
                      std::uint64_t offset);

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
};

// Caller-forced choices (tests, tuning; IPT_OVERRIDES and ipt_plan_options).
struct PlanOverrides {
  std::size_t square_tile = 0;     // TILE of kernels/square.cl (0: the planner's)
  std::size_t square_wg_rows = 0;  // WG_ROWS of kernels/square.cl
  PlanRequest request;             // forced sequence, factors, padding, on-chip use and tiles
  bool onchip_abort = false;       // on-chip kernels always take their fallback
  // IPT_SWIZZLE of kernels/square.cl (the on-chip kernel's: request.onchip_tiles).
  TileLayout square_tiles = TileLayout::kPadded;
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
