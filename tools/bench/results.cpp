// SPDX-License-Identifier: Apache-2.0
#include "results.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <sstream>

#include "support/json_text.hpp"
#include "support/measure.hpp"

namespace ipt::bench {

using support::json_string;

const char* const kCsvHeader =
    "mode,library,variant,param,type,elem_size,rows,cols,sequence,m,n,padded_rows,padded_cols,"
    "time_s,wall_s,throughput_gbs,copy_gbs,fraction_of_copy,memory_bytes,verified,extra_bytes";

namespace {

std::string blank_if_zero(std::size_t x) { return x == 0 ? "" : std::to_string(x); }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Results::Results(const std::string& csv, const std::string& json, double copy_gbs,
                 std::map<std::string, std::string> context,
                 std::map<std::string, std::uint64_t> numbers)
    : json_path_(json),
      copy_gbs_(copy_gbs),
      context_(std::move(context)),
      numbers_(std::move(numbers)) {
  if (!csv.empty()) {
    csv_.open(csv);
    csv_ << kCsvHeader << '\n';
  }
}

void Results::add(const Row& r) {
  rows_.push_back(r);
  if (!csv_) return;
  csv_ << r.mode << ',' << r.library << ',' << r.variant << ',' << r.param << ',' << r.type << ','
       << r.elem_size << ',' << r.rows << ',' << r.cols << ',' << r.sequence << ','
       << blank_if_zero(r.m) << ',' << blank_if_zero(r.n) << ',' << blank_if_zero(r.padded_rows)
       << ',' << blank_if_zero(r.padded_cols) << ',' << r.time_s << ',' << r.wall_s << ','
       << (r.ok ? r.throughput_gbs : 0.0) << ',' << copy_gbs_ << ','
       << (r.ok ? r.throughput_gbs / copy_gbs_ : 0.0) << ',' << r.memory_bytes << ','
       << (r.verified ? 1 : 0) << ',' << r.extra_bytes << '\n';
  csv_.flush();
}

int Results::finish() {
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;
  std::map<std::pair<std::string, std::string>, int> failures;
  std::map<std::pair<std::string, std::string>, std::size_t> memory;
  // Extra device memory per shape, as a fraction of the matrix.
  std::map<std::pair<std::string, std::string>, std::vector<double>> extra;
  int failed = 0;
  for (const Row& r : rows_) {
    const auto key = std::make_pair(r.library, r.variant);
    if (r.ok) {
      groups[key].push_back(r.throughput_gbs);
      memory[key] = std::max(memory[key], r.memory_bytes);
      const double matrix = static_cast<double>(r.rows * r.cols * r.elem_size);
      extra[key].push_back(matrix > 0 ? static_cast<double>(r.extra_bytes) / matrix : 0.0);
    } else {
      ++failures[key];
      ++failed;
      groups[key];
    }
  }
  std::printf("\n%-18s %-14s %6s %5s %9s %7s %9s %9s %9s %9s\n", "library", "variant", "shapes",
              "fail", "median", "% copy", "p10", "p90", "min", "max");
  std::ostringstream json;
  json << "{\n";
  for (const auto& [k, v] : context_)
    json << "  " << json_string(k) << ": " << json_string(v) << ",\n";
  for (const auto& [k, v] : numbers_) json << "  " << json_string(k) << ": " << v << ",\n";
  json << "  \"copy_gbs\": " << copy_gbs_ << ",\n  \"results\": [";
  bool first = true;
  for (const auto& [key, values] : groups) {
    const auto s = values.empty() ? support::Stats{} : support::stats_of(values);
    std::printf("%-18s %-14s %6zu %5d %9.1f %6.1f%% %9.1f %9.1f %9.1f %9.1f\n", key.first.c_str(),
                key.second.c_str(), values.size(), failures[key], s.median,
                100 * s.median / copy_gbs_, s.p10, s.p90, s.min, s.max);
    json << (first ? "\n" : ",\n") << "    {\"library\": " << json_string(key.first)
         << ", \"variant\": " << json_string(key.second) << ", \"shapes\": " << values.size()
         << ", \"failures\": " << failures[key] << ", \"median_gbs\": " << s.median
         << ", \"p10_gbs\": " << s.p10 << ", \"p90_gbs\": " << s.p90 << ", \"min_gbs\": " << s.min
         << ", \"max_gbs\": " << s.max << ", \"median_fraction_of_copy\": " << s.median / copy_gbs_
         << ", \"max_memory_bytes\": " << memory[key];
    if (!extra[key].empty()) {
      const auto e = support::stats_of(extra[key]);
      json << ", \"median_extra_fraction\": " << e.median << ", \"p90_extra_fraction\": " << e.p90
           << ", \"max_extra_fraction\": " << e.max;
    }
    json << "}";
    first = false;
  }
  json << "\n  ],\n  \"histograms\": [";
  std::printf("(GB/s = 2 * rows * cols * elem_size / time; copy bandwidth %.1f GB/s)\n", copy_gbs_);
  // Histograms of the fraction of the copy bandwidth, in bins of 5% (the protocol's
  // report; the figures of tools/plots are drawn from the CSV).
  first = true;
  for (const auto& [key, values] : groups) {
    if (values.empty() || copy_gbs_ <= 0) continue;
    constexpr int kBins = 20;
    std::vector<std::size_t> counts(kBins, 0);
    std::size_t under_tenth = 0;
    for (double v : values) {
      const double fraction = v / copy_gbs_;
      counts[std::clamp(static_cast<int>(fraction * kBins), 0, kBins - 1)]++;
      if (fraction < 0.1) ++under_tenth;
    }
    int last = kBins - 1;
    while (last > 0 && counts[last] == 0) --last;
    std::printf("\n%s %s, %% of copy (%zu of %zu shapes under 10%%):\n", key.first.c_str(),
                key.second.c_str(), under_tenth, values.size());
    const std::size_t peak = *std::max_element(counts.begin(), counts.end());
    json << (first ? "\n" : ",\n") << "    {\"library\": " << json_string(key.first)
         << ", \"variant\": " << json_string(key.second)
         << ", \"shapes_under_10_percent\": " << under_tenth << ", \"bin_percent\": 5"
         << ", \"counts\": [";
    for (int b = 0; b <= last; ++b) {
      const std::size_t bar = peak == 0 ? 0 : (counts[b] * 50 + peak - 1) / peak;
      std::printf("  %3d-%3d%% %5zu %s\n", b * 5, b * 5 + 5, counts[b],
                  std::string(bar, '#').c_str());
      json << (b > 0 ? ", " : "") << counts[b];
    }
    json << "]}";
    first = false;
  }
  json << "\n  ],\n  \"extra_memory_histograms\": [";
  // Extra device memory (scratch, and room past the matrix) as a fraction of the matrix,
  // in bins that separate the papers' overhead (0.01-0.03%) from a flag per element (3%).
  static const double kEdges[] = {0, 0.0001, 0.0003, 0.001, 0.003, 0.006, 0.01, 0.03, 0.1};
  constexpr std::size_t kMemoryBins = std::size(kEdges);
  first = true;
  for (const auto& [key, fractions] : extra) {
    if (fractions.empty()) continue;
    std::vector<std::size_t> counts(kMemoryBins, 0);
    for (double f : fractions) {
      std::size_t bin = 0;
      while (bin + 1 < kMemoryBins && f >= kEdges[bin + 1]) ++bin;
      ++counts[bin];
    }
    const auto e = support::stats_of(fractions);
    std::printf("\n%s %s, extra device memory (%% of the matrix; median %.4f%%, max %.4f%%):\n",
                key.first.c_str(), key.second.c_str(), 100 * e.median, 100 * e.max);
    const std::size_t peak = *std::max_element(counts.begin(), counts.end());
    json << (first ? "\n" : ",\n") << "    {\"library\": " << json_string(key.first)
         << ", \"variant\": " << json_string(key.second) << ", \"bin_lower_fractions\": [";
    for (std::size_t b = 0; b < kMemoryBins; ++b) json << (b > 0 ? ", " : "") << kEdges[b];
    json << "], \"counts\": [";
    for (std::size_t b = 0; b < kMemoryBins; ++b) {
      const std::size_t bar = peak == 0 ? 0 : (counts[b] * 50 + peak - 1) / peak;
      char range[40];
      if (b + 1 < kMemoryBins)
        std::snprintf(range, sizeof range, "%g-%g%%", 100 * kEdges[b], 100 * kEdges[b + 1]);
      else
        std::snprintf(range, sizeof range, ">= %g%%", 100 * kEdges[b]);
      std::printf("  %-12s %5zu %s\n", range, counts[b], std::string(bar, '#').c_str());
      json << (b > 0 ? ", " : "") << counts[b];
    }
    json << "]}";
    first = false;
  }
  json << "\n  ]\n}\n";
  if (!json_path_.empty()) std::ofstream(json_path_) << json.str();
  return failed;
}

Progress::Progress(std::size_t total, const char* what)
    : total_(total), what_(what), start_(now_seconds()), tty_(isatty(2) != 0) {}

void Progress::step() {
  ++done_;
  if (total_ == 0) return;
  const double elapsed = now_seconds() - start_;
  const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  const std::size_t decile = done_ * 10 / total_;
  if (!tty_ && decile == last_decile_ && done_ != total_) return;
  last_decile_ = decile;
  const std::size_t width = 30, filled = done_ * width / total_;
  std::fprintf(stderr, "%s[%s%s] %zu/%zu %s  ETA %dm%02ds%s", tty_ ? "\r" : "",
               std::string(filled, '=').c_str(), std::string(width - filled, ' ').c_str(), done_,
               total_, what_, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60,
               tty_ ? "" : "\n");
}

Progress::~Progress() {
  if (tty_ && done_ > 0) std::fprintf(stderr, "\n");
}

}  // namespace ipt::bench
