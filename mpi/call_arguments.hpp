// The arguments of libipt_mpi's calls: options resolved, the staging budget, and the
// checks that need no other rank (element size, scheme, communicator, device). Shared by
// the entry points (ipt_mpi.cpp) and the collective call (distributed_call.cpp).
#pragma once

#include <cstddef>

#include "ipt/ipt_mpi.h"

namespace ipt::mpi {

constexpr std::size_t kMinStaging = 4096;
// MPI counts are ints: no message, and no staging slot, passes 1 GiB.
constexpr std::size_t kMaxStaging = std::size_t{1} << 30;

// The process's default staging budget; returns the previous one (clamped as above).
std::size_t set_default_staging(std::size_t bytes) noexcept;

bool valid_element_size(std::size_t e);
bool valid_scheme(ipt_mpi_scheme s);

// The options, every field 0 for NULL.
ipt_mpi_options resolved(const ipt_mpi_options* options);

// The staging budget of these options (the process default for 0), clamped.
std::size_t staging_of(const ipt_mpi_options& o);

// An intracommunicator's size and this rank's place in it (an intercommunicator's
// reductions would combine the other group's values: refused).
bool comm_shape(MPI_Comm comm, std::size_t* ranks, std::size_t* rank);

bool supports_fp64(cl_command_queue queue);

}  // namespace ipt::mpi
