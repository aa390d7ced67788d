// SPDX-License-Identifier: Apache-2.0
// What ipt-bench mpi reports, on rank 0: each rank's device, the table of results, and
// the same as CSV and JSON.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "mpi_options.hpp"

namespace ipt::bench {

// The all-to-all's host buffers (each direction): large enough that the bandwidth no
// longer grows, small enough for several ranks of one node; larger exchanges go in rounds.
constexpr std::size_t kAlltoallBuffer = std::size_t{256} << 20;

using ull = unsigned long long;

struct RankInfo {  // gathered on rank 0, as bytes
  char host[MPI_MAX_PROCESSOR_NAME];
  char device[256];
  char driver[64];
  int node_leader, local_rank;
  ull index, devices, sharing, global_mem, max_alloc;
  double copy_gbs;
};

struct Row {
  std::string scheme, planned, origin;
  std::size_t rows = 0, cols = 0;
  ipt_mpi_plan_info plan{};
  double time_s = 0, min_s = 0, max_s = 0, gbs = 0, rank_gbs = 0, exchange_gbs = 0;
  double alltoall_s = 0, alltoall_rank_gbs = 0, alltoall_gbs = 0;
  bool alltoall_pinned = false;
  std::size_t exchange_max = 0, alloc_bytes = 0, block_bytes = 0, padding_bytes = 0;
  double padding_fraction = 0, staging_fraction = 0;
  bool ok = false;
};

class MpiReport {
 public:
  MpiReport(const Options& options, int ranks) : options_(options), ranks_(ranks) {}

  // Sums the devices' copy bandwidths, prints the header and each rank's device, and
  // opens the CSV file with its header line.
  void header(const std::vector<RankInfo>& all, const std::vector<std::string>& fill_notes,
              std::size_t copy_bytes);
  // A row of the table, of the CSV and of the JSON results.
  void record(const Row& r);
  // Writes the JSON file, when asked for.
  void finish(const std::vector<RankInfo>& all) const;

 private:
  const Options& options_;
  int ranks_;
  std::size_t e_ = options_.elem_size;
  std::size_t copy_bytes_ = 0, devices_ = 1, max_sharing_ = 1;
  double copy_sum_ = 0;
  std::ofstream csv_;
  std::vector<std::string> json_rows_;
};

}  // namespace ipt::bench
