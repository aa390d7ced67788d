// SPDX-License-Identifier: Apache-2.0
// Argument checks of the C API. Everything is checked before anything is enqueued, so
// a rejected call leaves the caller's buffer untouched.
#pragma once

#include <cstddef>

namespace ipt::runtime {
struct TransposeRequest;
struct ImatcopyRequest;
}  // namespace ipt::runtime

namespace ipt::api {

// Throws ipt::Error with the status documented in ipt.h for the first problem found.
// Fills in request.context, request.device and request.buffer_bytes.
void validate_transpose(runtime::TransposeRequest& request, bool require_fp64);

// As validate_transpose for ipt_imatcopy: the strides (IPT_INVALID_VALUE), then the
// matrix's larger extent with them against the buffer. Expects the row-major view.
void validate_imatcopy(runtime::ImatcopyRequest& request, bool require_fp64);

// Checks elem_size and returns rows * cols * elem_size; throws on overflow.
// Bytes of `batch` matrices of rows x cols; IPT_INVALID_ELEMENT_SIZE or IPT_SIZE_OVERFLOW.
std::size_t checked_matrix_bytes(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                 std::size_t batch = 1);

}  // namespace ipt::api
