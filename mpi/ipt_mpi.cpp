// libipt_mpi's C API (include/ipt/ipt_mpi.h): checks agreed on by every rank, then the
// local steps (local_steps.hpp), the exchange (exchange.hpp) and the local steps after,
// with the distribution and the exchange planned by distribution.hpp and exchange_plan.hpp.
#include "ipt/ipt_mpi.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "agreement.hpp"
#include "distribution.hpp"
#include "exchange.hpp"
#include "exchange_plan.hpp"
#include "local_steps.hpp"

namespace {

using namespace ipt::mpi;

std::atomic<std::size_t> default_staging{std::size_t{16} << 20};
constexpr std::size_t kMinStaging = 4096;
// MPI counts are ints: no message, and no staging slot, passes 1 GiB.
constexpr std::size_t kMaxStaging = std::size_t{1} << 30;

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
  int size = 0, me = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &size) != MPI_SUCCESS ||
      MPI_Comm_rank(comm, &me) != MPI_SUCCESS || size <= 0)
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

struct Call {
  MPI_Comm comm;
  cl_command_queue queue;
  cl_mem buffer;
  std::size_t offset, rows, cols, elem_size, local_rows, local_row_start;
  unsigned flags;
  ipt_mpi_options options;
  bool fp64;  // the f64 form: the device must support doubles
};

// This rank's verdict on the arguments, before any command: a status and why.
ipt_status check(const Call& c, std::size_t ranks, std::size_t rank, Distribution* d,
                 std::string* why) {
  const auto fail = [&](ipt_status status, std::string text) {
    *why = std::move(text);
    return status;
  };
  if (!valid_element_size(c.elem_size))
    return fail(IPT_INVALID_ELEMENT_SIZE,
                "elem_size " + std::to_string(c.elem_size) + " is not 1, 2, 4, 8 or 16");
  if ((c.flags & ~(IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT)) != 0)
    return fail(IPT_INVALID_VALUE, "flags " + std::to_string(c.flags) + " name unknown bits");
  if (!valid_scheme(c.options.scheme))
    return fail(IPT_INVALID_VALUE, "options.scheme is not an ipt_mpi_scheme");
  if (const std::string no =
          distribute(ranks, c.rows, c.cols, c.options.block_rows, c.options.block_cols, d);
      !no.empty())
    return fail(no.find("overflow") != std::string::npos ? IPT_SIZE_OVERFLOW : IPT_INVALID_VALUE,
                no);
  const Share s = share_of(*d, rank);
  if (c.local_rows != s.rows || (s.rows > 0 && c.local_row_start != s.row_start))
    return fail(IPT_INVALID_VALUE, "the block of " + std::to_string(c.local_rows) +
                                       " rows from row " + std::to_string(c.local_row_start) +
                                       " is not the rank's share (" + std::to_string(s.rows) +
                                       " rows from row " + std::to_string(s.row_start) + ")");
  std::size_t needed = 0;
  if (__builtin_add_overflow(c.offset, s.alloc, &needed) ||
      __builtin_mul_overflow(needed, c.elem_size, &needed))
    return fail(IPT_SIZE_OVERFLOW, "offset + alloc_elements overflows size_t in bytes");
  if (c.queue == nullptr || clGetCommandQueueInfo(c.queue, CL_QUEUE_REFERENCE_COUNT,
                                                  sizeof(cl_uint), nullptr, nullptr) != CL_SUCCESS)
    return fail(IPT_INVALID_COMMAND_QUEUE, "the queue is not a valid cl_command_queue");
  std::size_t buffer_bytes = 0;
  if (c.buffer == nullptr || clGetMemObjectInfo(c.buffer, CL_MEM_SIZE, sizeof buffer_bytes,
                                                &buffer_bytes, nullptr) != CL_SUCCESS)
    return fail(IPT_INVALID_MEM_OBJECT, "the buffer is not a valid cl_mem");
  if (buffer_bytes < needed)
    return fail(IPT_BUFFER_TOO_SMALL, "the buffer holds " + std::to_string(buffer_bytes) +
                                          " bytes; offset + alloc_elements need " +
                                          std::to_string(needed));
  if (c.fp64 && !supports_fp64(c.queue))
    return fail(IPT_FP64_NOT_SUPPORTED, "the device does not support double precision");
  return IPT_SUCCESS;
}

