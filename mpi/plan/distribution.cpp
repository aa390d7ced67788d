// SPDX-License-Identifier: Apache-2.0
#include "distribution.hpp"

#include <algorithm>

namespace ipt::mpi {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

}  // namespace

std::string distribute(std::size_t ranks, std::size_t rows, std::size_t cols,
                       std::size_t block_rows, std::size_t block_cols, Distribution* out,
                       bool* overflow) {
  if (overflow != nullptr) *overflow = false;
  if (ranks == 0) return "a communicator without ranks";
  Distribution d;
  d.ranks = ranks;
  d.rows = rows;
  d.cols = cols;
  d.block_rows = block_rows != 0 ? block_rows : std::max<std::size_t>(ceil_div(rows, ranks), 1);
  d.block_cols = block_cols != 0 ? block_cols : std::max<std::size_t>(ceil_div(cols, ranks), 1);
  // Blocks that give every row to some rank: b P >= M, written so as not to overflow.
  if (ceil_div(rows, d.block_rows) > ranks)
    return "blocks of " + std::to_string(d.block_rows) + " rows leave rows of the " +
           std::to_string(rows) + "-row matrix to no rank of " + std::to_string(ranks);
  if (ceil_div(cols, d.block_cols) > ranks)
    return "blocks of " + std::to_string(d.block_cols) + " rows of the transpose leave rows of " +
           "its " + std::to_string(cols) + " to no rank of " + std::to_string(ranks);
  if (rows != 0 && cols != 0) {
    d.active = std::max(ceil_div(rows, d.block_rows), ceil_div(cols, d.block_cols));
    std::size_t sb = 0;
    if (__builtin_mul_overflow(d.active, d.block_rows, &sb) ||
        __builtin_mul_overflow(sb, d.block_cols, &d.alloc)) {
      if (overflow != nullptr) *overflow = true;
      return "the padded block of " + std::to_string(d.active) + " x " +
             std::to_string(d.block_rows) + " x " + std::to_string(d.block_cols) +
             " elements overflows size_t";
    }
  }
  *out = d;
  return "";
}

Share share_of(const Distribution& d, std::size_t rank) {
  Share s;
  if (rank >= d.ranks) return s;
  // rank b <= M is not guaranteed for ranks past the last block: clamp before multiplying.
  s.row_start = rank < d.rows / d.block_rows + 1 ? std::min(rank * d.block_rows, d.rows) : d.rows;
  s.rows = std::min(d.block_rows, d.rows - s.row_start);
  s.col_start = rank < d.cols / d.block_cols + 1 ? std::min(rank * d.block_cols, d.cols) : d.cols;
  s.cols = std::min(d.block_cols, d.cols - s.col_start);
  s.active = rank < d.active;
  s.alloc = s.active ? d.alloc : 0;
  return s;
}

}  // namespace ipt::mpi
