// SPDX-License-Identifier: Apache-2.0
// Kernel steps run alone on a split matrix (kernels/common.cl, IPT_SPLIT): the logical
// matrix's elements [0, split) in a buffer that holds nothing past them, the rest in call
// scratch. For the split-kernel tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/launch_plan.hpp"

namespace ipt::test {

// Where split-kernel tests put a tail: this byte of the call scratch (a multiple of 16
// and of every element size).
constexpr std::uint64_t kSplitTailAt = 128;

// The site of a step on a split matrix of `elements` elements, `offset` elements into its
// buffer, split at `split` (0 < split < elements): the tail in call scratch at
// kSplitTailAt.
planner::StepSite split_site(std::size_t elem_size, std::uint64_t offset, std::uint64_t split,
                             std::uint64_t elements, bool index64 = false);

// The split points the tests try for a matrix of `elements` elements: the first element,
// the middle, the last one and `boundaries` (tile, chunk or instance edges), those
// strictly inside the matrix, in order.
std::vector<std::uint64_t> split_points(std::uint64_t elements,
                                        const std::vector<std::uint64_t>& boundaries);

// `bytes` of call scratch after the tail of `site`, at a multiple of 128 bytes: where a
// split step's flags go so that they do not overlap the tail.
planner::Region after_tail(const planner::StepSite& site, std::uint64_t bytes);

// Runs `step` (built on `site`, a split_site) alone on a split random matrix of `elements`
// elements: `site.offset` random guard elements and the first site.split elements in a
// buffer of exactly that many, the rest at site.tail in a scratch buffer of the test's
// whose other bytes are 0xA5. Empty when the two parts together hold the host reference
// of step.move (support::reference_of), the guard is unchanged and no scratch byte
// outside the tail and the step's own regions (flags, words it zeroes) changed; else what
// went wrong.
std::string check_split_step(const planner::Step& step, const planner::StepSite& site,
                             std::uint64_t elements, std::uint64_t seed);

}  // namespace ipt::test
