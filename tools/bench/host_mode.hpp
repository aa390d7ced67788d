// SPDX-License-Identifier: Apache-2.0
// ipt-bench host: host matrices (ipt_transpose_host) from the CPU's view. For each shape,
// the effective throughput 2 * rows * cols * elem_size / t of the call through the device
// (synchronous, and asynchronous for each Q asked) and on the CPU, beside the
// transfer-only bound (the upload and the download of the same bytes, with nothing
// between them, from the same pageable memory and from pinned memory) and the host's copy
// of the same bytes (memcpy on as many threads as the CPU path may use), all measured in
// the same run; and, for square matrices, the naive and the blocked in-place loops on one
// thread. Every result is checked against a host reference.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

// Prints the table; returns 0 when every call succeeded and every result was right.
// `threads`: the CPU path's (0: one per hardware thread); `slices`: the asynchronous
// scheme's Q, a column each.
int run_host(const support::Session& session,
             const std::vector<std::pair<std::size_t, std::size_t>>& shapes, std::size_t elem_size,
             int repetitions, unsigned threads, const std::vector<unsigned>& slices);

// ipt-bench host --large: matrices too large for reference copies (beyond one device
// allocation: streamed through the device), their elements computed from their index
// and checked by formula; one call through the device and one on the CPU each.
int run_host_large(const support::Session& session,
                   const std::vector<std::pair<std::size_t, std::size_t>>& shapes,
                   std::size_t elem_size, unsigned threads);

}  // namespace ipt::bench
