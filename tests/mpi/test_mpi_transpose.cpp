// SPDX-License-Identifier: Apache-2.0
// The distributed transposition (ipt_mpi.h) under mpirun -np 1..4: every rank checks its
// block of the transpose against the global matrix, computed from each element's index,
// for prime, skinny and uneven shapes, every element size and the TRANSPOSED flags, both
// exchange schemes in pieces of every size, caller-given blocks that leave ranks empty,
// and the f32/f64 forms, with the buffer's bytes before the matrix and past its
// allocation unchanged; bad input on one rank, and a local step failing on one rank,
// return the same status on every rank with every buffer unchanged. Prints
// "mpi: N passed, N failed" (all ranks' checks) on rank 0.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "mpi_test_data.hpp"

namespace {

using ipt::test::mpi::kGuard;
using ipt::test::mpi::kOffset;
using ipt::test::mpi::Tally;

struct Run {
  MPI_Comm comm;
  int rank, ranks;
  ipt::support::Session& session;
  Tally& tally;

  std::vector<unsigned char> fill(std::size_t N, std::size_t e, bool in, const ipt_mpi_local& local,
                                  std::size_t bytes) {
    return ipt::test::mpi::filled_buffer(rank, N, e, in, local, bytes);
  }

  // Which entry point a case calls.
  enum class Form { generic, f32, f64 };

