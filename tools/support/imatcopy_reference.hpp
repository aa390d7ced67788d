// SPDX-License-Identifier: Apache-2.0
// The host reference of ipt_imatcopy (MKL's mkl_?imatcopy semantics), for the tests and
// the benchmark: what the buffer must hold after a call, and which of its bytes the call
// specifies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ipt/ipt.h"

namespace ipt::support {

struct ImatcopyCall {
  char ordering = 'R', trans = 'N';
  std::size_t rows = 0, cols = 0, lda = 0, ldb = 0;
  ipt_scalar_type type = IPT_SCALAR_NONE;
  std::size_t elem_size = 4;
  bool has_alpha = false;             // else alpha = 1 (NULL for ipt_imatcopy)
  double alpha_re = 1, alpha_im = 0;  // converted to the type's precision

  // The row-major view: rows and cols swapped for column-major.
  std::size_t view_rows() const;
  std::size_t view_cols() const;
  bool transposes() const;  // 'T' or 'C'
  bool conjugates() const;  // 'C' or 'R' on a complex type
  // Elements from the matrix's start to the end of A's or B's last row, the larger.
  std::size_t extent() const;
  std::string text() const;  // for failure messages
};

// Runs the call through the public API (ipt_imatcopy with the call's alpha, or the typed
// form when `typed`) on `buffer` at element `offset`, after the wait list. Returns the
// status.
ipt_status run_imatcopy(const ImatcopyCall& call, cl_command_queue queue, cl_mem buffer,
                        std::size_t offset, bool typed, cl_event* event, cl_uint num_events = 0,
                        const cl_event* wait = nullptr);

// The buffer's bytes after the call from `before` (the whole buffer), and in `specified`
// whether each byte is determined: every byte outside the extent (unchanged), every
// element of the result, and the gaps between rows when the call neither transposes nor
// changes the stride (unchanged). Products are computed one rounding at a time, as the
// kernels do.
std::vector<unsigned char> imatcopy_expected(const ImatcopyCall& call, std::size_t offset,
                                             const std::vector<unsigned char>& before,
                                             std::vector<bool>& specified);

// Writes random values of the call's type into every element slot of the extent (every
// part of a complex element): random signs, random mantissas of full precision, |x| in
// [2^-8, 2^9); never zero, denormal, Inf or NaN. Products with an alpha of full precision
// then round, so that the bit-for-bit comparison with imatcopy_expected sees a product
// computed in another precision, fused into a multiply-add, or in another order. Raw
// types keep their random bytes.
void fill_numeric(const ImatcopyCall& call, std::size_t offset, std::vector<unsigned char>& bytes,
                  std::uint64_t seed);

}  // namespace ipt::support
