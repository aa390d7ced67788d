// SPDX-License-Identifier: Apache-2.0
// libipt_mpi C++ layer: header-only, over the C API of ipt_mpi.h, with the types of
// ipt.hpp (the Khronos C++ bindings' cl::CommandQueue and cl::Buffer). Errors become
// ipt::mpi::error exceptions, which are ipt::error too, carrying the status and
// libipt_mpi's message (which rank found what). Link ipt::mpi (pkg-config ipt-mpi).
//
//   const ipt_mpi_local local = ipt::mpi::local_size(comm, rows, cols);
//   // buffer: local.alloc_elements floats, rows [local_row_start, + local_rows) in it
//   ipt::mpi::transpose<float>(comm, queue, buffer, rows, cols, local);
//   // now rows [local_col_start, + local_cols) of the cols x rows transpose
//
// Every call of a collective function throws on every rank or on none: the C library
// agrees on one status before it returns, so a rank's exception never leaves the other
// ranks waiting in a collective call.
#ifndef IPT_IPT_MPI_HPP
#define IPT_IPT_MPI_HPP

#include <ipt/ipt_mpi.h>

#include <cstddef>
#include <ipt/ipt.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ipt {
namespace mpi {

// A failed libipt_mpi call: status() is the ipt_status, what() names it and adds
// ipt_mpi_last_error_message() (ipt::error's own message is libipt's, which says nothing
// of the distributed call).
class error : public ipt::error {
 public:
  explicit error(ipt_status status)
      : ipt::error(status),
        message_(std::string(ipt_status_string(status)) + ": " + ipt_mpi_last_error_message()) {}
  const char* what() const noexcept override { return message_.what(); }

 private:
  std::runtime_error message_;  // copying an exception must not throw
};

namespace detail {
inline void check(ipt_status status) {
  if (status != IPT_SUCCESS) throw error(status);
}
}  // namespace detail

// This rank's share in `comm` of a rows x cols matrix and of its transpose, with FFTW's
// default blocks or those of `options` (ipt_mpi_local_size_with_options). Not collective.
inline ipt_mpi_local local_size(MPI_Comm comm, std::size_t rows, std::size_t cols,
                                const ipt_mpi_options& options = {}) {
  ipt_mpi_local local{};
  detail::check(ipt_mpi_local_size_with_options(comm, rows, cols, &options, &local));
  return local;
}

// Collective over `comm`: transposes the rows x cols matrix of elem_size-byte elements
// distributed by blocks of rows, this rank's block at element `offset` of `buffer`
// (ipt_mpi_transpose_with_options). `local` is this rank's share, as local_size gives it
// for the same `options`; `flags`: IPT_MPI_TRANSPOSED_IN, IPT_MPI_TRANSPOSED_OUT. Blocks
// until done. Throws ipt::mpi::error on every rank, every buffer unchanged, on bad input.
inline void transpose(MPI_Comm comm, const cl::CommandQueue& queue, const cl::Buffer& buffer,
                      std::size_t rows, std::size_t cols, std::size_t elem_size,
                      const ipt_mpi_local& local, unsigned flags = 0,
                      const ipt_mpi_options& options = {}, std::size_t offset = 0) {
  detail::check(ipt_mpi_transpose_with_options(comm, queue(), buffer(), offset, rows, cols,
                                               elem_size, local.local_rows, local.local_row_start,
                                               flags, &options));
}

// The same for elements of T, any trivially copyable type of 1, 2, 4, 8 or 16 bytes,
// moved bit for bit; double goes through ipt_mpi_transpose_f64_with_options
// (IPT_FP64_NOT_SUPPORTED on every rank when a rank's device lacks doubles).
template <typename T>
void transpose(MPI_Comm comm, const cl::CommandQueue& queue, const cl::Buffer& buffer,
               std::size_t rows, std::size_t cols, const ipt_mpi_local& local, unsigned flags = 0,
               const ipt_mpi_options& options = {}, std::size_t offset = 0) {
  ipt::detail::check_element<T>();
  if (std::is_same<T, double>::value)
    detail::check(ipt_mpi_transpose_f64_with_options(comm, queue(), buffer(), offset, rows, cols,
                                                     local.local_rows, local.local_row_start, flags,
                                                     &options));
  else
    transpose(comm, queue, buffer, rows, cols, sizeof(T), local, flags, options, offset);
}

// The plan this rank would run for transpose with these arguments (ipt_mpi_plan): the
// scheme, the blocks, the exchange's rounds and bytes, the modelled times and the plan in
// words (description). Not collective.
inline ipt_mpi_plan_info plan(MPI_Comm comm, std::size_t rows, std::size_t cols,
                              std::size_t elem_size, unsigned flags = 0,
                              const ipt_mpi_options& options = {}) {
  ipt_mpi_plan_info info{};
  detail::check(ipt_mpi_plan(comm, rows, cols, elem_size, flags, &options, &info));
  return info;
}
template <typename T>
ipt_mpi_plan_info plan(MPI_Comm comm, std::size_t rows, std::size_t cols, unsigned flags = 0,
                       const ipt_mpi_options& options = {}) {
  ipt::detail::check_element<T>();
  return plan(comm, rows, cols, sizeof(T), flags, options);
}

// The process's default host staging per rank (ipt_mpi_set_staging_bytes); returns the
// previous value.
inline std::size_t set_staging_bytes(std::size_t bytes) { return ipt_mpi_set_staging_bytes(bytes); }

}  // namespace mpi
}  // namespace ipt

#endif  // IPT_IPT_MPI_HPP
