// SPDX-License-Identifier: Apache-2.0
// The C++ layer of libipt_mpi (ipt/ipt_mpi.hpp) under mpirun: ipt::mpi::transpose<T> of
// float, double and a 2-byte type, and the raw elem_size form, checked against a host
// transpose of the same random matrix on every rank, with the buffer's bytes before the
// matrix and past its allocation unchanged; the TRANSPOSED flags; caller-given blocks and
// schemes through ipt_mpi_options, with blocks that leave some ranks nothing; plan; and
// bad input, which throws ipt::mpi::error with the same status on every rank and leaves
// every buffer as it was. Prints "mpi c++ (P ranks): N passed, N failed" on rank 0.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ipt/ipt_mpi.hpp>
#include <random>
#include <string>
#include <vector>

#include "mpi_test_data.hpp"
#include "support/device_select.hpp"

namespace {

constexpr std::size_t kOffset = 5;  // elements before the matrix in its buffer
constexpr std::size_t kGuard = 48;  // bytes checked past the allocation

using ipt::test::mpi::Tally;

// The same status on every rank of comm.
bool same_on_every_rank(MPI_Comm comm, int status) {
  int low = 0, high = 0;
  MPI_Allreduce(&status, &low, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&status, &high, 1, MPI_INT, MPI_MAX, comm);
  return low == high;
}

struct Run {
  MPI_Comm comm;
  int rank, ranks;
  cl::Context context;
  cl::CommandQueue queue;
  Tally& tally;
  unsigned seed = 1;

  // The global rows x cols matrix, the same on every rank: each call draws a new one.
  std::vector<unsigned char> matrix(std::size_t rows, std::size_t cols, std::size_t e) {
    std::mt19937_64 random(seed++);
    std::vector<unsigned char> m(rows * cols * e);
    for (auto& byte : m) byte = static_cast<unsigned char>(random());
    return m;
  }

  // The rank's buffer: random bytes, its input block written at kOffset.
  std::vector<unsigned char> buffer_bytes(const std::vector<unsigned char>& global,
                                          std::size_t cols, std::size_t e, bool in,
                                          const ipt_mpi_local& local) {
    std::mt19937_64 random(1000u * seed + static_cast<unsigned>(rank));
    std::vector<unsigned char> host((kOffset + local.alloc_elements) * e + kGuard);
    for (auto& byte : host) byte = static_cast<unsigned char>(random());
    unsigned char* const block = host.data() + kOffset * e;
    for (std::size_t i = 0; i < local.local_rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const std::size_t at = in ? j * local.local_rows + i : i * cols + j;
        std::memcpy(block + at * e, &global[((local.local_row_start + i) * cols + j) * e], e);
      }
    return host;
  }

  cl::Buffer device_buffer(std::vector<unsigned char>& host) {
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size(), host.data());
  }

