// The executor: turns one validated transposition request into enqueued kernels on the
// caller's queue, honouring the wait list and returning one completion event.
#pragma once

#include <cstdint>

#include "ipt/ipt.h"

namespace ipt::runtime {

struct TransposeRequest {
  cl_command_queue queue = nullptr;
  cl_mem buffer = nullptr;
  std::uint64_t offset = 0;  // in elements
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::size_t elem_size = 0;
  cl_uint num_events_in_wait_list = 0;
  const cl_event* event_wait_list = nullptr;
  cl_event* event = nullptr;  // may be NULL
};

// Enqueues the transposition. The request must have passed api::validate_transpose.
// Throws ipt::Error or cl::Error; nothing is enqueued when it throws before the first
// kernel, which is where every check happens.
void execute_transpose(const TransposeRequest& request);

}  // namespace ipt::runtime
