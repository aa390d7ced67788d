// SPDX-License-Identifier: Apache-2.0
#include "permute_mode.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "ipt/ipt.h"
#include "support/host_reference.hpp"
#include "support/measure.hpp"
#include "support/random_data.hpp"
#include "timed_runs.hpp"

namespace ipt::bench {
namespace {

struct Case {
  std::string name;
  std::vector<std::size_t> dims, perm;
};

// "8x64x56x56" for sizes, "(0,2,3,1)" for a permutation.
std::string list_text(const std::vector<std::size_t>& values, const char* separator,
                      const char* open = "", const char* close = "") {
  std::string out = open;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i == 0 ? "" : separator) + std::to_string(values[i]);
  return out + close;
}

// The protocol: common layouts, then `count` random permutations of rank 3 and 4 of
// 2^24 to 2^26 elements (sides from 2 to 4096, none the identity).
std::vector<Case> protocol(std::size_t count, std::uint64_t seed) {
  std::vector<Case> cases;
  const std::vector<std::vector<std::size_t>> images = {
      {32, 64, 112, 112}, {32, 256, 56, 56}, {32, 512, 28, 28}, {64, 2048, 7, 7},  // ResNet-50
      {64, 768, 14, 14},  {32, 1024, 16, 16}};                                     // ViT patches
  for (const auto& nchw : images) {
    cases.push_back({"NCHW -> NHWC", nchw, {0, 2, 3, 1}});
    cases.push_back({"NHWC -> NCHW", {nchw[0], nchw[2], nchw[3], nchw[1]}, {0, 3, 1, 2}});
  }
  for (const auto& bshd : std::vector<std::vector<std::size_t>>{
           {32, 512, 12, 64}, {8, 2048, 16, 128}, {16, 1024, 32, 64}, {4, 4096, 32, 128}}) {
    cases.push_back({"heads [B][S][H][D] -> [B][H][S][D]", bshd, {0, 2, 1, 3}});
    cases.push_back(
        {"heads [B][H][S][D] -> [B][S][H][D]", {bshd[0], bshd[2], bshd[1], bshd[3]}, {0, 2, 1, 3}});
  }
  for (const auto& xyz : std::vector<std::vector<std::size_t>>{
           {256, 256, 256}, {512, 512, 512}, {256, 512, 1024}, {1024, 1024, 64}}) {
    cases.push_back({"pencils xyz -> zxy", xyz, {2, 0, 1}});
    cases.push_back({"pencils xyz -> yzx", xyz, {1, 2, 0}});
  }
  std::mt19937_64 random(seed);
  const std::size_t layouts = cases.size();
  while (cases.size() < layouts + count) {
    const std::size_t rank = 3 + random() % 2;
    std::vector<std::size_t> dims(rank, 1), perm(rank);
    const std::size_t target = std::size_t{1} << (24 + random() % 3);
    std::size_t total = 1;
    for (std::size_t a = 0; a + 1 < rank; ++a) {
      dims[a] = std::size_t{2} << (random() % 12);
      if (total * dims[a] * 2 > target) dims[a] = std::max<std::size_t>(2, target / total / 2);
      dims[a] += random() % 3;  // not always a power of two
      total *= dims[a];
    }
    dims[rank - 1] = std::max<std::size_t>(2, target / total);
    std::iota(perm.begin(), perm.end(), 0);
    do std::shuffle(perm.begin(), perm.end(), random);
    while (std::is_sorted(perm.begin(), perm.end()));
    cases.push_back({"random rank " + std::to_string(rank), dims, perm});
  }
  return cases;
}

}  // namespace

