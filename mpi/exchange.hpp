// SPDX-License-Identifier: Apache-2.0
// The exchange of a distributed transposition: every active rank's chunk for rank q (c x b
// elements at q c b of its padded block) swapped with rank q's chunk for it, through
// pinned host staging, the device transfers overlapped with the MPI calls.
#pragma once

#include <CL/cl.h>
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "exchange_plan.hpp"
#include "staging.hpp"

namespace ipt::mpi {

struct ExchangeTarget {
  MPI_Comm comm;  // a communicator of the library's own (a duplicate of the caller's)
  cl_command_queue queue;
  cl_mem buffer;
  std::size_t base = 0;  // bytes from the buffer's start to the padded block
  std::size_t rank = 0;
  std::size_t ranks = 0;   // P, the communicator's size
  std::size_t active = 0;  // S: ranks 0 .. S - 1 hold chunks
  std::size_t chunk = 0;   // bytes of one chunk
};

// Everything the exchange allocates, allocated before it starts: a rank that ran out of
// memory part-way through the MPI calls would leave its partners waiting.
struct ExchangeResources {
  ExchangeResources(const ExchangeTarget& t, const ExchangePlan& plan);  // may throw
  bool ok() const { return staging.ok(); }

  Staging staging;
  std::vector<std::vector<cl_event>> reads, writes;  // per slot, capacity for its transfers
  std::vector<int> counts, displs;                   // MPI_Alltoallv's, per rank
};

// Collective over t.comm (every rank calls it, active or not, with the same plan). Returns
// whether this rank's transfers all succeeded; a rank whose transfer fails still makes
// every MPI call of the plan, so that no partner waits forever. Allocates nothing, throws
// nothing; an active rank's queue is finished on return.
bool exchange(const ExchangeTarget& t, const ExchangePlan& plan, ExchangeResources& r) noexcept;

}  // namespace ipt::mpi
