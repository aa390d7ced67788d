// SPDX-License-Identifier: Apache-2.0
// Work-groups that a compute unit must run at once, asked of NVIDIA's compiler. OpenCL C
// has no launch bound of CUDA's kind, and NVIDIA's OpenCL driver ignores
// -cl-nv-maxrregcount: a kernel of 512 work-items may be compiled to use 65 to 100
// registers, and then a compute unit of 64K registers runs one group of it, not two.
// Its program binaries are PTX, though, where a kernel entry may carry the directive
// `.minnctapersm N` (at least N groups on a multiprocessor): the compiler then keeps
// within the registers that allows. A program built from source is built again from its
// PTX with that directive (runtime/program_cache.cpp).
#pragma once

#include <optional>
#include <vector>

namespace ipt::runtime {

// `binary` with `.minnctapersm groups` added to each kernel entry that has none; nothing
// where there is nothing to add: no groups asked, a binary that is not PTX text (other
// drivers'), or no entry without the directive.
std::optional<std::vector<unsigned char>> with_min_groups_per_unit(
    const std::vector<unsigned char>& binary, unsigned groups);

}  // namespace ipt::runtime