ipt_status run(const Call& c) {
  std::size_t ranks = 0, rank = 0;
  if (!comm_shape(c.comm, &ranks, &rank)) {
    set_last_error("the communicator is not valid");
    return IPT_INVALID_VALUE;
  }
  Distribution d;
  std::string why;
  ipt_status mine = check(c, ranks, rank, &d, &why);
  // Every rank makes the same collective calls, whatever it found.
  if (!same_everywhere(
          c.comm, {c.rows, c.cols, c.elem_size, c.flags, c.options.block_rows, c.options.block_cols,
                   static_cast<unsigned long long>(c.options.scheme)}) &&
      mine == IPT_SUCCESS) {
    mine = IPT_INVALID_VALUE;
    why = "rows, cols, elem_size, flags or options differ between ranks";
  }
  if (const ipt_status all = agree(c.comm, mine, why); all != IPT_SUCCESS) return all;
  if (c.rows == 0 || c.cols == 0) return IPT_SUCCESS;

  // Pieces must be the same on both sides of every message: the least budget of any rank.
  const std::size_t staging = least(c.comm, staging_of(c.options));
  const ExchangePlan plan =
      plan_exchange(d, c.elem_size, c.flags, staging, static_cast<Scheme>(c.options.scheme));
  const LocalBlock block{c.queue, c.buffer, c.offset, c.elem_size, d, share_of(d, rank), c.flags};
  const ExchangeTarget target{c.comm,
                              c.queue,
                              c.buffer,
                              c.offset * c.elem_size,
                              rank,
                              d.active,
                              d.block_rows * d.block_cols * c.elem_size};

  if (d.active == 1) {  // one rank holds the whole matrix: no exchange
    const ipt_status status = block.share.active ? only_rank(block) : IPT_SUCCESS;
    return agree(
        c.comm, status,
        std::string("the transposition on the one rank failed: ") + ipt_last_error_message());
  }

  BeforeDone done;
  Staging stage = make_staging(target, plan);
  ipt_status step = block.share.active ? before_exchange(block, &done) : IPT_SUCCESS;
  why = step != IPT_SUCCESS
            ? std::string("a local step before the exchange failed: ") + ipt_last_error_message()
            : std::string();
  if (step == IPT_SUCCESS && !stage.ok()) {
    step = IPT_OUT_OF_HOST_MEMORY;
    why = "no host memory for " + std::to_string(plan.staging_bytes) + " bytes of staging";
  }
  if (const ipt_status all = agree(c.comm, step, why); all != IPT_SUCCESS) {
    if (block.share.active) undo_before(block, done);
    return all;
  }

  bool ok = exchange(target, plan, stage);
  why = ok ? "" : "a device transfer of the exchange failed";
  if (ok && block.share.active && after_exchange(block) != IPT_SUCCESS) {
    ok = false;
    why = std::string("a local step after the exchange failed: ") + ipt_last_error_message();
  }
  return agree(c.comm, ok ? IPT_SUCCESS : IPT_BUFFER_UNDEFINED, why);
}

}  // namespace

extern "C" {

size_t ipt_mpi_set_staging_bytes(size_t bytes) {
  return default_staging.exchange(std::clamp(bytes, kMinStaging, kMaxStaging));
}

ipt_status ipt_mpi_local_size_with_options(MPI_Comm comm, size_t rows, size_t cols,
                                           const ipt_mpi_options* options, ipt_mpi_local* local) {
  std::size_t ranks = 0, rank = 0;
  const ipt_mpi_options o = resolved(options);
  Distribution d;
  std::string why;
  if (local == nullptr)
    why = "local is NULL";
  else if (!comm_shape(comm, &ranks, &rank))
    why = "the communicator is not valid";
  else
    why = distribute(ranks, rows, cols, o.block_rows, o.block_cols, &d);
  if (!why.empty()) {
    set_last_error(why);
    return why.find("overflow") != std::string::npos ? IPT_SIZE_OVERFLOW : IPT_INVALID_VALUE;
  }
  const Share s = share_of(d, rank);
  *local = {s.rows, s.row_start, s.cols, s.col_start, s.alloc};
  set_last_error("");
  return IPT_SUCCESS;
}

ipt_status ipt_mpi_local_size(MPI_Comm comm, size_t rows, size_t cols, ipt_mpi_local* local) {
  return ipt_mpi_local_size_with_options(comm, rows, cols, nullptr, local);
}

ipt_status ipt_mpi_transpose_with_options(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                          size_t offset, size_t rows, size_t cols, size_t elem_size,
                                          size_t local_rows, size_t local_row_start, unsigned flags,
                                          const ipt_mpi_options* options) {
  try {
    return run({comm, queue, buffer, offset, rows, cols, elem_size, local_rows, local_row_start,
                flags, resolved(options), false});
  } catch (...) {  // std::bad_alloc of a message or a vector: nothing crosses the C ABI
    return IPT_OUT_OF_HOST_MEMORY;
  }
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

ipt_status ipt_mpi_transpose_f64(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                 size_t offset, size_t rows, size_t cols, size_t local_rows,
                                 size_t local_row_start, unsigned flags) {
  try {
    return run({comm, queue, buffer, offset, rows, cols, sizeof(cl_double), local_rows,
                local_row_start, flags, resolved(nullptr), true});
  } catch (...) {
    return IPT_OUT_OF_HOST_MEMORY;
  }
}

ipt_status ipt_mpi_plan(MPI_Comm comm, size_t rows, size_t cols, size_t elem_size, unsigned flags,
                        const ipt_mpi_options* options, ipt_mpi_plan_info* info) {
  try {
    std::size_t ranks = 0, rank = 0;
    const ipt_mpi_options o = resolved(options);
    Distribution d;
    std::string why;
    if (info == nullptr)
      why = "info is NULL";
    else if (!comm_shape(comm, &ranks, &rank))
      why = "the communicator is not valid";
    else if (!valid_element_size(elem_size))
      why = "elem_size " + std::to_string(elem_size) + " is not 1, 2, 4, 8 or 16";
    else if ((flags & ~(IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT)) != 0 ||
             !valid_scheme(o.scheme))
      why = "unknown flags or scheme";
    else
      why = distribute(ranks, rows, cols, o.block_rows, o.block_cols, &d);
    if (!why.empty()) {
      set_last_error(why);
      if (why.rfind("elem_size", 0) == 0) return IPT_INVALID_ELEMENT_SIZE;
      return why.find("overflow") != std::string::npos ? IPT_SIZE_OVERFLOW : IPT_INVALID_VALUE;
    }
    const ExchangePlan p =
        plan_exchange(d, elem_size, flags, staging_of(o), static_cast<Scheme>(o.scheme));
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
    std::strncpy(info->description, text.c_str(), sizeof info->description - 1);
    set_last_error("");
    return IPT_SUCCESS;
  } catch (...) {
    return IPT_OUT_OF_HOST_MEMORY;
  }
}

const char* ipt_mpi_last_error_message(void) { return last_error(); }

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

}  // extern "C"
