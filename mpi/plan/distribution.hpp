// SPDX-License-Identifier: Apache-2.0
// The block distribution of a distributed transposition (FFTW's): which rows of the matrix
// and of its transpose each rank holds, and how much its buffer must hold. Knows nothing of
// MPI or OpenCL, so that tools and tests plan without either.
#pragma once

#include <cstddef>
#include <string>

namespace ipt::mpi {

struct Distribution {
  std::size_t ranks = 0;       // P
  std::size_t rows = 0;        // M
  std::size_t cols = 0;        // N
  std::size_t block_rows = 0;  // b: rows of the matrix per rank
  std::size_t block_cols = 0;  // c: rows of the transpose per rank
  std::size_t active = 0;      // S: ranks with a block before or after (a prefix of the ranks)
  std::size_t alloc = 0;       // S b c: elements of each active rank's padded block
};

struct Share {
  std::size_t rows = 0, row_start = 0;  // rows of the matrix the rank holds before
  std::size_t cols = 0, col_start = 0;  // rows of the transpose it holds after
  std::size_t alloc = 0;                // elements its buffer must hold from the offset
  bool active = false;                  // rank < S: it takes part in the local steps
};

// Blocks of block_rows and block_cols (0: FFTW's default, ceil(M / P) and ceil(N / P)).
// Returns "" and fills *out, or says why there is no such distribution (blocks that leave
// rows of the matrix or of the transpose to no rank, or a padded block past size_t).
// *overflow (when given) says which of the two it was.
std::string distribute(std::size_t ranks, std::size_t rows, std::size_t cols,
                       std::size_t block_rows, std::size_t block_cols, Distribution* out,
                       bool* overflow = nullptr);

Share share_of(const Distribution& d, std::size_t rank);

}  // namespace ipt::mpi
