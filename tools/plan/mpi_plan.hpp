// SPDX-License-Identifier: Apache-2.0
// ipt-plan mpi: the distributed transposition's plan for every rank, from libipt_mpi's
// planner alone (no MPI, no device needed).
#pragma once

#include <string>
#include <vector>

namespace ipt::tools {

// args: what follows "mpi" on the command line. Returns the process's exit status.
int print_mpi_plan(const std::vector<std::string>& args);

}  // namespace ipt::tools
