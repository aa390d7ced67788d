// SPDX-License-Identifier: Apache-2.0
#include "mpi_mode.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "mpi_block_pattern.hpp"
#include "mpi_host_buffer.hpp"
#include "mpi_options.hpp"
#include "mpi_report.hpp"
#include "support/cli_values.hpp"
#include "support/device_select.hpp"
#include "support/measure.hpp"
#include "support/rank_device.hpp"

namespace ipt::bench {
namespace {

// A failed libipt_mpi call: its status in words and ipt_mpi_last_error_message(), which
// says which rank found what.
std::string mpi_failure_text(ipt_status status) {
  std::string text = ipt_status_string(status);
  const char* message = ipt_mpi_last_error_message();
  if (message != nullptr && *message != '\0') text += std::string("; ") + message;
  return text;
}

class MpiBench {
 public:
  MpiBench(const Options& options, const support::Session& session, int rank, int ranks,
           int node_leader, int local_rank, std::size_t index, std::size_t devices,
           std::size_t sharing)
      : options_(options),
        session_(session),
        pattern_(session),
        rank_(rank),
        ranks_(ranks),
        e_(options.elem_size),
        report_(options, ranks) {
    std::memset(&info_, 0, sizeof info_);
    int length = 0;
    MPI_Get_processor_name(info_.host, &length);
    std::snprintf(info_.device, sizeof info_.device, "%s", session.description().c_str());
    char driver[64] = {};
    clGetDeviceInfo(session.device(), CL_DRIVER_VERSION, sizeof driver - 1, driver, nullptr);
    std::snprintf(info_.driver, sizeof info_.driver, "%s", driver);
    info_.node_leader = node_leader;
    info_.local_rank = local_rank;
    info_.index = index;
    info_.devices = devices;
    info_.sharing = sharing;
    cl_ulong memory = 0, max_alloc = 0;
    clGetDeviceInfo(session.device(), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, nullptr);
    clGetDeviceInfo(session.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                    nullptr);
    info_.global_mem = memory;
    info_.max_alloc = max_alloc;
  }

  int run() {
    std::vector<std::pair<Shape, std::string>> shapes;
    for (auto [rows, cols] : options_.shapes)
      shapes.push_back({{options_.weak ? rows * static_cast<std::size_t>(ranks_) : rows, cols},
                        options_.weak ? "weak" : "shapes"});
    std::vector<std::string> fill_notes;
    for (double f : options_.fills) {
      char origin[32];
      std::snprintf(origin, sizeof origin, "fill=%g", f);
      const std::size_t n = fill_side(f, fill_notes);
      if (n > 0) shapes.push_back({{n, n}, origin});
    }
    measure_copy(shapes);
    std::vector<RankInfo> all(rank_ == 0 ? ranks_ : 0);
    MPI_Gather(&info_, sizeof info_, MPI_BYTE, all.data(), sizeof info_, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank_ == 0) report_.header(all, fill_notes, copy_bytes_);
    int failed = 0;
    for (std::size_t s = 0; s < shapes.size(); ++s)
      for (ipt_mpi_scheme scheme : options_.schemes) {
        Row row = measure(shapes[s].first.first, shapes[s].first.second, scheme, 2015 + s,
                          shapes[s].second);
        if (!row.ok) ++failed;
        if (rank_ == 0) report_.record(row);
      }
    if (rank_ == 0) {
      report_.finish(all);
      std::printf("\n%s\n", failed == 0 ? "all results verified"
                                        : (std::to_string(failed) + " runs FAILED").c_str());
    }
    return failed == 0 ? 0 : 1;
  }

 private:
  // ---- collectives
  static bool all_ok(bool mine) {
    int in = mine ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return out != 0;
  }
  static double max_of(double x) {
    double out = 0;
    MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
  }
  static double min_of(double x) {
    double out = 0;
    MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return out;
  }
  std::vector<std::size_t> gather_all(std::size_t x) const {
    const ull mine = x;
    std::vector<ull> all(static_cast<std::size_t>(ranks_));
    MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG,
                  MPI_COMM_WORLD);
    return {all.begin(), all.end()};
  }

  ipt_mpi_options mpi_options(ipt_mpi_scheme scheme) const {
    ipt_mpi_options o{};
    o.block_rows = options_.block_rows;
    o.block_cols = options_.block_cols;
    o.scheme = scheme;
    o.staging_bytes = options_.staging;
    return o;
  }

