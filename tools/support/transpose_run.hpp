// SPDX-License-Identifier: Apache-2.0
// One measured transposition through the public API, shared by ipt-demo and ipt-bench:
// random data, warm-up, timed runs with profiling events, bit-exact verification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ipt/ipt.h"
#include "support/device_pattern.hpp"
#include "support/device_select.hpp"
#include "support/measure.hpp"

namespace ipt::support {

// A failed call's status in words, followed by ipt_last_error_message() when the library
// left one: the status names the kind of failure, the message its precise reason.
std::string failure_text(ipt_status status);

struct RunOptions {
  std::size_t rows = 0, cols = 0, elem_size = 4;
  bool use_f64_entry = false;  // call ipt_transpose_f64 instead of ipt_transpose
  int repetitions = 1;         // timed runs after one warm-up
  bool verify = true;
  std::uint64_t seed = 1;
  // Made and checked on the device (DevicePattern) when given; else random host bytes
  // checked on the host.
  DevicePattern* pattern = nullptr;
  bool padding_room = true;  // buffer of ipt_padded_size bytes (else exactly the matrix)
  const ipt_plan_options* options = nullptr;  // forced plan of the timed calls (NULL: auto)
};

struct RunResult {
  ipt_status status = IPT_SUCCESS;
  std::string error;             // status text and last-error message when status != 0
  Stats seconds;                 // kernel time per transposition (profiling events)
  double wall_seconds = 0;       // median host time from the call to completion
  double throughput_gbs = 0;     // 2 * rows * cols * elem_size / median seconds, in GB/s
  bool verified = false;         // the result was checked, and matched
  std::string mismatch;          // non-empty when verification failed
  ipt_plan_info plan{};          // the plan of the timed calls
  std::size_t buffer_bytes = 0;  // the buffer's size (matrix and room for padding)
};

// Runs the transposition described by `options` on `session`'s queue: one verified
// warm-up call, then `repetitions` timed calls of rows x cols, each followed by an
// untimed automatic call that transposes back (so that every timed call is the same).
RunResult run_transpose(const Session& session, const RunOptions& options);

}  // namespace ipt::support
