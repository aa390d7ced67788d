// SPDX-License-Identifier: Apache-2.0
// Host matrices larger than the device holds (ipt_transpose_host of a matrix beyond one
// device allocation): the phases of host/host_slicing.hpp with A and C streamed
// through the device part by part (each part's blocks uploaded, transposed in place in a
// device buffer of one part, downloaded into the same host bytes) and B, the step that
// spans the whole matrix, done on the host by moving blocks of n m elements. Device
// memory: one part plus the usual scratch of its transposition.
#pragma once

#include <cstdint>

#include "host/host_transpose.hpp"

namespace ipt::host {

// Transposes the request's matrix in parts of at most `part_bytes` bytes, once the
// queue's earlier commands are done (execute_host_transpose waits for them). A part
// whose device work fails (an enqueue, a kernel, an upload) is done on the CPU instead,
// and so is the rest of the call: its host bytes were not written yet. A download that
// fails is read again plainly; when that fails too the call throws IPT_BUFFER_UNDEFINED,
// as it does when host work fails after the host memory was first written, also on one
// thread (host_streamed.cpp: on_host). A shape without usable factors is transposed on
// the CPU whole (cpu::transpose).
void streamed_through_device(const HostRequest& request, std::uint64_t part_bytes);

}  // namespace ipt::host
