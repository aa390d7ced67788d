// SPDX-License-Identifier: Apache-2.0
// The matrix of ipt-bench mpi on the device: element (i, j) of the global rows x cols
// matrix is a hash of its index i * cols + j, written and checked by kernels where each
// rank's block is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ipt/ipt_mpi.h"
#include "support/device_select.hpp"

namespace ipt::bench {

// A block stored row-major as (count / cols) x cols: its element p = a * cols + b holds
// the matrix's element of global index base + a * a_step + b * b_step.
struct Layout {
  std::size_t count = 0, cols = 1, a_step = 0, b_step = 0, base = 0;
};

// Rows [r0, r0 + lr) of the M x N matrix: lr x N, or N x lr (TRANSPOSED_IN).
Layout input_layout(std::size_t N, const ipt_mpi_local& local, unsigned flags);

// Rows [c0, c0 + lc) of the N x M transpose, whose element (j, i) is the matrix's
// (i, c0 + j): lc x M, or M x lc (TRANSPOSED_OUT).
Layout output_layout(std::size_t M, std::size_t N, const ipt_mpi_local& local, unsigned flags);

// Writes and checks a block's elements with the session's device.
class BlockPattern {
 public:
  explicit BlockPattern(const support::Session& session);
  ~BlockPattern();
  BlockPattern(const BlockPattern&) = delete;
  BlockPattern& operator=(const BlockPattern&) = delete;

  void fill(cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed);
  // Empty when the block holds what `l` says; else how many elements are wrong, and where.
  std::string check(cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed);

 private:
  void run(const char* name, cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed,
           bool with_result);
  cl_kernel kernel(const char* name, std::size_t e);

  const support::Session& session_;
  cl_program programs_[5] = {};
  cl_mem result_ = nullptr;
};

}  // namespace ipt::bench
