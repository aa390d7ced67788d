// SPDX-License-Identifier: Apache-2.0
#include "mpi_report.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <utility>

#include "support/json_text.hpp"
#include "support/measure.hpp"

#ifndef IPT_BENCH_COMMIT
#define IPT_BENCH_COMMIT "unknown"
#endif

namespace ipt::bench {

using support::json_string;

void MpiReport::header(const std::vector<RankInfo>& all, const std::vector<std::string>& fill_notes,
                       std::size_t copy_bytes) {
  copy_bytes_ = copy_bytes;
  std::set<std::pair<int, ull>> devices;
  std::set<int> nodes;
  for (const RankInfo& r : all) {
    if (devices.insert({r.node_leader, r.index}).second) copy_sum_ += r.copy_gbs;
    nodes.insert(r.node_leader);
    max_sharing_ = std::max<std::size_t>(max_sharing_, r.sharing);
  }
  devices_ = devices.size();
  std::printf(
      "ipt-bench mpi: %d ranks on %zu node(s), %zu device(s); libipt %s (commit %s); type %s "
      "(%zu-byte elements), flags %s, %d timed runs each after a warm-up\n",
      ranks_, nodes.size(), devices_, ipt_version_string(), IPT_BENCH_COMMIT, options_.type.c_str(),
      e_, flags_name(options_.flags).c_str(), options_.reps);
  for (std::size_t r = 0; r < all.size(); ++r) {
    const RankInfo& i = all[r];
    std::printf(
        "rank %zu (%s, local rank %d): device %llu of %llu, shared by %llu rank(s): %s (driver "
        "%s); memory %.1f GB, one allocation %.1f GB; copy %.1f GB/s\n",
        r, i.host, i.local_rank, i.index, i.devices, i.sharing, i.device, i.driver,
        static_cast<double>(i.global_mem) * 1e-9, static_cast<double>(i.max_alloc) * 1e-9,
        i.copy_gbs);
  }
  for (const auto& note : fill_notes) std::printf("%s\n", note.c_str());
  std::printf(
      "copy: clEnqueueCopyBuffer of %zu bytes between two device buffers, bytes read + "
      "written / median time of %d copies after a warm-up, each rank alone; summed over the "
      "%zu device(s): %.1f GB/s\n"
      "time: the slowest rank's (MPI_Wtime around the call, after a barrier), median of the "
      "timed runs; agg = 2 * rows * cols * e / t; rank = the largest block's 2 * local_rows * "
      "cols * e / t; %% copy: agg against the summed copy bandwidth; xchg: the busiest rank's "
      "exchange bytes (ipt_mpi_plan) / t\n"
      "a2a: MPI_Alltoallv of the same bytes (each rank's exchange bytes in P - 1 equal parts) "
      "between host buffers of up to %zu MiB, pinned (mapped CL_MEM_ALLOC_HOST_PTR; * where "
      "the driver gave none: pageable); rank = the busiest rank's bytes / t, agg = all ranks' "
      "bytes / t\n"
      "pad: the buffer's room past the block (alloc_elements), stage: the host staging, the "
      "largest of the ranks as %% of their block; every result checked on the device\n\n",
      copy_bytes_, support::kCopyRepetitions, devices_, copy_sum_, kAlltoallBuffer >> 20);
  std::printf("%-15s %3s %-17s %5s %9s %9s %9s %9s %9s %7s %9s %9s %9s %7s %7s\n", "shape", "P",
              "scheme", "rnds", "piece MiB", "model ms", "median ms", "agg GB/s", "rank GB/s",
              "% copy", "xchg GB/s", "a2a GB/s", "a2a agg", "pad %", "stage %");
  if (!options_.csv.empty()) {
    csv_.open(options_.csv);
    csv_ << "mode,library,scheme,planned_scheme,type,elem_size,rows,cols,ranks,devices,"
            "ranks_per_device,flags,origin,block_rows,block_cols,rounds,chunk_bytes,piece_bytes,"
            "staging_bytes,exchange_bytes,modelled_s,time_s,min_s,max_s,throughput_gbs,rank_gbs,"
            "copy_gbs,fraction_of_copy,exchange_gbs,alltoall_s,alltoall_rank_gbs,alltoall_gbs,"
            "alltoall_pinned,alloc_bytes,block_bytes,padding_bytes,padding_fraction,"
            "staging_fraction,verified\n";
  }
}

void MpiReport::record(const Row& r) {
  const std::string shape = std::to_string(r.rows) + "x" + std::to_string(r.cols);
  const std::string scheme =
      r.scheme == "auto" && !r.planned.empty() ? "auto:" + r.planned : r.scheme;
  if (!r.ok) {
    std::printf("%-15s %3d %-17s FAILED (see the ranks' messages)\n", shape.c_str(), ranks_,
                scheme.c_str());
  } else {
    char a2a[32] = "-", a2a_agg[32] = "-";
    if (r.alltoall_s > 0) {
      const char* pageable = r.alltoall_pinned ? "" : "*";
      std::snprintf(a2a, sizeof a2a, "%.1f%s", r.alltoall_rank_gbs, pageable);
      std::snprintf(a2a_agg, sizeof a2a_agg, "%.1f%s", r.alltoall_gbs, pageable);
    }
    std::printf(
        "%-15s %3d %-17s %5zu %9.2f %9.3f %9.3f %9.1f %9.1f %6.1f%% %9.1f %9s %9s %7.3f %7.3f\n",
        shape.c_str(), ranks_, scheme.c_str(), r.plan.rounds,
        static_cast<double>(r.plan.piece_bytes) / (1 << 20), r.plan.modelled_seconds * 1e3,
        r.time_s * 1e3, r.gbs, r.rank_gbs, copy_sum_ > 0 ? 100 * r.gbs / copy_sum_ : 0.0,
        r.exchange_gbs, a2a, a2a_agg, 100 * r.padding_fraction, 100 * r.staging_fraction);
  }
  std::fflush(stdout);
  if (csv_) {
    csv_ << "mpi,libipt_mpi," << r.scheme << ',' << r.planned << ',' << options_.type << ',' << e_
         << ',' << r.rows << ',' << r.cols << ',' << ranks_ << ',' << devices_ << ','
         << max_sharing_ << ',' << flags_name(options_.flags) << ',' << r.origin << ','
         << r.plan.block_rows << ',' << r.plan.block_cols << ',' << r.plan.rounds << ','
         << r.plan.chunk_bytes << ',' << r.plan.piece_bytes << ',' << r.plan.staging_bytes << ','
         << r.exchange_max << ',' << r.plan.modelled_seconds << ',' << r.time_s << ',' << r.min_s
         << ',' << r.max_s << ',' << (r.ok ? r.gbs : 0.0) << ',' << (r.ok ? r.rank_gbs : 0.0) << ','
         << copy_sum_ << ',' << (r.ok && copy_sum_ > 0 ? r.gbs / copy_sum_ : 0.0) << ','
         << r.exchange_gbs << ',' << r.alltoall_s << ',' << r.alltoall_rank_gbs << ','
         << r.alltoall_gbs << ',' << (r.alltoall_pinned ? 1 : 0) << ',' << r.alloc_bytes << ','
         << r.block_bytes << ',' << r.padding_bytes << ',' << r.padding_fraction << ','
         << r.staging_fraction << ',' << (r.ok ? 1 : 0) << '\n';
    csv_.flush();
  }
  std::ostringstream j;
  j << "    {\"rows\": " << r.rows << ", \"cols\": " << r.cols
    << ", \"scheme\": " << json_string(r.scheme)
    << ", \"planned_scheme\": " << json_string(r.planned)
    << ", \"origin\": " << json_string(r.origin) << ", \"verified\": " << (r.ok ? "true" : "false");
  if (r.ok)
    j << ", \"rounds\": " << r.plan.rounds << ", \"piece_bytes\": " << r.plan.piece_bytes
      << ", \"staging_bytes\": " << r.plan.staging_bytes
      << ", \"exchange_bytes\": " << r.exchange_max
      << ", \"modelled_s\": " << r.plan.modelled_seconds << ", \"time_s\": " << r.time_s
      << ", \"throughput_gbs\": " << r.gbs << ", \"rank_gbs\": " << r.rank_gbs
      << ", \"fraction_of_copy\": " << (copy_sum_ > 0 ? r.gbs / copy_sum_ : 0.0)
      << ", \"exchange_gbs\": " << r.exchange_gbs << ", \"alltoall_s\": " << r.alltoall_s
      << ", \"alltoall_rank_gbs\": " << r.alltoall_rank_gbs
      << ", \"alltoall_gbs\": " << r.alltoall_gbs
      << ", \"alltoall_pinned\": " << (r.alltoall_pinned ? "true" : "false")
      << ", \"alloc_bytes\": " << r.alloc_bytes << ", \"padding_fraction\": " << r.padding_fraction
      << ", \"staging_fraction\": " << r.staging_fraction
      << ", \"plan\": " << json_string(r.plan.description);
  j << "}";
  json_rows_.push_back(j.str());
}

void MpiReport::finish(const std::vector<RankInfo>& all) const {
  if (options_.json.empty()) return;
  std::ofstream json(options_.json);
  json << "{\n  \"tool\": \"ipt-bench\",\n  \"mode\": \"mpi\",\n  \"type\": "
       << json_string(options_.type) << ",\n  \"elem_size\": " << e_
       << ",\n  \"libipt\": " << json_string(ipt_version_string())
       << ",\n  \"commit\": " << json_string(IPT_BENCH_COMMIT) << ",\n  \"ranks\": " << ranks_
       << ",\n  \"devices\": " << devices_ << ",\n  \"ranks_per_device\": " << max_sharing_
       << ",\n  \"flags\": " << json_string(flags_name(options_.flags))
       << ",\n  \"repetitions\": " << options_.reps << ",\n  \"copy_bytes\": " << copy_bytes_
       << ",\n  \"copy_gbs\": " << copy_sum_ << ",\n  \"rank_devices\": [";
  for (std::size_t r = 0; r < all.size(); ++r)
    json << (r > 0 ? ",\n" : "\n") << "    {\"rank\": " << r
         << ", \"host\": " << json_string(all[r].host) << ", \"device_index\": " << all[r].index
         << ", \"device\": " << json_string(all[r].device)
         << ", \"driver\": " << json_string(all[r].driver)
         << ", \"ranks_on_device\": " << all[r].sharing
         << ", \"global_mem_bytes\": " << all[r].global_mem
         << ", \"max_alloc_bytes\": " << all[r].max_alloc << ", \"copy_gbs\": " << all[r].copy_gbs
         << "}";
  json << "\n  ],\n  \"results\": [";
  for (std::size_t i = 0; i < json_rows_.size(); ++i)
    json << (i > 0 ? ",\n" : "\n") << json_rows_[i];
  json << "\n  ]\n}\n";
}

}  // namespace ipt::bench
