// SPDX-License-Identifier: Apache-2.0
// Argument checks of the C API. Everything is checked before anything is enqueued, so
// a rejected call leaves the caller's buffer untouched.
#pragma once

#include <cstddef>
#include <cstring>

#include "runtime/opencl.hpp"

namespace ipt::runtime {
struct TransposeRequest;
struct ImatcopyRequest;
struct PermuteRequest;
}  // namespace ipt::runtime

namespace ipt::api {

// An enumeration argument or field as the int a C caller stored. C allows any int there,
// while reading one outside the enumerators' range as the C++ enum type is undefined.
template <typename Enum>
int raw_value(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized on supported ABIs");
  int value = 0;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

// Throws ipt::Error with the status documented in ipt.h for the first problem found.
// Fills in request.context, request.device and request.buffer_bytes.
void validate_transpose(runtime::TransposeRequest& request, bool require_fp64);

// As validate_transpose for ipt_imatcopy: the strides (IPT_INVALID_VALUE), then the
// matrix's larger extent with them against the buffer. Expects the row-major view.
void validate_imatcopy(runtime::ImatcopyRequest& request, bool require_fp64);

// As validate_transpose for ipt_permute, given the caller's rank, dims and perm: the rank
// (1 to 8), dims and perm (not NULL; perm a permutation of 0 .. rank - 1) are
// IPT_INVALID_VALUE, then the element size, the tensor's size and its extent in the
// buffer. Fills in request.dims, request.perm and the call's rows (the tensor's elements)
// and cols (1).
void validate_permute(runtime::PermuteRequest& request, std::size_t rank, const std::size_t* dims,
                      const std::size_t* perm);

// A context and one of its devices: IPT_INVALID_CONTEXT or IPT_INVALID_DEVICE.
void check_context_device(cl_context context, cl_device_id device);

// The rank, dims and perm of ipt_permute and ipt_plan_permute (IPT_INVALID_VALUE).
void check_permutation(std::size_t rank, const std::size_t* dims, const std::size_t* perm);

// Bytes of a tensor of `rank` axes of `dims`: IPT_INVALID_ELEMENT_SIZE or IPT_SIZE_OVERFLOW.
std::size_t checked_tensor_bytes(std::size_t rank, const std::size_t* dims, std::size_t elem_size);

// Checks elem_size and returns rows * cols * elem_size; throws on overflow.
// Bytes of `batch` matrices of rows x cols; IPT_INVALID_ELEMENT_SIZE or IPT_SIZE_OVERFLOW.
std::size_t checked_matrix_bytes(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                 std::size_t batch = 1);

}  // namespace ipt::api
