// SPDX-License-Identifier: Apache-2.0
#include "local_steps.hpp"

namespace ipt::mpi {
namespace {

constexpr unsigned kTransposedIn = 1u, kTransposedOut = 2u;  // as IPT_MPI_TRANSPOSED_IN/OUT

// The calls of a local step on the rank's block, each waiting for the one before: on an
// out-of-order queue, calls that are not chained by events may run at the same time.
class Calls {
 public:
  explicit Calls(const LocalBlock& k) : k_(k) {}
  ~Calls() {
    if (last_ != nullptr) clReleaseEvent(last_);
  }
  Calls(const Calls&) = delete;
  Calls& operator=(const Calls&) = delete;

  // rows x cols at pitch lda moved to pitch ldb, in place.
  ipt_status repitch(std::size_t rows, std::size_t cols, std::size_t lda, std::size_t ldb) {
    if (rows == 0 || cols == 0 || lda == ldb) return IPT_SUCCESS;
    return next([&](cl_uint waits, const cl_event* wait, cl_event* event) {
      return ipt_imatcopy(k_.queue, 'R', 'N', rows, cols, nullptr, k_.buffer, k_.offset, lda, ldb,
                          waits, wait, event, k_.elem_size, IPT_SCALAR_NONE);
    });
  }

  ipt_status transpose(std::size_t rows, std::size_t cols) {
    return next([&](cl_uint waits, const cl_event* wait, cl_event* event) {
      return ipt_transpose(k_.queue, k_.buffer, k_.offset, rows, cols, waits, wait, event,
                           k_.elem_size);
    });
  }

  ipt_status transpose_batched(std::size_t batch, std::size_t rows, std::size_t cols) {
    return next([&](cl_uint waits, const cl_event* wait, cl_event* event) {
      return ipt_transpose_batched(k_.queue, k_.buffer, k_.offset, batch, rows, cols, waits, wait,
                                   event, k_.elem_size);
    });
  }

  // Waits for the queue. A command that failed as it ran leaves the block undefined.
  ipt_status finished(ipt_status status) const {
    const cl_int done = clFinish(k_.queue);
    if (status != IPT_SUCCESS) return status;
    return done == CL_SUCCESS ? IPT_SUCCESS : IPT_BUFFER_UNDEFINED;
  }

 private:
  template <class Call>
  ipt_status next(const Call& call) {
    cl_event event = nullptr;
    const ipt_status status =
        call(last_ != nullptr ? 1u : 0u, last_ != nullptr ? &last_ : nullptr, &event);
    if (event != nullptr) {
      if (last_ != nullptr) clReleaseEvent(last_);
      last_ = event;
    }
    return status;
  }

  const LocalBlock& k_;
  cl_event last_ = nullptr;
};

}  // namespace

ipt_status before_exchange(const LocalBlock& k, BeforeDone* done) {
  const std::size_t N = k.d.cols, b = k.d.block_rows, lr = k.share.rows;
  const std::size_t Np = k.d.active * k.d.block_cols;
  if (lr == 0) return IPT_SUCCESS;
  Calls calls(k);
  ipt_status status = IPT_SUCCESS;
  if ((k.flags & kTransposedIn) != 0) {
    status = calls.repitch(N, lr, lr, b);
    done->spread = status == IPT_SUCCESS;
  } else {
    status = calls.repitch(lr, N, N, Np);
    done->spread = status == IPT_SUCCESS;
    if (done->spread) {
      status = calls.transpose(b, Np);
      done->transposed = status == IPT_SUCCESS;
    }
  }
  return calls.finished(status);
}

ipt_status undo_before(const LocalBlock& k, const BeforeDone& done) {
  const std::size_t N = k.d.cols, b = k.d.block_rows, lr = k.share.rows;
  const std::size_t Np = k.d.active * k.d.block_cols;
  Calls calls(k);
  ipt_status status = IPT_SUCCESS;
  if (done.transposed) status = calls.transpose(Np, b);
  if (done.spread && status == IPT_SUCCESS)
    status =
        (k.flags & kTransposedIn) != 0 ? calls.repitch(N, lr, b, lr) : calls.repitch(lr, N, Np, N);
  return calls.finished(status) == IPT_SUCCESS ? IPT_SUCCESS : IPT_BUFFER_UNDEFINED;
}

ipt_status after_exchange(const LocalBlock& k) {
  const std::size_t M = k.d.rows, S = k.d.active, b = k.d.block_rows, c = k.d.block_cols;
  const std::size_t lc = k.share.cols;
  if (lc == 0) return IPT_SUCCESS;
  Calls calls(k);
  ipt_status status = calls.transpose_batched(S, c, b);
  if (status == IPT_SUCCESS && (k.flags & kTransposedOut) != 0) {
    status = calls.repitch(M, lc, c, lc);
  } else if (status == IPT_SUCCESS) {
    status = calls.transpose(S * b, c);
    if (status == IPT_SUCCESS) status = calls.repitch(lc, M, S * b, M);
  }
  return calls.finished(status);
}

ipt_status only_rank(const LocalBlock& k) {
  const bool in = (k.flags & kTransposedIn) != 0, out = (k.flags & kTransposedOut) != 0;
  Calls calls(k);
  if (in != out) return calls.finished(IPT_SUCCESS);  // already in the layout asked for
  // Row-major M x N in, N x M out; or, both transposed, N x M in and M x N out.
  const std::size_t M = k.d.rows, N = k.d.cols;
  return calls.finished(in ? calls.transpose(N, M) : calls.transpose(M, N));
}

}  // namespace ipt::mpi
