// SPDX-License-Identifier: Apache-2.0
// How the asynchronous scheme of host transposition (ipt_transpose_host) cuts a matrix
// into slices that move between host and device while other slices are transposed
// (PPoPP 2014 §6): M = M' m rows, N = N' n columns, and three phases, each in place.
//   A  each block of m rows (m x N) transposed: instances of M' rows, so a slice of
//      them is transposed as soon as its rows are uploaded;
//   B  100! (M', N', n m): the super-elements of n m elements swapped across the whole
//      matrix (the one phase that spans it);
//   C  0100! (N' | M', n, m): each block of n rows of the transpose put together; a slice
//      of them is final as soon as its phase C is done.
// m = 1 (no usable factor of M) leaves A nothing to do, n = 1 leaves C nothing. Where
// n m is below kMinSliceSuper, B's super-elements would be too small for cycle following
// to move fast (TPDS 2015 keeps 100! factors from 4 up), so m = n = 1 and B is the
// library's whole transposition instead. Pure C++: computed and tested without a device.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/sequence.hpp"

namespace ipt::host {

struct HostSlicing {
  std::uint64_t rows = 0, cols = 0;  // M, N
  std::uint64_t m = 1, n = 1;
  // Slice q's upload is blocks [upload[q], upload[q + 1]) of m rows; its download is
  // blocks [download[q], download[q + 1]) of n rows of the transpose. Q + 1 cuts each,
  // from 0 to M' (N'); a slice may be empty when M' (N') is below Q.
  std::vector<std::uint64_t> upload, download;

  std::uint64_t slices() const { return upload.size() - 1; }
  bool whole() const { return m * n == 1; }
  // Phase B (unless whole(): then the library's transposition of the matrix) and phase C of
  // download blocks [first, last) (when n > 1 and m > 1; with m = 1 it is a batch of M x n
  // transposes).
  planner::Stage middle() const;
  planner::Stage last(std::uint64_t first, std::uint64_t end) const;
};

// The slicing of a rows x cols matrix into `slices` (1 to kMaxHostSlices) slices: m and n
// the largest divisors of M and N up to kSliceFactor that leave at least `slices` blocks
// (1 when there is none: a prime side), both 1 when n m < kMinSliceSuper; the blocks
// shared out as evenly as they go.
inline constexpr unsigned kMaxHostSlices = 16;
inline constexpr std::uint64_t kSliceFactor = 32, kMinSliceSuper = 16;
HostSlicing plan_host_slicing(std::uint64_t rows, std::uint64_t cols, unsigned slices);

// The slicing of a matrix larger than the device holds (host/host_streamed.hpp): the
// same phases, A and C streamed through the device in parts of at most `part_bytes`
// (upload and download cuts: the parts' blocks, as many parts as it takes), B done on
// the host. m and n the largest divisors up to kStreamFactor whose blocks fit a part
// (m N and M n elements); both 1, and the whole transposition on the host, where there
// is no such pair with n m >= kMinSliceSuper.
inline constexpr std::uint64_t kStreamFactor = 64;
HostSlicing plan_host_streaming(std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
                                std::uint64_t part_bytes);

}  // namespace ipt::host
