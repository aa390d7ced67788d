// SPDX-License-Identifier: Apache-2.0
// The statuses include/ipt/ipt.h documents for a call of the API fuzzer, from its
// arguments alone: the fuzzer's oracle for which status a call may return.
#pragma once

#include <cstdint>
#include <vector>

#include "api_call.hpp"
#include "ipt/ipt.h"

namespace ipt::fuzz {

// What the statuses depend on besides the arguments.
struct DeviceFacts {
  bool fp64 = true;             // CL_DEVICE_DOUBLE_FP_CONFIG != 0
  std::uint64_t max_alloc = 0;  // CL_DEVICE_MAX_MEM_ALLOC_SIZE
};

// Every status `call` may return with a buffer of buffer_bytes: the errors of each
// documented check its arguments fail (the header fixes no order among them, so any may
// be the one reported); when they pass none, IPT_SUCCESS (and IPT_ROLLED_BACK for a
// transposition: a command that failed and was undone), and for options that force a
// plan also the refusals of a plan that cannot work (IPT_INVALID_VALUE,
// IPT_BUFFER_TOO_SMALL, IPT_MATRIX_TOO_LARGE, IPT_OUT_OF_RESOURCES).
std::vector<ipt_status> allowed_statuses(const ApiCall& call, std::size_t buffer_bytes,
                                         const DeviceFacts& device);

bool is_transposition(Function function);

}  // namespace ipt::fuzz
