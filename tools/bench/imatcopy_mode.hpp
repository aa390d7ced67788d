// SPDX-License-Identifier: Apache-2.0
// ipt-bench imatcopy: ipt_?imatcopy (MKL's semantics) on one shape, in the variants that
// run different steps (a plain transpose, with alpha, with pitches before and after, no
// transpose with alpha or a pitch change), beside ipt_transpose of the same matrix; each
// result verified against the host reference, the copy bandwidth measured in the same run.
#pragma once

#include <cstddef>
#include <string>

#include "support/device_select.hpp"

namespace ipt::bench {

// type: f32, f64, c32 or c64. Returns 0 when every call succeeded and every result was
// right.
int run_imatcopy(const support::Session& session, std::size_t rows, std::size_t cols,
                 const std::string& type, int repetitions);

}  // namespace ipt::bench
