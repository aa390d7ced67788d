// SPDX-License-Identifier: Apache-2.0
// One distributed transposition, as every rank runs it: the checks agreed on by every
// rank, then the local steps (local_steps.hpp), the exchange (exchange.hpp) and the local
// steps after, planned by distribution.hpp and exchange_plan.hpp.
#pragma once

#include <cstddef>

#include "ipt/ipt_mpi.h"

namespace ipt::mpi {

struct Call {
  MPI_Comm comm;
  cl_command_queue queue;
  cl_mem buffer;
  std::size_t offset, rows, cols, elem_size, local_rows, local_row_start;
  unsigned flags;
  ipt_mpi_options options;
  bool fp64;  // the f64 form: the device must support doubles
};

// Collective over c.comm. The status every rank returns (ipt_mpi.h's contract); throws
// nothing once the ranks have agreed on the arguments, and what it may throw before
// (std::bad_alloc) it turns into an agreed status itself.
ipt_status run(const Call& c);

}  // namespace ipt::mpi
