// SPDX-License-Identifier: Apache-2.0
// A downstream MPI program on the installed libipt_mpi (C++ layer): each rank transposes
// its block of a double matrix distributed over MPI_COMM_WORLD and checks its block of
// the transpose.
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <cstdio>
#include <ipt/ipt_mpi.hpp>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::size_t rows = 300, cols = 200;
  int wrong = 0;
  try {
    const cl::Context context(CL_DEVICE_TYPE_ALL);
    const cl::CommandQueue queue(context);
    const ipt_mpi_local local = ipt::mpi::local_size(MPI_COMM_WORLD, rows, cols);
    std::vector<double> host(local.alloc_elements > 0 ? local.alloc_elements : 1);
    for (std::size_t i = 0; i < local.local_rows; ++i)
      for (std::size_t j = 0; j < cols; ++j)
        host[i * cols + j] = static_cast<double>((local.local_row_start + i) * cols + j);
    const cl::Buffer buffer(context, host.begin(), host.end(), false);
    // 8-byte words, so a device without doubles will do.
    ipt::mpi::transpose(MPI_COMM_WORLD, queue, buffer, rows, cols, sizeof(double), local);
    cl::copy(queue, buffer, host.begin(), host.end());
    for (std::size_t j = 0; j < local.local_cols; ++j)
      for (std::size_t i = 0; i < rows; ++i)
        wrong += host[j * rows + i] != static_cast<double>(i * cols + local.local_col_start + j);
  } catch (const std::exception& e) {  // ipt::mpi::error: every rank throws, none waits
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    wrong = 1;
  }
  int all = 0;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("C++: %zu x %zu over %d ranks transposed in place: %d elements wrong\n", rows, cols,
                ranks, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