  // The side of the largest square whose buffer (alloc_elements) fits, on every rank, the
  // fraction f of its device's memory divided among the ranks on that device, and one
  // allocation of the device.
  std::size_t fill_side(double f, std::vector<std::string>& notes) {
    const double share =
        f * static_cast<double>(info_.global_mem) / static_cast<double>(info_.sharing);
    const bool capped = !options_.beyond_max_alloc && share > static_cast<double>(info_.max_alloc);
    const double budget = min_of(capped ? static_cast<double>(info_.max_alloc) : share);
    const ipt_mpi_options o = mpi_options(IPT_MPI_SCHEME_AUTO);
    auto fits = [&](std::size_t n) {
      ipt_mpi_local local{};
      const bool ok =
          ipt_mpi_local_size_with_options(MPI_COMM_WORLD, n, n, &o, &local) == IPT_SUCCESS &&
          static_cast<double>(local.alloc_elements) * static_cast<double>(e_) <= budget;
      return all_ok(ok);
    };
    std::size_t lo = 0;
    std::size_t hi = static_cast<std::size_t>(std::sqrt(budget / static_cast<double>(e_) *
                                                        static_cast<double>(ranks_))) +
                     static_cast<std::size_t>(ranks_) + 1;
    while (fits(hi)) lo = hi, hi *= 2;
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
    const bool any_capped = !all_ok(!capped);
    char note[320];
    if (lo == 0) {
      std::snprintf(note, sizeof note, "--fill %g: no square fits %.3g bytes per rank: skipped", f,
                    budget);
    } else {
      ipt_mpi_local local{};
      ipt_mpi_local_size_with_options(MPI_COMM_WORLD, lo, lo, &o, &local);
      const double used = static_cast<double>(local.alloc_elements * e_);
      const double memory = static_cast<double>(info_.global_mem);
      std::snprintf(note, sizeof note,
                    "--fill %g: %zu x %zu; rank 0's buffer %.3g GB, %.3f of its share of its "
                    "device (%.3g GB / %llu ranks), %.3f of the device%s",
                    f, lo, lo, used * 1e-9, used / (memory / static_cast<double>(info_.sharing)),
                    memory * 1e-9, info_.sharing, used / memory,
                    any_capped ? " (capped by one allocation, CL_DEVICE_MAX_MEM_ALLOC_SIZE)" : "");
    }
    notes.push_back(note);
    return lo;
  }