int run_permute(const support::Session& session, std::size_t elem_size, std::size_t count,
                std::uint64_t seed, int repetitions, const std::string& csv,
                const std::vector<std::size_t>& dims, const std::vector<std::size_t>& perm) {
  const std::vector<Case> cases =
      dims.empty() ? protocol(count, seed) : std::vector<Case>{{"given", dims, perm}};
  std::size_t largest = 0;
  for (const Case& c : cases)
    largest = std::max(
        largest, std::accumulate(c.dims.begin(), c.dims.end(), elem_size, std::multiplies<>()));
  const auto copy = support::measure_copy_bandwidth(session, support::copy_bytes_for(largest));
  std::printf(
      "device: %s\nlibipt %s, mode permute: %zu cases, %zu-byte elements, exact buffers\n"
      "copy bandwidth: %s\nthroughput: 2 * bytes / median time of %d calls (each way)\n\n",
      session.description().c_str(), ipt_version_string(), cases.size(), elem_size,
      support::describe(copy).c_str(), repetitions);
  std::printf("%-36s %-20s %-10s %6s %9s %9s %7s %9s %9s\n", "case", "dims", "perm", "swaps",
              "median ms", "GB/s", "% copy", "extra %", "verified");
  FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out != nullptr)
    std::fprintf(out, "name,dims,perm,elem_size,seconds,gbs,copy_gbs,extra_bytes,verified\n");
  const cl_command_queue queue = session.queue();
  int failures = 0;
  std::vector<double> fractions, extras;
  for (const Case& c : cases) {
    const std::size_t elements =
        std::accumulate(c.dims.begin(), c.dims.end(), std::size_t{1}, std::multiplies<>());
    const std::size_t bytes = elements * elem_size;
    ipt_permute_info info{};
    const bool planned = !failed(ipt_plan_permute(session.device(), c.dims.size(), c.dims.data(),
                                                  c.perm.data(), elem_size, &info));
    // The inverse: output axis perm[i] of the permuted tensor goes back to place perm[i].
    std::vector<std::size_t> back_dims(c.dims.size()), back_perm(c.dims.size());
    for (std::size_t i = 0; i < c.dims.size(); ++i) {
      back_dims[i] = c.dims[c.perm[i]];
      back_perm[c.perm[i]] = i;
    }
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
    support::check(code, "clCreateBuffer");
    const Enqueue enqueue = [&](bool forward) -> cl_event {
      cl_event done = nullptr;
      const auto& from = forward ? c.dims : back_dims;
      const auto& axes = forward ? c.perm : back_perm;
      return failed(ipt_permute(queue, buffer, 0, from.size(), from.data(), axes.data(), elem_size,
                                0, nullptr, &done))
                 ? nullptr
                 : done;
    };
    const auto data = support::random_matrix(elements, 1, elem_size, seed + fractions.size());
    support::check(
        clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, data.data(), 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
    bool ok = false;
    if (cl_event done = enqueue(true); done != nullptr) {
      clReleaseEvent(done);
      std::vector<unsigned char> now(bytes);
      support::check(
          clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, now.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
      ok = now == support::permute_axes(data,
                                        std::vector<std::uint64_t>(c.dims.begin(), c.dims.end()),
                                        c.perm, elem_size);
      // Back to the input, so that the timed runs start from it.
      if (cl_event back = enqueue(false); back != nullptr) clReleaseEvent(back);
    }
    const auto seconds = time_runs(session, enqueue, repetitions);
    clReleaseMemObject(buffer);
    if (!ok || seconds.empty() || !planned) ++failures;
    const double median = seconds.empty() ? 0 : support::stats_of(seconds).median;
    const double gbs = median > 0 ? 2.0 * static_cast<double>(bytes) / median / 1e9 : 0;
    const double extra =
        100.0 * static_cast<double>(info.scratch_bytes) / static_cast<double>(bytes);
    fractions.push_back(gbs / copy.gbs);
    extras.push_back(extra);
    std::printf("%-36s %-20s %-10s %6u %9.3f %9.1f %6.1f%% %9.4f %9s\n", c.name.c_str(),
                list_text(c.dims, "x").c_str(), list_text(c.perm, ",", "(", ")").c_str(),
                info.num_swaps, median * 1e3, gbs, 100 * gbs / copy.gbs, extra,
                ok ? "yes" : "FAILED");
    if (out != nullptr)
      std::fprintf(out, "%s,%s,\"%s\",%zu,%.9f,%.3f,%.3f,%zu,%d\n", c.name.c_str(),
                   list_text(c.dims, "x").c_str(), list_text(c.perm, ",").c_str(), elem_size,
                   median, gbs, copy.gbs, info.scratch_bytes, ok ? 1 : 0);
  }
  if (out != nullptr) std::fclose(out);
  const auto f = support::stats_of(fractions);
  const auto e = support::stats_of(extras);
  const auto below =
      std::count_if(fractions.begin(), fractions.end(), [](double x) { return x < 0.1; });
  std::printf(
      "\n%zu cases: median %.1f%% of copy (p10 %.1f%%, min %.1f%%), %zd under 10%%; extra "
      "memory median %.4f%%, max %.4f%%; %s\n",
      cases.size(), 100 * f.median, 100 * f.p10, 100 * f.min, static_cast<std::ptrdiff_t>(below),
      e.median, e.max, failures == 0 ? "every result verified" : "FAILURES");
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
