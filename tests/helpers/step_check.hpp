// SPDX-License-Identifier: Apache-2.0
// Kernel steps run alone on random guarded matrices, for the kernel tests. Each operation
// is described once: the planner's step (planner/launch_plan.hpp), which
// support::run_steps prepares and enqueues as a call would, and the host reference of the
// step's Move (support::reference_of), so that a test says what it launches and nothing
// else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/launch_plan.hpp"
#include "runtime/executor.hpp"

namespace ipt::test {

// Where a kernel test's step runs: `offset` elements into its buffer, with the session
// device's local memory (it sizes SoA-ASTA chunks), 64-bit indices when `index64` (else
// where the extent needs them).
planner::StepSite site_of(std::size_t elem_size, std::uint64_t offset, bool index64 = false);

// The row length of the matrix `move` sees: a permutation's rows (B super-elements of C
// elements), a re-stride's input stride; 0 for a copy (no rows). Test data separate their
// neighbours in rows of this length (support::separate_neighbours), so that equal 1-byte
// neighbours do not hide a misplaced element.
std::uint64_t row_length_of(const planner::Move& move);

// Runs `steps` alone (support::run_steps) on the session's queue over a random matrix of
// `elements` elements (rows of the first step's row_length_of when it divides `elements`),
// site.offset elements into a buffer with `after_bytes` guard bytes after it, and waits. Empty when
// the matrix holds the host reference of the steps' moves applied in order and every guard byte is
// unchanged; else what went wrong (a refusal's status and message included). `elements` must cover
// what the steps touch.
std::string check_steps(const std::vector<planner::Step>& steps, const planner::StepSite& site,
                        std::uint64_t elements, std::size_t after_bytes, std::uint64_t seed,
                        const runtime::EnqueueOptions& options = {});
std::string check_step(const planner::Step& step, const planner::StepSite& site,
                       std::uint64_t elements, std::size_t after_bytes, std::uint64_t seed,
                       const runtime::EnqueueOptions& options = {});

// Empty when support::run_steps refuses `step` with IPT_OUT_OF_RESOURCES (a launch the
// device cannot take: too much local memory, a work-group too large) and the guarded
// matrix of `elements` elements is unchanged (nothing was enqueued); else what happened.
std::string check_refused(const planner::Step& step, const planner::StepSite& site,
                          std::uint64_t elements, std::size_t after_bytes, std::uint64_t seed);

}  // namespace ipt::test