  void transpose(std::size_t M, std::size_t N, std::size_t e, unsigned flags,
                 const ipt_mpi_options* options = nullptr, Form form = Form::generic) {
    std::string what = std::to_string(M) + " x " + std::to_string(N) + ", " + std::to_string(e) +
                       "-byte elements, flags " + std::to_string(flags) + ", " +
                       std::to_string(ranks) + " ranks";
    if (options != nullptr)
      what += ", blocks " + std::to_string(options->block_rows) + "/" +
              std::to_string(options->block_cols) + ", scheme " + std::to_string(options->scheme) +
              ", staging " + std::to_string(options->staging_bytes);
    if (form != Form::generic) what += form == Form::f32 ? ", f32 form" : ", f64 form";
    ipt_mpi_local local{};
    tally.check(ipt_mpi_local_size_with_options(comm, M, N, options, &local) == IPT_SUCCESS,
                what + ": local size");
    const bool in = (flags & IPT_MPI_TRANSPOSED_IN) != 0;
    const bool out = (flags & IPT_MPI_TRANSPOSED_OUT) != 0;
    const std::size_t bytes = (kOffset + local.alloc_elements) * e + kGuard;
    const std::vector<unsigned char> before = fill(N, e, in, local, bytes);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes, const_cast<unsigned char*>(before.data()), &code);
    ipt_status status = IPT_INTERNAL_ERROR;
    if (form == Form::f32)
      status = ipt_mpi_transpose_f32(comm, session.queue(), buffer, kOffset, M, N, local.local_rows,
                                     local.local_row_start, flags);
    else if (form == Form::f64)
      status = options == nullptr
                   ? ipt_mpi_transpose_f64(comm, session.queue(), buffer, kOffset, M, N,
                                           local.local_rows, local.local_row_start, flags)
                   : ipt_mpi_transpose_f64_with_options(comm, session.queue(), buffer, kOffset, M,
                                                        N, local.local_rows, local.local_row_start,
                                                        flags, options);
    else
      status =
          ipt_mpi_transpose_with_options(comm, session.queue(), buffer, kOffset, M, N, e,
                                         local.local_rows, local.local_row_start, flags, options);
    tally.check(status == IPT_SUCCESS,
                what + ": status " + std::to_string(status) + " " + ipt_mpi_last_error_message());
    std::vector<unsigned char> after(bytes);
    clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, after.data(), 0, nullptr,
                        nullptr);
    clReleaseMemObject(buffer);
    tally.check(std::memcmp(after.data(), before.data(), kOffset * e) == 0,
                what + ": a byte before the matrix changed");
    tally.check(
        std::memcmp(after.data() + bytes - kGuard, before.data() + bytes - kGuard, kGuard) == 0,
        what + ": a byte past the allocation changed");
    tally.check(ipt::test::mpi::holds_transpose(after, M, N, e, out, local),
                what + ": the transpose");
  }

  // ipt_mpi_plan: the plan a call would run, the scheme asked for when one is, and the
  // same plan on every rank but for the rank's own blocks.
  // Ranks that hold nothing (a 2 x 3 matrix: at most 3 active ranks) pass no queue and no
  // buffer; the others transpose as usual.
  void empty_ranks_without_handles() {
    const std::size_t M = 2, N = 3, e = 4;
    ipt_mpi_local local{};
    ipt_mpi_local_size(comm, M, N, &local);
    if (local.alloc_elements > 0) {
      transpose(M, N, e, 0);  // the collective call, with a buffer
      return;
    }
    const ipt_status status = ipt_mpi_transpose(comm, nullptr, nullptr, 0, M, N, e,
                                                local.local_rows, local.local_row_start, 0);
    tally.check(status == IPT_SUCCESS,
                "no queue and no buffer on a rank that holds nothing: status " +
                    std::to_string(status) + " " + ipt_mpi_last_error_message());
  }

  // A message of the caller's in flight on the same communicator, with the tag the library
  // would use, while the call runs: the call's messages must not match it.
  void callers_message_in_flight() {
    if (ranks < 2) return;
    int payload[4] = {-1, -2, -3, -4}, got[4] = {0, 0, 0, 0};
    MPI_Request request = MPI_REQUEST_NULL;
    if (rank == 1) MPI_Isend(payload, 4, MPI_INT, 0, 0, comm, &request);
    transpose(97, 89, 4, 0);
    if (rank == 0) MPI_Recv(got, 4, MPI_INT, 1, 0, comm, MPI_STATUS_IGNORE);
    if (rank == 1) MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (rank == 0)
      tally.check(std::memcmp(got, payload, sizeof got) == 0,
                  "the caller's message arrived intact after the call");
  }

  void plans() {
    for (const ipt_mpi_scheme scheme :
         {IPT_MPI_SCHEME_AUTO, IPT_MPI_SCHEME_PAIRWISE, IPT_MPI_SCHEME_ALLTOALL}) {
      const ipt_mpi_options options{0, 0, scheme, 8192};
      ipt_mpi_plan_info info{};
      const std::string what = "plan, scheme " + std::to_string(scheme);
      tally.check(ipt_mpi_plan(comm, 1000, 999, 4, 0, &options, &info) == IPT_SUCCESS,
                  what + ": status");
      tally.check(info.scheme != IPT_MPI_SCHEME_AUTO &&
                      (scheme == IPT_MPI_SCHEME_AUTO || info.scheme == scheme),
                  what + ": the scheme");
      tally.check(info.ranks == static_cast<std::size_t>(ranks) &&
                      info.active_ranks == static_cast<std::size_t>(ranks) &&
                      info.block_rows == (1000 + info.ranks - 1) / info.ranks &&
                      info.chunk_bytes == info.block_rows * info.block_cols * 4,
                  what + ": blocks");
      tally.check(
          info.staging_bytes <= 8192 && info.exchange_bytes == (info.ranks - 1) * info.chunk_bytes,
          what + ": staging and volume");
      tally.check(std::strlen(info.description) > 0, what + ": description");
      unsigned long long mine[2] = {info.scheme, info.rounds}, low[2], high[2];
      MPI_Allreduce(mine, low, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
      MPI_Allreduce(mine, high, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
      tally.check(low[0] == high[0] && low[1] == high[1],
                  what + ": every rank plans the same exchange");
    }
    ipt_mpi_plan_info info{};
    tally.check(ipt_mpi_plan(comm, 10, 10, 3, 0, nullptr, &info) == IPT_INVALID_ELEMENT_SIZE,
                "plan of 3-byte elements");
    tally.check(ipt_mpi_plan(comm, 10, 10, 4, 0, nullptr, nullptr) == IPT_INVALID_VALUE,
                "plan without info");
  }

  void bad_input() {
    const std::size_t M = 37, N = 23, e = 4;
    ipt_mpi_local local{};
    ipt_mpi_local_size(comm, M, N, &local);
    const std::size_t bytes = (kOffset + local.alloc_elements) * e + kGuard;
    const std::vector<unsigned char> before = fill(N, e, false, local, bytes);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes, const_cast<unsigned char*>(before.data()), &code);
    const auto unchanged = [&] {
      std::vector<unsigned char> now(bytes);
      clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, now.data(), 0, nullptr,
                          nullptr);
      return now == before;
    };
    // Rank 0 alone names other sizes; rank 0 alone claims a block that is not its share;
    // an element size and flags no rank may pass; a buffer too small.
    const std::size_t rows0 = rank == 0 ? M + 1 : M;
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, rows0, N, e,
                                  local.local_rows, local.local_row_start, 0) == IPT_INVALID_VALUE,
                "sizes that differ between ranks");
    const std::size_t block0 = rank == 0 ? local.local_rows + 1 : local.local_rows;
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, e, block0,
                                  local.local_row_start, 0) == IPT_INVALID_VALUE,
                "a block that is not the rank's share");
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, 3, local.local_rows,
                                  local.local_row_start, 0) == IPT_INVALID_ELEMENT_SIZE,
                "an element size of 3");
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, e, local.local_rows,
                                  local.local_row_start, 8) == IPT_INVALID_VALUE,
                "unknown flags");
    tally.check(ipt_mpi_transpose(comm, session.queue(), buffer, bytes, M, N, e, local.local_rows,
                                  local.local_row_start, 0) == IPT_BUFFER_TOO_SMALL,
                "an offset past the buffer");
    // Options that differ between ranks; blocks that leave rows to no rank.
    const ipt_mpi_options mine{0, 0, rank == 0 ? IPT_MPI_SCHEME_PAIRWISE : IPT_MPI_SCHEME_AUTO, 0};
    tally.check(ipt_mpi_transpose_with_options(comm, session.queue(), buffer, kOffset, M, N, e,
                                               local.local_rows, local.local_row_start, 0, &mine) ==
                    (ranks > 1 ? IPT_INVALID_VALUE : IPT_SUCCESS),
                "options that differ between ranks");
    if (ranks == 1) {  // it ran: undo it, for the checks below
      ipt_mpi_local back{};
      ipt_mpi_local_size(comm, N, M, &back);
      ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, N, M, e, back.local_rows,
                        back.local_row_start, 0);
    }
    const ipt_mpi_options short_blocks{M / static_cast<std::size_t>(ranks + 1) + 0, 0,
                                       IPT_MPI_SCHEME_AUTO, 0};
    ipt_mpi_local none{};
    tally.check(
        ipt_mpi_local_size_with_options(comm, M, N, &short_blocks, &none) == IPT_INVALID_VALUE,
        "local size: blocks that leave rows to no rank");
    tally.check(ipt_mpi_transpose_with_options(comm, session.queue(), buffer, kOffset, M, N, e,
                                               local.local_rows, local.local_row_start, 0,
                                               &short_blocks) == IPT_INVALID_VALUE,
                "blocks that leave rows to no rank");
    tally.check(std::strstr(ipt_mpi_last_error_message(), "to no rank") != nullptr,
                "the message says why");
    tally.check(unchanged(), "bad input left the buffer as it was");
    // The last rank's buffer forbids what the call does to it: kernels' reads or writes, or
    // (where ranks exchange) the host's transfers.
    std::vector<std::pair<cl_mem_flags, const char*>> forbidding{
        {CL_MEM_READ_ONLY, "CL_MEM_READ_ONLY"}, {CL_MEM_WRITE_ONLY, "CL_MEM_WRITE_ONLY"}};
    if (ranks > 1)
      forbidding.insert(forbidding.end(), {{CL_MEM_HOST_NO_ACCESS, "CL_MEM_HOST_NO_ACCESS"},
                                           {CL_MEM_HOST_READ_ONLY, "CL_MEM_HOST_READ_ONLY"},
                                           {CL_MEM_HOST_WRITE_ONLY, "CL_MEM_HOST_WRITE_ONLY"}});
    for (const auto& [flags, name] : forbidding) {
      const cl_mem_flags device_access =
          (flags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)) != 0 ? flags : flags | CL_MEM_READ_WRITE;
      cl_mem restricted =
          rank == ranks - 1
              ? clCreateBuffer(session.context(), device_access | CL_MEM_COPY_HOST_PTR, bytes,
                               const_cast<unsigned char*>(before.data()), &code)
              : buffer;
      tally.check(
          ipt_mpi_transpose(comm, session.queue(), restricted, kOffset, M, N, e, local.local_rows,
                            local.local_row_start, 0) == IPT_INVALID_MEM_OBJECT,
          std::string("a buffer created ") + name + " on the last rank");
      tally.check(std::strstr(ipt_mpi_last_error_message(), "CL_MEM_") != nullptr,
                  std::string("the message names the flag: ") + ipt_mpi_last_error_message());
      // Read through a copy: the host may not read the restricted buffer itself.
      cl_mem copy = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
      clEnqueueCopyBuffer(session.queue(), restricted, copy, 0, 0, bytes, 0, nullptr, nullptr);
      std::vector<unsigned char> now(bytes);
      clEnqueueReadBuffer(session.queue(), copy, CL_TRUE, 0, bytes, now.data(), 0, nullptr,
                          nullptr);
      clReleaseMemObject(copy);
      tally.check(now == before, std::string("a refused ") + name + " buffer is unchanged");
      if (restricted != buffer) clReleaseMemObject(restricted);
    }
    // A local step that fails on the last rank only (a malformed IPT_OVERRIDES makes its
    // libipt calls refuse): every rank returns that status, and the ranks whose steps ran
    // undo them.
    if (rank == ranks - 1) setenv("IPT_OVERRIDES", "no_such_key=1", 1);
    const ipt_status failed = ipt_mpi_transpose(comm, session.queue(), buffer, kOffset, M, N, e,
                                                local.local_rows, local.local_row_start, 0);
    if (rank == ranks - 1) unsetenv("IPT_OVERRIDES");
    tally.check(failed == IPT_INVALID_VALUE,
                "a local step failing on one rank: status " + std::to_string(failed));
    tally.check(std::strstr(ipt_mpi_last_error_message(),
                            ("rank " + std::to_string(ranks - 1)).c_str()) != nullptr,
                "the message names the failing rank");
    // The matrix and every byte outside the rank's allocation as they were; the rest of
    // the allocation is the call's workspace.
    std::vector<unsigned char> now(bytes);
    clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, now.data(), 0, nullptr,
                        nullptr);
    const std::size_t matrix_end = (kOffset + local.local_rows * N) * e;
    const std::size_t alloc_end = (kOffset + local.alloc_elements) * e;
    tally.check(
        std::memcmp(now.data(), before.data(), matrix_end) == 0 &&
            std::memcmp(now.data() + alloc_end, before.data() + alloc_end, bytes - alloc_end) == 0,
        "a failed local step left every rank's matrix as it was");
    clReleaseMemObject(buffer);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return ipt::test::mpi::on_world(
      argc, argv, "mpi", [](int rank, int ranks, ipt::support::Session& session, Tally& tally) {
        Run run{MPI_COMM_WORLD, rank, ranks, session, tally};
        // Primes, skinny both ways round, fewer rows than ranks, uneven blocks, a square.
        const std::size_t shapes[][2] = {{97, 89}, {3, 211}, {211, 3}, {2, 5},
                                         {64, 48}, {45, 45}, {1, 7}};
        for (const auto& shape : shapes)
          for (const std::size_t e : {1, 2, 4, 8, 16})
            for (unsigned flags = 0; flags < 4; ++flags) {
              if (e != 4 && flags != 0 && shape[0] != 97) continue;  // flags: every size on one
              run.transpose(shape[0], shape[1], e, flags);
            }
        // Each scheme, with a staging budget that cuts chunks into many pieces.
        for (const ipt_mpi_scheme scheme : {IPT_MPI_SCHEME_PAIRWISE, IPT_MPI_SCHEME_ALLTOALL})
          for (const std::size_t staging : {std::size_t{0}, std::size_t{4096}}) {
            const ipt_mpi_options options{0, 0, scheme, staging};
            run.transpose(300, 257, 8, 0, &options);
            run.transpose(101, 3, 2, IPT_MPI_TRANSPOSED_OUT, &options);
            run.transpose(5, 1009, 1, IPT_MPI_TRANSPOSED_IN, &options);
          }
        // The process default budget, as small as it goes.
        const std::size_t previous = ipt_mpi_set_staging_bytes(4096);
        run.transpose(300, 257, 8, 0);
        ipt_mpi_set_staging_bytes(previous);
        // Caller-given blocks: larger than the default (the last ranks hold nothing before, or
        // after, or both), and of one row.
        const std::size_t P = static_cast<std::size_t>(ranks);
        const std::size_t given[][4] = {{61, 43, (61 + P - 1) / P + 1, 0},
                                        {61, 43, 0, 43},
                                        {61, 43, 61, 1 + 43 / P},
                                        {17, 29, 17, 29},
                                        {7, 5, (7 + P - 1) / P, 5}};
        for (const auto& g : given)
          for (const ipt_mpi_scheme scheme : {IPT_MPI_SCHEME_PAIRWISE, IPT_MPI_SCHEME_ALLTOALL})
            for (unsigned flags = 0; flags < 4; ++flags) {
              const ipt_mpi_options options{g[2], g[3], scheme, 4096};
              run.transpose(g[0], g[1], 4, flags, &options);
            }
        // The typed forms.
        run.transpose(97, 89, 4, 0, nullptr, Run::Form::f32);
        run.transpose(89, 97, 8, IPT_MPI_TRANSPOSED_IN, nullptr, Run::Form::f64);
        const ipt_mpi_options f64_options{0, 0, IPT_MPI_SCHEME_ALLTOALL, 4096};
        run.transpose(61, 43, 8, IPT_MPI_TRANSPOSED_OUT, &f64_options, Run::Form::f64);
        run.plans();
        run.empty_ranks_without_handles();
        run.callers_message_in_flight();
        run.bad_input();
        // Each communicator has the library's own beside it: ranks in reverse order on a split
        // of the world, calls on it (the later ones reusing what the first made) around a
        // caller's message in flight, then freed (the library's duplicate with it), twice.
        for (int round = 0; round < 2; ++round) {
          MPI_Comm reversed = MPI_COMM_NULL;
          MPI_Comm_split(MPI_COMM_WORLD, 0, ranks - 1 - rank, &reversed);
          int reversed_rank = 0;
          MPI_Comm_rank(reversed, &reversed_rank);
          Run other{reversed, reversed_rank, ranks, session, tally};
          other.transpose(97, 89, 4, 0);
          other.callers_message_in_flight();
          other.transpose(45, 45, 8, IPT_MPI_TRANSPOSED_IN);
          MPI_Comm_free(&reversed);
        }
        run.transpose(64, 48, 2, 0);  // the world's own still there
      });
}