  std::vector<unsigned char> read(const cl::Buffer& buffer, std::size_t bytes) {
    std::vector<unsigned char> host(bytes);
    queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, host.data());
    return host;
  }

  // One distributed transposition of elements of T (elem_size 0) or of raw elem_size-byte
  // elements, checked against the host transpose of the global matrix.
  template <typename T>
  void transpose(const std::string& name, std::size_t rows, std::size_t cols, unsigned flags,
                 const ipt_mpi_options& options = {}, std::size_t elem_size = 0) {
    const std::size_t e = elem_size != 0 ? elem_size : sizeof(T);
    const std::string what =
        name + " " + std::to_string(rows) + " x " + std::to_string(cols) + ", flags " +
        std::to_string(flags) + ", blocks " + std::to_string(options.block_rows) + "/" +
        std::to_string(options.block_cols) + ", scheme " + std::to_string(options.scheme) + ", " +
        std::to_string(ranks) + " ranks";
    const bool in = (flags & IPT_MPI_TRANSPOSED_IN) != 0;
    const bool out = (flags & IPT_MPI_TRANSPOSED_OUT) != 0;
    const ipt_mpi_local local = ipt::mpi::local_size(comm, rows, cols, options);
    const std::vector<unsigned char> global = matrix(rows, cols, e);
    std::vector<unsigned char> before = buffer_bytes(global, cols, e, in, local);
    const cl::Buffer buffer = device_buffer(before);
    int status = IPT_SUCCESS;
    try {
      if (elem_size != 0)
        ipt::mpi::transpose(comm, queue, buffer, rows, cols, elem_size, local, flags, options,
                            kOffset);
      else
        ipt::mpi::transpose<T>(comm, queue, buffer, rows, cols, local, flags, options, kOffset);
    } catch (const ipt::mpi::error& error) {
      status = error.status();
      tally.check(false, what + ": " + error.what());
    }
    tally.check(same_on_every_rank(comm, status), what + ": the same outcome on every rank");
    if (status != IPT_SUCCESS) return;
    const std::vector<unsigned char> after = read(buffer, before.size());
    tally.check(std::memcmp(after.data(), before.data(), kOffset * e) == 0,
                what + ": a byte before the matrix changed");
    tally.check(std::memcmp(after.data() + after.size() - kGuard,
                            before.data() + before.size() - kGuard, kGuard) == 0,
                what + ": a byte past the allocation changed");
    // Rows [col_start, col_start + local_cols) of the transpose: its (j, i) is the
    // matrix's (i, col_start + j).
    bool right = true;
    const unsigned char* block = after.data() + kOffset * e;
    for (std::size_t j = 0; j < local.local_cols && right; ++j)
      for (std::size_t i = 0; i < rows && right; ++i) {
        const std::size_t at = out ? i * local.local_cols + j : j * rows + i;
        right = std::memcmp(block + at * e, &global[(i * cols + local.local_col_start + j) * e],
                            e) == 0;
      }
    tally.check(right, what + ": the transpose");
  }

  // A call that must throw `want` on every rank and leave the buffer unchanged.
  template <typename Call>
  void rejects(const std::string& what, ipt_status want, const cl::Buffer& buffer,
               const std::vector<unsigned char>& before, Call call) {
    int status = IPT_SUCCESS;
    std::string message;
    try {
      call();
    } catch (const ipt::error& error) {  // ipt::mpi::error is one
      status = error.status();
      message = error.what();
      tally.check(dynamic_cast<const ipt::mpi::error*>(&error) != nullptr,
                  what + ": an ipt::mpi::error");
    }
    tally.check(status == want, what + ": status " + std::to_string(status) + ", want " +
                                    std::to_string(want) + " (" + message + ")");
    tally.check(same_on_every_rank(comm, status), what + ": the same status on every rank");
    // The message is libipt_mpi's, naming the rank that found the problem.
    tally.check(message.rfind(ipt_status_string(want), 0) == 0 &&
                    message.find("rank ") != std::string::npos,
                what + ": message \"" + message + "\"");
    tally.check(read(buffer, before.size()) == before, what + ": the buffer is unchanged");
  }

  void bad_input() {
    const std::size_t rows = 37, cols = 23;
    const ipt_mpi_local local = ipt::mpi::local_size(comm, rows, cols);
    std::vector<unsigned char> before = buffer_bytes(matrix(rows, cols, 4), cols, 4, false, local);
    const cl::Buffer buffer = device_buffer(before);
    rejects("sizes that differ between ranks", IPT_INVALID_VALUE, buffer, before, [&] {
      ipt::mpi::transpose<float>(comm, queue, buffer, rank == 0 ? rows + 1 : rows, cols, local, 0,
                                 {}, kOffset);
    });
    rejects("an element size of 3", IPT_INVALID_ELEMENT_SIZE, buffer, before, [&] {
      ipt::mpi::transpose(comm, queue, buffer, rows, cols, 3, local, 0, {}, kOffset);
    });
    rejects("unknown flags", IPT_INVALID_VALUE, buffer, before, [&] {
      ipt::mpi::transpose<float>(comm, queue, buffer, rows, cols, local, 4, {}, kOffset);
    });
    rejects("an offset past the buffer on the last rank", IPT_BUFFER_TOO_SMALL, buffer, before,
            [&] {
              ipt::mpi::transpose<float>(comm, queue, buffer, rows, cols, local, 0, {},
                                         rank == ranks - 1 ? before.size() : kOffset);
            });
    ipt_mpi_options rank0_blocks{};
    if (rank == 0) rank0_blocks.block_rows = rows;
    rejects("options that differ between ranks", IPT_INVALID_VALUE, buffer, before, [&] {
      ipt::mpi::transpose<float>(comm, queue, buffer, rows, cols, local, 0, rank0_blocks, kOffset);
    });
    ipt_mpi_options all_rows{};
    all_rows.block_rows = rows;  // rank 0 holds every row: `local` is not the shares
    rejects("a block that is not the rank's share", IPT_INVALID_VALUE, buffer, before, [&] {
      ipt::mpi::transpose<float>(comm, queue, buffer, rows, cols, local, 0, all_rows, kOffset);
    });
    ipt_mpi_options bad_scheme{};
    bad_scheme.scheme = static_cast<ipt_mpi_scheme>(3);
    rejects("an unknown scheme", IPT_INVALID_VALUE, buffer, before, [&] {
      ipt::mpi::transpose<float>(comm, queue, buffer, rows, cols, local, 0, bad_scheme, kOffset);
    });

    // Not collective: blocks too small to cover the matrix throw on the rank that asks.
    ipt_mpi_options small{};
    small.block_rows = 1;
    int status = IPT_SUCCESS;
    try {
      ipt::mpi::local_size(comm, rows, cols, small);
    } catch (const ipt::mpi::error& error) {
      status = error.status();
    }
    tally.check(status == IPT_INVALID_VALUE, "local_size with blocks that do not cover");
    status = IPT_SUCCESS;
    try {
      ipt::mpi::plan(comm, rows, cols, 3);
    } catch (const ipt::mpi::error& error) {
      status = error.status();
    }
    tally.check(status == IPT_INVALID_ELEMENT_SIZE, "plan of 3-byte elements");
  }

  void plans() {
    ipt_mpi_options options{};
    options.scheme = IPT_MPI_SCHEME_ALLTOALL;
    const ipt_mpi_plan_info info = ipt::mpi::plan<double>(comm, 300, 200, 0, options);
    tally.check(info.ranks == static_cast<std::size_t>(ranks), "plan: ranks");
    tally.check(info.scheme == IPT_MPI_SCHEME_ALLTOALL, "plan: the scheme asked for");
    tally.check(info.block_rows == (300 + info.ranks - 1) / info.ranks, "plan: block_rows");
    tally.check(std::strlen(info.description) > 0, "plan: a description");
    const ipt_mpi_plan_info raw = ipt::mpi::plan(comm, 300, 200, 2);
    tally.check(raw.scheme != IPT_MPI_SCHEME_AUTO && raw.exchange_bytes > 0,
                "plan of 2-byte elements");
  }
};

