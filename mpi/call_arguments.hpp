// SPDX-License-Identifier: Apache-2.0
// The arguments of libipt_mpi's calls: options resolved, the staging budget, the checks
// that need MPI or the device (communicator, double precision) and the status of a refusal
// of plan_check.hpp. Shared by the entry points (ipt_mpi.cpp) and the collective call
// (distributed_call.cpp).
#pragma once

#include <cstddef>

#include "ipt/ipt_mpi.h"
#include "plan_check.hpp"

namespace ipt::mpi {

// The process's default staging budget; returns the previous one (clamped as above).
std::size_t set_default_staging(std::size_t bytes) noexcept;

// The options, every field 0 for NULL.
ipt_mpi_options resolved(const ipt_mpi_options* options);

// The staging budget of these options (the process default for 0), clamped.
std::size_t staging_of(const ipt_mpi_options& o);

// What check_plan asks of these arguments on this many ranks, the staging budget given.
PlanRequest plan_request(std::size_t ranks, std::size_t rows, std::size_t cols,
                         std::size_t elem_size, unsigned flags, const ipt_mpi_options& o,
                         std::size_t staging);

// The status a refusal returns.
ipt_status status_of(Refusal refusal);

// An intracommunicator's size and this rank's place in it (an intercommunicator's
// reductions would combine the other group's values: refused).
bool comm_shape(MPI_Comm comm, std::size_t* ranks, std::size_t* rank);

bool supports_fp64(cl_command_queue queue);

}  // namespace ipt::mpi
