// SPDX-License-Identifier: Apache-2.0
// The asynchronous scheme of host transposition (ipt_transpose_host with Q > 1 slices;
// PPoPP 2014 §6): the matrix moves through pinned staging buffers of Q lanes
// (host_lanes.hpp), the host copying one round of chunks while the driver moves the
// round before, and is transposed in the three phases of planner/host_slicing.hpp, each
// slice's phase A on its own queue as soon as its rows are up.
#pragma once

#include "host/host_transpose.hpp"

namespace ipt::host {

// Transposes the request's matrix through its queue's device in `slices` slices (2 to
// planner::kMaxHostSlices), once the queue's earlier commands are done (the caller,
// execute_host_transpose, waits for them). The host memory is written only once the whole
// transposition has completed on the device, as in the synchronous scheme (a device that fails
// half-way leaves it as it was); a download that fails is done again as one plain read,
// and when that fails too the call throws IPT_BUFFER_UNDEFINED.
void sliced_through_device(const HostRequest& request, unsigned slices);

}  // namespace ipt::host
