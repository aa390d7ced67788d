// SPDX-License-Identifier: Apache-2.0
// A host model of a launch plan, for the tests and the planner's fuzzer (not part of the
// library): where each value is after the steps, without running a kernel or holding the
// matrix. It follows single values (original positions) through
// every step's Move, one index at a time in O(steps), so that plans of up to 2^40
// elements can be checked on samples and small ones on every element.
//
// Copies are modelled as moves: the value leaves its source for the destination and the
// source is a stale duplicate from then on. A plan that read a copied value back from
// its source would fail the check, never pass it wrongly; every padded plan copies
// borrowed bytes out and back, which this models exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/imatcopy_plan.hpp"
#include "planner/launch_plan.hpp"
#include "planner/permute_plan.hpp"

namespace ipt::planner {

// An element of a buffer: kMatrix counts from the matrix's start (its offset in the
// buffer does not matter here), kScratch and kZeroScratch from their start, all in
// elements of the plan's elem_size.
struct Position {
  Buffer space = Buffer::kMatrix;
  std::uint64_t index = 0;
  friend bool operator==(const Position& a, const Position& b) {
    return a.space == b.space && a.index == b.index;
  }
  friend bool operator!=(const Position& a, const Position& b) { return !(a == b); }
};

std::string to_string(const Position& position);

// Where the value at p is after `move` alone (copies as moves: see above); nullopt when
// the move overwrites it with another value or leaves it undefined:
//   kPermute:  0100! on (I, A, B, C) over matrix elements [0, I*A*B*C); others stay.
//   kRestride: row r's element c < len goes from r*s_in + c to r*s_out + c; the gaps of
//              the old rows and everything else below the larger extent are lost; what
//              lies beyond both extents stays.
//   kCopy:     the source range goes to the destination; what the destination held is
//              lost.
// A move with a base (a part of a plan in parts) does the same to the matrix from element
// `base` on, counting from there; the matrix elements before it stay. A part's move with
// a split also counts the scratch from element `tail_at` on as that matrix's elements
// from `split` on; the matrix buffer past its split (the next part's) stays.
std::optional<Position> forward(const Move& move, Position p);

// A plan's effect on single values: its moves, the fill before the first step and those
// before single steps, and the scratch each step writes besides its move (its flags, the
// words it zeroes), which overwrite any value kept there.
class PlanModel {
 public:
  explicit PlanModel(const LaunchPlan& plan);

  // Where the value at `start` is after every step; nullopt if something overwrote it.
  std::optional<Position> final_position(Position start) const;
  std::vector<std::optional<Position>> track(const std::vector<Position>& starts) const;

 private:
  // Elements [begin, end) of a buffer that something other than a move writes.
  struct Overwrite {
    Buffer space = Buffer::kNone;
    std::uint64_t begin = 0, end = 0;
  };
  // A step's effect: overwrites that happen while it moves, so a value there before or
  // after the move is lost. The fill is an effect without a move.
  struct Effect {
    bool moves = false;
    Move move;
    std::vector<Overwrite> overwrites;
  };

  static bool overwritten(const Effect& effect, const Position& p);
  void add_overwrite(Effect& effect, const Region& region) const;

  std::size_t elem_size_ = 1;
  std::vector<Effect> effects_;
};

// Where each start's value is after every step of the plan (PlanModel::track).
std::vector<std::optional<Position>> track(const LaunchPlan& plan,
                                           const std::vector<Position>& starts);

// Empty if `plan` transposes the rows x cols matrix in a buffer of `capacity` elements
// from the matrix's start (0: exactly rows * cols), else the first problem in words:
//   - element r * cols + c ends at c * rows + r, and the borrowed elements past the
//     matrix (LaunchPlan::borrowed_bytes) end where they started: every element for
//     plans of at most max_full elements, else `samples` random ones (from `seed`) with
//     the first and last few and those around row and column boundaries;
//   - no step touches past the matrix and its padding, nor past the buffer, and each
//     step's move stays within what the step says it touches;
//   - every flags and zeroes region lies in the scratch the plan asks for, never
//     overlaps the borrowed bytes while scratch holds them, and every flags region is
//     zero when its step starts (the fill, or an earlier step's zeroes); the zero
//     scratch is all zero again after the last step.
std::string check_plan(const LaunchPlan& plan, std::uint64_t rows, std::uint64_t cols,
                       std::uint64_t capacity, std::uint64_t max_full = 1000000,
                       std::uint64_t samples = 4096, std::uint64_t seed = 1);

// Empty if the first `done` steps of `plan` followed by rollback_plan(plan, done) leave
// every element of the matrix, and every borrowed element, where it started, with the
// same checks of extents, regions, held bytes and flags as check_plan (the zero scratch
// may be left set: the runtime drops it after a rollback); else the first problem.
std::string check_rollback(const LaunchPlan& plan, std::size_t done, std::uint64_t rows,
                           std::uint64_t cols, std::uint64_t capacity,
                           std::uint64_t max_full = 1000000, std::uint64_t samples = 4096,
                           std::uint64_t seed = 1);

// check_plan for an imatcopy plan (imatcopy_plan.hpp): element (r, c) of A, at r * lda + c,
// ends at its place in B (every element), no step touches past shape.capacity, and the
// regions, held bytes and flags as check_plan.
std::string check_imatcopy_plan(const LaunchPlan& plan, const ImatcopyShape& shape);

// check_rollback for an imatcopy plan: the first `done` steps and their undo leave every
// element of A where it started.
std::string check_imatcopy_rollback(const LaunchPlan& plan, std::size_t done,
                                    const ImatcopyShape& shape);

// check_plan for a permutation's plan (permute_plan.hpp): element e of the tensor ends where
// numpy.transpose(x, shape.perm) puts it (in units of the plan's element, which may hold
// several of the tensor's), every element for tensors of at most max_full elements, else
// `samples` random ones and both ends; no step touches past the tensor (past
// shape.capacity when the plan is a single transposition that borrows: its room ends where
// it started); and the regions, held bytes and flags as check_plan.
std::string check_permute_plan(const LaunchPlan& plan, const PermuteShape& shape,
                               std::uint64_t max_full = 1000000, std::uint64_t samples = 4096,
                               std::uint64_t seed = 1);

// check_rollback for a permutation's plan: the first `done` steps and their undo leave every
// element where it started.
std::string check_permute_rollback(const LaunchPlan& plan, std::size_t done,
                                   const PermuteShape& shape, std::uint64_t max_full = 1000000,
                                   std::uint64_t samples = 4096, std::uint64_t seed = 1);

// Where numpy.transpose(x, perm) puts element `index` of the row-major tensor x of `dims`.
std::uint64_t permuted_index(const std::vector<std::uint64_t>& dims,
                             const std::vector<std::size_t>& perm, std::uint64_t index);

}  // namespace ipt::planner
