// SPDX-License-Identifier: Apache-2.0
// The exported imatcopy entry points (MKL's mkl_?imatcopy semantics): the letters and the
// scalar are read here into the row-major view the runtime plans; then validate, execute.
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "api/validate.hpp"
#include "runtime/transpose.hpp"

namespace {

using ipt::planner::Scalar;

struct Operation {
  bool transpose = false, conjugate = false;
};

Operation operation_of(char trans) {
  switch (trans) {
    case 'N':
    case 'n':
      return {false, false};
    case 'T':
    case 't':
      return {true, false};
    case 'C':
    case 'c':
      return {true, true};
    case 'R':
    case 'r':
      return {false, true};
    default:
      ipt::fail(IPT_INVALID_VALUE,
                "trans is '" + std::string(1, trans) + "'; it must be 'N', 'T', 'C' or 'R'");
  }
}

bool column_major(char ordering) {
  if (ordering == 'R' || ordering == 'r') return false;
  if (ordering == 'C' || ordering == 'c') return true;
  ipt::fail(IPT_INVALID_VALUE,
            "ordering is '" + std::string(1, ordering) + "'; it must be 'R' or 'C'");
}

Scalar scalar_of(ipt_scalar_type type) {
  switch (ipt::api::raw_value(type)) {
    case IPT_SCALAR_NONE:
      return Scalar::kNone;
    case IPT_SCALAR_F32:
      return Scalar::kF32;
    case IPT_SCALAR_F64:
      return Scalar::kF64;
    case IPT_SCALAR_C32:
      return Scalar::kC32;
    case IPT_SCALAR_C64:
      return Scalar::kC64;
  }
  ipt::fail(IPT_INVALID_VALUE,
            "the scalar type " + std::to_string(ipt::api::raw_value(type)) + " is unknown");
}

// alpha's parts as raw bits, each in the low bits of its word; whether it is exactly 1
// (real part 1, imaginary part +0), which multiplies nothing.
ipt::planner::ElementTransform transform_of(Scalar scalar, const void* alpha, bool conjugate) {
  ipt::planner::ElementTransform transform;
  transform.scalar = scalar;
  transform.conjugate = conjugate && ipt::planner::is_complex(scalar);
  if (alpha == nullptr) return transform;
  bool one = false;
  switch (scalar) {
    case Scalar::kF32:
    case Scalar::kC32: {
      float parts[2] = {0.0f, 0.0f};
      std::memcpy(parts, alpha, scalar == Scalar::kC32 ? 8 : 4);
      std::uint32_t bits[2];
      std::memcpy(bits, parts, sizeof bits);
      transform.alpha[0] = bits[0];
      transform.alpha[1] = bits[1];
      one = parts[0] == 1.0f && bits[1] == 0;
      break;
    }
    case Scalar::kF64:
    case Scalar::kC64: {
      double parts[2] = {0.0, 0.0};
      std::memcpy(parts, alpha, scalar == Scalar::kC64 ? 16 : 8);
      std::memcpy(transform.alpha, parts, sizeof parts);
      one = parts[0] == 1.0 && transform.alpha[1] == 0;
      break;
    }
    case Scalar::kNone:
      break;
  }
  transform.multiply = !one;
  if (one) transform.alpha[0] = transform.alpha[1] = 0;  // one plan for every alpha of 1
  return transform;
}

ipt_status imatcopy(const char* function, cl_command_queue queue, char ordering, char trans,
                    size_t rows, size_t cols, const void* alpha, cl_mem buffer, size_t offset,
                    size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                    const cl_event* event_wait_list, cl_event* event, size_t elem_size,
                    ipt_scalar_type type) noexcept {
  return ipt::api::guarded(function, [&] {
    const bool columns = column_major(ordering);
    const Operation op = operation_of(trans);
    const Scalar scalar = scalar_of(type);
    if (scalar == Scalar::kNone) {
      if (alpha != nullptr)
        ipt::fail(IPT_INVALID_VALUE,
                  "alpha is given for IPT_SCALAR_NONE: raw elements cannot be scaled (pass "
                  "NULL, or a numeric type)");
      if (op.conjugate)
        ipt::fail(IPT_INVALID_VALUE, "trans '" + std::string(1, trans) +
                                         "' conjugates, but IPT_SCALAR_NONE is not complex");
    } else if (ipt::planner::scalar_bytes(scalar) != elem_size) {
      ipt::fail(IPT_INVALID_ELEMENT_SIZE, "elem_size is " + std::to_string(elem_size) +
                                              "; the scalar type's is " +
                                              std::to_string(ipt::planner::scalar_bytes(scalar)));
    }
    ipt::runtime::ImatcopyRequest request;
    ipt::runtime::TransposeRequest& call = request.call;
    call.queue = queue;
    call.buffer = buffer;
    call.offset = offset;
    // A column-major rows x cols matrix is the row-major cols x rows one.
    call.rows = columns ? cols : rows;
    call.cols = columns ? rows : cols;
    call.elem_size = elem_size;
    call.num_events_in_wait_list = num_events_in_wait_list;
    call.event_wait_list = event_wait_list;
    call.event = event;
    request.lda = lda;
    request.ldb = ldb;
    request.transpose = op.transpose;
    request.transform = transform_of(scalar, alpha, op.conjugate);
    ipt::api::validate_imatcopy(request, scalar == Scalar::kF64 || scalar == Scalar::kC64);
    ipt::runtime::execute_imatcopy(request);
  });
}

}  // namespace

