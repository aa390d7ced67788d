// SPDX-License-Identifier: Apache-2.0
// libipt_mpi's C API (include/ipt/ipt_mpi.h): each entry point resolves its arguments and
// runs the distributed call (distributed_call.hpp) or the planner (mpi/plan), guarded so
// that nothing crosses the C ABI.
#include "ipt/ipt_mpi.h"

#include <cstdio>
#include <string>

#include "agreement.hpp"
#include "call_arguments.hpp"
#include "distributed_call.hpp"
#include "distribution.hpp"
#include "exchange_plan.hpp"
#include "plan_check.hpp"

namespace {

using namespace ipt::mpi;

// Runs an entry point's body; what it throws (std::bad_alloc) becomes a status, since
// nothing may cross the C ABI. Only code that runs before a call's first collective, or
// that makes none, may throw (run() sees to it).
template <typename Body>
ipt_status guarded(Body body) noexcept {
  try {
    return body();
  } catch (...) {
    set_last_error("out of host memory");
    return IPT_OUT_OF_HOST_MEMORY;
  }
}

}  // namespace

extern "C" {

size_t ipt_mpi_set_staging_bytes(size_t bytes) { return set_default_staging(bytes); }

ipt_status ipt_mpi_local_size_with_options(MPI_Comm comm, size_t rows, size_t cols,
                                           const ipt_mpi_options* options, ipt_mpi_local* local) {
  return guarded([&] {
    std::size_t ranks = 0, rank = 0;
    const ipt_mpi_options o = resolved(options);
    Distribution d;
    std::string why;
    bool overflow = false;
    if (local == nullptr)
      why = "local is NULL";
    else if (!comm_shape(comm, &ranks, &rank))
      why = "the communicator is not a valid intracommunicator";
    else
      why = distribute(ranks, rows, cols, o.block_rows, o.block_cols, &d, &overflow);
    if (!why.empty()) {
      set_last_error(why.c_str());
      return overflow ? IPT_SIZE_OVERFLOW : IPT_INVALID_VALUE;
    }
    const Share s = share_of(d, rank);
    *local = {s.rows, s.row_start, s.cols, s.col_start, s.alloc};
    set_last_error("");
    return IPT_SUCCESS;
  });
}

ipt_status ipt_mpi_local_size(MPI_Comm comm, size_t rows, size_t cols, ipt_mpi_local* local) {
  return ipt_mpi_local_size_with_options(comm, rows, cols, nullptr, local);
}

ipt_status ipt_mpi_transpose_with_options(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                          size_t offset, size_t rows, size_t cols, size_t elem_size,
                                          size_t local_rows, size_t local_row_start, unsigned flags,
                                          const ipt_mpi_options* options) {
  return guarded([&] {
    return run({comm, queue, buffer, offset, rows, cols, elem_size, local_rows, local_row_start,
                flags, resolved(options), false});
  });
}

ipt_status ipt_mpi_transpose(MPI_Comm comm, cl_command_queue queue, cl_mem buffer, size_t offset,
                             size_t rows, size_t cols, size_t elem_size, size_t local_rows,
                             size_t local_row_start, unsigned flags) {
  return ipt_mpi_transpose_with_options(comm, queue, buffer, offset, rows, cols, elem_size,
                                        local_rows, local_row_start, flags, nullptr);
}

ipt_status ipt_mpi_transpose_f32(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                 size_t offset, size_t rows, size_t cols, size_t local_rows,
                                 size_t local_row_start, unsigned flags) {
  return ipt_mpi_transpose(comm, queue, buffer, offset, rows, cols, sizeof(cl_float), local_rows,
                           local_row_start, flags);
}

ipt_status ipt_mpi_transpose_f64_with_options(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                              size_t offset, size_t rows, size_t cols,
                                              size_t local_rows, size_t local_row_start,
                                              unsigned flags, const ipt_mpi_options* options) {
  return guarded([&] {
    return run({comm, queue, buffer, offset, rows, cols, sizeof(cl_double), local_rows,
                local_row_start, flags, resolved(options), true});
  });
}

ipt_status ipt_mpi_transpose_f64(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                 size_t offset, size_t rows, size_t cols, size_t local_rows,
                                 size_t local_row_start, unsigned flags) {
  return ipt_mpi_transpose_f64_with_options(comm, queue, buffer, offset, rows, cols, local_rows,
                                            local_row_start, flags, nullptr);
}

ipt_status ipt_mpi_plan(MPI_Comm comm, size_t rows, size_t cols, size_t elem_size, unsigned flags,
                        const ipt_mpi_options* options, ipt_mpi_plan_info* info) {
  return guarded([&] {
    std::size_t ranks = 0, rank = 0;
    if (info == nullptr || !comm_shape(comm, &ranks, &rank)) {
      set_last_error(info == nullptr ? "info is NULL"
                                     : "the communicator is not a valid intracommunicator");
      return IPT_INVALID_VALUE;
    }
    const ipt_mpi_options o = resolved(options);
    const PlanVerdict v =
        check_plan(plan_request(ranks, rows, cols, elem_size, flags, o, staging_of(o)));
    if (v.refusal != Refusal::none) {
      set_last_error(v.why.c_str());
      return status_of(v.refusal);
    }
    const Distribution& d = v.distribution;
    const ExchangePlan& p = v.plan;
    *info = {};
    info->scheme = static_cast<ipt_mpi_scheme>(p.scheme);
    info->ranks = ranks;
    info->active_ranks = d.active;
    info->block_rows = d.block_rows;
    info->block_cols = d.block_cols;
    info->chunk_bytes = p.chunk_bytes;
    info->piece_bytes = p.piece_bytes;
    info->rounds = p.rounds;
    info->staging_bytes = p.staging_bytes;
    info->exchange_bytes = p.exchange_bytes;
    info->modelled_seconds = p.seconds;
    info->modelled_pairwise = p.pairwise_s;
    info->modelled_alltoall = p.alltoall_s;
    const std::string text = describe(d, rank, elem_size, flags, p);
    std::snprintf(info->description, sizeof info->description, "%s", text.c_str());
    set_last_error("");
    return IPT_SUCCESS;
  });
}

const char* ipt_mpi_last_error_message(void) { return last_error(); }

ipt_status ipt_mpi_set_last_error(ipt_status status, const char* message) {
  set_last_error(message != nullptr ? message : "");
  return status;
}

ipt_status ipt_mpi_local_size_fortran(MPI_Fint comm, size_t rows, size_t cols,
                                      const ipt_mpi_options* options, ipt_mpi_local* local) {
  return ipt_mpi_local_size_with_options(MPI_Comm_f2c(comm), rows, cols, options, local);
}

ipt_status ipt_mpi_transpose_fortran(MPI_Fint comm, cl_command_queue queue, cl_mem buffer,
                                     size_t offset, size_t rows, size_t cols, size_t elem_size,
                                     size_t local_rows, size_t local_row_start, unsigned flags,
                                     const ipt_mpi_options* options) {
  return ipt_mpi_transpose_with_options(MPI_Comm_f2c(comm), queue, buffer, offset, rows, cols,
                                        elem_size, local_rows, local_row_start, flags, options);
}

ipt_status ipt_mpi_transpose_f64_fortran(MPI_Fint comm, cl_command_queue queue, cl_mem buffer,
                                         size_t offset, size_t rows, size_t cols, size_t local_rows,
                                         size_t local_row_start, unsigned flags,
                                         const ipt_mpi_options* options) {
  return ipt_mpi_transpose_f64_with_options(MPI_Comm_f2c(comm), queue, buffer, offset, rows, cols,
                                            local_rows, local_row_start, flags, options);
}

}  // extern "C"
