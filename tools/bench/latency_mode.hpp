// SPDX-License-Identifier: Apache-2.0
// ipt-bench latency: what the first call costs (kernel compilation) and what the disk
// cache (IPT_CACHE_DIR) and ipt_warmup save; with a protocol's shapes, the distribution
// of the first-call overheads of new shapes in a process that has already transposed.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

// Prints the table; returns 0 when every call succeeded.
int run_latency(const support::Session& session, std::size_t n, std::size_t elem_size);

// For each shape in turn (buffers of exactly the matrix, after one transposition of
// another shape has paid the process's first call): the host time of its first call,
// and of a repeated call of the same shape, from the call to the completion of its
// event. Prints the distribution of the differences (the first-call overhead) and the
// slowest shapes; returns 0 when every call succeeded. `warmup`: ipt_warmup first (its
// time printed), instead of the other shape's call.
int run_latency_protocol(const support::Session& session,
                         const std::vector<std::pair<std::size_t, std::size_t>>& shapes,
                         std::size_t elem_size, const std::string& protocol, bool warmup);

}  // namespace ipt::bench
