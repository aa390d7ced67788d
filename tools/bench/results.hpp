// SPDX-License-Identifier: Apache-2.0
// What ipt-bench records: one row per (shape, library, variant), written as CSV as it is
// measured, summarised on the terminal and in a JSON file, with a progress bar on stderr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace ipt::bench {

struct Row {
  std::string mode, library = "libipt", variant = "auto", param, type;
  std::size_t elem_size = 0, rows = 0, cols = 0;
  std::string sequence;  // libipt's plan; empty for baselines
  std::size_t m = 0, n = 0, padded_rows = 0, padded_cols = 0;
  double time_s = 0, wall_s = 0, throughput_gbs = 0;
  std::size_t memory_bytes = 0;  // device memory of the call: the buffer(s) and scratch
  std::size_t extra_bytes = 0;   // beyond the matrix: scratch and room past it
  bool ok = false;               // ran, and verified when verification was on
  bool verified = false;
};

// The CSV header every ipt-bench mode (and tools/compare) writes.
extern const char* const kCsvHeader;

class Results {
 public:
  // `csv` and `json` may be empty (not written). `context` (strings) and `numbers` go
  // into the JSON summary, the numbers as JSON numbers.
  Results(const std::string& csv, const std::string& json, double copy_gbs,
          std::map<std::string, std::string> context,
          std::map<std::string, std::uint64_t> numbers = {});
  void add(const Row& row);
  // Summary table per (library, variant) on stdout; JSON written. Returns failed rows.
  int finish();

 private:
  std::ofstream csv_;
  std::string json_path_;
  double copy_gbs_;
  std::map<std::string, std::string> context_;
  std::map<std::string, std::uint64_t> numbers_;
  std::vector<Row> rows_;
};

// "[=====>    ] 42/100  ETA 1m03s" on stderr, redrawn in place when stderr is a terminal
// and printed every 10% otherwise.
class Progress {
 public:
  Progress(std::size_t total, const char* what);
  void step();
  ~Progress();

 private:
  std::size_t total_, done_ = 0;
  const char* what_;
  double start_;
  bool tty_;
  std::size_t last_decile_ = 0;
};

}  // namespace ipt::bench
