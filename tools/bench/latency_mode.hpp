// ipt-bench latency: what the first call costs (kernel compilation) and what the disk
// cache (IPT_CACHE_DIR) and ipt_warmup save.
#pragma once

#include <cstddef>

#include "support/device_select.hpp"

namespace ipt::bench {

// Prints the table; returns 0 when every call succeeded.
int run_latency(const support::Session& session, std::size_t n, std::size_t elem_size);

}  // namespace ipt::bench
