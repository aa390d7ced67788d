// The device a test rank runs on: where a node has several, the rank's place among the
// node's ranks picks one (local rank modulo the devices), so that each rank's block is
// on its own GPU, as the library is meant to run.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "support/device_select.hpp"

namespace ipt::test {

inline support::DeviceChoice rank_device(MPI_Comm comm) {
  int rank = 0, local_rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  const auto devices = support::platform_devices();
  return devices.at(static_cast<std::size_t>(local_rank) % devices.size());
}

}  // namespace ipt::test
