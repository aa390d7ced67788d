// SPDX-License-Identifier: Apache-2.0
// Tensor permutations in place (ipt_permute): a row-major tensor of up to kMaxRank axes
// (last axis fastest) becomes the tensor whose axis i is input axis perm[i], in the same
// memory, as numpy.transpose(x, perm) orders it.
//
// Composition. Every step is a block swap [P][A][B][S] -> [P][B][A][S] of adjacent blocks
// of axes, which the transposition already has as single plans:
//   - S = 1: P matrices of A x B, each transposed (plan_call of a batch);
//   - S > 1: a 0100! over super-elements of S elements (one cycle-following pass),
//     where its flag bit per super-element stays within the memory bound; otherwise the
//     search goes around it with swaps of S = 1.
// First, axes of size 1 are dropped and input axes that stay adjacent, in order, are
// merged; a last axis that stays last and makes a 1-, 2-, 4-, 8- or 16-byte element
// becomes the element. Then a search over axis orders (A*, each swap costed by the cost
// model's fractions of the copy bandwidth) finds the cheapest sequence of swaps. The
// swaps' plans run one after the other on one scratch, every step with its undo, as a
// batch's parts do. Pure C++: decided here, without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::planner {

inline constexpr std::size_t kMaxRank = 8;

struct PermuteShape {
  std::vector<std::uint64_t> dims;  // the input's axes, last fastest
  std::vector<std::size_t> perm;    // output axis i is input axis perm[i]
  std::size_t elem_size = 4;
  std::uint64_t offset = 0;    // in elements
  std::uint64_t capacity = 0;  // elements the buffer holds from the tensor's start (0: exactly it)
};

// The same permutation on fewer axes (see above), in elements of elem_size bytes, at
// `offset` of them.
struct ReducedPermutation {
  std::vector<std::uint64_t> dims;
  std::vector<std::size_t> perm;
  std::size_t elem_size = 4;
  std::uint64_t offset = 0, capacity = 0;
  bool identity() const;
};

// Throws std::invalid_argument for a rank of 0 or past kMaxRank, a perm that is not a
// permutation of 0 .. rank - 1, or an empty tensor.
ReducedPermutation reduce_permutation(const PermuteShape& shape);

// [P][A][B][S] -> [P][B][A][S].
struct BlockSwap {
  std::uint64_t P = 1, A = 1, B = 1, S = 1;
  friend bool operator==(const BlockSwap& x, const BlockSwap& y) {
    return x.P == y.P && x.A == y.A && x.B == y.B && x.S == y.S;
  }
};

// The swaps that carry out `reduced`, in order, at the least estimated cost; none for an
// identity. Without super_elements, transpositions only (S = 1).
std::vector<BlockSwap> permutation_swaps(const DeviceProfile& device,
                                         const ReducedPermutation& reduced,
                                         bool super_elements = true);

// A call's plan and how it was composed.
struct PermutePlan {
  PermuteShape shape;
  ReducedPermutation reduced;
  std::vector<BlockSwap> swaps;
  std::vector<std::string> parts;  // each swap's plan in words
  LaunchPlan launch;
};

// The plan of a whole call. Throws as reduce_permutation, and as plan_call does for
// each swap's plan (MatrixTooLarge, ResourceError).
PermutePlan plan_permutation(const DeviceProfile& device, const PermuteShape& shape,
                             const PlanOverrides& overrides = {});
LaunchPlan plan_permute(const DeviceProfile& device, const PermuteShape& shape,
                        const PlanOverrides& overrides = {});

// The plan in words: the permutation as reduced, each swap and its steps.
std::string describe(const PermutePlan& plan);

}  // namespace ipt::planner