bool device_has_doubles(const cl::CommandQueue& queue) {
  return queue.getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ipt::test::mpi::on_world(
      argc, argv, "mpi c++", [](int rank, int ranks, ipt::support::Session& session, Tally& tally) {
        Run run{MPI_COMM_WORLD,
                rank,
                ranks,
                cl::Context(session.context(), true),
                cl::CommandQueue(session.queue(), true),
                tally};
        for (unsigned flags = 0; flags < 4; ++flags) run.transpose<float>("float", 37, 23, flags);
        run.transpose<float>("float", 5, 131, 0);
        run.transpose<std::int16_t>("int16", 29, 64, 0);
        run.transpose<std::int16_t>("int16", 29, 64, IPT_MPI_TRANSPOSED_OUT);

        // double with the default options goes through ipt_mpi_transpose_f64: every rank
        // refuses when one rank's device has no doubles.
        int doubles = device_has_doubles(run.queue) ? 1 : 0, all_doubles = 0;
        MPI_Allreduce(&doubles, &all_doubles, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all_doubles) {
          run.transpose<double>("double", 41, 17, 0);
          run.transpose<double>("double", 41, 17, IPT_MPI_TRANSPOSED_IN);
        } else {
          const ipt_mpi_local local = ipt::mpi::local_size(MPI_COMM_WORLD, 41, 17);
          std::vector<unsigned char> bytes((kOffset + local.alloc_elements) * 8 + kGuard, 7);
          const cl::Buffer buffer = run.device_buffer(bytes);
          run.rejects("double without double support", IPT_FP64_NOT_SUPPORTED, buffer, bytes, [&] {
            ipt::mpi::transpose<double>(MPI_COMM_WORLD, run.queue, buffer, 41, 17, local, 0, {},
                                        kOffset);
          });
        }

        // Caller-given blocks: one rank holds every row (the others nothing before), then
        // blocks larger than the default, which leave the last ranks nothing with 3 ranks.
        ipt_mpi_options options{};
        options.block_rows = 37;
        options.block_cols = 12;
        run.transpose<float>("float", 37, 23, 0, options);
        run.transpose<double>("double, options", 37, 23, IPT_MPI_TRANSPOSED_OUT, options);
        options.block_rows = 20;
        options.block_cols = 16;
        run.transpose<float>("float", 37, 23, IPT_MPI_TRANSPOSED_IN, options);
        // Each scheme, and a small staging budget (each chunk in several pieces).
        options = {};
        options.scheme = IPT_MPI_SCHEME_PAIRWISE;
        options.staging_bytes = 4096;
        run.transpose<float>("float", 97, 61, 0, options);
        options.scheme = IPT_MPI_SCHEME_ALLTOALL;
        run.transpose<float>("float", 97, 61, 0, options);
        // The raw form, 16-byte elements.
        run.transpose<char>("raw", 13, 19, 0, {}, 16);

        run.plans();
        run.bad_input();
      });
}
