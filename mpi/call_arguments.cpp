#include "call_arguments.hpp"

#include <algorithm>
#include <atomic>

namespace ipt::mpi {
namespace {

std::atomic<std::size_t> default_staging{std::size_t{16} << 20};

}  // namespace

std::size_t set_default_staging(std::size_t bytes) noexcept {
  return default_staging.exchange(std::clamp(bytes, kMinStaging, kMaxStaging));
}

bool valid_element_size(std::size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

ipt_mpi_options resolved(const ipt_mpi_options* options) {
  return options != nullptr ? *options : ipt_mpi_options{0, 0, IPT_MPI_SCHEME_AUTO, 0};
}

std::size_t staging_of(const ipt_mpi_options& o) {
  const std::size_t bytes = o.staging_bytes != 0 ? o.staging_bytes : default_staging.load();
  return std::clamp(bytes, kMinStaging, kMaxStaging);
}

bool valid_scheme(ipt_mpi_scheme s) {
  return s == IPT_MPI_SCHEME_AUTO || s == IPT_MPI_SCHEME_PAIRWISE || s == IPT_MPI_SCHEME_ALLTOALL;
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