  // Each device's copy bandwidth, rank after rank so that ranks sharing a device do not
  // disturb each other, on the largest block of the run (1 MiB to 1 GiB, as the other
  // modes).
  void measure_copy(const std::vector<std::pair<Shape, std::string>>& shapes) {
    std::size_t largest = 0;
    for (const auto& [shape, origin] : shapes) {
      ipt_mpi_local local{};
      const ipt_mpi_options o = mpi_options(IPT_MPI_SCHEME_AUTO);
      if (ipt_mpi_local_size_with_options(MPI_COMM_WORLD, shape.first, shape.second, &o, &local) ==
          IPT_SUCCESS)
        largest = std::max(largest, local.local_rows * shape.second * e_);
    }
    copy_bytes_ = static_cast<std::size_t>(max_of(static_cast<double>(largest)));
    copy_bytes_ = support::copy_bytes_for(copy_bytes_);
    copy_bytes_ = std::min<std::size_t>(copy_bytes_, info_.max_alloc);
    for (int r = 0; r < ranks_; ++r) {
      if (r == rank_) info_.copy_gbs = support::measure_copy_bandwidth(session_, copy_bytes_).gbs;
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }

  // The MPI all-to-all of the bytes each rank exchanges in the call (`exchange`, by rank),
  // each in P - 1 equal parts, one to each other rank; in rounds past the buffers' size.
  // Cached: the schemes of one shape usually exchange the same bytes.
  void alltoall(const std::vector<std::size_t>& exchange, Row& row) {
    const std::size_t P = static_cast<std::size_t>(ranks_);
    if (P < 2) return;
    std::vector<std::size_t> parts(P);
    for (std::size_t q = 0; q < P; ++q) parts[q] = exchange[q] / (P - 1);
    const std::size_t most = *std::max_element(parts.begin(), parts.end());
    if (most == 0) return;
    std::size_t sum = 0, busiest = 0;
    for (std::size_t q = 0; q < P; ++q) {
      sum += parts[q] * (P - 1);
      busiest = std::max(busiest, parts[q] * (P - 1));
    }
    const auto cached = alltoall_cache_.find(exchange);
    double seconds = 0;
    bool pinned = false;
    if (cached != alltoall_cache_.end()) {
      std::tie(seconds, pinned) = cached->second;
    } else {
      const std::size_t chunk = std::min(most, kAlltoallBuffer / P);
      HostBuffer send(session_, chunk * P), receive(session_, chunk * P);
      pinned = all_ok(send.pinned() && receive.pinned());
      const std::size_t rounds = (most + chunk - 1) / chunk;
      std::vector<int> send_counts(P), receive_counts(P), displacements(P);
      for (std::size_t q = 0; q < P; ++q) displacements[q] = static_cast<int>(q * chunk);
      const auto piece = [&](std::size_t part, std::size_t round) {
        const std::size_t done = round * chunk;
        return static_cast<int>(part > done ? std::min(chunk, part - done) : 0);
      };
      const auto pass = [&] {
        for (std::size_t t = 0; t < rounds; ++t) {
          for (std::size_t q = 0; q < P; ++q) {
            const bool self = q == static_cast<std::size_t>(rank_);
            send_counts[q] = self ? 0 : piece(parts[static_cast<std::size_t>(rank_)], t);
            receive_counts[q] = self ? 0 : piece(parts[q], t);
          }
          MPI_Alltoallv(send.data(), send_counts.data(), displacements.data(), MPI_BYTE,
                        receive.data(), receive_counts.data(), displacements.data(), MPI_BYTE,
                        MPI_COMM_WORLD);
        }
      };
      pass();  // warm-up
      std::vector<double> times;
      for (int r = 0; r < options_.reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        pass();
        times.push_back(max_of(MPI_Wtime() - start));
      }
      seconds = support::stats_of(times).median;
      alltoall_cache_[exchange] = {seconds, pinned};
    }
    row.alltoall_s = seconds;
    row.alltoall_pinned = pinned;
    row.alltoall_rank_gbs = static_cast<double>(busiest) / seconds * 1e-9;
    row.alltoall_gbs = static_cast<double>(sum) / seconds * 1e-9;
  }

  // One failure, agreed: every rank returns the same row. `why` is printed by the ranks
  // that found it, once when all did.
  Row failed(Row row, const std::string& why, bool mine) {
    int found = mine ? 1 : 0, finders = 0;
    MPI_Allreduce(&found, &finders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mine && (finders < ranks_ || rank_ == 0)) {
      const std::string who = finders < ranks_ ? "rank " + std::to_string(rank_) : "every rank";
      std::fprintf(stderr, "ipt-bench mpi: %s: %zu x %zu, %s: FAILED: %s\n", who.c_str(), row.rows,
                   row.cols, row.scheme.c_str(), why.c_str());
    }
    row.ok = false;
    return row;
  }

  Row measure(std::size_t M, std::size_t N, ipt_mpi_scheme scheme, std::uint64_t seed,
              const std::string& origin) {
    Row row;
    row.rows = M;
    row.cols = N;
    row.scheme = scheme_name(scheme);
    row.origin = origin;
    const ipt_mpi_options o = mpi_options(scheme);
    ipt_mpi_local local{};
    ipt_status status = ipt_mpi_local_size_with_options(MPI_COMM_WORLD, M, N, &o, &local);
    if (status == IPT_SUCCESS)
      status = ipt_mpi_plan(MPI_COMM_WORLD, M, N, e_, options_.flags, &o, &row.plan);
    if (!all_ok(status == IPT_SUCCESS))
      return failed(row, "the plan: " + mpi_failure_text(status), status != IPT_SUCCESS);
    row.planned = scheme_name(row.plan.scheme);
    row.alloc_bytes = local.alloc_elements * e_;
    row.block_bytes = std::max(local.local_rows * N, local.local_cols * M) * e_;
    const std::size_t padding = row.alloc_bytes - std::min(row.alloc_bytes, row.block_bytes);
    const bool fits = options_.beyond_max_alloc || row.alloc_bytes <= info_.max_alloc;
    if (!all_ok(fits))
      return failed(row,
                    "a buffer of " + std::to_string(row.alloc_bytes) +
                        " bytes is more than one allocation of the device",
                    !fits);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session_.context(), CL_MEM_READ_WRITE,
                                   std::max(row.alloc_bytes, e_), nullptr, &code);
    if (!all_ok(code == CL_SUCCESS))
      return failed(row, "clCreateBuffer of the block: OpenCL error " + std::to_string(code),
                    code != CL_SUCCESS);
    const Layout in = input_layout(N, local, options_.flags);
    const Layout out = output_layout(M, N, local, options_.flags);
    std::vector<double> times;
    std::string why;
    bool mine = false;  // this rank found the failure
    for (int call = 0; call <= options_.reps && why.empty(); ++call) {
      // The input, written again before each call, outside the timing.
      std::string error;
      try {
        pattern_.fill(buffer, in, e_, seed);
      } catch (const std::exception& x) {
        error = x.what();
      }
      if (!all_ok(error.empty())) {
        why = "writing the input: " + error;
        mine = !error.empty();
        break;
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      status = ipt_mpi_transpose_with_options(MPI_COMM_WORLD, session_.queue(), buffer, 0, M, N, e_,
                                              local.local_rows, local.local_row_start,
                                              options_.flags, &o);
      const double t = max_of(MPI_Wtime() - start);
      if (!all_ok(status == IPT_SUCCESS)) {
        why = mpi_failure_text(status);
        mine = status != IPT_SUCCESS;
        break;
      }
      if (call > 0) times.push_back(t);
      try {
        error = pattern_.check(buffer, out, e_, seed);
      } catch (const std::exception& x) {
        error = std::string("checking: ") + x.what();
      }
      if (!all_ok(error.empty())) {
        why = "run " + std::to_string(call) + " (0: the warm-up): " + error;
        mine = !error.empty();
      }
    }
    clReleaseMemObject(buffer);
    if (!why.empty()) return failed(row, why, mine);

    const auto stats = support::stats_of(times);
    row.time_s = stats.median;
    row.min_s = stats.min;
    row.max_s = stats.max;
    const double t = row.time_s;
    row.gbs =
        2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(e_) / t * 1e-9;
    const double block = static_cast<double>(local.local_rows * N * e_);
    row.rank_gbs = max_of(2.0 * block / t * 1e-9);
    const auto exchange = gather_all(row.plan.exchange_bytes);
    row.exchange_max = *std::max_element(exchange.begin(), exchange.end());
    row.exchange_gbs = static_cast<double>(row.exchange_max) / t * 1e-9;
    row.padding_bytes = static_cast<std::size_t>(max_of(static_cast<double>(padding)));
    const double blocks = static_cast<double>(row.block_bytes);
    row.padding_fraction = max_of(blocks > 0 ? static_cast<double>(padding) / blocks : 0.0);
    row.staging_fraction =
        max_of(blocks > 0 ? static_cast<double>(row.plan.staging_bytes) / blocks : 0.0);
    row.alloc_bytes = static_cast<std::size_t>(max_of(static_cast<double>(row.alloc_bytes)));
    row.block_bytes = static_cast<std::size_t>(max_of(blocks));
    alltoall(exchange, row);
    row.ok = true;
    return row;
  }

  const Options& options_;
  const support::Session& session_;
  BlockPattern pattern_;
  int rank_, ranks_;
  std::size_t e_;
  RankInfo info_;
  MpiReport report_;
  std::size_t copy_bytes_ = 0;
  std::map<std::vector<std::size_t>, std::pair<double, bool>> alltoall_cache_;
};

// The rank's device: the local rank's (its rank among the ranks of its node) modulo the
// devices of the selected platform (IPT_DEVICE).
int bench(const Options& options) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const support::RankDevice mine = support::rank_device(MPI_COMM_WORLD);
  const support::Session session(mine.device);
  MpiBench bench(options, session, rank, ranks, mine.leader, mine.local_rank, mine.index,
                 mine.devices, mine.sharing);
  return bench.run();
}

// The rank mpirun gives this process, before MPI_Init: usage errors are printed once.
bool first_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr) return std::string(value) == "0";
  }
  return true;
}

}  // namespace

int run_mpi(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options options;
  bool help = false;
  try {
    options = parse_mpi_options(argc, argv, help);
  } catch (const support::CliError& e) {
    if (first_rank()) std::fprintf(stderr, "ipt-bench mpi: %s\n%s", e.what(), kMpiUsage);
    return 2;
  }
  if (help) {
    if (first_rank()) std::printf("%s", kMpiUsage);
    return 0;
  }
  MPI_Init(&argc, &argv);
  int result = 0;
  try {
    result = bench(options);
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "ipt-bench mpi: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return result;
}

}  // namespace ipt::bench

int main(int argc, char** argv) { return ipt::bench::run_mpi(argc, argv); }
