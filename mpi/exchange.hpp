// The exchange of a distributed transposition: every active rank's chunk for rank q (c x b
// elements at q c b of its padded block) swapped with rank q's chunk for it, through
// pinned host staging, the device transfers overlapped with the MPI calls.
#pragma once

#include <CL/cl.h>
#include <mpi.h>

#include <cstddef>

#include "exchange_plan.hpp"
#include "staging.hpp"

namespace ipt::mpi {

struct ExchangeTarget {
  MPI_Comm comm;
  cl_command_queue queue;
  cl_mem buffer;
  std::size_t base = 0;  // bytes from the buffer's start to the padded block
  std::size_t rank = 0;
  std::size_t active = 0;  // S: ranks 0 .. S - 1 hold chunks
  std::size_t chunk = 0;   // bytes of one chunk
};

// The staging `plan` needs: allocated before the exchange, so that a failure is agreed on
// while every buffer can still be restored.
Staging make_staging(const ExchangeTarget& t, const ExchangePlan& plan);

// Collective over t.comm (every rank calls it, active or not, with the same plan). Returns
// whether this rank's transfers all succeeded; a rank whose transfer fails still makes
// every MPI call of the plan, so that no partner waits forever.
bool exchange(const ExchangeTarget& t, const ExchangePlan& plan, Staging& staging);

}  // namespace ipt::mpi
