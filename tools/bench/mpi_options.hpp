// SPDX-License-Identifier: Apache-2.0
// ipt-bench mpi's command line: its options, read by the tools' shared parser.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ipt/ipt_mpi.h"

namespace ipt::bench {

using Shape = std::pair<std::size_t, std::size_t>;

extern const char* const kMpiUsage;

struct Options {
  std::vector<Shape> shapes;
  std::vector<double> fills;
  bool weak = false;
  // Buffers past CL_DEVICE_MAX_MEM_ALLOC_SIZE: some drivers (NVIDIA's) allocate them.
  bool beyond_max_alloc = false;
  std::string type = "f32";
  std::size_t elem_size = 4;
  int reps = 5;
  std::vector<ipt_mpi_scheme> schemes{IPT_MPI_SCHEME_AUTO};
  std::size_t staging = 0, block_rows = 0, block_cols = 0;
  unsigned flags = 0;
  std::string csv, json;
};

// The options of argv[1..argc). Throws support::CliError for a bad command line; sets
// `help` (and returns the defaults) for --help or -h.
Options parse_mpi_options(int argc, char** argv, bool& help);

// How the run's scheme and flags are written in its tables, CSV and JSON.
const char* scheme_name(ipt_mpi_scheme scheme);
std::string flags_name(unsigned flags);

}  // namespace ipt::bench
