// The distributed transposition (ipt_mpi.h) under mpirun -np 1..4: every rank checks its
// block of the transpose against the global matrix, computed from each element's index,
// for prime, skinny and uneven shapes, every element size and the TRANSPOSED flags, with
// the buffer's bytes before the matrix and past its allocation unchanged; bad input on
// one rank returns the same status on every rank with every buffer unchanged. Prints
// "mpi: N passed, N failed" (all ranks' checks) on rank 0.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "support/device_select.hpp"

namespace {

constexpr std::size_t kOffset = 3;  // elements before the matrix in its buffer
constexpr std::size_t kGuard = 64;  // bytes checked past the allocation

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Element (i, j) of the global rows x cols matrix.
void value(std::size_t i, std::size_t j, std::size_t cols, std::size_t e, unsigned char* out) {
  const std::uint64_t words[2] = {mix(i * cols + j), mix(~(i * cols + j))};
  std::memcpy(out, words, e);
}

struct Tally {
  int passed = 0, failed = 0;
  void check(bool ok, int rank, const std::string& what) {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
    }
  }
};

struct Run {
  MPI_Comm comm;
  int rank, ranks;
  ipt::support::Session& session;
  Tally& tally;

  // The rank's buffer: random bytes, its input block written at kOffset.
  std::vector<unsigned char> fill(std::size_t M, std::size_t N, std::size_t e, bool in,
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
    (void)M;
    return host;
  }

  void transpose(std::size_t M, std::size_t N, std::size_t e, unsigned flags) {
    const std::string what = std::to_string(M) + " x " + std::to_string(N) + ", " +
                             std::to_string(e) + "-byte elements, flags " + std::to_string(flags) +
                             ", " + std::to_string(ranks) + " ranks";
    ipt_mpi_local local{};
    tally.check(ipt_mpi_local_size(comm, M, N, &local) == IPT_SUCCESS, rank, what + ": local size");
    const bool in = (flags & IPT_MPI_TRANSPOSED_IN) != 0;
    const bool out = (flags & IPT_MPI_TRANSPOSED_OUT) != 0;
    const std::size_t bytes = (kOffset + local.alloc_elements) * e + kGuard;
    const std::vector<unsigned char> before = fill(M, N, e, in, local, bytes);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes, const_cast<unsigned char*>(before.data()), &code);
    const ipt_status status = ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, e,
                                                local.local_rows, local.local_row_start, flags);
    tally.check(status == IPT_SUCCESS, rank,
                what + ": status " + std::to_string(status) + " " + ipt_mpi_last_error_message());
    std::vector<unsigned char> after(bytes);
    clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, after.data(), 0, nullptr,
                        nullptr);
    clReleaseMemObject(buffer);
    tally.check(std::memcmp(after.data(), before.data(), kOffset * e) == 0, rank,
                what + ": a byte before the matrix changed");
    tally.check(
        std::memcmp(after.data() + bytes - kGuard, before.data() + bytes - kGuard, kGuard) == 0,
        rank, what + ": a byte past the allocation changed");
    // Rows [col_start, col_start + local_cols) of the cols x rows transpose: element (j, i)
    // is the matrix's (i, col_start + j).
    bool right = true;
    unsigned char want[16];
    const unsigned char* matrix = after.data() + kOffset * e;
    for (std::size_t j = 0; j < local.local_cols && right; ++j)
      for (std::size_t i = 0; i < M; ++i) {
        value(i, local.local_col_start + j, N, e, want);
        const std::size_t at = out ? i * local.local_cols + j : j * M + i;
        if (std::memcmp(matrix + at * e, want, e) != 0) {
          right = false;
          break;
        }
      }
    tally.check(right, rank, what + ": the transpose");
  }

  void bad_input() {
    const std::size_t M = 37, N = 23, e = 4;
    ipt_mpi_local local{};
    ipt_mpi_local_size(comm, M, N, &local);
    const std::size_t bytes = (kOffset + local.alloc_elements) * e + kGuard;
    const std::vector<unsigned char> before = fill(M, N, e, false, local, bytes);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes, const_cast<unsigned char*>(before.data()), &code);
    const auto unchanged = [&] {
      std::vector<unsigned char> now(bytes);
      clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, now.data(), 0, nullptr,
                          nullptr);
      return now == before;
    };
    // Rank 0 alone names other sizes; rank 0 alone claims a block that is not its share;
    // an element size and flags no rank may pass; a buffer too small.
    const std::size_t rows0 = rank == 0 ? M + 1 : M;
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, rows0, N, e,
                                  local.local_rows, local.local_row_start, 0) == IPT_INVALID_VALUE,
                rank, "sizes that differ between ranks");
    const std::size_t block0 = rank == 0 ? local.local_rows + 1 : local.local_rows;
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, e, block0,
                                  local.local_row_start, 0) == IPT_INVALID_VALUE,
                rank, "a block that is not the rank's share");
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, 3, local.local_rows,
                                  local.local_row_start, 0) == IPT_INVALID_ELEMENT_SIZE,
                rank, "an element size of 3");
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, e, local.local_rows,
                                  local.local_row_start, 8) == IPT_INVALID_VALUE,
                rank, "unknown flags");
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, bytes, M, N, e, local.local_rows,
                                  local.local_row_start, 0) == IPT_BUFFER_TOO_SMALL,
                rank, "an offset past the buffer");
    tally.check(unchanged(), rank, "bad input left the buffer as it was");
    clReleaseMemObject(buffer);
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Tally tally;
  {
    ipt::support::Session session;
    Run run{MPI_COMM_WORLD, rank, ranks, session, tally};
    // Primes, skinny both ways round, fewer rows than ranks, uneven blocks, a square.
    const std::size_t shapes[][2] = {{97, 89}, {3, 211}, {211, 3}, {2, 5},
                                     {64, 48}, {45, 45}, {1, 7}};
    for (const auto& shape : shapes)
      for (const std::size_t e : {1, 2, 4, 8, 16})
        for (unsigned flags = 0; flags < 4; ++flags) {
          if (e != 4 && flags != 0 && shape[0] != 97) continue;  // flags: every size on one
          run.transpose(shape[0], shape[1], e, flags);
        }
    // A small staging budget: each chunk in many pieces.
    const std::size_t previous = ipt_mpi_set_staging_bytes(4096);
    run.transpose(300, 257, 8, 0);
    ipt_mpi_set_staging_bytes(previous);
    run.bad_input();
  }
  int counts[2] = {tally.passed, tally.failed}, totals[2] = {0, 0};
  MPI_Reduce(counts, totals, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("mpi (%d ranks): %d passed, %d failed\n", ranks, totals[0], totals[1]);
  int failed = tally.failed, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}
