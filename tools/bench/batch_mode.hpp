// SPDX-License-Identifier: Apache-2.0
// ipt-bench batched: a batch of matrices in one ipt_transpose_batched call, against one
// matrix of the same total size and against a loop of ipt_transpose calls, one per
// matrix; each result verified on the host, the copy bandwidth measured in the same run.
#pragma once

#include <cstddef>

#include "support/device_select.hpp"

namespace ipt::bench {

// Prints the table; returns 0 when every call succeeded and every result was right.
int run_batched(const support::Session& session, std::size_t batch, std::size_t rows,
                std::size_t cols, std::size_t elem_size, int repetitions);

}  // namespace ipt::bench
