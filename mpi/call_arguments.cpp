// SPDX-License-Identifier: Apache-2.0
#include "call_arguments.hpp"

#include <atomic>

namespace ipt::mpi {
namespace {

std::atomic<std::size_t> default_staging{std::size_t{16} << 20};

// The planner (no MPI) spells the header's flag bits and schemes itself.
static_assert((IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT) == kKnownFlags);
static_assert(IPT_MPI_SCHEME_AUTO == static_cast<int>(Scheme::automatic) &&
              IPT_MPI_SCHEME_PAIRWISE == static_cast<int>(Scheme::pairwise) &&
              IPT_MPI_SCHEME_ALLTOALL == static_cast<int>(Scheme::alltoall));

}  // namespace

std::size_t set_default_staging(std::size_t bytes) noexcept {
  return default_staging.exchange(clamp_staging(bytes));
}

ipt_mpi_options resolved(const ipt_mpi_options* options) {
  return options != nullptr ? *options : ipt_mpi_options{0, 0, IPT_MPI_SCHEME_AUTO, 0};
}

std::size_t staging_of(const ipt_mpi_options& o) {
  return clamp_staging(o.staging_bytes != 0 ? o.staging_bytes : default_staging.load());
}

PlanRequest plan_request(std::size_t ranks, std::size_t rows, std::size_t cols,
                         std::size_t elem_size, unsigned flags, const ipt_mpi_options& o,
                         std::size_t staging) {
  return {ranks,  rows,         cols,         elem_size,
          flags,  o.block_rows, o.block_cols, static_cast<int>(o.scheme),
          staging};
}

ipt_status status_of(Refusal refusal) {
  switch (refusal) {
    case Refusal::none:
      return IPT_SUCCESS;
    case Refusal::element_size:
      return IPT_INVALID_ELEMENT_SIZE;
    case Refusal::overflow:
      return IPT_SIZE_OVERFLOW;
    case Refusal::value:
      break;
  }
  return IPT_INVALID_VALUE;
}

bool comm_shape(MPI_Comm comm, std::size_t* ranks, std::size_t* rank) {
  int size = 0, me = 0, inter = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0 ||
      MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
      size <= 0)
    return false;
  *ranks = static_cast<std::size_t>(size);
  *rank = static_cast<std::size_t>(me);
  return true;
}

bool supports_fp64(cl_command_queue queue) {
  cl_device_id device = nullptr;
  cl_device_fp_config config = 0;
  return clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) ==
             CL_SUCCESS &&
         clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config, nullptr) ==
             CL_SUCCESS &&
         config != 0;
}

}  // namespace ipt::mpi
