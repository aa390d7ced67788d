// SPDX-License-Identifier: Apache-2.0
// What every family's step builder starts from (planner/families/*.cpp): the kernel
// arguments, the launch every step begins as, the identity step, scratch placement, the
// zeroing, transform and split arguments the kernels share (kernels/common.cl), and the
// text of a step's move.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/launch_plan.hpp"

namespace ipt::planner::steps {

KernelArg buffer_arg(Buffer buffer);
KernelArg index_arg(std::uint64_t value);
KernelArg uint_arg(std::uint64_t value);
KernelArg ulong_arg(std::uint64_t value);
KernelArg local_arg(std::uint64_t bytes);

// Throws std::invalid_argument for an element size no kernel takes.
void check_elem_size(std::size_t elem_size);

// The kernels of a split matrix take the tail's buffer, its first element there and the
// split after their own arguments, and touch no more of the matrix's buffer than `split`.
Step with_split(Step step, const StepSite& site);

// The step every family starts from: a 1-D launch of `groups` groups of `work_group`.
Step launch(Family family, const StepSite& site, bool index64, std::string options,
            std::uint64_t groups, std::uint64_t work_group);

// An identity: nothing to launch (Step::noop).
Step nothing(Family family, const char* what);

// The region given, or the start of `buffer` with `bytes` when none was.
Region placed(Region given, Buffer buffer, std::uint64_t bytes);

// The zeroing arguments of the kernels that clear words on the way (BS, copy, on-chip):
// the buffer, its first word and the word count (none: the matrix, and no word).
void add_zeroing(Step& step, const Region& zeroes);

// The transform's build options and its two arguments (alpha's bits), which the kernels
// take before SPLIT_PARAMS (kernels/common.cl, TRANSFORM_PARAMS); none for the identity.
void add_transform(Step& step, const ElementTransform& transform, std::size_t elem_size);

std::string shape_text(std::uint64_t a, std::uint64_t b, std::uint64_t c);
Move permute(std::uint64_t I, std::uint64_t A, std::uint64_t B, std::uint64_t C);

}  // namespace ipt::planner::steps
