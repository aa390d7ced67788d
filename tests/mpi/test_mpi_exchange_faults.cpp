// SPDX-License-Identifier: Apache-2.0
// The exchange's device transfers failing on one rank, under mpirun -np 2 and 3: built
// from libipt_mpi's objects with the strong transfer seam below (mpi/transfer_seam.hpp).
// For each scheme, each way (the reads into the host staging, the writes back) and each
// rank in turn failing its first, a middle or its last transfer of that way, every rank
// returns IPT_BUFFER_UNDEFINED with the failing rank's message, no rank waits forever
// (ctest's timeout), and the bytes around every rank's allocation are unchanged; each
// case's calls without a failure, before and after it, transpose exactly. Prints
// "mpi (R ranks): N passed, N failed" on rank 0.
#include <mpi.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "mpi_test_data.hpp"
#include "transfer_seam.hpp"

namespace {

using ipt::test::mpi::kGuard;
using ipt::test::mpi::kOffset;
using ipt::test::mpi::Tally;

// The transfer this rank refuses: the at-th of the way asked for (0 the first), counted
// from when it was set; none while `at` is negative.
struct Refusal {
  long at = -1;
  bool reading = true;
  long seen = 0;
};
Refusal refusal;

}  // namespace

namespace ipt::mpi::seam {

cl_int refused_transfer(bool reading) {
  if (refusal.at < 0 || reading != refusal.reading) return CL_SUCCESS;
  return refusal.seen++ == refusal.at ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

}  // namespace ipt::mpi::seam

namespace {

constexpr std::size_t M = 97, N = 89, e = 4;

struct Run {
  int rank, ranks;
  ipt::support::Session& session;
  Tally& tally;

  // One call on a fresh buffer; checks the bytes around the allocation, and the
  // transpose where the call is to succeed. Returns its status.
  ipt_status call(const ipt_mpi_options& options, const std::string& what, bool to_succeed) {
    ipt_mpi_local local{};
    ipt_mpi_local_size_with_options(MPI_COMM_WORLD, M, N, &options, &local);
    const std::size_t end = (kOffset + local.alloc_elements) * e, bytes = end + kGuard;
    const std::vector<unsigned char> before =
        ipt::test::mpi::filled_buffer(rank, N, e, false, local, bytes);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes, const_cast<unsigned char*>(before.data()), &code);
    tally.check(code == CL_SUCCESS, what + ": clCreateBuffer");
    const ipt_status status =
        ipt_mpi_transpose_with_options(MPI_COMM_WORLD, session.queue(), buffer, kOffset, M, N, e,
                                       local.local_rows, local.local_row_start, 0, &options);
    std::vector<unsigned char> after(bytes);
    clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, after.data(), 0, nullptr,
                        nullptr);
    clReleaseMemObject(buffer);
    tally.check(std::memcmp(after.data(), before.data(), kOffset * e) == 0 &&
                    std::memcmp(after.data() + end, before.data() + end, kGuard) == 0,
                what + ": a byte outside the allocation changed");
    if (to_succeed) {
      tally.check(status == IPT_SUCCESS,
                  what + ": status " + std::to_string(status) + " " + ipt_mpi_last_error_message());
      tally.check(ipt::test::mpi::holds_transpose(after, M, N, e, false, local),
                  what + ": the transpose");
    }
    return status;
  }

  void case_of(ipt_mpi_scheme scheme, bool reading, int failing, int position) {
    const ipt_mpi_options options{0, 0, scheme, 4096};  // many pieces: many transfers
    std::string what = std::string(scheme == IPT_MPI_SCHEME_PAIRWISE ? "pairwise" : "alltoall") +
                       ", " + (reading ? "a read" : "a write") + " of rank " +
                       std::to_string(failing) + ", position " + std::to_string(position) + ", " +
                       std::to_string(ranks) + " ranks";
    // A call that fails nothing counts the failing rank's transfers of the way.
    refusal = Refusal{LONG_MAX, reading, 0};
    call(options, what + ", counting", true);
    long count = refusal.seen;
    MPI_Bcast(&count, 1, MPI_LONG, failing, MPI_COMM_WORLD);
    tally.check(count > 0, what + ": the failing rank has transfers of that way");
    if (count == 0) return;
    const long at = position == 0 ? 0 : position == 1 ? count / 2 : count - 1;
    refusal = Refusal{rank == failing ? at : -1, reading, 0};
    const ipt_status status = call(options, what, false);
    const bool refused = refusal.seen > at;
    refusal = Refusal{};
    tally.check(rank != failing || refused, what + ": the transfer was refused");
    tally.check(status == IPT_BUFFER_UNDEFINED,
                what + ": status " + std::to_string(status) + ", not IPT_BUFFER_UNDEFINED");
    const std::string message = ipt_mpi_last_error_message();
    tally.check(message.find("rank " + std::to_string(failing)) != std::string::npos &&
                    message.find("device transfer") != std::string::npos,
                what + ": the message names the rank and the transfer: " + message);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return ipt::test::mpi::on_world(
      argc, argv, "mpi", [](int rank, int ranks, ipt::support::Session& session, Tally& tally) {
        Run run{rank, ranks, session, tally};
        for (const ipt_mpi_scheme scheme : {IPT_MPI_SCHEME_PAIRWISE, IPT_MPI_SCHEME_ALLTOALL})
          for (const bool reading : {true, false})
            for (int failing = 0; failing < ranks; ++failing)
              for (int position = 0; position < 3; ++position)
                run.case_of(scheme, reading, failing, position);
        const ipt_mpi_options options{0, 0, IPT_MPI_SCHEME_PAIRWISE, 0};
        run.call(options, "after every failure", true);
      });
}
