// SPDX-License-Identifier: Apache-2.0
// The library's own communicator beside a caller's, so that no message of a distributed
// call can match one of the caller's still in flight on theirs.
#pragma once

#include <mpi.h>

namespace ipt::mpi {

// Collective over `comm` on its first use: a duplicate of `comm`, made once and kept as
// its attribute (freed when `comm` is), so that later calls pay no MPI_Comm_dup.
// MPI_COMM_NULL where MPI fails (as MPI_Comm_dup did when each call made its own). Every
// rank must reach it together, as for any collective.
MPI_Comm own_comm(MPI_Comm comm) noexcept;

}  // namespace ipt::mpi