extern "C" {

ipt_status ipt_imatcopy(cl_command_queue queue, char ordering, char trans, size_t rows, size_t cols,
                        const void* alpha, cl_mem buffer, size_t offset, size_t lda, size_t ldb,
                        cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                        cl_event* event, size_t elem_size, ipt_scalar_type type) {
  return imatcopy("ipt_imatcopy", queue, ordering, trans, rows, cols, alpha, buffer, offset, lda,
                  ldb, num_events_in_wait_list, event_wait_list, event, elem_size, type);
}

ipt_status ipt_simatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                         size_t cols, float alpha, cl_mem buffer, size_t offset, size_t lda,
                         size_t ldb, cl_uint num_events_in_wait_list,
                         const cl_event* event_wait_list, cl_event* event) {
  return imatcopy("ipt_simatcopy", queue, ordering, trans, rows, cols, &alpha, buffer, offset, lda,
                  ldb, num_events_in_wait_list, event_wait_list, event, 4, IPT_SCALAR_F32);
}

ipt_status ipt_dimatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                         size_t cols, double alpha, cl_mem buffer, size_t offset, size_t lda,
                         size_t ldb, cl_uint num_events_in_wait_list,
                         const cl_event* event_wait_list, cl_event* event) {
  return imatcopy("ipt_dimatcopy", queue, ordering, trans, rows, cols, &alpha, buffer, offset, lda,
                  ldb, num_events_in_wait_list, event_wait_list, event, 8, IPT_SCALAR_F64);
}

ipt_status ipt_cimatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                         size_t cols, ipt_complex_f32 alpha, cl_mem buffer, size_t offset,
                         size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                         const cl_event* event_wait_list, cl_event* event) {
  return imatcopy("ipt_cimatcopy", queue, ordering, trans, rows, cols, &alpha, buffer, offset, lda,
                  ldb, num_events_in_wait_list, event_wait_list, event, 8, IPT_SCALAR_C32);
}

ipt_status ipt_zimatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                         size_t cols, ipt_complex_f64 alpha, cl_mem buffer, size_t offset,
                         size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                         const cl_event* event_wait_list, cl_event* event) {
  return imatcopy("ipt_zimatcopy", queue, ordering, trans, rows, cols, &alpha, buffer, offset, lda,
                  ldb, num_events_in_wait_list, event_wait_list, event, 16, IPT_SCALAR_C64);
}

}  // extern "C"
