// SPDX-License-Identifier: Apache-2.0
#include "api_statuses.hpp"

#include <algorithm>

namespace ipt::fuzz {
namespace {

bool valid_element_size(std::size_t elem_size) {
  return elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8 || elem_size == 16;
}

// The options' enums hold a value the header names (an ipt_plan_options check).
bool options_malformed(const ApiCall& call) {
  if (!call.has_options) return false;
  const bool padding = call.padding == IPT_PADDING_AUTO || call.padding == IPT_PADDING_OFF;
  const bool sequence = call.sequence >= IPT_SEQUENCE_AUTO && call.sequence <= IPT_SEQUENCE_ON_CHIP;
  return !padding || !sequence;
}

// The element size and the matrix's bytes (ipt_padded_size, ipt_plan; their offset is 0).
void add_shape_errors(const ApiCall& call, std::vector<ipt_status>& errors) {
  if (!valid_element_size(call.elem_size))
    errors.push_back(IPT_INVALID_ELEMENT_SIZE);
  else if (!call.matrix_bytes_fit())
    errors.push_back(IPT_SIZE_OVERFLOW);
}

// The errors of the queue, the buffer and the wait list; false when the queue is NULL
// (nothing else is checked without the queue's context).
bool add_handle_errors(const ApiCall& call, std::vector<ipt_status>& errors) {
  if (call.queue == Handle::kNull) {
    errors.push_back(IPT_INVALID_COMMAND_QUEUE);
    return false;
  }
  const bool queue_other = call.queue == Handle::kOtherContext;
  if (call.buffer == Handle::kNull || call.buffer == Handle::kReadOnly)
    errors.push_back(IPT_INVALID_MEM_OBJECT);
  else if ((call.buffer == Handle::kOtherContext) != queue_other)
    errors.push_back(IPT_INVALID_CONTEXT);
  switch (call.wait) {
    case WaitList::kCountOnly:
    case WaitList::kListOnly:
      errors.push_back(IPT_INVALID_EVENT_WAIT_LIST);
      break;
    case WaitList::kUserAndNull:
      errors.push_back(IPT_INVALID_EVENT_WAIT_LIST);
      [[fallthrough]];
    case WaitList::kUserEvent:
    case WaitList::kComplete:  // events of the session's context
      if (queue_other) errors.push_back(IPT_INVALID_CONTEXT);
      break;
    case WaitList::kForeign:  // an event of the other context
      if (!queue_other) errors.push_back(IPT_INVALID_CONTEXT);
      break;
    case WaitList::kNone:
      break;
  }
  return true;
}

std::vector<ipt_status> transposition_errors(const ApiCall& call, std::size_t buffer_bytes,
                                             const DeviceFacts& device) {
  std::vector<ipt_status> errors;
  if (options_malformed(call)) errors.push_back(IPT_INVALID_VALUE);
  if (!add_handle_errors(call, errors)) return errors;
  if (!valid_element_size(call.elem_size))
    errors.push_back(IPT_INVALID_ELEMENT_SIZE);
  else if (!call.matrix_fits())
    errors.push_back(IPT_SIZE_OVERFLOW);
  else if (call.end_bytes() > buffer_bytes)
    errors.push_back(IPT_BUFFER_TOO_SMALL);
  if (call.function == Function::kTransposeF64 && !device.fp64)
    errors.push_back(IPT_FP64_NOT_SUPPORTED);
  return errors;
}

bool one_of(char c, const char* letters) {
  for (; *letters != '\0'; ++letters)
    if (c == *letters) return true;
  return false;
}

std::vector<ipt_status> imatcopy_errors(const ApiCall& call, std::size_t buffer_bytes,
                                        const DeviceFacts& device) {
  const ImatcopyArgs& a = call.imatcopy;
  std::vector<ipt_status> errors;
  const bool letters = one_of(a.ordering, "RrCc") && one_of(a.trans, "NnTtCcRr");
  const bool type_known = a.type >= IPT_SCALAR_NONE && a.type <= IPT_SCALAR_C64;
  if (!letters || !type_known) errors.push_back(IPT_INVALID_VALUE);
  constexpr std::size_t kTypeSizes[] = {0, 4, 8, 8, 16};
  if (type_known && a.type == IPT_SCALAR_NONE) {
    if (a.alpha || one_of(a.trans, "CcRr")) errors.push_back(IPT_INVALID_VALUE);
  } else if (type_known && call.elem_size != kTypeSizes[a.type]) {
    errors.push_back(IPT_INVALID_ELEMENT_SIZE);
  }
  if (!add_handle_errors(call, errors)) return errors;
  if (!valid_element_size(call.elem_size)) {
    errors.push_back(IPT_INVALID_ELEMENT_SIZE);
    return errors;
  }
  if (!call.matrix_bytes_fit()) errors.push_back(IPT_SIZE_OVERFLOW);
  // The row-major view, the strides it needs, the extents.
  const bool columns = one_of(a.ordering, "Cc"), transposes = one_of(a.trans, "TtCc");
  const std::uint64_t R = columns ? call.cols : call.rows, C = columns ? call.rows : call.cols;
  const std::uint64_t row_after = transposes ? R : C, rows_after = transposes ? C : R;
  if (a.lda < std::max<std::uint64_t>(C, 1) || a.ldb < std::max<std::uint64_t>(row_after, 1))
    errors.push_back(IPT_INVALID_VALUE);
  else if (R != 0 && C != 0) {
    std::uint64_t before = 0, after = 0, end = 0;
    if (__builtin_mul_overflow(R - 1, a.lda, &before) ||
        __builtin_add_overflow(before, C, &before) ||
        __builtin_mul_overflow(rows_after - 1, a.ldb, &after) ||
        __builtin_add_overflow(after, row_after, &after) ||
        __builtin_add_overflow(std::max(before, after), call.offset, &end) ||
        __builtin_mul_overflow(end, call.elem_size, &end))
      errors.push_back(IPT_SIZE_OVERFLOW);
    else if (end > buffer_bytes)
      errors.push_back(IPT_BUFFER_TOO_SMALL);
  } else {
    std::uint64_t offset_bytes = 0;
    if (__builtin_mul_overflow(call.offset, call.elem_size, &offset_bytes))
      errors.push_back(IPT_SIZE_OVERFLOW);
    else if (offset_bytes > buffer_bytes)
      errors.push_back(IPT_BUFFER_TOO_SMALL);
  }
  if ((a.type == IPT_SCALAR_F64 || a.type == IPT_SCALAR_C64) && !device.fp64)
    errors.push_back(IPT_FP64_NOT_SUPPORTED);
  return errors;
}

std::vector<ipt_status> query_errors(const ApiCall& call, const DeviceFacts& device) {
  std::vector<ipt_status> errors;
  if (call.function == Function::kPlan && options_malformed(call))
    errors.push_back(IPT_INVALID_VALUE);
  if (call.queue == Handle::kNull) errors.push_back(IPT_INVALID_DEVICE);  // the device argument
  if (call.null_output) errors.push_back(IPT_INVALID_VALUE);
  add_shape_errors(call, errors);
  if (!errors.empty()) return errors;
  // A matrix no allocation of the device holds. ipt_plan told that the buffer holds the
  // matrix (max_bytes) allows 4 allocations, as calls on such a buffer do: some drivers
  // allocate past the maximum they report. Options that force a plan are checked by the
  // planner, which may refuse them before it weighs the matrix's size.
  const std::uint64_t matrix = call.rows * call.cols * call.elem_size;
  const bool in_buffer = call.function == Function::kPlan && call.has_options &&
                         call.options.max_bytes / call.elem_size >= call.rows * call.cols;
  if (matrix > (in_buffer ? 4 : 1) * device.max_alloc) {
    errors.push_back(IPT_MATRIX_TOO_LARGE);
    if (call.function == Function::kPlan && call.forces_plan()) errors.push_back(IPT_INVALID_VALUE);
  }
  return errors;
}

}  // namespace

bool is_transposition(Function function) {
  return function != Function::kPaddedSize && function != Function::kPlan;
}

std::vector<ipt_status> allowed_statuses(const ApiCall& call, std::size_t buffer_bytes,
                                         const DeviceFacts& device) {
  std::vector<ipt_status> allowed =
      call.function == Function::kImatcopy ? imatcopy_errors(call, buffer_bytes, device)
      : is_transposition(call.function)    ? transposition_errors(call, buffer_bytes, device)
                                           : query_errors(call, device);
  if (!allowed.empty()) return allowed;
  allowed.push_back(IPT_SUCCESS);
  if (is_transposition(call.function)) allowed.push_back(IPT_ROLLED_BACK);
  if (call.forces_plan())
    allowed.insert(allowed.end(), {IPT_INVALID_VALUE, IPT_BUFFER_TOO_SMALL, IPT_MATRIX_TOO_LARGE,
                                   IPT_OUT_OF_RESOURCES});
  return allowed;
}

}  // namespace ipt::fuzz
