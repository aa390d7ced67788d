// SPDX-License-Identifier: Apache-2.0
// The vocabulary of a launch plan's steps: the kernel families, the buffers and regions a
// step addresses, its arguments, what it does to the data, and where it runs. Pure data:
// each family's builder (planner/families/<family>.hpp) makes its steps of these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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
  // Where the matrix the move counts from starts, in elements from the plan's matrix
  // start: a part of a plan in parts (a batch's later matrices); 0 for every other step.
  std::uint64_t base = 0;
  // A part's split matrix (StepSite::split): its elements from `split` on (counted from
  // `base`) live in call scratch from element `tail_at`; 0: the move counts them as
  // elements of the matrix (a whole plan's split: LaunchPlan::split).
  std::uint64_t split = 0, tail_at = 0;
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
  // undo a call, whose flags nothing else zeroes; the first step of a later part of a
  // batch in parts, LaunchPlan::part_matrices), or none.
  Region fill_before;
  // Whether the runtime launches the program's probe (onchip_probe_step) before its first
  // use, which checks the launch itself: NVIDIA's driver under-reports the work-group
  // limit of the on-chip kernel, compiled for exactly its work-group, so the limit it
  // reports is not held against such a step.
  bool probed_launch = false;
  // Work-groups of this kernel that each compute unit must run at once (0: no need): the
  // on-chip kernel's grid-wide wait counts on all of its groups running. Where the device
  // compiles to PTX, the runtime asks its compiler for them (runtime/ptx_occupancy.hpp).
  std::uint32_t groups_per_unit = 0;
  // Elements of the matrix's buffer, from the matrix's start, that the kernel may touch.
  std::uint64_t touches = 0;
  Move move;
  std::string what;  // the step in words

  bool noop() const { return global[0] == 0; }
  std::uint64_t work_group() const { return local[0] * local[1]; }
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

}  // namespace ipt::planner
