// SPDX-License-Identifier: Apache-2.0
// The scale kernel (kernels/scale.cl): its step builder.
#pragma once

#include <cstdint>

#include "planner/step.hpp"

namespace ipt::planner {

struct ElementTransform;  // planner/element_transform.hpp

// Its step builder (planner/families/scale.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
// Transforms, in place, `rows` rows of `len` elements at row stride `stride`.
Step scale_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t stride,
                const ElementTransform& transform);

}  // namespace ipt::planner
