// SPDX-License-Identifier: Apache-2.0
// Timing of whole libipt calls for the modes that compare call variants (batched,
// imatcopy): device seconds from a marker before each call to its last event.
#pragma once

#include <functional>
#include <vector>

#include "ipt/ipt.h"
#include "support/device_select.hpp"

namespace ipt::bench {

// Enqueues one call (`forward`: as given; else the call that undoes it); returns its
// last event, or null on failure.
using Enqueue = std::function<cl_event(bool forward)>;

// Whether a call failed; prints its status and message to stderr when it did.
bool failed(ipt_status status);

// Device seconds of each timed run (after one warm-up pair). Runs alternate direction,
// so the buffer ends as it started. Empty if a call failed.
std::vector<double> time_runs(const support::Session& session, const Enqueue& enqueue,
                              int repetitions);

}  // namespace ipt::bench
