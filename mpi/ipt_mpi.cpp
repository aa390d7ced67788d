// libipt_mpi: the distributed transposition of ipt_mpi.h, built on libipt's public calls
// and MPI. Every rank pads its block to the full block size (b = ceil(M / P) rows,
// c = ceil(N / P) columns), so that every step is regular:
//   1. the block's rows spread to pitch P c (ipt_imatcopy), the b x P c block transposed
//      (ipt_transpose): the c x b chunk for rank p is then contiguous, at p c b;
//   2. chunk p swapped with rank p's chunk for this rank, piece by piece through the
//      staging budget (MPI_Sendrecv_replace), in rounds that pair r with (k - r) mod P;
//   3. the P received c x b chunks transposed (ipt_transpose_batched): the P b x c matrix
//      of this rank's columns, whose padding rows come last (FFTW's blocks), which is the
//      transposed output once its pitch closes to local_cols; else transposed once more
//      (ipt_transpose) and its rows closed to pitch M (ipt_imatcopy).
#include "ipt/ipt_mpi.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <vector>

namespace {

std::atomic<std::size_t> staging_bytes{std::size_t{16} << 20};

struct Share {
  std::size_t b = 0, c = 0;  // full block sizes
  std::size_t rows = 0, row_start = 0, cols = 0, col_start = 0;
  std::size_t alloc = 0;
  bool overflow = false;
};

Share share_of(int ranks, int rank, std::size_t M, std::size_t N) {
  Share s;
  const std::size_t P = static_cast<std::size_t>(ranks), r = static_cast<std::size_t>(rank);
  if (M == 0 || N == 0) return s;
  s.b = (M + P - 1) / P;
  s.c = (N + P - 1) / P;
  s.row_start = std::min(r * s.b, M);
  s.rows = std::min(s.b, M - s.row_start);
  s.col_start = std::min(r * s.c, N);
  s.cols = std::min(s.c, N - s.col_start);
  std::size_t pb = 0;
  s.overflow = __builtin_mul_overflow(P, s.b, &pb) || __builtin_mul_overflow(pb, s.c, &s.alloc);
  return s;
}

bool valid_element_size(std::size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

// The status every rank returns: the first failure's (the most negative), or success.
ipt_status agreed(MPI_Comm comm, ipt_status mine) {
  int status = static_cast<int>(mine), least = 0;
  if (MPI_Allreduce(&status, &least, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return IPT_INVALID_VALUE;
  return static_cast<ipt_status>(least);
}

// Whether every rank passed the same values.
bool same_everywhere(MPI_Comm comm, const std::vector<unsigned long long>& values) {
  std::vector<unsigned long long> least(values.size()), most(values.size());
  const int n = static_cast<int>(values.size());
  if (MPI_Allreduce(values.data(), least.data(), n, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm) !=
          MPI_SUCCESS ||
      MPI_Allreduce(values.data(), most.data(), n, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm) !=
          MPI_SUCCESS)
    return false;
  return least == most;
}

ipt_status pitch(cl_command_queue queue, cl_mem buffer, std::size_t offset, std::size_t rows,
                 std::size_t cols, std::size_t lda, std::size_t ldb, std::size_t e) {
  if (rows == 0 || cols == 0 || lda == ldb) return IPT_SUCCESS;
  return ipt_imatcopy(queue, 'R', 'N', rows, cols, nullptr, buffer, offset, lda, ldb, 0, nullptr,
                      nullptr, e, IPT_SCALAR_NONE);
}

ipt_status finished(cl_command_queue queue, ipt_status status) {
  const cl_int done = clFinish(queue);
  if (status != IPT_SUCCESS) return status;
  return done == CL_SUCCESS ? IPT_SUCCESS : static_cast<ipt_status>(done);
}

}  // namespace

extern "C" {

size_t ipt_mpi_set_staging_bytes(size_t bytes) {
  return staging_bytes.exchange(std::max<std::size_t>(bytes, 4096));
}

ipt_status ipt_mpi_local_size(MPI_Comm comm, size_t rows, size_t cols, ipt_mpi_local* local) {
  if (local == nullptr) return IPT_INVALID_VALUE;
  int ranks = 0, rank = 0;
  if (MPI_Comm_size(comm, &ranks) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return IPT_INVALID_VALUE;
  const Share s = share_of(ranks, rank, rows, cols);
  if (s.overflow) return IPT_SIZE_OVERFLOW;
  *local = {s.rows, s.row_start, s.cols, s.col_start, s.alloc};
  return IPT_SUCCESS;
}

ipt_status ipt_mpi_transpose(MPI_Comm comm, cl_command_queue queue, cl_mem buffer, size_t offset,
                             size_t rows, size_t cols, size_t elem_size, size_t local_rows,
                             size_t local_row_start, unsigned flags) {
  int ranks = 0, rank = 0;
  if (MPI_Comm_size(comm, &ranks) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return IPT_INVALID_VALUE;
  const std::size_t e = elem_size, M = rows, N = cols, P = static_cast<std::size_t>(ranks);
  const Share s = share_of(ranks, rank, M, N);
  const std::size_t staging = std::min<std::size_t>(staging_bytes.load(), std::size_t{1} << 30);

  // Every check first, agreed on by every rank before any command.
  ipt_status mine = IPT_SUCCESS;
  std::size_t buffer_bytes = 0, needed = 0;
  if (!valid_element_size(e))
    mine = IPT_INVALID_ELEMENT_SIZE;
  else if ((flags & ~(IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT)) != 0)
    mine = IPT_INVALID_VALUE;
  else if (s.overflow || __builtin_add_overflow(offset, s.alloc, &needed) ||
           __builtin_mul_overflow(needed, e, &needed))
    mine = IPT_SIZE_OVERFLOW;
  else if (local_rows != s.rows || (s.rows > 0 && local_row_start != s.row_start))
    mine = IPT_INVALID_VALUE;
  else if (queue == nullptr ||
           clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof(cl_uint), nullptr,
                                 nullptr) != CL_SUCCESS)
    mine = IPT_INVALID_COMMAND_QUEUE;
  else if (buffer == nullptr || clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof buffer_bytes,
                                                   &buffer_bytes, nullptr) != CL_SUCCESS)
    mine = IPT_INVALID_MEM_OBJECT;
  else if (buffer_bytes < needed)
    mine = IPT_BUFFER_TOO_SMALL;
  if (!same_everywhere(comm, {M, N, e, flags}) && mine == IPT_SUCCESS) mine = IPT_INVALID_VALUE;
  if (const ipt_status all = agreed(comm, mine); all != IPT_SUCCESS) return all;
  if (M == 0 || N == 0) return IPT_SUCCESS;
  // The exchange's pieces must be the same on both sides of each pair.
  unsigned long long piece = staging, least = 0;
  MPI_Allreduce(&piece, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  piece = least;

  const std::size_t b = s.b, c = s.c, Mp = P * b, Np = P * c, lr = s.rows, lc = s.cols;
  const bool in = (flags & IPT_MPI_TRANSPOSED_IN) != 0, out = (flags & IPT_MPI_TRANSPOSED_OUT) != 0;

  // 1. The padded block, transposed: Np x b.
  bool padded = false, transposed = false;
  ipt_status step = IPT_SUCCESS;
  if (in) {
    step = pitch(queue, buffer, offset, N, lr, lr, b, e);  // N x lr at pitch b
    padded = step == IPT_SUCCESS;
  } else {
    step = pitch(queue, buffer, offset, lr, N, N, Np, e);
    padded = step == IPT_SUCCESS;
    if (padded) {
      step = ipt_transpose(queue, buffer, offset, b, Np, 0, nullptr, nullptr, e);
      transposed = step == IPT_SUCCESS;
    }
  }
  step = finished(queue, step);
  if (const ipt_status all = agreed(comm, step); all != IPT_SUCCESS) {
    // Undone where it was done: every buffer as it was.
    if (transposed) ipt_transpose(queue, buffer, offset, Np, b, 0, nullptr, nullptr, e);
    if (padded) {
      if (in)
        pitch(queue, buffer, offset, N, lr, b, lr, e);
      else
        pitch(queue, buffer, offset, lr, N, Np, N, e);
    }
    clFinish(queue);
    return all;
  }

  // 2. The exchange: chunk p (c x b at p c b) with rank p.
  std::vector<unsigned char> stage(static_cast<std::size_t>(
      std::min<unsigned long long>(piece, static_cast<unsigned long long>(c) * b * e)));
  ipt_status exchange = IPT_SUCCESS;
  const std::size_t chunk = c * b * e;
  for (std::size_t k = 0; k < P; ++k) {
    const std::size_t partner = (k + P - static_cast<std::size_t>(rank) % P) % P;
    if (partner == static_cast<std::size_t>(rank)) continue;
    const std::size_t base = (offset + partner * c * b) * e;
    for (std::size_t at = 0; at < chunk; at += stage.size()) {
      const std::size_t n = std::min(stage.size(), chunk - at);
      if (clEnqueueReadBuffer(queue, buffer, CL_TRUE, base + at, n, stage.data(), 0, nullptr,
                              nullptr) != CL_SUCCESS)
        exchange = IPT_BUFFER_UNDEFINED;  // the pair still exchanges: no rank waits forever
      if (MPI_Sendrecv_replace(stage.data(), static_cast<int>(n), MPI_BYTE,
                               static_cast<int>(partner), 0, static_cast<int>(partner), 0, comm,
                               MPI_STATUS_IGNORE) != MPI_SUCCESS)
        exchange = IPT_BUFFER_UNDEFINED;
      if (exchange == IPT_SUCCESS &&
          clEnqueueWriteBuffer(queue, buffer, CL_TRUE, base + at, n, stage.data(), 0, nullptr,
                               nullptr) != CL_SUCCESS)
        exchange = IPT_BUFFER_UNDEFINED;
    }
  }

  // 3. Mp x c: this rank's columns of the padded matrix, its padding rows last.
  if (exchange == IPT_SUCCESS) {
    ipt_status last = ipt_transpose_batched(queue, buffer, offset, P, c, b, 0, nullptr, nullptr, e);
    if (last == IPT_SUCCESS && out) {
      last = pitch(queue, buffer, offset, M, lc, c, lc, e);
    } else if (last == IPT_SUCCESS) {
      last = ipt_transpose(queue, buffer, offset, Mp, c, 0, nullptr, nullptr, e);
      if (last == IPT_SUCCESS) last = pitch(queue, buffer, offset, lc, M, Mp, M, e);
    }
    if (finished(queue, last) != IPT_SUCCESS) exchange = IPT_BUFFER_UNDEFINED;
  }
  return agreed(comm, exchange);
}

}  // extern "C"
