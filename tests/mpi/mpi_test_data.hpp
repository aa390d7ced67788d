// SPDX-License-Identifier: Apache-2.0
// What the MPI test programs share: the global matrix every rank's block is cut from
// (each element a function of its index), a rank's buffer with its block and random
// bytes around it, the check of a rank's block of the transpose, the tally of checks, and
// the run around them that reports the tally as run_mpi_test.sh expects.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "support/device_select.hpp"
#include "support/rank_device.hpp"

namespace ipt::test::mpi {

constexpr std::size_t kOffset = 3;  // elements before the matrix in its buffer
constexpr std::size_t kGuard = 64;  // bytes checked past the allocation

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Element (i, j) of the global rows x cols matrix.
inline void value(std::size_t i, std::size_t j, std::size_t cols, std::size_t e,
                  unsigned char* out) {
  const std::uint64_t words[2] = {mix(i * cols + j), mix(~(i * cols + j))};
  std::memcpy(out, words, e);
}

// A rank's buffer of `bytes`: random bytes, its input block (stored transposed when `in`)
// written at kOffset.
inline std::vector<unsigned char> filled_buffer(int rank, std::size_t N, std::size_t e, bool in,
                                                const ipt_mpi_local& local, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  for (std::size_t k = 0; k < bytes; ++k)
    host[k] = static_cast<unsigned char>(mix(k * 31 + static_cast<std::size_t>(rank)));
  unsigned char* const matrix = host.data() + kOffset * e;
  for (std::size_t i = 0; i < local.local_rows; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t at = in ? j * local.local_rows + i : i * N + j;
      value(local.local_row_start + i, j, N, e, matrix + at * e);
    }
  return host;
}

// Whether `buffer` holds, at kOffset, rows [local_col_start, local_col_start + local_cols)
// of the N x M transpose (stored transposed when `out`): element (j, i) is the M x N
// matrix's (i, local_col_start + j).
inline bool holds_transpose(const std::vector<unsigned char>& buffer, std::size_t M, std::size_t N,
                            std::size_t e, bool out, const ipt_mpi_local& local) {
  unsigned char want[16];
  const unsigned char* matrix = buffer.data() + kOffset * e;
  for (std::size_t j = 0; j < local.local_cols; ++j)
    for (std::size_t i = 0; i < M; ++i) {
      value(i, local.local_col_start + j, N, e, want);
      const std::size_t at = out ? i * local.local_cols + j : j * M + i;
      if (std::memcmp(matrix + at * e, want, e) != 0) return false;
    }
  return true;
}

struct Tally {
  int passed = 0, failed = 0;
  int rank = 0;  // named in the failures' lines
  void check(bool ok, const std::string& what) {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
    }
  }
};

// A test program's whole run: MPI started, `body(rank, ranks, session, tally)` on a
// session on the rank's device (support::rank_device), an exception out of it a failed
// check, then rank 0 prints "<name> (R ranks): N passed, N failed" over all ranks'
// checks, which run_mpi_test.sh reads. Returns the process's exit status: 1 where any
// rank failed a check.
template <typename Body>
int on_world(int& argc, char**& argv, const char* name, Body body) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Tally tally;
  tally.rank = rank;
  try {
    ipt::support::Session session(ipt::support::rank_device(MPI_COMM_WORLD).device);
    body(rank, ranks, session, tally);
  } catch (const std::exception& e) {
    tally.check(false, std::string("unexpected exception: ") + e.what());
  }
  int counts[2] = {tally.passed, tally.failed}, totals[2] = {0, 0};
  MPI_Reduce(counts, totals, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s (%d ranks): %d passed, %d failed\n", name, ranks, totals[0], totals[1]);
  int failed = tally.failed, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}

}  // namespace ipt::test::mpi
