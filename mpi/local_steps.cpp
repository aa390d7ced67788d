// SPDX-License-Identifier: Apache-2.0
#include "local_steps.hpp"

namespace ipt::mpi {
namespace {

constexpr unsigned kTransposedIn = 1u, kTransposedOut = 2u;  // as IPT_MPI_TRANSPOSED_IN/OUT

// rows x cols at pitch lda moved to pitch ldb, in place.
ipt_status repitch(const LocalBlock& k, std::size_t rows, std::size_t cols, std::size_t lda,
                   std::size_t ldb) {
  if (rows == 0 || cols == 0 || lda == ldb) return IPT_SUCCESS;
  return ipt_imatcopy(k.queue, 'R', 'N', rows, cols, nullptr, k.buffer, k.offset, lda, ldb, 0,
                      nullptr, nullptr, k.elem_size, IPT_SCALAR_NONE);
}

ipt_status transpose(const LocalBlock& k, std::size_t rows, std::size_t cols) {
  return ipt_transpose(k.queue, k.buffer, k.offset, rows, cols, 0, nullptr, nullptr, k.elem_size);
}

// Waits for the queue. A command that failed as it ran leaves the block undefined.
ipt_status finished(const LocalBlock& k, ipt_status status) {
  const cl_int done = clFinish(k.queue);
  if (status != IPT_SUCCESS) return status;
  return done == CL_SUCCESS ? IPT_SUCCESS : IPT_BUFFER_UNDEFINED;
}

}  // namespace

ipt_status before_exchange(const LocalBlock& k, BeforeDone* done) {
  const std::size_t N = k.d.cols, b = k.d.block_rows, lr = k.share.rows;
  const std::size_t Np = k.d.active * k.d.block_cols;
  if (lr == 0) return IPT_SUCCESS;
  ipt_status status = IPT_SUCCESS;
  if ((k.flags & kTransposedIn) != 0) {
    status = repitch(k, N, lr, lr, b);
    done->spread = status == IPT_SUCCESS;
  } else {
    status = repitch(k, lr, N, N, Np);
    done->spread = status == IPT_SUCCESS;
    if (done->spread) {
      status = transpose(k, b, Np);
      done->transposed = status == IPT_SUCCESS;
    }
  }
  return finished(k, status);
}

ipt_status undo_before(const LocalBlock& k, const BeforeDone& done) {
  const std::size_t N = k.d.cols, b = k.d.block_rows, lr = k.share.rows;
  const std::size_t Np = k.d.active * k.d.block_cols;
  ipt_status status = IPT_SUCCESS;
  if (done.transposed) status = transpose(k, Np, b);
  if (done.spread && status == IPT_SUCCESS)
    status = (k.flags & kTransposedIn) != 0 ? repitch(k, N, lr, b, lr) : repitch(k, lr, N, Np, N);
  return finished(k, status) == IPT_SUCCESS ? IPT_SUCCESS : IPT_BUFFER_UNDEFINED;
}

ipt_status after_exchange(const LocalBlock& k) {
  const std::size_t M = k.d.rows, S = k.d.active, b = k.d.block_rows, c = k.d.block_cols;
  const std::size_t lc = k.share.cols;
  if (lc == 0) return IPT_SUCCESS;
  ipt_status status =
      ipt_transpose_batched(k.queue, k.buffer, k.offset, S, c, b, 0, nullptr, nullptr, k.elem_size);
  if (status == IPT_SUCCESS && (k.flags & kTransposedOut) != 0) {
    status = repitch(k, M, lc, c, lc);
  } else if (status == IPT_SUCCESS) {
    status = transpose(k, S * b, c);
    if (status == IPT_SUCCESS) status = repitch(k, lc, M, S * b, M);
  }
  return finished(k, status);
}

ipt_status only_rank(const LocalBlock& k) {
  const bool in = (k.flags & kTransposedIn) != 0, out = (k.flags & kTransposedOut) != 0;
  if (in != out) return finished(k, IPT_SUCCESS);  // already in the layout asked for
  // Row-major M x N in, N x M out; or, both transposed, N x M in and M x N out.
  const std::size_t M = k.d.rows, N = k.d.cols;
  return finished(k, in ? transpose(k, N, M) : transpose(k, M, N));
}

}  // namespace ipt::mpi
