// SPDX-License-Identifier: Apache-2.0
// ipt-bench latency: what a process's first call costs (kernel compilation) for several
// plan classes, with the driver's cache and libipt's disk cache cold and warm, and what
// ipt_warmup costs and saves; with a protocol's shapes, the distribution of the
// first-call overheads of new shapes in a process that has already transposed.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

struct LatencyShape {
  std::string plan_class;  // what the row is called ("square", ...)
  std::size_t rows = 0, cols = 0;
};

// For each shape, the first call of a process of its own (`self`, this tool, run as
// `latency --one first` under each condition: the driver's cache off where the platform
// lets a process turn it off, libipt's disk cache empty, filled or off), then ipt_warmup
// cold and warm; prints the table; returns 0 when every call succeeded.
int run_latency(const support::Session& session, const std::string& self,
                const std::vector<LatencyShape>& shapes, std::size_t elem_size);

// One process's figures, printed as "warmup MS first MS repeated MS": ipt_warmup (when
// `warmup`; else 0), then the first call of rows x cols and, after a call back, a repeated
// one. Returns 0 when every call succeeded.
int run_latency_one(const support::Session& session, std::size_t rows, std::size_t cols,
                    std::size_t elem_size, bool warmup);

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
