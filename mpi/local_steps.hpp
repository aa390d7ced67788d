// SPDX-License-Identifier: Apache-2.0
// The steps each active rank runs on its own device before and after the exchange, all
// through libipt's public calls on the rank's padded block (b rows, S chunks of c x b):
//   before: the block's rows spread to pitch S c (ipt_imatcopy) and the b x S c block
//           transposed (ipt_transpose), so that the chunk for rank q is the c x b matrix at
//           q c b; with IPT_MPI_TRANSPOSED_IN the stored N x local_rows block only spreads
//           to pitch b;
//   after:  the S received c x b chunks transposed (ipt_transpose_batched): the S b x c
//           matrix of the rank's columns, whose padding rows come last, which is the
//           transposed output once its pitch closes to local_cols; else transposed once
//           more and its rows closed to pitch M.
#pragma once

#include <CL/cl.h>

#include <cstddef>

#include "distribution.hpp"
#include "ipt/ipt.h"

namespace ipt::mpi {

struct LocalBlock {
  cl_command_queue queue;
  cl_mem buffer;
  std::size_t offset = 0;  // elements
  std::size_t elem_size = 0;
  Distribution d;
  Share share;
  unsigned flags = 0;
};

// How far `before` got, so that it can be undone.
struct BeforeDone {
  bool spread = false, transposed = false;
};

// Enqueues the steps before the exchange and waits for them; returns the first failure, or
// IPT_BUFFER_UNDEFINED when a command enqueued failed as it ran. A rank without rows skips
// them: its chunks are padding rows, which no rank keeps.
ipt_status before_exchange(const LocalBlock& block, BeforeDone* done);

// Restores the block as it was given, after `before_exchange` got as far as *done, and
// waits; IPT_BUFFER_UNDEFINED when that fails.
ipt_status undo_before(const LocalBlock& block, const BeforeDone& done);

// Enqueues the steps after the exchange and waits for them; returns the first failure. A
// rank without rows of the transpose skips them.
ipt_status after_exchange(const LocalBlock& block);

// The whole call when one rank holds everything (S = 1): no exchange and no padding, the
// block itself transposed once or not at all (IPT_MPI_TRANSPOSED_IN without
// IPT_MPI_TRANSPOSED_OUT, or the reverse, asks for the layout it already has). Waits;
// returns ipt_transpose's status (which leaves the block as it was on failure).
ipt_status only_rank(const LocalBlock& block);

}  // namespace ipt::mpi
