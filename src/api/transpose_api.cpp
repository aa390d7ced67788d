// SPDX-License-Identifier: Apache-2.0
// The exported transposition entry points: validate, then hand over to the executor.
#include <algorithm>

#include "api/guard.hpp"
#include "api/plan_options.hpp"
#include "api/validate.hpp"
#include "runtime/device_query.hpp"
#include "runtime/transpose.hpp"

namespace {

ipt_status transpose(const char* function, bool require_fp64, cl_command_queue queue, cl_mem buffer,
                     size_t offset, size_t rows, size_t cols, cl_uint num_events_in_wait_list,
                     const cl_event* event_wait_list, cl_event* event, size_t elem_size,
                     const ipt_plan_options* options = nullptr, size_t batch = 1) noexcept {
  return ipt::api::guarded(function, [&] {
    ipt::runtime::TransposeRequest request;
    request.queue = queue;
    request.buffer = buffer;
    request.offset = offset;
    request.rows = rows;
    request.cols = cols;
    request.batch = batch;
    request.elem_size = elem_size;
    request.num_events_in_wait_list = num_events_in_wait_list;
    request.event_wait_list = event_wait_list;
    request.event = event;
    if (options != nullptr) {
      request.forced_plan = true;
      request.plan_request = ipt::api::plan_request_of(options);
      request.max_bytes = options->max_bytes;
    }
    ipt::api::validate_transpose(request, require_fp64);
    ipt::runtime::execute_transpose(request);
  });
}

}  // namespace

extern "C" {

ipt_status ipt_transpose(cl_command_queue queue, cl_mem buffer, size_t offset, size_t rows,
                         size_t cols, cl_uint num_events_in_wait_list,
                         const cl_event* event_wait_list, cl_event* event, size_t elem_size) {
  return transpose("ipt_transpose", false, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, elem_size);
}

ipt_status ipt_transpose_f32(cl_command_queue queue, cl_mem buffer, size_t offset, size_t rows,
                             size_t cols, cl_uint num_events_in_wait_list,
                             const cl_event* event_wait_list, cl_event* event) {
  return transpose("ipt_transpose_f32", false, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, sizeof(cl_float));
}

ipt_status ipt_transpose_f64(cl_command_queue queue, cl_mem buffer, size_t offset, size_t rows,
                             size_t cols, cl_uint num_events_in_wait_list,
                             const cl_event* event_wait_list, cl_event* event) {
  return transpose("ipt_transpose_f64", true, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, sizeof(cl_double));
}

ipt_status ipt_transpose_batched(cl_command_queue queue, cl_mem buffer, size_t offset, size_t batch,
                                 size_t rows, size_t cols, cl_uint num_events_in_wait_list,
                                 const cl_event* event_wait_list, cl_event* event,
                                 size_t elem_size) {
  return transpose("ipt_transpose_batched", false, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, elem_size, nullptr, batch);
}

ipt_status ipt_transpose_batched_f32(cl_command_queue queue, cl_mem buffer, size_t offset,
                                     size_t batch, size_t rows, size_t cols,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event* event_wait_list, cl_event* event) {
  return transpose("ipt_transpose_batched_f32", false, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, sizeof(cl_float), nullptr,
                   batch);
}

ipt_status ipt_transpose_batched_f64(cl_command_queue queue, cl_mem buffer, size_t offset,
                                     size_t batch, size_t rows, size_t cols,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event* event_wait_list, cl_event* event) {
  return transpose("ipt_transpose_batched_f64", true, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, sizeof(cl_double), nullptr,
                   batch);
}

ipt_status ipt_padded_size(cl_device_id device, size_t rows, size_t cols, size_t elem_size,
                           size_t* bytes) {
  return ipt::api::guarded("ipt_padded_size", [&] {
    const auto profile = ipt::runtime::query_device_profile(device);  // validates the handle
    if (bytes == nullptr) ipt::fail(IPT_INVALID_VALUE, "bytes is NULL");
    const std::size_t matrix = ipt::api::checked_matrix_bytes(rows, cols, elem_size);
    if (rows == 0 || cols == 0) {
      *bytes = 0;
      return;
    }
    const auto plan = ipt::runtime::plan_for_call(profile, rows, cols, elem_size, 0, nullptr,
                                                  ipt::runtime::kUnlimited);
    // The room the plan borrows past the matrix: none where it keeps its padding in
    // scratch (as it does when borrowing would pass the memory bound).
    std::size_t padded = 0;
    if (__builtin_add_overflow(matrix, plan.borrowed_bytes, &padded))
      ipt::fail(IPT_SIZE_OVERFLOW, "the padded matrix's size overflows size_t");
    // Room that no allocation of the device can hold is of no use: the call then keeps
    // the padding in scratch.
    if (profile.max_alloc_bytes != 0 && padded > profile.max_alloc_bytes) padded = matrix;
    *bytes = std::max(matrix, padded);
  });
}

ipt_status ipt_transpose_with_options(cl_command_queue queue, cl_mem buffer, size_t offset,
                                      size_t rows, size_t cols, size_t elem_size,
                                      const ipt_plan_options* options,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event* event_wait_list, cl_event* event) {
  return transpose("ipt_transpose_with_options", false, queue, buffer, offset, rows, cols,
                   num_events_in_wait_list, event_wait_list, event, elem_size, options);
}

}  // extern "C"
