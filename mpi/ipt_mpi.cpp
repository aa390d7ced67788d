// libipt_mpi's C API (include/ipt/ipt_mpi.h): checks agreed on by every rank, then the
// local steps (local_steps.hpp), the exchange (exchange.hpp) and the local steps after,
// with the distribution and the exchange planned by distribution.hpp and exchange_plan.hpp.
#include "ipt/ipt_mpi.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
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

// An intracommunicator's size and this rank's place in it (an intercommunicator's
// reductions would combine the other group's values: refused).
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

// The rank's queue finished, as the header promises on return (a rank without a queue has
// nothing to finish).
ipt_status finish_queue(cl_command_queue queue, ipt_status status) noexcept {
  if (queue != nullptr) clFinish(queue);
  return status;
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
  bool overflow = false;
  if (const std::string no = distribute(ranks, c.rows, c.cols, c.options.block_rows,
                                        c.options.block_cols, d, &overflow);
      !no.empty())
    return fail(overflow ? IPT_SIZE_OVERFLOW : IPT_INVALID_VALUE, no);
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
  // A rank that holds nothing may pass no queue and no buffer: it only takes part in MPI.
  if (s.alloc == 0 && c.queue == nullptr && c.buffer == nullptr) return IPT_SUCCESS;
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

// The message of libipt's last failure on this thread, after `what`, in `out`.
void with_libipt_message(char (&out)[512], const char* what) noexcept {
  std::snprintf(out, sizeof out, "%s: %s", what, ipt_last_error_message());
}

// The checks, agreed on by every rank. A rank that fails to even check (no memory for a
// message) still takes part, so that no rank waits for it.
ipt_status agreed_checks(const Call& c, std::size_t ranks, std::size_t rank, Distribution* d) {
  ipt_status mine = IPT_SUCCESS;
  std::string why;
  bool same = false;
  try {
    mine = check(c, ranks, rank, d, &why);
  } catch (...) {
    mine = IPT_OUT_OF_HOST_MEMORY;
  }
  same = same_everywhere(
      c.comm, {c.rows, c.cols, c.elem_size, c.flags, c.options.block_rows, c.options.block_cols,
               static_cast<unsigned long long>(c.options.scheme)});
  const char* text =
      mine == IPT_OUT_OF_HOST_MEMORY && why.empty() ? "out of host memory" : why.c_str();
  if (!same && mine == IPT_SUCCESS) {
    mine = IPT_INVALID_VALUE;
    text = "rows, cols, elem_size, flags, blocks or scheme differ between ranks";
  }
  return agree(c.comm, mine, text);
}

// Every rank runs this with the same arguments (agreed); from the first agreement on,
// nothing allocates without agreeing on its failure, and nothing throws.
ipt_status run(const Call& c) {
  std::size_t ranks = 0, rank = 0;
  if (!comm_shape(c.comm, &ranks, &rank)) {
    set_last_error("the communicator is not a valid intracommunicator");
    return IPT_INVALID_VALUE;
  }
  Distribution d;
  if (const ipt_status all = agreed_checks(c, ranks, rank, &d); all != IPT_SUCCESS) return all;
  if (c.rows == 0 || c.cols == 0) return finish_queue(c.queue, IPT_SUCCESS);

  // Pieces must be the same on both sides of every message: the least budget of any rank.
  const std::size_t staging = least(c.comm, staging_of(c.options));
  const ExchangePlan plan =
      plan_exchange(d, c.elem_size, c.flags, staging, static_cast<Scheme>(c.options.scheme));
  if (!plan.feasible) {  // the same on every rank: the plan depends on agreed values only
    set_last_error(
        "the all-to-all scheme needs 4 (S - 1) bytes of staging per piece byte and "
        "the staging budget is smaller");
    return IPT_INVALID_VALUE;
  }
  const LocalBlock block{c.queue, c.buffer, c.offset, c.elem_size, d, share_of(d, rank), c.flags};
  char why[512] = "";

  if (d.active == 1) {  // one rank holds the whole matrix: no exchange
    const ipt_status status = block.share.active ? only_rank(block) : IPT_SUCCESS;
    if (status != IPT_SUCCESS) with_libipt_message(why, "the transposition on the one rank failed");
    return agree(c.comm, status, why);
  }

  // The exchange's messages go over a communicator of the library's own, so that none of
  // them can match a message of the caller's still in flight on `comm`.
  MPI_Comm own = MPI_COMM_NULL;
  if (MPI_Comm_dup(c.comm, &own) != MPI_SUCCESS) {
    set_last_error("MPI_Comm_dup failed");
    return IPT_INVALID_VALUE;
  }
  const ExchangeTarget target{own,  c.queue, c.buffer, c.offset * c.elem_size,
                              rank, ranks,   d.active, d.block_rows * d.block_cols * c.elem_size};
  ipt_status result = IPT_SUCCESS;
  {
    ExchangeResources* resources = nullptr;
    ipt_status step = IPT_SUCCESS;
    try {
      resources = new ExchangeResources(target, plan);
      if (!resources->ok()) step = IPT_OUT_OF_HOST_MEMORY;
    } catch (...) {
      step = IPT_OUT_OF_HOST_MEMORY;
    }
    if (step != IPT_SUCCESS)
      std::snprintf(why, sizeof why, "no host memory for %zu bytes of staging", plan.staging_bytes);
    BeforeDone done;
    if (step == IPT_SUCCESS && block.share.active) {
      step = before_exchange(block, &done);
      if (step != IPT_SUCCESS) with_libipt_message(why, "a local step before the exchange failed");
    }
    result = agree(own, step, why);
    if (result != IPT_SUCCESS) {
      // Undone where it was done; where undoing fails too, every rank says so. Else the
      // message stays the failure's.
      std::snprintf(why, sizeof why, "%s", last_error());
      const ipt_status undone = block.share.active && step != IPT_BUFFER_UNDEFINED
                                    ? undo_before(block, done)
                                : step == IPT_BUFFER_UNDEFINED ? step
                                                               : IPT_SUCCESS;
      if (agree(own, undone, "undoing the local steps before the exchange failed") != IPT_SUCCESS)
        result = IPT_BUFFER_UNDEFINED;
      else
        set_last_error(why);
    } else {
      bool ok = exchange(target, plan, *resources);
      if (!ok) std::snprintf(why, sizeof why, "a device transfer of the exchange failed");
      if (ok && block.share.active && after_exchange(block) != IPT_SUCCESS) {
        ok = false;
        with_libipt_message(why, "a local step after the exchange failed");
      }
      result = agree(own, ok ? IPT_SUCCESS : IPT_BUFFER_UNDEFINED, why);
    }
    delete resources;
  }
  MPI_Comm_free(&own);
  return finish_queue(c.queue, result);
}

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

size_t ipt_mpi_set_staging_bytes(size_t bytes) {
  return default_staging.exchange(std::clamp(bytes, kMinStaging, kMaxStaging));
}

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

ipt_status ipt_mpi_transpose_f64(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                 size_t offset, size_t rows, size_t cols, size_t local_rows,
                                 size_t local_row_start, unsigned flags) {
  return guarded([&] {
    return run({comm, queue, buffer, offset, rows, cols, sizeof(cl_double), local_rows,
                local_row_start, flags, resolved(nullptr), true});
  });
}

ipt_status ipt_mpi_plan(MPI_Comm comm, size_t rows, size_t cols, size_t elem_size, unsigned flags,
                        const ipt_mpi_options* options, ipt_mpi_plan_info* info) {
  return guarded([&] {
    std::size_t ranks = 0, rank = 0, bytes = 0;
    const ipt_mpi_options o = resolved(options);
    Distribution d;
    std::string why;
    ipt_status status = IPT_INVALID_VALUE;
    bool overflow = false;
    if (info == nullptr) {
      why = "info is NULL";
    } else if (!comm_shape(comm, &ranks, &rank)) {
      why = "the communicator is not a valid intracommunicator";
    } else if (!valid_element_size(elem_size)) {
      why = "elem_size " + std::to_string(elem_size) + " is not 1, 2, 4, 8 or 16";
      status = IPT_INVALID_ELEMENT_SIZE;
    } else if ((flags & ~(IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT)) != 0 ||
               !valid_scheme(o.scheme)) {
      why = "unknown flags or scheme";
    } else {
      why = distribute(ranks, rows, cols, o.block_rows, o.block_cols, &d, &overflow);
      if (why.empty() && __builtin_mul_overflow(d.alloc, elem_size, &bytes)) {
        why = "the padded block's bytes overflow size_t";
        overflow = true;
      }
      if (overflow) status = IPT_SIZE_OVERFLOW;
    }
    const ExchangePlan p = why.empty() ? plan_exchange(d, elem_size, flags, staging_of(o),
                                                       static_cast<Scheme>(o.scheme))
                                       : ExchangePlan{};
    if (why.empty() && !p.feasible)
      why = "the all-to-all scheme needs 4 (S - 1) bytes of staging and the budget is smaller";
    if (!why.empty()) {
      set_last_error(why.c_str());
      return status;
    }
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
