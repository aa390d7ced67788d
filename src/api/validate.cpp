// SPDX-License-Identifier: Apache-2.0
#include "api/validate.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "planner/permute_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/error.hpp"
#include "runtime/transpose.hpp"

namespace ipt::api {
namespace {

cl_context queue_context(cl_command_queue queue) {
  cl_context context = nullptr;
  if (queue == nullptr || clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof(context), &context,
                                                nullptr) != CL_SUCCESS)
    fail(IPT_INVALID_COMMAND_QUEUE, "the command queue is NULL or invalid");
  return context;
}

cl_device_id queue_device(cl_command_queue queue) {
  cl_device_id device = nullptr;
  check_cl(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device, nullptr),
           "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
  return device;
}

// Returns the buffer's size in bytes after checking that kernels may read and write it.
// Only the device-access flags matter: OpenCL leaves a kernel's write to a
// CL_MEM_READ_ONLY buffer and its read of a CL_MEM_WRITE_ONLY one undefined. The
// CL_MEM_HOST_* flags restrict the host's reads, writes and maps, none of which the
// library makes on the caller's buffer.
std::size_t check_buffer(cl_mem buffer, cl_context context) {
  cl_mem_object_type type = 0;
  if (buffer == nullptr ||
      clGetMemObjectInfo(buffer, CL_MEM_TYPE, sizeof(type), &type, nullptr) != CL_SUCCESS)
    fail(IPT_INVALID_MEM_OBJECT, "the buffer is NULL or not a valid cl_mem");
  if (type != CL_MEM_OBJECT_BUFFER) fail(IPT_INVALID_MEM_OBJECT, "the cl_mem is not a buffer");
  cl_mem_flags flags = 0;
  check_cl(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof(flags), &flags, nullptr),
           "clGetMemObjectInfo(CL_MEM_FLAGS)");
  if (flags & CL_MEM_READ_ONLY)
    fail(IPT_INVALID_MEM_OBJECT,
         "the buffer was created CL_MEM_READ_ONLY; kernels cannot write it");
  if (flags & CL_MEM_WRITE_ONLY)
    fail(IPT_INVALID_MEM_OBJECT,
         "the buffer was created CL_MEM_WRITE_ONLY; kernels cannot read it");
  cl_context buffer_context = nullptr;
  check_cl(
      clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof(buffer_context), &buffer_context, nullptr),
      "clGetMemObjectInfo(CL_MEM_CONTEXT)");
  if (buffer_context != context)
    fail(IPT_INVALID_CONTEXT, "the buffer and the command queue belong to different contexts");
  std::size_t size = 0;
  check_cl(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof(size), &size, nullptr),
           "clGetMemObjectInfo(CL_MEM_SIZE)");
  return size;
}

void check_wait_list(cl_uint count, const cl_event* events, cl_context context) {
  if ((count == 0) != (events == nullptr))
    fail(IPT_INVALID_EVENT_WAIT_LIST,
         count == 0 ? "event_wait_list is not NULL but num_events_in_wait_list is 0"
                    : "num_events_in_wait_list is " + std::to_string(count) +
                          " but event_wait_list is NULL");
  for (cl_uint i = 0; i < count; ++i) {
    cl_context event_context = nullptr;
    if (events[i] == nullptr || clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof(event_context),
                                               &event_context, nullptr) != CL_SUCCESS)
      fail(IPT_INVALID_EVENT_WAIT_LIST,
           "event_wait_list[" + std::to_string(i) + "] is not a valid event");
    if (event_context != context)
      fail(IPT_INVALID_CONTEXT,
           "event_wait_list[" + std::to_string(i) + "] belongs to another context than the queue");
    // A command that waits for a failed event never runs and its event never completes
    // normally; refused here, before anything is enqueued. An event that fails after this
    // check cannot be refused: what becomes of the commands waiting for it is the
    // driver's to decide (PoCL aborts; untested).
    cl_int status = CL_COMPLETE;
    if (clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                       nullptr) != CL_SUCCESS)
      fail(IPT_INVALID_EVENT_WAIT_LIST,
           "event_wait_list[" + std::to_string(i) + "] is not a valid event");
    if (status < 0)
      fail(IPT_INVALID_EVENT_WAIT_LIST,
           "event_wait_list[" + std::to_string(i) + "] has already failed (execution status " +
               std::to_string(status) + "): the call's commands could never run");
  }
}

