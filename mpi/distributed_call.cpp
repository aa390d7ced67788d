// SPDX-License-Identifier: Apache-2.0
#include "distributed_call.hpp"

#include <cstdio>
#include <optional>
#include <string>

#include "agreement.hpp"
#include "call_arguments.hpp"
#include "distribution.hpp"
#include "exchange.hpp"
#include "exchange_plan.hpp"
#include "local_steps.hpp"
#include "own_comm.hpp"
#include "plan_check.hpp"

namespace ipt::mpi {
namespace {

// The rank's queue finished, as the header promises on return (a rank without a queue has
// nothing to finish).
ipt_status finish_queue(cl_command_queue queue, ipt_status status) noexcept {
  if (queue != nullptr) clFinish(queue);
  return status;
}

// This rank's verdict on the arguments, before any command: a status and why. The shape,
// element size, flags, scheme and plan are check_plan's (with this rank's budget; the
// plan is made again with the ranks' least once they agree); the rest is the call's.
ipt_status check(const Call& c, std::size_t ranks, std::size_t rank, Distribution* d,
                 std::string* why) {
  const auto fail = [&](ipt_status status, std::string text) {
    *why = std::move(text);
    return status;
  };
  PlanVerdict v = check_plan(
      plan_request(ranks, c.rows, c.cols, c.elem_size, c.flags, c.options, staging_of(c.options)));
  if (v.refusal != Refusal::none) return fail(status_of(v.refusal), std::move(v.why));
  *d = v.distribution;
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
  // Kernels read and write the block, and so does the exchange's staging, from the host
  // (only where there is an exchange): a flag that forbids either would fail half-way.
  cl_mem_flags access = 0;
  cl_context queue_context = nullptr, buffer_context = nullptr;
  if (clGetMemObjectInfo(c.buffer, CL_MEM_FLAGS, sizeof access, &access, nullptr) != CL_SUCCESS ||
      clGetMemObjectInfo(c.buffer, CL_MEM_CONTEXT, sizeof buffer_context, &buffer_context,
                         nullptr) != CL_SUCCESS ||
      clGetCommandQueueInfo(c.queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context,
                            nullptr) != CL_SUCCESS)
    return fail(IPT_INVALID_MEM_OBJECT, "the buffer's flags or context cannot be read");
  if (buffer_context != queue_context)
    return fail(IPT_INVALID_CONTEXT, "the buffer and the queue belong to different contexts");
  if ((access & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)) != 0)
    return fail(IPT_INVALID_MEM_OBJECT,
                "the buffer was created CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY; kernels read "
                "and write it");
  if (d->active > 1 &&
      (access & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) != 0)
    return fail(IPT_INVALID_MEM_OBJECT,
                "the buffer was created CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY or "
                "CL_MEM_HOST_NO_ACCESS; the exchange reads and writes it from the host");
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

// The checks, agreed on by every rank in one reduction, and the plan with the ranks' least
// staging budget (pieces must be the same on both sides of every message), which every
// rank makes alike from agreed values. A rank that fails to even check (no memory for a
// message) still takes part, so that no rank waits for it.
ipt_status agreed_plan(const Call& c, std::size_t ranks, std::size_t rank, Distribution* d,
                       ExchangePlan* plan) {
  ipt_status mine = IPT_SUCCESS;
  std::string why;
  try {
    mine = check(c, ranks, rank, d, &why);
  } catch (...) {
    mine = IPT_OUT_OF_HOST_MEMORY;
  }
  const char* text =
      mine == IPT_OUT_OF_HOST_MEMORY && why.empty() ? "out of host memory" : why.c_str();
  unsigned long long staging = 0;
  if (const ipt_status all = agree_on_arguments(
          c.comm, mine, text,
          {c.rows, c.cols, c.elem_size, c.flags, c.options.block_rows, c.options.block_cols,
           static_cast<unsigned long long>(c.options.scheme)},
          "rows, cols, elem_size, flags, blocks or scheme differ between ranks",
          staging_of(c.options), &staging);
      all != IPT_SUCCESS)
    return all;
  // check() passed with this rank's budget; the least can only refuse on every rank. A
  // plan allocates only to say why it refuses, so no rank can fail alone to make it.
  try {
    const PlanVerdict v =
        check_plan(plan_request(ranks, c.rows, c.cols, c.elem_size, c.flags, c.options, staging));
    if (v.refusal != Refusal::none) {
      set_last_error(v.why.c_str());
      return status_of(v.refusal);
    }
    *plan = v.plan;
    return IPT_SUCCESS;
  } catch (...) {
    set_last_error("out of host memory");
    return IPT_OUT_OF_HOST_MEMORY;
  }
}

// The call once every rank has agreed that the arguments are good; its queue is finished
// by the caller (run), whichever way it returns.
ipt_status transpose_agreed(const Call& c, std::size_t ranks, std::size_t rank,
                            const Distribution& d, const ExchangePlan& plan) {
  if (c.rows == 0 || c.cols == 0) return IPT_SUCCESS;
  const LocalBlock block{c.queue, c.buffer, c.offset, c.elem_size, d, share_of(d, rank), c.flags};
  char why[512] = "";

  if (d.active == 1) {  // one rank holds the whole matrix: no exchange
    const ipt_status status = block.share.active ? only_rank(block) : IPT_SUCCESS;
    if (status != IPT_SUCCESS) with_libipt_message(why, "the transposition on the one rank failed");
    return agree(c.comm, status, why);
  }

  // The exchange's messages go over a communicator of the library's own, so that none of
  // them can match a message of the caller's still in flight on `comm`.
  const MPI_Comm own = own_comm(c.comm);
  if (own == MPI_COMM_NULL) {
    set_last_error("no communicator of libipt_mpi's own beside the caller's (MPI_Comm_dup failed)");
    return IPT_INVALID_VALUE;
  }
  const ExchangeTarget target{own,  c.queue, c.buffer, c.offset * c.elem_size,
                              rank, ranks,   d.active, d.block_rows * d.block_cols * c.elem_size};
  ipt_status result = IPT_SUCCESS;
  {
    std::optional<ExchangeResources> resources;
    ipt_status step = IPT_SUCCESS;
    try {
      resources.emplace(target, plan);
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
  }
  return result;
}

}  // namespace

// From the first agreement on, nothing allocates without agreeing on its failure, and
// nothing throws.
ipt_status run(const Call& c) {
  std::size_t ranks = 0, rank = 0;
  if (!comm_shape(c.comm, &ranks, &rank)) {
    set_last_error("the communicator is not a valid intracommunicator");
    return IPT_INVALID_VALUE;
  }
  Distribution d;
  ExchangePlan plan;
  if (const ipt_status all = agreed_plan(c, ranks, rank, &d, &plan); all != IPT_SUCCESS) return all;
  return finish_queue(c.queue, transpose_agreed(c, ranks, rank, d, plan));
}

}  // namespace ipt::mpi
