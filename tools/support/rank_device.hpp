// SPDX-License-Identifier: Apache-2.0
// The device an MPI rank runs on, for the MPI tests and benchmark: where a node has
// several, the rank's place among the node's ranks picks one (local rank modulo the
// devices of the selected platform, IPT_DEVICE), so that each rank's block is on its own
// GPU, as the library is meant to run. Header-only: only targets that link MPI use it.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::support {

struct RankDevice {
  DeviceChoice device;
  std::size_t index = 0;    // among the platform's devices
  std::size_t devices = 1;  // the platform's devices
  int local_rank = 0;       // the rank among its node's ranks
  int leader = 0;           // the rank (in `comm`) of its node's first rank
  std::size_t sharing = 1;  // the node's ranks on this device, this one included
};

inline RankDevice rank_device(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  RankDevice r;
  int local_ranks = 1;
  r.leader = rank;
  MPI_Comm_rank(node, &r.local_rank);
  MPI_Comm_size(node, &local_ranks);
  MPI_Bcast(&r.leader, 1, MPI_INT, 0, node);
  const auto devices = platform_devices();
  r.devices = devices.size();
  r.index = static_cast<std::size_t>(r.local_rank) % devices.size();
  r.device = devices[r.index];
  std::vector<int> indices(static_cast<std::size_t>(local_ranks));
  const int mine = static_cast<int>(r.index);
  MPI_Allgather(&mine, 1, MPI_INT, indices.data(), 1, MPI_INT, node);
  MPI_Comm_free(&node);
  r.sharing = static_cast<std::size_t>(std::count(indices.begin(), indices.end(), mine));
  return r;
}

}  // namespace ipt::support