bool valid_element_size(std::size_t elem_size) {
  return elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8 || elem_size == 16;
}

}  // namespace

std::size_t checked_matrix_bytes(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                 std::size_t batch) {
  if (!valid_element_size(elem_size))
    fail(IPT_INVALID_ELEMENT_SIZE,
         "elem_size is " + std::to_string(elem_size) + "; it must be 1, 2, 4, 8 or 16");
  if (rows == 0 || cols == 0 || batch == 0) return 0;  // nothing to move, whatever the rest
  std::size_t elements = 0, bytes = 0;
  if (__builtin_mul_overflow(rows, cols, &elements) ||
      __builtin_mul_overflow(elements, elem_size, &bytes))
    fail(IPT_SIZE_OVERFLOW, "rows * cols * elem_size = " + std::to_string(rows) + " * " +
                                std::to_string(cols) + " * " + std::to_string(elem_size) +
                                " overflows size_t");
  if (__builtin_mul_overflow(bytes, batch, &bytes))
    fail(IPT_SIZE_OVERFLOW, "batch * rows * cols * elem_size = " + std::to_string(batch) + " * " +
                                std::to_string(rows) + " * " + std::to_string(cols) + " * " +
                                std::to_string(elem_size) + " overflows size_t");
  return bytes;
}

void check_permutation(std::size_t rank, const std::size_t* dims, const std::size_t* perm) {
  if (rank == 0 || rank > planner::kMaxRank)
    fail(IPT_INVALID_VALUE, "rank is " + std::to_string(rank) + "; it must be 1 to " +
                                std::to_string(planner::kMaxRank));
  if (dims == nullptr) fail(IPT_INVALID_VALUE, "dims is NULL");
  if (perm == nullptr) fail(IPT_INVALID_VALUE, "perm is NULL");
  bool seen[planner::kMaxRank] = {};
  for (std::size_t i = 0; i < rank; ++i) {
    if (perm[i] >= rank || seen[perm[i]])
      fail(IPT_INVALID_VALUE, "perm[" + std::to_string(i) + "] is " + std::to_string(perm[i]) +
                                  ": perm must hold each of 0 .. " + std::to_string(rank - 1) +
                                  " once");
    seen[perm[i]] = true;
  }
}

std::size_t checked_tensor_bytes(std::size_t rank, const std::size_t* dims, std::size_t elem_size) {
  std::size_t bytes = checked_matrix_bytes(1, 1, elem_size);  // checks elem_size
  for (std::size_t a = 0; a < rank; ++a)
    if (__builtin_mul_overflow(bytes, dims[a], &bytes))
      fail(IPT_SIZE_OVERFLOW, "the tensor's size in bytes (dims[0] * ... * dims[" +
                                  std::to_string(rank - 1) + "] * elem_size) overflows size_t");
  return bytes;
}

namespace {

// The caller's handles, checked first (before any size): the queue, the buffer and the
// wait list. Returns the buffer's size.
std::size_t check_handles(runtime::TransposeRequest& request) {
  request.context = queue_context(request.queue);
  const std::size_t buffer_bytes = check_buffer(request.buffer, request.context);
  check_wait_list(request.num_events_in_wait_list, request.event_wait_list, request.context);
  return buffer_bytes;
}

// That `bytes` from the offset (what the call uses) lie within the buffer; then the
// device and its double support. Fills in the request's device and buffer size.
void check_extent(runtime::TransposeRequest& request, std::size_t buffer_bytes, bool require_fp64,
                  std::size_t bytes, const std::string& what, const char* overflow) {
  std::size_t offset_bytes = 0, end_bytes = 0;
  if (__builtin_mul_overflow(request.offset, request.elem_size, &offset_bytes) ||
      __builtin_add_overflow(offset_bytes, bytes, &end_bytes))
    fail(IPT_SIZE_OVERFLOW, overflow);
  if (end_bytes > buffer_bytes)
    fail(IPT_BUFFER_TOO_SMALL, what + " ends at byte " + std::to_string(end_bytes) +
                                   " but the buffer holds " + std::to_string(buffer_bytes) +
                                   " bytes");
  request.device = queue_device(request.queue);
  request.buffer_bytes = buffer_bytes;
  if (require_fp64 && !runtime::query_device_profile(request.device).has_fp64)
    fail(IPT_FP64_NOT_SUPPORTED,
         "the queue's device does not support double precision "
         "(use ipt_transpose with elem_size 8 to move 8-byte elements)");
}

}  // namespace

void validate_transpose(runtime::TransposeRequest& request, bool require_fp64) {
  const std::size_t buffer_bytes = check_handles(request);
  const std::size_t matrix_bytes = checked_matrix_bytes(
      request.rows, request.cols, request.elem_size, static_cast<std::size_t>(request.batch));
  const bool one = request.batch == 1;
  check_extent(request, buffer_bytes, require_fp64, matrix_bytes, one ? "the matrix" : "the batch",
               one ? "(offset + rows * cols) * elem_size overflows size_t"
                   : "(offset + batch * rows * cols) * elem_size overflows size_t");
}

void validate_permute(runtime::PermuteRequest& request, std::size_t rank, const std::size_t* dims,
                      const std::size_t* perm) {
  runtime::TransposeRequest& call = request.call;
  const std::size_t buffer_bytes = check_handles(call);
  check_permutation(rank, dims, perm);
  request.dims.assign(dims, dims + rank);
  request.perm.assign(perm, perm + rank);
  const std::size_t bytes = checked_tensor_bytes(rank, dims, call.elem_size);
  call.rows = bytes / call.elem_size;
  call.cols = 1;
  check_extent(call, buffer_bytes, false, bytes, "the tensor",
               "(offset + elements) * elem_size overflows size_t");
}

void validate_imatcopy(runtime::ImatcopyRequest& request, bool require_fp64) {
  runtime::TransposeRequest& call = request.call;
  const std::size_t buffer_bytes = check_handles(call);
  // The sides (as for a transposition), then the strides, as BLAS checks them even for an
  // empty matrix: at least 1, and at least a row.
  checked_matrix_bytes(call.rows, call.cols, call.elem_size);
  const std::uint64_t row_after = request.transpose ? call.rows : call.cols;
  if (request.lda < std::max<std::uint64_t>(call.cols, 1))
    fail(IPT_INVALID_VALUE, "lda is " + std::to_string(request.lda) +
                                "; it must be at least the length of a row of A in memory, " +
                                std::to_string(std::max<std::uint64_t>(call.cols, 1)));
  if (request.ldb < std::max<std::uint64_t>(row_after, 1))
    fail(IPT_INVALID_VALUE, "ldb is " + std::to_string(request.ldb) +
                                "; it must be at least the length of a row of the result in "
                                "memory, " +
                                std::to_string(std::max<std::uint64_t>(row_after, 1)));
  // Elements from the offset up to the end of the last row, before and after.
  std::uint64_t elements = 0;
  if (call.rows != 0 && call.cols != 0) {
    const std::uint64_t rows_after = request.transpose ? call.cols : call.rows;
    std::uint64_t before = 0, after = 0;
    if (__builtin_mul_overflow(call.rows - 1, request.lda, &before) ||
        __builtin_add_overflow(before, call.cols, &before) ||
        __builtin_mul_overflow(rows_after - 1, request.ldb, &after) ||
        __builtin_add_overflow(after, row_after, &after))
      fail(IPT_SIZE_OVERFLOW, "the matrix's extent with its strides overflows 64 bits");
    elements = std::max(before, after);
  }
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(elements, call.elem_size, &bytes))
    fail(IPT_SIZE_OVERFLOW, "the matrix's extent in bytes overflows size_t");
  check_extent(call, buffer_bytes, require_fp64, bytes,
               "the matrix (the larger of its extents before and after, with lda " +
                   std::to_string(request.lda) + " and ldb " + std::to_string(request.ldb) + ")",
               "(offset + extent) * elem_size overflows size_t");
}

void check_context_device(cl_context context, cl_device_id device) {
  cl_uint count = 0;
  if (context == nullptr || clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof(count), &count,
                                             nullptr) != CL_SUCCESS)
    fail(IPT_INVALID_CONTEXT, "the context is NULL or invalid");
  std::vector<cl_device_id> devices(count);
  check_cl(clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id),
                            devices.data(), nullptr),
           "clGetContextInfo(CL_CONTEXT_DEVICES)");
  for (cl_device_id candidate : devices)
    if (candidate == device && device != nullptr) return;
  fail(IPT_INVALID_DEVICE, "the device is NULL, invalid or not one of the context's devices");
}

}  // namespace ipt::api
